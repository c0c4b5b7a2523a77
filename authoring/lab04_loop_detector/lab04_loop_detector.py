# %% [markdown]
# # Lab 4 — Loop detector
#
# **18 points**: 15 autograded (eight test cells) and 3 for a short written answer.
#
# **In:** every tool call the agent makes, a snapshot of the world after it, and (when you
# have one) a progress number. **Out:** `None` (keep going), or a *nudge*: one sentence that
# tells the model exactly what it is repeating, which the harness sends back as that call's
# tool result. When the run is over, the string is the reason and `halted` says so.
#
# ## The API you implement
#
# ```python
# guard = LoopGuard(repeat=3, cycle=2, stall=6, max_steps=40)
# guard.check(tool, args, state, progress=None)  # -> None | str
# guard.halted   # True once the step cap is passed; check() never raises
# guard.trips    # nudges given so far; the harness halts when a second one is needed
# ```
#
# | signal | trips when | the message must contain |
# |---|---|---|
# | identical call | the same `(tool, args)` arrives for the `repeat + 1`-th time | the tool's name |
# | frozen world | the same `state` is seen for the `cycle + 1`-th time | `cycling` |
# | stall | `stall + 1` steps in a row fail to beat the **best** `progress` so far (higher is better; `None` means "not measured") | `progress` |
# | step cap | call `max_steps + 1`: set `halted = True`, return the reason | any wording |
#
# The signals are checked in the table's order, step cap first. The first that trips returns
# its message, and the signals after it do not see that call (a call that trips the
# identical-call signal does not count toward the frozen world or the stall). Each nudge
# adds 1 to `trips`; the step cap does not. `progress=None` means "not measured": it neither
# resets the stall count nor adds to it. Once `halted`, every later `check` returns the
# step-cap message again; the step cap comes first, so such a call reaches no other signal
# and leaves `trips` as it was.
#
# Only the step cap sets `halted`. The harness ends a run on its second trip by reading
# `trips`, so the guard itself keeps going: after a second nudge `halted` is still False,
# and later calls go through the table as before (a third identical repeat is a third nudge).
#
# Words are matched without regard to case. Fingerprints of `args` and `state` must not
# depend on the order of dictionary keys (at any depth), and values that JSON cannot encode
# (a `datetime`, a `Decimal`, a `Path`) must not make `check` fail.

# %% [markdown]
# ## Why it exists
#
# A stuck agent is not a confused agent. Each lap of the loop appends a (call, result) pair
# to the transcript, and the next forward pass reads the whole transcript. After three
# near-identical pairs, the transcript *is* a worked example of repeating yourself: the same
# structure as the few-shot examples people put in prompts on purpose. A fourth identical
# call is now the most likely continuation, and every further lap makes it likelier. So the
# loop feeds itself, and waiting for the model to notice is not a strategy.
#
# A step cap does not fix this either. It tells you *afterwards* that the run was expensive.
# It does not say what the run was stuck on, and it never gives the model a chance to get
# out. The guard does both: it names the loop in a message that lands in the transcript,
# which breaks the pattern the model is continuing, and it halts only if that fails.

# %%
from course.fakes import FakeAPI, Scripted
from course.worlds import loops

# %% [markdown]
# ## The bug it prevents
#
# ### 1. A loop whose only brake is the step cap
#
# The scripted model below is stuck the way the mechanism above predicts: it searches the
# docs for `"rate limit"`, gets `0 results` (the docs call it *throttling*), and asks for
# the same search again, forever. The loop around it has a `for`-range and nothing else.

# %%
world = loops.DocsWorld()
api = FakeAPI(Scripted(loops.deaf_model))
client = api.client()

history = [{"role": "user", "content": loops.GOAL}]
billed_in, billed_out, tool_calls = [], [], []
for lap in range(40):  # the step cap: the only brake this loop has
    turn = client.messages.create(model=loops.MODEL, max_tokens=512,
                                  tools=loops.TOOLS, messages=history)
    billed_in.append(turn.usage.input_tokens)
    billed_out.append(turn.usage.output_tokens)
    asks = [b for b in turn.content if b.type == "tool_use"]
    if not asks:
        break
    tool_calls += [(b.name, b.input) for b in asks]
    history.append({"role": "assistant", "content": turn.content})
    history.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": b.id, "content": world.dispatch(b.name, b.input)}
        for b in asks]})

unguarded_usd = loops.usd(sum(billed_in), sum(billed_out))
distinct = {(name, str(args)) for name, args in tool_calls}
print(f"model calls: {len(billed_in)}   tool calls: {len(tool_calls)}   "
      f"distinct tool calls: {len(distinct)}")
print(f"input tokens per request: {billed_in[0]} on the first, {billed_in[-1]} on the last")
print(f"billed: {sum(billed_in):,} input + {sum(billed_out):,} output tokens "
      f"= ${unguarded_usd:.4f} at claude-opus-5 prices")
print("and the run ended with:", "an answer" if not asks else "no answer, just the cap")

# %% [markdown]
# Forty tool calls, one distinct call among them, no answer. Each request resends the whole
# history, so every lap adds the same (call, result) pair to every later request. The bill
# is the sum of an arithmetic series, `n·P + a·n(n−1)/2` for `n` requests, a first request
# of `P` tokens and `a` tokens added per lap: it grows with the square of the laps, not
# linearly. (A common shortcut writes `n·P + a·n²/2`, the large-`n`
# approximation; the exact sum has `n(n−1)/2` here, or `n(n+1)/2` if the first request
# already carries one lap.) Checked against the run:

# %%
n, P = len(billed_in), billed_in[0]
a = (billed_in[-1] - billed_in[0]) / (n - 1)
print(f"P = {P} tokens, a = {a:.1f} tokens per lap")
print(f"n·P + a·n(n−1)/2 = {n * P + a * n * (n - 1) / 2:,.0f}   measured: {sum(billed_in):,}"
      f"   (a·n²/2 version: {n * P + a * n * n / 2:,.0f})")

# %% [markdown]
# Our fake conversation is small, so the dollars are small. Lab 3's cost table has the same
# failure at production size: task `a93` hit a 40-step cap with no guard. Its neighbour
# `a91` finished in 6 turns. Priced with the same function:

# %%
a93 = loops.usd(1_904_000, 16_400)
a91 = loops.usd(41_200, 2_100)
print(f"a93 (stuck, 40 turns): ${a93:.2f}   a91 (healthy, 6 turns): ${a91:.2f}   "
      f"ratio {a93 / a91:.0f}x")

# %% [markdown]
# ### 2. Three shapes of loop, and what the obvious detectors see
#
# "Has this exact call happened before?" catches one shape. Here are all three, as step
# lists from `course.worlds.loops` (each is 8 steps long):
#
# * **A, identical repeat:** `search_docs {"q": "rate limit"}` again and again.
# * **B, A/B/A cycle:** `read_file` then `write_file` on `config.yaml`, alternating. No two
#   consecutive calls are the same, but the file never changes: the *world* repeats.
# * **C, flat progress:** a different edit each time and the tests rerun after it. The calls
#   vary and the code changes, but the number of passing tests never moves.
#
# Two detectors people write first: "same call as the previous step" and "some call made
# more than 3 times".

