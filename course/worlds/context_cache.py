"""The world of Lecture 4 (context as a cache): everything its cells and hidden tests set up.

It holds scenario data and plumbing only, never an answer:

* synthetic sessions for the ledger: entries, the pinned preamble, a fake summarizer
  whose output carries the usage of the model call it stands for, and the report types;
* the docs world for the loop of §4.1: two tools, a weak and a good schema, and scripted
  models for :class:`course.fakes.Scripted`;
* the billing world of §4.2/§4.5: a non-idempotent ``post_invoice``, a lossy link that
  reproduces the three worlds behind a timeout, and a transcript that mints request keys;
* the fan-out graph of §4.4;
* the interactive ledger panel, which takes the policy functions as arguments.

Entries are plain dicts ``{"id", "kind", "turn", "tokens"}``. ``kind`` is one of
``system``, ``task`` (the two pinned entries), ``step`` (a turn's tool call plus its
result), ``tool_output`` (an extra, possibly huge, tool result) or ``summary``.
"""

from __future__ import annotations

import html
import io
import json
import math
import os
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..fakes import FakeAPI, Scripted
from ..hub import served  # graded cells' fakes live in the grader (course.hub)
from ..wire import JSON, block_text, message, text, tool_results, tool_use

Entry = dict[str, Any]
Policy = Callable[..., list[Entry]]

# --------------------------------------------------------------------------------------
# §4.3 synthetic sessions
# --------------------------------------------------------------------------------------

# The session of Lecture 4 §4.3, stated as an assumption: pinned preamble, tokens appended
# per turn (the model's tool call plus the tool's result), and the number of turns.
NOTES_SESSION: dict[str, int] = {"preamble": 2_000, "per_turn": 300, "turns": 20}
NOTES_W = 3_000
NOTES_TRIGGER = 3_000
NOTES_TARGET = 500
# Exercise 1: a longer session, a wider window and a real context limit.
EXERCISE1_SESSION: dict[str, int] = {"preamble": 3_000, "per_turn": 400, "turns": 24}
EXERCISE1_W = 4_000
EXERCISE1_LIMIT = 16_384
# Exercise 3 and §4.2: one 20,000-token tool result at step 4, and a 2,000-token cap.
SPIKE_STEP = 4
SPIKE_TOKENS = 20_000
OUTPUT_CAP = 2_000


class ContextOverflow(Exception):
    """The assembled context does not fit the model's context limit."""


@dataclass(frozen=True)
class Budget:
    """What an ``assemble`` call may spend. ``context_limit`` is in tokens."""

    context_limit: float = math.inf


def preamble_entries(preamble: int) -> list[Entry]:
    """The two pinned entries, a system prompt and a task statement, ``preamble`` tokens in all."""
    task = preamble // 4
    return [
        {"id": "system", "kind": "system", "turn": 0, "tokens": preamble - task},
        {"id": "task", "kind": "task", "turn": 0, "tokens": task},
    ]


def step_entry(turn: int, size: int) -> Entry:
    """What turn ``turn`` appends to the transcript: its tool call and that tool's result."""
    return {"id": f"turn-{turn}", "kind": "step", "turn": turn, "tokens": size}


def tool_output(turn: int, size: int) -> Entry:
    """An extra tool result produced at ``turn`` (a spike), ``size`` tokens long."""
    return {"id": f"output-{turn}", "kind": "tool_output", "turn": turn, "tokens": size}


def summarize(history: Sequence[Entry], target: int) -> Entry:
    """A stand-in for the summarizing model call: ``history`` in, one ``target``-token entry out.

    The summary records the call's usage like an API reply does: ``input_tokens`` is
    what was sent to be compacted (the compaction traffic), ``output_tokens`` the summary.
    """
    if not history:
        raise ValueError("nothing to summarize: the history is empty")
    unsized = [str(e.get("id", f"#{n}")) for n, e in enumerate(history) if "tokens" not in e]
    if unsized:
        raise ValueError(f"summarize reads ledger entries, which carry a 'tokens' size; "
                         f"these do not: {', '.join(unsized)}")
    read = sum(int(e["tokens"]) for e in history)  # the sizes the entries declare
    covers = [str(e.get("id", f"#{n}")) for n, e in enumerate(history)]
    return {
        "id": f"summary[{covers[0]}..{covers[-1]}]",
        "kind": "summary",
        "turn": None,
        "tokens": target,
        "covers": covers,
        "usage": {"input_tokens": read, "output_tokens": target},
    }


