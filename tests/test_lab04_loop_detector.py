"""Lab 4 (loop detector): the world module, and every seed number the notebook reproduces.

The solution is taken from the authoring script (markers dropped) and executed, so
these tests check the code the notebook ships. Expected values are literals from seed
001 exercise 4 (thresholds, trip positions) and exercise 3 (task a93's bill), or derived
by hand in the comments; none is read back from the code under test.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

import pytest

from course.fakes import FakeAPI, Scripted
from course.worlds import loops

from . import ROOT, notebook_code

SCRIPT = ROOT / "authoring" / "lab04_loop_detector" / "lab04_loop_detector.py"


@pytest.fixture(scope="module")
def solution() -> dict:
    """The namespace after running the notebook's solution cell."""
    return notebook_code.namespace("lab04_loop_detector")


@pytest.fixture
def LoopGuard(solution):
    return solution["LoopGuard"]


def first_trip(guard, steps) -> int | None:
    for n, s in enumerate(steps, start=1):
        if guard.check(s.tool, s.args, s.state, s.progress) is not None:
            return n
    return None


# -- the seed's six scenarios against the solution ---------------------------------------


def test_scenario_1_identical_repeat_trips_on_the_fourth_call(LoopGuard):
    g = LoopGuard()
    out = [g.check("search_docs", {"q": "rate limit"}, {"step": i}) for i in range(4)]
    assert out[:3] == [None, None, None]
    assert "search_docs" in out[3]
    assert g.trips == 1


def test_scenario_2_cycle_is_caught_by_the_state_fingerprint(LoopGuard):
    g = LoopGuard()
    ab = [g.check(t, {"path": "config.yaml"}, {"mtime": 1})
          for t in ("read_file", "write_file", "read_file")]
    assert ab[:2] == [None, None]
    assert "cycling" in ab[2]


def test_scenario_3_stall_trips_after_six_flat_steps(LoopGuard):
    g = LoopGuard()
    st = [g.check(f"edit_{i}", {"i": i}, {"step": i}, progress=3.0) for i in range(8)]
    # step 1 sets the best; steps 2..7 are six flat steps; step 8 is the seventh
    assert st[:7] == [None] * 7
    assert "progress" in st[7].lower()


def test_scenario_4_nudge_comes_before_the_halt(LoopGuard):
    rep = loops.run_guarded(LoopGuard(), listens=True)
    assert rep.outcome == "answered"
    assert len(rep.nudges) == 1
    assert "50 requests per second" in rep.text
    # three stuck searches (the third trips), one pivot search, then the answer
    assert (rep.tool_calls, rep.requests) == (4, 5)

    g = LoopGuard()
    rep = loops.run_guarded(g, listens=False)
    # frozen state trips at call 3 (cycle=2), the fourth identical call trips again
    assert (rep.outcome, rep.tool_calls, rep.requests, g.trips) == ("halted", 4, 4, 2)
    assert len(rep.nudges) == 1


def test_scenario_5_step_cap_sets_halted_without_raising(LoopGuard):
    g = LoopGuard(max_steps=2)
    assert [g.check(f"t{i}", {}, {"s": i}) for i in range(2)] == [None, None]
    msg = g.check("t2", {}, {"s": 2})
    assert g.halted and "step cap" in msg.lower()

    g = LoopGuard()
    calls = [g.check(f"tool_{i}", {"i": i}, {"step": i}, progress=float(i)) for i in range(41)]
    assert calls.index(next(c for c in calls if c is not None)) + 1 == 41
    assert g.halted


def test_scenario_6_no_false_positive_on_twelve_varied_steps(LoopGuard):
    g = LoopGuard()
    assert all(g.check(f"tool_{i}", {"i": i}, {"step": i}, progress=float(i)) is None
               for i in range(12))
    assert g.trips == 0
    assert first_trip(LoopGuard(), loops.healthy_run(12)) is None


def test_fingerprint_ignores_key_order_and_encodes_anything(solution):
    fp = solution["fingerprint"]
    assert fp({"a": 1, "b": {"x": 1, "y": 2}}) == fp({"b": {"y": 2, "x": 1}, "a": 1})
    assert fp({"when": datetime(2025, 3, 1)}) == fp({"when": datetime(2025, 3, 1)})
    assert fp({"amount": Decimal("1.5")}) != fp({"amount": Decimal("2.5")})
    with pytest.raises(TypeError):
        json.dumps({"when": datetime(2025, 3, 1)})  # why the fallback is needed


# -- the three shapes: which detector sees which ------------------------------------------


def _same_as_previous(steps):
    for n in range(1, len(steps)):
        if steps[n].tool == steps[n - 1].tool and steps[n].args == steps[n - 1].args:
            return n + 1
    return None


def _fourth_sighting(steps):
    seen: dict[str, int] = {}
    for n, s in enumerate(steps, start=1):
        k = s.tool + json.dumps(s.args, sort_keys=True)
        seen[k] = seen.get(k, 0) + 1
        if seen[k] > 3:
            return n
    return None


def test_naive_detectors_see_only_some_shapes():
    a, b, c = loops.identical_repeat(), loops.ab_cycle(), loops.flat_progress()
    assert (_same_as_previous(a), _fourth_sighting(a)) == (2, 4)
    # read_file is steps 1, 3, 5, 7: its fourth sighting is step 7
    assert (_same_as_previous(b), _fourth_sighting(b)) == (None, 7)
    assert (_same_as_previous(c), _fourth_sighting(c)) == (None, None)


def test_loop_guard_catches_each_shape_at_its_threshold(LoopGuard):
    assert first_trip(LoopGuard(), loops.identical_repeat()) == 4  # repeat=3
    assert first_trip(LoopGuard(), loops.ab_cycle()) == 3  # cycle=2
    assert first_trip(LoopGuard(), loops.flat_progress()) == 8  # stall=6


