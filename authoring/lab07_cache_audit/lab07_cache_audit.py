# %% [markdown]
# # Lab 7 — Prompt-cache audit
#
# **Points:** 15 autograded + 3 written = 18.
#
# **You implement**
#
# ```python
# PRICE                                # {model: {"in": usd_per_token, "out": usd_per_token}}, as in Lab 3
# call_usd(inp, cw, cr, out, model="claude-opus-5") -> float
#     # dollars for one call: uncached input, cache write (1.25x input), cache read (0.10x
#     # input), output; prices from PRICE[model] (a KeyError for a model not in PRICE)
# audit_caching(build_request, *, client, n=3) -> dict
#     # call i (i = 0 .. n-1) sends client.messages.create(**build_request(f"probe {i}"))
#     # returns {"per_call": [{"uncached_in", "cache_write", "cache_read"}, ...],   # ints, None -> 0
#     #          "hit_rate": read / (read + write + uncached) of the LAST call (0.0 if all are 0),
#     #          "verdict": "HEALTHY" if hit_rate > 0.7, "WEAK" if > 0.1, else "BROKEN"}
#     # n < 1 raises ValueError
# find_invalidator(build_request, probe_a="q1", probe_b="q2") -> str
#     # the lines that differ between json.dumps(build_request(probe), indent=2) of the two
#     # probes, without sort_keys, each starting with "-" (probe_a) or "+" (probe_b), joined
#     # by "\n"; lines containing probe_a or probe_b are dropped; NO_DIFF if nothing is left
# ```
#
# * A changed line is the marker glued to the rendered line, indentation kept and no space
#   added (`-  "model": "claude-opus-5",`), in the order
#   `difflib.unified_diff(a, b, lineterm="", n=0)` yields them: for each run of changed
#   lines, its `-` lines, then its `+` lines.
# * A line "contains" a probe when it contains the probe *as the render writes it*,
#   `json.dumps(probe)[1:-1]`: a quote becomes `\"` and `café` becomes `caf\u00e9` in the
#   JSON, so matching the raw string would keep such a probe's own line in the diff.
#
# * **In:** a *builder*: a function of yours that takes a question and returns the keyword
#   arguments of one `client.messages.create` call (model, system, tools, messages).
# * **Out:** whether the prompt cache actually warms, measured from `usage`, and when it does
#   not, the line of the payload that broke it.
# * `hit_rate` is not rounded; the verdict compares it strictly (`0.7` exactly is WEAK).
#
# **Prices** per million tokens, input/output: claude-opus-5 \$5/\$25, claude-sonnet-5
# \$2/\$10, claude-haiku-4-5 \$1/\$5. A token written to the cache bills at 1.25× the
# input rate (2× for a `"ttl": "1h"` write), a token read from it at 0.10×.
# Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) and each
# model's page, read 2026-12-02 (claude-sonnet-5 was priced here at \$3/\$15 before; its
# page lists \$2/\$10).
#
# The fake API in this lab caches prompts the way the real one does (`course.promptcache`):
# it renders tools, then system, then messages; it caches the prefix up to each
# `cache_control` breakpoint, keyed by the model and the exact bytes; a breakpoint also
# reads an entry written at most 20 blocks before it; it ignores a prefix shorter than the
# model's minimum (512 tokens for claude-opus-5, the model here; 1,024 for claude-sonnet-5;
# 4,096 for claude-haiku-4-5); and entries expire after 5 minutes on a fake clock. Source:
# [Prompt caching](https://platform.claude.com/docs/en/build-with-claude/prompt-caching),
# "Cache limitations".

# %%
import json

from course.worlds import cache_audit as world

OPUS = "claude-opus-5"
print(f"stable prefix {world.PREFIX_TOKENS:,} tok | retrieved docs {world.DOCS_TOKENS:,} tok | "
      f"uncached tail {world.TAIL_TOKENS} tok | output {world.OUTPUT_TOKENS} tok")

# %% [markdown]
# ## Why an audit exists
#
# **Caching fails without a sound.** A cached prefix is the stored key and value vectors of
# its tokens. Each token's vectors depend on that token *and every token before it*, so one
# changed byte at position 30 makes every stored vector after position 30 useless. The API
# does not warn you: it writes the prefix again, bills the write at 1.25×, and reports
# `cache_read_input_tokens: 0` in a `usage` object nobody reads. A prefix below the minimum
# cacheable length is quieter still: it is not cached at all and the call reports
# `cache_creation_input_tokens: 0`. No exception in either case.
#
# Here is a support agent's request sent three times with three different questions. Its
# stable prefix (tools and a handbook, 18,400 tokens) sits before the first breakpoint; the
# 6,100 tokens of documents retrieved for each question sit before the second.

# %%
api, cache, clock = world.support_api()
client = api.client()
for i in range(3):
    u = client.messages.create(**world.healthy(f"probe {i}")).usage
    print(f"call {i + 1}: uncached {u.input_tokens:>5,}  write {u.cache_creation_input_tokens:>6,}"
          f"  read {u.cache_read_input_tokens:>6,}  out {u.output_tokens}")
clock.advance(301)
u = client.messages.create(**world.healthy("after a coffee break")).usage
print(f"5 min later: write {u.cache_creation_input_tokens:,}, read {u.cache_read_input_tokens}")

# %% [markdown]
# Call 1 can only write: there is nothing to read yet. Calls 2 and 3 read the 18,400-token
# prefix back and write the new question's 6,100 tokens of documents. After 5 idle minutes
# the entry has expired and the prefix is written again. That is why the audit reads the
# **last** call: the first one is a write by construction.
#
# ## The bug it prevents
#
# ### 1. The tokens move; they do not vanish
#
# A widely shared table compares one healthy warm call with the same call after the cache
# broke. Priced term by term on claude-opus-5:

# %%
P_IN, P_OUT = 5 / 1e6, 25 / 1e6


def priced(row):
    inp, cw, cr, out = row
    return inp * P_IN + cw * P_IN * 1.25 + cr * P_IN * 0.10 + out * P_OUT


healthy_usd, broken_usd = priced(world.HEALTHY_ROW), priced(world.BROKEN_ROW)
print(f"{'':>10} {'uncached':>9} {'write':>7} {'read':>7} {'out':>5} {'usd':>8}")
for name, row in [("healthy", world.HEALTHY_ROW), ("broken", world.BROKEN_ROW),
                  ("table bug", world.TABLE_BUG_ROW)]:
    print(f"{name:>10} {row[0]:>9,} {row[1]:>7,} {row[2]:>7,} {row[3]:>5} ${priced(row):.4f}")
