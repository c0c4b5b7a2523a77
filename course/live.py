"""A request inspector for live coding: what the loop sent, one row per request.

    api = weather.three_cities()
    inspector = Inspector(api)      # attach before the first request
    inspector.show()                # the panel (or a text table without a widget frontend)
    ... then run the loop on api.client() ...

Each row shows the conversation's shape (roles and block types in order), every
``tool_use`` id in the history and whether the next user turn answered it, the input
tokens (:mod:`course.tokens`) and the reply. The panel also plots tokens per request,
the curve that grows with every resend of the history.

Three ways of building the message list are flagged the moment they are sent:

* ``split_results``: one turn's tool results spread over several user messages. The API
  merges them and accepts the request, so nothing else shows it.
* ``missing_result``: a ``tool_use`` id with no ``tool_result`` in the next user turn.
* ``dropped_tool_use``: a ``tool_result`` whose ``tool_use`` is not in the previous
  assistant turn, i.e. the history was resent without the block that asked.

This module only reads requests; it never builds one.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from . import tokens
from .fakes import JSON, FakeAPI
from .validation import blocks

PATTERNS: dict[str, str] = {
    "split_results": "tool results split across user messages",
    "missing_result": "tool_use id left without a tool_result",
    "dropped_tool_use": "history resent without the tool_use",
}


@dataclass(frozen=True)
class Finding:
    """One failure pattern seen in one request: its kind (a key of :data:`PATTERNS`)
    and a sentence that names the mechanism first."""

    kind: str
    message: str


@dataclass(frozen=True)
class Row:
    """What one request carried.

    ``turns`` lists ``(role, block types)`` per message as sent (not merged);
    ``tool_uses`` maps each ``tool_use`` id in the history to whether the next user turn
    answered it; ``reply`` summarises the fake's response (status, stop reason, blocks).
    """

    number: int
    turns: tuple[tuple[str, tuple[str, ...]], ...]
    tool_uses: dict[str, bool]
    input_tokens: int
    reply: str
    findings: tuple[Finding, ...] = field(default=())

    @property
    def shape(self) -> str:
        """The turns as one line, e.g. ``user[text] > assistant[text,tool_use] > user[...]``."""
        return " > ".join(f"{role}[{_squeeze(kinds)}]" for role, kinds in self.turns)

    @property
    def ids(self) -> str:
        """Tool ids with a tick when answered and a cross when not."""
        return " ".join(f"{i}{'✓' if ok else '✗'}" for i, ok in self.tool_uses.items()) or "-"


def _squeeze(kinds: Sequence[str]) -> str:
    """``text,tool_result,tool_result,tool_result`` -> ``text,tool_result×3``."""
    out: list[str] = []
    for kind in kinds:
        if out and out[-1].split("×")[0] == kind:
            base, _, n = out[-1].partition("×")
            out[-1] = f"{base}×{int(n or 1) + 1}"
        else:
            out.append(kind)
    return ",".join(out)


def _ids(content: list[JSON], kind: str, key: str) -> list[str]:
    return [str(b.get(key)) for b in content if isinstance(b, dict) and b.get("type") == kind]


def _content(message: JSON) -> list[JSON]:
    content = message.get("content", [])
    return blocks(content) if isinstance(content, (str, list)) else []


def examine(body: JSON) -> tuple[dict[str, bool], tuple[Finding, ...]]:
    """The tool ids of one request body with their answered flags, and its findings.

    Works on the messages as sent: consecutive user messages are the one turn the API
    would merge, so a split is visible here although the API accepts it.
    """
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    status: dict[str, bool] = {}
    findings: list[Finding] = []
    last_asked: list[str] | None = None  # tool_use ids of the latest assistant message
    plain_text_assistant = False
    i = 0
    while i < len(messages):
        role = messages[i].get("role")
        if role == "assistant":
            last_asked = _ids(_content(messages[i]), "tool_use", "id")
            plain_text_assistant = isinstance(messages[i].get("content"), str)
            i += 1
            continue
        # one user turn: this message and every user message straight after it
        j = i
        while j < len(messages) and messages[j].get("role") == "user":
            j += 1
        turn = messages[i:j]
        carriers = [m for m in turn if _ids(_content(m), "tool_result", "tool_use_id")]
        answered = [r for m in turn for r in _ids(_content(m), "tool_result", "tool_use_id")]
        asked = last_asked or []
        if len(carriers) > 1:
            findings.append(Finding("split_results", (
                f"tool results split across {len(carriers)} user messages (messages "
                f"{i}-{j - 1}); answer every tool_use id of a turn in ONE user message")))
        orphans = [r for r in answered if r not in asked]
        if orphans:
            how = ("the assistant turn was resent as plain text" if plain_text_assistant
                   else "the previous assistant turn holds no tool_use with that id")
            findings.append(Finding("dropped_tool_use", (
                f"history resent without the tool_use for {', '.join(orphans)}: {how}; "
                "resend the assistant turn with ALL of its blocks")))
        for tool_id in asked:
            status[tool_id] = tool_id in answered
        last_asked = None
        i = j
    if last_asked:  # the history ends on an assistant turn that asked for tools
        for tool_id in last_asked:
            status[tool_id] = False
    missing = [t for t, ok in status.items() if not ok]
    if missing:
        findings.append(Finding("missing_result", (
            f"tool_use id {', '.join(missing)} has no tool_result in the next user turn; "
            "every id needs one, an error as is_error=True")))
    return status, tuple(findings)


def describe_reply(response: httpx2.Response | None) -> str:
    """The fake's answer in a few words: ``200 tool_use [text,tool_use]``, ``400 ...``."""
    if response is None:
        return "no response (connection dropped or replies used up)"
    status = response.status_code
    raw = response.content.decode("utf-8", "replace")
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        msg: JSON = {"content": []}
        for line in raw.splitlines():
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            if event.get("type") == "message_start":
                msg = dict(event["message"], content=[])
            elif event.get("type") == "content_block_start":
                msg["content"].append(event["content_block"])
            elif event.get("type") == "message_delta":
                msg["stop_reason"] = event.get("delta", {}).get("stop_reason")
    else:
        try:
            msg = json.loads(raw)
        except json.JSONDecodeError:
            return f"{status}"
    if not isinstance(msg, dict):
        return f"{status}"
    if msg.get("type") == "error":
        return f"{status} {msg.get('error', {}).get('type', 'error')}"
    kinds = [b.get("type", "?") for b in msg.get("content") or []]
    return f"{status} {msg.get('stop_reason')} [{_squeeze(kinds)}]"