# %%
def first_repeat_of_previous(steps):
    """1-based step at which a call equals the call just before it (None if never)."""
    for n in range(1, len(steps)):
        if (steps[n].tool, steps[n].args) == (steps[n - 1].tool, steps[n - 1].args):
            return n + 1
    return None


def first_call_seen_four_times(steps):
    """1-based step at which some (tool, args) pair is seen for the fourth time."""
    tally = {}
    for n, s in enumerate(steps, start=1):
        key = (s.tool, repr(s.args))
        tally[key] = tally.get(key, 0) + 1
        if tally[key] == 4:
            return n
    return None


print(f"{'shape':22} {'same as previous':>17} {'call seen 4 times':>18}")
for shape, make in loops.SHAPES.items():
    steps = make()
    print(f"{shape:22} {first_repeat_of_previous(steps) or 'never':>17} "
          f"{first_call_seen_four_times(steps) or 'never':>18}")

# %% [markdown]
# Shape A is caught by both. Shape B slips past the "same as previous" check entirely, and
# the call counter only sees it at step 7, because `read_file` needs four laps to be seen
# four times. Shape C is invisible to both: every call is different. What repeats in B is
# the **state**, and what is flat in C is the **progress**, so the guard watches three
# separate signals, one per shape.
#
# Two details decide whether the call fingerprint works at all:
#
# * `{"q": "x", "k": 5}` and `{"k": 5, "q": "x"}` are the same call. Models do not promise
#   a key order, so a fingerprint of the raw JSON text misses real repeats.
# * Tool arguments and world snapshots are not always JSON: a `datetime` or a `Decimal` in a
#   snapshot makes a plain `json.dumps` raise, and a guard that raises kills the run.

# %%
import json
from datetime import datetime

print(json.dumps({"q": "x", "k": 5}) == json.dumps({"k": 5, "q": "x"}))
try:
    json.dumps({"as_of": datetime(2025, 3, 1)})
except TypeError as exc:
    print("TypeError:", exc)

# %% [markdown]
# ## Tier 1: pseudocode
#
# ```text
# on every tool call (tool, args, state, progress):
#     steps += 1
#     if steps > MAX_STEPS:                 halted = True; return "step cap ..."
#     count fingerprint(tool, args)
#     if it was seen more than REPEAT times: trips += 1; return "you called <tool> ..."
#     count fingerprint(state)
#     if it was seen more than CYCLE times:  trips += 1; return "... cycling ..."
#     if progress is given:
#         if it beats the best so far:       best = progress; flat = 0
#         else:                              flat += 1
#         if flat > STALL:                   trips += 1; return "no progress ..."
#     return None
#
# the harness, for each check that returns a string:
#     if halted or trips > 1:  stop, and return a partial report with that reason
#     else:                    send the string back as this call's tool result (is_error)
# ```
#
# The comparisons are `>`, not `>=`: with `repeat=3` the third identical call is still
# allowed and the fourth trips. The stall counter resets only when progress beats the
# **best** value so far, so a run that slides back and forth below its best is still
# stalled, and a run that inches forward is never accused.
#
# **With LangGraph** the guard becomes a node between the tools node and the agent node. A
# nudge is a message the node adds to the graph state, and the halt is a conditional edge
# to `END` when a second trip happens. `LoopGuard` itself does not change.

# %% [markdown]
# ## Implement
#
# `fingerprint` is a helper for you (it is not graded on its own): turn any value into a
# short string that is the same for equal content, whatever the key order, and that does
# not fail on values JSON cannot encode. `hashlib` and `json` are enough.

# %% id="loop_guard" kind="solution"
import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    ### BEGIN SOLUTION
    canonical = json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
    ### END SOLUTION


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        ### BEGIN SOLUTION
        self.repeat, self.cycle, self.stall = repeat, cycle, stall
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self.call_counts = Counter()
        self.state_counts = Counter()
        self.best_progress = None
        self.steps_without_gain = 0
        ### END SOLUTION

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        ### BEGIN SOLUTION
        self.steps += 1
        if self.steps > self.max_steps:
            self.halted = True
            return (f"Step cap of {self.max_steps} tool calls reached, so this run stops "
                    "here. Report what you found and what is still missing.")

        def nudge(text):
            self.trips += 1
            return text

        call_id = fingerprint([tool, args])
        self.call_counts[call_id] += 1
        seen = self.call_counts[call_id]
        if seen > self.repeat:
            return nudge(f"You have called {tool} with these exact arguments {seen} times; "
                         "it will not return anything new. Try a different approach or "
                         "report what is blocking you.")

        state_id = fingerprint(state)
        self.state_counts[state_id] += 1
        if self.state_counts[state_id] > self.cycle:
            return nudge("Nothing in the system has changed over your last few steps: you "
                         "appear to be cycling. Stop, summarise what you tried, and choose "
                         "a different action.")

        if progress is not None:
            if self.best_progress is None or progress > self.best_progress:
                self.best_progress = progress
                self.steps_without_gain = 0
            else:
                self.steps_without_gain += 1
                if self.steps_without_gain > self.stall:
                    return nudge(f"No progress in {self.steps_without_gain} steps (the best "
                                 f"so far is still {self.best_progress}). Change strategy or "
                                 "report the blocker.")
        return None
        ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# Quick checks on the step lists from section 2 and on a healthy run. Press **Validate** too:
# each graded cell has a visible check for the most common mistake of its property. They are
# **not** the grade: hidden tests in the same cells run more cases (other thresholds, the
# order of signals, what happens after a halt, the scripted models).

# %%
assert fingerprint({"a": 1, "b": {"x": 1, "y": 2}}) == fingerprint({"b": {"y": 2, "x": 1}, "a": 1}), (
    "fingerprint changed with the order of dictionary keys: encode with sorted keys")
assert isinstance(fingerprint({"when": datetime(2025, 3, 1)}), str), (
    "fingerprint must return a string, also for values JSON cannot encode (a datetime)")


def first_trip(steps, **thresholds):
    guard = LoopGuard(**thresholds)
    for n, s in enumerate(steps, start=1):
        if guard.check(s.tool, s.args, s.state, s.progress) is not None:
            return n
    return None


print({shape: first_trip(make()) for shape, make in loops.SHAPES.items()})
assert first_trip(loops.identical_repeat()) == 4, "repeat=3 allows three identical calls"
assert first_trip(loops.ab_cycle()) == 3, "cycle=2 allows the same state twice"
assert first_trip(loops.flat_progress()) == 8, "stall=6 allows six steps without a gain"
assert first_trip(loops.healthy_run()) is None, "the healthy run must never trip"
print("self-check passed (the graded tests check more)")

