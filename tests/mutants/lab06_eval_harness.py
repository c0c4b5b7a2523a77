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
    Mutant(
        name="id_is_the_input",
        bug="lab 6 spec: run_case reports the case's input text as its id, so report and "
            "the safety list name requests instead of cases",
        cell="case_run",
        old='return {"id": case.id, "tags": list(case.tags), "checks": checks,',
        new='return {"id": case.input, "tags": list(case.tags), "checks": checks,',
        loses={"run_case_shape"},
    ),
    Mutant(
        name="tags_deduplicated",
        bug="lab 6 spec: run_case returns the case's tags as a sorted set instead of a copy "
            "of the list: order and repeats are lost",
        cell="case_run",
        old='return {"id": case.id, "tags": list(case.tags), "checks": checks,',
        new='return {"id": case.id, "tags": sorted(set(case.tags)), "checks": checks,',
        loses={"run_case_shape"},
    ),
    Mutant(
        name="checks_key_misnamed",
        bug="lab 6 spec: the budget check is reported under the key 'budget', not "
            "'call_budget', so a reader of the table finds no call_budget",
        cell="case_run",
        old='"call_budget": len(called) <= case.max_tool_calls,',
        new='"budget": len(called) <= case.max_tool_calls,',
        loses={"run_case_shape", "call_budget"},
    ),
    Mutant(
        name="passed_without_budget",
        bug="lab 6 spec: passed is decided by the tool and content checks only, so a run "
            "over its call budget still passes",
        cell="case_run",
        old='"passed": all(checks.values()), "safety_ok": checks["forbidden_tools"],',
        new='"passed": all(v for k, v in checks.items() if k != "call_budget"),\n'
            '            "safety_ok": checks["forbidden_tools"],',
        loses={"call_budget"},
    ),
    Mutant(
        name="safety_ok_is_passed",
        bug="lab 6 spec: safety_ok is set from all four checks, so a run that was only over "
            "budget or skipped a required tool is reported unsafe",
        cell="case_run",
        old='"safety_ok": checks["forbidden_tools"],',
        new='"safety_ok": all(checks.values()),',
        loses={"run_case_shape", "call_budget"},
    ),
    Mutant(
        name="usd_rounded_to_cents",
        bug="lab 6 spec: usd rounded to cents instead of trace.usd as it is, so a run of "
            "$0.0102 reads as $0.01 and the means drift",
        cell="case_run",
        old='"usd": trace.usd, "calls": len(called)}',
        new='"usd": round(trace.usd, 2), "calls": len(called)}',
        loses={"run_case_shape", "flake_not_success"},
    ),
    Mutant(
        name="calls_distinct_tools",
        bug="lab 6 spec: calls counts distinct tools, not steps, so a paging storm of one "
            "tool reads as a single call",
        cell="case_run",
        old='"usd": trace.usd, "calls": len(called)}',
        new='"usd": trace.usd, "calls": len(set(called))}',
        loses={"call_budget", "flake_not_success"},
    ),
    Mutant(
        name="runs_agent_twice",
        bug="lab 6 spec: run_case runs the agent a second time to read the answer text, so "
            "the checks mix two different runs and the agent runs twice per case run",
        cell="case_run",
        old='answer = (trace.text or "").lower()',
        new='answer = (agent.run(case.input).text or "").lower()',
        loses={"run_case_shape", "content_case_insensitive", "route_not_asserted",
               "safety_all_runs", "flake_not_success"},
    ),
    Mutant(
        name="forbidden_needs_all",
        bug="lab 6 spec: forbidden_tools fails only when every tool in must_not_call ran, so "
            "calling one forbidden tool of two reads as safe",
        cell="case_run",
        old='"forbidden_tools": not any(t in called for t in case.must_not_call),',
        new='"forbidden_tools": not (case.must_not_call\n'
            '                                and all(t in called for t in case.must_not_call)),',
        loses={"run_case_shape"},
    ),
    Mutant(
        name="content_any_string",
        bug="lab 6 spec: content holds when any expected string appears, not every one",
        cell="case_run",
        old='"content": all(want.lower() in answer for want in case.expect_contains),',
        new='"content": any(want.lower() in answer for want in case.expect_contains)\n'
            '                   or not case.expect_contains,',
        loses={"content_case_insensitive"},
    ),
    Mutant(
        name="usd_summed_over_runs",
        bug="lab 6 spec: usd of a voted case is the sum over its runs, not the mean",
        cell="run_majority",
        old='"usd": statistics.mean(r["usd"] for r in runs),',
        new='"usd": sum(r["usd"] for r in runs),',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="n_runs_ignored",
        bug="lab 6 spec: run_case_majority always runs a case three times, whatever its "
            "n_runs",
        cell="run_majority",
        old="runs = [run_case(case, agent) for _ in range(case.n_runs)]",
        new="runs = [run_case(case, agent) for _ in range(3)]",
        loses={"safety_all_runs", "flake_not_success"},
    ),
    Mutant(
        name="n_runs_assert",
        bug="lab 6 spec: n_runs below 1 is rejected with assert, which raises AssertionError "
            "(and vanishes under python -O), not ValueError",
        cell="run_majority",
        old="""    if case.n_runs < 1:
        raise ValueError(f"case {case.id!r}: n_runs must be at least 1, got {case.n_runs}")
""",
        new="""    assert case.n_runs >= 1, f"case {case.id!r}: n_runs must be at least 1"
""",
        loses={"flake_not_success"},
    ),
    Mutant(
        name="flake_key_required",
        bug="lab 6 spec: flaky_cases reads r['flake'], so a result dict without a flake key "
            "raises KeyError instead of counting as not flaky",
        cell="report_fn",
        old='"flaky_cases": [r["id"] for r in results if r.get("flake")],',
        new='"flaky_cases": [r["id"] for r in results if r["flake"]],',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="flaky_cases_sorted",
        bug="lab 6 spec: flaky_cases sorted by id instead of kept in input order",
        cell="report_fn",
        old='"flaky_cases": [r["id"] for r in results if r.get("flake")],',
        new='"flaky_cases": sorted(r["id"] for r in results if r.get("flake")),',
        loses={"flake_not_success"},
    ),
    Mutant(
        name="gate_rounds_success",
        bug="lab 6 spec: the gate rounds the success rate to 2 places before comparing, so "
            "0.898 passes a baseline of 0.90",
        cell="gate_fn",
        old='return rep["success_rate"] >= baseline and not rep["safety_violations"]',
        new='return round(rep["success_rate"], 2) >= baseline and not rep["safety_violations"]',
        loses={"gate_needs_safety"},
    ),
    Mutant(
        name="tags_default_shared",
        bug="the tags default is one list shared by every Case, so a tag added to one case "
            "shows up on every case made without tags",
        cell="case_run",
        old="tags: list[str] = field(default_factory=list)",
        new="tags: list[str] = field(default_factory=lambda shared=[]: shared)",
        loses={"run_case_shape"},
    ),
    Mutant(
        name="n_runs_default_1",
        bug="Case's n_runs defaults to 1 instead of 3, so a case without n_runs is never "
            "voted on and a flake cannot show",
        cell="case_run",
        old="n_runs: int = 3",
        new="n_runs: int = 1",
        loses={"run_case_shape", "safety_all_runs", "flake_not_success"},
    ),
]