#: The growth chart's size in inches and dots per inch (so its pixel width is known).
GROWTH_FIGSIZE, GROWTH_DPI = (5.2, 2.4), 90


def growth_png(token_counts: Sequence[int], flagged: Sequence[int] = ()) -> bytes:
    """:func:`growth_figure` as PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buf = io.BytesIO()
    FigureCanvasAgg(growth_figure(token_counts, flagged)).print_png(buf)
    return buf.getvalue()


def growth_figure(token_counts: Sequence[int], flagged: Sequence[int] = ()) -> Any:
    """Input tokens per request as a line chart (a matplotlib Figure); flagged request
    numbers in red; whole request numbers on the x axis, the y axis from 0."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=GROWTH_FIGSIZE, dpi=GROWTH_DPI)
    ax = fig.add_subplot()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max([*token_counts, 1]) * 1.1)
    xs = list(range(1, len(token_counts) + 1))
    ax.plot(xs, token_counts, marker="o", color="#1f77b4", label="input tokens")
    bad = [(x, y) for x, y in zip(xs, token_counts, strict=True) if x in set(flagged)]
    if bad:
        ax.scatter(*zip(*bad, strict=True), color="#d62728", zorder=3, s=60,
                   label="failure pattern")
    ax.set_xlabel("request")
    ax.set_ylabel("input tokens")
    ax.set_title("Tokens per request: the whole history is resent each time", fontsize=9)
    if xs:
        ax.set_xticks(xs if len(xs) <= 20 else xs[:: max(1, len(xs) // 10)])
        ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    fig.subplots_adjust(left=0.14, right=0.98, bottom=0.2, top=0.88)
    return fig


COLUMNS = ("#", "messages (role[blocks])", "tool_use ids", "tokens", "reply")


def _cells(row: Row) -> tuple[str, ...]:
    return (str(row.number), row.shape, row.ids, f"{row.input_tokens:,}", row.reply)


def table_text(rows: Sequence[Row]) -> str:
    """All rows as a fixed-width text table, each finding on its own line below its row."""
    cells = [_cells(r) for r in rows]
    widths = [max(len(c), *(len(x[k]) for x in cells)) if cells else len(c)
              for k, c in enumerate(COLUMNS)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths, strict=True)).rstrip()]
    for row, cell in zip(rows, cells, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip())
        lines += [f"   !! {f.kind}: {f.message}" for f in row.findings]
    return "\n".join(lines)


def table_html(rows: Sequence[Row]) -> str:
    """All rows as an HTML table; a row with a finding is red, its findings beneath it."""
    head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in COLUMNS)
    body = ""
    for row in rows:
        style = " style='background:#fde2e2'" if row.findings else ""
        tds = "".join(f"<td style='text-align:left'><code>{html.escape(c)}</code></td>"
                      for c in _cells(row))
        body += f"<tr class='live-row'{style}>{tds}</tr>"
        for f in row.findings:
            body += (f"<tr class='live-finding'{style}><td></td><td colspan='4'>"
                     f"<b>&#9888; {html.escape(f.kind)}</b>: {html.escape(f.message)}"
                     "</td></tr>")
    return f"<table class='course-live'><tr>{head}</tr>{body}</table>"


