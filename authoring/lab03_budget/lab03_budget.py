# %% [markdown]
# # Lab 3 — Token budget manager
#
# **Points:** 13 autograded + 3 written = 16.
#
# **You implement**
#
# ```python
# PRICE                                # {model: {"in": usd_per_token, "out": usd_per_token}}
# CACHE_WRITE, CACHE_READ              # 1.25 and 0.10: multipliers of the model's input rate
# class BudgetExceeded(RuntimeError)   # given: what the hard stop raises
# class Budget:
#     Budget(limit_usd)
#     .limit                           # the limit in dollars, a float
#     .charge(model, usage) -> float   # price one reply, add it to the books, return its cost
#     .state                           # "ok" below 80% of the limit, "warn" from 80%, "stop" from 100%
#     .guard() -> str | None           # "stop": raise BudgetExceeded, on every call
#                                      # "warn": a wrap-up note for the model, the FIRST time only
#                                      # otherwise None
#     .spent                           # dollars so far
#     .by_model                        # {model: dollars}, summing to .spent
# ```
#
# * **A new `Budget`** has `.spent == 0.0`, `.by_model == {}` and state `"ok"`. Each
#   `Budget` keeps its own books.
# * **`charge` returns this call's cost**, not the running total, at full precision (no
#   rounding to cents). It books every reply, even past the limit: the API has already billed
#   it. Only `guard` stops the run.
# * **The wrap-up note** is a sentence that mentions the budget. `guard` sends it once: the
#   first call that finds the state at `"warn"`. Earlier calls in `"ok"` return `None` and
#   do not use it up. Once the state is `"stop"`, `guard` raises, whether or not the note
#   went out.
# * **Boundaries, exactly.** Money in floats is not exact: 800,000 tokens at \$1/MTok is
#   `800_000 * (1 / 1_000_000)`, which Python computes as `0.7999999999999999`. So compare
#   the *share* of the limit rounded to 9 decimals: `share = round(spent / limit, 9)`. The
#   state is `"stop"` when `share >= 1`, `"warn"` when `share >= 0.8`, else `"ok"`. At exactly
#   80% the state is `"warn"`; at exactly the limit it is `"stop"`.
# * **An unknown model** (not in `PRICE`) makes `charge` raise `KeyError` and book nothing:
#   `.spent` and `.by_model` stay as they were. Billing it at \$0 would hide the spend.
#
# * **In:** after every model call, the model's name and the reply's `usage`: a real
#   `anthropic.types.Usage` with `input_tokens`, `output_tokens`,
#   `cache_creation_input_tokens` and `cache_read_input_tokens`. The two cache fields
#   can be `None`.
# * **Out:** a running total in dollars, and two signals. At 80% of the limit the model gets
#   a wrap-up note it can read. At 100% it gets a hard stop it cannot argue with.
#
# **Prices** per million tokens (MTok), input/output: claude-opus-5 \$5/\$25,
# claude-sonnet-5 \$2/\$10, claude-haiku-4-5 \$1/\$5. A token **written** to the prompt cache
# bills at **1.25×** the model's input rate. A token **read** back from it bills at **0.10×**.
# Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) and each
# model's page, read 2026-12-02 (claude-sonnet-5 was priced here at \$3/\$15 before; its
# page lists \$2/\$10). The API bills a write made with `"ttl": "1h"` at 2×, but Lab 3's runs
# write only 5-minute entries, so `charge` prices **every** write at 1.25×, whatever
# `usage.cache_creation` says about its time to live.
#
# Everything runs offline: replies come from the real SDK talking to a fake API.

# %%
import matplotlib.pyplot as plt

from course.worlds import budget as world

OPUS = "claude-opus-5"
print("task:", world.GOAL)
print(f"P = {world.PREFIX_TOKENS:,} prefix tokens, a = {world.TURN_TOKENS:,} tokens of history "
      f"per turn, {world.OUTPUT_TOKENS} output tokens per reply")

# %% [markdown]
# ## Why a budget exists
#
# **The model cannot see its own spend.** The forward pass has no token counter. The server
# computes `usage` after the reply and hands it to *you*, and the model never sees it. So a
# prompt saying "be economical" asks the model to estimate a number it cannot see. Only
# the harness can keep the books.
#
# **Spend is not linear in turns.** The server keeps nothing between calls. So call *k*
# resends the prefix *P* (system prompt and tools) plus *k* turns of history of *a* tokens
# each. Over *n* turns:
#
# $$\text{input tokens}(n) \;=\; \sum_{k=1}^{n} (P + a\,k) \;=\; nP + a\,\frac{n(n+1)}{2}$$
#
# A common shortcut writes the second term as $a\,n^2/2$. That is the large-*n*
# approximation, and it drops $a\,n/2$. Both versions are computed below.
#
# An up-front budget ("cost per turn × expected turns") estimates only the linear term.
# So the check has to be a running ledger, updated after every call.
#
# ## The bug it prevents
#
# ### 1. Mispriced cache terms
#
# Here is a worked call on claude-opus-5, against a \$1.00 limit. It has 130,000
# uncached input tokens, 1,000 output, 20,000 written to the cache and 40,000 read from it.
# Priced term by term:

# %%
PER_MTOK = {"input": 5.00, "output": 25.00}    # claude-opus-5, USD per million tokens
call = world.WORKED_CALL
terms = [("uncached input", call["input_tokens"], 1.00, PER_MTOK["input"]),
         ("output", call["output_tokens"], 1.00, PER_MTOK["output"]),
         ("cache write", call["cache_creation_input_tokens"], 1.25, PER_MTOK["input"]),
         ("cache read", call["cache_read_input_tokens"], 0.10, PER_MTOK["input"])]
usd = {}
for name, n, times, rate in terms:
    usd[name] = n * times * rate / 1e6
    print(f"{name:>15}: {n:>7,} tok x {times:.2f} x ${rate:.2f}/MTok = ${usd[name]:.3f}")
right = sum(usd.values())
print(f"{'total':>15}: ${right:.2f} of the $1.00 limit")


def verdict(dollars, limit=1.00):
    share = round(dollars / limit, 9)
    return "stop: the hard stop trips" if share >= 1 else (
        "warn" if share >= 0.8 else "ok: no warning is sent")


reads_at_full = right + call["cache_read_input_tokens"] * PER_MTOK["input"] * (1 - 0.10) / 1e6
writes_at_1x = right - call["cache_creation_input_tokens"] * PER_MTOK["input"] * 0.25 / 1e6
print()
for label, dollars in [("priced right", right), ("cache reads at the full rate", reads_at_full),
                       ("cache writes at 1x", writes_at_1x)]:
    print(f"{label:>28}: ${dollars:.3f} -> {verdict(dollars)}")

# %% [markdown]
# The 40,000 cached tokens cost \$0.02 read back, not the \$0.20 they would cost uncached.
# Bill them at the full rate and this one call reports \$1.00. The hard stop then kills a
# run that was well inside its budget, and your dashboard says caching saved nothing. Bill
# the cache writes at 1× and the call reports \$0.795. That is just under 80%, so the
# wrap-up note never goes out.
#
# The multipliers follow from the mechanism; nobody tuned them. A cache write pays for the
# normal prefill plus storing the resulting key and value (K, V) vectors, so it costs a little
# more than 1×. A cache read skips the prefill arithmetic entirely. It still pays to move the
# stored vectors back into the accelerator's memory, so it costs much less than 1×, but not 0.
#
# ### 2. The long tail that a mean hides
#
# Here are the cost-per-task rows of one batch of invoice audits, priced at claude-opus-5:

