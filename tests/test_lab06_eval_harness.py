"""Lab 6 (eval harness): the world module, the solution, and every seed number.

The solution is taken from the authoring script (markers dropped) and executed. Expected
values are literals from seed 001 exercise 6 (the production breakdown, the suite's 0.94)
or derived by hand in the comments; none is read back from the code under test.
"""

from __future__ import annotations

import math
import statistics

import pytest

from course.trace import Trace
from course.worlds import evals

from . import notebook_code


@pytest.fixture(scope="module")
def sol() -> dict:
    return notebook_code.namespace("lab06_eval_harness", preamble={"__name__": "__main__"})


def _suite(sol, seed=evals.SEED):
    agent = evals.SupportAgent(seed=seed)
    results = [sol["run_case_majority"](sol["Case"](**c), agent) for c in evals.SUITE]
    return agent, results


# -- the seed's numbers -------------------------------------------------------------------


def test_production_breakdown_rounds_to_the_seed_figures_except_multi_intent():
    rates = {t: round(p / n, 2) for t, (p, n) in evals.PRODUCTION_BREAKDOWN.items()}
    assert rates == {"matches_eval_case": 0.92, "typos_partial_info": 0.55,
                     "multi_intent": 0.37, "second_language": 0.29}
    assert sum(n for _, n in evals.PRODUCTION_BREAKDOWN.values()) == 200
    assert sum(p for p, _ in evals.PRODUCTION_BREAKDOWN.values()) == 122
    assert round(evals.SUITE_PASSED / evals.SUITE_SIZE, 2) == 0.94


def test_no_count_out_of_41_gives_0_38():
    assert [k for k in range(42) if round(k / 41, 2) == 0.38] == []
    assert (round(15 / 41, 3), round(16 / 41, 3)) == (0.366, 0.39)
    # the other rows, from the seed's rates and sizes: 0.92*71, 0.55*64, 0.29*24
    others = round(0.92 * 71) + round(0.55 * 64) + round(0.29 * 24)
    assert others == 107 and 122 - others == 15 and 122 / 200 == 0.61


def test_report_reproduces_the_production_table(sol):
    rep = sol["report"](evals.production_results())
    assert rep["success_rate"] == pytest.approx(0.61)
    assert {t: (r["passed"], r["n"]) for t, r in rep["by_tag"].items()} == {
        "matches_eval_case": (65, 71), "typos_partial_info": (35, 64),
        "multi_intent": (15, 41), "second_language": (7, 24)}


def test_p95_by_nearest_rank_over_20_is_the_19th_value_and_the_seed_index_is_the_max(sol):
    assert math.ceil(95 * 20 / 100) == 19
    assert all(math.ceil(95 * n / 100) == n for n in range(1, 20))  # max up to 19 cases
    assert int(0.95 * 20) == 19  # as a 0-based index: the 20th value, the maximum
    rows = [evals.result_row(i, calls=i) for i in range(1, 21)]
    assert sol["report"](rows)["p95_calls"] == 19
    assert sorted(r["calls"] for r in rows)[int(0.95 * 20)] == 20
    rows19 = [evals.result_row(i, calls=i) for i in range(1, 20)]
    assert sol["report"](rows19)["p95_calls"] == 19  # 19 cases: p95 is the maximum


# -- the seeded suite ---------------------------------------------------------------------


def test_seeded_agent_is_repeatable_and_order_independent():
    a, b = evals.SupportAgent(seed=4), evals.SupportAgent(seed=4)
    for req in ("Where is order 4471?", "My refund for 7781 hasn't arrived."):
        for _ in range(3):
            a.run(req)
    for req in ("My refund for 7781 hasn't arrived.", "Where is order 4471?"):
        for _ in range(3):
            b.run(req)
    assert sorted(a.log) == sorted(b.log)
    assert isinstance(evals.SupportAgent().run("Where is order 4471?"), Trace)
    assert evals.SupportAgent().run("unknown request").steps == []


def test_suite_at_the_notebook_seed(sol):
    agent, results = _suite(sol)
    assert len(agent.log) == 60  # 20 cases x 3 runs
    # independent check of c12's runs: the forbidden tool appears on exactly one of three
    c12 = [t for req, t in agent.log if req == "My refund for 7781 hasn't arrived."]
    assert c12.count("refund_again") == 1
    c07 = [t for req, t in agent.log if req == "Can you check on my order?"]
    assert c07.count("search") == 1  # one pass in three: a flake that fails
    rep = sol["report"](results)
    assert rep["safety_violations"] == ["c12"]
    assert rep["flaky_cases"] == ["c07", "c12"]
    assert rep["success_rate"] == 19 / 20
    calls = sorted(r["calls"] for r in results)
    assert calls[-1] == 9 and rep["p95_calls"] == calls[18] == 3  # the paging storm is above
    assert sol["gate"](rep, 0.90) is False
    assert rep["median_usd"] < statistics.mean(r["usd"] for r in results)


def test_majority_hides_the_unsafe_run_that_all_runs_catches(sol):
    agent, results = _suite(sol)
    c12 = next(r for r in results if r["id"] == "c12")
    votes = [r["safety_ok"] for r in c12["runs"]]
    assert votes.count(False) == 1 and sum(votes) > len(votes) / 2
    assert c12["safety_ok"] is False


def test_every_suite_route_is_well_formed():
    for spec in evals.SUITE:
        assert spec["input"] in evals.BEHAVIOUR, spec["id"]
        for weight, r in evals.BEHAVIOUR[spec["input"]]:
            assert weight > 0 and isinstance(r.trace(), Trace)
    with pytest.raises(ValueError, match="batch"):
        evals.route("bad", ("a", {}), text="", batches=(0, 1)).trace()


def test_scripted_agent_follows_its_plan_and_names_a_missing_request():
    r1 = evals.route("one", ("a", {}), text="1")
    r2 = evals.route("two", text="2")
    agent = evals.ScriptedAgent({"q": [r1, r2]})
    assert [agent.run("q").text for _ in range(3)] == ["1", "2", "1"]
    with pytest.raises(KeyError, match="no plan"):
        agent.run("other")


def test_attempt_turns_an_exception_into_one_assertion_line():
    def boom():
        raise AttributeError("'Trace' object has no attribute 'tool_calls'")

    with pytest.raises(AssertionError, match=r"^run_case raised AttributeError: .*tool_calls"):
        evals.attempt("run_case", boom)
    assert evals.attempt("f", lambda x: x + 1, 1) == 2


# -- the rules the notebook settles -------------------------------------------------------


def test_text_none_reads_as_empty_answer(sol):
    silent = evals.route("silent", ("get_order", {"id": "1"}), text=None)
    agent = evals.ScriptedAgent({"q": [silent]})
    case = sol["Case"]
    assert sol["run_case"](case(id="a", input="q", expect_contains=["x"]), agent)[
        "checks"]["content"] is False
    assert sol["run_case"](case(id="b", input="q"), agent)["checks"]["content"] is True


def test_n_runs_below_one_raises_before_any_run(sol):
    agent = evals.ScriptedAgent({"q": [evals.route("r", text="ok")]})
    for n in (0, -2):
        with pytest.raises(ValueError, match="n_runs must be at least 1"):
            sol["run_case_majority"](sol["Case"](id="z", input="q", n_runs=n), agent)
    assert agent.runs["q"] == 0


def test_a_tag_listed_twice_counts_once(sol):
    rows = [evals.result_row(1, tags=["x", "x"]), evals.result_row(2, passed=False, tags=["x"])]
    assert sol["report"](rows)["by_tag"] == {"x": {"passed": 1, "n": 2}}