class Inspector:
    """Watches a :class:`~course.fakes.FakeAPI` and shows every request it receives.

    ``rows`` holds one :class:`Row` per request, ``findings`` every ``(request number,
    Finding)`` so far. With a widget frontend (``interactive``, guessed as the ledger
    panel does) :meth:`show` displays a panel that redraws after each request; without
    one, each request prints a short entry as it happens, and :meth:`show` prints the
    table of the requests so far.
    """

    def __init__(self, api: FakeAPI, *, interactive: bool | None = None) -> None:
        from .worlds.context_cache import widgets_frontend

        self.api = api
        self.interactive = widgets_frontend() if interactive is None else interactive
        self.rows: list[Row] = []
        self._png: tuple[tuple[int, ...], bytes] | None = None  # (counts drawn, image)
        self._widget: Any = None
        self.detach = api.on_request(self._observe)

    @property
    def findings(self) -> list[tuple[int, Finding]]:
        return [(r.number, f) for r in self.rows for f in r.findings]

    @property
    def token_counts(self) -> list[int]:
        return [r.input_tokens for r in self.rows]

    @property
    def png(self) -> bytes:
        """The growth chart of the requests so far, drawn when first asked for after a new
        request (without a widget frontend nothing asks, and no time goes on drawing)."""
        counts = tuple(self.token_counts)
        if self._png is None or self._png[0] != counts:
            self._png = (counts, growth_png(counts, [r.number for r in self.rows
                                                     if r.findings]))
        return self._png[1]

    def _observe(self, body: JSON, response: httpx2.Response | None) -> None:
        tool_uses, findings = examine(body)
        turns = tuple((str(m.get("role")), tuple(str(b.get("type")) for b in _content(m)))
                      for m in body.get("messages") or [] if isinstance(m, dict))
        row = Row(number=len(self.rows) + 1, turns=turns, tool_uses=tool_uses,
                  input_tokens=tokens.request_tokens(body), reply=describe_reply(response),
                  findings=findings)
        self.rows.append(row)
        if self._widget is not None:
            self._redraw()
        elif not self.interactive:
            self._print_row(row)

    def _print_row(self, row: Row) -> None:
        """One request as a few lines of text (the fallback without a widget frontend)."""
        pad = " " * len("[inspector] ")
        print(f"[inspector] request {row.number}: {row.input_tokens:,} input tokens -> "
              f"{row.reply}")
        print(f"{pad}{row.shape}")
        if row.tool_uses:
            print(f"{pad}tool_use ids: {row.ids}")
        for f in row.findings:
            print(f"{pad}!! {f.kind}: {f.message}")

    @property
    def widget(self) -> Any:
        """The ipywidgets panel (built on first use): a summary, the table, the plot."""
        if self._widget is None:
            import ipywidgets as w

            self._summary = w.HTML()
            self._table = w.HTML()
            # at the chart's own pixel width (a VBox stretches its children across the
            # page), and hidden until there is a request to plot
            self._image = w.Image(format="png", layout=w.Layout(
                width=f"{int(GROWTH_FIGSIZE[0] * GROWTH_DPI)}px", height="auto"))
            self._widget = w.VBox([self._summary, self._table, self._image])
            self._redraw()
        return self._widget

    def summary(self) -> str:
        """One line: how many requests, tokens of the last, and each pattern seen so far."""
        seen = sorted({f.kind for _, f in self.findings})
        last = f", last {self.rows[-1].input_tokens:,} input tokens" if self.rows else ""
        flags = "; ".join(PATTERNS[k] for k in seen) or "no failure pattern"
        return f"{len(self.rows)} request(s){last}; {flags}"

    def _redraw(self) -> None:
        colour = "#b00020" if self.findings else "#1b5e20"
        self._summary.value = (f"<b style='color:{colour}'>Request inspector: "
                               f"{html.escape(self.summary())}</b>")
        self._table.value = table_html(self.rows)
        self._image.layout.display = None if self.rows else "none"
        if self.rows:
            self._image.value = self.png

    def table(self) -> str:
        """The rows so far as a text table."""
        return table_text(self.rows)

    def show(self) -> None:
        """Display the live panel, or print the text table where no widget frontend exists."""
        if self.interactive:
            from IPython.display import display

            display(self.widget)
        elif self.rows:
            print(self.table())
            print(self.summary())
        else:
            print("[inspector] watching: one entry per request follows")