print(f"broken / healthy = {broken_usd / healthy_usd:.2f}x")
print(f"table bug / healthy = {priced(world.TABLE_BUG_ROW) / healthy_usd:.2f}x, "
      f"input terms only {priced(world.TABLE_BUG_ROW[:3] + (0,)) / priced(world.HEALTHY_ROW[:3] + (0,)):.2f}x")

# %% [markdown]
# When the cache breaks, the 18,400 tokens still have to be read by the model. They move from
# `cache_read_input_tokens` to `input_tokens`: 210 + 18,400 = 18,610. A common version of
# this table leaves `input_tokens` at 210 in the broken column. That deletes 18,400 tokens
# from the bill, and the broken call comes out *cheaper* than the healthy one: 0.84× with
# output, 0.81× on the input terms alone. A cache failure that saves money means the
# arithmetic is backwards.
#
# ### 2. Where 2.42× comes from
#
# Per token, a lost read costs exactly 10× more (1.0× against 0.10×). Count the input side
# in units of the input price:

# %%
healthy_in = 6_100 * 1.25 + 18_400 * 0.10 + 210
broken_in = 6_100 * 1.25 + 18_610
output_units = 400 * 5            # output bills at 5x the input rate
print(f"input only : {broken_in:,.0f} / {healthy_in:,.0f} = {broken_in / healthy_in:.2f}x")
print(f"with output: {broken_in + output_units:,.0f} / {healthy_in + output_units:,.0f} = "
      f"{(broken_in + output_units) / (healthy_in + output_units):.2f}x")

# %% [markdown]
# The 10× on the lost read is diluted by everything that did not change: the 6,100-token
# write at 1.25× and the 210 uncached tokens give 2.71× on the input terms, and the 400
# output tokens, 2,000 input-price units in both columns, pull it down to 2.42×.
#
# ### 3. What the API really bills for a broken prefix
#
# The table keeps the broken column's write at 6,100 to isolate one mechanism. A real
# invalidator does worse. Put the time of day into the system prompt and every call sees a
# new prefix, so every call **writes** all 24,500 tokens at 1.25×:

# %%
api, cache, clock = world.support_api()
client = api.client()
build = world.stamped()
for i in range(3):
    u = client.messages.create(**build(f"probe {i}")).usage
    row = (u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens,
           u.output_tokens)
    print(f"call {i + 1}: {row}  ${priced(row):.4f}")
print(f"stamped / healthy = {priced(row) / healthy_usd:.2f}x")

# %% [markdown]
# \$0.1642 a call, 2.81× the healthy one, and not one error. The only evidence is a zero in a
# field you were not reading. So you measure it.
#
# ## Tier 1 — pseudocode
#
# ```text
# audit:
#     send the same logical request n times, a different question each time
#     take the usage of the LAST call (the first can only write)
#     hit_rate = read / (read + write + uncached)
#     verdict from two thresholds
# find the invalidator:
#     render the request for two questions, keys in the order the builder produced them
#     diff the renders line by line
#     drop the lines that carry your own questions: that difference is on purpose
#     whatever is left is what changed inside the prefix
# ```
#
# There is no framework tier here: an orchestration framework has no opinion about where a
# cache breakpoint goes, so the audit is the same code with or without one.
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

# %% id="call_usd" kind="solution"
def call_usd(inp, cw, cr, out, model="claude-opus-5"):
    """Dollars for one call with these token counts, at PRICE[model].

    inp  -- uncached input tokens (usage.input_tokens), at 1.0x the input rate
    cw   -- tokens written to the cache (cache_creation_input_tokens), at 1.25x
    cr   -- tokens read from the cache (cache_read_input_tokens), at 0.10x
    out  -- output tokens, at the output rate
    A model not in PRICE raises KeyError.
    """
    ### BEGIN SOLUTION
    rate = PRICE[model]
    return (inp * rate["in"] + cw * rate["in"] * 1.25 + cr * rate["in"] * 0.10
            + out * rate["out"])
    ### END SOLUTION

# %% id="audit_caching" kind="solution"
def audit_caching(build_request, *, client, n=3):
    """Send build_request(f"probe {i}") for i = 0..n-1 and judge the LAST call's cache use.

    Returns {"per_call": [{"uncached_in": int, "cache_write": int, "cache_read": int}, ...],
             "hit_rate": float, "verdict": "HEALTHY" | "WEAK" | "BROKEN"}.
    hit_rate = cache_read / (cache_read + cache_write + uncached_in) of the last call, not
    rounded (0.0 when the sum is 0). A usage field that is None counts as 0.
    verdict: "HEALTHY" if hit_rate > 0.7, "WEAK" if hit_rate > 0.1, else "BROKEN".
    n < 1 raises ValueError.
    """
    ### BEGIN SOLUTION
    if n < 1:
        raise ValueError(f"an audit needs at least one call, got n={n}")
    per_call = []
    for i in range(n):
        usage = client.messages.create(**build_request(f"probe {i}")).usage
        per_call.append({
            "uncached_in": usage.input_tokens or 0,
            "cache_write": usage.cache_creation_input_tokens or 0,
            "cache_read": usage.cache_read_input_tokens or 0,
        })
    warm = per_call[-1]   # the first call has nothing to read back
    total = warm["cache_read"] + warm["cache_write"] + warm["uncached_in"]
    hit_rate = warm["cache_read"] / total if total else 0.0
    verdict = "HEALTHY" if hit_rate > 0.7 else "WEAK" if hit_rate > 0.1 else "BROKEN"
    return {"per_call": per_call, "hit_rate": hit_rate, "verdict": verdict}
    ### END SOLUTION

# %% id="find_invalidator" kind="solution"
import difflib

NO_DIFF = "payloads identical outside the probe: check the prefix length"


def find_invalidator(build_request, probe_a="q1", probe_b="q2"):
    """The lines that differ between the renders of two probes, outside the probe itself.

    Render each request with json.dumps(request, indent=2) -- no sort_keys: key order is
    part of the bytes the cache sees. Diff the two renders line by line. Keep the changed
    lines, each starting with "-" (from probe_a) or "+" (from probe_b); drop every line that
    contains probe_a or probe_b as the render writes them (json.dumps(probe)[1:-1]). Return
    them joined by "\n", or NO_DIFF if none is left.
    build_request is called once with probe_a, then once with probe_b.
    """
    ### BEGIN SOLUTION
    a = json.dumps(build_request(probe_a), indent=2).splitlines()
    b = json.dumps(build_request(probe_b), indent=2).splitlines()
    changed = [line for line in difflib.unified_diff(a, b, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("---", "+++"))]
    shown = [json.dumps(probe)[1:-1] for probe in (probe_a, probe_b)]
    ours = [line for line in changed if not any(probe in line for probe in shown)]
    return "\n".join(ours) or NO_DIFF
    ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# A quick signal, **not** the grade: the hidden tests check more, including every price term