class CountingSummarizer:
    """:func:`summarize`, plus a record of every call (so a test can count compactions)."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, history: Sequence[Entry], target: int) -> Entry:
        out = summarize(history, target)
        self.calls.append(out["usage"]["input_tokens"])
        return out


@dataclass(frozen=True)
class Eviction:
    """One entry leaving the context: the turn it left, what it was, when it arrived."""

    turn: int
    entry: str
    origin: int
    tokens: int


@dataclass
class LedgerReport:
    """What ``ledger`` returns. Every token figure is a count of prompt (input) tokens.

    submitted   -- tokens submitted on each turn that ran, in order
    cumulative  -- their sum: the prompt tokens of the agent's own model calls
    compaction  -- prompt tokens sent to summarizing calls (compaction traffic)
    held        -- the context submitted on the last turn that ran
    binds_at    -- the first turn on which something appended was missing from the context
    overflow_at -- the turn whose context did not fit the limit (the run stops there)
    evictions   -- every entry that left the context, in order: the silent line, logged
    """

    submitted: list[int] = field(default_factory=list)
    cumulative: int = 0
    compaction: int = 0
    held: int = 0
    binds_at: int | None = None
    overflow_at: int | None = None
    evictions: list[Eviction] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Everything this policy sent: the loop's prompts plus the compaction traffic."""
        return self.cumulative + self.compaction


def closed_form(preamble: int, per_turn: int, turns: int) -> int:
    """n·P + a·n(n−1)/2: keep-until-full's cumulative prompt tokens, from the formula."""
    return turns * preamble + per_turn * turns * (turns - 1) // 2


# --------------------------------------------------------------------------------------
# §4.1 and §4.2: the docs world, its schemas and its scripted models
# --------------------------------------------------------------------------------------

MODEL = "claude-opus-5"

DOCS: dict[str, str] = {
    "docs/caching.md": (
        "# Prompt caching\n"
        "A cached prefix is reused only if every byte before the breakpoint is identical.\n"
        "A timestamp in the system prompt invalidates the cache on every request.\n"
    ),
    "docs/retries.md": (
        "# Retries\n"
        "Retry only idempotent calls. A write needs a request key before it may be retried.\n"
    ),
    "docs/context.md": (
        "# Context policies\n"
        "Pin the system prompt and the task statement; log every eviction.\n"
    ),
}

TASK = "What invalidates the prompt cache? Answer from the project docs."
CACHE_FACT = "A timestamp in the system prompt invalidates the cache on every request."

WEAK_SEARCH_SCHEMA: JSON = {
    "name": "search",
    "description": "Search.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}

SEARCH_DOCS_SCHEMA: JSON = {
    "name": "search_docs",
    "description": (
        "Full-text search over this project's Markdown documentation (docs/*.md). "
        "Returns at most max_results matches, each with the file path, the line number "
        "and the matching line (at most 200 characters); an empty list means no match. "
        "Does not search source code. To see a whole document, call read_file "
        "with a path from a match."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to match, not a question."},
            "max_results": {"type": "integer", "default": 5, "minimum": 1, "maximum": 20,
                            "description": "How many matches to return."},
        },
        "required": ["query"],
    },
}

READ_FILE_SCHEMA: JSON = {
    "name": "read_file",
    "description": (
        "Return the full text of one documentation file. The path must be one returned "
        "by search_docs, e.g. 'docs/caching.md'. Fails on any other path."
    ),
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "A path such as docs/x.md."}},
        "required": ["path"],
    },
}

TOOLS: list[JSON] = [SEARCH_DOCS_SCHEMA, READ_FILE_SCHEMA]


