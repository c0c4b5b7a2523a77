# %% [markdown]
# # Lab 10 — Token accounting
#
# **Points:** 13 autograded + 3 written = 16.
#
# **You implement**
#
# ```python
# PRICE                                   # {model: {"in": usd_per_token, "out": usd_per_token}}, as in Lab 3
# class Ledger:
#     Ledger()
#     .rows                                   # one dict per recorded call, in order
#     .record(label, model, usage, ms)        # price one call into a new row; returns None
#     .total() -> float                       # dollars, all rows, all four terms
#     .cache_hit_rate() -> float              # sum(read) / sum(read + write + uncached); 0.0 if empty
#     .by_label() -> {label: {"calls": int, "usd": float, "ms": float}}
#     .where_the_money_went() -> dict         # see below
# accounted(label, model, *, ledger)          # decorator for a call site returning a Message
# accounted_stream(label, model, *, ledger)   # decorator for a call site returning messages.stream(...)
# instrument(ledger) -> {"plan": fn, "summarize": fn, "answer": fn}   # the ticket agent, wired
# ```
#
# * **A row** has the keys `label`, `model`, `ms`, `in`, `out`, `cache_write`, `cache_read`
#   (token counts; a `None` cache field counts as 0) and `usd_in`, `usd_out`, `usd_write`,
#   `usd_read` (dollars, kept apart, never pre-summed). Uncached input bills at the input
#   rate, output at the output rate, cache writes at **1.25×** and cache reads at **0.10×**
#   the input rate, from `PRICE[model]`. A model not in `PRICE` raises `KeyError`.
#   `ms` is stored unchanged, as the float it is passed.
# * **`total()`** of an empty ledger is 0.0 and **`by_label()`** of an empty ledger is `{}`.
#   `cache_hit_rate()` is not rounded.
# * **`where_the_money_went()`** returns `total_usd` (rounded to 4 places), `share_output`,
#   `share_uncached_input`, `share_cache_write`, `share_cache_read` (each term's dollars over
#   the total) and `cache_hit_rate`, those five rounded to 3 places. An empty ledger gives
#   0.0 everywhere.
# * **`accounted`** calls the site, records the returned message's `usage` against `label`
#   and `model` with the elapsed milliseconds, and returns the message unchanged, once per
#   call: a retried call is recorded once per attempt. The elapsed milliseconds are
#   wall-clock time around the site's call, read from `time.perf_counter()` (seconds) and
#   multiplied by 1,000.
# * **`accounted_stream`** calls the site, which returns the SDK's stream manager, drains the
#   stream to its end, records the **final** message's usage and returns that final message.
# * **`instrument(ledger)`** returns the ticket agent's three call sites, each recorded:
#   `"plan"` (claude-opus-5, retried with `world.retry_truncated`), `"summarize"`
#   (claude-sonnet-5) and `"answer"` (claude-opus-5, streamed). Labels are the keys.
#
# The world's call sites, which you decorate (all from `course.worlds.token_accounting`):
#
# ```python
# world.plan(client, goal, max_tokens=512) -> Message       # cut off at max_tokens below 1,024
# world.summarize(client, tool_output) -> Message
# world.answer(client, goal, notes) -> MessageStreamManager # use as `with ... as stream:`
# world.retry_truncated(fn, attempts=3) -> retried          # retried(client, goal) calls
#     # fn(client, goal, max_tokens=room), doubling room from 512 while the reply stops at
#     # max_tokens; returns the first reply that does not, RuntimeError after `attempts`
# ```
#
# **Prices** per million tokens, input/output: claude-opus-5 \$5/\$25, claude-sonnet-5
# \$2/\$10, claude-haiku-4-5 \$1/\$5.
# Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) and each
# model's page, read 2026-12-02. claude-sonnet-5 was priced here at \$3/\$15 before; its page
# lists \$2/\$10, which changes every Sonnet figure below (the cut is 60%, not 40%).

# %%
from course.worlds import token_accounting as world

OPUS, SONNET = world.OPUS, world.SONNET
print("ticket:", world.GOAL)

# %% [markdown]
# ## Why a ledger exists
#
# A budget (Lab 3) says *stop*. A ledger says **where the money went**, which is the question
# a cost review asks. A bill has four terms at four multipliers of the input rate: uncached
# input 1.0×, cache writes 1.25×, cache reads 0.10×, output 5×. A single total does not say
# which one to attack, so the ledger keeps them in four columns, per call site.
#
# A common account of the cheaper-model fix says that moving from Opus to Sonnet cuts "two
# of the four terms" (input and output). Check it term by term:

# %%
PER_MTOK = {OPUS: {"in": 5.00, "out": 25.00}, SONNET: {"in": 2.00, "out": 10.00}}
for term, mult, rate in [("uncached input", 1.00, "in"), ("cache write", 1.25, "in"),
                         ("cache read", 0.10, "in"), ("output", 1.00, "out")]:
    opus = mult * PER_MTOK[OPUS][rate]
    sonnet = mult * PER_MTOK[SONNET][rate]
    print(f"{term:>15}: opus ${opus:6.3f}/MTok -> sonnet ${sonnet:6.3f}/MTok, "
          f"cut {1 - sonnet / opus:.0%}")

# %% [markdown]
# All four fall by 60%, because both cache multipliers are multiples of the input rate and
# Sonnet's input rate is 2/5 of Opus's. Switching models is a flat 60% off every term. A
# broken cache is a 10× swing on one term (a read at 0.10× becomes input at 1.0×). Which fix
# is worth more depends on the shares, and only a ledger with the four columns apart can
# give you the shares.
#
# ## The bug it prevents
#
# ### 1. A call site nobody decorated
#
# The ticket agent has three call sites: `plan` (Opus, retried when the plan is cut off at
# `max_tokens`), `summarize` (Sonnet, called from inside a tool, once per tool output) and
# `answer` (Opus, streamed). Here is what one ticket costs, site by site, priced from the
# fake's fixed usage:

# %%
P_IN = {m: rates["in"] / 1e6 for m, rates in PER_MTOK.items()}
P_OUT = {m: rates["out"] / 1e6 for m, rates in PER_MTOK.items()}


def priced(model, row):
    i, w, r, o = row
    return i * P_IN[model] + w * P_IN[model] * 1.25 + r * P_IN[model] * 0.10 + o * P_OUT[model]


