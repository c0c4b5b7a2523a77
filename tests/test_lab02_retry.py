"""Lab 2 (retry with backoff and jitter): the world module and every seed number the notebook shows.

The notebook's cells are executed here straight from ``authoring/lab02_retry``: the
solution ``call_with_retry`` and the visible buggy demo ``retry_everything``. Expected
values are literals from seed 001 exercise 2 or from its derivations, never read back
from the code under test.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import anthropic
import numpy as np
import pytest

from course.clock import FakeClock, FakeSleep
from course.grading.authoring.scripts import parse
from course.grading.proofs.mutation import load_mutants
from course.wire import Reply
from course.worlds import retry as world

from . import ROOT, notebook_code

SCRIPT = ROOT / "authoring" / "lab02_retry" / "lab02_retry.py"
MUTANTS = ROOT / "tests" / "mutants" / "lab02_retry.py"


def _cells() -> list[Any]:
    return parse(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT))


def _exec(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, str(SCRIPT), "exec"), namespace)  # noqa: S102 - our own notebook
    return namespace


@pytest.fixture(scope="module")
def solution():
    return notebook_code.namespace("lab02_retry")["call_with_retry"]


@pytest.fixture(scope="module")
def retry_everything():
    (cell,) = [c for c in _cells() if not c.markdown and any(
        line.startswith("def retry_everything(") for line in c.lines)]
    namespace = _exec("import time\nimport anthropic\n" + "\n".join(cell.lines))
    return namespace["retry_everything"]


def _mutated(name: str):
    (mutant,) = [m for m in load_mutants(MUTANTS) if m.name == name]
    return notebook_code.namespace("lab02_retry", mutant.edits())["call_with_retry"]


# -- the world module -------------------------------------------------------------------


def test_wire_raises_the_sdks_own_error_types():
    expected = [
        (world.rate_limited(retry_after=7), anthropic.RateLimitError),
        (world.rate_limited(), anthropic.RateLimitError),
        (Reply.error(500), anthropic.InternalServerError),
        (Reply.error(503), anthropic.InternalServerError),
        (Reply.error(529), anthropic.OverloadedError),
        (Reply.dropped(), anthropic.APIConnectionError),
        (Reply.error(400), anthropic.BadRequestError),
    ]
    for reply, kind in expected:
        wire = world.flaky(reply)
        with pytest.raises(kind) as caught:
            wire.call()
        assert "".join(b.text for b in wire.call().content if b.type == "text") == world.ANSWER
        assert wire.calls == 2
        if isinstance(caught.value, anthropic.APIStatusError):
            assert caught.value.status_code == reply.status
    assert issubclass(anthropic.OverloadedError, anthropic.InternalServerError)
    assert issubclass(anthropic.RateLimitError, anthropic.APIStatusError)


def test_retry_after_header_is_readable_from_the_error():
    with pytest.raises(anthropic.RateLimitError) as caught:
        world.flaky(world.rate_limited(retry_after=7)).call()
    assert caught.value.response.headers["retry-after"] == "7"


def test_broken_wire_never_answers_and_runaway_is_not_an_exception():
    wire = world.broken(lambda n: Reply.error(503, f"unavailable #{n}"), limit=3)
    for n in (1, 2, 3):
        with pytest.raises(anthropic.InternalServerError, match=f"unavailable #{n}"):
            wire.call()
    with pytest.raises(world.RunawayRetry):
        wire.call()
    assert wire.calls == 3
    assert not issubclass(world.RunawayRetry, Exception)


def test_rate_window_counts_down_and_then_answers():
    clock = FakeClock(start=0.0)
    wire = world.rate_window(7.0, clock)
    with pytest.raises(anthropic.RateLimitError) as caught:
        wire.call()
    assert caught.value.response.headers["retry-after"] == "7"
    clock.advance(2.5)
    with pytest.raises(anthropic.RateLimitError) as caught:
        wire.call()
    assert caught.value.response.headers["retry-after"] == "5"  # ceil(4.5)
    clock.advance(4.5)
    assert "".join(b.text for b in wire.call().content if b.type == "text") == world.ANSWER
    assert wire.times == [0.0, 2.5, 7.0]


def test_watched_keeps_the_very_exception_and_result_or_error_reports_it():
    wire = world.flaky(Reply.error(503), Reply.error(401))
    watched = world.Watched(wire.call)

    def twice(fn, **kwargs):
        try:
            fn()
        except anthropic.InternalServerError:
            return fn()

    value, err = world.result_or_error(twice, watched)
    assert value is None and isinstance(err, anthropic.AuthenticationError)
    assert len(watched.raised) == 2 and err is watched.raised[-1]
    assert world.result_or_error(lambda fn: fn(), lambda: "ok") == ("ok", None)

    def stub(fn):
        raise NotImplementedError

    with pytest.raises(NotImplementedError):
        world.result_or_error(stub, watched)
    with pytest.raises(world.RunawayRetry):
        world.result_or_error(lambda fn: fn(), world.broken(lambda n: Reply.error(503),
                                                           limit=0).call)


def test_herd_helpers_on_hand_made_times():
    times = [[0.0, 1.0, 3.0], [0.0, 1.2, 3.1], [0.0, 1.05, 3.5]]
    first, second = world.waits_by_round(times)
    assert first == pytest.approx([1.0, 1.2, 1.05])
    assert second == pytest.approx([2.0, 1.9, 2.45])
    assert world.arrivals([[0.0, 1.0], [0.0, 1.0], [0.0, 2.0]]) == [(0.0, 3), (1.0, 2), (2.0, 1)]
    assert world.peak_load(times, window=0.1) == 2  # 1.0 and 1.05; t=0 is ignored
    assert world.peak_load(times, window=0.01) == 1


def test_plot_herd_draws_one_panel_per_run():
    import matplotlib.pyplot as plt

    fig = world.plot_herd({"a": [[0.0, 1.0]], "b": [[0.0, 1.1], [0.0, 1.2]]})
    try:
        assert len(fig.axes) == 2
    finally:
        plt.close(fig)


# -- seed numbers -----------------------------------------------------------------------


def test_uniform_stdev_gives_the_seeds_0_087():
    assert round(world.uniform_stdev(0.3), 3) == 0.087
    draws = np.random.default_rng(0).uniform(0, 0.3, 200_000)
    assert draws.std() == pytest.approx(0.087, abs=0.001)


def test_jitter_margin_against_the_measured_mean():
    # 30% jitter: stdev 0.3/sqrt(12) of the wait; the measured mean wait is 1.15 x wait.
    assert world.uniform_stdev(0.3) / 1.15 == pytest.approx(0.0753, abs=1e-4)
    # The seed calls 0.1 defensible, but it fails the seed's own 0.05 floor.
    assert world.uniform_stdev(0.1) / 1.05 < 0.05
    # Smallest passing fraction f: f/sqrt(12) = 0.05 (1 + f/2), solved by hand.
    k = 0.05 * math.sqrt(12)
    assert k / (1 - k / 2) == pytest.approx(0.1896, abs=1e-4)


def test_no_jitter_herd_wakes_together_at_cumulative_times(retry_everything):
    times = world.herd(retry_everything, clients=20, failures=4)
    # The seed prints t=1, 2, 4; the waits 1, 2, 4, 8 add up to wake times 1, 3, 7, 15.
    assert world.arrivals(times) == [(0.0, 20), (1.0, 20), (3.0, 20), (7.0, 20), (15.0, 20)]
    assert world.peak_load(times) == 20


def test_solution_herd_spreads_every_round(solution):
    random.seed(1)
    times = world.herd(solution, clients=20, failures=4)
    for k, waits in enumerate(world.waits_by_round(times)):
        nominal = 2.0**k
        assert all(nominal <= w <= 1.3 * nominal + 1e-9 for w in waits)
        assert statistics.pstdev(waits) > 0.05 * statistics.fmean(waits)
    for k in range(1, 5):
        assert world.peak_load([[t[k]] for t in times]) < 20


def test_pooled_spread_matches_the_derivation(solution):
    random.seed(2)
    waits = world.waits_by_round(world.herd(solution, clients=150, failures=1))[0]
    ratio = statistics.pstdev(waits) / statistics.fmean(waits)
    assert ratio == pytest.approx(0.0753, abs=0.01)
    assert statistics.pstdev(waits) == pytest.approx(0.087, abs=0.01)


def test_a_retried_400_costs_five_errors_and_15_seconds(retry_everything, solution):
    wire = world.broken(lambda n: Reply.error(400, "messages: roles must alternate"))
    slept = FakeSleep()
    with pytest.raises(anthropic.BadRequestError):
        retry_everything(wire.call, sleep=slept)
    assert wire.calls == 5
    assert slept.total == 1 + 2 + 4 + 8
    fixed = world.broken(lambda n: Reply.error(400, "messages: roles must alternate"))
    with pytest.raises(anthropic.BadRequestError):
        solution(fixed.call, sleep=FakeSleep())
    assert fixed.calls == 1


def test_retry_after_7_beats_the_doubling_value_of_1(retry_everything, solution):
    clock = FakeClock(start=0.0)
    window = world.rate_window(7.0, clock)
    retry_everything(window.call, sleep=FakeSleep(clock))
    assert window.times == [0.0, 1.0, 3.0, 7.0]  # three 429s inside the announced window
    random.seed(3)
    clock = FakeClock(start=0.0)
    window = world.rate_window(7.0, clock)
    solution(window.call, sleep=FakeSleep(clock))
    assert len(window.times) == 2 and 7.0 <= window.times[1] <= 9.1


def test_backoff_doubles_and_the_cap_holds_at_78(solution):
    assert [1.0 * 2**k for k in range(5)] == [1, 2, 4, 8, 16]
    assert 2**8 == 256
    random.seed(4)
    wire = world.broken(lambda n: Reply.error(503))
    slept = FakeSleep()
    with pytest.raises(anthropic.InternalServerError):
        solution(wire.call, max_attempts=10, cap=60.0, sleep=slept)
    assert len(slept.calls) == 9
    assert max(slept.calls) <= 60 * 1.3
    assert slept.calls[8] >= 60  # uncapped this wait would be 2**8 = 256 s


def test_the_seeds_cap_test_cannot_catch_a_missing_cap():
    no_cap = _mutated("no_cap")
    random.seed(5)
    wire = world.broken(lambda n: Reply.error(503))
    slept = FakeSleep()
    with pytest.raises(anthropic.InternalServerError):
        no_cap(wire.call, cap=60.0, sleep=slept)  # eight 503s, default max_attempts=5
    assert max(slept.calls) <= 60 * 1.3  # passes the seed's assertion with no cap at all
    slept = FakeSleep()
    with pytest.raises(anthropic.InternalServerError):
        no_cap(world.broken(lambda n: Reply.error(503)).call, max_attempts=10, sleep=slept)
    assert max(slept.calls) >= 256


def test_sleeping_after_the_last_failure_wastes_up_to_20_8_seconds(solution):
    seed_shape = _mutated("sleeps_before_giving_up")
    wasted = FakeSleep()
    random.seed(6)
    with pytest.raises(anthropic.InternalServerError):
        seed_shape(world.broken(lambda n: Reply.error(503)).call, sleep=wasted)
    lean = FakeSleep()
    with pytest.raises(anthropic.InternalServerError):
        solution(world.broken(lambda n: Reply.error(503)).call, sleep=lean)
    assert len(wasted.calls) == 5 and len(lean.calls) == 4
    assert wasted.calls[-1] == 16  # the mutant's extra sleep carries no jitter
    assert 16 * 1.3 == pytest.approx(20.8)


def test_every_mutant_edit_applies_once():
    source = notebook_code.answers("lab02_retry")["call_with_retry"]
    mutants = load_mutants(MUTANTS)
    assert mutants[0].name == "no_jitter"
    for m in mutants:
        assert source.count(m.old) == 1, m.name
