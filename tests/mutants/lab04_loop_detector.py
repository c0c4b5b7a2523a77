"""Seeded bugs for lab 4 (loop detector), from seed 001 exercise 4 and its issue."""

from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(
        name="no_sort_keys",
        bug="seed 001 ex.4: without sort_keys the same arguments in another key order get "
            "another fingerprint, and the repeat detector misses a real repeat",
        cell="loop_guard",
        old="json.dumps(obj, sort_keys=True, default=str,",
        new="json.dumps(obj, default=str,",
        loses={"fingerprint_ignores_key_order"},
    ),
    Mutant(
        name="repeat_ge",
        bug="seed 001 ex.4: >= instead of > trips the identical-call signal on the third "
            "call instead of the fourth",
        cell="loop_guard",
        old="if seen > self.repeat:",
        new="if seen >= self.repeat:",
        loses={"repeat_trips_on_fourth_call"},
    ),
    Mutant(
        name="stall_since_last_change",
        bug="seed 001 ex.4: counting the stall since the last change of the metric instead "
            "of since the best value lets a flapping run go on forever",
        cell="loop_guard",
        old="progress > self.best_progress",
        new="progress != self.best_progress",
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="raise_at_step_cap",
        bug="seed 001 ex.4: raising at the step cap escapes the harness as a bare exception "
            "where a partial report was promised",
        cell="loop_guard",
        old="self.halted = True",
        new="raise RuntimeError(f'step cap of {self.max_steps} reached')",
        loses={"step_cap_halts_without_raising"},
    ),
    Mutant(
        name="fingerprint_tool_only",
        bug="issue: a call fingerprint over the tool name only flags a healthy run that uses "
            "one tool with different arguments, and halts a model that changed its search "
            "after the nudge (same tool, new arguments)",
        cell="loop_guard",
        old="call_id = fingerprint([tool, args])",
        new="call_id = fingerprint(tool)",
        loses={"no_false_positive_on_progress", "nudge_before_halt"},
    ),
    Mutant(
        name="halt_on_first_trip",
        bug="seed 001 ex.4: halting on the first trip (no nudge first) turns a recoverable "
            "run into a failed one",
        cell="loop_guard",
        old="self.trips += 1",
        new="self.trips += 1\n            self.halted = True",
        loses={"nudge_before_halt"},
    ),
    Mutant(
        name="no_default_str",
        bug="seed 001 ex.4: without default=str a datetime or Decimal in the arguments makes "
            "the fingerprint raise TypeError",
        cell="loop_guard",
        old="sort_keys=True, default=str,",
        new="sort_keys=True,",
        loses={"unserialisable_args_handled", "fingerprint_ignores_key_order"},
    ),
    Mutant(
        name="none_resets_stall",
        bug="spec: progress=None means not measured; resetting the stall count on None lets "
            "a run that only sometimes reports progress stall forever",
        cell="loop_guard",
        old="if progress is not None:",
        new="if progress is None:\n            self.steps_without_gain = 0\n        else:",
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="halt_message_once",
        bug="spec: once halted, every later check returns the step-cap message again; "
            "returning it only on call max_steps + 1 lets the run go on",
        cell="loop_guard",
        old="if self.steps > self.max_steps:",
        new="if self.steps == self.max_steps + 1:",
        loses={"step_cap_halts_without_raising"},
    ),
    Mutant(
        name="step_cap_counts_trip",
        bug="spec: each nudge adds 1 to trips, the step cap does not",
        cell="loop_guard",
        old="self.halted = True",
        new="self.halted = True\n            self.trips += 1",
        loses={"step_cap_halts_without_raising"},
    ),
    Mutant(
        name="repeat_nudge_unnamed",
        bug="spec: the identical-call nudge must name the tool, or the model cannot tell "
            "what it is repeating",
        cell="loop_guard",
        old='f"You have called {tool} with',
        new='f"You have called the same tool with',
        loses={"repeat_trips_on_fourth_call"},
    ),
    Mutant(
        name="cycle_nudge_unworded",
        bug="spec: the frozen-world nudge must contain 'cycling'",
        cell="loop_guard",
        old="appear to be cycling.",
        new="appear to be stuck.",
        loses={"cycle_caught_by_state_only"},
    ),
]

# Order of the signals, and the state after a trip or a halt (issue 32).
CALL_COUNT = """        call_id = fingerprint([tool, args])
        self.call_counts[call_id] += 1
        seen = self.call_counts[call_id]
"""
STATE_COUNT = """        state_id = fingerprint(state)
        self.state_counts[state_id] += 1
        if self.state_counts[state_id] > self.cycle:"""
PROGRESS = """        if progress is not None:
            if self.best_progress is None or progress > self.best_progress:
                self.best_progress = progress
                self.steps_without_gain = 0
            else:
                self.steps_without_gain += 1
                if self.steps_without_gain > self.stall:"""
CAP_BLOCK = """if self.steps > self.max_steps:
            self.halted = True
            return (f"Step cap of {self.max_steps} tool calls reached, so this run stops "
                    "here. Report what you found and what is still missing.")
"""

