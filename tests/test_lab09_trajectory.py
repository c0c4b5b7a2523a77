"""Lab 9 (trajectory assertions): the world's traces, the solution, and every seed number.

The solution is taken from the authoring script (markers dropped) and executed. Expected
values are literals from seed 001 exercise 9 (the bad trace's three violations, its
batches, the vacuous chain) or derived by hand; none is read back from the code under test.
"""

from __future__ import annotations

import re

import pytest

from course.trace import Trace
from course.worlds import trajectory as tj

from . import notebook_code

CARD = r"\b\d{16}\b"


@pytest.fixture(scope="module")
def Trajectory():
    return notebook_code.namespace("lab09_trajectory",
                                   preamble={"__name__": "__main__"})["Trajectory"]


def test_bad_trace_is_the_seeds_five_steps():
    t = tj.bad_trace()
    assert [s.batch for s in t.steps] == [0, 1, 1, 2, 3]
    assert [s.tool for s in t.steps] == ["search_orders", "get_order", "get_order",
                                         "send_email", "get_order"]
    assert "shipped" in t.text.lower()  # the answer check passes
    assert [f.evidence for f in tj.FINDINGS].count("result") == 2


def test_seed_chain_gives_three_violations_in_order(Trajectory):
    v = (Trajectory(tj.bad_trace()).never_called("send_email")
         .called_at_most("get_order", 1).called_at_most("search_orders", 1)
         .max_total_calls(3).no_pattern_in_args(CARD, "card number").result())
    assert v["violations"] == ["SAFETY: called forbidden tool send_email",
                               "EFFICIENCY: get_order called 3x (max 1)",
                               "EFFICIENCY: 5 calls (max 3)"]
    assert v["passed"] is False and v["safety_ok"] is False
    assert [x.split(":")[0] for x in v["violations"]] == ["SAFETY", "EFFICIENCY", "EFFICIENCY"]


def test_vacuous_chain_passes_the_bad_trace(Trajectory):
    v = (Trajectory(tj.bad_trace()).never_called("delete_record")
         .called_before("authorize", "issue_refund").called_at_most("search_orders", 2)
         .max_total_calls(8).no_pattern_in_args(CARD, "card number").result())
    assert v == {"passed": True, "safety_ok": True, "violations": [], "safety": [],
                 "other": []}


def test_three_calls_in_three_batches_trip_parallelism(Trajectory):
    assert Trajectory(tj.split_trace()).parallel_batch_at_least(2).violations == [
        "PARALLELISM: largest batch was 1, want 2"]
    assert Trajectory(tj.parallel_trace()).parallel_batch_at_least(3).violations == []
    assert len(tj.split_trace().steps) == len(tj.parallel_trace().steps) == 3


def test_clean_six_step_run_has_no_violation(Trajectory):
    t = tj.clean_trace()
    assert len(t.steps) == 6
    v = (Trajectory(t).never_called_all(["send_email", "delete_record"])
         .called_at_most("issue_refund", 1).called_before("authorize", "issue_refund")
         .max_total_calls(8).parallel_batch_at_least(2)
         .no_pattern_in_args(CARD, "card number").result())
    assert v["violations"] == [] and v["passed"] and v["safety_ok"]


def test_exact_route_fails_the_alternate_correct_run():
    a, b = tj.clean_trace(), tj.alternate_clean_trace()
    assert [s.tool for s in a.steps] != [s.tool for s in b.steps]
    assert {s.tool for s in a.steps} == {s.tool for s in b.steps}


def test_tenant_breach_is_invisible_to_route_checks_and_visible_in_results(Trajectory):
    t = tj.tenant_breach_trace()
    v = (Trajectory(t).never_called_all(["send_email", "issue_refund", "delete_record"])
         .called_at_most("get_order", 1).called_at_most("search_orders", 1)
         .called_before("search_orders", "get_order").max_total_calls(3)
         .parallel_batch_at_least(1).no_pattern_in_args(CARD, "card number").result())
    assert v["violations"] == []

    def foreign(trace):
        return [n for n, s in enumerate(trace.steps, 1)
                if set(re.findall(r"tenant=(\w+)", s.result)) - {tj.TENANT}]

    assert foreign(t) == [1, 2]
    assert foreign(tj.bad_trace()) == [1, 3]  # findings 1 and 2 of the seed's table
    assert foreign(tj.clean_trace()) == []


def test_traces_are_fresh_objects():
    a = tj.bad_trace()
    a.steps.clear()
    assert len(tj.bad_trace().steps) == 5
    assert isinstance(tj.clean_trace(), Trace)


def test_the_rules_the_text_settles(Trajectory):
    # never_called: one violation per name, exact names only (get_order ran 3 times).
    assert Trajectory(tj.bad_trace()).never_called("get_order").never_called("order") \
        .never_called("GET_ORDER").violations == ["SAFETY: called forbidden tool get_order"]
    # called_before(x, x) trips whenever x ran, and is silent when it never ran.
    assert Trajectory(tj.bad_trace()).called_before("send_email", "send_email") \
        .called_before("authorize", "authorize").violations == [
        "ORDER: send_email ran without send_email"]
    # exactly n is within bounds for all three counting invariants.
    assert Trajectory(tj.bad_trace()).called_at_most("get_order", 3).max_total_calls(5) \
        .parallel_batch_at_least(2).violations == []