calls = [("plan, attempt 1 (cut off)", OPUS, world.PLAN_TRUNCATED),
         ("plan, attempt 2", OPUS, world.PLAN_OK),
         ("summarize, output 1", SONNET, world.SUMMARY),
         ("summarize, output 2", SONNET, world.SUMMARY),
         ("answer (streamed)", OPUS, world.ANSWER)]
bill = sum(priced(m, row) for _, m, row in calls)
for name, m, row in calls:
    print(f"{name:>26}: ${priced(m, row):.4f}")
without_summaries = bill - 2 * priced(SONNET, world.SUMMARY)
print(f"{'the bill':>26}: ${bill:.4f}")
print(f"ledger missing summarize: ${without_summaries:.4f}, "
      f"{1 - without_summaries / bill:.0%} low")

# %% [markdown]
# The summaries run inside a tool, so whoever wrote the tool never thought of them as model
# calls. Leave that site out of the books and the ledger reads \$0.1210 against a \$0.1570 bill,
# 23% low, with nothing failing. The check is blunt: the ledger has one row per API request,
# and `len(ledger.rows)` equals the number of requests sent.
#
# The retry matters in the same way. The plan's first attempt is cut off at 512 tokens and
# thrown away, but its 512 output tokens and 6,100-token cache write were generated and
# billed: \$0.0569, more than the attempt that succeeded. Wrap the ledger around the retry
# loop instead of around one attempt and that row disappears.
#
# ### 2. Streaming: the usage arrives last
#
# The common advice for recording a streamed call is "pass `stream=True`". That is what goes
# on the wire, but it is not what a ledger needs. `client.messages.create(..., stream=True)`
# returns a raw event stream with no `usage` attribute and no final message:

# %%
api = world.ticket_api()
client = api.client()
raw = client.messages.create(model=OPUS, max_tokens=2_048, system=world.ANSWER_SYSTEM,
                             messages=[{"role": "user", "content": world.GOAL}], stream=True)
print(type(raw).__name__, "| has .usage:", hasattr(raw, "usage"),
      "| has .get_final_message:", hasattr(raw, "get_final_message"))
for event in raw:
    if event.type == "message_start":
        print("message_start: output_tokens =", event.message.usage.output_tokens,
              "(a placeholder), input_tokens =", event.message.usage.input_tokens)
    if event.type == "message_delta":
        print("message_delta: output_tokens =", event.usage.output_tokens, "(the real count)")

# %% [markdown]
# The server cannot count output tokens before it has generated them. So the input side
# (`input_tokens` and both cache fields) comes in `message_start`, with a placeholder output
# count of 1, and the real output count comes in `message_delta` at the end. A decorator that
# does `getattr(resp, "usage", None)` on the raw stream records nothing; one that reads the
# first event records 1 output token for a 1,200-token answer. Streamed calls are usually
# the long answers, so they are the expensive rows to lose.
#
# The SDK's helper does the accumulating for you: `client.messages.stream(...)` is a context
# manager (it sets `stream=True` itself). Drain it, then `stream.get_final_message()` returns
# the assembled message, whose `usage` holds the final counts.
#
# ## Tier 1 — pseudocode
#
# ```text
# record(label, model, usage, ms):
#     four token counts (None -> 0), four dollar columns, one new row
# reports:
#     total = every dollar column of every row
#     hit rate = all reads / all input (read + write + uncached)
#     per label: calls, dollars, ms;   per term: share of the total
# decorate every call site:
#     start a timer; call; take the usage of the FINISHED message; record; return the message
#     streaming: enter the stream, drain it, take the final message
#     a retry loop goes OUTSIDE the decorator, so each attempt is a row
# ```
#
# There is no framework tier here: a decorator around a model call is the same code with or
# without a graph around it.
#
# ## Implement

# %% id="price" kind="solution"
# PRICE[model] = {"in": USD per input token, "out": USD per output token} for claude-opus-5,
# claude-sonnet-5 and claude-haiku-4-5: the table you built in Lab 3 ($5/MTok is 5 / 1_000_000).
### BEGIN SOLUTION
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
### END SOLUTION

# %% id="ledger" kind="solution"
import functools
import time
from collections import defaultdict


