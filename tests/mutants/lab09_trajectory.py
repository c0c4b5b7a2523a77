"""Seeded bugs for lab 9 (trajectory assertions), from seed 001 exercise 9 and its issue."""

from course.grading.proofs.mutation import Mutant

_APPENDS = [
    'self.violations.append(f"EFFICIENCY: {name} called {count}x (max {n})")',
    'self.violations.append(f"ORDER: {second} ran without {first}")',
    'self.violations.append(f"EFFICIENCY: {total} calls (max {n})")',
    'self.violations.append(f"PARALLELISM: largest batch was {largest}, want {n}")',
    'self.violations.append(f"SAFETY: {label} in args to {s.tool}")',
]

MUTANTS = [
    Mutant(
        name="raise_on_first",
        bug="seed 001 ex.9: raising on the first violation hides every later finding; a "
            "run with three problems reports one per re-run",
        cell="trajectory",
        old='self.violations.append(f"SAFETY: called forbidden tool {name}")',
        new='raise AssertionError(f"SAFETY: called forbidden tool {name}")',
        patches=tuple(("trajectory", a, a.replace("self.violations.append(",
                                                  "raise AssertionError("))
                      for a in _APPENDS),
        loses={"bad_trace_three_violations", "called_before_order", "parallel_batch",
               "safety_separated", "chains_return_self", "each_invariant_catches"},
    ),
    Mutant(
        name="flags_absent_second",
        bug="seed 001 ex.9: called_before flags a run in which the second tool never ran "
            "(the off-by-one everybody writes first)",
        cell="trajectory",
        old="        if second in names:\n            at = names.index(second)\n",
        new="        if True:\n            at = names.index(second) if second in names "
            "else len(names)\n",
        loses={"called_before_vacuous", "called_before_order"},
    ),
    Mutant(
        name="ignores_batch",
        bug="seed 001 ex.9: counting all steps instead of the steps of one batch cannot tell "
            "three calls in one turn from three calls in three turns",
        cell="trajectory",
        old="largest = max(sizes.values(), default=0)",
        new="largest = len(self.trace.steps)",
        loses={"parallel_batch", "safety_separated"},
    ),
    Mutant(
        name="exact_sequence",
        bug="seed 001 ex.9: an ordering rule that wants first immediately before second "
            "asserts one route and fails a correct run with a step in between",
        cell="trajectory",
        old="if first not in names[:at]:",
        new="if names[at - 1:at] != [first]:",
        loses={"called_before_order", "clean_run_silent"},
    ),
    Mutant(
        name="safety_folded",
        bug="seed 001 ex.9: safety_ok computed from all violations folds an efficiency "
            "finding into the safety gate",
        cell="trajectory",
        old='"safety_ok": not safety,',
        new='"safety_ok": not self.violations,',
        loses={"safety_separated"},
    ),
    Mutant(
        name="no_return_self",
        bug="seed 001 ex.9: an invariant that does not return self breaks the chain",
        cell="trajectory",
        old='called {count}x (max {n})")\n        return self',
        new='called {count}x (max {n})")',
        loses={"bad_trace_three_violations", "chains_return_self", "clean_run_silent",
               "safety_separated", "each_invariant_catches", "called_before_vacuous"},
    ),
    Mutant(
        name="never_called_per_step",
        bug="never_called appends one violation per step that ran the tool, not one per "
            "name: a tool that ran three times reports three times",
        cell="trajectory",
        old="if name in [s.tool for s in self.trace.steps]:",
        new="for _ in [s for s in self.trace.steps if s.tool == name]:",
        loses={"each_invariant_catches"},
    ),
    Mutant(
        name="name_substring",
        bug="never_called matches by substring and case-folded, so a forbidden 'order' "
            "flags get_order",
        cell="trajectory",
        old="if name in [s.tool for s in self.trace.steps]:",
        new="if any(name.lower() in s.tool.lower() for s in self.trace.steps):",
        loses={"each_invariant_catches"},
    ),
    Mutant(
        name="at_most_inclusive",
        bug="called_at_most written with >=: a tool that ran exactly n times trips",
        cell="trajectory",
        old="if count > n:",
        new="if count >= n:",
        loses={"bad_trace_three_violations", "clean_run_silent", "each_invariant_catches"},
    ),
    Mutant(
        name="total_inclusive",
        bug="max_total_calls written with >=: exactly n steps trips",
        cell="trajectory",
        old="if total > n:",
        new="if total >= n:",
        loses={"clean_run_silent", "each_invariant_catches"},
    ),
    Mutant(
        name="batch_strict",
        bug="parallel_batch_at_least written with <=: a largest batch of exactly n trips",
        cell="trajectory",
        old="if largest < n:",
        new="if largest <= n:",
        loses={"parallel_batch", "clean_run_silent"},
    ),
    Mutant(
        name="batch_empty_raises",
        bug="max() without a default: an empty trace raises ValueError instead of reporting "
            "a largest batch of 0",
        cell="trajectory",
        old="largest = max(sizes.values(), default=0)",
        new="largest = max(sizes.values())",
        loses={"parallel_batch", "chains_return_self"},
    ),
    Mutant(
        name="before_anywhere",
        bug="called_before satisfied when first ran anywhere in the trace, even after "
            "second's first run",
        cell="trajectory",
        old="if first not in names[:at]:",
        new="if first not in names:",
        loses={"called_before_order"},
    ),
    Mutant(
        name="before_last_run",
        bug="called_before measured against second's last run instead of its first",
        cell="trajectory",
        old="at = names.index(second)",
        new="at = len(names) - 1 - names[::-1].index(second)",
        loses={"called_before_order"},
    ),
    Mutant(
        name="self_pair_silent",
        bug="called_before(x, x) treated as always satisfied",
        cell="trajectory",
        old="if second in names:",
        new="if second in names and first != second:",
        loses={"called_before_order"},
    ),
    Mutant(
        name="pattern_once",
        bug="no_pattern_in_args stops at the first matching step: one violation per call, "
            "not one per step",
        cell="trajectory",
        old='self.violations.append(f"SAFETY: {label} in args to {s.tool}")',
        new='self.violations.append(f"SAFETY: {label} in args to {s.tool}")\n'
            "                break",
        loses={"each_invariant_catches"},
    ),
    Mutant(
        name="names_sorted",
        bug="never_called_all checks the names sorted, not in the order given",
        cell="trajectory",
        old="for name in names:",
        new="for name in sorted(names):",
        loses={"each_invariant_catches"},
    ),
    Mutant(
        name="result_shares_list",
        bug="result() hands out the checker's own violations list, so a caller that "
            "changes the result changes the checker",
        cell="trajectory",
        old='"violations": list(self.violations)',
        new='"violations": self.violations',
        loses={"bad_trace_three_violations"},
    ),
    Mutant(
        name="result_sorted",
        bug="result() sorts the violations instead of keeping the order the invariants ran",
        cell="trajectory",
        old='"violations": list(self.violations)',
        new='"violations": sorted(self.violations)',
        loses={"bad_trace_three_violations"},
    ),
]
MUTANTS += [
    Mutant(
        name="violations_shared",
        bug="the violations list lives on the class, shared by every Trajectory: a new checker "
            "starts with the violations of the ones before it",
        cell="trajectory",
        old="self.violations: list[str] = []",
        new="self.violations = Trajectory.found",
        patches=(("trajectory", "    def __init__(self, trace: Trace) -> None:",
                  "    found: list[str] = []\n\n    def __init__(self, trace: Trace) -> None:"),),
        loses={"bad_trace_three_violations", "called_before_order", "called_before_vacuous",
               "parallel_batch", "clean_run_silent", "safety_separated",
               "each_invariant_catches"},
    ),
    Mutant(
        name="never_called_message",
        bug='never_called says "SAFETY: forbidden tool {name} called", not the text specified',
        cell="trajectory",
        old='f"SAFETY: called forbidden tool {name}"',
        new='f"SAFETY: forbidden tool {name} called"',
        loses={"bad_trace_three_violations", "safety_separated", "each_invariant_catches"},
    ),
    Mutant(
        name="at_most_message",
        bug='called_at_most says "{count} times" instead of "{count}x"',
        cell="trajectory",
        old="called {count}x (max {n})",
        new="called {count} times (max {n})",
        loses={"bad_trace_three_violations", "safety_separated", "each_invariant_catches"},
    ),
    Mutant(
        name="before_message_swapped",
        bug='called_before swaps the names: "ORDER: {first} ran without {second}"',
        cell="trajectory",
        old='"ORDER: {second} ran without {first}"',
        new='"ORDER: {first} ran without {second}"',
        loses={"called_before_order", "safety_separated"},
    ),
    Mutant(
        name="total_message",
        bug='max_total_calls says "{count} steps" instead of "{count} calls"',
        cell="trajectory",
        old='"EFFICIENCY: {total} calls (max {n})"',
        new='"EFFICIENCY: {total} steps (max {n})"',
        loses={"bad_trace_three_violations", "each_invariant_catches"},
    ),
    Mutant(
        name="batch_message_swapped",
        bug='parallel_batch_at_least swaps the numbers: "largest batch was {n}, want {largest}"',
        cell="trajectory",
        old="largest batch was {largest}, want {n}",
        new="largest batch was {n}, want {largest}",
        loses={"parallel_batch", "safety_separated"},
    ),
    Mutant(
        name="pattern_message_shows_pattern",
        bug="no_pattern_in_args puts the regular expression in the message, not the label",
        cell="trajectory",
        old='f"SAFETY: {label} in args to {s.tool}"',
        new='f"SAFETY: {pattern} in args to {s.tool}"',
        loses={"each_invariant_catches", "safety_separated"},
    ),
    Mutant(
        name="result_key_renamed",
        bug='result() names the verdict "ok" instead of "passed"',
        cell="trajectory",
        old='{"passed": not self.violations',
        new='{"ok": not self.violations',
        loses={"bad_trace_three_violations", "called_before_vacuous", "clean_run_silent",
               "safety_separated"},
    ),
]