# %% [markdown]
# ## The stuck run again, with your guard wired in
#
# `loops.run_guarded(guard, listens=...)` replays the same stuck model against your guard,
# wired as the pseudocode says: the first trip goes back to the model as an error output,
# and a second trip ends the run with a partial report. It is a scenario harness, not an
# agent loop: it asks the scripted model for its next move directly. Two temperaments: the
# same deaf model, and one that reads an error output and changes approach.

# %%
runs = {name: loops.run_guarded(LoopGuard(), listens=listens)
        for name, listens in [("deaf", False), ("listening", True)]}

print(f"{'run':12} {'outcome':9} {'tool calls':>10} {'model calls':>11} {'usd':>9}")
print(f"{'unguarded':12} {'cap':9} {len(tool_calls):>10} {len(billed_in):>11} "
      f"{unguarded_usd:>9.4f}")
for name, rep in runs.items():
    print(f"{name:12} {rep.outcome:9} {rep.tool_calls:>10} {rep.requests:>11} {rep.usd:>9.4f}")
print("\nthe nudge the model read:", runs["listening"].nudges[0])
print("the listening model's answer:", runs["listening"].text)
print(f"\nthe guard cut the stuck run's bill {unguarded_usd / runs['deaf'].usd:.0f}x "
      f"(${unguarded_usd - runs['deaf'].usd:.4f} saved on this one small conversation)")

# %% [markdown]
# In this world a search changes nothing, so the frozen-state signal is the first to fire
# (at the third call); the identical-call signal would have fired at the fourth. The model
# that listens recovers after one nudge and answers. The deaf one is stopped at its second
# trip with a reason, not a stack trace, and not after 40 calls.
#
# ### Common claims about loop detectors, checked
#
# * "Testing that the guard nudges before it halts needs a live model." It does not: a
#   scripted model is enough, and the graded test below runs it offline.
# * "Count failing tests as the progress signal." The detector treats a larger progress
#   number as better. Pass a higher-is-better metric: tests passing, or minus tests failing.
# * "Stub the snapshot as `return {}` until you need it." A constant snapshot makes the
#   frozen-state signal fire on the third tool call of *every* run. The snapshot must change
#   when the world does.
# * "Hashing the call is blind to the A/B/A cycle" holds for the consecutive check; a
#   whole-run call counter does see shape B, just four steps later (section 2).
# * `default=str` is only as good as `str()`: an object without its own `__repr__` prints its
#   memory address, so two equal objects get different fingerprints. Give snapshots plain
#   values.
# * The counters cover the whole run, not a window, so reading the same file four times in
#   a healthy run trips the identical-call signal. Measure false positives on your own
#   traces before you ship the thresholds.

# %% [markdown]
# ## Graded tests
#
# One cell per property. Each shows the check for the most common mistake of its property;
# hidden tests in the same cell run more cases.

# %% id="repeat_trips_on_fourth_call" kind="tests" points=2
guard = LoopGuard()
assert guard.check("get_order", {"id": "A-17"}, {"t": 0}) is None, \
    "a first call can never be a repeat"
_g = LoopGuard()
_out = [_g.check("search_docs", {"q": "rate limit"}, {"step": i}) for i in range(4)]
_first = next((n for n, v in enumerate(_out, start=1) if v is not None), None)
assert _out[:3] == [None, None, None], (
    f"the identical call tripped on call {_first}; repeat=3 allows three identical calls, "
    "so compare the count with >, not >=")
assert isinstance(_out[3], str), (
    "four identical search_docs calls (state changing each time) did not trip; count "
    "fingerprint(tool, args) over the run and trip when the count exceeds repeat")
assert "search_docs" in _out[3], (
    f"identical call: the repeat nudge must name the tool it repeats, got {_out[3]!r}")
assert _g.trips == 1, f"identical call: one nudge was given but trips is {_g.trips}"
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(repeat=range(4, 10), tool=("get_order", "fetch_invoice", "lookup_ticket",
                                             "list_refunds"), ref=range(10, 100))
_g5 = LoopGuard(repeat=h.repeat)
_out5 = [_g5.check(h.tool, {"id": f"A-{h.ref}"}, {"t": i}) for i in range(h.repeat + 1)]
rec = record(first=LoopGuard().check("get_order", {"id": "A-17"}, {"t": 0}),
             out=_out, trips=_g.trips, out5=_out5)
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(repeat=range(4, 10), tool=("get_order", "fetch_invoice", "lookup_ticket",
                                             "list_refunds"), ref=range(10, 100))
assert rec["first"] is None, "a first call can never be a repeat"
out = rec["out"]
first = next((n for n, v in enumerate(out, start=1) if v is not None), None)
assert out[:3] == [None, None, None], (
    f"the identical call tripped on call {first}; repeat=3 allows three identical calls, "
    "so compare the count with >, not >=")
assert isinstance(out[3], str), (
    "four identical search_docs calls (state changing each time) did not trip; count "
    "fingerprint(tool, args) over the run and trip when the count exceeds repeat")
assert "search_docs" in out[3], (
    f"the repeat nudge must name the tool it repeats, got: {out[3]!r}")
assert rec["trips"] == 1, f"one nudge was given but trips is {rec['trips']}"
out5 = [v is not None for v in rec["out5"]]
assert out5 == [False] * h.repeat + [True], (
    f"with repeat={h.repeat}, {h.repeat + 1} identical {h.tool} calls: call {h.repeat + 1} "
    f"must be the first to trip, got {out5}; use the repeat argument, not a hard-coded 3")
assert h.tool.lower() in rec["out5"][-1].lower(), (
    f"the repeat nudge must name the tool it repeats ({h.tool}), got: {rec['out5'][-1]!r}")
### END HIDDEN TESTS

# %% id="cycle_caught_by_state_only" kind="tests" points=2
guard = LoopGuard()
assert guard.check("read_file", {"path": "a.txt"}, {"a.txt": 1}) is None, \
    "a first state can never be a cycle"
_g = LoopGuard()
_ab = [_g.check(_t, {"path": "config.yaml"}, {"mtime": 1})
       for _t in ("read_file", "write_file", "read_file")]
assert _ab[:2] == [None, None], (
    f"read_file/write_file tripped early: {_ab[:2]}; cycle=2 allows the same state twice")
assert isinstance(_ab[2], str), (
    "read, write, read with the world frozen did not trip on the third step; count "
    "fingerprint(state) and trip when the count exceeds cycle")
assert "cycl" in _ab[2].lower(), (
    f"frozen world: the third step must trip as a cycle (the word 'cycling'), got {_ab[2]!r}")
_g = LoopGuard()
_after_repeat = [_g.check("get_order", {"id": "A-17"}, {"t": _i}) for _i in range(3)]
_after_repeat += [_g.check(_t, {"id": "A-17"}, {"t": "x"})
                  for _t in ("get_order", "list_orders", "get_refunds", "get_invoice")]