def schema_checklist(schema: JSON) -> dict[str, bool]:
    """Which questions a stranger would ask does this tool definition answer?"""
    words = schema.get("description", "").lower()
    props = schema.get("input_schema", {}).get("properties", {})
    return {
        "says what it covers": len(words.split()) >= 8,
        "says what it does NOT cover": "does not" in words or "not " in words,
        "bounds its output": "at most" in words or any("maximum" in p for p in props.values()),
        "describes its result": "return" in words,
        "names the next tool": "call " in words,
        "every argument described": bool(props) and all("description" in p
                                                        for p in props.values()),
    }


def search_docs(query: str, max_results: int = 5) -> JSON:
    """Lines of the docs that contain every word of ``query`` (case-insensitive)."""
    wanted = query.lower().split()
    matches = []
    for path, body in sorted(DOCS.items()):
        for number, line in enumerate(body.splitlines(), 1):
            if all(w in line.lower() for w in wanted):
                matches.append({"path": path, "line": number, "excerpt": line[:200]})
    return {"matches": matches[: max(1, min(int(max_results), 20))]}


def read_file(path: str) -> JSON:
    """The text of one docs file. An unknown path raises, as a raw tool would."""
    if path not in DOCS:
        raise FileNotFoundError(f"no such file: {path!r}")
    return {"path": path, "text": DOCS[path]}


DISPATCH: dict[str, Callable[..., JSON]] = {"search_docs": search_docs, "read_file": read_file}


def docs_model(body: JSON) -> JSON:
    """A scripted model for the docs task: a wrong path, a search, a read, an answer.

    It reacts to what the loop sent back, so a loop that drops results, raises on a
    tool error or loses the transcript gets a different (and visibly wrong) run.
    """
    results = tool_results(body, newest_only=True)
    turns = sum(1 for m in body["messages"] if m.get("role") == "assistant")
    if turns == 0:
        return message([text("I'll open the caching page."),
                        tool_use("read_file", {"path": "docs/cache.md"})])
    seen = block_text(results[0].get("content", "")) if results else ""
    if turns == 1:
        if results and results[0].get("is_error"):
            return message([text("That path does not exist; searching instead."),
                            tool_use("search_docs", {"query": "cache"})])
        return message([text("I received no error for a file that does not exist.")])
    if turns == 2:
        try:
            path = json.loads(seen)["matches"][0]["path"]
        except (ValueError, KeyError, IndexError, TypeError):
            return message([text("The search returned nothing I can use.")])
        return message([tool_use("read_file", {"path": path})])
    if CACHE_FACT in seen:
        return message([text(f"From docs/caching.md: {CACHE_FACT}")])
    return message([text("I could not read the caching page.")])


@served
def docs_api() -> FakeAPI:
    """A fresh fake API driven by :func:`docs_model`."""
    return FakeAPI(Scripted(docs_model))


def restless_model(body: JSON) -> JSON:
    """A model that never stops asking for a search (for testing a loop's step cap)."""
    n = sum(1 for m in body["messages"] if m.get("role") == "assistant")
    return message([tool_use("search_docs", {"query": f"cache {n}"})])


@served
def restless_api() -> FakeAPI:
    return FakeAPI(Scripted(restless_model))


PARALLEL_WORDS = "The search found the page."


def parallel_model(body: JSON) -> JSON:
    """Two tool calls in one reply (a search, and a read with a wrong argument name, which
    raises TypeError), then an answer in two text blocks."""
    if not any(m.get("role") == "assistant" for m in body["messages"]):
        return message([text("Two lookups at once."),
                        tool_use("search_docs", {"query": "timestamp"}),
                        tool_use("read_file", {"file": "docs/caching.md"})])
    return message([text(PARALLEL_WORDS), text(CACHE_FACT)])


@served
def parallel_api() -> FakeAPI:
    """A fresh fake API driven by :func:`parallel_model`."""
    return FakeAPI(Scripted(parallel_model))


CUT_WORDS = "The answer was cut"


@served
def cut_off_api() -> FakeAPI:
    """A model whose first reply asks for no tool and stops with ``max_tokens``."""
    return FakeAPI(Scripted(lambda body: message([text(CUT_WORDS)], stop_reason="max_tokens")))