# %%
print("task  turns   input_tok  output_tok     usd")
tail = {}
for task, turns, tok_in, tok_out in world.TAIL_ROWS:
    tail[task] = (tok_in * PER_MTOK["input"] + tok_out * PER_MTOK["output"]) / 1e6
    print(f"{task:4} {turns:>6} {tok_in:>11,} {tok_out:>11,} {tail[task]:>7.2f}")
costs = sorted(tail.values())
print(f"\na93 costs {tail['a93'] / tail['a91']:.0f}x a91.  Mean ${sum(costs) / len(costs):.2f}, "
      f"median ${costs[len(costs) // 2]:.2f}")

# %% [markdown]
# Task a93 had no guard. It ran 40 turns until the step cap, resending a history that kept
# growing: 1.9 million input tokens against about 40,000 for its neighbours. A mean over
# these rows reads \$3.47 and describes no task at all. Report the median and the p95 (the
# cost 95% of runs stay under), or this row disappears into an average.
#
# ### 3. Spend grows with n(n+1)/2
#
# The world's fake model bills each call for exactly what it resends: call *k* costs
# `P + a·k` input tokens. It does no caching here. Run the same audit at four lengths and
# compare the tokens with both formulas:

# %%
P, a = world.PREFIX_TOKENS, world.TURN_TOKENS
measured = {}
print(" n   measured input  shortcut nP + an^2/2  exact nP + an(n+1)/2    gap   a*n/2")
for n in world.GROWTH_TURNS:
    meter = world.TokenMeter()
    world.run_turns(meter, n)
    measured[n] = meter.input_tokens
    shortcut = n * P + a * n**2 / 2
    exact_formula = n * P + a * n * (n + 1) / 2
    print(f"{n:>2} {measured[n]:>16,} {shortcut:>20,.0f} {exact_formula:>22,.0f} "
          f"{measured[n] - shortcut:>6,.0f} {a * n / 2:>7,.0f}")

print()
for lo, hi in [(10, 20), (10, 40)]:
    shortcut_ratio = (hi * P + a * hi**2 / 2) / (lo * P + a * lo**2 / 2)
    print(f"{hi} turns vs {lo}: {measured[hi] / measured[lo]:.2f}x measured, "
          f"{shortcut_ratio:.2f}x by the shortcut, {(hi / lo) ** 2:.0f}x if only n^2 counted")

# %% [markdown]
# The shortcut gives 135,000 and 420,000 tokens at 10 and 20 turns. The fake measures
# 142,500 and 435,000, and the exact sum agrees with it. The gap is $a\,n/2$ (7,500 and
# 15,000): call *k* carries *k* turns of history, not *k* − ½. So the shortcut's "3.1× the
# cost for 2× the turns" is really 3.05×.
#
# It is often said that a run is "roughly 4× worse at turn 20 and 16× worse at turn 40",
# from the $n^2$ term alone. Those are limits: they need $a\,n^2/2 \gg nP$, that is $n \gg 2P/a = 8$. With these *P* and *a*,
# the measured factors from turn 10 are 3.05× and 10.3×. The conclusion stands either way:
# doubling the turns more than doubles the bill.
#
# ### 4. Three more ways a ledger lies
#
# * **The warning on every turn.** If the ledger does not record that the note went out, it
#   goes out again on every call above 80%. Each copy stays in the history and is resent on every later
#   call, so the repeats feed the growth term you are trying to stop.
# * **A stop that does not stop.** If the hard stop *returns* a message, that message is one
#   more note the model may ignore. If it raises and nothing catches it, the caller gets a
#   stack trace where it was promised a report. The fix has two parts. `guard()` raises
#   `BudgetExceeded`, and the loop catches it and returns a partial report: what was done,
#   what is missing, and no success flag.
# * **`by_model` never updated.** With a router picking between models, you can no longer
#   say which model the money went to.
#
# The runs in this lab come from `world.run_audit(budget, stop=BudgetExceeded, n_invoices=...)`,
# a scenario harness that plays a scripted auditing model call by call (it is not an agent
# loop: that one is yours, from Lab 1). After every model call it runs
# `budget.charge(model, usage)`. Before running any tool it asks `budget.guard()`. A note
# that comes back rides along once, with that turn's tool outputs. A `BudgetExceeded` ends
# the run with a partial report.
#
# ## Tier 1 — pseudocode
#
# ```text
# after every model call:
#     decide what this reply cost          (which token counts, at which rate each?)
#     decide which side of each line you are on   (how to compare money that is not exact)
#     past the limit:  stop, and let the loop report what is done and what is missing
#     past 80%:        tell the model to wrap up, and decide how to remember you did
# ```
#
# **What a framework changes.** In LangGraph, `spent` becomes a field of the graph state with
# an additive reducer: each node contributes its cost and the framework sums them. The stop
# is a conditional edge into a `halt` node that writes the partial report. It is a *node*,
# not an exception, so the caller always gets a report. The pricing is unchanged.
#
# ## Implement
#
# Prices go in `PRICE` in **dollars per token**, under the keys `"in"` and `"out"`.
# `CACHE_WRITE` and `CACHE_READ` are the multipliers themselves (1.25 and 0.10), not the
# surcharge or the discount. `charge` sums four terms, and a cache field of `None` counts as
# zero. `state` compares the rounded share of the limit, as specified at
# the top. `guard` is what the loop calls every turn.

# %% id="price" kind="solution"
# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
### BEGIN SOLUTION
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25  # a normal prefill, plus storing the K and V vectors
CACHE_READ = 0.10   # no prefill; only moving the stored K and V back
### END SOLUTION

# %% id="budget" kind="solution"
class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        ### BEGIN SOLUTION
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False
        ### END SOLUTION

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        ### BEGIN SOLUTION
        rate = PRICE[model]  # an unknown model fails loudly instead of billing $0
        priced = [
            (usage.input_tokens, rate["in"]),
            (usage.output_tokens, rate["out"]),
            (usage.cache_creation_input_tokens, rate["in"] * CACHE_WRITE),
            (usage.cache_read_input_tokens, rate["in"] * CACHE_READ),
        ]
        cost = sum((count or 0) * per_token for count, per_token in priced)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost
        ### END SOLUTION

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        ### BEGIN SOLUTION
        share = round(self.spent / self.limit, 9)  # 0.7999999999999999 is 80%, not 79.99...%
        if share >= 1:
            return "stop"
        return "warn" if share >= 0.8 else "ok"
        ### END SOLUTION

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        ### BEGIN SOLUTION
        level = self.state
        if level == "stop":
            raise BudgetExceeded(f"${self.spent:.2f} spent of a ${self.limit:.2f} limit")
        if level == "warn" and not self.warned:
            self.warned = True
            return (f"Budget note: ${self.spent:.2f} of your ${self.limit:.2f} budget is spent. "
                    "Finish the work in progress and start nothing new. If you cannot "
                    "finish, say exactly what remains.")
        return None
        ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# These checks give you a quick signal. Press **Validate** too: each graded cell has a