# on its own, both thresholds at their boundaries, each invalidator and other probe strings.

# %%
print(f"healthy ${call_usd(*world.HEALTHY_ROW):.4f} (expect $0.0584), "
      f"broken ${call_usd(*world.BROKEN_ROW):.4f} (expect $0.1412)")
api, cache, clock = world.support_api()
report = audit_caching(world.healthy, client=api.client())
print("healthy:", report["verdict"], round(report["hit_rate"], 3), "(expect HEALTHY 0.745)")
for name, build in world.builders().items():
    api, cache, clock = world.support_api()
    print(f"{name:>16}: {audit_caching(build, client=api.client())['verdict']}")
print()
print(find_invalidator(world.stamped()))

# %% [markdown]
# Read the last two verdicts against the diff. `too_short` is BROKEN with no diff at all:
# its prefix is stable, just shorter than claude-opus-5's 512-token minimum (400 tokens), so
# nothing is ever cached and nothing raised. When the verdict is BROKEN and
# `find_invalidator` returns `NO_DIFF`, check the prefix length. `early_breakpoint` is WEAK:
# the cache works, but the breakpoint sits before 6,000 stable tokens that are billed in full
# on every call.
#
# ## Graded tests
#
# One cell per property. Each cell builds its own fake API and builders from
# `course.worlds.cache_audit`.

# %% id="call_usd_four_terms" kind="tests" points=3
healthy_usd = call_usd(210, 6_100, 18_400, 400)
assert round(healthy_usd, 4) == 0.0584, (
    f"cache reads bill at 0.10x input: the healthy call is $0.0584, got ${healthy_usd:.4f}")
broken_usd = call_usd(18_610, 6_100, 0, 400)
assert round(broken_usd, 4) == 0.1412, (
    f"lost reads bill as uncached input at 1.0x: the broken call is $0.1412, got {broken_usd!r}")
for counts, model, want, why in [
        ((1_000_000, 0, 0, 0), "claude-opus-5", 5.00, "uncached input bills at 1.0x input"),
        ((0, 1_000_000, 0, 0), "claude-opus-5", 6.25, "cache writes bill at 1.25x input"),
        ((0, 0, 1_000_000, 0), "claude-opus-5", 0.50, "cache reads bill at 0.10x input"),
        ((0, 0, 0, 1_000_000), "claude-opus-5", 25.00, "output bills at the output rate"),
        ((1_000_000, 0, 0, 1_000_000), "claude-sonnet-5", 12.00, "PRICE: sonnet is $2/$10"),
        ((1_000_000, 0, 0, 1_000_000), "claude-haiku-4-5", 6.00, "PRICE: haiku is $1/$5")]:
    got = call_usd(*counts, model=model)
    assert abs(got - want) < 1e-9, f"{why}: {counts} on {model} is ${want:.2f}, got {got!r}"
try:
    unknown = call_usd(1, 1, 1, 1, model="claude-unknown")
except KeyError:
    unknown = KeyError
assert unknown is KeyError, f"a model not in PRICE raises KeyError, not a price: got {unknown!r}"
for model, (usd_in, usd_out) in {"claude-opus-5": (5, 25), "claude-sonnet-5": (2, 10),
                                 "claude-haiku-4-5": (1, 5)}.items():
    rate = PRICE.get(model)
    assert (isinstance(rate, dict) and abs(rate.get("in", 0) - usd_in / 1e6) < 1e-15
            and abs(rate.get("out", 0) - usd_out / 1e6) < 1e-15), (
        f"PRICE holds dollars per TOKEN, not per million: PRICE[{model!r}] should be "
        f"{{'in': {usd_in} / 1_000_000, 'out': {usd_out} / 1_000_000}}, got {rate!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(tail=range(100, 1_000), docs=range(2_000, 10_000),
                  prefix=range(10_000, 40_000), out=range(100, 1_000),
                  opus_in=range(100_000, 5_000_000), opus_write=range(100_000, 5_000_000),
                  opus_read=range(100_000, 5_000_000), opus_out=range(100_000, 5_000_000),
                  sonnet_write=range(100_000, 5_000_000), sonnet_out=range(100_000, 5_000_000),
                  haiku_read=range(100_000, 5_000_000), haiku_in=range(100_000, 5_000_000),
                  unknown=("claude-opus-4", "claude-3-opus", "claude-sonnet-4-5", "opus", "gpt-4o",
                           "claude-haiku-4", "claude-opus-6"))
_alone = [((h.opus_in, 0, 0, 0), "claude-opus-5"), ((0, h.opus_write, 0, 0), "claude-opus-5"),
          ((0, 0, h.opus_read, 0), "claude-opus-5"), ((0, 0, 0, h.opus_out), "claude-opus-5"),
          ((0, h.sonnet_write, 0, 0), "claude-sonnet-5"),
          ((0, 0, 0, h.sonnet_out), "claude-sonnet-5"),
          ((0, 0, h.haiku_read, 0), "claude-haiku-4-5"),
          ((h.haiku_in, 0, 0, 0), "claude-haiku-4-5")]
rec = record(healthy=call_usd(210, 6_100, 18_400, 400), broken=call_usd(18_610, 6_100, 0, 400),
             warm=call_usd(h.tail, h.docs, h.prefix, h.out),
             table_bug=call_usd(h.tail, h.docs, 0, h.out), bug_in=call_usd(h.tail, h.docs, 0, 0),
             warm_in=call_usd(h.tail, h.docs, h.prefix, 0),
             alone=[[_counts, _m, call_usd(*_counts, model=_m)] for _counts, _m in _alone],
             unknown=outcome(call_usd, 10, 0, 0, 10, model=h.unknown),
             price={_m: PRICE.get(_m) for _m in
                    ("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5")})
### JUDGE
import math

from course.observe import hidden_inputs
from course.prices import PER_MTOK

h = hidden_inputs(tail=range(100, 1_000), docs=range(2_000, 10_000),
                  prefix=range(10_000, 40_000), out=range(100, 1_000),
                  opus_in=range(100_000, 5_000_000), opus_write=range(100_000, 5_000_000),
                  opus_read=range(100_000, 5_000_000), opus_out=range(100_000, 5_000_000),
                  sonnet_write=range(100_000, 5_000_000), sonnet_out=range(100_000, 5_000_000),
                  haiku_read=range(100_000, 5_000_000), haiku_in=range(100_000, 5_000_000),
                  unknown=("claude-opus-4", "claude-3-opus", "claude-sonnet-4-5", "opus", "gpt-4o",
                           "claude-haiku-4", "claude-opus-6"))