def result_blocks(body: JSON) -> list[JSON]:
    """The tool_result blocks in the last user message of a request body."""
    return tool_results(body, newest_only=True)


# --------------------------------------------------------------------------------------
# §4.2 / §4.5: the billing world
# --------------------------------------------------------------------------------------

OK = "ok"
ERROR_AS_DATA = "error_as_data"
CRASHED_MID_WRITE = "crashed_mid_write"
TIMEOUT = "timeout"
ISSUED = "issued"
RUNNING = "running"
TERMINAL_STATES: tuple[str, ...] = (OK, ERROR_AS_DATA, CRASHED_MID_WRITE, TIMEOUT)
STATES: tuple[str, ...] = (ISSUED, RUNNING, *TERMINAL_STATES)
TRANSITIONS: dict[str, tuple[str, ...]] = {ISSUED: (RUNNING,), RUNNING: TERMINAL_STATES}


class ToolTimeout(Exception):
    """The deadline fired and the tool said nothing."""


class ToolCrashed(Exception):
    """The tool process died part-way through its write."""


class InvoiceBook:
    """A billing system with a non-idempotent write: every call creates a new invoice."""

    def __init__(self) -> None:
        self.rows: list[JSON] = []
        self._pending: list[JSON] = []

    def post_invoice(self, customer_id: str, amount_cents: int) -> JSON:
        row = {"invoice_id": f"inv-{len(self.rows) + 1:04d}", "customer_id": customer_id,
               "amount_cents": int(amount_cents)}
        self.rows.append(row)
        return dict(row)

    def charged(self, customer_id: str) -> int:
        """Cents billed to a customer, summed over every invoice."""
        return sum(r["amount_cents"] for r in self.rows if r["customer_id"] == customer_id)

    def later(self, fn: Callable[[], Any]) -> None:
        self._pending.append({"fn": fn})

    def settle(self) -> None:
        """Let requests that were still in flight when the client gave up land now."""
        pending, self._pending = self._pending, []
        for job in pending:
            job["fn"]()


# How one attempt fares on the link. The last three all look like a timeout to the client.
DELIVER = "deliver"
REQUEST_LOST = "request_lost"      # never arrived: nothing happened
RESPONSE_LOST = "response_lost"    # arrived, committed, the answer was lost on the way back
LATE_COMMIT = "late_commit"        # arrived, still running, commits after the client gave up
TIMEOUT_WORLDS: tuple[str, ...] = (REQUEST_LOST, RESPONSE_LOST, LATE_COMMIT)


class Link:
    """The network between the agent and a server-side callable ``server(entry)``.

    ``fates`` lists what happens to each attempt in turn; attempts beyond the list
    are delivered. ``book`` is needed only for :data:`LATE_COMMIT`.
    """

    def __init__(self, server: Callable[[Entry], Any], fates: Iterable[str] = (),
                 book: InvoiceBook | None = None) -> None:
        self.server = server
        self.fates = list(fates)
        self.book = book
        self.attempts = 0

    def __call__(self, entry: Entry) -> Any:
        fate = self.fates[self.attempts] if self.attempts < len(self.fates) else DELIVER
        self.attempts += 1
        if fate == DELIVER:
            return self.server(entry)
        if fate == RESPONSE_LOST:
            self.server(entry)
        elif fate == LATE_COMMIT:
            if self.book is None:
                raise ValueError("a late commit needs the InvoiceBook to land in")
            self.book.later(partial(self.server, entry))
        elif fate != REQUEST_LOST:
            raise ValueError(f"unknown fate {fate!r}")
        raise ToolTimeout(f"{entry.get('name', 'tool')} gave no answer before the deadline")


def keyless(tool: Callable[..., Any]) -> Callable[[Entry], Any]:
    """Serve a transcript entry by calling ``tool(**entry['input'])``: no request key used."""
    def serve(entry: Entry) -> Any:
        return tool(**entry["input"])
    return serve


def issue_call(transcript: list[Entry], name: str, args: JSON, *, rng: random.Random) -> Entry:
    """Append a tool call to the transcript, minting its request key at issue time."""
    entry = {"kind": "tool_call", "name": name, "input": dict(args),
             "request_key": f"rk-{rng.getrandbits(48):012x}"}
    transcript.append(entry)
    return entry


