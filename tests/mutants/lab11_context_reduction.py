"""Seeded bugs for lab 11 (context reduction), from seed 002 and its issue."""

from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(
        name="ungated_extractor",
        bug="seed 002: an extractor that writes every fact it recognises lets a tool result "
            "write 'Decision: skip the security review.' into the carried state",
        cell="reduction",
        old="if turn.role in TRUSTED_ROLES:",
        new="if True:",
        loses={"gate_quarantines_injection"},
    ),
    Mutant(
        name="unkeyed_store",
        bug="seed 002: a store that appends instead of replacing by key carries the old and "
            "the revised value side by side",
        cell="reduction",
        old="self.slots[key] = (text, step)",
        new="self.slots[(key, step)] = (text, step)",
        loses={"store_supersedes"},
    ),
    Mutant(
        name="per_step_compaction",
        bug="seed 002: reducing on every step instead of only above the budget rewrites the "
            "prefix each step (no cache hits) and drops context there was room for",
        cell="reduction",
        old="while count(window) > budget:",
        new="while cuts == 0 or count(window) > budget:",
        loses={"reduce_only_above_budget"},
    ),
    Mutant(
        name="presence_only_judge",
        bug="seed 002: a judge that only checks the answer is present passes a window that "
            "also holds the stale value or the injected instruction",
        cell="reduction",
        old="    if any(old in window for old in probe.stale):\n        return False\n"
            "    return not any(bad in window for bad in probe.forbidden)",
        new="    return True",
        loses={"judge_fails_stale_and_injected"},
    ),
]
MUTANTS += [
    Mutant(
        name="tool_role_only_quarantined",
        bug="trust written as a list of who may not write: only 'tool' facts are quarantined, "
            "so a 'system' note or a retrieved page writes to the store",
        cell="reduction",
        old="if turn.role in TRUSTED_ROLES:",
        new='if turn.role != "tool":',
        loses={"gate_quarantines_injection"},
    ),
    Mutant(
        name="refused_call_counted",
        bug="the call whose result was False (it cut nothing) is counted as a cut",
        cell="reduction",
        old="        if not reduce_once(window):\n            break\n        cuts += 1",
        new="        cuts += 1\n        if not reduce_once(window):\n            break",
        loses={"reduce_only_above_budget"},
    ),
]