_tripped = [v is not None for v in _after_repeat]
assert _tripped[3:] == [True, False, False, True], (
    "order: a call that trips the identical-call signal must not count toward the frozen "
    "world; the 4th get_order (state x) tripped as a repeat, so state x was then seen only "
    f"by the next three calls and trips on the third of them; got {_tripped}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(path=("config.yaml", "settings.toml", "deploy.ini", "routes.json"),
                  mtime=range(100, 100_000), polls=range(3, 8),
                  queue=("empty", "idle", "drained", "paused"), repeat=(2, 3, 4), cycle=(1, 2, 3),
                  tool=("ping", "status", "heartbeat", "health_check"))
_g = LoopGuard()
_moving = [_g.check(_t, {"path": h.path}, {"mtime": h.mtime + _i})
           for _i, _t in enumerate(("read_file", "write_file", "read_file"))]
_g = LoopGuard(cycle=h.polls)
_polls = [_g.check(f"poll_{_i}", {}, {"queue": h.queue}) for _i in range(h.polls + 1)]
_g = LoopGuard(repeat=h.repeat, cycle=h.cycle)
_tight = [_g.check(h.tool, {}, {"s": _i}) for _i in range(h.repeat)]
_tight += [_g.check(_t, {}, {"s": "z"})
           for _t in [h.tool] + [f"peek_{_i}" for _i in range(h.cycle + 1)]]
rec = record(first=LoopGuard().check("read_file", {"path": "a.txt"}, {"a.txt": 1}),
             ab=_ab, moving=_moving, polls=_polls, after_repeat=_after_repeat, tight=_tight)
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(path=("config.yaml", "settings.toml", "deploy.ini", "routes.json"),
                  mtime=range(100, 100_000), polls=range(3, 8),
                  queue=("empty", "idle", "drained", "paused"), repeat=(2, 3, 4), cycle=(1, 2, 3),
                  tool=("ping", "status", "heartbeat", "health_check"))
assert rec["first"] is None, "a first state can never be a cycle"
ab = rec["ab"]
assert ab[:2] == [None, None], (
    f"read_file/write_file tripped early: {ab[:2]}; cycle=2 allows the same state twice")
assert isinstance(ab[2], str), (
    "read, write, read with the world frozen did not trip on the third step; count "
    "fingerprint(state) and trip when the count exceeds cycle")
assert "cycl" in ab[2].lower(), (
    f"the third step tripped, but not as a cycle (expected the word 'cycling'): {ab[2]!r}; "
    "no call repeated more than twice here, so only the state fingerprint should fire")
assert rec["moving"] == [None, None, None], (
    f"read_file, write_file, read_file on {h.path} with its mtime changing each time must not "
    f"trip, got {rec['moving']}")
polls = [v is not None for v in rec["polls"]]
assert polls == [False] * h.polls + [True] and "cycl" in rec["polls"][-1].lower(), (
    f"with cycle={h.polls}, {h.polls + 1} different calls in the state {{'queue': "
    f"{h.queue!r}}}: call {h.polls + 1} must be the first to trip, as a cycle; got "
    f"{rec['polls']}")
after = rec["after_repeat"]
tripped = [v is not None for v in after]
assert tripped[3:] == [True, False, False, True] and "cycl" in after[6].lower(), (
    "a call that trips the identical-call signal must not count toward the frozen world: "
    f"after a repeat trip in state x, the third later call in x trips as a cycle; got {after}")
tight = rec["tight"]
tripped = [v is not None for v in tight]
r, c = h.repeat, h.cycle
assert tripped[r:] == [True] + [False] * c + [True] and "cycl" in tight[-1].lower(), (
    f"with repeat={r}, cycle={c}: {h.tool} call {r + 1} (in state z) trips as a repeat and is "
    f"not counted toward z, so the next {c} calls in z pass and the one after them trips as "
    f"a cycle; got {tight}")
### END HIDDEN TESTS

# %% id="stall_counts_from_best" kind="tests" points=2
guard = LoopGuard()
assert guard.check("run_tests", {}, {"rev": 0}, progress=10.0) is None, \
    "a first progress reading can never be a stall"
_g = LoopGuard()
_flap = [14, 13, 14, 12, 14, 13, 14, 13]
_fl = [_g.check(f"fix_{i}", {"attempt": i}, {"rev": i}, progress=float(v))
       for i, v in enumerate(_flap)]
assert _fl[:7] == [None] * 7 and isinstance(_fl[7], str), (
    f"progress flapped 14, 13, 14, 12, ... never beating 14, so the run stalled at step 8; got "
    f"{['trip' if v else None for v in _fl]}. Count steps since the BEST value, not since "
    "the value last changed")
assert "progress" in _fl[7].lower(), (
    f"stall: the stall nudge must contain the word 'progress', got {_fl[7]!r}")
_g = LoopGuard(stall=1)
_nn = [_g.check(f"n_{i}", {"i": i}, {"rev": i}, progress=p)
       for i, p in enumerate([2.0, None, None, 1.0, None, 1.0])]
assert _nn[:5] == [None] * 5 and isinstance(_nn[5], str), (
    "stall: progress=None neither resets nor adds to the stall count; with stall=1 the "
    f"second measured step without a gain trips, got {['trip' if v else None for v in _nn]}")
def _flat_before_stall(guard, calls):
    """How many checks returned None between the first reading and the stall nudge."""
    out = [guard.check(_t, {}, _s, progress=p) for _t, _s, p in calls]
    at = next((n for n, v in enumerate(out) if v and "progress" in v.lower()), None)
    return None if at is None else out[1:at].count(None)


_rp = _flat_before_stall(LoopGuard(), [("open", {"r": 0}, 5.0)]
                         + [("sync", {"r": i}, 4.0) for i in range(1, 5)]
                         + [(f"probe_{i}", {"r": 9 + i}, 4.0) for i in range(6)])
assert _rp == 6, (
    "order: a call that trips the identical-call signal must not count toward the stall; "
    "sync runs 4 times after the best reading (the 4th is a repeat nudge), so "
    f"exactly stall=6 checks return None before the stall nudge; got {_rp}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(flat_stall=range(2, 10), level=(3.0, 7.5, 12.0, 42.0), gap_stall=range(3, 9),
                  best=(5.0, 9.0, 15.0), drop=(1.0, 2.5, 4.0), inch_stall=range(3, 8),
                  rp_repeat=(2, 3), rp_stall=(4, 5, 6), cy_cycle=(2, 3), cy_stall=(4, 5, 6),
                  frozen=("frozen", "idle", "unchanged"))
_low = h.best - h.drop
_g = LoopGuard(stall=h.flat_stall)
_st = [_g.check(f"edit_{i}", {"i": i}, {"step": i}, progress=h.level)
       for i in range(h.flat_stall + 2)]
