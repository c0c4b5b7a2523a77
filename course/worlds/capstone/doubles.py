"""Recording test doubles for the capstone's graded cells: scripted decisions, one :class:`Log`
of every call in order, and a scripted model served by the grader (:func:`script_api`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import anthropic

from ...fakes import FakeAPI, Scripted
from ...hub import served
from ...trace import Trace
from ...wire import JSON, Reply, message, text, tool_use
from .desk import MODEL, TOOLS, Agent
from .guards import BudgetExceeded, Guards

# -- recording test doubles -------------------------------------------------------------------


class Log(list):
    """Every call the doubles saw, in order, as tuples ``(what, *details)``."""

    def names(self) -> list[str]:
        return [e[0] for e in self]

    def first(self, name: str) -> int:
        """Index of the first event called ``name`` (a ValueError naming it if absent)."""
        for i, e in enumerate(self):
            if e[0] == name:
                return i
        raise ValueError(f"the loop never called {name}; calls were: {self.names()}")

    def count(self, name: Any) -> int:  # type: ignore[override]
        return sum(1 for e in self if e[0] == name)


class ScriptExhausted(BaseException):
    """The scripted model was asked for more replies than the test gave it."""


DOUBLE_TOOLS: list[JSON] = [TOOLS[0], TOOLS[1], TOOLS[2], TOOLS[5]]


class Script:
    """The scripted model of :func:`doubles`: the n-th reply for the n-th request, then a
    loud :class:`ScriptExhausted` (a BaseException, so no loop swallows it)."""

    def __init__(self, replies: Sequence[JSON | Reply]) -> None:
        self.replies, self.sent = list(replies), 0

    def __call__(self, body: JSON) -> JSON | Reply:
        n, self.sent = self.sent, self.sent + 1
        if n >= len(self.replies):
            raise ScriptExhausted(f"the scripted model had {len(self.replies)} replies; the "
                                  f"loop asked for reply {n + 1}")
        return self.replies[n]


@served
def script_api(replies: Sequence[JSON | Reply]) -> FakeAPI:
    """A fake API that answers with ``replies`` in order (:class:`Script`)."""
    return FakeAPI(Scripted(Script(replies)))


class ModelCalls:
    """The doubles' fake API as a test uses it: ``client()`` logs ``("model", n)`` as each
    request leaves, between the guards' calls; ``requests`` is the fake's own log (the
    grader's, when the grader serves the fake)."""

    def __init__(self, api: Any, log: Log) -> None:
        self.api, self.log, self.sent = api, log, 0

    def _sent(self) -> None:
        self.log.append(("model", self.sent))
        self.sent += 1

    def client(self, **kwargs: Any) -> anthropic.Anthropic:
        return self.api.client(on_send=self._sent, **kwargs)

    @property
    def requests(self) -> Any:
        return self.api.requests


@dataclass
class Doubles:
    """The recording doubles of one test: ``guards`` to pass to the loop, ``api`` (its
    ``client()`` and ``requests``), ``log`` (every call in order) and the scripted
    decisions' state."""

    guards: Guards
    api: ModelCalls
    log: Log
    budgets: list[Any]
    loop_guards: list[Any]


def doubles(replies: Sequence[JSON | Reply], *,
            hit: str | None = None, cacheable: bool = True, attempts: int = 1,
            retry_raises: BaseException | None = None, over_after: int | None = None,
            note_after: int | None = None, trips: dict[int, str] | None = None,
            halt_at: int | None = None, deny: Iterable[str] = (),
            goal: Sequence[tuple[bool, str]] = (), results: dict[str, str] | None = None,
            raises: dict[str, Exception] | None = None) -> Doubles:
    """Recording doubles with scripted decisions.

    * ``replies``: the model's replies in order (a reply past the last raises
      :class:`ScriptExhausted`).
    * ``hit``: what ``cache.get`` returns; ``cacheable``: what ``cacheable`` returns.
    * ``attempts``: how many times ``retry`` calls ``fn`` (it returns the last reply), or
      ``retry_raises``: the exception ``retry`` raises instead of calling ``fn`` at all.
    * ``over_after`` / ``note_after``: after that many charges ``budget.guard()`` raises
      ``BudgetExceeded`` / returns ``"NOTE: wrap up"`` (the note each time it is asked).
    * ``trips``: ``{k: nudge}``, the k-th ``check`` (from 1) returns the nudge and counts a
      trip; ``halt_at``: that ``check`` sets ``halted`` and returns ``"HALT"``.
    * ``deny``: tools ``authorize`` refuses. ``goal``: the verdicts in order, then passes.
    * ``results`` / ``raises``: what ``dispatch`` returns / raises per tool (default
      ``"<name> ok"``).
    """
    if callable(replies):
        raise TypeError("doubles() takes the model's replies as a list, so the grader can "
                        "serve them")
    log = Log()
    trips = dict(trips or {})
    deny = set(deny)
    verdicts = list(goal)
    results = dict(results or {})
    raises = dict(raises or {})
    budgets: list[Any] = []
    loop_guards: list[Any] = []

    class Cache:
        def get(self, q: str, namespace: str = "default") -> str | None:
            log.append(("cache.get", q, namespace))
            return hit

        def put(self, q: str, a: str, namespace: str = "default") -> None:
            log.append(("cache.put", q, a, namespace))

    def is_cacheable(q: str, a: str) -> bool:
        log.append(("cacheable", q, a))
        return cacheable

    def retry(fn: Callable[[], Any]) -> Any:
        log.append(("retry",))
        if retry_raises is not None:
            raise retry_raises
        out = None
        for _ in range(attempts):
            out = fn()
        return out

    class Ledger:
        def __init__(self) -> None:
            self.rows: list[tuple[str, str, int]] = []

        def record(self, label: str, model: str, usage: Any, ms: float) -> None:
            log.append(("ledger.record", label, model))
            self.rows.append((label, model, usage.output_tokens))

    class Budget:
        def __init__(self, limit_usd: float) -> None:
            log.append(("Budget", limit_usd))
            self.limit, self.charges, self.spent = limit_usd, 0, 0.0
            budgets.append(self)

        def charge(self, model: str, usage: Any) -> float:
            log.append(("budget.charge", model))
            self.charges += 1
            self.spent += 0.01
            return 0.01

        def guard(self) -> str | None:
            log.append(("budget.guard", self.charges))
            if over_after is not None and self.charges >= over_after:
                raise BudgetExceeded(f"over after {self.charges} charges")
            if note_after is not None and self.charges >= note_after:
                return "NOTE: wrap up"
            return None

    class Guard:
        def __init__(self, max_steps: int = 40, **_: Any) -> None:
            log.append(("LoopGuard", max_steps))
            self.checks, self.trips, self.halted = 0, 0, False
            loop_guards.append(self)

        def check(self, tool: str, args: JSON, state: Any, progress: float | None = None
                  ) -> str | None:
            self.checks += 1
            log.append(("guard.check", tool, dict(args)))
            if halt_at is not None and self.checks == halt_at:
                self.halted = True
                return "HALT"
            if self.checks in trips:
                self.trips += 1
                return trips[self.checks]
            return None

    class Offloader:
        def wrap(self, tool_name: str, payload: str) -> str:
            log.append(("offloader.wrap", tool_name, payload))
            return f"wrapped:{payload}"

    def authorize(tool: str, args: JSON, tenant: str) -> bool:
        log.append(("authorize", tool, dict(args), tenant))
        return tool not in deny

    def check_goal(answer: str, trace: Trace) -> tuple[bool, str]:
        log.append(("goal", answer))
        return verdicts.pop(0) if verdicts else (True, "")

    def dispatch(name: str, args: JSON, *, tenant: str) -> str:
        log.append(("dispatch", name, dict(args), tenant))
        if name in raises:
            raise raises[name]
        return results.get(name, f"{name} ok")

    def request(messages: list[JSON]) -> JSON:
        return {"model": MODEL, "max_tokens": 1_024, "system": [text("You triage tickets.")],
                "tools": DOUBLE_TOOLS, "messages": messages}

    agent = Agent(MODEL, request, dispatch, snapshot=lambda: ("world",), progress=lambda: 0.0)
    guards = Guards(cache=Cache(), cacheable=is_cacheable, retry=retry, ledger=Ledger(),
                    Budget=Budget, BudgetExceeded=BudgetExceeded, LoopGuard=Guard,
                    offloader=Offloader(), authorize=authorize, goal=check_goal, agent=agent)
    return Doubles(guards, ModelCalls(script_api(list(replies)), log), log, budgets,
                   loop_guards)


def calls(*names_and_inputs: tuple[str, JSON], lead: str = "") -> JSON:
    """A tool_use reply asking for each ``(name, input)``, in one assistant turn."""
    content = ([text(lead)] if lead else []) + [tool_use(n, dict(i)) for n, i in names_and_inputs]
    return message(content, "tool_use", usage={"input_tokens": 100, "output_tokens": 20})


def answer(body: str, stop: str = "end_turn") -> JSON:
    """A text reply (``stop`` may be ``max_tokens`` to cut it off)."""
    return message([text(body)], stop, usage={"input_tokens": 100, "output_tokens": 20})


def refusal() -> JSON:
    """A refusal: ``stop_reason`` ``refusal`` and no content at all."""
    return message([], "refusal", usage={"input_tokens": 100, "output_tokens": 0})


def bad_request() -> BaseException:
    """The SDK's own ``BadRequestError`` (a 400, never worth retrying), raised once for real."""
    api = FakeAPI(Scripted(lambda body: Reply.error(400, "messages: Field required")))
    try:
        api.client().messages.create(model=MODEL, max_tokens=8, messages=[
            {"role": "user", "content": "x"}])
    except anthropic.BadRequestError as err:
        return err
    raise AssertionError("the fake did not return a 400")


def user_messages_with_results(body: JSON) -> list[int]:
    """For each user message of a request that carries tool results, how many it carries."""
    return [sum(1 for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
            for m in body.get("messages") or []
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])]