# visible check for the most common mistake of its property. They are **not** the grade:
# hidden tests in the same cells check more, including every price term alone, `None` cache
# fields, both boundaries, the hard stop inside the loop, the routed run and the growth
# curve.

# %%
b = Budget(1.00)
cost = b.charge(OPUS, world.sdk_usage(**world.WORKED_CALL))
print(f"worked call: ${cost:.4f}, state {b.state!r}   (expect $0.8200, 'warn')")
print("guard() the first time: ", b.guard())
print("guard() the second time:", b.guard(), "  (expect None)")
print("by_model:", b.by_model)

# %% [markdown]
# ### The hard stop, inside the loop
#
# Audit 12 invoices on a \$1.00 budget. The fake model ignores wrap-up notes, as a real one
# sometimes does, so the hard stop has to end the run. Look at the report: no exception, no
# success flag, and an explicit list of what is missing.

# %%
b = Budget(1.00)
report = world.run_audit(b, stop=BudgetExceeded, n_invoices=12)
for key in ("ok", "partial", "reason", "missing", "usd", "calls"):
    print(f"{key:>8}: {report[key]}")
print(f"    done: {len(report['done'])} invoices, the last: {report['done'][-1]!r}")
print("notes sent (call, text):", report["notes"])

# %% [markdown]
# The stop fires after call 12, at \$1.065. The ledger only learns a call's price once the
# call has been made, so a run overshoots its limit by at most one call.
#
# ### The curve
#
# Now the same task at 5, 10, 20 and 40 turns, priced by your `Budget`. It runs twice: once
# uncached, and once with the history read back from the prompt cache.

# %%
spend, spend_cached = [], []
for n in world.GROWTH_TURNS:
    plain, cached = Budget(100.0), Budget(100.0)
    world.run_turns(plain, n, stop=BudgetExceeded)
    world.run_turns(cached, n, stop=BudgetExceeded, cached=True)
    spend.append(plain.spent)
    spend_cached.append(cached.spent)
    print(f"{n:>2} turns: ${plain.spent:.4f} uncached, ${cached.spent:.4f} cached")
print(f"doubling 20 -> 40 turns: {spend[3] / spend[2]:.2f}x uncached, "
      f"{spend_cached[3] / spend_cached[2]:.2f}x cached")
world.plot_spend(world.GROWTH_TURNS, spend, spend_cached)
plt.show()

# %% [markdown]
# The uncached line curves upward. At this scale the cached line *looks* straight, but the
# printed ratio says otherwise: it still more than doubles when the turns double. A common
# warning says a straight spend line means "your caching is working extremely well, or you
# are not measuring correctly". Only the second half holds. Caching lowers the curve,
# because history read back bills at 0.10×, but reads still grow with the history. A line
# that is truly straight means your ledger is not measuring.
#
# ## Graded tests
#
# One cell per property. Each builds its own scenario from `course.worlds.budget`, so it
# depends only on `PRICE`, `BudgetExceeded` and `Budget`.

# %% id="four_terms_to_the_cent" kind="tests" points=3
import math

from course.worlds.budget import WORKED_CALL, sdk_usage


def costs(got, want):
    """True when charge() returned a number within a billionth of a dollar of want."""
    return isinstance(got, int | float) and math.isclose(got, want, rel_tol=0, abs_tol=1e-9)


for model, (usd_in, usd_out) in {"claude-opus-5": (5, 25), "claude-sonnet-5": (2, 10),
                                 "claude-haiku-4-5": (1, 5)}.items():
    rate = PRICE.get(model)
    assert (isinstance(rate, dict) and costs(rate.get("in"), usd_in / 1e6)
            and costs(rate.get("out"), usd_out / 1e6)), (
        f"PRICE[{model!r}] should be {{'in': {usd_in} / 1_000_000, 'out': {usd_out} / 1_000_000}} "
        f"(dollars per TOKEN, keys 'in' and 'out'), got {rate!r}")
assert costs(CACHE_WRITE, 1.25) and costs(CACHE_READ, 0.10), (
    f"CACHE_WRITE and CACHE_READ should be the multipliers 1.25 and 0.10, got {CACHE_WRITE!r} "
    f"and {CACHE_READ!r} (not the 0.25 surcharge or the 0.90 discount)")
try:
    small_cost = Budget(1.00).charge("claude-opus-5", sdk_usage(1_000, 100))
except TypeError as exc:
    small_cost = f"TypeError: {exc}"
assert costs(small_cost, 0.0075), (
    f"1,000 in + 100 out on opus (both cache fields None) should cost $0.0075, got "
    f"{small_cost!r}: count a None cache field as 0, and do not round to cents")
worked_cost = Budget(1.00).charge("claude-opus-5", sdk_usage(**WORKED_CALL))
assert abs(worked_cost - 0.82) < 0.005, (
    f"worked call priced ${worked_cost:.4f}, not $0.82: cache writes bill 1.25x and cache reads "
    "0.10x the input rate ($1.00 means reads at full price; $0.795 means writes at 1x)")
sonnet_cost = Budget(100.0).charge("claude-sonnet-5", sdk_usage(1_000_000, 1_000_000))
assert abs(sonnet_cost - 12.0) < 1e-6, (
    f"1M input and 1M output tokens on claude-sonnet-5 priced ${sonnet_cost!r}, not $12.00: "
    "its price is $2 in and $10 out per million tokens (the table above)")
hour_cost = Budget(100.0).charge("claude-opus-5", sdk_usage(0, 0, 1_000_000, 0, one_hour=1_000_000))
assert costs(hour_cost, 6.25), (
    f"1M tokens written with a 1-hour TTL on opus: Lab 3 prices every write at 1.25x the input "
    f"rate, $6.25 (not the API's 2x, $10.00); got {hour_cost!r}")
half_cost = Budget(1.00).charge("claude-haiku-4-5", sdk_usage(0, 0, None, 1_000_000))
assert costs(half_cost, 0.10), (
    f"1M cache reads on haiku with cache writes None should cost $0.10, got {half_cost!r}: "
    "a None field counts as 0 on its own; the other cache field is still billed")
haiku_cost = Budget(1.00).charge("claude-haiku-4-5", sdk_usage(10_000, 2_000, 4_000, 8_000))
assert costs(haiku_cost, 0.0258), (
    f"10,000 in, 2,000 out, 4,000 written, 8,000 read on haiku: $0.01 + $0.01 + $0.005 + "
    f"$0.0008 = $0.0258, got {haiku_cost!r}: price every term at the model's own rates")
two = Budget(1.00)
two.charge("claude-opus-5", sdk_usage(**WORKED_CALL))
second_cost = two.charge("claude-opus-5", sdk_usage(1_000, 100))
assert costs(second_cost, 0.0075) and costs(two.spent, 0.8275), (
    f"after $0.82 then $0.0075, charge returned {second_cost!r} and .spent is {two.spent!r}: "
    "return THIS call's cost, and add every call to .spent ($0.8275)")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.budget import sdk_usage as _usage

_models = ("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5")
_tokens = range(100_000, 3_000_001, 100_000)
h = hidden_inputs(in_model=_models, in_tokens=_tokens, out_model=_models, out_tokens=_tokens,
                  write_model=_models, write_tokens=_tokens, read_model=_models,
                  read_tokens=_tokens, hour_model=_models, hour_tokens=_tokens,
                  hour_share=(0.25, 0.5, 0.75, 1.0))


