"""The world of lab 4 (loop detector): stuck runs to detect, and a harness to wire a guard into.

Its one job is to supply what the notebook and its tests drive a ``LoopGuard`` with:

* the three loop shapes of seed 001 exercise 4 as step lists (identical repeat,
  A/B/A cycle, flat progress) and a healthy run that must not be flagged;
* a tiny documentation index whose state and progress the guard can watch;
* two scripted models for :class:`course.fakes.Scripted`: one that repeats the same
  search forever and one that changes course once it reads an error result;
* :func:`run_guarded`, an agent loop with a guard wired in the way the seed wires it
  (the first trip goes back as a tool result, a second trip or ``halted`` ends the run
  with a partial report, never an exception).

The detector itself is the student's; nothing here fingerprints or counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from course.wire import message, text, tool_use

JSON = dict[str, Any]

MODEL = "claude-opus-5"
#: claude-opus-5 list prices from seed 001, dollars per million tokens.
USD_PER_MTOK_IN = 5.0
USD_PER_MTOK_OUT = 25.0

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


def _tool_results(body: JSON) -> list[JSON]:
    """Every tool_result block the request carries, oldest first."""
    out = []
    for m in body.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            out += [b for b in m["content"] if isinstance(b, dict)
                    and b.get("type") == "tool_result"]
    return out


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def deaf_model(body: JSON) -> JSON:
    """A model caught in its own few-shot pattern: it asks for the same search every turn,
    whatever comes back, and never answers."""
    return message([tool_use("search_docs", {"q": STUCK_QUERY})])


def listening_model(body: JSON) -> JSON:
    """The same stuck model, except that an error result (a nudge) makes it change approach:
    it searches for the index's own word, then answers from the page it found."""
    results = _tool_results(body)
    if results and "api/throttling" in _as_text(results[-1].get("content")):
        page = _as_text(results[-1].get("content"))
        return message([text(f"Per the documentation ({page.split(':')[0]}): "
                             "50 requests per second per key; above that the API answers 429.")])
    if any(r.get("is_error") for r in results):
        return message([tool_use("search_docs", {"q": PIVOT_QUERY})])
    return message([tool_use("search_docs", {"q": STUCK_QUERY})])


# -- a harness with the guard wired in ---------------------------------------------------


class Guard(Protocol):
    """What :func:`run_guarded` needs from a loop guard (the lab's fixed API)."""

    halted: bool
    trips: int

    def check(self, tool: str, args: JSON, state: JSON,
              progress: float | None = None) -> str | None: ...


def usd(input_tokens: int, output_tokens: int) -> float:
    """Dollars for uncached tokens at the claude-opus-5 prices above."""
    return (input_tokens * USD_PER_MTOK_IN + output_tokens * USD_PER_MTOK_OUT) / 1_000_000


@dataclass
class RunReport:
    """How a run ended and what it cost.

    ``outcome`` is ``"answered"`` (the model finished), ``"halted"`` (the guard ended it:
    the reason is in ``text``) or ``"out_of_turns"`` (the harness's own cap).
    """

    outcome: str
    text: str
    tool_calls: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    nudges: list[str] = field(default_factory=list)
    per_request_input: list[int] = field(default_factory=list)

    @property
    def usd(self) -> float:
        return usd(self.input_tokens, self.output_tokens)


def run_guarded(client: Any, guard: Guard, world: DocsWorld, *, goal: str = GOAL,
                max_turns: int = 40) -> RunReport:
    """Run ``goal`` against ``client`` with ``guard`` checking every tool call.

    The first trip's message replaces that call's result (flagged ``is_error``), so the
    model reads it and the run goes on. A trip while ``guard.trips > 1``, or ``guard.halted``,
    ends the run with a partial report. No path raises for a stuck run.
    """
    convo: list[JSON] = [{"role": "user", "content": goal}]
    report = RunReport("out_of_turns", f"harness cap of {max_turns} model calls reached")
    for _ in range(max_turns):
        reply = client.messages.create(model=MODEL, max_tokens=512, tools=TOOLS,
                                       messages=convo)
        report.requests += 1
        report.input_tokens += reply.usage.input_tokens
        report.output_tokens += reply.usage.output_tokens
        report.per_request_input.append(reply.usage.input_tokens)
        calls = [b for b in reply.content if b.type == "tool_use"]
        if not calls:
            report.outcome = "answered"
            report.text = " ".join(b.text for b in reply.content if b.type == "text")
            return report
        convo.append({"role": "assistant", "content": reply.content})
        answers = []
        for call in calls:
            report.tool_calls += 1
            result, failed = world.dispatch(call.name, call.input), False
            verdict = guard.check(call.name, call.input, world.snapshot(),
                                  progress=world.progress())
            if verdict is not None:
                if guard.halted or guard.trips > 1:
                    report.outcome, report.text = "halted", verdict
                    return report
                report.nudges.append(verdict)
                result, failed = verdict, True
            answers.append(dict(type="tool_result", tool_use_id=call.id, content=result,
                                is_error=failed))
        convo.append({"role": "user", "content": answers})
    return report
