"""The guard bundle the integrated loop is handed (:class:`Guards`), and simple stand-in guards
that fill it: an exact-match cache, a fixed-wait retry, a budget that ignores cache
discounts, a ledger that prices nothing, a repeat-only loop guard and an in-memory offloader.
None of them is an earlier lab's answer."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic

from ... import prices
from ...clock import FakeSleep
from ...trace import Trace
from ...wire import JSON
from .desk import MODEL, SEARCH_DUMP, Agent, Desk, triage_agent

# -- the guard bundle -----------------------------------------------------------------------


@dataclass
class Guards:
    """Everything the integrated loop is handed besides the request, the tenant and the client.

    * ``cache``: ``.get(q, namespace=...) -> str | None`` and ``.put(q, a, namespace=...)``.
    * ``cacheable(q, a) -> bool``: may this answer be stored at all?
    * ``retry(fn)``: calls the zero-argument ``fn`` (one or more times) and returns a reply,
      or raises.
    * ``ledger``: ``.record(label, model, usage, ms)``.
    * ``Budget(limit_usd)``: a fresh budget with ``.charge(model, usage)``, ``.guard()``
      (``None``, a wrap-up note, or raises ``BudgetExceeded``) and ``.spent``.
    * ``BudgetExceeded``: the exception ``guard()`` raises over the limit.
    * ``LoopGuard(max_steps=...)``: a fresh guard with ``.check(tool, args, state,
      progress=...) -> str | None``, ``.halted`` and ``.trips``.
    * ``offloader``: ``.wrap(tool_name, text) -> str``.
    * ``authorize(tool, args, tenant) -> bool``.
    * ``goal(text, trace) -> (passed, feedback)``.
    * ``agent``: the :class:`Agent` being guarded.
    """

    cache: Any
    cacheable: Callable[[str, str], bool]
    retry: Callable[[Callable[[], Any]], Any]
    ledger: Any
    Budget: Callable[[float], Any]
    BudgetExceeded: type[BaseException]
    LoopGuard: Callable[..., Any]
    offloader: Any
    authorize: Callable[[str, JSON, str], bool]
    goal: Callable[[str, Trace], tuple[bool, str]]
    agent: Agent


# -- simple stand-in guards (not the earlier labs' answers) ----------------------------------


class ExactCache:
    """A stand-in for the semantic cache: a dict keyed by namespace and the question with case
    and spacing folded. Only a verbatim repeat hits; a paraphrase misses."""

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _fold(q: str) -> str:
        return " ".join(q.lower().split())

    def get(self, q: str, namespace: str = "default") -> str | None:
        found = self.store.get((namespace, self._fold(q)))
        self.hits += found is not None
        self.misses += found is None
        return found

    def put(self, q: str, a: str, namespace: str = "default") -> None:
        self.store[(namespace, self._fold(q))] = a


def cacheable_unless_personal(q: str, a: str) -> bool:
    """A stand-in cacheability rule: never store an answer built from one customer's records
    (it cites ``[src:account/...]`` or ``[src:order/...]``)."""
    return "[src:account/" not in a and "[src:order/" not in a


TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError, anthropic.APIConnectionError)


class FixedRetry:
    """A stand-in retry: up to ``attempts`` calls, a fixed ``wait`` on a fake sleep between them,
    for 429, 5xx and dropped connections. Anything else is raised at once. No backoff, no
    jitter, no ``retry-after``: good enough for a demo, not for a fleet."""

    def __init__(self, attempts: int = 3, wait: float = 1.0, sleep: Callable[[float], None]
                 | None = None) -> None:
        self.attempts, self.wait = attempts, wait
        self.sleep = sleep or FakeSleep()

    def __call__(self, fn: Callable[[], Any]) -> Any:
        for attempt in range(1, self.attempts + 1):
            try:
                return fn()
            except TRANSIENT:
                if attempt == self.attempts:
                    raise
                self.sleep(self.wait)
        raise AssertionError("unreachable")


class TokenLog:
    """A stand-in ledger: one row of token counts per recorded call, priced by nobody."""

    def __init__(self) -> None:
        self.rows: list[JSON] = []

    def record(self, label: str, model: str, usage: Any, ms: float) -> None:
        counts = (usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens,
                  usage.cache_read_input_tokens)
        row: JSON = {"label": label, "model": model, "ms": ms}
        row.update(zip(("in", "out", "cache_write", "cache_read"),
                       (n if n else 0 for n in counts), strict=True))
        self.rows.append(row)


class BudgetExceeded(RuntimeError):
    """The stand-in budget's hard stop."""