def _alone(model, **counts):
    base = {"input_tokens": 0, "output_tokens": 0}
    return Budget(1_000.0).charge(model, _usage(**{**base, **counts}))


_inputs = [(h.in_model, {"input_tokens": h.in_tokens}),
           (h.out_model, {"output_tokens": h.out_tokens}),
           (h.write_model, {"cache_creation_input_tokens": h.write_tokens}),
           (h.read_model, {"cache_read_input_tokens": h.read_tokens}),
           (h.hour_model, {"cache_creation_input_tokens": h.hour_tokens,
                           "one_hour": int(h.hour_tokens * h.hour_share)})]
_alone_costs = [[_m, _counts, outcome(_alone, _m, **_counts)] for _m, _counts in _inputs]
_none = outcome(_alone, "claude-opus-5", input_tokens=1_000, output_tokens=100)
_b = Budget(1.00)
_first = _b.charge("claude-opus-5", _usage(**WORKED_CALL))
_after_first = {"cost": _first, "spent": _b.spent, "state": _b.state}
_second = _b.charge("claude-haiku-4-5", _usage(10_000, 2_000, 4_000, 8_000))
rec = record(worked=worked_cost, sonnet=sonnet_cost,
             price={_m: PRICE.get(_m) for _m in ("claude-opus-5", "claude-sonnet-5",
                                                 "claude-haiku-4-5")},
             multipliers=[CACHE_WRITE, CACHE_READ],
             alone=_alone_costs, no_cache=_none, first=_after_first, second_cost=_second,
             second_spent=_b.spent)
### JUDGE
import math

from course.observe import hidden_inputs
from course.prices import PER_MTOK

worked_cost = rec["worked"]
assert abs(worked_cost - 0.82) < 0.005, (
    f"worked call priced ${worked_cost:.4f}, not $0.82: cache writes bill 1.25x and cache reads "
    "0.10x the input rate ($1.00 means reads at full price; $0.795 means writes at 1x)")
assert math.isclose(rec["sonnet"], 12.0, abs_tol=1e-9), (
    f"1M in + 1M out on claude-sonnet-5 is $12.00 at $2/$10 per MTok, got {rec['sonnet']}")
for _m, _rates in PER_MTOK.items():
    _pin, _pout = _rates["input"], _rates["output"]
    _p = rec["price"][_m]
    assert (isinstance(_p, dict) and isinstance(_p.get("in"), int | float)
            and isinstance(_p.get("out"), int | float)
            and math.isclose(_p["in"] * 1e6, _pin) and math.isclose(_p["out"] * 1e6, _pout)), (
        f"PRICE[{_m!r}] should be dollars per TOKEN: in {_pin:g}e-6, out {_pout:g}e-6; got {_p}")
_w, _r = rec["multipliers"]
assert math.isclose(_w, 1.25) and math.isclose(_r, 0.10), (
    f"CACHE_WRITE and CACHE_READ should be 1.25 and 0.10, got {_w} and {_r}")
_models = ("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5")
_tokens = range(100_000, 3_000_001, 100_000)
h = hidden_inputs(in_model=_models, in_tokens=_tokens, out_model=_models, out_tokens=_tokens,
                  write_model=_models, write_tokens=_tokens, read_model=_models,
                  read_tokens=_tokens, hour_model=_models, hour_tokens=_tokens,
                  hour_share=(0.25, 0.5, 0.75, 1.0))
_checks = [(h.in_model, h.in_tokens * PER_MTOK[h.in_model]["input"] / 1e6,
            "uncached input at the input rate"),
           (h.out_model, h.out_tokens * PER_MTOK[h.out_model]["output"] / 1e6,
            "output at the output rate"),
           (h.write_model, h.write_tokens * 1.25 * PER_MTOK[h.write_model]["input"] / 1e6,
            "cache writes at 1.25x the input rate"),
           (h.read_model, h.read_tokens * 0.10 * PER_MTOK[h.read_model]["input"] / 1e6,
            "cache reads at 0.10x the input rate, not the full rate"),
           (h.hour_model, h.hour_tokens * 1.25 * PER_MTOK[h.hour_model]["input"] / 1e6,
            "every write at 1.25x the input rate, a 1-hour one too")]
for (_m, _counts, _got), (_model, _want, _why) in zip(rec["alone"], _checks, strict=True):
    assert _m == _model, f"the record names {_m}, not {_model}"
    assert _got["raised"] is None, (
        f"{_counts} on {_m} should cost ${_want:.4f}; charge raised {_got['raised']}")
    assert math.isclose(_got["value"], _want, abs_tol=1e-9), (
        f"{_counts} on {_m} should cost ${_want:.4f} ({_why}); charge returned "
        f"${_got['value']:.4f}")
_none = rec["no_cache"]
assert _none["raised"] is None or _none["raised"]["type"] != "TypeError", (
    "a reply without caching has cache_creation_input_tokens=None and "
    "cache_read_input_tokens=None; count None as 0")
assert _none["raised"] is None, f"1,000 in + 100 out on opus: charge raised {_none['raised']}"
assert math.isclose(_none["value"], 0.0075, abs_tol=1e-9), (
    f"1,000 in + 100 out on opus is $0.0075 (no rounding to cents), got {_none['value']}")
_first = rec["first"]
assert math.isclose(_first["cost"], 0.82, abs_tol=1e-9), (
    f"worked call: .65 + .025 + .125 + .02 = $0.82, got ${_first['cost']:.4f}. Reads at full "
    "rate give $1.00; writes at 1x give $0.795")
assert math.isclose(_first["spent"], 0.82, abs_tol=1e-9), (
    f".spent should be $0.82, got {_first['spent']}")
assert _first["state"] == "warn", (
    f"$0.82 of $1.00 is 82%: state should be 'warn', got {_first['state']!r}")
assert math.isclose(rec["second_cost"], 0.0258, abs_tol=1e-9), (
    f"the second charge should return its own cost, $0.0258, got {rec['second_cost']}")
assert math.isclose(rec["second_spent"], 0.82 + 0.01 + 0.01 + 0.005 + 0.0008, abs_tol=1e-9), (
    f"charges must add up in .spent: expected $0.8458, got ${rec['second_spent']:.4f}")
### END HIDDEN TESTS

# %% id="warning_fires_once" kind="tests" points=2
from course.worlds.budget import sdk_usage

fresh = Budget(2)
assert isinstance(fresh.limit, float) and fresh.limit == 2.0, (
    f"Budget(2).limit should be the float 2.0, got {fresh.limit!r}")
start = (fresh.spent, fresh.state, fresh.guard())
assert start == (0.0, "ok", None), (
    f"a new Budget should have spent 0.0, state 'ok' and guard() None; got {start}")
b = Budget(1.00)
b.charge("claude-haiku-4-5", sdk_usage(800_000, 0))
assert b.state == "warn", (
    f"exactly 80% ({b.spent!r} of $1.00) must be 'warn', got {b.state!r}: money is not exact in "
    "floats, compare round(spent / limit, 9) >= 0.8")
first_note, second_note = b.guard(), b.guard()
assert isinstance(first_note, str) and second_note is None, (
    f"guard() in 'warn' returned {first_note!r} then {second_note!r}: send the wrap-up note ONCE, "
    "then None")