def call_with_policy(link: Callable[[Entry], Any], entry: Entry, *,
                     retry_allowed: Callable[..., bool], idempotent: bool,
                     attempts: int = 3) -> JSON:
    """Send ``entry`` over ``link``; on a timeout, ask ``retry_allowed`` whether to go again.

    Returns ``{"state": ..., "result": ..., "attempts": n}``. A timeout that may not be
    retried is returned as data, so the model knows the outcome is unknown.
    """
    for n in range(1, attempts + 1):
        try:
            return {"state": OK, "result": link(entry), "attempts": n}
        except ToolTimeout:
            if not retry_allowed(TIMEOUT, idempotent=idempotent):
                note = (f"{entry['name']} timed out; it may or may not have committed. "
                        "Check before acting again.")
                return {"state": TIMEOUT, "result": {"error": note}, "attempts": n}
    return {"state": TIMEOUT, "result": {"error": "gave up after retries"}, "attempts": attempts}


# --------------------------------------------------------------------------------------
# §4.4: a fan-out with a join
# --------------------------------------------------------------------------------------

# Illustrative numbers (the lecture draws the graph without them): seconds of wall clock per
# node, and for each sub-agent the turns it runs. Edges point from a node to what needs it.
FANOUT_SECONDS: dict[str, float] = {
    "plan": 3.0, "read:api.md": 6.0, "read:auth.md": 9.5, "read:billing.md": 4.5,
    "read:errors.md": 7.0, "join": 4.0,
}
FANOUT_EDGES: dict[str, tuple[str, ...]] = {
    "plan": ("read:api.md", "read:auth.md", "read:billing.md", "read:errors.md"),
    "read:api.md": ("join",), "read:auth.md": ("join",), "read:billing.md": ("join",),
    "read:errors.md": ("join",), "join": (),
}
SUBAGENT_TURNS: dict[str, int] = {
    "read:api.md": 5, "read:auth.md": 8, "read:billing.md": 4, "read:errors.md": 6,
}
SUBAGENT_PREAMBLE = 1_500   # each sub-agent's own system prompt, tool schemas and sub-task
SUBAGENT_PER_TURN = 300
SUBAGENT_RETURN = 150       # the few lines each one hands back to the parent


# --------------------------------------------------------------------------------------
# §4.5: calls for the loop detector
# --------------------------------------------------------------------------------------

STUCK_CALLS: list[tuple[str, JSON]] = [
    ("read_file", {"path": "docs/cache.md"}),
    ("search_docs", {"query": "cache invalidation", "max_results": 5}),
    ("read_file", {"path": " docs/cache.md "}),
    ("search_docs", {"max_results": 5, "query": "Cache  Invalidation"}),
    ("read_file", {"path": "DOCS/cache.md"}),
]


# --------------------------------------------------------------------------------------
# Plotting and the interactive panel
# --------------------------------------------------------------------------------------

POLICY_NAMES: tuple[str, ...] = ("keep until full", "sliding window (pinned)",
                                 "summarize and compact")
_COLOURS = ("#c0392b", "#2471a3", "#1e8449")


#: The ledger plot's size in inches and dots per inch (so its pixel width is known).
FIGSIZE, DPI = (7.5, 3.6), 90