class RoughBudget:
    """A stand-in budget that prices every input token, cached or not, at $5/MTok and every
    output token at $25/MTok. It ignores cache discounts, so it over-counts: safe, not exact."""

    USD_IN = prices.per_token(MODEL)["in"]
    USD_OUT = prices.per_token(MODEL)["out"]

    def __init__(self, limit_usd: float) -> None:
        self.limit, self.spent, self.noted = float(limit_usd), 0.0, False

    def charge(self, model: str, usage: Any) -> float:
        seen = sum(n or 0 for n in (usage.input_tokens, usage.cache_creation_input_tokens,
                                    usage.cache_read_input_tokens))
        cost = seen * self.USD_IN + (usage.output_tokens or 0) * self.USD_OUT
        self.spent += cost
        return cost

    def guard(self) -> str | None:
        if self.spent > self.limit:
            raise BudgetExceeded(f"${self.spent:.4f} of ${self.limit:.2f}")
        if self.spent >= 0.8 * self.limit and not self.noted:
            self.noted = True
            return "Budget note: most of this run's budget is spent. Wrap up with what you have."
        return None


class RepeatGuard:
    """A stand-in loop guard that only notices the same call (tool and arguments) ``repeat``
    times in a row, and a tool-call cap. No cycles, no stalls, no progress signal."""

    def __init__(self, max_steps: int = 40, repeat: int = 3) -> None:
        self.max_steps, self.repeat = max_steps, repeat
        self.calls: list[str] = []
        self.trips, self.halted = 0, False

    def check(self, tool: str, args: JSON, state: Any, progress: float | None = None
              ) -> str | None:
        self.calls.append(tool + json.dumps(args, sort_keys=True))
        if len(self.calls) > self.max_steps:
            self.halted = True
            return f"Tool-call cap of {self.max_steps} reached."
        tail = self.calls[-self.repeat:]
        if len(tail) == self.repeat and len(set(tail)) == 1:
            self.trips += 1
            return (f"You have called {tool} with the same arguments {self.repeat} times. "
                    "Change approach or answer with what you have.")
        return None


class MemoryOffloader:
    """A stand-in offloader: a result longer than ``threshold`` characters is kept in memory
    under ``artifacts/<tool>-<hash>.txt`` and replaced by a pointer with a short preview."""

    def __init__(self, threshold: int = 4_000, preview_lines: int = 12) -> None:
        self.threshold, self.preview_lines = threshold, preview_lines
        self.files: dict[str, str] = {}

    def wrap(self, tool_name: str, payload: str) -> str:
        if len(payload) <= self.threshold:
            return payload
        path = f"artifacts/{tool_name}-{hashlib.sha256(payload.encode()).hexdigest()[:8]}.txt"
        self.files[path] = payload
        lines = payload.splitlines()
        preview = "\n".join(lines[:self.preview_lines])
        return (f"[stored {len(payload):,} chars, {len(lines)} lines at {path}; read it with "
                f"read_artifact(path, offset, limit)]\n{preview}")

    @staticmethod
    def lines_of(payload: str, offset: int, limit: int) -> str:
        return "\n".join(payload.splitlines()[offset:offset + limit])

    def read(self, path: str, offset: int = 0, limit: int = 200) -> str:
        if path not in self.files:
            raise KeyError(f"no artifact {path}")
        return self.lines_of(self.files[path], offset, limit)


def stand_in_pointer() -> str:
    """The pointer the stand-in offloader puts in context for the walk-through's search."""
    return MemoryOffloader().wrap("search_docs", SEARCH_DUMP)


def stand_in_guards(*, authorize: Callable[[str, JSON, str], bool],
                    goal: Callable[[str, Trace], tuple[bool, str]],
                    desk: Desk | None = None, breakpoints: str = "moving",
                    **overrides: Any) -> tuple[Guards, Desk]:
    """A bundle of the stand-in guards around the triage agent, with your ``authorize`` and
    ``goal``. Any field can be replaced by keyword (``cache=MySemanticCache(...)``).
    Returns ``(guards, desk)``."""
    offloader = overrides.get("offloader") or MemoryOffloader()
    desk = desk or Desk()
    desk.offloader = offloader
    fields: JSON = {"cache": ExactCache(), "cacheable": cacheable_unless_personal,
                    "retry": FixedRetry(), "ledger": TokenLog(), "Budget": RoughBudget,
                    "BudgetExceeded": BudgetExceeded, "LoopGuard": RepeatGuard,
                    "offloader": offloader, "authorize": authorize, "goal": goal,
                    "agent": triage_agent(desk, breakpoints=breakpoints)}
    fields.update(overrides)
    return Guards(**fields), desk
