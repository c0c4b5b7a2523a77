"""Blind samples for lab06_eval_harness: written from the release notebook alone.

Each sample fills all four answer cells. The bugs start from one plain, correct harness
(the ``*_CELL`` templates) and change one stated behaviour with :func:`_patch`.

Written before the notebook settled its rules for a trace whose text is None (it reads as
""), a tag listed twice (it counts once) and n_runs below 1 (ValueError): the base and the
correct variants were then brought to those rules, nothing else.
"""

from course.grading.proofs.blind import Blind

CASE_RUN_CELL = r'''import statistics
from dataclasses import dataclass, field


@dataclass
class Case:
    """One eval case: an input and the properties every acceptable run of it must have."""

    id: str
    input: str
    must_call: list[str] = field(default_factory=list)
    must_not_call: list[str] = field(default_factory=list)
    max_tool_calls: int = 10
    expect_contains: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    n_runs: int = 3


def run_case(case: Case, agent) -> dict:
    """Run ``case`` once on ``agent`` and score the trace (keys in the table above)."""
    trace = agent.run(case.input)
    called = [step.tool for step in trace.steps]
    text = (trace.text or "").lower()
    checks = {
        "required_tools": all(tool in called for tool in case.must_call),
        "forbidden_tools": not any(tool in called for tool in case.must_not_call),
        "call_budget": len(called) <= case.max_tool_calls,
        "content": all(want.lower() in text for want in case.expect_contains),
    }
    return {
        "id": case.id,
        "tags": list(case.tags),
        "checks": checks,
        "passed": all(checks.values()),
        "safety_ok": checks["forbidden_tools"],
        "usd": trace.usd,
        "calls": len(called),
    }
'''

RUN_MAJORITY_CELL = r'''import statistics


def run_case_majority(case: Case, agent) -> dict:
    """Run ``case`` ``case.n_runs`` times: vote on success, never on safety."""
    if case.n_runs < 1:
        raise ValueError(f"n_runs must be at least 1, got {case.n_runs}")
    runs = [run_case(case, agent) for _ in range(case.n_runs)]
    passes = sum(1 for run in runs if run["passed"])
    return {
        "id": case.id,
        "tags": list(case.tags),
        "passed": 2 * passes > case.n_runs,
        "safety_ok": all(run["safety_ok"] for run in runs),
        "flake": 0 < passes < case.n_runs,
        "passes": passes,
        "usd": statistics.mean(run["usd"] for run in runs),
        "calls": max(run["calls"] for run in runs),
        "runs": runs,
    }
'''

REPORT_CELL = r'''import statistics


def report(results: list[dict]) -> dict:
    """Aggregate per-case results into the report described above."""
    n = len(results)
    calls = sorted(r["calls"] for r in results)
    rank = (95 * n + 99) // 100            # ceil(95 * n / 100), in integers
    by_tag = {}
    for r in results:
        for tag in dict.fromkeys(r["tags"]):
            row = by_tag.setdefault(tag, {"passed": 0, "n": 0})
            row["n"] += 1
            if r["passed"]:
                row["passed"] += 1
    return {
        "success_rate": sum(1 for r in results if r["passed"]) / n,
        "safety_violations": [r["id"] for r in results if not r["safety_ok"]],
        "flaky_cases": [r["id"] for r in results if r.get("flake", False)],
        "median_usd": statistics.median(r["usd"] for r in results),
        "p95_calls": calls[rank - 1],
        "by_tag": by_tag,
    }
'''

GATE_CELL = r'''def gate(rep: dict, baseline: float) -> bool:
    """True when the change may merge: success at or above baseline and no unsafe case."""
    return rep["success_rate"] >= baseline and not rep["safety_violations"]
'''


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"a blind edit expects {old!r} once in its template, found {found}")
        source = source.replace(old, new)
    return source


def _cells(case_run: str = CASE_RUN_CELL, run_majority: str = RUN_MAJORITY_CELL,
           report_fn: str = REPORT_CELL, gate_fn: str = GATE_CELL) -> dict[str, str]:
    """All four answer cells, the correct templates unless overridden."""
    return {"case_run": case_run, "run_majority": run_majority, "report_fn": report_fn,
            "gate_fn": gate_fn}


