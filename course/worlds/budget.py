"""The invoice-audit world of Lab 3: a fake model whose bill grows with the history, and the loop
that runs it against any budget object.

Everything a Lab 3 notebook cell or hidden test needs to set up a run lives here: real SDK
``Usage`` objects for hand-picked token counts, the audit task and its scripted model, a small
scenario harness run that charges a budget after every call and turns a hard stop into a
partial report (no agent loop: that is Lab 1's to write),
a token meter that prices nothing, a routed run over three models, and the spend plot.
Nothing here prices a token: pricing is the student's ``Budget``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from anthropic.types import Message, Usage

from ..fakes import FakeAPI, Queue
from ..wire import JSON, message, text
from . import harness

MODEL = "claude-opus-5"
PREFIX_TOKENS = 6_000   # P: system prompt + tool definitions, resent on every call
TURN_TOKENS = 1_500     # a: what one turn (request + tool result) adds to the history
OUTPUT_TOKENS = 400     # what the fake model writes per reply
GROWTH_TURNS = (5, 10, 20, 40)

# The chapter's worked call (Code Lab 14, exercise 3): $1.00 limit on claude-opus-5.
WORKED_CALL: JSON = {
    "input_tokens": 130_000,
    "output_tokens": 1_000,
    "cache_creation_input_tokens": 20_000,
    "cache_read_input_tokens": 40_000,
}

# The chapter's cost-per-task rows: (task_id, turns, input_tokens, output_tokens), on claude-opus-5.
TAIL_ROWS: list[tuple[str, int, int, int]] = [
    ("a91", 6, 41_200, 2_100),
    ("a92", 5, 33_800, 1_800),
    ("a93", 40, 1_904_000, 16_400),
]

SYSTEM = "You audit invoices for the billing team. Read each invoice before judging it."
GOAL = ("Audit the open invoices of account acme. Read each one with read_invoice and list "
        "every invoice billed above units x unit price.")

TOOLS: list[JSON] = [{
    "name": "read_invoice",
    "description": "Return one invoice as '<number>: <units> units at $<price>, billed $<total>'.",
    "input_schema": {
        "type": "object",
        "properties": {"number": {"type": "string", "description": "e.g. 'INV-07'"}},
        "required": ["number"],
    },
}]


# -- SDK usage objects ---------------------------------------------------------------------


def usage_body(input_tokens: int, output_tokens: int,
               cache_creation_input_tokens: int | None = None,
               cache_read_input_tokens: int | None = None, *, one_hour: int = 0) -> JSON:
    """A usage dict as the API sends it; cache fields left ``None`` arrive as ``null``.

    ``one_hour`` of the written tokens were written with ``"ttl": "1h"``: the body then
    carries ``cache_creation``, the split by time to live that the Messages API reports
    (``ephemeral_5m_input_tokens``, ``ephemeral_1h_input_tokens``; the SDK's
    ``anthropic/types/cache_creation.py``), summing to ``cache_creation_input_tokens``."""
    body: JSON = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_creation_input_tokens,
        "cache_read_input_tokens": cache_read_input_tokens,
    }
    if one_hour:
        written = cache_creation_input_tokens or 0
        if not 0 < one_hour <= written:
            raise ValueError(f"one_hour={one_hour} of {written} written tokens")
        body["cache_creation"] = {"ephemeral_5m_input_tokens": written - one_hour,
                                  "ephemeral_1h_input_tokens": one_hour}
    return body


def sdk_usage(input_tokens: int, output_tokens: int,
              cache_creation_input_tokens: int | None = None,
              cache_read_input_tokens: int | None = None,
              *, model: str = MODEL, one_hour: int = 0) -> Usage:
    """The ``anthropic.types.Usage`` a real client parses from a reply carrying these counts
    (``one_hour`` as in :func:`usage_body`)."""
    body = usage_body(input_tokens, output_tokens,
                      cache_creation_input_tokens, cache_read_input_tokens, one_hour=one_hour)
    api = FakeAPI(Queue([message([text("billed")], model=model, usage=body)]))
    reply = api.client().messages.create(
        model=model, max_tokens=64, messages=[{"role": "user", "content": "bill me"}])
    return reply.usage


# -- the invoice world ---------------------------------------------------------------------


def invoice_numbers(n: int) -> list[str]:
    """The first ``n`` invoice numbers of the audit, ``INV-01`` onwards."""
    return [f"INV-{i:02d}" for i in range(1, n + 1)]


def _invoice(number: str) -> tuple[int, float, float]:
    i = int(number.split("-")[1])
    units = 100 * (i % 7 + 3)
    price = 2.00 + 0.25 * (i % 3)
    total = units * price * (1.10 if i % 4 == 3 else 1.00)   # every fourth one overbills
    return units, price, round(total, 2)


def read_invoice(number: str) -> str:
    """The read_invoice tool: one invoice as a line of text."""
    units, price, total = _invoice(number)
    return f"{number}: {units} units at ${price:.2f}, billed ${total:,.2f}"


def overbilled(numbers: Sequence[str]) -> list[str]:
    """The invoices among ``numbers`` billed above units x price (the audit's right answer)."""
    out = []
    for n in numbers:
        units, price, total = _invoice(n)
        if total > units * price + 0.005:
            out.append(n)
    return out


class AuditScenario:
    """A model that reads ``n_invoices`` invoices one per call, then answers, as a
    :class:`course.worlds.harness.Scenario`.

    A run therefore takes ``n_invoices + 1`` calls. Call k carries the prefix plus k turns of
    history, ``PREFIX_TOKENS + TURN_TOKENS * k`` prompt tokens, and writes ``OUTPUT_TOKENS``.
    Uncached, all of it bills as ``input_tokens`` and the cache fields come back ``None``.
    With ``cached=True`` the prompt the previous call sent is read from the cache and only the
    new part is written to it. The model reads every invoice whatever it is told: it does not
    heed a wrap-up note, which is exactly the case a hard stop is for.
    """

    def __init__(self, n_invoices: int, *, cached: bool = False, model: str = MODEL) -> None:
        self.numbers = invoice_numbers(n_invoices)
        self.cached, self.model = cached, model

    def bill(self, k: int) -> Usage:
        """The usage of call ``k`` (counting from 1)."""
        prompt = PREFIX_TOKENS + TURN_TOKENS * k
        if not self.cached:
            return Usage(input_tokens=prompt, output_tokens=OUTPUT_TOKENS)
        seen = PREFIX_TOKENS + TURN_TOKENS * (k - 1) if k > 1 else 0
        return Usage(input_tokens=0, output_tokens=OUTPUT_TOKENS,
                     cache_creation_input_tokens=prompt - seen, cache_read_input_tokens=seen)

    def move(self, told: list[harness.Told]) -> harness.Move:
        usage = self.bill(len(told) + 1)
        if len(told) < len(self.numbers):
            call = harness.Call("read_invoice", {"number": self.numbers[len(told)]})
            return harness.Move((call,), "", usage, self.model)
        flagged = ", ".join(overbilled(self.numbers)) or "none"
        return harness.Move((), f"Audited {len(self.numbers)} invoices. Overbilled: {flagged}.",
                            usage, self.model)

    def run_tool(self, call: harness.Call) -> str:
        return read_invoice(call.args["number"])


# -- the run ---------------------------------------------------------------------------------


class Chargeable(Protocol):
    """What a run needs from a budget: ``charge`` after every call, ``guard`` before acting."""

    def charge(self, model: str, usage: Any) -> float: ...

    def guard(self) -> str | None: ...


def run_audit(budget: Chargeable, *, stop: type[BaseException], n_invoices: int,
              cached: bool = False, max_steps: int = 60) -> JSON:
    """Drive the invoice audit past ``budget``, charging it after every model call.

    ``budget.guard()`` is asked after each tool-asking reply is paid for. A string it returns
    rides along, once, with that turn's tool outputs (``notes`` lists each as (the number of
    the call that read it, text)). If it raises ``stop``, no tool runs and no further call is
    made: the run returns a partial report. A scenario harness, not an agent loop.

    A finished run, a stop and the step cap all return a dict; only an exception other than
    ``stop`` propagates. Keys: ``ok`` (True only when the model finished), ``partial``,
    ``reason``, ``done`` (the tool outputs collected so far), ``missing`` (a sentence naming
    what was not done, empty when nothing is missing), ``answer`` (only when ``ok``), ``usd``,
    ``calls`` and ``notes``.
    """
    scenario = AuditScenario(n_invoices, cached=cached)

    def on_reply(move: harness.Move, number: int) -> str | None:
        budget.charge(move.model, move.usage)
        return budget.guard() if move.calls else None

    run = harness.drive(scenario, on_reply=on_reply, stop=(stop,), max_turns=max_steps)
    done = [t.output for t in run.told]
    out: JSON = {"ok": run.outcome == "answered", "partial": run.outcome != "answered",
                 "done": done, "usd": getattr(budget, "spent", None),
                 "calls": run.model_calls, "notes": run.notes}
    if run.outcome == "answered":
        return dict(out, reason="finished", missing="", answer=run.text)
    unread = [n for n in scenario.numbers if not any(d.startswith(n + ":") for d in done)]
    gap = f"Not read: {', '.join(unread)}. " if unread else ""
    reason = (f"budget exhausted ({run.text})" if run.outcome == "stopped"
              else f"step cap of {max_steps} reached")
    return dict(out, reason=reason,
                missing=gap + "No summary was written, so no invoice has been judged.")


class TokenMeter:
    """A budget-shaped object that counts tokens and prices nothing. ``guard`` never objects."""

    def __init__(self) -> None:
        self.usages: list[Usage] = []

    def charge(self, model: str, usage: Usage) -> float:
        self.usages.append(usage)
        return 0.0

    def guard(self) -> str | None:
        return None

    @property
    def input_tokens(self) -> int:
        return sum(u.input_tokens for u in self.usages)

    @property
    def output_tokens(self) -> int:
        return sum(u.output_tokens for u in self.usages)


def run_turns(budget: Chargeable, turns: int, *, stop: type[BaseException] = Exception,
              cached: bool = False) -> JSON:
    """The audit sized to take exactly ``turns`` model calls, run once against ``budget``."""
    return run_audit(budget, stop=stop, n_invoices=turns - 1, cached=cached,
                     max_steps=turns + 5)


# -- a routed run over three models --------------------------------------------------------

ROUTE: list[tuple[str, str, JSON]] = [
    # (step, model, usage) -- haiku triages, sonnet reads, opus writes the customer reply
    ("triage", "claude-haiku-4-5", usage_body(1_800, 120, 0, 2_400)),
    ("triage", "claude-haiku-4-5", usage_body(1_700, 110, 0, 2_400)),
    ("triage", "claude-haiku-4-5", usage_body(1_900, 130, 0, 2_400)),
    ("read", "claude-sonnet-5", usage_body(9_000, 700, 6_000, 0)),
    ("read", "claude-sonnet-5", usage_body(2_500, 650, 1_500, 6_000)),
    ("write", "claude-opus-5", usage_body(4_000, 1_200, 12_000, 0)),
]


def routed_run() -> list[Message]:
    """The six replies of a routed ticket run, as real SDK ``Message`` objects.

    Charge each as ``budget.charge(reply.model, reply.usage)``: the model name comes from the
    reply, which is the name the API billed.
    """
    api = FakeAPI(Queue([message([text(step)], model=model, usage=bill)
                         for step, model, bill in ROUTE]))
    client = api.client()
    out = []
    for step, model, _ in ROUTE:
        out.append(client.messages.create(
            model=model, max_tokens=256, messages=[{"role": "user", "content": step}]))
    return out


# -- the plot ------------------------------------------------------------------------------


def plot_spend(turns: Sequence[int], usd: Sequence[float],
               cached_usd: Sequence[float] | None = None) -> Any:
    """Spend against run length, with the straight line an up-front estimate would draw.

    The dashed line extends the cost per turn of the shortest run. Returns the figure; the
    caller shows it (``plt.show()``) or closes it.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(turns, usd, "o-", label="measured, no cache")
    if cached_usd is not None:
        ax.plot(turns, cached_usd, "s-", label="measured, history cached")
    per_turn = usd[0] / turns[0]
    ax.plot([0, turns[-1]], [0, per_turn * turns[-1]], "--", color="grey",
            label=f"linear estimate (${per_turn:.3f}/turn)")
    for n, v in zip(turns, usd, strict=True):
        ax.annotate(f"${v:.2f}", (n, v), textcoords="offset points", xytext=(-34, 4))
    ax.set_ylim(0, max(usd) * 1.15)
    ax.set_xlabel("turns in the run")
    ax.set_ylabel("USD spent (claude-opus-5)")
    ax.set_title("Resending the history makes spend grow with n(n+1)/2")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