assert "budget" in first_note.lower(), (
    f"the wrap-up note should be a sentence that mentions the budget, got {first_note!r}")
steps = Budget(1.00)
steps.charge("claude-haiku-4-5", sdk_usage(799_000, 0))
seen = [(steps.state, steps.guard())]
steps.charge("claude-haiku-4-5", sdk_usage(51_000, 0))
seen += [(steps.state, steps.guard()), (steps.state, steps.guard())]
assert seen[0] == ("ok", None), (
    f"at $0.799 of $1.00 (79.9%) state and guard() should be ('ok', None), got {seen[0]}: round "
    "the share to 9 decimals (not 2), and return None (not '') below 80%")
assert seen[1][0] == "warn" and isinstance(seen[1][1], str) and seen[2] == ("warn", None), (
    f"guard() at 79.9%, then twice at 85%, gave {[said for _, said in seen]}: the note goes out "
    "on the first call in 'warn' (a call in 'ok' must not use it up), then None")
tenth = Budget(0.10)
tenth.charge("claude-opus-5", sdk_usage(16_000, 0))
assert tenth.state == "warn", (
    f"$0.08 of a $0.10 limit is 80%: state should be 'warn', got {tenth.state!r}; compare the "
    "share spent / limit, not dollars")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.budget import run_audit
from course.worlds.budget import sdk_usage as _usage

h = hidden_inputs(limit=(0.50, 1.00, 2.00, 4.00), ok_pct=range(30, 76, 5),
                  warn_pct=range(82, 92), later_pct=range(93, 99),
                  sonnet_limit=(0.25, 0.50, 1.00, 1.50, 2.00, 2.50),
                  opus_limit=(0.10, 0.20, 0.50, 1.00), fresh_limit=range(2, 10),
                  audit=((16, 1.85), (17, 2.05), (18, 2.25), (19, 2.45), (20, 2.60), (20, 2.70),
                         (21, 2.85), (21, 2.95), (22, 3.05), (22, 3.20), (23, 3.30), (23, 3.45),
                         (24, 3.60), (24, 3.70)))
_per_pct = h.limit * 10_000            # haiku input tokens that cost 1% of the limit
_b = Budget(h.limit)
_b.charge("claude-haiku-4-5", _usage(round(h.ok_pct * _per_pct), 0))
_steps = {"half": {"spent": _b.spent, "state": _b.state, "guard": outcome(_b.guard)}}
_b.charge("claude-haiku-4-5", _usage(round((h.warn_pct - h.ok_pct - 5) * _per_pct),
                                     round(_per_pct)))          # 5% of it in output
_steps["warn"] = {"spent": _b.spent, "state": _b.state, "guard": outcome(_b.guard),
                  "again": outcome(_b.guard)}
_b.charge("claude-haiku-4-5", _usage(round((h.later_pct - h.warn_pct) * _per_pct), 0))
_steps["later"] = {"spent": _b.spent, "state": _b.state, "guard": outcome(_b.guard)}
_edges = []
for _model, _tokens, _limit in (("claude-sonnet-5", round(400_000 * h.sonnet_limit),
                                 h.sonnet_limit),
                                ("claude-opus-5", round(160_000 * h.opus_limit), h.opus_limit)):
    _edge = Budget(_limit)
    _edge.charge(_model, _usage(_tokens, 0))
    _edges.append({"limit": _limit, "spent": _edge.spent, "state": _edge.state})
_new = Budget(h.fresh_limit)
_fresh = {"limit": _new.limit, "limit_type": type(_new.limit).__name__, "spent": _new.spent,
          "state": _new.state, "guard": outcome(_new.guard)}


class _Bills:
    """Keeps what each model call of the audit billed, and never objects."""

    def __init__(self):
        self.bills = []

    def charge(self, model, usage):
        self.bills.append([model, usage])
        return 0.0

    def guard(self):
        return None


_invoices, _audit_limit = h.audit
_bills = _Bills()
run_audit(_bills, stop=BudgetExceeded, n_invoices=_invoices)
rec = record(exact={"spent": b.spent, "state": b.state}, first_note=first_note,
             second_note=second_note, steps=_steps, edges=_edges, fresh=_fresh, seen=seen,
             audit=outcome(run_audit, Budget(_audit_limit), stop=BudgetExceeded,
                           n_invoices=_invoices),
             bills=_bills.bills)
### JUDGE
import math

from course.observe import hidden_inputs
from course.prices import PER_MTOK

h = hidden_inputs(limit=(0.50, 1.00, 2.00, 4.00), ok_pct=range(30, 76, 5),
                  warn_pct=range(82, 92), later_pct=range(93, 99),
                  sonnet_limit=(0.25, 0.50, 1.00, 1.50, 2.00, 2.50),
                  opus_limit=(0.10, 0.20, 0.50, 1.00), fresh_limit=range(2, 10),
                  audit=((16, 1.85), (17, 2.05), (18, 2.25), (19, 2.45), (20, 2.60), (20, 2.70),
                         (21, 2.85), (21, 2.95), (22, 3.05), (22, 3.20), (23, 3.30), (23, 3.45),
                         (24, 3.60), (24, 3.70)))
_exact = rec["exact"]
assert _exact["state"] == "warn", (
    f"exactly 80% ({_exact['spent']!r} of $1.00) must be 'warn', got {_exact['state']!r}: money "
    "is not exact in floats, compare round(spent / limit, 9) >= 0.8")
first_note, second_note = rec["first_note"], rec["second_note"]
assert isinstance(first_note, str) and second_note is None, (
    f"guard() in 'warn' returned {first_note!r} then {second_note!r}: send the wrap-up note "
    "ONCE, then None")
_fresh = rec["fresh"]
assert (_fresh["limit"], _fresh["limit_type"]) == (float(h.fresh_limit), "float"), (
    f"Budget({h.fresh_limit}).limit should be the float {float(h.fresh_limit)}, got "
    f"{_fresh['limit']!r} ({_fresh['limit_type']})")
assert (_fresh["spent"], _fresh["state"]) == (0.0, "ok"), (
    f"a new Budget should read spent 0.0 and state 'ok'; got {_fresh}")
assert _fresh["guard"] == {"value": None, "raised": None}, (
    f"guard() on a new Budget should return None; got {_fresh['guard']}")
_seen = rec["seen"]
assert _seen[0] == ["ok", None] and _seen[1][0] == "warn" and isinstance(_seen[1][1], str), (
    f"79.9% then 85%: expected ('ok', None) then ('warn', <note>), got {_seen[:2]}; a guard() "
    "call in 'ok' must not use up the note")
assert _seen[2] == ["warn", None], f"the note came back a second time: {_seen[2]}"
_half = rec["steps"]["half"]
assert _half["state"] == "ok", (
    f"${h.limit * h.ok_pct / 100:.4f} of ${h.limit:.2f} ({h.ok_pct}%) is below 80%: state "
    f"should be 'ok', got {_half['state']!r}")
assert _half["guard"] == {"value": None, "raised": None}, (
    f"below 80% guard() should return None; got {_half['guard']}")
_warn = rec["steps"]["warn"]
assert _warn["state"] == "warn", (
    f"${h.limit * h.warn_pct / 100:.4f} of ${h.limit:.2f} ({h.warn_pct}%): state should be "
    f"'warn', got {_warn['state']!r}")