def test_shapes_have_the_properties_their_names_claim():
    a = loops.identical_repeat()
    assert len({json.dumps(s.state) for s in a}) == len(a)  # only the call repeats
    b = loops.ab_cycle()
    assert len({json.dumps(s.state, sort_keys=True) for s in b}) == 1
    assert all(x.tool != y.tool for x, y in zip(b, b[1:], strict=False))
    c = loops.flat_progress()
    assert len({(s.tool, json.dumps(s.args)) for s in c}) == len(c)
    assert {s.progress for s in c} == {17.0}


# -- the unguarded run and what the guard saves -------------------------------------------


def _unguarded(n_laps: int = 40):
    world = loops.DocsWorld()
    fake = FakeAPI(Scripted(loops.deaf_model))
    client = fake.client()
    convo = [{"role": "user", "content": loops.GOAL}]
    ins, outs, calls = [], [], []
    for _ in range(n_laps):
        r = client.messages.create(model=loops.MODEL, max_tokens=512, tools=loops.TOOLS,
                                   messages=convo)
        ins.append(r.usage.input_tokens)
        outs.append(r.usage.output_tokens)
        uses = [b for b in r.content if b.type == "tool_use"]
        calls += [(b.name, json.dumps(b.input)) for b in uses]
        convo += [{"role": "assistant", "content": r.content},
                  {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": b.id,
                       "content": world.dispatch(b.name, b.input)} for b in uses]}]
    return ins, outs, calls


def test_unguarded_run_burns_forty_identical_calls_and_grows_quadratically():
    ins, outs, calls = _unguarded()
    assert len(calls) == 40 and len(set(calls)) == 1
    steps = [b - a for a, b in zip(ins, ins[1:], strict=False)]
    assert max(steps) - min(steps) <= 1  # a constant growth per lap, up to token rounding
    # the exact sum of the arithmetic series, n*P + a*n(n-1)/2 (request k carries k-1 laps)
    n, p, a = len(ins), ins[0], (ins[-1] - ins[0]) / (len(ins) - 1)
    assert abs(sum(ins) - (n * p + a * n * (n - 1) / 2)) <= n


def test_guard_cuts_the_stuck_run_bill(LoopGuard):
    ins, outs, _ = _unguarded()
    unguarded = loops.usd(sum(ins), sum(outs))
    deaf = loops.run_guarded(LoopGuard(), listens=False)
    # 40 laps against 4: with a quadratic bill the ratio is well above 40/4 = 10
    assert unguarded / deaf.usd > 10


def test_seed_a93_bill_is_38x_its_neighbour():
    # seed 001 ex.3: 1,904,000 in + 16,400 out = $9.93; 41,200 in + 2,100 out = $0.26
    assert loops.usd(1_904_000, 16_400) == pytest.approx(9.93, abs=0.005)
    assert loops.usd(41_200, 2_100) == pytest.approx(0.26, abs=0.005)
    assert round(loops.usd(1_904_000, 16_400) / loops.usd(41_200, 2_100)) == 38


# -- the world's pieces on their own -------------------------------------------------------


def test_docs_world_search_snapshot_and_progress():
    w = loops.DocsWorld()
    assert w.dispatch("search_docs", {"q": "rate limit"}) == "0 results"
    assert w.snapshot() == {"found": []} and w.progress() == 0.0
    assert "50 requests per second" in w.dispatch("search_docs", {"q": "throttling"})
    assert w.snapshot() == {"found": ["api/throttling"]} and w.progress() == 1.0
    assert "unknown tool" in w.dispatch("delete_docs", {})


def test_scripted_models():
    ask = loops.deaf_model({"messages": []})
    assert ask["content"][0]["input"] == {"q": "rate limit"}
    nudged = {"messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "x", "content": "stop", "is_error": True}]}]}
    assert loops.listening_model(nudged)["content"][0]["input"] == {"q": "throttling"}
    assert loops.deaf_model(nudged)["content"][0]["input"] == {"q": "rate limit"}


class _Silent:
    halted, trips = False, 0

    def check(self, tool, args, state, progress=None):
        return None


class _Trigger:
    """Trips on every call; counts like the fixed API says."""

    def __init__(self):
        self.halted, self.trips = False, 0

    def check(self, tool, args, state, progress=None):
        self.trips += 1
        return f"stop repeating {tool}"


def test_run_guarded_wiring():
    rep = loops.run_guarded(_Silent(), listens=False, max_turns=6)
    assert (rep.outcome, rep.tool_calls, rep.requests) == ("out_of_turns", 6, 6)
    assert rep.per_request_input == sorted(rep.per_request_input)

    rep = loops.run_guarded(_Trigger(), listens=False)
    # call 1 trips once: nudge told as an error output; call 2 trips again: halt
    assert (rep.outcome, rep.tool_calls, rep.requests) == ("halted", 2, 2)
    assert rep.nudges == ["stop repeating search_docs"]
    assert [(t.output, t.is_error) for t in rep.told] == [("stop repeating search_docs", True)]


def test_the_harness_bills_a_run_as_the_fake_api_does():
    """The scenario's own usage tracks what the fake API bills for the same conversation
    (the loop written in the open in section 1), within token rounding per message."""
    ins, outs, _ = _unguarded(n_laps=6)
    rep = loops.run_guarded(_Silent(), listens=False, max_turns=6)
    assert rep.per_request_input[0] == ins[0]
    for api_in, ours in zip(ins, rep.per_request_input, strict=True):
        assert abs(api_in - ours) <= 0.05 * api_in, (api_in, ours)
    assert rep.output_tokens == sum(outs)
