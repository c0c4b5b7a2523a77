"""Blind samples for lab09_trajectory: written from the release notebook alone."""

from course.grading.proofs.blind import Blind

CELL = "trajectory"

BASE = '''import re

from course.trace import Trace


class Trajectory:
    """Invariants over one run's route. Each appends its violation and returns ``self``."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.violations: list[str] = []

    def never_called(self, name: str) -> "Trajectory":
        if any(step.tool == name for step in self.trace.steps):
            self.violations.append(f"SAFETY: called forbidden tool {name}")
        return self

    def called_at_most(self, name: str, n: int) -> "Trajectory":
        count = sum(1 for step in self.trace.steps if step.tool == name)
        if count > n:
            self.violations.append(f"EFFICIENCY: {name} called {count}x (max {n})")
        return self

    def called_before(self, first: str, second: str) -> "Trajectory":
        tools = [step.tool for step in self.trace.steps]
        if second in tools:
            first_run = tools.index(second)
            if first not in tools[:first_run]:
                self.violations.append(f"ORDER: {second} ran without {first}")
        return self

    def max_total_calls(self, n: int) -> "Trajectory":
        count = len(self.trace.steps)
        if count > n:
            self.violations.append(f"EFFICIENCY: {count} calls (max {n})")
        return self

    def parallel_batch_at_least(self, n: int) -> "Trajectory":
        sizes: dict[int, int] = {}
        for step in self.trace.steps:
            sizes[step.batch] = sizes.get(step.batch, 0) + 1
        largest = max(sizes.values(), default=0)
        if largest < n:
            self.violations.append(f"PARALLELISM: largest batch was {largest}, want {n}")
        return self

    def never_called_all(self, names: list[str]) -> "Trajectory":
        for name in names:
            self.never_called(name)
        return self

    def no_pattern_in_args(self, pattern: str, label: str) -> "Trajectory":
        for step in self.trace.steps:
            if re.search(pattern, str(step.args)):
                self.violations.append(f"SAFETY: {label} in args to {step.tool}")
        return self

    def result(self) -> dict:
        safety = [v for v in self.violations if v.startswith("SAFETY")]
        other = [v for v in self.violations if not v.startswith("SAFETY")]
        return {"passed": not self.violations, "safety_ok": not safety,
                "violations": list(self.violations), "safety": safety, "other": other}
'''


def _bug(name: str, bug: str, old: str, new: str) -> Blind:
    """A sample that differs from BASE in exactly one place (``old`` must occur once)."""
    if BASE.count(old) != 1:
        raise ValueError(f"{name}: the text to replace must occur exactly once in BASE: {old!r}")
    return Blind(name=name, bug=bug, cells={CELL: BASE.replace(old, new)})