def draw_ledgers(series: dict[str, Sequence[int]], *, limit: float | None = None,
                 title: str = "Tokens submitted per turn", overflow: dict[str, int] | None = None,
                 ) -> Any:
    """A matplotlib Figure: one line per policy, the limit as a dashed line. Turns are whole
    numbers on the x axis; the y axis starts at 0 and, with a limit, ends just above it, so
    a redraw after a slider moves keeps its scale unless a line passes the limit."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    ax = fig.add_subplot()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for (name, values), colour in zip(series.items(), _COLOURS * 3, strict=False):
        ax.plot(range(1, len(values) + 1), values, marker=".", color=colour, label=name)
        end = (overflow or {}).get(name)
        if end is not None and limit is not None:
            ax.plot([end], [limit], marker="x", markersize=10, color=colour)
    if limit is not None and math.isfinite(limit):
        ax.axhline(limit, color="black", linestyle="--", linewidth=1,
                   label=f"context limit {int(limit):,}")
    highest = max((v for values in series.values() for v in values), default=0)
    ceiling = limit if limit is not None and math.isfinite(limit) else 0
    ax.set_ylim(0, max(highest, ceiling, 1) * 1.08)
    ax.set_xlabel("turn")
    ax.set_ylabel("prompt tokens")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.subplots_adjust(left=0.11, right=0.98, bottom=0.14, top=0.9)  # tight_layout costs a draw
    return fig


def figure_png(fig: Any) -> bytes:
    """Render a Figure to PNG bytes (no pyplot, no backend state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buf = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buf)
    return buf.getvalue()


def show_figure(fig: Any) -> None:
    """Display a Figure as a static PNG in the notebook."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig)))


TABLE_COLUMNS: tuple[str, ...] = ("policy", "cumulative", "compaction", "total", "held",
                                  "binds_at", "overflow_at", "evictions")


def table_html(rows: Sequence[JSON]) -> str:
    head = "".join(f"<th>{c}</th>" for c in TABLE_COLUMNS)
    body = ""
    for row in rows:
        cells = []
        for c in TABLE_COLUMNS:
            v = row.get(c)
            shown = "—" if v is None else (f"{v:,}" if isinstance(v, int) else str(v))
            cells.append(f"<td>{html.escape(shown)}</td>")
        body += "<tr>" + "".join(cells) + "</tr>"
    return f"<table><tr>{head}</tr>{body}</table>"


def table_text(rows: Sequence[JSON]) -> str:
    """The panel's table as fixed-width text."""
    def fmt(v: Any) -> str:
        return "-" if v is None else (f"{v:,}" if isinstance(v, int) else str(v))
    widths = [max(len(c), *(len(fmt(r.get(c))) for r in rows)) for c in TABLE_COLUMNS]
    lines = ["  ".join(c.ljust(w) for c, w in zip(TABLE_COLUMNS, widths, strict=True))]
    for r in rows:
        lines.append("  ".join(fmt(r.get(c)).ljust(w)
                               for c, w in zip(TABLE_COLUMNS, widths, strict=True)))
    return "\n".join(lines)


# name: (description, min, max, step, default)
CONTROLS: dict[str, tuple[str, int, int, int, int]] = {
    "preamble": ("preamble", 0, 8_000, 100, NOTES_SESSION["preamble"]),
    "per_turn": ("tokens/turn", 50, 1_000, 50, NOTES_SESSION["per_turn"]),
    "turns": ("turns", 1, 60, 1, NOTES_SESSION["turns"]),
    "W": ("window W", 500, 10_000, 100, NOTES_W),
    "trigger": ("trigger", 500, 10_000, 100, NOTES_TRIGGER),
    "target": ("summary", 100, 2_000, 100, NOTES_TARGET),
    "spike": ("spike size", 0, 30_000, 1_000, 0),
    "spike_step": ("spike step", 1, 60, 1, SPIKE_STEP),
    "limit": ("context limit", 2_048, 65_536, 1_024, EXERCISE1_LIMIT),
}


def widgets_frontend() -> bool:
    """Is a live widget frontend attached? (JupyterLab/Notebook set JPY_SESSION_NAME.)

    Autograding kernels have none, so the panel falls back to one static plot there.
    ``COURSE_WIDGETS=1`` or ``=0`` overrides the guess.
    """
    forced = os.environ.get("COURSE_WIDGETS")
    if forced in ("0", "1"):
        return forced == "1"
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return bool(shell is not None and getattr(shell, "kernel", None) is not None
                and os.environ.get("JPY_SESSION_NAME"))


