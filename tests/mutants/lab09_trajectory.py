"""Seeded bugs for lab 9 (trajectory assertions), from seed 001 exercise 9 and its issue."""

from course.grading.mutation import Mutant

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
        loses={"called_before_vacuous"},
    ),
    Mutant(
        name="ignores_batch",
        bug="seed 001 ex.9: counting all steps instead of the steps of one batch cannot tell "
            "three calls in one turn from three calls in three turns",
        cell="trajectory",
        old="largest = max(sizes.values(), default=0)",
        new="largest = len(self.trace.steps)",
        loses={"parallel_batch"},
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
]