BLIND = [
    _bug("at_most_trips_at_n",
         "called_at_most trips when the tool ran exactly n times; the notebook says it trips "
         "only when the tool ran MORE than n times",
         "        if count > n:\n            self.violations.append(f\"EFFICIENCY: {name}",
         "        if count >= n:\n            self.violations.append(f\"EFFICIENCY: {name}"),
    _bug("total_counts_turns",
         "max_total_calls counts assistant turns (distinct batch numbers) instead of steps; "
         "the notebook says it trips when there are more than n steps",
         "        count = len(self.trace.steps)",
         "        count = len({step.batch for step in self.trace.steps})"),
    _bug("before_last_run",
         "called_before checks the steps before second's LAST run instead of its FIRST run, "
         "so an authorize between two refunds hides the unauthorized first refund",
         "            first_run = tools.index(second)",
         "            first_run = len(tools) - 1 - tools[::-1].index(second)"),
    _bug("before_anywhere",
         "called_before accepts first having run at any step of the trace, even after "
         "second's first run; the notebook requires it at a step before second's first run",
         "            if first not in tools[:first_run]:",
         "            if first not in tools:"),
    _bug("empty_trace_batch_raises",
         "parallel_batch_at_least takes max() of the batch sizes with no default, so an empty "
         "trace raises ValueError instead of counting a largest batch of 0",
         "        largest = max(sizes.values(), default=0)",
         "        largest = max(sizes.values())"),
    _bug("pattern_first_step_only",
         "no_pattern_in_args stops at the first matching step; the notebook says one violation "
         "for EACH step that matches",
         "                self.violations.append(f\"SAFETY: {label} in args to {step.tool}\")\n",
         "                self.violations.append(f\"SAFETY: {label} in args to {step.tool}\")\n"
         "                break\n"),
    _bug("pattern_match_not_search",
         "no_pattern_in_args uses re.match (anchored at the start of str(args)) instead of the "
         "re.search the notebook states, so a pattern inside the args is never found",
         "            if re.search(pattern, str(step.args)):",
         "            if re.match(pattern, str(step.args)):"),
    _bug("result_aliases_violations",
         "result() hands back self.violations itself instead of a new list, so changing the "
         "returned verdict (or running more invariants) changes the other",
         "\"violations\": list(self.violations)",
         "\"violations\": self.violations"),
    _bug("other_only_efficiency",
         "result()'s other holds only the EFFICIENCY violations, dropping ORDER and PARALLELISM; "
         "the notebook says other is every violation that is not SAFETY",
         "        other = [v for v in self.violations if not v.startswith(\"SAFETY\")]",
         "        other = [v for v in self.violations if v.startswith(\"EFFICIENCY\")]"),
    _bug("never_called_all_sorted",
         "never_called_all checks the names in sorted order, so its violations come out sorted "
         "instead of in the order the names were given",
         "        for name in names:",
         "        for name in sorted(set(names)):"),
    _bug("violations_class_attribute",
         "violations is a class-level list shared by every Trajectory, so a second checker "
         "starts with the first one's violations instead of an empty list",
         "    def __init__(self, trace: Trace) -> None:\n"
         "        self.trace = trace\n        self.violations: list[str] = []\n",
         "    violations: list[str] = []\n\n"
         "    def __init__(self, trace: Trace) -> None:\n"
         "        self.trace = trace\n"),
    _bug("never_called_all_no_self",
         "never_called_all records its violations but returns None instead of the checker, "
         "so a chain through it breaks",
         "            self.never_called(name)\n        return self\n",
         "            self.never_called(name)\n"),
]

