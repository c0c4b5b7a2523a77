"""The world of lab 4 (loop detector): stuck runs to detect, and a harness to wire a guard into.

Its one job is to supply what the notebook and its tests drive a ``LoopGuard`` with:

* the three loop shapes of seed 001 exercise 4 as step lists (identical repeat,
  A/B/A cycle, flat progress) and a healthy run that must not be flagged;
* a tiny documentation index whose state and progress the guard can watch;
* the stuck model, in two temperaments (deaf, and listening: it changes course once it
  reads an error result), both as :class:`course.fakes.Scripted` models for a loop the
  notebook writes in the open and as a :mod:`course.worlds.harness` scenario;
* :func:`run_guarded`, which drives that scenario past a guard the way the seed wires it
  (the first trip goes back as an error output, a second trip or ``halted`` ends the run
  with a partial report, never an exception). It is a harness, not an agent loop.

The detector itself is the student's; nothing here fingerprints or counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from anthropic.types import Usage

from .. import prices
from ..fakes import follow_request, with_usage
from ..wire import JSON, block_text, message, text, tool_results, tool_use
from . import harness

MODEL = "claude-opus-5"
#: MODEL's list prices, dollars per million tokens, from the course's one price table.
USD_PER_MTOK_IN = prices.PER_MTOK[MODEL]["input"]
USD_PER_MTOK_OUT = prices.PER_MTOK[MODEL]["output"]

GOAL = "Customers get HTTP 429 from /v1/orders. What request rate does our documentation allow?"
STUCK_QUERY = "rate limit"
#: The word the index actually uses; a model that changes approach finds it.
PIVOT_QUERY = "throttling"

TOOLS: list[JSON] = [
    {
        "name": "search_docs",
        "description": "Full-text search over the internal API documentation. Returns matching "
                       "page titles with one line of each.",
        "input_schema": {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "search words"}},
            "required": ["q"],
        },
    }
]

DOCS: dict[str, str] = {
    "api/throttling": "Throttling: /v1/orders accepts 50 requests per second per key; "
                      "bursts above that get HTTP 429 with a retry-after header.",
    "api/keys": "API keys: rotate keys from the dashboard; old keys stay valid for 24 hours.",
    "api/orders": "Orders: list, create and cancel orders; pagination uses cursors.",
}


# -- step lists: the three loop shapes and a healthy run ---------------------------------


@dataclass(frozen=True)
class Step:
    """One tool call as a guard sees it: the call, the world after it, and the progress metric.

    ``progress`` is higher-is-better (tests passing, not tests failing) or ``None``.
    ``result`` is only there so a trace reads like the seed's.
    """

    tool: str
    args: JSON
    state: JSON
    progress: float | None = None
    result: str = ""


def identical_repeat(n: int = 8) -> list[Step]:
    """Shape A: the same search with the same words, while the agent's own step counter
    moves on (so only the call itself repeats)."""
    return [Step("search_docs", {"q": STUCK_QUERY}, {"step": 14 + i}, None, "0 results")
            for i in range(n)]


def ab_cycle(n: int = 8) -> list[Step]:
    """Shape B: read, write, read, write the same file, and the file never changes.
    No two consecutive calls are equal; the world is what repeats."""
    frozen = {"config.yaml": {"lines": 40, "sha": "9f2c"}}
    out = []
    for i in range(n):
        tool, result = ("read_file", "40 lines") if i % 2 == 0 else ("write_file", "ok")
        out.append(Step(tool, {"path": "config.yaml"}, dict(frozen), None, result))
    return out


def flat_progress(n: int = 8, passing: int = 17) -> list[Step]:
    """Shape C: a different edit every time and the tests rerun after each one, the
    code changes, but the number of passing tests (of 20) never moves."""
    out = []
    for i in range(n):
        if i % 2 == 0:
            step = Step("run_tests", {"after_edit": i // 2}, {"src_rev": i},
                        float(passing), f"{20 - passing} failed")
        else:
            step = Step("edit_file", {"path": "api/limits.py", "line": 30 + i},
                        {"src_rev": i}, float(passing), "ok")
        out.append(step)
    return out


SHAPES: dict[str, Callable[..., list[Step]]] = {
    "A identical repeat": identical_repeat,
    "B A/B/A cycle": ab_cycle,
    "C flat progress": flat_progress,
}


def healthy_run(n: int = 12) -> list[Step]:
    """A run that is working: different searches, a growing set of pages read, and
    progress that rises. A guard must stay silent on every step of it."""
    topics = ["throttling", "keys", "orders", "pagination", "webhooks", "errors",
              "retries", "idempotency", "auth", "limits", "regions", "billing",
              "sandbox", "versioning", "sdk", "changelog"]
    return [Step("search_docs", {"q": topics[i % len(topics)], "page": i // len(topics)},
                 {"pages_read": i + 1}, float(i), f"{i + 1} results")
            for i in range(n)]


# -- the docs world and two scripted models ---------------------------------------------


class DocsWorld:
    """A three-page documentation index with the three wiring points a guard needs.

    ``dispatch`` runs a tool, ``snapshot`` is the world as the agent has changed it (the
    pages it has found so far) and ``progress`` is how many distinct pages it has found.
    """

    def __init__(self, docs: dict[str, str] | None = None) -> None:
        self.docs = dict(DOCS if docs is None else docs)
        self.found: set[str] = set()
        self.calls = 0

    def dispatch(self, name: str, args: JSON) -> str:
        self.calls += 1
        if name != "search_docs":
            return f"unknown tool {name!r}"
        words = str(args.get("q", "")).lower().split()
        hits = [path for path, body in self.docs.items()
                if words and all(w in body.lower() for w in words)]
        self.found.update(hits)
        if not hits:
            return "0 results"
        return "\n".join(f"{path}: {self.docs[path]}" for path in sorted(hits))

    def snapshot(self) -> JSON:
        return {"found": sorted(self.found)}

    def progress(self) -> float:
        return float(len(self.found))


def _outputs(body: JSON) -> list[tuple[str, bool]]:
    """(text, is_error) of every tool result a request carries, oldest first."""
    return [(block_text(b.get("content")), bool(b.get("is_error"))) for b in tool_results(body)]


def next_action(outputs: list[tuple[str, bool]], *, listens: bool) -> tuple[str, str]:
    """The stuck model's decision, given every (output, is_error) it has read so far.

    Returns ``("search", words)`` or ``("answer", text)``. A deaf model searches for
    ``STUCK_QUERY`` forever. A listening model changes approach after an error result (a
    nudge): it searches for the index's own word, then answers from the page it found.
    """
    if listens and outputs and "api/throttling" in outputs[-1][0]:
        page = outputs[-1][0].split(":")[0]
        return "answer", (f"Per the documentation ({page}): 50 requests per second per key; "
                          "above that the API answers 429.")
    if listens and any(failed for _, failed in outputs):
        return "search", PIVOT_QUERY
    return "search", STUCK_QUERY


def _as_message(action: tuple[str, str]) -> JSON:
    kind, value = action
    return message([text(value)] if kind == "answer" else [tool_use("search_docs", {"q": value})])


def deaf_model(body: JSON) -> JSON:
    """A model caught in its own few-shot pattern, for :class:`course.fakes.Scripted`: it asks
    for the same search every turn, whatever comes back, and never answers."""
    return _as_message(next_action(_outputs(body), listens=False))


def listening_model(body: JSON) -> JSON:
    """The same stuck model, except that an error result (a nudge) makes it change approach."""
    return _as_message(next_action(_outputs(body), listens=True))


# -- the stuck run as a harness scenario -------------------------------------------------


class Guard(Protocol):
    """What :func:`run_guarded` needs from a loop guard (the lab's fixed API)."""

    halted: bool
    trips: int

    def check(self, tool: str, args: JSON, state: JSON,
              progress: float | None = None) -> str | None: ...


def usd(input_tokens: int, output_tokens: int) -> float:
    """Dollars for uncached tokens at the claude-opus-5 prices above."""
    return (input_tokens * USD_PER_MTOK_IN + output_tokens * USD_PER_MTOK_OUT) / 1_000_000


def _billed_output(reply: JSON) -> int:
    """Output tokens the fake API bills for ``reply`` to a claude-opus-5 request of the
    notebook's loop (``max_tokens=512``): the reply's blocks plus the thinking the model
    does by default, counted by the fake's own billing (:func:`course.fakes.with_usage`)."""
    body = {"model": MODEL, "max_tokens": 512, "tools": TOOLS,
            "messages": [{"role": "user", "content": GOAL}]}
    return with_usage(follow_request(reply, body), body)["usage"]["output_tokens"]


class DocsScenario:
    """The stuck model in the docs world, as a :class:`course.worlds.harness.Scenario`.

    Each move is billed the way the fake API bills the same conversation: the first request
    (goal and tool definitions), plus, for every call told so far, the size of the call and
    of its output as the wire carries them.
    """


    def __init__(self, world: DocsWorld, *, listens: bool) -> None:
        self.world, self.listens = world, listens

    def move(self, told: list[harness.Told]) -> harness.Move:
        kind, value = next_action([(t.output, t.is_error) for t in told], listens=self.listens)
        calls = (harness.Call("search_docs", {"q": value}),) if kind == "search" else ()
        prompt = harness.prompt_tokens(
            {"tools": TOOLS, "messages": [{"role": "user", "content": GOAL}]}, told)
        written = _billed_output(_as_message((kind, value)))
        return harness.Move(calls, value if kind == "answer" else "",
                            Usage(input_tokens=prompt, output_tokens=written), MODEL)

    def run_tool(self, call: harness.Call) -> str:
        return self.world.dispatch(call.tool, call.args)


@dataclass
class RunReport:
    """How a guarded run ended and what it cost.

    ``outcome`` is ``"answered"`` (the model finished), ``"halted"`` (the guard ended it:
    the reason is in ``text``) or ``"out_of_turns"`` (the harness's own cap). ``told`` is
    what the model was told after each tool call (a nudge arrives with ``is_error``).
    """

    outcome: str
    text: str
    tool_calls: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    nudges: list[str] = field(default_factory=list)
    per_request_input: list[int] = field(default_factory=list)
    told: list[harness.Told] = field(default_factory=list)

    @property
    def usd(self) -> float:
        return usd(self.input_tokens, self.output_tokens)


def run_guarded(guard: Guard, world: DocsWorld | None = None, *, listens: bool,
                max_turns: int = 40) -> RunReport:
    """The stuck model's run with ``guard`` checking every tool call, wired as the seed wires it.

    The first trip's message replaces that call's output (as an error), so the model reads it
    and the run goes on. A trip while ``guard.trips > 1``, or ``guard.halted``, ends the run
    with a partial report. No path raises for a stuck run.
    """
    world = world if world is not None else DocsWorld()

    def on_tool_call(call: harness.Call, output: str) -> harness.Verdict | None:
        verdict = guard.check(call.tool, call.args, world.snapshot(), progress=world.progress())
        if verdict is None:
            return None
        return harness.Verdict("halt" if guard.halted or guard.trips > 1 else "nudge", verdict)

    run = harness.drive(DocsScenario(world, listens=listens), on_tool_call=on_tool_call,
                        max_turns=max_turns)
    per_call = [m.usage.input_tokens for m in run.moves]
    return RunReport(run.outcome, run.text, run.tool_calls, run.model_calls, sum(per_call),
                     sum(m.usage.output_tokens for m in run.moves), run.nudges, per_call,
                     run.told)
