"""Seeded bugs for lab 6 (eval harness), from seed 001 exercise 6 and its issue."""

from course.grading.proofs.mutation import Mutant

_RUN_CASE_CELLS = {"run_case_shape", "content_case_insensitive", "route_not_asserted",
                   "call_budget", "safety_all_runs", "flake_not_success"}

MUTANTS = [
    Mutant(
        name="safety_by_majority",
        bug="seed 001 ex.6: safety decided by a majority vote hides an unsafe run in three",
        cell="run_majority",
        old='"safety_ok": all(r["safety_ok"] for r in runs),',
        new='"safety_ok": sum(r["safety_ok"] for r in runs) > case.n_runs / 2,',
        loses={"safety_all_runs"},
    ),
    Mutant(
        name="safety_as_rate",
        bug="seed 001 ex.6: safety violations reported as a rate instead of a list of case "
            "ids; one violation in twenty reads as a small number, not a blocker",
        cell="report_fn",
        old='"safety_violations": unsafe_ids,',
        new='"safety_violations": len(unsafe_ids) / n,',
        loses={"safety_is_a_list"},
    ),
    Mutant(
        name="flake_counted_as_pass",
        bug="seed 001 ex.6: a case that passed on some run is counted as passed, folding "
            "flakes into the success rate",
        cell="run_majority",
        old='"passed": passes > case.n_runs / 2,',
        new='"passed": passes > 0,',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="exact_route",
        bug="seed 001 ex.6: asserting the exact route (the calls equal must_call) fails a "
            "correct agent that took another good route",
        cell="case_run",
        old='"required_tools": all(t in called for t in case.must_call),',
        new='"required_tools": called == case.must_call,',
        loses={"route_not_asserted"},
    ),
    Mutant(
        name="mean_not_median",
        bug="seed 001 ex.6: the mean cost and the mean call count hide the long tail that "
            "the median and p95 are there to show",
        cell="report_fn",
        old='"median_usd": statistics.median(r["usd"] for r in results),',
        new='"median_usd": statistics.mean(r["usd"] for r in results),',
        patches=(("report_fn", '"p95_calls": tool_calls[rank - 1],',
                  '"p95_calls": statistics.mean(tool_calls),'),),
        loses={"median_and_p95"},
    ),
    Mutant(
        name="gate_without_safety",
        bug="seed 001 ex.6: a CI gate on the success rate alone merges a change that is "
            "unsafe on one case",
        cell="gate_fn",
        old='return rep["success_rate"] >= baseline and not rep["safety_violations"]',
        new='return rep["success_rate"] >= baseline',
        loses={"gate_needs_safety"},
    ),
    Mutant(
        name="reads_tool_calls",
        bug="seed 001 ex.6: an eval harness that reads trace.tool_calls instead of "
            "trace.steps cannot read the trace shape the rest of the course shares",
        cell="case_run",
        old="called = [s.tool for s in trace.steps]",
        new='called = [c["name"] for c in trace.tool_calls]',
        loses=_RUN_CASE_CELLS,
    ),
    Mutant(
        name="content_case_sensitive",
        bug="seed 001 ex.6: the content check compares with case kept, so 'Shipped' fails a "
            "run that answered 'SHIPPED'",
        cell="case_run",
        old='"content": all(want.lower() in answer for want in case.expect_contains),',
        new='"content": all(want in trace.text for want in case.expect_contains),',
        loses={"content_case_insensitive"},
    ),
    Mutant(
        name="budget_strict",
        bug="lab 6 spec: a call budget compared with < rejects a run that used exactly its budget",
        cell="case_run",
        old='"call_budget": len(called) <= case.max_tool_calls,',
        new='"call_budget": len(called) < case.max_tool_calls,',
        loses={"call_budget"},
    ),
    Mutant(
        name="p95_index_one_rank_high",
        bug="seed 001 ex.6: sorted(calls)[int(0.95 * n)] uses the nearest rank as a 0-based "
            "index, one rank too high: at 20 cases it returns the maximum",
        cell="report_fn",
        old='"p95_calls": tool_calls[rank - 1],',
        new='"p95_calls": tool_calls[min(int(0.95 * n), n - 1)],',
        loses={"median_and_p95"},
    ),
    Mutant(
        name="text_none_crashes",
        bug="lab 6 spec: trace.text None reads as an empty answer; calling .lower() on it "
            "raises instead of failing the content check",
        cell="case_run",
        old='answer = (trace.text or "").lower()',
        new="answer = trace.text.lower()",
        loses={"content_case_insensitive"},
    ),
    Mutant(
        name="any_required_tool",
        bug="lab 6 spec: required_tools with any() passes a run that called only one of "
            "the tools it must call",
        cell="case_run",
        old='"required_tools": all(t in called for t in case.must_call),',
        new='"required_tools": any(t in called for t in case.must_call) or not case.must_call,',
        loses={"route_not_asserted"},
    ),
    Mutant(
        name="half_is_a_majority",
        bug="lab 6 spec: passed decided by passes >= n_runs / 2 lets a 1-in-2 case pass",
        cell="run_majority",
        old='"passed": passes > case.n_runs / 2,',
        new='"passed": passes >= case.n_runs / 2,',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="all_passes_flaky",
        bug="lab 6 spec: flake written as 0 < passes <= n_runs reports a case that passed "
            "every run as flaky",
        cell="run_majority",
        old='"flake": 0 < passes < case.n_runs,',
        new='"flake": 0 < passes <= case.n_runs,',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="calls_of_last_run",
        bug="lab 6 spec: calls taken from the last run instead of the largest over the runs",
        cell="run_majority",
        old='"calls": max(r["calls"] for r in runs),',
        new='"calls": runs[-1]["calls"],',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="n_runs_unchecked",
        bug="lab 6 spec: n_runs=0 is not rejected, so the mean of no runs divides by zero "
            "instead of raising ValueError",
        cell="run_majority",
        old="""    if case.n_runs < 1:
        raise ValueError(f"case {case.id!r}: n_runs must be at least 1, got {case.n_runs}")
""",
        new="",
        patches=(("run_majority", '"usd": statistics.mean(r["usd"] for r in runs),',
                  '"usd": sum(r["usd"] for r in runs) / len(runs),'),),
        loses={"flake_not_success"},
    ),
    Mutant(
        name="violations_sorted",
        bug="lab 6 spec: safety_violations sorted by id instead of kept in input order",
        cell="report_fn",
        old='"safety_violations": unsafe_ids,',
        new='"safety_violations": sorted(unsafe_ids),',
        loses={"safety_is_a_list"},
    ),
    Mutant(
        name="success_rate_rounded",
        bug="lab 6 spec: success_rate rounded to two places; the table says not rounded",
        cell="report_fn",
        old='"success_rate": sum(1 for r in results if r["passed"]) / n,',
        new='"success_rate": round(sum(1 for r in results if r["passed"]) / n, 2),',
        loses={"safety_is_a_list"},
    ),
    Mutant(
        name="gate_strict",
        bug="lab 6 spec: the gate compared with > rejects a success rate equal to the baseline",
        cell="gate_fn",
        old='return rep["success_rate"] >= baseline and not rep["safety_violations"]',
        new='return rep["success_rate"] > baseline and not rep["safety_violations"]',
        loses={"gate_needs_safety"},
    ),
    Mutant(
        name="tag_counted_twice",
        bug="lab 6 spec: a case that lists a tag twice is counted twice under it",
        cell="report_fn",
        old='for tag in dict.fromkeys(r["tags"]):  # each distinct tag once',
        new='for tag in r["tags"]:',
        loses={"by_tag_counts"},
    ),
]