SET_CHECKS_CASE_RUN_CELL = r'''import statistics
from dataclasses import dataclass, field


def _empty():
    return []


@dataclass
class Case:
    """One eval case: an input and the properties every acceptable run of it must have."""

    id: str
    input: str
    must_call: list = field(default_factory=_empty)
    must_not_call: list = field(default_factory=_empty)
    max_tool_calls: int = 10
    expect_contains: list = field(default_factory=_empty)
    tags: list = field(default_factory=_empty)
    n_runs: int = 3


def run_case(case: Case, agent) -> dict:
    """Run ``case`` once on ``agent`` and score the trace (keys in the table above)."""
    trace = agent.run(case.input)
    steps = len(trace.steps)
    seen = {step.tool for step in trace.steps}
    haystack = (trace.text or "").casefold()
    checks = {}
    checks["required_tools"] = set(case.must_call) <= seen
    checks["forbidden_tools"] = seen.isdisjoint(case.must_not_call)
    checks["call_budget"] = not steps > case.max_tool_calls
    checks["content"] = not [w for w in case.expect_contains if w.casefold() not in haystack]
    result = dict(id=case.id, tags=case.tags[:], checks=checks)
    result["passed"] = False not in checks.values()
    result["safety_ok"] = checks["forbidden_tools"]
    result["usd"] = trace.usd
    result["calls"] = steps
    return result
'''

COUNTER_MAJORITY_CELL = r'''def run_case_majority(case: Case, agent) -> dict:
    """Run ``case`` ``case.n_runs`` times: vote on success, never on safety."""
    if not case.n_runs >= 1:
        raise ValueError("n_runs below 1")
    runs = []
    passes = 0
    unsafe = 0
    while len(runs) < case.n_runs:
        run = run_case(case, agent)
        runs.append(run)
        passes += 1 if run["passed"] else 0
        unsafe += 0 if run["safety_ok"] else 1
    fails = case.n_runs - passes
    return {
        "id": case.id,
        "tags": list(case.tags),
        "passed": passes > fails,
        "safety_ok": unsafe == 0,
        "flake": passes not in (0, case.n_runs),
        "passes": passes,
        "usd": sum(run["usd"] for run in runs) / len(runs),
        "calls": sorted(run["calls"] for run in runs)[-1],
        "runs": runs,
    }
'''

COUNTER_REPORT_CELL = r'''import statistics
from collections import defaultdict


def report(results: list[dict]) -> dict:
    """Aggregate per-case results into the report described above."""
    total = len(results)
    tag_n = defaultdict(int)
    tag_passed = defaultdict(int)
    unsafe, flaky, usd, calls = [], [], [], []
    won = 0
    for r in results:
        won += bool(r["passed"])
        if not r["safety_ok"]:
            unsafe.append(r["id"])
        if r.get("flake"):
            flaky.append(r["id"])
        usd.append(r["usd"])
        calls.append(r["calls"])
        for tag in set(r["tags"]):
            tag_n[tag] += 1
            tag_passed[tag] += bool(r["passed"])
    calls.sort()
    rank = -(-95 * total // 100)
    return {
        "success_rate": won / total,
        "safety_violations": unsafe,
        "flaky_cases": flaky,
        "median_usd": statistics.median(usd),
        "p95_calls": calls[rank - 1],
        "by_tag": {tag: {"passed": int(tag_passed[tag]), "n": tag_n[tag]} for tag in tag_n},
    }
'''

EARLY_RETURN_GATE_CELL = r'''def gate(rep: dict, baseline: float) -> bool:
    """True when the change may merge: success at or above baseline and no unsafe case."""
    if len(rep["safety_violations"]) > 0:
        return False
    if rep["success_rate"] < baseline:
        return False
    return True
'''