_g = LoopGuard(stall=h.gap_stall)
_gap = [_g.check(f"probe_{i}", {"i": i}, {"rev": i}, progress=p) for i, p in enumerate(
    [h.best, _low, None] + [_low] * (h.gap_stall - 1) + [None, _low])]
_g = LoopGuard(stall=h.inch_stall)
_inch = [_g.check(f"step_{i}", {"i": i}, {"rev": i},
                  progress=h.level + i // (h.inch_stall + 1))
         for i in range(4 * (h.inch_stall + 1) + h.inch_stall)]
_rp2 = _flat_before_stall(LoopGuard(repeat=h.rp_repeat, stall=h.rp_stall),
                          [("open", {"r": 0}, h.best)]
                          + [("sync", {"r": i}, _low) for i in range(1, h.rp_repeat + 2)]
                          + [(f"probe_{i}", {"r": 9 + i}, _low) for i in range(h.rp_stall + 2)])
_cy = _flat_before_stall(LoopGuard(cycle=h.cy_cycle, stall=h.cy_stall),
                         [("open", {"r": 0}, h.best)]
                         + [(f"poll_{i}", {"r": h.frozen}, _low) for i in range(h.cy_cycle + 1)]
                         + [(f"probe_{i}", {"r": 9 + i}, _low) for i in range(h.cy_stall + 2)])
rec = record(first=LoopGuard().check("run_tests", {}, {"rev": 0}, progress=10.0),
             flap=_fl, flat=_st, gap=_gap, inch=_inch, repeat_first=[_rp, _rp2], cycle_first=_cy)
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(flat_stall=range(2, 10), level=(3.0, 7.5, 12.0, 42.0), gap_stall=range(3, 9),
                  best=(5.0, 9.0, 15.0), drop=(1.0, 2.5, 4.0), inch_stall=range(3, 8),
                  rp_repeat=(2, 3), rp_stall=(4, 5, 6), cy_cycle=(2, 3), cy_stall=(4, 5, 6),
                  frozen=("frozen", "idle", "unchanged"))
low = h.best - h.drop
assert rec["first"] is None, "a first progress reading can never be a stall"
fl = rec["flap"]
assert fl[:7] == [None] * 7 and isinstance(fl[7], str), (
    f"progress flapped 14, 13, 14, 12, ... never beating 14, so the run stalled at step 8; got "
    f"{['trip' if v else None for v in fl]}. Count steps since the BEST value, not since "
    "the value last changed")
s = h.flat_stall
st = rec["flat"]
assert len(st) == s + 2 and st[:s + 1] == [None] * (s + 1), (
    f"flat progress tripped too early: {st}; stall={s} allows {s} steps without a gain "
    "after the first reading")
assert isinstance(st[s + 1], str) and "progress" in st[s + 1].lower(), (
    f"stall={s}: {s + 1} steps without beating progress {h.level:g} must trip with a message "
    f"about progress, got {st[s + 1]!r}")
s = h.gap_stall
gap = rec["gap"]
assert len(gap) == s + 4 and gap[:s + 3] == [None] * (s + 3) and isinstance(gap[-1], str), (
    f"progress=None neither resets nor adds to the stall count: with stall={s}, {s + 1} "
    f"measured flat steps at {low:g} after the best {h.best:g} (two None readings among them) "
    f"trip on the last; got {['trip' if v else None for v in gap]}")
s = h.inch_stall
assert len(rec["inch"]) == 5 * s + 4 and all(v is None for v in rec["inch"]), (
    f"with stall={s}, progress improved every {s + 1}th step ({s} flat steps in between) and "
    "the guard still tripped; any new best must reset the count")
assert rec["repeat_first"] == [6, h.rp_stall], (
    "a call that trips the identical-call signal must not count toward the stall: exactly "
    f"`stall` untripped flat checks must pass before the stall nudge (stall=6, then "
    f"stall={h.rp_stall} with repeat={h.rp_repeat}); got {rec['repeat_first']}")
assert rec["cycle_first"] == h.cy_stall, (
    "a call that trips the frozen-world signal must not count toward the stall: with "
    f"stall={h.cy_stall}, cycle={h.cy_cycle} and {h.cy_cycle + 1} calls in one frozen state "
    f"(one cycle nudge), exactly {h.cy_stall} untripped flat checks pass before the stall "
    f"nudge; got {rec['cycle_first']}")
### END HIDDEN TESTS

# %% id="nudge_before_halt" kind="tests" points=3
guard = LoopGuard()
assert guard.halted is False, "a new guard must not start halted"
_g = LoopGuard()
_said = None
for _i in range(10):
    _said = _g.check("get_order", {"id": "A-17"}, {"tick": _i})
    if _said is not None:
        break
assert isinstance(_said, str), "ten identical calls never produced a nudge"
assert _g.halted is False, (
    "the first trip set halted: nudge first and halt only if the nudge fails; halting on "
    "the first trip turns a recoverable run into a failed one")
assert _g.trips == 1, f"nudge: after the first nudge trips must be 1, got {_g.trips}"
_after_nudge = {"trips": _g.trips, "halted": _g.halted}
_next = _g.check("search_docs", {"q": "order A-17"}, {"tick": 99})
assert _next is None and _g.halted is False, (
    f"nudge: after a nudge, a new call in a new state must get None and not halt, got "
    f"{_next!r} (halted {_g.halted!r})")
_after_next = {"trips": _g.trips, "halted": _g.halted}
_g = LoopGuard()
_three = [_g.check("get_order", {"id": "A-17"}, {"tick": _i}) for _i in range(6)]
_after_three = {"trips": _g.trips, "halted": _g.halted}
_nudged = sum(v is not None for v in _three)
assert _after_three == {"trips": _nudged, "halted": False} and isinstance(_three[5], str), (
    "halted: only the step cap sets halted; 6 identical calls end in 3 nudges (calls 4, 5 "
    f"and 6) and the last is a nudge too; got {_after_three}, last check {_three[5]!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from course.worlds import loops as _loops

_listening = _loops.run_guarded(LoopGuard(), listens=True)
_g = LoopGuard()
_deaf = _loops.run_guarded(_g, listens=False)
_deaf_state = {"trips": _g.trips, "halted": _g.halted}
h = hidden_inputs(repeat=(1, 2), extra=range(3, 7),
                  tool=("ping", "poll_queue", "get_status", "refresh_token"))
_g = LoopGuard(repeat=h.repeat)
_tight = [_g.check(h.tool, {}, {"tick": _i}) for _i in range(h.repeat + h.extra)]
rec = record(new_halted=LoopGuard().halted, said=_said, after_nudge=_after_nudge,
             next=_next, after_next=_after_next, listening=_listening,
             deaf=_deaf, deaf_trips=_deaf_state["trips"], deaf_halted=_deaf_state["halted"],
             three=_three, after_three=_after_three, tight=_tight,
             after_tight={"trips": _g.trips, "halted": _g.halted})
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(repeat=(1, 2), extra=range(3, 7),
                  tool=("ping", "poll_queue", "get_status", "refresh_token"))
assert rec["new_halted"] is False, "a new guard must not start halted"
assert isinstance(rec["said"], str), "ten identical calls never produced a nudge"
assert rec["after_nudge"]["halted"] is False, (
    "the first trip set halted: nudge first and halt only if the nudge fails; halting on "
    "the first trip turns a recoverable run into a failed one")
assert rec["after_nudge"]["trips"] == 1, (
    f"after the first nudge trips must be 1, got {rec['after_nudge']['trips']}")
assert rec["next"] is None, (
    "after a nudge, a new call in a new state must get None: the run goes on")
assert rec["after_next"]["halted"] is False, "halted was set without the step cap being reached"

rep = rec["listening"]
assert rep["outcome"] == "answered", (
    f"a model that changes approach after one nudge must be allowed to finish; the run "
    f"ended {rep['outcome']!r}: {rep['text']!r}")
assert len(rep["nudges"]) == 1, f"expected exactly one nudge, got {rep['nudges']}"
sent = [t for t in rep["told"] if t["is_error"]]
assert len(sent) == 1 and sent[0]["output"] == rep["nudges"][0], (
    "the nudge did not reach the model as the tool's (error) output")

rep = rec["deaf"]
assert rep["outcome"] == "halted" and len(rep["nudges"]) == 1 and rec["deaf_trips"] == 2, (
    f"a model that ignores the nudge must get one nudge and be halted at the second trip; "
    f"outcome {rep['outcome']!r}, nudges {len(rep['nudges'])}, trips {rec['deaf_trips']}")
assert rep["tool_calls"] <= 8, (
    f"the deaf model made {rep['tool_calls']} tool calls before the guard stopped it")
assert rec["deaf_halted"] is False, (
    "the harness halted the deaf run on its second trip, but the guard set halted itself; "
    "only the step cap sets halted")
three = [v is not None for v in rec["three"]]
assert three[3:] == [True] * 3 and rec["after_three"] == {"trips": sum(three),
                                                             "halted": False}, (
    f"6 identical calls: calls 4 to 6 each nudge, trips counts them, halted False; got "
    f"{three}, {rec['after_three']}")
tight = rec["tight"]
assert len(tight) == h.repeat + h.extra and all(isinstance(v, str) for v in tight[h.repeat:]), (
    f"with repeat={h.repeat} every identical {h.tool} call after call {h.repeat} is a nudge, "
    f"also after the second trip; got {tight}")
nudged = sum(v is not None for v in tight)
assert rec["after_tight"] == {"trips": nudged, "halted": False}, (
    f"{nudged} nudges and no step cap: trips {nudged}, halted False; got {rec['after_tight']}")
### END HIDDEN TESTS

# %% id="step_cap_halts_without_raising" kind="tests" points=2
guard = LoopGuard(max_steps=1)
assert guard.check("ping", {}, {"n": 0}) is None, "the first of max_steps=1 calls is allowed"
_g = LoopGuard(max_steps=2)
assert [_g.check(f"t{i}", {}, {"s": i}) for i in range(2)] == [None, None], (
    "two varied calls within max_steps=2 must pass")
assert _g.halted is False, "halted was set before the step cap"
try:
    _cap = _g.check("t2", {}, {"s": 2})
except Exception as _exc:
    raise AssertionError(
        f"check raised {type(_exc).__name__} at the step cap; set halted = True and return "
        "the reason as a string, so the harness can return a partial report") from None
assert _g.halted is True, "the third call with max_steps=2 must set halted"
assert isinstance(_cap, str) and _cap.strip(), (
    f"step cap: the call past max_steps must return the reason as a non-empty string, "
    f"got {_cap!r}")
assert _g.trips == 0, f"step cap: the step cap is not a trip (no nudge), but trips is {_g.trips}"
_again = _g.check("t3", {}, {"s": 3})
assert isinstance(_again, str) and _again.strip() and _g.halted is True, (
    f"step cap: once halted, every later check returns the step-cap message again, "
    f"got {_again!r}")
_g = LoopGuard(max_steps=3)
_capped = [_g.check("get_order", {"id": "A-17"}, {"t": i}) for i in range(3)]
_capped_trips = _g.trips
_capped += [_g.check("get_order", {"id": "A-17"}, {"t": i}) for i in range(3, 6)]
assert _g.halted is True and _g.trips == _capped_trips, (
    "step cap first: with max_steps=3 the 4th identical call is past the cap, so it halts "
    "before the identical-call signal sees it, and so does every later call: trips must "
    f"stay {_capped_trips}, got halted {_g.halted!r}, trips {_g.trips}")
assert all(isinstance(v, str) and v.strip() for v in _capped[3:]), (
    f"step cap: calls 4 to 6 with max_steps=3 must each return the step-cap message, got "
    f"{_capped[3:]}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(small=range(2, 8), frozen=range(2, 6), snap=range(1, 1000))
_capped_state = [_g.halted, _g.trips - _capped_trips]
_g = LoopGuard(max_steps=h.small)
_within = [_g.check(f"t{i}", {}, {"s": i}) for i in range(h.small)]
_small = {"within": _within, "halted_before": _g.halted,
          "cap": outcome(_g.check, f"t{h.small}", {}, {"s": h.small}), "halted_after": _g.halted}
_g = LoopGuard()
_ok = [_g.check(f"tool_{i}", {"i": i}, {"step": i}, progress=float(i)) for i in range(40)]
_default = {"ok": _ok, "halted_before": _g.halted,
            "cap": outcome(_g.check, "tool_40", {"i": 40}, {"step": 40}, progress=40.0),
            "halted_after": _g.halted, "trips": _g.trips}
_default["again"] = outcome(_g.check, "tool_41", {"i": 41}, {"step": 41})
_default["halted_again"] = _g.halted
_g = LoopGuard(max_steps=h.frozen, cycle=h.frozen)
_frozen = [outcome(_g.check, ("open", "close")[_i % 2], {}, {"s": h.snap})
           for _i in range(h.frozen)]
_frozen_trips = _g.trips
_frozen += [outcome(_g.check, _t, {}, {"s": h.snap}) for _t in ("open", "close")]
rec = record(one=LoopGuard(max_steps=1).check("ping", {}, {"n": 0}), small=_small,
             default=_default, capped=_capped, capped_state=_capped_state,
             frozen=_frozen, frozen_state=[_g.halted, _g.trips - _frozen_trips])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(small=range(2, 8), frozen=range(2, 6), snap=range(1, 1000))
assert rec["one"] is None, "the first of max_steps=1 calls is allowed"
small = rec["small"]
assert small["within"] == [None] * h.small, (
    f"{h.small} varied calls within max_steps={h.small} must pass, got {small['within']}")
assert small["halted_before"] is False, "halted was set before the step cap"
raised = small["cap"]["raised"]
assert raised is None, (
    f"check raised {raised and raised['type']} at the step cap; set halted = True and return "
    "the reason as a string, so the harness can return a partial report")
assert small["halted_after"] is True, (
    f"call {h.small + 1} with max_steps={h.small} must set halted")
cap = small["cap"]["value"]
assert isinstance(cap, str) and cap.strip(), (
    f"step cap: the halt must return the reason as a non-empty string, got {cap!r}")

d = rec["default"]
assert d["ok"] == [None] * 40 and not d["halted_before"], (
    "40 healthy calls are within the default cap")
raised = d["cap"]["raised"]
assert raised is None, f"check raised {raised and raised['type']} on call 41"
assert d["halted_after"] and isinstance(d["cap"]["value"], str), (
    "call 41 must halt with the default max_steps=40")
assert d["trips"] == 0, (
    f"the step cap is not a trip (no nudge was given), but trips is {d['trips']}")
again = d["again"]["value"]
assert d["again"]["raised"] is None, (
    f"check raised {d['again']['raised']['type']} after halted; it must never raise")
assert d["halted_again"] and isinstance(again, str) and again.strip(), (
    f"after halted, check must return the step-cap message again, got {again!r}")
capped = rec["capped"]
assert len(capped) == 6 and all(isinstance(v, str) and v.strip() for v in capped[3:]), (
    f"six identical calls with max_steps=3: calls 4 to 6 return the step cap, got {capped}")
assert rec["capped_state"] == [True, 0], (
    "the step cap is checked first: calls past max_steps=3 must halt without a nudge even "
    "when they repeat a call; [halted, trips added from call 4 on] is "
    f"{rec['capped_state']}, expected [True, 0]")
frozen = rec["frozen"]
assert all(f["raised"] is None for f in frozen), f"check raised: {frozen}"
values = [f["value"] for f in frozen]
m = h.frozen
assert len(values) == m + 2 and all(isinstance(v, str) and v.strip() for v in values[m:]), (
    f"{m + 2} calls in one frozen state with max_steps={m}, cycle={m}: calls {m + 1} and "
    f"{m + 2} return the step cap, got {values}")
assert rec["frozen_state"] == [True, 0], (
    f"the step cap is checked first: a call past max_steps={m} in a state seen {m} times "
    f"(cycle={m}) halts without a cycle nudge; [halted, trips added from call {m + 1} on] is "
    f"{rec['frozen_state']}, expected [True, 0]")
### END HIDDEN TESTS

# %% id="no_false_positive_on_progress" kind="tests" points=2
guard = LoopGuard()
assert guard.check("tool_0", {"i": 0}, {"step": 0}, progress=0.0) is None
_queries = ["throttling", "429 retry-after", "burst limit", "per-key quota", "orders endpoint",
            "rate headers", "backoff", "sdk retries", "quota increase", "regional limits",
            "sandbox limits", "status page"]
_g = LoopGuard()
_searches = [_g.check("search_docs", {"q": q}, {"pages_read": i + 1}, progress=float(i))
             for i, q in enumerate(_queries)]
assert all(v is None for v in _searches) and _g.trips == 0, (
    "search_docs called with 12 DIFFERENT queries while progress rose, and the guard "
    f"tripped: {[v for v in _searches if v][:1]}. The call fingerprint must cover the "
    "arguments, not only the tool name")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(steps=range(10, 31), start=(1.0, 5.0, 10.0, 25.0), gain=(0.5, 1.0, 2.0))
_searches_trips = _g.trips
_g = LoopGuard()
_varied = [_g.check(f"tool_{i}", {"i": i}, {"step": i}, progress=h.start + h.gain * i)
           for i in range(h.steps)]
rec = record(first=LoopGuard().check("tool_0", {"i": 0}, {"step": 0}, progress=0.0),
             searches=_searches, searches_trips=_searches_trips,
             varied=_varied, varied_trips=_g.trips)
### JUDGE
from course.observe import hidden_inputs

assert rec["first"] is None, "a first call with progress can never trip"
searches = rec["searches"]
assert len(searches) == 12 and all(v is None for v in searches) and rec["searches_trips"] == 0, (
    "search_docs called with 12 DIFFERENT queries while progress rose, and the guard "
    f"tripped: {[v for v in searches if v][:1]}. The call fingerprint must cover the "
    "arguments, not only the tool name")
h = hidden_inputs(steps=range(10, 31), start=(1.0, 5.0, 10.0, 25.0), gain=(0.5, 1.0, 2.0))
varied = rec["varied"]
assert len(varied) == h.steps and all(v is None for v in varied) and rec["varied_trips"] == 0, (
    f"{h.steps} varied steps, progress rising from {h.start:g} by {h.gain:g} a step, tripped: "
    f"{[v for v in varied if v]}")
### END HIDDEN TESTS

# %% id="fingerprint_ignores_key_order" kind="tests" points=1
guard = LoopGuard()
assert guard.check("search_docs", {"q": "refunds", "limit": 5}, {"step": 0}) is None
def _trace(calls):
    _guard = LoopGuard()
    return [_guard.check(t, a, s) is not None for t, a, s in calls]


_orders = [
    {"q": "refund policy", "limit": 5, "filters": {"lang": "en", "region": "eu"}},
    {"filters": {"region": "eu", "lang": "en"}, "limit": 5, "q": "refund policy"},
    {"limit": 5, "q": "refund policy", "filters": {"lang": "en", "region": "eu"}},
]
_same = [("search_docs", dict(_orders[0]), {"step": i}) for i in range(6)]
_mixed = [("search_docs", _orders[i % 3], {"step": i}) for i in range(6)]
assert any(_trace(_same)), "six identical calls never tripped"
assert _trace(_mixed) == _trace(_same), (
    "the same arguments with keys in another order counted as different calls; fingerprint "
    "with sorted keys (nested dicts too)")
_st_a = {"mtime": 1, "meta": {"a": 1, "b": 2}}
_st_b = {"meta": {"b": 2, "a": 1}, "mtime": 1}
_st_trace = _trace([(t, {"path": "y"}, (_st_a, _st_b)[i % 2])
                    for i, t in enumerate(("open", "close", "open"))])
assert _st_trace == [False, False, True], (
    "key order: the same state with its keys in another order counted as a different "
    f"state; fingerprint state with sorted keys too, got {_st_trace}")
from datetime import date as _date
from decimal import Decimal as _D

_odd_orders = [{"since": _date(2025, 3, 1), "amount": _D("19.99")},
               {"amount": _D("19.99"), "since": _date(2025, 3, 1)}]
_odd_same = _trace([("fetch_orders", dict(_odd_orders[0]), {"step": i}) for i in range(6)])
_odd_mixed = _trace([("fetch_orders", _odd_orders[i % 2], {"step": i}) for i in range(6)])
assert _odd_mixed == _odd_same, (
    "key order: arguments holding a date and a Decimal, with their keys in another order, "
    "counted as different calls; the fallback for values JSON cannot encode must keep the "
    "keys sorted too (json.dumps with sort_keys=True and default=str does both)")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record
from datetime import datetime as _dt

h = hidden_inputs(day=range(1, 27), hour=range(0, 20), amount=("5.00", "19.99", "120.50", "0.99"),
                  mtime=range(1, 100_000), size=range(1, 5000), meta=range(1, 100))
_since, _until = _dt(2025, 3, h.day, h.hour), _dt(2025, 3, h.day + 1, h.hour + 3)
_odd_deep = [{"window": {"until": _until, "since": _since}, "amount": _D(h.amount)},
             {"amount": _D(h.amount), "window": {"since": _since, "until": _until}}]

_states = [{"mtime": h.mtime, "size": h.size, "meta": {"a": h.meta, "b": h.meta + 1}},
           {"meta": {"b": h.meta + 1, "a": h.meta}, "size": h.size, "mtime": h.mtime}]
_frozen = [(t, {"path": "x"}, dict(_states[0])) for t in ("read_file", "write_file") * 2]
_shuffled = [(t, {"path": "x"}, _states[i % 2])
             for i, t in enumerate(("read_file", "write_file") * 2)]
rec = record(first=LoopGuard().check("search_docs", {"q": "refunds", "limit": 5}, {"step": 0}),
             same=_trace(_same), mixed=_trace(_mixed),
             frozen=_trace(_frozen), shuffled=_trace(_shuffled),
             odd_same=_trace([("fetch_orders", dict(_odd_deep[0]), {"step": i})
                              for i in range(6)]),
             odd_mixed=_trace([("fetch_orders", _odd_deep[i % 2], {"step": i})
                               for i in range(6)]))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(day=range(1, 27), hour=range(0, 20), amount=("5.00", "19.99", "120.50", "0.99"),
                  mtime=range(1, 100_000), size=range(1, 5000), meta=range(1, 100))
assert rec["first"] is None, "a first call can never be a repeat"
assert any(rec["same"]), "six identical calls never tripped"
assert rec["mixed"] == rec["same"], (
    "the same arguments with keys in another order counted as different calls; fingerprint "
    "with sorted keys (nested dicts too)")
assert rec["shuffled"] == rec["frozen"], (
    f"the same state (mtime {h.mtime}, size {h.size}, a nested meta dict) with its keys in a "
    "different order was counted as a different state")
assert any(rec["odd_same"]) and rec["odd_mixed"] == rec["odd_same"], (
    f"arguments holding datetimes (in a nested dict, from 2025-03-{h.day:02d}) and "
    f"Decimal({h.amount!r}), with their keys in another order, counted as different calls: "
    "the fingerprint of values JSON cannot encode must not depend on key order either")
### END HIDDEN TESTS

# %% id="unserialisable_args_handled" kind="tests" points=1
guard = LoopGuard()
assert guard.check("ping", {"n": 1}, {"ok": True}) is None
from datetime import datetime as _dt
from datetime import timezone as _tz
from decimal import Decimal as _Dec
from pathlib import PurePosixPath as _Path


def _odd_args():
    return {"since": _dt(2025, 3, 1, 9, 30, tzinfo=_tz.utc), "amount": _Dec("19.99"),
            "log": _Path("/var/log/orders.log")}


def _run(make_args, make_state):
    _guard = LoopGuard()
    try:
        return [_guard.check("fetch_orders", make_args(), make_state(i)) is not None
                for i in range(6)]
    except TypeError as _exc:
        raise AssertionError(
            f"check raised TypeError on values JSON cannot encode ({_exc}); give the "
            "encoder a fallback such as default=str") from None


_odd = _run(_odd_args, lambda i: {"as_of": _dt(2025, 3, 1, 10, i), "etag": b"9f2c"})
_plain = _run(lambda: {"since": "2025-03-01T09:30", "amount": "19.99"},
              lambda i: {"as_of": i})
assert any(_plain), "six identical calls never tripped"
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(first=LoopGuard().check("ping", {"n": 1}, {"ok": True}), odd=_odd, plain=_plain)
### JUDGE
assert rec["first"] is None, "a first call can never trip"
assert any(rec["plain"]), "six identical calls never tripped"
assert rec["odd"] == rec["plain"], (
    f"identical calls carrying a datetime, a Decimal and a path tripped as {rec['odd']}, but "
    f"the same calls with plain values tripped as {rec['plain']}")
### END HIDDEN TESTS

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain (3 points, graded by hand)
#
# In four to six sentences: why does the guard send a nudge before it halts, and why is
# the step cap of 40 not enough on its own? Name the mechanism (what the transcript does to
# the next forward pass) and use numbers from this notebook's runs: the unguarded run
# against the deaf and the listening models.

# %% [markdown] id="explain_guard" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** Every lap appends a (call, result) pair that the next forward pass
# reads, so after three identical pairs the transcript is a few-shot example of repeating
# the call and the repeat becomes the likeliest continuation. The nudge goes in as that
# call's tool result, so it lands in the transcript and breaks the pattern the model is
# continuing: the listening model changed its search after one nudge and answered in 5
# model calls. Halting first would have turned that recoverable run into a failed one; the
# halt is for a model that ignores the nudge, and the deaf model was stopped at its second
# trip after 4 tool calls, with a reason instead of an exception. The step cap alone let
# the same deaf model make 40 identical calls, and because each request resends the
# growing history its bill grew with the square of the laps: about \$0.30 against under a
# cent for the guarded deaf run (the table prints a ratio of roughly 45x; claude-opus-5
# thinks by default and its thinking is billed as output tokens), and \$9.93
# against \$0.26 (38x) for lab 3's task a93. The cap reports the damage
# afterwards; it neither says what the run was stuck on nor lets the model escape.
#
# **Mark scheme (3 points).**
# * 1 point: the mechanism: the transcript becomes a few-shot pattern of the repeat, and
#   the nudge, sent as a tool result, puts a contradicting message into that transcript.
# * 1 point: the ordering: nudge first because the model usually recovers (the listening
#   run answered); halt only on a second trip, as a partial report rather than a raise.
# * 1 point: the cap argument with a number from the runs (40 calls and the unguarded
#   dollar figure against 4 to 5 calls for the guarded runs, or the a93 figures), and
#   that a cap reports cost afterwards without naming the loop.
# * No point for restating the question ("the guard stops loops") without a mechanism.
# ### END SOLUTION

# %% [markdown] kind="instructor"
# **For the lecturer.** Live-code `check` in the order of the table at the top: step cap,
# identical call, frozen state, stall. Run section 2's shapes after each signal and watch
# one more column fill in. The first mutant in `tests/mutants/lab04_loop_detector.py`
# (a fingerprint without `sort_keys`) is the one `python -m course demo` grades; it loses
# only the key-order cell, which makes the point that a bug can pass every scenario that
# happens to use one-key dictionaries.