_note = _warn["guard"]["value"]
assert isinstance(_note, str) and "budget" in _note.lower(), (
    f"at 80% guard() returns a wrap-up note that mentions the budget; got {_warn['guard']}")
assert _warn["again"] == {"value": None, "raised": None}, (
    "the wrap-up note came back on the second guard() call; send it ONCE (remember that it "
    "was sent), or it is re-injected every turn until the hard stop")
_later = rec["steps"]["later"]
assert _later["state"] == "warn" and _later["guard"] == {"value": None, "raised": None}, (
    f"still in 'warn' at {h.later_pct}% of ${h.limit:.2f}: no second note; got {_later}")
for _edge in rec["edges"]:
    assert _edge["state"] == "warn", (
        f"exactly 80% (${_edge['spent']!r} of ${_edge['limit']}) must be 'warn', got "
        f"{_edge['state']!r}; compare round(spent / limit, 9) >= 0.8")
_invoices, _audit_limit = h.audit
_spent, _note_at = 0.0, []
for _call, (_model, _u) in enumerate(rec["bills"][:-1], 1):      # the last call answers
    _rate = PER_MTOK[_model]
    _spent += (_u["input_tokens"] * _rate["input"] + _u["output_tokens"] * _rate["output"]
               + (_u["cache_creation_input_tokens"] or 0) * _rate["input"] * 1.25
               + (_u["cache_read_input_tokens"] or 0) * _rate["input"] * 0.10) / 1e6
    if round(_spent / _audit_limit, 9) >= 0.8 and not _note_at:
        _note_at = [_call + 1]                   # the note rides along with the next call
_audit = rec["audit"]
assert _audit["raised"] is None, (
    f"the {_invoices}-invoice audit on a ${_audit_limit:.2f} budget crashed: {_audit['raised']}")
_report = _audit["value"]
_sent = _report["notes"]
assert _report["ok"] is True, (
    f"the {_invoices}-invoice audit fits a ${_audit_limit:.2f} budget, but it ended: "
    f"{_report['reason']}")
assert [i for i, _ in _sent] == _note_at, (
    f"the wrap-up note of the {_invoices}-invoice audit on ${_audit_limit:.2f} rode along on "
    f"calls {[i for i, _ in _sent]}; it belongs on call {_note_at} only (the call after the one "
    "that crosses 80%), never repeated on later turns")
### END HIDDEN TESTS

# %% id="hard_stop_partial_report" kind="tests" points=3
from course.worlds.budget import sdk_usage