MUTANTS += [
    Mutant(
        name="counters_before_checks",
        bug="issue 32: the call and state counters are both updated before either is checked, "
            "so a call that trips the identical-call signal still counts toward the frozen "
            "world",
        cell="loop_guard",
        old=CALL_COUNT,
        new=CALL_COUNT + "        state_id = fingerprint(state)\n"
                         "        self.state_counts[state_id] += 1\n",
        patches=(("loop_guard", STATE_COUNT,
                  "        if self.state_counts[state_id] > self.cycle:"),),
        loses={"cycle_caught_by_state_only"},
    ),
    Mutant(
        name="progress_before_checks",
        bug="the stall bookkeeping done before the identical-call and frozen-world checks, so "
            "a call that trips one of them still counts as a step without a gain",
        cell="loop_guard",
        old=CALL_COUNT,
        new="""        if progress is not None:
            if self.best_progress is None or progress > self.best_progress:
                self.best_progress = progress
                self.steps_without_gain = 0
            else:
                self.steps_without_gain += 1
""" + CALL_COUNT,
        patches=(("loop_guard", PROGRESS,
                  "        if progress is not None and self.steps_without_gain > self.stall:"),),
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="step_cap_checked_last",
        bug="the step cap checked after the three signals instead of first, so a call past "
            "the cap that also repeats a call is answered with a nudge and does not halt",
        cell="loop_guard",
        old=CAP_BLOCK,
        new="",
        patches=(("loop_guard", "        return None",
                  "        if self.steps > self.max_steps:\n"
                  "            self.halted = True\n"
                  '            return "Step cap reached: this run stops here."\n'
                  "        return None"),),
        loses={"step_cap_halts_without_raising"},
    ),
    Mutant(
        name="halted_on_second_nudge",
        bug="issue 32: the second nudge sets halted, though only the step cap does (the "
            "harness ends the run by reading trips)",
        cell="loop_guard",
        old="self.trips += 1",
        new="self.trips += 1\n            self.halted = self.trips > 1",
        loses={"nudge_before_halt"},
    ),
    Mutant(
        name="silent_after_second_nudge",
        bug="issue 32: the guard sets halted on its second nudge and returns None from every "
            "later check",
        cell="loop_guard",
        old="self.trips += 1",
        new="self.trips += 1\n            self.halted = self.halted or self.trips == 2",
        patches=(("loop_guard", "\n        def nudge(text):",
                  "\n        if self.halted:\n            return None\n\n"
                  "        def nudge(text):"),),
        loses={"nudge_before_halt"},
    ),
    Mutant(
        name="cycle_ge",
        bug=">= instead of > trips the frozen-world signal when the same state is seen for "
            "the cycle-th time instead of the (cycle + 1)-th",
        cell="loop_guard",
        old="if self.state_counts[state_id] > self.cycle:",
        new="if self.state_counts[state_id] >= self.cycle:",
        # the key-order cell replays a frozen state for two calls, which now trips
        loses={"cycle_caught_by_state_only", "fingerprint_ignores_key_order"},
    ),
    Mutant(
        name="stall_ge",
        bug=">= instead of > trips the stall signal after stall steps without a gain instead "
            "of stall + 1",
        cell="loop_guard",
        old="if self.steps_without_gain > self.stall:",
        new="if self.steps_without_gain >= self.stall:",
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="stall_nudge_unworded",
        bug="the stall nudge does not contain 'progress', the word the table names",
        cell="loop_guard",
        old='return nudge(f"No progress in {self.steps_without_gain} steps (the best "',
        new='return nudge(f"Stuck for {self.steps_without_gain} steps (the best "',
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="none_counts_as_stall",
        bug="progress=None counted as a step without a gain, though None means not measured",
        cell="loop_guard",
        old="if progress is not None:",
        new="if progress is None:\n            self.steps_without_gain += 1\n"
            "        if progress is not None:",
        loses={"stall_counts_from_best"},
    ),
    Mutant(
        name="no_signal_returns_empty_string",
        bug="check returns '' instead of None when no signal trips, though the signature "
            "says None | str: a caller testing 'is None' reads every call as a nudge",
        cell="loop_guard",
        old="        return None",
        new='        return ""',
        loses={"repeat_trips_on_fourth_call", "cycle_caught_by_state_only",
               "stall_counts_from_best", "nudge_before_halt", "step_cap_halts_without_raising",
               "no_false_positive_on_progress", "fingerprint_ignores_key_order",
               "unserialisable_args_handled"},
    ),
    Mutant(
        name="nudge_not_counted",
        bug="a nudge is returned but trips is never raised, so the harness never sees a "
            "second nudge and never ends the run",
        cell="loop_guard",
        old="self.trips += 1",
        new="self.trips += 0",
        loses={"repeat_trips_on_fourth_call", "nudge_before_halt"},
    ),
    Mutant(
        name="step_cap_not_halted",
        bug="the step cap returns its message but leaves halted False, so the harness, "
            "which reads halted, sends the message back and carries on",
        cell="loop_guard",
        old="self.halted = True",
        new="self.halted = False",
        loses={"step_cap_halts_without_raising"},
    ),
]