class Ledger:
    """Every model call as a row, with the four price terms kept in separate columns."""

    def __init__(self):
        self.rows = []

    def record(self, label, model, usage, ms):
        """Price one call's usage at PRICE[model] and append it as a row. Returns None.

        usage -- anything with input_tokens, output_tokens, cache_creation_input_tokens and
        cache_read_input_tokens (the cache fields may be None: count them as 0).
        """
        ### BEGIN SOLUTION
        rate = PRICE[model]
        cw = usage.cache_creation_input_tokens or 0
        cr = usage.cache_read_input_tokens or 0
        self.rows.append({
            "label": label, "model": model, "ms": float(ms),
            "in": usage.input_tokens, "out": usage.output_tokens,
            "cache_write": cw, "cache_read": cr,
            "usd_in": usage.input_tokens * rate["in"],
            "usd_out": usage.output_tokens * rate["out"],
            "usd_write": cw * rate["in"] * 1.25,
            "usd_read": cr * rate["in"] * 0.10,
        })
        ### END SOLUTION

    def total(self):
        """Dollars over every row and all four terms."""
        ### BEGIN SOLUTION
        return sum(r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"] for r in self.rows)
        ### END SOLUTION

    def cache_hit_rate(self):
        """sum(cache_read) / sum(cache_read + cache_write + in) over all rows; 0.0 if empty."""
        ### BEGIN SOLUTION
        read = sum(r["cache_read"] for r in self.rows)
        seen = sum(r["cache_read"] + r["cache_write"] + r["in"] for r in self.rows)
        return read / seen if seen else 0.0
        ### END SOLUTION

    def by_label(self):
        """{label: {"calls": int, "usd": float, "ms": float}}, summed over that label's rows."""
        ### BEGIN SOLUTION
        out = defaultdict(lambda: {"calls": 0, "usd": 0.0, "ms": 0.0})
        for r in self.rows:
            agg = out[r["label"]]
            agg["calls"] += 1
            agg["usd"] += r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"]
            agg["ms"] += r["ms"]
        return dict(out)
        ### END SOLUTION

    def where_the_money_went(self):
        """total_usd (4 places), the four shares and cache_hit_rate (3 places); 0.0 if empty."""
        ### BEGIN SOLUTION
        total = self.total()

        def share(column):
            return round(sum(r[column] for r in self.rows) / total, 3) if total else 0.0

        return {
            "total_usd": round(total, 4),
            "share_output": share("usd_out"),
            "share_uncached_input": share("usd_in"),
            "share_cache_write": share("usd_write"),
            "share_cache_read": share("usd_read"),
            "cache_hit_rate": round(self.cache_hit_rate(), 3),
        }
        ### END SOLUTION

# %% id="decorators" kind="solution"
def accounted(label, model, *, ledger):
    """Decorator: record the usage of the Message the site returns, then return it."""
    ### BEGIN SOLUTION
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            reply = fn(*args, **kwargs)
            ledger.record(label, model, reply.usage, (time.perf_counter() - start) * 1000)
            return reply
        return wrapper
    return decorate
    ### END SOLUTION


def accounted_stream(label, model, *, ledger):
    """Decorator for a site returning client.messages.stream(...): drain the stream, record
    the FINAL message's usage, return the final message."""
    ### BEGIN SOLUTION
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            with fn(*args, **kwargs) as stream:
                for _ in stream.text_stream:
                    pass
                final = stream.get_final_message()   # the usage is complete only now
            ledger.record(label, model, final.usage, (time.perf_counter() - start) * 1000)
            return final
        return wrapper
    return decorate
    ### END SOLUTION

# %% id="instrument" kind="solution"
def instrument(ledger):
    """The ticket agent's call sites, each recorded in ledger under its key as label.

    "plan": world.plan on claude-opus-5, retried with world.retry_truncated (every attempt is
    billed, so every attempt is a row); "summarize": world.summarize on claude-sonnet-5;
    "answer": world.answer on claude-opus-5 (it streams).
    """
    ### BEGIN SOLUTION
    return {
        "plan": world.retry_truncated(accounted("plan", OPUS, ledger=ledger)(world.plan)),
        "summarize": accounted("summarize", SONNET, ledger=ledger)(world.summarize),
        "answer": accounted_stream("answer", OPUS, ledger=ledger)(world.answer),
    }
    ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# A quick signal, **not** the grade: the hidden tests check more, including every price term
# on its own, `None` cache fields, the per-label sums, the empty ledger and the timing.

# %%
book = Ledger()
book.record("worked call", OPUS, world.sdk_usage(**world.WORKED_CALL), ms=0.0)
print(f"the worked call: ${book.total():.4f}   (expect $0.8200)")

api = world.ticket_api()
book = Ledger()
reply = world.run_ticket(instrument(book), client=api.client())
print(f"ticket: {len(api.requests)} requests, {len(book.rows)} rows, ${book.total():.4f} "
      "(expect 5, 5, $0.1570)")
for label, agg in book.by_label().items():
    print(f"  {label:>9}: {agg['calls']} calls ${agg['usd']:.4f}")
print("answer row out:", book.rows[-1]["out"], "(expect 1200)")

# %% [markdown]
# And the integrated run's five turns, all on claude-opus-5. Read the shares: the cache
# writes are more than half the money, output a quarter, uncached input almost nothing.

# %%
trace = Ledger()
for reply in world.trace_replies():
    trace.record("agent", reply.model, reply.usage, ms=0.0)
for key, value in trace.where_the_money_went().items():
    print(f"{key:>21} {value}")

# %% [markdown]
# ## Graded tests
#
# One cell per property. Each cell builds its own ledger and fake from
# `course.worlds.token_accounting`.

# %% id="worked_call_to_the_cent" kind="tests" points=3
from course.worlds.token_accounting import WORKED_CALL, sdk_usage

ledger = Ledger()
returned = ledger.record("worked", "claude-opus-5", sdk_usage(**WORKED_CALL), 7.25)
assert abs(ledger.total() - 0.82) < 0.005, (
    f"writes 1.25x, reads 0.10x: .65 + .025 + .125 + .02 = $0.82; total() is {ledger.total()!r}")
assert returned is None, f"record() returns None, got {returned!r}"
assert len(ledger.rows) == 1, f"one record() call makes one row, got rows {ledger.rows!r}"
row = ledger.rows[0]
for key, want in [("label", "worked"), ("model", "claude-opus-5"), ("in", 130_000),
                  ("out", 1_000), ("cache_write", 20_000), ("cache_read", 40_000),
                  ("usd_in", 0.65), ("usd_out", 0.025), ("usd_write", 0.125),
                  ("usd_read", 0.02), ("ms", 7.25)]:
    got = row.get(key)
    assert got == want or (isinstance(want, float) and isinstance(got, float)
                           and abs(got - want) < 1e-9), (
        f"row columns kept apart: row[{key!r}] should be {want!r}, got {got!r} (row {row!r})")
for model, counts, want in [("claude-sonnet-5", (1_000_000, 0), 2.00),
                            ("claude-haiku-4-5", (0, 1_000_000), 5.00)]:
    one = Ledger()
    one.record("x", model, sdk_usage(*counts), 0.0)
    assert abs(one.total() - want) < 1e-9, (
        f"PRICE[{model!r}]: {counts[0]:,} in + {counts[1]:,} out is ${want:.2f}, "
        f"got {one.total()!r}")
no_cache = Ledger()
try:
    no_cache.record("x", "claude-opus-5", sdk_usage(2_000, 200), 0.0)   # cache fields None
except TypeError as exc:
    raise AssertionError(f"a None cache field counts as 0; record raised {exc!r}") from None
assert abs(no_cache.total() - 0.015) < 1e-9, (
    f"None cache fields count as 0: 2,000 in + 200 out on opus is $0.015, "
    f"got {no_cache.total()!r}")
try:
    Ledger().record("x", "claude-opus-9", sdk_usage(1, 1), 0.0)
except KeyError:
    pass
else:
    raise AssertionError("a model not in PRICE raises KeyError; record('claude-opus-9') did not")
assert abs(PRICE["claude-opus-5"]["in"] - 5 / 1_000_000) < 1e-15, (
    f"PRICE is in USD per token, as in Lab 3 ($5/MTok is 5 / 1_000_000); "
    f"PRICE['claude-opus-5']['in'] is {PRICE['claude-opus-5']['in']!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.token_accounting import sdk_usage as _usage

h = hidden_inputs(
    label=("worked", "plan", "triage", "agent", "answer"), ms=(12.5, 8.75, 41.25, 0.5, 19.5),
    write_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    written=(200_000, 400_000, 1_000_000, 2_000_000),
    read_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    read=(500_000, 1_000_000, 3_000_000, 4_000_000),
    out_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    out=(100_000, 1_000_000, 300_000, 2_000_000),
    none_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    none_in=(1_000, 2_500, 4_000, 800), none_out=(100, 250, 60, 400),
    odd_ms=(3.375, 2.625, 9.125, 0.875, 14.375), unknown=(
        "claude-unknown", "claude-opus-9", "claude-sonnet-4", "gpt-5", "claude-haiku-3"))
_l = Ledger()
_l.record(h.label, "claude-opus-5", _usage(**WORKED_CALL), h.ms)
_singles = []
for _m, _counts in [(h.write_model, (0, 0, h.written, 0)),
                    (h.read_model, (0, 0, 0, h.read)),
                    (h.out_model, (0, h.out, 0, 0))]:
    _one = Ledger()
    _one.record("x", _m, _usage(_counts[0], _counts[1], _counts[2], _counts[3]), 0.0)
    _singles.append([_m, _counts, _one.total()])
_none = Ledger()
_none_call = outcome(_none.record, "x", h.none_model, _usage(h.none_in, h.none_out), 0.0)
_odd_ms = Ledger()
_odd_ms.record("x", "claude-haiku-4-5", _usage(1, 1), h.odd_ms)
rec = record(visible=ledger.total(), total=_l.total(), rows=_l.rows, singles=_singles,
             returned=outcome(Ledger().record, "y", "claude-haiku-4-5", _usage(10, 10), 3.0),
             none_call=_none_call, none_total=_none.total(),
             unknown=outcome(Ledger().record, "x", h.unknown, _usage(1, 1), 0.0),
             price={m: dict(r) for m, r in PRICE.items()}, odd_ms=_odd_ms.rows[0]["ms"])
### JUDGE
import math

from course.observe import hidden_inputs
from course.prices import PER_MTOK

h = hidden_inputs(
    label=("worked", "plan", "triage", "agent", "answer"), ms=(12.5, 8.75, 41.25, 0.5, 19.5),
    write_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    written=(200_000, 400_000, 1_000_000, 2_000_000),
    read_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    read=(500_000, 1_000_000, 3_000_000, 4_000_000),
    out_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    out=(100_000, 1_000_000, 300_000, 2_000_000),
    none_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    none_in=(1_000, 2_500, 4_000, 800), none_out=(100, 250, 60, 400),
    odd_ms=(3.375, 2.625, 9.125, 0.875, 14.375), unknown=(
        "claude-unknown", "claude-opus-9", "claude-sonnet-4", "gpt-5", "claude-haiku-3"))


def _number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


_t = rec["visible"]
assert _number(_t) and abs(_t - 0.82) < 0.005, (
    f"writes 1.25x, reads 0.10x: .65 + .025 + .125 + .02 = $0.82; total() is {_t!r}")
_t = rec["total"]
assert _number(_t) and math.isclose(_t, 0.82, abs_tol=1e-9), f"$0.82 to the cent, got {_t}"
assert len(rec["rows"]) == 1, f"one record() call makes one row; got {len(rec['rows'])} rows"
_row = rec["rows"][0]
for _k, _want in [("usd_in", 0.65), ("usd_out", 0.025), ("usd_write", 0.125), ("usd_read", 0.02),
                  ("in", 130_000), ("out", 1_000), ("cache_write", 20_000),
                  ("cache_read", 40_000), ("ms", h.ms)]:
    _got = _row.get(_k)
    assert _number(_got) and math.isclose(_got, _want, abs_tol=1e-9), (
        f"row[{_k!r}] should be {_want}, got {_got}")
assert (_row.get("label"), _row.get("model")) == (h.label, "claude-opus-5"), (
    f"row keeps label and model: record({h.label!r}, 'claude-opus-5', ...) stored "
    f"{(_row.get('label'), _row.get('model'))!r}")
assert isinstance(_row.get("ms"), float), f"ms is stored as a float, got {_row.get('ms')!r}"
_ret = rec["returned"]
assert _ret["raised"] is None and _ret["value"] is None, (
    f"record() returns None, got {_ret!r}")
for (_m, _counts, _got), (_want, _why) in zip(rec["singles"], [
        (h.written * PER_MTOK[h.write_model]["input"] * 1.25 / 1e6,
         f"{h.written:,} cache writes at 1.25x {h.write_model} input"),
        (h.read * PER_MTOK[h.read_model]["input"] * 0.10 / 1e6,
         f"{h.read:,} cache reads at 0.10x {h.read_model} input"),
        (h.out * PER_MTOK[h.out_model]["output"] / 1e6,
         f"{h.out:,} output tokens at {h.out_model}'s output rate")], strict=True):
    assert _number(_got) and math.isclose(_got, _want, abs_tol=1e-9), (
        f"{_why}: expected ${_want:.4f}, got {_got!r}")
_raised = rec["none_call"]["raised"]
assert _raised is None, (
    f"cache fields can be None on an uncached reply; count None as 0 (record raised {_raised})")
_t, _want = rec["none_total"], (h.none_in * PER_MTOK[h.none_model]["input"]
                                 + h.none_out * PER_MTOK[h.none_model]["output"]) / 1e6
assert _number(_t) and math.isclose(_t, _want, abs_tol=1e-9), (
    f"{h.none_in:,} in + {h.none_out:,} out on {h.none_model} with both cache fields None is "
    f"${_want:.6f}, got {_t!r}")
_raised = rec["unknown"]["raised"]
_raised = _raised and _raised["type"]
assert _raised == "KeyError", (
    f"a model not in PRICE must raise KeyError: record(..., {h.unknown!r}, ...) raised {_raised}")
assert rec["odd_ms"] == h.odd_ms, (
    f"ms is stored unchanged: record(..., {h.odd_ms}) stored {rec['odd_ms']!r}")
for _m, _rates in PER_MTOK.items():
    _in, _out = _rates["input"], _rates["output"]
    _r = rec["price"].get(_m, {})
    assert (_number(_r.get("in")) and _number(_r.get("out"))
            and math.isclose(_r["in"], _in / 1_000_000, rel_tol=1e-9)
            and math.isclose(_r["out"], _out / 1_000_000, rel_tol=1e-9)), (
        f"PRICE[{_m!r}] is USD per token ({_in:g} / 1_000_000 in, {_out:g} / 1_000_000 out), "
        f"as in Lab 3; got {_r!r}")
### END HIDDEN TESTS

# %% id="streamed_output_recorded" kind="tests" points=3
import time as _time

from anthropic.types import Message

from course.worlds.token_accounting import answer, ticket_api

api = ticket_api()
ledger = Ledger()
streamed = accounted_stream("answer", "claude-opus-5", ledger=ledger)(answer)
final = streamed(api.client(), "key stopped working", "notes")
assert len(ledger.rows) == 1 and ledger.rows[0]["out"] == 1_200, (
    f"message_start carries output_tokens=1; record the FINAL message's usage (1,200): "
    f"{[r['out'] for r in ledger.rows]}")
row = ledger.rows[0]
got = {k: row.get(k) for k in ("label", "model", "in", "cache_read")}
assert got == {"label": "answer", "model": "claude-opus-5", "in": 900, "cache_read": 6_100}, (
    f"the streamed row keeps label, model and the input side (900 in, 6,100 read), got {got!r}")
assert isinstance(final, Message), (
    f"accounted_stream returns the final Message (stream.get_final_message()), "
    f"got {type(final).__name__}: {final!r}")


def slow_answer(client, goal, notes):
    _time.sleep(0.02)   # 20 ms of wall-clock time inside the site
    return answer(client, goal, notes)


timed = Ledger()
accounted_stream("answer", "claude-opus-5", ledger=timed)(slow_answer)(
    api.client(), "goal", "notes")
ms = timed.rows[0]["ms"] if timed.rows else None
assert isinstance(ms, float) and 15 <= ms < 5_000, (
    f"ms is elapsed milliseconds (perf_counter seconds x 1,000): a 20 ms site, got {ms!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.token_accounting import answer as _answer
from course.worlds.token_accounting import ticket_api as _ticket_api

h = hidden_inputs(label=("answer", "reply", "final", "customer_reply"),
                  model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  goal=("goal", "key rejected after rotation", "refund ORD-7731", "help"),
                  notes=("notes", "plan Team", "", "summary: old key valid 24 h"),
                  sleep_ms=(30, 40, 50, 60))
_api = _ticket_api()
_l = Ledger()
_final = accounted_stream(h.label, h.model, ledger=_l)(_answer)(_api.client(), h.goal, h.notes)

def _slow_site(client, goal, notes):
    import time as _t
    _t.sleep(h.sleep_ms / 1000)
    return _answer(client, goal, notes)


_timed = Ledger()
accounted_stream("slow", "claude-opus-5", ledger=_timed)(_slow_site)(
    _api.client(), h.goal, h.notes)
rec = record(visible=ledger.rows, rows=_l.rows, final=_final,
             final_type=[f"{c.__module__}.{c.__qualname__}" for c in type(_final).__mro__],
             requests=_api.requests, timed=_timed.rows)
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs

h = hidden_inputs(label=("answer", "reply", "final", "customer_reply"),
                  model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  goal=("goal", "key rejected after rotation", "refund ORD-7731", "help"),
                  notes=("notes", "plan Team", "", "summary: old key valid 24 h"),
                  sleep_ms=(30, 40, 50, 60))
_outs = [r.get("out") for r in rec["visible"]]
assert _outs == [1_200], (
    f"message_start carries output_tokens=1; record the FINAL message's usage (1,200): {_outs}")
_final = rec["final"]
_said = "".join(str(_b.get("text")) for _b in _final.get("content") or []
                if _b.get("type") == "text")   # a reply may open with a thinking block
assert "anthropic.types.message.Message" in rec["final_type"] and "new key" in _said, (
    f"accounted_stream returns the final, assembled Message, got {rec['final_type'][0]}")
assert len(rec["rows"]) == 1, f"one streamed call is one row; got {len(rec['rows'])}"
_r = rec["rows"][0]
_got = (_r.get("in"), _r.get("cache_read"), _r.get("out"))
assert _got == (900, 6_100, 1_200), f"streamed row: 900 in, 6,100 read, 1,200 out; got {_got}"
_sent = log_of(rec["requests"])
assert _sent and _sent[0].get("stream") is True, (
    "the call must go out streamed (messages.stream)")
assert isinstance(_r.get("ms"), float) and _r["ms"] >= 0, (
    f"ms is elapsed milliseconds, got {_r.get('ms')!r}")
assert (_r.get("label"), _r.get("model")) == (h.label, h.model), (
    f"the streamed row keeps the decorator's label and model ({h.label!r}, {h.model!r}), got "
    f"{(_r.get('label'), _r.get('model'))!r}")
_timed = [r.get("ms") for r in rec["timed"]]
assert (len(_timed) == 1 and isinstance(_timed[0], float)
        and h.sleep_ms - 5 <= _timed[0] < 5_000), (
    f"ms is elapsed milliseconds around the call: a {h.sleep_ms} ms site, got {_timed!r}")
### END HIDDEN TESTS

# %% id="retries_each_charged" kind="tests" points=2
import time as _wall

from course.worlds.token_accounting import GOAL, summarize, ticket_api

api = ticket_api()
ledger = Ledger()
plan_reply = instrument(ledger)["plan"](api.client(), GOAL)
assert len(ledger.rows) == len(api.requests), (
    f"each attempt is a billed call: {len(api.requests)} requests, {len(ledger.rows)} rows; "
    "put the decorator INSIDE the retry")
got = [(r.get("label"), r.get("model"), r.get("out")) for r in ledger.rows]
assert got == [("plan", "claude-opus-5", 512), ("plan", "claude-opus-5", 700)], (
    f"plan rows: the cut-off attempt (512 out) then the retry (700 out), got {got!r}")
assert plan_reply.stop_reason == "end_turn", (
    f"plan returns the attempt that was not cut off, got stop_reason {plan_reply.stop_reason!r}")
sent = []


def site(client, tool_output):
    _wall.sleep(0.02)   # 20 ms of wall-clock time inside the site
    sent.append(summarize(client, tool_output))
    return sent[-1]


direct = Ledger()
site_client = ticket_api().client()
back = accounted("site", "claude-sonnet-5", ledger=direct)(site)(site_client, "a tool output")
assert back is sent[0], f"accounted returns the site's message unchanged, got {back!r}"
ms = direct.rows[0]["ms"] if len(direct.rows) == 1 else None
assert isinstance(ms, float) and 15 <= ms < 5_000, (
    f"accounted records one row with elapsed milliseconds (a 20 ms site), got rows "
    f"{direct.rows!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.token_accounting import GOAL as _GOAL
from course.worlds.token_accounting import plan as _plan
from course.worlds.token_accounting import ticket_api as _ticket_api

h = hidden_inputs(label=("direct", "site", "plan_site", "planner"),
                  model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  rooms=((2_048, None), (None, 2_048), (1_024, None, 600),
                         (None, 4_096, 4_096), (700, None), (None, 300, 8_192)),
                  sleep_ms=(30, 40, 50))
_api = _ticket_api()
_l = Ledger()
_reply = instrument(_l)["plan"](_api.client(), _GOAL)
_sent = []


def _site(client, goal, max_tokens=512):
    import time as _t
    _t.sleep(h.sleep_ms / 1000)
    _sent.append(_plan(client, goal, max_tokens=max_tokens))
    return _sent[-1]


_direct = Ledger()
_wrapped = accounted(h.label, h.model, ledger=_direct)(_site)
_site_api = _ticket_api()
_back = [_wrapped(_site_api.client(), "g") if _room is None else
         _wrapped(_site_api.client(), "g", max_tokens=_room) for _room in h.rooms]
rec = record(visible_requests=api.requests, visible_rows=len(ledger.rows), reply=_reply,
             rows=_l.rows, requests=_api.requests, by=_l.by_label(), direct=_direct.rows,
             same=[_b is _s for _b, _s in zip(_back, _sent, strict=True)])
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs

h = hidden_inputs(label=("direct", "site", "plan_site", "planner"),
                  model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  rooms=((2_048, None), (None, 2_048), (1_024, None, 600),
                         (None, 4_096, 4_096), (700, None), (None, 300, 8_192)),
                  sleep_ms=(30, 40, 50))
_requests, _rows = len(log_of(rec["visible_requests"])), rec["visible_rows"]
assert _rows == _requests, (
    f"each attempt is a billed call: {_requests} requests, {_rows} rows; "
    "put the decorator INSIDE the retry")
_made = len(log_of(rec["requests"]))
assert len(rec["rows"]) == _made, (
    f"each attempt is a billed call: {_made} requests, {len(rec['rows'])} rows")
assert rec["reply"]["stop_reason"] == "end_turn", (
    "plan must return the attempt that was not cut off")
_outs = [r.get("out") for r in rec["rows"]]
assert _outs == [512, 700], (
    f"the truncated attempt (512 out) and the retry (700 out) are both rows: {_outs}")
_first = rec["rows"][0]
assert _first.get("cache_write") == 6_100 and _first.get("usd_write", 0) > 0, (
    "the cut-off attempt wrote 6,100 tokens to the cache; that write is billed and must be a row")
assert rec["by"].get("plan", {}).get("calls") == 2, (
    f"both attempts count as plan calls, got by_label {rec['by']!r}")
assert rec["same"] == [True] * len(h.rooms), (
    f"accounted returns each message unchanged, got {rec['same']!r}")
# the plan fake stops at max_tokens (out = the room) below 1,024 tokens, else writes 700
_outs = [700 if (_room or 512) >= 1_024 else (_room or 512) for _room in h.rooms]
_direct = [(r.get("label"), r.get("out"), r.get("ms")) for r in rec["direct"]]
assert [d[:2] for d in _direct] == [(h.label, _o) for _o in _outs], (
    f"accounted records once per call, in order, under its label {h.label!r}: calls with "
    f"max_tokens {[_room or 512 for _room in h.rooms]} give outs {_outs}; got {_direct!r}")
assert all(isinstance(d[2], float) and h.sleep_ms - 5 <= d[2] < 5_000 for d in _direct), (
    f"ms is elapsed milliseconds around the call: {len(h.rooms)} calls of {h.sleep_ms} ms, "
    f"got {_direct!r}")
### END HIDDEN TESTS

# %% id="every_call_site_recorded" kind="tests" points=2
from course.worlds.token_accounting import run_ticket, ticket_api

api = ticket_api()
ledger = Ledger()
run_ticket(instrument(ledger), client=api.client())
labels = {label: agg["calls"] for label, agg in ledger.by_label().items()}
assert labels.get("summarize") == 2, (
    f"summarize runs inside a tool, twice per ticket; undecorated, the books read ~23% low: "
    f"{labels}")
assert labels == {"plan": 2, "summarize": 2, "answer": 1}, (
    f"instrument labels its sites by key: plan twice (retried), summarize twice, answer "
    f"once, got {labels!r}")
models = {(r.get("label"), r.get("model")) for r in ledger.rows}
assert models == {("plan", "claude-opus-5"), ("summarize", "claude-sonnet-5"),
                  ("answer", "claude-opus-5")}, (
    f"instrument's models: plan and answer on claude-opus-5, summarize on claude-sonnet-5, "
    f"got {sorted(models)!r}")
assert len(ledger.rows) == len(api.requests), (
    f"one row per API request: {len(api.requests)} requests, {len(ledger.rows)} rows")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.token_accounting import run_ticket as _run_ticket
from course.worlds.token_accounting import ticket_api as _ticket_api

h = hidden_inputs(tickets=(2, 3, 4))
_api = _ticket_api()
_l = Ledger()
_run_ticket(instrument(_l), client=_api.client())
_twice = Ledger()
_sites = instrument(_twice)
for _ in range(h.tickets):
    _run_ticket(_sites, client=_api.client())
rec = record(visible=labels, by=_l.by_label(), rows=_l.rows,
             twice={k: v.get("calls") for k, v in _twice.by_label().items()})
### JUDGE
import math

from course.observe import hidden_inputs

h = hidden_inputs(tickets=(2, 3, 4))
_labels = rec["visible"]
assert _labels.get("summarize") == 2, (
    f"summarize runs inside a tool, twice per ticket; undecorated, the books read ~23% low: "
    f"{_labels}")
_by = rec["by"]
assert set(_by) == {"plan", "summarize", "answer"}, f"three labelled call sites, got {set(_by)}"
assert _by["answer"]["calls"] == 1 and _by["summarize"]["calls"] == 2, (
    f"answer once, summarize twice: {({k: v['calls'] for k, v in _by.items()})}")
_usd = _by["summarize"]["usd"]
assert math.isclose(_usd, 2 * (7_000 * 2e-6 + 400 * 10e-6), abs_tol=1e-9), (
    f"summarize is priced at claude-sonnet-5 ($2/$10 per MTok): $0.0360, got {_usd!r}")
assert {r.get("model") for r in rec["rows"] if r.get("label") == "answer"} == {"claude-opus-5"}, (
    "answer is recorded at claude-opus-5")
_n = h.tickets
assert rec["twice"] == {"plan": 2 * _n, "summarize": 2 * _n, "answer": _n}, (
    f"{_n} tickets through one instrument(ledger): every call of every site is a row "
    f"(plan {2 * _n}, summarize {2 * _n}, answer {_n}), got {rec['twice']!r}")
### END HIDDEN TESTS

# %% id="shares_and_hit_rate" kind="tests" points=3
from course.worlds.token_accounting import sdk_usage, trace_replies

ledger = Ledger()
for reply in trace_replies():
    ledger.record("agent", reply.model, reply.usage, 0.0)
report = ledger.where_the_money_went()
assert report["cache_hit_rate"] == 0.765 and report["share_cache_write"] == 0.589, (
    f"hit rate 30,800/40,260 = 0.765 and writes 0.589 of $0.0997; got {report}")
want = {"total_usd": 0.0997, "share_output": 0.253, "share_uncached_input": 0.003,
        "share_cache_write": 0.589, "share_cache_read": 0.154, "cache_hit_rate": 0.765}
assert report == want, (
    f"where_the_money_went: total_usd to 4 places, each term's share of the total and the hit "
    f"rate to 3; want {want!r}, got {report!r}")
hit = ledger.cache_hit_rate()
assert abs(hit - 30_800 / 40_260) < 1e-12, (
    f"cache_hit_rate() is not rounded: 30,800 / 40,260, got {hit!r}")
mixed = Ledger()
mixed.record("a", "claude-opus-5", sdk_usage(1_000, 100), 2.5)
mixed.record("b", "claude-sonnet-5", sdk_usage(0, 0, 2_000, 0), 4.0)
mixed.record("a", "claude-opus-5", sdk_usage(0, 0, 0, 3_000), 1.5)
by = mixed.by_label()
assert (set(by) == {"a", "b"} and by["a"]["calls"] == 2 and by["b"]["calls"] == 1
        and abs(by["a"]["usd"] - 0.009) < 1e-12 and abs(by["b"]["usd"] - 0.005) < 1e-12
        and abs(by["a"]["ms"] - 4.0) < 1e-12 and abs(by["b"]["ms"] - 4.0) < 1e-12), (
    f"by_label sums each label's rows: a 2 calls $0.009 4.0 ms, b 1 call $0.005 4.0 ms, "
    f"got {by!r}")
empty = Ledger()
got = {"total": empty.total(), "hit": empty.cache_hit_rate(), "by": empty.by_label(),
       "where": empty.where_the_money_went()}
assert (got["total"] == 0.0 and got["hit"] == 0.0 and got["by"] == {}
        and got["where"] == dict.fromkeys(want, 0.0)), (
    f"an empty ledger: total 0.0, hit rate 0.0, by_label {{}}, 0.0 everywhere, got {got!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.token_accounting import sdk_usage as _usage
from course.worlds.token_accounting import trace_replies as _trace_replies

h = hidden_inputs(
    label=("agent", "turn", "loop", "triage"), ms=(1.0, 2.0, 3.0, 4.0, 7.0),
    read=(900, 1_800, 300, 6_100), written=(1_000, 500, 2_000), uncached=(100, 400, 50),
    two_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    # (a: model, in, out), (b: model, cache read), (a: model, cache write); haiku never bills
    # output here (a mutant of its output price belongs to another cell), ms whole (ms_rounded)
    three=(("claude-opus-5", 100, 900, "claude-sonnet-5", 5_000, "claude-haiku-4-5", 400),
           ("claude-sonnet-5", 300, 1_200, "claude-opus-5", 8_000, "claude-haiku-4-5", 2_000),
           ("claude-opus-5", 2_130, 700, "claude-haiku-4-5", 12_000, "claude-sonnet-5", 900),
           ("claude-opus-5", 1_030, 440, "claude-haiku-4-5", 20_000, "claude-opus-5", 600),
           ("claude-sonnet-5", 500, 2_500, "claude-sonnet-5", 9_000, "claude-opus-5", 1_100)))
_l = Ledger()
for _reply in _trace_replies():
    _l.record(h.label, _reply.model, _reply.usage, h.ms)
_empty = Ledger()
_two = Ledger()
_two.record("a", h.two_model, _usage(h.uncached, 0, 0, h.read), 0.0)
_two.record("b", h.two_model, _usage(0, 0, h.written, 0), 0.0)
_m1, _in1, _out1, _m2, _read2, _m3, _write3 = h.three
_three = Ledger()
_three.record("a", _m1, _usage(_in1, _out1), 0.0)
_three.record("b", _m2, _usage(0, 0, 0, _read2), 0.0)
_three.record("a", _m3, _usage(0, 0, _write3, 0), 0.0)
rec = record(visible=report, where=_l.where_the_money_went(), hit=_l.cache_hit_rate(),
             by=_l.by_label(), total=_l.total(),
             empty={"hit": outcome(_empty.cache_hit_rate), "total": outcome(_empty.total),
                    "by": outcome(_empty.by_label),
                    "where": outcome(_empty.where_the_money_went)},
             two=_two.cache_hit_rate(), three_where=_three.where_the_money_went(),
             three_by=_three.by_label())
### JUDGE
import math
from fractions import Fraction

from course.observe import hidden_inputs
from course.prices import PER_MTOK

h = hidden_inputs(
    label=("agent", "turn", "loop", "triage"), ms=(1.0, 2.0, 3.0, 4.0, 7.0),
    read=(900, 1_800, 300, 6_100), written=(1_000, 500, 2_000), uncached=(100, 400, 50),
    two_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
    # (a: model, in, out), (b: model, cache read), (a: model, cache write); haiku never bills
    # output here (a mutant of its output price belongs to another cell), ms whole (ms_rounded)
    three=(("claude-opus-5", 100, 900, "claude-sonnet-5", 5_000, "claude-haiku-4-5", 400),
           ("claude-sonnet-5", 300, 1_200, "claude-opus-5", 8_000, "claude-haiku-4-5", 2_000),
           ("claude-opus-5", 2_130, 700, "claude-haiku-4-5", 12_000, "claude-sonnet-5", 900),
           ("claude-opus-5", 1_030, 440, "claude-haiku-4-5", 20_000, "claude-opus-5", 600),
           ("claude-sonnet-5", 500, 2_500, "claude-sonnet-5", 9_000, "claude-opus-5", 1_100)))
_report = rec["visible"]
assert _report.get("cache_hit_rate") == 0.765 and _report.get("share_cache_write") == 0.589, (
    f"hit rate 30,800/40,260 = 0.765 and writes 0.589 of $0.0997; got {_report}")
_want = {"total_usd": 0.0997, "share_output": 0.253, "share_uncached_input": 0.003,
         "share_cache_write": 0.589, "share_cache_read": 0.154, "cache_hit_rate": 0.765}
_got = rec["where"]
assert _got == _want, (
    f"each share is one term's dollars over the total (3 places): want {_want}; got {_got}")
assert math.isclose(rec["hit"], 30_800 / 40_260, abs_tol=1e-12), (
    f"cache_hit_rate() is not rounded: 30,800 / 40,260; got {rec['hit']!r}")
_agent = rec["by"].get(h.label, {})
assert _agent.get("calls") == 5 and _agent.get("ms") == 5 * h.ms and math.isclose(
    _agent.get("usd", math.nan), rec["total"], abs_tol=1e-12), (
    f"by_label sums calls, usd and ms: five rows labelled {h.label!r} of {h.ms} ms each are 5 "
    f"calls and {5 * h.ms} ms; got {rec['by']}")
_empty = rec["empty"]
_broken = {k: v["raised"] for k, v in _empty.items() if v["raised"] is not None}
assert not _broken, f"an empty ledger must not raise: {_broken}"
assert (_empty["hit"]["value"] == 0.0 and _empty["total"]["value"] == 0
        and _empty["by"]["value"] == {}), (
    "an empty ledger: hit rate 0.0, total 0, by_label {}")
_where = _empty["where"]["value"]
assert isinstance(_where, dict) and all(v == 0.0 for v in _where.values()), (
    f"an empty ledger reports 0.0 everywhere, not a ZeroDivisionError: {_where}")
_seen = h.read + h.written + h.uncached
assert math.isclose(rec["two"], h.read / _seen, abs_tol=1e-12), (
    f"hit rate sums over all rows: {h.read:,} read / ({h.read:,} + {h.written:,} written + "
    f"{h.uncached:,} uncached) = {h.read / _seen:.4f}, got {rec['two']}")
# a: in and out on its model, then a cache write on another; b: one cache read. Every figure
# exact (Fraction), every rounding at least 0.07 of a unit away from a tie.
_m1, _in1, _out1, _m2, _read2, _m3, _write3 = h.three


def _rate(model, column):
    return Fraction(str(PER_MTOK[model][column])) / 1_000_000


_terms = {"share_uncached_input": _in1 * _rate(_m1, "input"),
          "share_output": _out1 * _rate(_m1, "output"),
          "share_cache_write": _write3 * _rate(_m3, "input") * Fraction(5, 4),
          "share_cache_read": _read2 * _rate(_m2, "input") / 10}
_total = sum(_terms.values())
_want = {"total_usd": float(round(_total, 4)),
         **{k: float(round(v / _total, 3)) for k, v in _terms.items()},
         "cache_hit_rate": float(round(Fraction(_read2, _read2 + _write3 + _in1), 3))}
_got = rec["three_where"]
assert _got == _want, (
    f"where_the_money_went on three rows ({_in1:,} in + {_out1:,} out on {_m1}, {_read2:,} "
    f"read on {_m2}, {_write3:,} written on {_m3}): want {_want!r}, got {_got!r}")
_a = float(_terms["share_uncached_input"] + _terms["share_output"] + _terms["share_cache_write"])
_b = float(_terms["share_cache_read"])
_by = rec["three_by"]
assert set(_by) == {"a", "b"} and [_by[k].get("calls") for k in "ab"] == [2, 1] and all(
    math.isclose(_by[k].get("usd", math.nan), _u, abs_tol=1e-12)
    for k, _u in [("a", _a), ("b", _b)]), (
    f"by_label keeps labels apart: a 2 calls ${_a:.6f}, b 1 call ${_b:.6f}, got {_by!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## A month's ledger
#
# Before the written question, the ledger it is about: one team's month on claude-opus-5,
# from its token counts, priced with the rates at the top of this notebook.

# %%
month = world.MONTH_TOKENS
month_usd = {"uncached_input": month["in"] * P_IN[OPUS],
             "cache_write": month["cache_write"] * P_IN[OPUS] * 1.25,
             "cache_read": month["cache_read"] * P_IN[OPUS] * 0.10,
             "output": month["out"] * P_OUT[OPUS]}
month_total = sum(month_usd.values())
month_hit = month["cache_read"] / (month["cache_read"] + month["cache_write"] + month["in"])
print(f"total_usd {month_total:,.0f}")
for term, dollars in month_usd.items():
    print(f"share_{term} {dollars / month_total:.3f}")
print(f"cache_hit_rate {month_hit:.3f}")

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain (3 points, graded by hand)
#
# The team's monthly ledger above, on claude-opus-5, reads \$12,000: share_uncached_input
# 0.850, share_cache_write 0.020, share_cache_read 0.003, share_output 0.127, cache hit rate
# 0.033. One engineer proposes moving everything to claude-sonnet-5; another proposes fixing
# the cache. Estimate what each saves per month, say which term each attacks, and say which
# you would do first and what number in the ledger you would watch to confirm it worked.
# Assume a fixed cache would turn 90% of today's uncached input into cache reads.

# %% [markdown] id="explain_which_term" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** Sonnet costs 2/5 of Opus on every term, including both cache terms,
# because they are multiples of the input rate: the whole bill drops 60%, \$12,000 →
# \$4,800, saving \$7,200. The cache fix attacks one term, uncached input, which is 85% of
# the bill (\$10,200). Moving 90% of it to reads at 0.10× turns \$9,180 into \$918; the reads
# first have to be written once at 1.25×, but on a stable prefix that write is amortised
# over many calls. Saving ≈ \$8,260 a month, more than the model switch, with no change in
# answer quality. Do the cache fix first: a 0.033 hit rate on a bill that is 85% uncached
# input says the prefix is being invalidated (audit it as in Lab 7). Confirm it with
# `cache_hit_rate` rising toward 0.9 and `share_uncached_input` falling; then reconsider
# Sonnet, which would still take 60% off what is left (about \$3,740 → \$1,500).
#
# **Mark scheme (3 points).**
# * 1 — Sonnet cuts all four terms by 60% (≈\$7,200), not "two of the four".
# * 1 — the cache fix targets the 85% uncached-input term and saves ≈\$8,260 (10× cheaper
#   per token moved, some write cost), so it is worth more here.
# * 1 — order and evidence: fix the cache first, watch cache_hit_rate go up and
#   share_uncached_input go down; the two fixes compose.
# ### END SOLUTION

# %% [markdown] kind="instructor"
# **For the lecturer.** Run the raw `stream=True` cell and stop on the two printed counts:
# 1 then 1,200. Live-code `accounted`, then `accounted_stream` and show that reading the
# first event records 1. Finish with `instrument`: write it once with `accounted` outside
# `retry_truncated` and count the rows against `api.requests`.