def attempt(fn, *args):
    """fn(*args), or ("raised", name) if it raised; BudgetExceeded and KeyError by kind."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - which error it was is what this cell checks
        kind = next((k for k in (BudgetExceeded, KeyError) if isinstance(exc, k)), type(exc))
        return ("raised", kind.__name__)


b = Budget(0.10)
b.charge("claude-haiku-4-5", sdk_usage(100_000, 0))
assert b.state == "stop", (
    f"exactly the limit ({b.spent!r} of $0.10) must be 'stop', got {b.state!r}: compare "
    "round(spent / limit, 9) >= 1")
said = [attempt(b.guard), attempt(b.guard)]
assert said == [("raised", "BudgetExceeded")] * 2, (
    f"at the limit guard() gave {said[0]!r}, then {said[1]!r}: it must raise BudgetExceeded on "
    "every call; a hard stop stops the run, it does not hand the model one more note")
run = Budget(1.00)
run.charge("claude-haiku-4-5", sdk_usage(850_000, 0))
run_said = [attempt(run.guard)]
run.charge("claude-haiku-4-5", sdk_usage(150_000, 0))
run_said.append(attempt(run.guard))
assert isinstance(run_said[0], str) and run_said[1] == ("raised", "BudgetExceeded"), (
    f"guard() at 85%, then at 100%, gave {run_said}: a note, then BudgetExceeded; a note "
    "already sent must not silence the stop")
late = attempt(run.charge, "claude-haiku-4-5", sdk_usage(10_000, 0))
assert isinstance(late, float) and abs(run.spent - 1.01) < 1e-9 and run.state == "stop", (
    f"a $0.01 reply charged after the stop returned {late!r} and .spent is {run.spent!r}: "
    "charge still books it ($1.01) and returns its cost; only guard() raises")
books = Budget(1.00)
books.charge("claude-opus-5", sdk_usage(10_000, 0))
before = (books.spent, dict(books.by_model))
unknown = attempt(books.charge, "claude-unlisted", sdk_usage(10, 10))
assert unknown == ("raised", "KeyError"), (
    f"a model missing from PRICE gave {unknown!r}: charge must raise KeyError, never bill $0")
assert (books.spent, books.by_model) == before, (
    f"that KeyError changed the books from {before} to {(books.spent, books.by_model)}: a "
    "refused charge books nothing, so look the price up first")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.budget import run_audit as _run_audit
from course.worlds.budget import sdk_usage as _usage


def _raised(fn, *args, **kwargs):
    try:
        return {"value": fn(*args, **kwargs), "raised": None}
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - what it raised (and its bases) is the observation
        return {"value": None, "raised": [c.__name__ for c in type(exc).__mro__]}


h = hidden_inputs(limit=(0.10, 0.20, 0.50, 1.00), half_pct=range(20, 71, 10),
                  over_pct=range(110, 151, 10), late_pct=range(10, 31, 10),
                  audit_limit=(0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 1.00, 1.10, 1.25,
                               1.40), invoices=range(16, 25),
                  edge_cents=(150, 200, 250, 300), edge_out=range(0, 20_001, 1_000),
                  edge_read=range(100_000, 1_000_001, 100_000),
                  books_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  books_tokens=range(1_000, 50_001, 1_000),
                  unknown=("claude-opus-9", "claude-sonnet-9", "claude-mystery",
                           "claude-haiku-0"))
_per_pct = h.limit * 10_000            # haiku input tokens that cost 1% of the limit
_b = Budget(h.limit)
_b.charge("claude-haiku-4-5", _usage(round(h.half_pct * _per_pct), 0))
_half = outcome(_b.guard)
_b.charge("claude-haiku-4-5", _usage(round((h.over_pct - h.half_pct) * _per_pct), 0))
_over = _raised(_b.guard)
_over_again = _raised(_b.guard)
_late = _raised(_b.charge, "claude-haiku-4-5", _usage(round(h.late_pct * _per_pct), 0))
_spent_by = Budget(h.audit_limit)
_audit = outcome(_run_audit, _spent_by, stop=BudgetExceeded, n_invoices=h.invoices)


class _Bills:
    """Keeps what each model call of the audit billed, and never objects."""

    def __init__(self):
        self.bills = []

    def charge(self, model, usage):
        self.bills.append([model, usage])
        return 0.0

    def guard(self):
        return None


_bills = _Bills()
_run_audit(_bills, stop=BudgetExceeded, n_invoices=h.invoices)
_edge = Budget(h.edge_cents / 100)       # opus: in + out + reads cost the limit exactly
_edge_in = (h.edge_cents * 10_000 - 25 * h.edge_out - h.edge_read // 2) // 5
_edge.charge("claude-opus-5", _usage(_edge_in, h.edge_out, 0, h.edge_read))
_books = Budget(1.00)
_books.charge(h.books_model, _usage(h.books_tokens, 0))
_books_before = {"spent": _books.spent, "by_model": dict(_books.by_model)}
_unknown = _raised(_books.charge, h.unknown, _usage(10, 10))
rec = record(bills=_bills.bills, exact={"spent": b.spent, "state": b.state}, said=said, run_said=run_said,
             late={"cost": late, "spent": run.spent, "state": run.state}, half=_half,
             over={"spent": _b.spent, "guard": _over, "again": _over_again, "late": _late,
                   "after_late": _b.spent},
             audit=_audit, after_audit={"spent": _spent_by.spent, "state": _spent_by.state},
             edge={"spent": _edge.spent, "state": _edge.state}, unknown=_unknown,
             books={"before": _books_before,
                    "after": {"spent": _books.spent, "by_model": _books.by_model}})
### JUDGE
import math

from course.observe import hidden_inputs
from course.prices import PER_MTOK

h = hidden_inputs(limit=(0.10, 0.20, 0.50, 1.00), half_pct=range(20, 71, 10),
                  over_pct=range(110, 151, 10), late_pct=range(10, 31, 10),
                  audit_limit=(0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 1.00, 1.10, 1.25,
                               1.40), invoices=range(16, 25),
                  edge_cents=(150, 200, 250, 300), edge_out=range(0, 20_001, 1_000),
                  edge_read=range(100_000, 1_000_001, 100_000),
                  books_model=("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"),
                  books_tokens=range(1_000, 50_001, 1_000),
                  unknown=("claude-opus-9", "claude-sonnet-9", "claude-mystery",
                           "claude-haiku-0"))
_exact = rec["exact"]
assert _exact["state"] == "stop", (
    f"exactly the limit ({_exact['spent']!r} of $0.10) must be 'stop', got {_exact['state']!r}: "
    "compare round(spent / limit, 9) >= 1")
assert rec["said"] == [["raised", "BudgetExceeded"]] * 2, (
    f"at the limit guard() gave {rec['said']} instead of raising BudgetExceeded twice: a hard "
    "stop must stop the run, not hand the model one more note")
_run_said = rec["run_said"]
assert isinstance(_run_said[0], str) and _run_said[1] == ["raised", "BudgetExceeded"], (
    f"guard() at 85% then at 100% gave {_run_said}: a note, then BudgetExceeded")
_late = rec["late"]
assert (isinstance(_late["cost"], float) and math.isclose(_late["spent"], 1.01, abs_tol=1e-9)
        and _late["state"] == "stop"), (
    f"a charge after the stop must still be booked and return its cost; got {_late}")
assert rec["half"] == {"value": None, "raised": None}, (
    f"at {h.half_pct}% of ${h.limit:.2f} guard() should return None; got {rec['half']}")
_over = rec["over"]
for _said in (_over["guard"], _over["again"]):
    assert _said["raised"] is not None and "BudgetExceeded" in _said["raised"], (
        f"spent {h.over_pct}% of ${h.limit:.2f} and guard() returned {_said['value']!r} (raised: "
        f"{_said['raised']}) instead of raising BudgetExceeded; a hard stop must stop the run, "
        "on every call, not hand the model one more note to ignore")
assert _over["late"]["raised"] is None and isinstance(_over["late"]["value"], float), (
    f"charging {h.late_pct}% more past the stop gave {_over['late']}; charge books it and "
    "returns its cost")
_want = h.limit * (h.over_pct + h.late_pct) / 100
assert math.isclose(_over["after_late"], _want, abs_tol=1e-9), (
    f"after the stop, .spent should still add up: ${_want:.4f}, got {_over['after_late']}")
_stop_at, _spent = None, 0.0
for _call, (_model, _u) in enumerate(rec["bills"], 1):
    _rate = PER_MTOK[_model]
    _spent += (_u["input_tokens"] * _rate["input"] + _u["output_tokens"] * _rate["output"]
               + (_u["cache_creation_input_tokens"] or 0) * _rate["input"] * 1.25
               + (_u["cache_read_input_tokens"] or 0) * _rate["input"] * 0.10) / 1e6
    if round(_spent / h.audit_limit, 9) >= 1:
        _stop_at, _stop_usd = _call, _spent
        break
_audit = rec["audit"]
assert _audit["raised"] is None, (
    f"the audit loop crashed with {_audit['raised']['type']}: {_audit['raised']['message']}; "
    "guard() must raise BudgetExceeded, which the loop turns into a report")
_report = _audit["value"]
assert _report["calls"] == _stop_at, (
    f"the run made {_report['calls']} model calls on a ${h.audit_limit:.2f} budget; call "
    f"{_stop_at} takes it to ${_stop_usd:.4f}, so guard() must raise then and no call may "
    "follow")
assert _report["ok"] is False and _report["partial"] is True and "answer" not in _report, (
    f"a budget stop must end in a partial report with no success flag, got {_report}")
assert len(_report["done"]) == _stop_at - 1 and f"INV-{_stop_at:02d}" in _report["missing"], (
    f"the report keeps the {_stop_at - 1} invoices read and names what is missing "
    f"(INV-{_stop_at:02d}, the summary)")
_after = rec["after_audit"]
assert _after["state"] == "stop" and _after["spent"] >= h.audit_limit, (
    f"after the stopped audit the budget reads {_after}; it must be 'stop' with at least "
    f"${h.audit_limit:.2f} spent")
_edge = rec["edge"]
assert _edge["state"] == "stop", (
    f"exactly ${h.edge_cents / 100:.2f} of ${h.edge_cents / 100:.2f} (${_edge['spent']!r}, "
    f"{h.edge_read:,} of it cache reads) must be 'stop', got {_edge['state']!r}")
_unknown = rec["unknown"]
assert _unknown["raised"] is not None and "KeyError" in _unknown["raised"], (
    f"an unknown model ({h.unknown}) was billed (charge returned {_unknown['value']!r}, raised "
    f"{_unknown['raised']}); charge must raise KeyError for it")
_books = rec["books"]
assert _books["after"] == _books["before"], (
    f"the KeyError for an unknown model changed the books from {_books['before']} to "
    f"{_books['after']}: a refused charge must leave .spent and .by_model as they were")
### END HIDDEN TESTS

# %% id="by_model_sums_to_spent" kind="tests" points=2
from course.worlds.budget import routed_run, sdk_usage

Budget(5.00).charge("claude-opus-5", sdk_usage(1_000, 100, 0, 0))
new_books = Budget(5.00).by_model
assert new_books == {}, (
    f"a new Budget's by_model should be {{}}, got {new_books}: create the dict in __init__, so "
    "two budgets never share one")
b = Budget(5.00)
charged = {}
for reply in routed_run():
    charged[reply.model] = charged.get(reply.model, 0.0) + b.charge(reply.model, reply.usage)
assert abs(sum(b.by_model.values()) - b.spent) < 1e-9, (
    f"by_model sums to {sum(b.by_model.values())!r} but .spent is {b.spent!r}: by_model must sum "
    "to spent")
assert sorted(b.by_model) == sorted(charged), (
    f"by_model has the keys {sorted(b.by_model)}; the routed run used {sorted(charged)}")
for model, total in charged.items():
    assert abs(b.by_model[model] - total) < 1e-9, (
        f"by_model[{model!r}] is {b.by_model[model]!r}, but charge() returned {total!r} in all "
        "for it: add every call's cost under the model that made it")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(by_model=b.by_model, spent=b.spent, charged=charged, new_books=new_books)
### JUDGE
import math

by_model, spent = rec["by_model"], rec["spent"]
assert rec["new_books"] == {}, (
    f"a new Budget's by_model should be {{}}, got {rec['new_books']}: budgets must not share it")
assert abs(sum(by_model.values()) - spent) < 1e-9, "by_model must sum to spent"
assert set(by_model) == {"claude-haiku-4-5", "claude-sonnet-5", "claude-opus-5"}, (
    f"the routed run used three models; by_model has {sorted(by_model)}")
for _m, _c in rec["charged"].items():
    assert math.isclose(by_model[_m], _c, abs_tol=1e-12), (
        f"by_model[{_m!r}] is {by_model[_m]}, but charge() returned {_c} in total for {_m}: "
        "add every call's cost under the model that made it")
assert math.isclose(sum(by_model.values()), spent, abs_tol=1e-12), (
    f"by_model sums to {sum(by_model.values())}, .spent is {spent}")
### END HIDDEN TESTS

# %% id="quadratic_growth" kind="tests" points=2
from course.worlds.budget import run_turns

growth = {}
for n in (5, 10, 20, 40):
    ledger = Budget(1_000.0)
    run_turns(ledger, n, stop=BudgetExceeded)
    growth[n] = ledger.spent
assert growth[40] / growth[20] > growth[20] / growth[10] > 2, f"spend should curve up: {growth}"
for n, usd in growth.items():
    tokens_in = 6_000 * n + 1_500 * n * (n + 1) // 2
    assert abs(usd - (tokens_in * 5e-6 + 400 * n * 25e-6)) < 1e-9, (
        f"{n} turns: {tokens_in:,} input tokens (P + a*k summed for k = 1..n) and {400 * n:,} "
        f"output should cost ${tokens_in * 5e-6 + 400 * n * 25e-6:.4f}; the ledger says ${usd:.4f}")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(growth=growth)
### JUDGE
import math

growth = {int(n): usd for n, usd in rec["growth"].items()}
assert growth[40] / growth[20] > growth[20] / growth[10] > 2, f"spend should curve up: {growth}"
for _n, _got in growth.items():
    _exact = 5e-6 * (6_000 * _n + 1_500 * _n * (_n + 1) / 2) + 25e-6 * 400 * _n
    assert math.isclose(_got, _exact, abs_tol=1e-9), (
        f"{_n} turns: P=6,000 and a=1,500 give {6_000 * _n + 1_500 * _n * (_n + 1) // 2:,} input "
        f"tokens (n*P + a*n(n+1)/2) and ${_exact:.4f} in all; your ledger says ${_got:.4f}")
_shortcut_10 = 5e-6 * 135_000 + 25e-6 * 4_000
assert math.isclose(growth[10] - _shortcut_10, 5e-6 * 7_500, abs_tol=1e-9), (
    "10 turns: the shortcut a*n^2/2 (135,000 tokens) undercounts by a*n/2 = 7,500 tokens")
### END HIDDEN TESTS

# %% id="tail_row_a93" kind="tests" points=1
from course.worlds.budget import TAIL_ROWS, sdk_usage

rows = {task: Budget(100.0).charge("claude-opus-5", sdk_usage(i, o))
        for task, _turns, i, o in TAIL_ROWS}
assert round(rows["a93"], 2) == 9.93, f"a93 costs $9.93 at opus prices, got ${rows['a93']:.4f}"
assert (round(rows["a91"], 2), round(rows["a92"], 2)) == (0.26, 0.21), (
    f"a91 and a92 cost $0.26 and $0.21 at opus prices, got ${rows['a91']:.4f} and "
    f"${rows['a92']:.4f}")
a93_run = Budget(2.00)
a93_run.charge("claude-opus-5", sdk_usage(1_904_000, 16_400))
assert a93_run.state == "stop", (
    f"$9.93 spent on a $2.00 budget is far past the limit: state should be 'stop', got "
    f"{a93_run.state!r}")
### BEGIN HIDDEN TESTS
from course.observe import record

_b = Budget(2.00)
_b.charge("claude-opus-5", sdk_usage(1_904_000, 16_400))
rec = record(rows=rows, a93_on_2={"spent": _b.spent, "state": _b.state})
### JUDGE
import math

rows = rec["rows"]
assert round(rows["a93"], 2) == 9.93, f"a93 costs $9.93 at opus prices, got ${rows['a93']:.4f}"
assert math.isclose(rows["a93"], 9.93, abs_tol=1e-9), (
    f"1,904,000 x $5/MTok + 16,400 x $25/MTok = $9.52 + $0.41 = $9.93, got {rows['a93']}")
assert (round(rows["a91"], 2), round(rows["a92"], 2)) == (0.26, 0.21), (
    f"a91 and a92 cost $0.26 and $0.21, got {rows['a91']:.4f} and {rows['a92']:.4f}")
assert int(rows["a93"] / round(rows["a91"], 2)) == 38, "a93 is 38x the $0.26 row next to it"
_state = rec["a93_on_2"]["state"]
assert _state == "stop", f"on a $2.00 budget the a93 run is far past the stop, got {_state!r}"
### END HIDDEN TESTS

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain
#
# A new case, with its own numbers. A research agent runs on claude-sonnet-5 (\$2/MTok
# input; ignore output and caching). Its prefix is *P* = 4,000 tokens and each turn adds
# *a* = 2,000 tokens of history. Its `Budget` has a \$1.00 limit.
#
# 1. What do 10 turns and 20 turns cost in input? What would an up-front budget of
#    "first call's cost × 20 turns" have predicted for 20 turns?
# 2. After which call does `state` first read `"warn"`, and after which `"stop"`?
# 3. Why can neither the prompt "be economical" nor that up-front budget replace this
#    ledger, and why does the guard need both the note and the stop?

# %% [markdown] id="explain_two_mechanisms" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.**
# 1. Input tokens are nP + a·n(n+1)/2 = 4,000n + 1,000n(n+1). At 10 turns: 150,000 tokens,
#    \$0.30. At 20 turns: 500,000 tokens, \$1.00: 3.3× the cost for 2× the turns. The first
#    call carries 6,000 tokens (\$0.012), so "× 20 turns" predicts \$0.24, a quarter of the
#    real bill: an up-front estimate sees only the linear term.
# 2. After 17 calls the run has spent \$0.748 (374,000 tokens), after 18 \$0.828: the note
#    goes out after call 18. After 19 calls it has spent \$0.912, after 20 exactly \$1.00:
#    the stop trips after call 20, at exactly the limit (the share rounds to 1, so `"stop"`).
# 3. The model never sees `usage` (the server computes it after the reply and returns it to
#    the harness), so "be economical" asks it to track a number it cannot see; the up-front
#    budget misses the quadratic term. The note lets the model finish what it started and
#    say what remains; the model can ignore it, so the harness also needs a stop it cannot
#    argue with, which the loop turns into a partial report.
#
# **Mark scheme (3 points).**
# * 1 — numbers for 1: \$0.30 and \$1.00 (or the token counts), against \$0.24 predicted.
# * 1 — the crossings: warn after call 18, stop after call 20, with the running totals.
# * 1 — mechanisms: the model cannot see its spend; the note is advisory, the stop is
#   enforced by the harness and ends in a partial report.
# ### END SOLUTION