BLIND = [
    Blind(
        name="tuple_defaults",
        bug="the list fields default to () to dodge the mutable-default error, so "
            "Case('a', 'b').must_call is a tuple, not the new [] per case of the signature",
        cells=_cells(case_run=_patch(
            CASE_RUN_CELL,
            ("    must_call: list[str] = field(default_factory=list)\n"
             "    must_not_call: list[str] = field(default_factory=list)\n",
             "    must_call: tuple[str, ...] = ()\n"
             "    must_not_call: tuple[str, ...] = ()\n"),
            ("    expect_contains: list[str] = field(default_factory=list)\n"
             "    tags: list[str] = field(default_factory=list)\n",
             "    expect_contains: tuple[str, ...] = ()\n"
             "    tags: tuple[str, ...] = ()\n"))),
    ),
    Blind(
        name="required_tools_in_order",
        bug="required_tools checks that the must_call tools were called in the order they "
            "are listed (a subsequence); the notebook says any order, anything around them",
        cells=_cells(case_run=_patch(
            CASE_RUN_CELL,
            ("def run_case(case: Case, agent) -> dict:\n",
             "def _called(wanted, called):\n"
             "    rest = iter(called)\n"
             "    return all(tool in rest for tool in wanted)\n\n\n"
             "def run_case(case: Case, agent) -> dict:\n"),
            ("all(tool in called for tool in case.must_call)",
             "_called(case.must_call, called)"))),
    ),
    Blind(
        name="repeated_calls_counted_once",
        bug="the tools called are collected in a set, so call_budget and calls count "
            "distinct tools; the notebook says calls is the number of steps and repeats count",
        cells=_cells(case_run=_patch(
            CASE_RUN_CELL,
            ("called = [step.tool for step in trace.steps]",
             "called = {step.tool for step in trace.steps}"))),
    ),
    Blind(
        name="expected_string_not_lowered",
        bug="the trace text is lower-cased but the expected strings are not, so 'Shipped' "
            "never matches; the notebook compares ignoring case on both sides",
        cells=_cells(case_run=_patch(
            CASE_RUN_CELL,
            ("all(want.lower() in text for", "all(want in text for"))),
    ),
    Blind(
        name="stops_when_vote_decided",
        bug="run_case_majority stops running as soon as the vote can no longer change, "
            "instead of calling run_case exactly n_runs times; the skipped runs can be the "
            "unsafe one",
        cells=_cells(run_majority=r'''def run_case_majority(case: Case, agent) -> dict:
    """Run ``case`` ``case.n_runs`` times: vote on success, never on safety."""
    runs = []
    passes = 0
    while len(runs) < case.n_runs:
        run = run_case(case, agent)
        runs.append(run)
        passes += 1 if run["passed"] else 0
        fails = len(runs) - passes
        if 2 * passes > case.n_runs or 2 * fails >= case.n_runs:
            break                       # the vote is decided: save the remaining runs
    return {
        "id": case.id,
        "tags": list(case.tags),
        "passed": 2 * passes > case.n_runs,
        "safety_ok": all(run["safety_ok"] for run in runs),
        "flake": 0 < passes < len(runs),
        "passes": passes,
        "usd": sum(run["usd"] for run in runs) / len(runs),
        "calls": max(run["calls"] for run in runs),
        "runs": runs,
    }
'''),
    ),
    Blind(
        name="half_the_runs_passes",
        bug="passed is passes >= n_runs / 2, so 2 passes of 4 count as a pass; the notebook "
            "says strictly more than half",
        cells=_cells(run_majority=_patch(
            RUN_MAJORITY_CELL,
            ("\"passed\": 2 * passes > case.n_runs,", "\"passed\": passes >= case.n_runs / 2,"))),
    ),
    Blind(
        name="all_failed_is_a_flake",
        bug="flake is passes < n_runs, so a case that failed every run is reported flaky; "
            "the notebook says 0 < passes < n_runs",
        cells=_cells(run_majority=_patch(
            RUN_MAJORITY_CELL,
            ("\"flake\": 0 < passes < case.n_runs,", "\"flake\": passes < case.n_runs,"))),
    ),
    Blind(
        name="usd_summed_over_runs",
        bug="usd is the total over the runs instead of the mean over the runs",
        cells=_cells(run_majority=_patch(
            RUN_MAJORITY_CELL,
            ("\"usd\": statistics.mean(run[\"usd\"] for run in runs),",
             "\"usd\": sum(run[\"usd\"] for run in runs),"))),
    ),
    Blind(
        name="calls_summed_over_runs",
        bug="calls is the total number of steps over all runs instead of the largest over "
            "the runs",
        cells=_cells(run_majority=_patch(
            RUN_MAJORITY_CELL,
            ("\"calls\": max(run[\"calls\"] for run in runs),",
             "\"calls\": sum(run[\"calls\"] for run in runs),"))),
    ),
    Blind(
        name="p95_of_unsorted_calls",
        bug="the p95 rank is computed correctly but read from the calls in input order; the "
            "notebook says sort the values first",
        cells=_cells(report_fn=_patch(
            REPORT_CELL,
            ("calls = sorted(r[\"calls\"] for r in results)",
             "calls = [r[\"calls\"] for r in results]"))),
    ),
    Blind(
        name="unsafe_ids_sorted",
        bug="safety_violations is the sorted set of unsafe ids, not the ids in input order",
        cells=_cells(report_fn=_patch(
            REPORT_CELL,
            ("\"safety_violations\": [r[\"id\"] for r in results if not r[\"safety_ok\"]],",
             "\"safety_violations\": sorted({r[\"id\"] for r in results "
             "if not r[\"safety_ok\"]}),"))),
    ),
    Blind(
        name="flake_key_required",
        bug="flaky_cases reads r['flake'] directly, so a result dict without 'flake' raises "
            "KeyError; the notebook says such a dict counts as not flaky",
        cells=_cells(report_fn=_patch(
            REPORT_CELL, ("if r.get(\"flake\", False)]", "if r[\"flake\"]]"))),
    ),
    Blind(
        name="success_rate_rounded",
        bug="success_rate is rounded to 3 decimals; the notebook says a float, not rounded",
        cells=_cells(report_fn=_patch(
            REPORT_CELL,
            ("\"success_rate\": sum(1 for r in results if r[\"passed\"]) / n,",
             "\"success_rate\": round(sum(1 for r in results if r[\"passed\"]) / n, 3),"))),
    ),
    Blind(
        name="by_tag_shared_counter",
        bug="by_tag is built with dict.fromkeys(tags, {...}), so every tag shares ONE "
            "counter dict and each tag reports the counts of all tags together",
        cells=_cells(report_fn=_patch(
            REPORT_CELL,
            ("    by_tag = {}\n"
             "    for r in results:\n"
             "        for tag in dict.fromkeys(r[\"tags\"]):\n"
             "            row = by_tag.setdefault(tag, {\"passed\": 0, \"n\": 0})\n",
             "    every_tag = [tag for r in results for tag in r[\"tags\"]]\n"
             "    by_tag = dict.fromkeys(every_tag, {\"passed\": 0, \"n\": 0})\n"
             "    for r in results:\n"
             "        for tag in dict.fromkeys(r[\"tags\"]):\n"
             "            row = by_tag[tag]\n"))),
    ),
    Blind(
        name="gate_rounds_success",
        bug="the gate rounds the success rate to 2 decimals before comparing, so 0.896 "
            "passes a 0.90 baseline; the notebook compares the floats as they are",
        cells=_cells(gate_fn=_patch(
            GATE_CELL,
            ("return rep[\"success_rate\"] >= baseline",
             "return round(rep[\"success_rate\"], 2) >= baseline"))),
    ),
    Blind(
        name="list_comprehension_harness",
        bug="the plain solution: membership tests over the list of tool names, "
            "statistics.mean/median, the nearest rank as (95*N + 99) // 100",
        cells=_cells(),
        correct=True,
    ),
    Blind(
        name="set_checks_and_counters",
        bug="set algebra for the tool checks (issubset / isdisjoint), casefold for the "
            "content, a while loop with counters for the vote, defaultdicts for by_tag, "
            "-(-95*N // 100) for the rank, and a gate written as early returns",
        cells=_cells(case_run=SET_CHECKS_CASE_RUN_CELL, run_majority=COUNTER_MAJORITY_CELL,
                     report_fn=COUNTER_REPORT_CELL, gate_fn=EARLY_RETURN_GATE_CELL),
        correct=True,
    ),
]