_h, _b = rec["healthy"], rec["broken"]
assert round(_h, 4) == 0.0584, (
    f"cache reads bill at 0.10x input: the healthy call is $0.0584, got ${_h:.4f}")
assert round(_b, 4) == 0.1412, (
    f"lost reads bill as uncached input at 1.0x: the broken call is $0.1412, got ${_b:.4f}")
assert round(_b / _h, 2) == 2.42, f"broken/healthy is 28,235/11,675 = 2.42x, got {_b / _h:.3f}"


def _usd(inp, cw, cr, out, model="claude-opus-5"):
    """The price of one call, from the pricing pages' per-MTok rates."""
    _pin, _pout = PER_MTOK[model]["input"] / 1e6, PER_MTOK[model]["output"] / 1e6
    return inp * _pin + cw * _pin * 1.25 + cr * _pin * 0.10 + out * _pout


_row = (h.tail, h.docs, h.prefix, h.out)
for _key, _counts in [("warm", _row), ("table_bug", (h.tail, h.docs, 0, h.out)),
                      ("bug_in", (h.tail, h.docs, 0, 0)),
                      ("warm_in", (h.tail, h.docs, h.prefix, 0))]:
    _want, _got = _usd(*_counts), rec[_key]
    assert math.isclose(_got, _want, rel_tol=1e-9), (
        f"(uncached, write, read, output) = {_counts} on claude-opus-5 is ${_want:.6f} "
        f"(1.0x, 1.25x, 0.10x input and the output rate), call_usd returned {_got!r}")
_bug = rec["table_bug"] / rec["warm"]
assert _bug < 1, (
    f"the table bug (the {h.prefix:,} lost reads vanish instead of moving to input) must come "
    f"out cheaper than the warm call, {_usd(*_row[:2], 0, h.out) / _usd(*_row):.2f}x; "
    f"got {_bug:.3f}x")
_priced = {(tuple(_counts), _m): _v for _counts, _m, _v in rec["alone"]}
_alone = [((h.opus_in, 0, 0, 0), "claude-opus-5", "uncached input at 1.0x"),
          ((0, h.opus_write, 0, 0), "claude-opus-5", "cache writes at 1.25x input"),
          ((0, 0, h.opus_read, 0), "claude-opus-5", "cache reads at 0.10x input"),
          ((0, 0, 0, h.opus_out), "claude-opus-5", "output at the output rate"),
          ((0, h.sonnet_write, 0, 0), "claude-sonnet-5", "writes at 1.25x sonnet input"),
          ((0, 0, 0, h.sonnet_out), "claude-sonnet-5", "output at sonnet's $10/MTok"),
          ((0, 0, h.haiku_read, 0), "claude-haiku-4-5", "reads at 0.10x haiku input"),
          ((h.haiku_in, 0, 0, 0), "claude-haiku-4-5", "input at haiku's $1/MTok")]
for _counts, _m, _why in _alone:
    _got, _want = _priced[(_counts, _m)], _usd(*_counts, model=_m)
    assert math.isclose(_got, _want, abs_tol=1e-9), (
        f"{_why}: {_counts} on {_m} is ${_want:.4f}, call_usd returned {_got!r}")
_raised = rec["unknown"]["raised"]
_raised = _raised["type"] if _raised else None
assert _raised == "KeyError", (
    f"a model not in PRICE ({h.unknown!r}) raises KeyError, not a price: got {rec['unknown']!r}")
for _m, _rates in PER_MTOK.items():
    _pin, _pout = _rates["input"], _rates["output"]
    _p = rec["price"][_m]
    assert (isinstance(_p, dict) and isinstance(_p.get("in"), int | float)
            and isinstance(_p.get("out"), int | float)
            and math.isclose(_p["in"] * 1e6, _pin) and math.isclose(_p["out"] * 1e6, _pout)), (
        f"PRICE holds dollars per TOKEN, not per million: PRICE[{_m!r}] should be "
        f"in {_pin:g}e-6, out {_pout:g}e-6; got {_p}")
### END HIDDEN TESTS

# %% id="hit_rate_on_last_call" kind="tests" points=2
from course.worlds.cache_audit import billed_as, healthy, support_api

api, cache, clock = support_api()
report = audit_caching(healthy, client=api.client(), n=3)
assert report["verdict"] == "HEALTHY", (
    f"the first call can only write, read the LAST one: healthy gave {report['verdict']} "
    f"at hit_rate {report['hit_rate']!r}")
rows = report["per_call"]
assert len(rows) == 3 and rows[0] == {"uncached_in": 210, "cache_write": 24_500,
                                      "cache_read": 0} and rows[-1] == {
    "uncached_in": 210, "cache_write": 6_100, "cache_read": 18_400}, (
    f"per_call has one row per call, the cold write first and the warm read last: got {rows!r}")
sent = [req["messages"][0]["content"][0]["text"].split("\n")[0] for req in api.requests]
assert sent == [f"Documents retrieved for: probe {i}" for i in range(3)], (
    f"call i sends build_request(f'probe {{i}}'), i from 0: got {sent!r}")


def plain(q):
    return {"model": "claude-opus-5", "max_tokens": 8, "messages": [{"role": "user", "content": q}]}