BLIND += [
    Blind(
        name="counter_and_first_index",
        bug="correct: Counter for counts and batch sizes, a dict of first-run indexes for "
            "called_before, one _flag helper that appends and returns self, and result() "
            "partitions the violations in a single loop",
        cells={CELL: '''import re
from collections import Counter

from course.trace import Trace


class Trajectory:
    """Invariants over one run's route. Each appends its violation and returns ``self``."""

    def __init__(self, trace: Trace) -> None:
        self._steps = tuple(trace.steps)
        self.violations: list[str] = []

    def _flag(self, tripped: bool, text: str) -> "Trajectory":
        if tripped:
            self.violations.append(text)
        return self

    def never_called(self, name: str) -> "Trajectory":
        used = Counter(s.tool for s in self._steps)
        return self._flag(used[name] > 0, f"SAFETY: called forbidden tool {name}")

    def called_at_most(self, name: str, n: int) -> "Trajectory":
        count = Counter(s.tool for s in self._steps)[name]
        return self._flag(count > n, f"EFFICIENCY: {name} called {count}x (max {n})")

    def called_before(self, first: str, second: str) -> "Trajectory":
        first_index: dict[str, int] = {}
        for i, s in enumerate(self._steps):
            first_index.setdefault(s.tool, i)
        if second not in first_index:
            return self
        ok = first in first_index and first_index[first] < first_index[second]
        return self._flag(not ok, f"ORDER: {second} ran without {first}")

    def max_total_calls(self, n: int) -> "Trajectory":
        count = len(self._steps)
        return self._flag(count > n, f"EFFICIENCY: {count} calls (max {n})")

    def parallel_batch_at_least(self, n: int) -> "Trajectory":
        batches = Counter(s.batch for s in self._steps)
        largest = max(batches.values()) if batches else 0
        return self._flag(largest < n, f"PARALLELISM: largest batch was {largest}, want {n}")

    def never_called_all(self, names: list[str]) -> "Trajectory":
        for name in names:
            self.never_called(name)
        return self

    def no_pattern_in_args(self, pattern: str, label: str) -> "Trajectory":
        compiled = re.compile(pattern)
        for s in self._steps:
            self._flag(compiled.search(str(s.args)) is not None,
                       f"SAFETY: {label} in args to {s.tool}")
        return self

    def result(self) -> dict:
        safety: list[str] = []
        other: list[str] = []
        for v in self.violations:
            (safety if v.startswith("SAFETY") else other).append(v)
        return {"passed": len(self.violations) == 0, "safety_ok": len(safety) == 0,
                "violations": self.violations.copy(), "safety": safety, "other": other}
'''},
        correct=True,
    ),
    Blind(
        name="while_loops_and_generators",
        bug="correct: explicit while loops over step indexes, called_before scans to second's "
            "first run and stops there, batch sizes via itertools.groupby over sorted batch "
            "numbers, and result() built from filter()",
        cells={CELL: '''import itertools
import re

from course.trace import Trace


class Trajectory:
    """Invariants over one run's route. Each appends its violation and returns ``self``."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.violations = []

    def _tools(self):
        return [s.tool for s in self.trace.steps]

    def never_called(self, name: str) -> "Trajectory":
        if name in self._tools():
            self.violations.append("SAFETY: called forbidden tool " + name)
        return self

    def called_at_most(self, name: str, n: int) -> "Trajectory":
        count = self._tools().count(name)
        if not count <= n:
            self.violations.append("EFFICIENCY: %s called %dx (max %d)" % (name, count, n))
        return self

    def called_before(self, first: str, second: str) -> "Trajectory":
        tools = self._tools()
        seen_first = False
        i = 0
        while i < len(tools):
            if tools[i] == second:
                if not seen_first:
                    self.violations.append("ORDER: %s ran without %s" % (second, first))
                break
            if tools[i] == first:
                seen_first = True
            i += 1
        return self

    def max_total_calls(self, n: int) -> "Trajectory":
        total = len(self.trace.steps)
        if total > n:
            self.violations.append("EFFICIENCY: %d calls (max %d)" % (total, n))
        return self

    def parallel_batch_at_least(self, n: int) -> "Trajectory":
        numbers = sorted(s.batch for s in self.trace.steps)
        sizes = [len(list(group)) for _, group in itertools.groupby(numbers)]
        largest = max(sizes + [0])
        if largest < n:
            self.violations.append("PARALLELISM: largest batch was %d, want %d"
                                   % (largest, n))
        return self

    def never_called_all(self, names: list[str]) -> "Trajectory":
        i = 0
        while i < len(names):
            self.never_called(names[i])
            i += 1
        return self

    def no_pattern_in_args(self, pattern: str, label: str) -> "Trajectory":
        hits = [s.tool for s in self.trace.steps if re.search(pattern, str(s.args))]
        self.violations.extend("SAFETY: %s in args to %s" % (label, tool) for tool in hits)
        return self

    def result(self) -> dict:
        def is_safety(v):
            return v.startswith("SAFETY")

        safety = list(filter(is_safety, self.violations))
        other = list(itertools.filterfalse(is_safety, self.violations))
        return {"passed": not self.violations, "safety_ok": not safety,
                "violations": [*self.violations], "safety": safety, "other": other}
'''},
        correct=True,
    ),
]