class Panel:
    """Sliders over the session and the policies; each change re-runs three ledgers.

    ``controls`` maps a name from :data:`CONTROLS` to its ipywidgets ``IntSlider``.
    ``rows`` is the table (one dict per policy, keys :data:`TABLE_COLUMNS`); ``series``
    the tokens submitted per turn; ``png`` the latest plot.
    """

    def __init__(self, *, ledger: Callable[..., Any], keep: Policy, window: Policy,
                 compact: Policy, summarize: Callable[..., Entry],
                 interactive: bool | None = None) -> None:
        import ipywidgets as w

        self._ledger, self._keep, self._window, self._compact = ledger, keep, window, compact
        self._summarize = summarize
        self.interactive = widgets_frontend() if interactive is None else interactive
        self.controls: dict[str, Any] = {
            name: w.IntSlider(value=default, min=lo, max=hi, step=step, description=label,
                              continuous_update=False, style={"description_width": "90px"},
                              layout=w.Layout(width="330px"))
            for name, (label, lo, hi, step, default) in CONTROLS.items()
        }
        self.rows: list[JSON] = []
        self.series: dict[str, list[int]] = {}
        self.png: bytes = b""
        self.redraws = 0
        # at the plot's own pixel width: a flex box would stretch it across the page
        self._image = w.Image(format="png", layout=w.Layout(
            width=f"{int(FIGSIZE[0] * DPI)}px", height="auto", flex="0 0 auto"))
        self._table = w.HTML()
        for slider in self.controls.values():
            slider.observe(self._changed, names="value")
        left = w.VBox(list(self.controls.values()))
        self.widget = w.HBox([left, w.VBox([self._image, self._table])])
        self.refresh()

    def values(self) -> dict[str, int]:
        return {name: int(s.value) for name, s in self.controls.items()}

    def set(self, **values: int) -> list[JSON]:
        """Move sliders (each move redraws, as a drag would) and return the table."""
        for name, value in values.items():
            self.controls[name].value = value
        return self.rows

    def _changed(self, _change: Any) -> None:
        self.refresh()

    def refresh(self) -> list[JSON]:
        v = self.values()
        spikes = {v["spike_step"]: v["spike"]} if v["spike"] > 0 else None
        session = {"preamble": v["preamble"], "per_turn": v["per_turn"], "turns": v["turns"],
                   "spikes": spikes, "limit": v["limit"]}
        policies = {
            POLICY_NAMES[0]: self._keep,
            POLICY_NAMES[1]: partial(self._window, W=v["W"]),
            POLICY_NAMES[2]: partial(self._compact, trigger=v["trigger"], target=v["target"],
                                     summarize=self._summarize),
        }
        rows, series, overflow = [], {}, {}
        for name, policy in policies.items():
            rep = self._ledger(policy, **session)
            series[name] = list(rep.submitted)
            if rep.overflow_at is not None:
                overflow[name] = rep.overflow_at
            rows.append({"policy": name, "cumulative": rep.cumulative,
                         "compaction": rep.compaction, "total": rep.total, "held": rep.held,
                         "binds_at": rep.binds_at, "overflow_at": rep.overflow_at,
                         "evictions": len(rep.evictions)})
        self.rows, self.series = rows, series
        fig = draw_ledgers(series, limit=v["limit"], overflow=overflow,
                           title=f"Tokens submitted per turn ({v['turns']} turns)")
        self.png = figure_png(fig)
        self._image.value = self.png
        self._table.value = table_html(rows)
        self.redraws += 1
        return rows

    def show(self) -> None:
        """The live panel where a widget frontend exists, else one static plot and table."""
        from IPython.display import HTML, Image, display

        if self.interactive:
            display(self.widget)
        else:
            display(Image(data=self.png))
            display(HTML(table_html(self.rows)))


def build_panel(*, ledger: Callable[..., Any], keep: Policy, window: Policy, compact: Policy,
                summarize: Callable[..., Entry] = summarize,
                interactive: bool | None = None) -> Panel:
    """The interactive ledger panel over the given ``ledger`` and policy functions.

    ``window`` must accept ``W=``; ``compact`` must accept ``trigger=``, ``target=`` and
    ``summarize=``. Nothing here implements a policy: pass the notebook's own functions.
    """
    return Panel(ledger=ledger, keep=keep, window=window, compact=compact,
                 summarize=summarize, interactive=interactive)