rows = audit_caching(plain, client=billed_as([(100, None, None)]).client(), n=1)["per_call"]
assert rows == [{"uncached_in": 100, "cache_write": 0, "cache_read": 0}], (
    f"a usage field that is None counts as 0: got {rows!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.cache_audit import billed_as as _billed_as
from course.worlds.cache_audit import healthy as _healthy
from course.worlds.cache_audit import support_api as _support_api

h = hidden_inputs(calls=range(4, 9), cold_write=range(100, 10_000), warm_in=range(1, 100),
                  warm_read=range(300, 10_000), none_in=range(1, 1_000), none_read=range(1, 1_000))
_api, _cache, _clock = _support_api()
_r = audit_caching(_healthy, client=_api.client(), n=h.calls)
_n4_requests = _api.requests
_api, _cache, _clock = _support_api()
_default = audit_caching(_healthy, client=_api.client())


def _plain(q):
    return {"model": "claude-opus-5", "max_tokens": 8, "messages": [{"role": "user", "content": q}]}


rec = record(report=report, n4=_r, n4_requests=_n4_requests,
             default_requests=_api.requests, default_rows=len(_default["per_call"]),
             last=audit_caching(_plain, client=_billed_as(
                 [(0, h.cold_write, 0), (h.warm_in, 0, h.warm_read)]).client(), n=2),
             nones=audit_caching(_plain, client=_billed_as(
                 [(h.none_in, None, h.none_read)]).client(), n=1)["per_call"])
### JUDGE
import math

from course.hub import log_of
from course.observe import hidden_inputs
from course.worlds import cache_audit as world

h = hidden_inputs(calls=range(4, 9), cold_write=range(100, 10_000), warm_in=range(1, 100),
                  warm_read=range(300, 10_000), none_in=range(1, 1_000), none_read=range(1, 1_000))

_n4_requests, _default_requests = log_of(rec["n4_requests"]), log_of(rec["default_requests"])
_rep = rec["report"]
assert _rep["verdict"] == "HEALTHY", (
    f"the first call can only write, read the LAST one: healthy gave {_rep['verdict']} "
    f"at hit_rate {_rep['hit_rate']:.3f}")
_r, _n = rec["n4"], h.calls
assert len(_n4_requests) == _n and len(_r["per_call"]) == _n, (
    f"n={_n} must send {_n} requests and report {_n} rows; sent {len(_n4_requests)}")
_cold = {"uncached_in": world.TAIL_TOKENS, "cache_write": world.PREFIX_TOKENS + world.DOCS_TOKENS,
         "cache_read": 0}
_warm = {"uncached_in": world.TAIL_TOKENS, "cache_write": world.DOCS_TOKENS,
         "cache_read": world.PREFIX_TOKENS}
assert _r["per_call"][0] == _cold, (
    f"per_call[0] is the cold call {_cold}; got {_r['per_call'][0]}")
assert _r["per_call"][-1] == _warm, (
    f"per_call[-1] is the warm call {_warm}; got {_r['per_call'][-1]}")
assert _r["verdict"] == "HEALTHY", "the last call's hit rate decides the verdict"
_first_lines = [m["content"][0]["text"].split("\n")[0]
                for m in (b["messages"][0] for b in _n4_requests)]
assert _first_lines == [f"Documents retrieved for: probe {i}" for i in range(_n)], (
    f"call i sends build_request(f'probe {{i}}'), i from 0: got {_first_lines!r}")
assert len(_default_requests) == 3 and rec["default_rows"] == 3, (
    f"n defaults to 3: sent {len(_default_requests)} requests, {rec['default_rows']} rows")
_r, _read, _of = rec["last"], h.warm_read, h.warm_read + h.warm_in
assert abs(_r["hit_rate"] - _read / _of) < 1e-3 and _r["verdict"] == "HEALTHY", (
    f"the LAST call (read {_read} of {_of} = {_read / _of:.3f}, HEALTHY) decides, not the cold "
    f"first (write {h.cold_write}): got {_r!r}")
_want = [{"uncached_in": h.none_in, "cache_write": 0, "cache_read": h.none_read}]
assert rec["nones"] == _want, (
    f"a usage field that is None counts as 0: usage ({h.none_in}, None, {h.none_read}) gives "
    f"{_want}; got {rec['nones']!r}")
### END HIDDEN TESTS

# %% id="hit_rate_denominator" kind="tests" points=2
from course.worlds.cache_audit import billed_as, healthy, support_api

api, cache, clock = support_api()
client = api.client()
client.messages.create(**healthy("warm-up"))     # prime the cache so even call 1 is warm
report = audit_caching(healthy, client=client, n=1)
assert round(report["hit_rate"], 3) == 0.745, (
    f"hit rate divides read by read+write+uncached: 18,400/24,710 = 0.745, got "
    f"{report['hit_rate']!r}")


def plain(q):
    return {"model": "claude-opus-5", "max_tokens": 8, "messages": [{"role": "user", "content": q}]}


for row, want in [((100, 300, 600), 0.6), ((1, 1, 1), 1 / 3), ((0, 0, 0), 0.0)]:
    got = audit_caching(plain, client=billed_as([row]).client(), n=1)["hit_rate"]
    assert abs(got - want) < 1e-12, (
        f"hit rate = read / (read + write + uncached), not rounded, 0.0 when all are 0: "
        f"(uncached, write, read) = {row} gives {want!r}, got {got!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.cache_audit import billed_as as _billed_as
from course.worlds.cache_audit import early_breakpoint as _early
from course.worlds.cache_audit import support_api as _support_api

h = hidden_inputs(mixed_in=range(100, 1_000), mixed_write=range(100, 1_000),
                  mixed_read=range(100, 1_000), odd_read=range(1, 100),
                  odd_total=(101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167,
                             173, 179, 181, 191, 193, 197, 199), odd_split=range(0, 101))

_api, _cache, _clock = _support_api()
_c = _api.client()
_c.messages.create(**_early("warm-up"))
_early_report = audit_caching(_early, client=_c, n=1)


def _plain_request(q):
    return {"model": "claude-opus-5", "max_tokens": 8,
            "messages": [{"role": "user", "content": q}]}


_rest = h.odd_total - h.odd_read
_odd = (_rest * h.odd_split // 100, _rest - _rest * h.odd_split // 100, h.odd_read)
rec = record(report=report, early=_early_report,
             mixed=audit_caching(_plain_request, client=_billed_as(
                 [(h.mixed_in, h.mixed_write, h.mixed_read)]).client(), n=1),
             sevenths=audit_caching(_plain_request, client=_billed_as([_odd]).client(), n=1),
             empty=outcome(audit_caching, _plain_request,
                           client=_billed_as([(0, 0, 0)]).client(), n=1))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(mixed_in=range(100, 1_000), mixed_write=range(100, 1_000),
                  mixed_read=range(100, 1_000), odd_read=range(1, 100),
                  odd_total=(101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167,
                             173, 179, 181, 191, 193, 197, 199), odd_split=range(0, 101))

_hr = rec["report"]["hit_rate"]
assert round(_hr, 3) == 0.745, (
    f"hit rate divides read by read+write+uncached: 18,400/24,710 = 0.745, got {_hr:.3f}")
_r = rec["early"]
assert round(_r["hit_rate"], 3) == 0.25 and _r["verdict"] == "WEAK", (
    f"early breakpoint: 2,000 read / 8,009 in all = 0.250, WEAK; got {_r['hit_rate']:.3f} "
    f"{_r['verdict']}")
_r, _i, _w, _rd = rec["mixed"], h.mixed_in, h.mixed_write, h.mixed_read
_want = _rd / (_rd + _w + _i)
assert abs(_r["hit_rate"] - _want) < 1e-12, (
    f"read {_rd} / ({_rd} + write {_w} + uncached {_i}) = {_want:.4f}, got {_r['hit_rate']!r}")
_hr, _want = rec["sevenths"]["hit_rate"], h.odd_read / h.odd_total
assert abs(_hr - _want) < 1e-12, (
    f"hit rate is not rounded: read {h.odd_read} of {h.odd_total} tokens = {_want!r}, "
    f"got {_hr!r}")
_out = rec["empty"]
assert _out["raised"] is None, (
    f"no input at all: hit_rate 0.0 and BROKEN, not a {_out['raised']['type']}: "
    f"{_out['raised']['message']}")
_r = _out["value"]
assert _r["hit_rate"] == 0.0 and _r["verdict"] == "BROKEN", (
    f"no input at all: hit_rate 0.0 and BROKEN, not a ZeroDivisionError; got {_r}")
### END HIDDEN TESTS

# %% id="verdict_thresholds" kind="tests" points=2
from course.worlds.cache_audit import early_breakpoint, support_api

api, cache, clock = support_api()
client = api.client()
client.messages.create(**early_breakpoint("warm-up"))
report = audit_caching(early_breakpoint, client=client, n=1)
assert report["verdict"] == "WEAK", (
    f"a 0.25 hit rate is above 0.1 and not above 0.7: WEAK, got {report['verdict']!r}")

from course.worlds.cache_audit import billed_as


def plain(q):
    return {"model": "claude-opus-5", "max_tokens": 8, "messages": [{"role": "user", "content": q}]}


for row, want in [((3_000, 0, 7_000), "WEAK"), ((2_999, 0, 7_001), "HEALTHY"),
                  ((9_000, 0, 1_000), "BROKEN"), ((8_999, 0, 1_001), "WEAK")]:
    got = audit_caching(plain, client=billed_as([row]).client(), n=1)["verdict"]
    assert got == want, (
        f"strict thresholds (HEALTHY if > 0.7, WEAK if > 0.1, else BROKEN): hit rate "
        f"{row[2] / sum(row)} is {want}, got {got!r}")
try:
    zero = audit_caching(plain, client=billed_as([]).client(), n=0)
except Exception as e:   # noqa: BLE001 -- the type is the check
    zero = e
assert isinstance(zero, ValueError), f"n < 1 raises ValueError: n=0 got {zero!r}"
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record
from course.worlds.cache_audit import billed_as as _billed_as

h = hidden_inputs(at_07=range(1, 100_000), above_07=range(201, 100_000),
                  at_01=range(1, 100_000), above_01=range(201, 100_000),
                  write_only=range(1, 100_000), high_in=range(0, 200),
                  high_read=range(800, 100_000), bad_n=range(-100, 0))


def _verdict(i, w, r):
    _q = lambda q: {"model": "claude-opus-5", "max_tokens": 8,  # noqa: E731
                    "messages": [{"role": "user", "content": q}]}
    return audit_caching(_q, client=_billed_as([(i, w, r)]).client(), n=1)["verdict"]


_rows = [(3 * h.at_07, 0, 7 * h.at_07), (3 * h.above_07 - 1, 0, 7 * h.above_07 + 1),
         (9 * h.at_01, 0, h.at_01), (9 * h.above_01 - 1, 0, h.above_01 + 1),
         (0, h.write_only, 0), (h.high_in, 0, h.high_read)]
rec = record(verdict=report["verdict"], rows=[[_row, _verdict(*_row)] for _row in _rows],
             none=outcome(audit_caching, lambda q: {}, client=_billed_as([]).client(),
                          n=h.bad_n),
             no_calls=outcome(audit_caching, lambda q: {}, client=_billed_as([]).client(),
                              n=0))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(at_07=range(1, 100_000), above_07=range(201, 100_000),
                  at_01=range(1, 100_000), above_01=range(201, 100_000),
                  write_only=range(1, 100_000), high_in=range(0, 200),
                  high_read=range(800, 100_000), bad_n=range(-100, 0))

assert rec["verdict"] == "WEAK", (
    f"a 0.25 hit rate is above 0.1 and not above 0.7: WEAK, got {rec['verdict']}")
_seen = {tuple(_row): _got for _row, _got in rec["rows"]}
for _row, _want in [((3 * h.at_07, 0, 7 * h.at_07), "WEAK"),
                    ((3 * h.above_07 - 1, 0, 7 * h.above_07 + 1), "HEALTHY"),
                    ((9 * h.at_01, 0, h.at_01), "BROKEN"),
                    ((9 * h.above_01 - 1, 0, h.above_01 + 1), "WEAK"),
                    ((0, h.write_only, 0), "BROKEN"), ((h.high_in, 0, h.high_read), "HEALTHY")]:
    _got = _seen[_row]
    assert _got == _want, (
        f"strict thresholds: hit rate {_row[2] / sum(_row):.4f} is {_want}, got {_got!r} "
        "(HEALTHY if > 0.7, WEAK if > 0.1, else BROKEN)")
for _n, _what in ((h.bad_n, rec["none"]), (0, rec["no_calls"])):
    _raised = _what["raised"]["type"] if _what["raised"] else None
    assert _raised == "ValueError", f"n < 1 raises ValueError: n={_n} got {_what!r}"
### END HIDDEN TESTS

# %% id="invalidators_flip_to_broken" kind="tests" points=2
from course.worlds.cache_audit import stamped, support_api

api, cache, clock = support_api()
report = audit_caching(stamped(), client=api.client())
assert report["verdict"] == "BROKEN", (
    f"a timestamp in the system prompt changes the prefix every call: BROKEN, got "
    f"{report['verdict']!r}")

from course.worlds.cache_audit import too_short

api, cache, clock = support_api()
short = audit_caching(too_short, client=api.client())
assert short["verdict"] == "BROKEN" and [c["cache_write"] for c in short["per_call"]] == [0] * 3, (
    f"a prefix below the 512-token minimum is never written, and nothing raises: BROKEN with "
    f"writes [0, 0, 0], got {short!r}")
### BEGIN HIDDEN TESTS
import datetime as _dt

from course.observe import hidden_inputs, outcome, record
from course.worlds.cache_audit import model_switch as _model_switch
from course.worlds.cache_audit import shuffled as _shuffled
from course.worlds.cache_audit import stamped as _stamped
from course.worlds.cache_audit import support_api as _support_api
from course.worlds.cache_audit import too_short as _too_short

h = hidden_inputs(stamp_at=range(0, 400_000_000))
_start = (_dt.datetime(2020, 1, 1) + _dt.timedelta(seconds=h.stamp_at)).isoformat()
_audits = {}
for _name, _build in [("a shuffled tool dict", _shuffled()), ("a model switch", _model_switch()),
                      ("a prefix below the minimum", _too_short),
                      (f"a timestamp from {_start}", _stamped(_start))]:
    _api, _cache, _clock = _support_api()
    _audits[_name] = outcome(audit_caching, _build, client=_api.client())
rec = record(verdict=report["verdict"], audits=_audits)
### JUDGE
import datetime as _dt

from course.observe import hidden_inputs

h = hidden_inputs(stamp_at=range(0, 400_000_000))
_start = (_dt.datetime(2020, 1, 1) + _dt.timedelta(seconds=h.stamp_at)).isoformat()
assert rec["verdict"] == "BROKEN", (
    f"a timestamp in the system prompt changes the prefix every call: BROKEN, got "
    f"{rec['verdict']}")
for _name in ["a shuffled tool dict", "a model switch", "a prefix below the minimum",
              f"a timestamp from {_start}"]:
    _out = rec["audits"][_name]
    _e = _out["raised"]
    assert _e is None, f"{_name}: the audit raised {_e['type']}: {_e['message']}"
    assert _out["value"]["verdict"] == "BROKEN", (
        f"{_name} must read as BROKEN, got {_out['value']['verdict']}")
_per_call = rec["audits"]["a prefix below the minimum"]["value"]["per_call"]
assert [c["cache_write"] for c in _per_call] == [0, 0, 0], (
    f"below the 512-token minimum of claude-opus-5 nothing is written, and nothing raises: "
    f"{_per_call}")
### END HIDDEN TESTS

# %% id="invalidator_names_the_line" kind="tests" points=2
from course.worlds.cache_audit import stamped

found = find_invalidator(stamped())
assert "Current time" in found, (
    f"the timestamp line of the system prompt must be named; got {found!r}")

from course.worlds.cache_audit import healthy, model_switch

switch = find_invalidator(model_switch())
assert switch == '-  "model": "claude-opus-5",\n+  "model": "claude-sonnet-5",', (
    f"each changed line is '-' or '+' glued to the rendered line, joined by '\\n': got {switch!r}")


def two_runs(q):
    n = 1 if q == "q1" else 2
    return {"max_tokens": 10 * n, "messages": q, "metadata": {"user_id": "u1"},
            "model": f"m{n}", "system": f"s{n}", "tools": []}


runs = find_invalidator(two_runs).split("\n")
assert runs == ['-  "max_tokens": 10,', '+  "max_tokens": 20,', '-  "model": "m1",',
                '-  "system": "s1",', '+  "model": "m2",', '+  "system": "s2",'], (
    f"unified_diff order: each run of changed lines gives its '-' lines, then its '+' lines; "
    f"got {runs!r}")
seen = []


def recording(q):
    seen.append(q)
    return healthy(q)


find_invalidator(recording)
assert seen == ["q1", "q2"], (
    f"build_request is called once with probe_a, then once with probe_b: got {seen!r}")
### BEGIN HIDDEN TESTS
import datetime as _dt

from course.observe import hidden_inputs, record
from course.worlds.cache_audit import model_switch as _model_switch
from course.worlds.cache_audit import stamped as _stamped

h = hidden_inputs(stamp_at=range(0, 400_000_000),
                  switch_a=("first question", "where is my invoice?", "reset my password"),
                  switch_b=("second question", "why was I billed twice?", "close my account"),
                  left=("left", "first", "alpha", "q-a"),
                  right=("right", "second", "beta", "q-b"), left_n=range(1, 9), gap=range(1, 5))


def _three_runs(q):
    n = h.left_n if q == h.left else h.left_n + h.gap
    return {"max_tokens": 100 * n, "messages": [q], "model": "m", "system": "same",
            "temperature": n / 10, "top_k": n}


def _asked(q):
    n = h.left_n if q == "q1" else 2 * h.left_n
    return {"max_tokens": 100, "messages": [h.left], "model": "m", "system": f"asked {n} times"}


_start = (_dt.datetime(2020, 1, 1) + _dt.timedelta(seconds=h.stamp_at)).isoformat()
rec = record(found=found, again=find_invalidator(_stamped(_start)),
             switch=find_invalidator(_model_switch(), h.switch_a, h.switch_b),
             runs=find_invalidator(_three_runs, h.left, h.right),
             defaults=find_invalidator(_asked))
### JUDGE
import datetime as _dt
import json as _json

from course.observe import hidden_inputs

h = hidden_inputs(stamp_at=range(0, 400_000_000),
                  switch_a=("first question", "where is my invoice?", "reset my password"),
                  switch_b=("second question", "why was I billed twice?", "close my account"),
                  left=("left", "first", "alpha", "q-a"),
                  right=("right", "second", "beta", "q-b"), left_n=range(1, 9), gap=range(1, 5))
_t0 = _dt.datetime(2020, 1, 1) + _dt.timedelta(seconds=h.stamp_at)
_at1, _at2 = (f"{(_t0 + _dt.timedelta(seconds=s)).isoformat()}Z" for s in (1, 2))
assert "Current time" in rec["found"], (
    f"the timestamp line of the system prompt must be named; got {rec['found']!r}")
_lines = rec["again"].split("\n")
assert all(_ln[:1] in "+-" for _ln in _lines), (
    f"every changed line starts with '-' or '+': {_lines[:3]}")
assert len(_lines) == 2 and _lines[0].startswith('-      "text": ') and _at1 in _lines[
    0] and _lines[1].startswith('+      "text": ') and _at2 in _lines[1], (
    f"'-' lines come from probe_a's render ({_at1}), '+' from probe_b's ({_at2}): {_lines!r}")
_found = rec["switch"]
assert _found == '-  "model": "claude-opus-5",\n+  "model": "claude-sonnet-5",', (
    f"a model switch changes the model line (probes {h.switch_a!r}, {h.switch_b!r}); "
    f"got {_found!r}")
_a, _b = h.left_n, h.left_n + h.gap
_want = [f'-  "max_tokens": {100 * _a},', f'+  "max_tokens": {100 * _b},',
         f'-  "temperature": {_json.dumps(_a / 10)},', f'-  "top_k": {_a}',
         f'+  "temperature": {_json.dumps(_b / 10)},', f'+  "top_k": {_b}']
_runs = rec["runs"].split("\n")
assert _runs == _want, (
    f"unified_diff order: each run of changed lines gives its '-' lines, then its '+' lines "
    f"({_want}); got {_runs!r}")
_sides = rec["defaults"].split("\n")
_want = [f'-  "system": "asked {h.left_n} times"', f'+  "system": "asked {2 * h.left_n} times"']
assert _sides == _want, (
    f"by default probe_a is 'q1' and probe_b 'q2': the '-' line comes from q1's request, "
    f"the '+' line from q2's ({_want}); got {_sides!r}")
### END HIDDEN TESTS

# %% id="invalidator_sees_key_order" kind="tests" points=1
from course.worlds.cache_audit import shuffled

found = find_invalidator(shuffled())
assert found != NO_DIFF, (
    "dict key order is part of the cached bytes: sort_keys hides a shuffled tool schema")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.cache_audit import shuffled as _shuffled

h = hidden_inputs(probe_a=("alpha", "where is my invoice?", "reset password", "Q-17 refund"),
                  probe_b=("beta", "why was I billed twice?", "close account", "Q-18 outage"))
rec = record(found=found, no_diff=NO_DIFF,
             other=find_invalidator(_shuffled(), h.probe_a, h.probe_b))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(probe_a=("alpha", "where is my invoice?", "reset password", "Q-17 refund"),
                  probe_b=("beta", "why was I billed twice?", "close account", "Q-18 outage"))

assert rec["found"] != rec["no_diff"], (
    "dict key order is part of the cached bytes: sort_keys hides a shuffled tool schema")
_found = rec["other"]
assert '"region"' in _found or '"fields"' in _found, (
    f"the reordered schema properties must be named (probes {h.probe_a!r}, {h.probe_b!r}); "
    f"got {_found[:80]!r}")
### END HIDDEN TESTS

# %% id="invalidator_ignores_probe" kind="tests" points=1
from course.worlds.cache_audit import healthy

found = find_invalidator(healthy)
assert found == NO_DIFF, (
    f"lines holding the probes differ on purpose; drop them. A healthy builder gave {found!r}")
quoted = find_invalidator(healthy, 'refund "now"?', "café au lait")
assert quoted == NO_DIFF, (
    "probe lines are matched as the render writes the probe, json.dumps(probe)[1:-1]: a quote "
    "or a non-ASCII probe left these lines (first 120 characters each): "
    f"{[line[:120] for line in quoted.split(chr(10))]!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds.cache_audit import healthy as _healthy
from course.worlds.cache_audit import too_short as _too_short

h = hidden_inputs(plain_a=("refund for March?", "how do I export data?", "is SSO included"),
                  plain_b=("refund for May?", "can I change my plan?", "where are the logs"),
                  escaped_a=('say "hi" at C:\\tmp', 'naïve "quoted" \\d+', "café\\n au lait",
                             '«tab»\there'),
                  escaped_b=("naïve über ✓", 'über "x" \\ y', "日本語の質問", 'a\\b "c" é'))
rec = record(found=found, no_diff=NO_DIFF,
             other=find_invalidator(_healthy, h.plain_a, h.plain_b),
             escaped=find_invalidator(_healthy, h.escaped_a, h.escaped_b),
             short=find_invalidator(_too_short))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(plain_a=("refund for March?", "how do I export data?", "is SSO included"),
                  plain_b=("refund for May?", "can I change my plan?", "where are the logs"),
                  escaped_a=('say "hi" at C:\\tmp', 'naïve "quoted" \\d+', "café\\n au lait",
                             '«tab»\there'),
                  escaped_b=("naïve über ✓", 'über "x" \\ y', "日本語の質問", 'a\\b "c" é'))

assert rec["found"] == rec["no_diff"], (
    f"lines holding the probes differ on purpose; drop them. A healthy builder gave "
    f"{rec['found'][:60]!r}")
assert rec["other"] == rec["no_diff"], (
    f"other probe strings ({h.plain_a!r}, {h.plain_b!r}): their lines must be dropped too")
assert rec["escaped"] == rec["no_diff"], (
    f"probe lines are matched as the render writes the probe, json.dumps(probe)[1:-1]: probes "
    f"{h.escaped_a!r} and {h.escaped_b!r} left lines (first 120 characters each): "
    f"{[_ln[:120] for _ln in rec['escaped'].split(chr(10))]!r}")
assert rec["short"] == rec["no_diff"], (
    "a too-short prefix is stable: the diff is empty, which is why you check its length")
### END HIDDEN TESTS

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain (3 points, graded by hand)
#
# A team runs claude-sonnet-5 (\$2/\$10 per MTok) with a 30,000-token cached prefix, 500
# uncached tokens and 800 output tokens per call, 10,000 calls a day. A refactor adds the
# request id to the first line of the system prompt. Work out the cost of one warm call
# before and after, the daily difference, and the hit rate and verdict your audit reports
# after the change. Then say what `find_invalidator` prints, and what it would print if the
# real problem were a 900-token prefix instead.

# %% [markdown] id="explain_new_case" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** Before: 30,000 read × \$2/MTok × 0.10 = \$0.006, plus 500 × \$2/MTok =
# \$0.001, plus 800 × \$10/MTok = \$0.008: \$0.015 a call, \$150 a day. After: the request
# id changes the first line, every token after it has different key and value vectors, so
# every call writes the 30,000 again at 1.25×: \$0.075 + \$0.001 + \$0.008 = \$0.084 a
# call, \$840 a day, 5.6× and \$690 a day more, with no error. The hit rate on the last
# call goes from 30,000 / 30,500 = 0.984 (HEALTHY) to 0 / 30,500 = 0 (BROKEN).
# `find_invalidator` prints the two system-prompt lines, `-` with the first request id and
# `+` with the second: the probe lines are dropped, so the request id is all that is left.
# With a 900-token prefix nothing is cached at all (below claude-sonnet-5's 1,024 minimum),
# the renders differ only in the probe, and it prints the no-difference message: the diff
# cannot see a length problem, so a BROKEN verdict with an empty diff means check the prefix
# length.
#
# **Mark scheme (3 points).**
# * 1 — prices: \$0.015 and \$0.084 per call (or \$150 and \$840 a day, 5.6×), with the
#   broken prefix billed as a 1.25× write, not as a 1.0× read or as vanished tokens.
# * 1 — hit rate 0.984 → 0 and HEALTHY → BROKEN, read on a warm (last) call.
# * 1 — the diff names the system-prompt line with the request id (probe lines dropped); a
#   900-token prefix gives no diff and is found by checking the length, not the diff.
# ### END SOLUTION

# %% [markdown] kind="instructor"
# **For the lecturer.** Run section 1's cell, then `clock.advance(301)` live and rerun the
# last call: the write comes back. Live-code `audit_caching` first and run it over every
# builder in `world.builders()`; then `find_invalidator`, and show the `sort_keys=True`
# version going silent on `shuffled()`. The mutants in `tests/mutants/lab07_cache_audit.py`
# each lose exactly the cells they name.
