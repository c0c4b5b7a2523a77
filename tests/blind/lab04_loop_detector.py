"""Blind samples for lab04_loop_detector: written from the release notebook alone."""

from course.grading.proofs.blind import Blind


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"blind edit target occurs {found} times, not once: {old!r}")
        source = source.replace(old, new)
    return source


# The obvious solution; every bug below is this cell with ONE deviation edited in.
GUARD = r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    text = json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap."""

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.steps = 0
        self.calls = Counter()
        self.states = Counter()
        self.best = None
        self.flat = 0
        self.trips = 0
        self.halted = False

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.steps > self.max_steps:
            self.halted = True
            return f"step cap of {self.max_steps} tool calls reached: stopping this run"
        call = fingerprint([tool, args])
        self.calls[call] += 1
        if self.calls[call] > self.repeat:
            self.trips += 1
            return (f"you called {tool} with these same arguments {self.calls[call]} times "
                    "and the result will not change: try a different approach")
        seen = fingerprint(state)
        self.states[seen] += 1
        if self.states[seen] > self.cycle:
            self.trips += 1
            return ("the world is back in a state it has already been in: you are cycling "
                    "between calls that change nothing; change approach")
        if progress is not None:
            if self.best is None or progress > self.best:
                self.best = progress
                self.flat = 0
            else:
                self.flat += 1
            if self.flat > self.stall:
                self.trips += 1
                return (f"no progress for {self.flat} steps: your best is still {self.best}; "
                        "try something else")
        return None
'''

# A recursive canonical form, plain dicts, and the signals as an ordered list of methods.
GUARD_CANON = r'''import hashlib
import json
from collections import Counter


def _canon(obj):
    """A hashable, order-free form of obj: dicts as sorted pairs, anything exotic as text."""
    if isinstance(obj, dict):
        return ("dict", tuple(sorted((str(k), _canon(v)) for k, v in obj.items())))
    if isinstance(obj, (list, tuple)):
        return ("list", tuple(_canon(v) for v in obj))
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return (type(obj).__name__, obj)
    return (type(obj).__name__, str(obj))


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    return hashlib.sha1(repr(_canon(obj)).encode("utf-8")).hexdigest()[:12]


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap."""

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.limits = {"repeat": repeat, "cycle": cycle, "stall": stall}
        self.max_steps = max_steps
        self.step = 0
        self.seen_calls = {}
        self.seen_states = {}
        self.best = float("-inf")
        self.since_best = 0
        self.trips = 0
        self.halted = False

    def _identical(self, tool, args, state, progress):
        key = fingerprint({"tool": tool, "args": args})
        self.seen_calls[key] = self.seen_calls.get(key, 0) + 1
        if self.seen_calls[key] > self.limits["repeat"]:
            return f"You called {tool} with identical arguments {self.seen_calls[key]} times."
        return None

    def _frozen(self, tool, args, state, progress):
        key = fingerprint(state)
        self.seen_states[key] = self.seen_states.get(key, 0) + 1
        if self.seen_states[key] > self.limits["cycle"]:
            return "Cycling: the world looks exactly as it did before; do something new."
        return None

    def _stalled(self, tool, args, state, progress):
        if progress is None:
            return None
        if progress > self.best:
            self.best, self.since_best = progress, 0
            return None
        self.since_best += 1
        if self.since_best > self.limits["stall"]:
            return f"No progress beyond {self.best} in {self.since_best} steps."
        return None

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.step += 1
        if self.halted or self.step > self.max_steps:
            self.halted = True
            return f"Step cap reached: {self.max_steps} tool calls."
        for signal in (self._identical, self._frozen, self._stalled):
            nudge = signal(tool, args, state, progress)
            if nudge is not None:
                self.trips += 1
                return nudge
        return None
'''

# json with a custom fallback encoder, defaultdicts, and the halt reason stored.
GUARD_STORED = r'''import hashlib
import json
from collections import defaultdict


def _fallback(value):
    """What json cannot encode: sets in a stable order, everything else as its text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return f"{type(value).__name__}:{value}"


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    encoded = json.dumps(obj, sort_keys=True, default=_fallback)
    return hashlib.blake2b(encoded.encode(), digest_size=10).hexdigest()


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap."""

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat, self.cycle, self.stall, self.max_steps = repeat, cycle, stall, max_steps
        self.calls_made = 0
        self.call_counts = defaultdict(int)
        self.state_counts = defaultdict(int)
        self.best = None
        self.flat_steps = 0
        self.trips = 0
        self.halted = False
        self.reason = None

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        if self.halted:
            return self.reason
        self.calls_made += 1
        if self.calls_made == self.max_steps + 1:
            self.halted = True
            self.reason = f"STEP CAP: call {self.calls_made} is past max_steps={self.max_steps}"
            return self.reason
        call = fingerprint((tool, args))
        self.call_counts[call] += 1
        if self.call_counts[call] > self.repeat:
            self.trips += 1
            return f"{tool} was called with the same arguments again; stop repeating it"
        world = fingerprint(state)
        self.state_counts[world] += 1
        if self.state_counts[world] > self.cycle:
            self.trips += 1
            return "You are CYCLING: this exact world state has been seen before"
        if progress is None:
            return None
        if self.best is None or progress > self.best:
            self.best = progress
            self.flat_steps = 0
            return None
        self.flat_steps += 1
        if self.flat_steps <= self.stall:
            return None
        self.trips += 1
        return f"Progress has not beaten {self.best} for {self.flat_steps} steps"
'''

STALL_RETURN = (
    '                return (f"no progress for {self.flat} steps: your best is still '
    '{self.best}; "\n'
    '                        "try something else")\n')

BLIND = [
    Blind(
        name="repeat_compared_with_ge",
        bug="the identical-call count is compared with >=, so with repeat=3 the third "
            "identical call already trips instead of the fourth",
        cells={"loop_guard": _patch(GUARD, (
            "if self.calls[call] > self.repeat:", "if self.calls[call] >= self.repeat:"))},
    ),
    Blind(
        name="call_fingerprint_tool_only",
        bug="the call fingerprint covers the tool name only, not its arguments, so different "
            "searches count as the same call",
        cells={"loop_guard": _patch(GUARD, (
            "call = fingerprint([tool, args])", "call = fingerprint(tool)"))},
    ),
    Blind(
        name="nested_keys_order_sensitive",
        bug="fingerprint sorts the keys of the top-level dict only, so nested dictionaries "
            "with their keys in another order give another fingerprint",
        cells={"loop_guard": _patch(
            GUARD,
            ('    text = json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))\n',
             "    if isinstance(obj, dict):\n"
             "        obj = sorted(obj.items())\n"
             "    text = json.dumps(obj, default=str)\n"),
            ("call = fingerprint([tool, args])", "call = tool + \":\" + fingerprint(args)"),
        )},
    ),
    Blind(
        name="fallback_repr_keeps_key_order",
        bug="fingerprint falls back to repr(obj) when json cannot encode a value, and repr "
            "keeps the key order, so args holding a datetime or Decimal are key-order "
            "sensitive again",
        cells={"loop_guard": _patch(GUARD, (
            '    text = json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))\n',
            "    try:\n"
            "        text = json.dumps(obj, sort_keys=True)\n"
            "    except TypeError:\n"
            "        text = repr(obj)\n"))},
    ),
    Blind(
        name="state_checked_before_call",
        bug="the frozen-world signal is checked before the identical-call signal, against the "
            "stated order, so a repeated call in a frozen world gets the 'cycling' message "
            "instead of one naming the tool",
        cells={"loop_guard": _patch(
            GUARD,
            ("        call = fingerprint([tool, args])\n"
             "        self.calls[call] += 1\n"
             "        if self.calls[call] > self.repeat:\n"
             "            self.trips += 1\n"
             '            return (f"you called {tool} with these same arguments '
             '{self.calls[call]} times "\n'
             '                    "and the result will not change: try a different '
             'approach")\n', ""),
            ("        if progress is not None:\n",
             "        call = fingerprint([tool, args])\n"
             "        self.calls[call] += 1\n"
             "        if self.calls[call] > self.repeat:\n"
             "            self.trips += 1\n"
             '            return (f"you called {tool} with these same arguments '
             '{self.calls[call]} times "\n'
             '                    "and the result will not change: try a different '
             'approach")\n'
             "        if progress is not None:\n"),
        )},
    ),
    Blind(
        name="tripped_call_seen_by_later_signals",
        bug="all three counters are updated before any signal is checked, so a call that "
            "trips the identical-call signal still counts toward the frozen world and the "
            "stall",
        cells={"loop_guard": _patch(
            GUARD,
            ("        call = fingerprint([tool, args])\n"
             "        self.calls[call] += 1\n",
             "        call = fingerprint([tool, args])\n"
             "        self.calls[call] += 1\n"
             "        seen = fingerprint(state)\n"
             "        self.states[seen] += 1\n"
             "        if progress is not None:\n"
             "            if self.best is None or progress > self.best:\n"
             "                self.best = progress\n"
             "                self.flat = 0\n"
             "            else:\n"
             "                self.flat += 1\n"),
            ("        seen = fingerprint(state)\n"
             "        self.states[seen] += 1\n"
             "        if self.states[seen] > self.cycle:\n",
             "        if self.states[seen] > self.cycle:\n"),
            ("        if progress is not None:\n"
             "            if self.best is None or progress > self.best:\n"
             "                self.best = progress\n"
             "                self.flat = 0\n"
             "            else:\n"
             "                self.flat += 1\n"
             "            if self.flat > self.stall:\n",
             "        if progress is not None:\n"
             "            if self.flat > self.stall:\n"),
        )},
    ),
    Blind(
        name="stall_counted_from_last_value",
        bug="the stall counter resets whenever progress beats the PREVIOUS reading, not the "
            "best so far, so progress that flaps below its best never stalls",
        cells={"loop_guard": _patch(GUARD, (
            "            if self.best is None or progress > self.best:\n"
            "                self.best = progress\n"
            "                self.flat = 0\n"
            "            else:\n"
            "                self.flat += 1\n",
            "            if self.best is None or progress > self.best:\n"
            "                self.flat = 0\n"
            "            else:\n"
            "                self.flat += 1\n"
            "            self.best = progress\n"))},
    ),
    Blind(
        name="equal_progress_resets_stall",
        bug="progress equal to the best counts as beating it (>=), so a run whose progress "
            "stays flat at the same value never stalls",
        cells={"loop_guard": _patch(GUARD, (
            "progress > self.best", "progress >= self.best"))},
    ),
    Blind(
        name="none_progress_as_zero",
        bug="progress=None is treated as 0.0 instead of 'not measured', so unmeasured steps "
            "after a positive reading add to the stall count",
        cells={"loop_guard": _patch(GUARD, (
            "        if progress is not None:\n"
            "            if self.best is None or progress > self.best:\n"
            "                self.best = progress\n"
            "                self.flat = 0\n"
            "            else:\n"
            "                self.flat += 1\n"
            "            if self.flat > self.stall:\n"
            "                self.trips += 1\n"
            + STALL_RETURN,
            "        value = 0.0 if progress is None else progress\n"
            "        if self.best is None or value > self.best:\n"
            "            self.best = value\n"
            "            self.flat = 0\n"
            "        else:\n"
            "            self.flat += 1\n"
            "        if self.flat > self.stall:\n"
            "            self.trips += 1\n"
            "            return (f\"no progress for {self.flat} steps: your best is still "
            "{self.best}; \"\n"
            "                    \"try something else\")\n"))},
    ),
    Blind(
        name="stall_message_lacks_progress",
        bug="the stall nudge does not contain the word 'progress' the table requires "
            "(it speaks of 'improvement' and 'score')",
        cells={"loop_guard": _patch(GUARD, (
            STALL_RETURN,
            '                return (f"stalled: {self.flat} steps without beating your best '
            'score "\n'
            '                        f"of {self.best}; try something else")\n'))},
    ),
    Blind(
        name="halted_on_first_nudge",
        bug="every nudge also sets halted = True, though halted is for the step cap only and "
            "the first trip should only nudge",
        cells={"loop_guard": _patch(
            GUARD,
            ("        if self.calls[call] > self.repeat:\n            self.trips += 1\n",
             "        if self.calls[call] > self.repeat:\n            self.trips += 1\n"
             "            self.halted = True\n"),
            ("        if self.states[seen] > self.cycle:\n            self.trips += 1\n",
             "        if self.states[seen] > self.cycle:\n            self.trips += 1\n"
             "            self.halted = True\n"),
            ("            if self.flat > self.stall:\n                self.trips += 1\n",
             "            if self.flat > self.stall:\n                self.trips += 1\n"
             "                self.halted = True\n"),
        )},
    ),
    Blind(
        name="step_cap_one_call_early",
        bug="the step cap trips at call number max_steps (steps >= max_steps) instead of "
            "max_steps + 1",
        cells={"loop_guard": _patch(GUARD, (
            "if self.steps > self.max_steps:", "if self.steps >= self.max_steps:"))},
    ),
    Blind(
        name="step_cap_counted_as_trip",
        bug="passing the step cap also adds 1 to trips, though the step cap is not a nudge",
        cells={"loop_guard": _patch(GUARD, (
            "            self.halted = True\n",
            "            self.halted = True\n            self.trips += 1\n"))},
    ),
    Blind(
        name="step_cap_only_on_exact_call",
        bug="the step-cap message is returned only for call number max_steps + 1 exactly; "
            "later checks after the halt run the other signals (and may return None) instead "
            "of returning the step-cap message again",
        cells={"loop_guard": _patch(GUARD, (
            "if self.steps > self.max_steps:", "if self.steps == self.max_steps + 1:"))},
    ),
    Blind(
        name="counters_shared_between_guards",
        bug="the call and state counters are class attributes, one Counter shared by every "
            "LoopGuard, so a new guard already remembers an earlier guard's calls",
        cells={"loop_guard": _patch(
            GUARD,
            ('    """Watches an agent\'s tool calls for the three loop shapes and the step '
             'cap."""\n',
             '    """Watches an agent\'s tool calls for the three loop shapes and the step '
             'cap."""\n\n    calls = Counter()\n    states = Counter()\n'),
            ("        self.calls = Counter()\n        self.states = Counter()\n", ""),
        )},
    ),
    Blind(
        name="canonical_form_signal_methods",
        bug="correct: fingerprint hashes a recursive canonical form (no json), counters are "
            "plain dicts, best starts at -inf, and the three signals are methods run in order",
        cells={"loop_guard": GUARD_CANON},
        correct=True,
    ),
    Blind(
        name="stored_reason_defaultdicts",
        bug="correct: json with a custom fallback encoder, defaultdict counters, early "
            "returns, and the step-cap reason stored and returned again once halted",
        cells={"loop_guard": GUARD_STORED},
        correct=True,
    ),
]


# Round three: written from the release notebook of 2026-12-06 alone, told to write the
# mistakes a student would make, not edits of an answer.
BLIND += [
    Blind(
        "r3_stall_from_last_value",
        (
            'resets the stall count whenever progress rises above the PREVIOUS reading instead of'
            ' the best so far, so a run flapping below its best (14, 13, 14, 12, ...) is never '
            'called stalled.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    blob = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.md5(blob.encode()).hexdigest()


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self.call_counts = Counter()
        self.state_counts = Counter()
        self.last_progress = None
        self.no_gain = 0

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.halted or self.steps > self.max_steps:
            self.halted = True
            return f"Halting: more than {self.max_steps} steps."

        call_fp = fingerprint({"tool": tool, "args": args})
        self.call_counts[call_fp] += 1
        if self.call_counts[call_fp] > self.repeat:
            self.trips += 1
            return f"You have called {tool} with these exact arguments before; change approach."

        state_fp = fingerprint(state)
        self.state_counts[state_fp] += 1
        if self.state_counts[state_fp] > self.cycle:
            self.trips += 1
            return "Nothing in the world changed after your last calls: you are cycling."

        if progress is not None:
            if self.last_progress is not None and progress <= self.last_progress:
                self.no_gain += 1
            else:
                self.no_gain = 0
            self.last_progress = progress
            if self.no_gain > self.stall:
                self.trips += 1
                return f"No progress in the last {self.no_gain} steps."
        return None
'''
        },
    ),
    Blind(
        "r3_none_counts_as_flat",
        (
            'treats progress=None as a step without a gain, so unmeasured steps add to the stall '
            'count although None must neither reset nor add to it.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    return hashlib.sha1(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat, self.cycle, self.stall, self.max_steps = repeat, cycle, stall, max_steps
        self.n = 0
        self.trips = 0
        self.halted = False
        self.seen_calls = Counter()
        self.seen_states = Counter()
        self.best = None
        self.stalled_for = 0

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.n += 1
        if self.halted or self.n > self.max_steps:
            self.halted = True
            return "step cap reached, stopping the run"
        key = fingerprint([tool, args])
        self.seen_calls[key] += 1
        if self.seen_calls[key] > self.repeat:
            self.trips += 1
            return f"Repeated call: {tool} was already called with the same arguments."
        skey = fingerprint(state)
        self.seen_states[skey] += 1
        if self.seen_states[skey] > self.cycle:
            self.trips += 1
            return "The state is frozen: you are cycling between the same calls."
        if progress is not None and (self.best is None or progress > self.best):
            self.best = progress
            self.stalled_for = 0
        else:
            self.stalled_for += 1
        if self.stalled_for > self.stall:
            self.trips += 1
            return f"No progress beyond {self.best} for {self.stalled_for} steps."
        return None
'''
        },
    ),
    Blind(
        "r3_halt_on_second_trip",
        (
            'sets halted=True itself when the second nudge is given, although only the step cap '
            'may set halted (the harness reads trips to end the run).'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self.calls = Counter()
        self.states = Counter()
        self.best = None
        self.flat = 0

    def _nudge(self, message):
        self.trips += 1
        if self.trips >= 2:  # the nudge did not work: stop the run
            self.halted = True
        return message

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.halted or self.steps > self.max_steps:
            self.halted = True
            return f"step cap: {self.max_steps} steps used"
        c = fingerprint((tool, args))
        self.calls[c] += 1
        if self.calls[c] > self.repeat:
            return self._nudge(f"You keep calling {tool} with the same arguments.")
        s = fingerprint(state)
        self.states[s] += 1
        if self.states[s] > self.cycle:
            return self._nudge("The world has not changed: you are cycling.")
        if progress is not None:
            if self.best is None or progress > self.best:
                self.best, self.flat = progress, 0
            else:
                self.flat += 1
            if self.flat > self.stall:
                return self._nudge("No progress: the best result has not improved.")
        return None
'''
        },
    ),
    Blind(
        "r3_counters_updated_upfront",
        (
            'updates the call, state and progress counters at the top of check and only then '
            'tests them in order, so a call that trips the identical-call signal still counts '
            'toward the frozen world and the stall.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    raw = json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self.call_seen = Counter()
        self.state_seen = Counter()
        self.best = None
        self.since_best = 0

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.halted or self.steps > self.max_steps:
            self.halted = True
            return "Step cap reached; stopping with a partial report."

        # record this step everywhere first
        call_key = fingerprint([tool, args])
        state_key = fingerprint(state)
        self.call_seen[call_key] += 1
        self.state_seen[state_key] += 1
        if progress is not None:
            if self.best is None or progress > self.best:
                self.best = progress
                self.since_best = 0
            else:
                self.since_best += 1

        # then check the signals in order
        if self.call_seen[call_key] > self.repeat:
            self.trips += 1
            return f"You already called {tool} with exactly these arguments."
        if self.state_seen[state_key] > self.cycle:
            self.trips += 1
            return "Same world state again: you are cycling."
        if self.since_best > self.stall:
            self.trips += 1
            return f"No progress since the best value {self.best}."
        return None
'''
        },
    ),
    Blind(
        "r3_cap_message_only_once",
        (
            'returns the step-cap message only on the call that passes max_steps; later calls '
            'after the halt fall through to the other signals (and can add trips or return None) '
            'instead of returning the step-cap message again.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:20]


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.step = 0
        self.trips = 0
        self.halted = False
        self.calls = Counter()
        self.states = Counter()
        self.best = None
        self.flat = 0

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.step += 1
        if self.step == self.max_steps + 1:
            self.halted = True
            return f"Stopped: the run passed its step cap of {self.max_steps}."
        fp = fingerprint([tool, args])
        self.calls[fp] += 1
        if self.calls[fp] > self.repeat:
            self.trips += 1
            return f"{tool} was called with identical arguments {self.calls[fp]} times."
        sp = fingerprint(state)
        self.states[sp] += 1
        if self.states[sp] > self.cycle:
            self.trips += 1
            return "You are cycling: the world state repeats."
        if progress is not None:
            if self.best is None or progress > self.best:
                self.best = progress
                self.flat = 0
            else:
                self.flat += 1
            if self.flat > self.stall:
                self.trips += 1
                return "No progress for too many steps."
        return None
'''
        },
    ),
    Blind(
        "r3_repr_fallback_unsorted",
        (
            'fingerprints with json.dumps(sort_keys=True) but falls back to plain repr() when '
            'JSON cannot encode a value, so arguments holding a date/Decimal/Path are '
            'fingerprinted with their keys in arrival order and equal calls look different.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    try:
        text = json.dumps(obj, sort_keys=True)
    except TypeError:
        # datetime, Decimal, Path...: JSON can't do it, repr always works
        text = repr(obj)
    return hashlib.sha256(text.encode()).hexdigest()


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.repeat = repeat
        self.cycle = cycle
        self.stall = stall
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self.calls = Counter()
        self.states = Counter()
        self.best = None
        self.flat = 0

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.halted or self.steps > self.max_steps:
            self.halted = True
            return f"Step cap of {self.max_steps} reached."
        call = fingerprint([tool, args])
        self.calls[call] += 1
        if self.calls[call] > self.repeat:
            self.trips += 1
            return f"You called {tool} with the same arguments again."
        world = fingerprint(state)
        self.states[world] += 1
        if self.states[world] > self.cycle:
            self.trips += 1
            return "The world state is unchanged: you are cycling."
        if progress is not None:
            if self.best is None or progress > self.best:
                self.best = progress
                self.flat = 0
            else:
                self.flat += 1
            if self.flat > self.stall:
                self.trips += 1
                return "No progress: stop and rethink."
        return None
'''
        },
    ),
    Blind(
        "r3_correct_canonical_signals",
        (
            'canonicalises values with a hand-written recursive normaliser instead of '
            'json.dumps(default=str), and runs the three nudge signals as a list of methods that '
            'each return a message or None.'
        ),
        {
            "loop_guard": r'''import hashlib
import json
from collections import Counter


def _canon(obj):
    """A JSON-safe structure equal for equal content, dict keys in a fixed order."""
    if isinstance(obj, dict):
        items = [(_canon(k), _canon(v)) for k, v in obj.items()]
        return ["__dict__", sorted(items, key=lambda kv: json.dumps(kv, sort_keys=True))]
    if isinstance(obj, (list, tuple)):
        return [_canon(x) for x in obj]
    if isinstance(obj, (set, frozenset)):
        return ["__set__", sorted((_canon(x) for x in obj), key=json.dumps)]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return ["__" + type(obj).__name__ + "__", str(obj)]


def fingerprint(obj) -> str:
    """A short, stable fingerprint of ``obj``: equal for equal content whatever the order
    of dictionary keys, and never failing on values that JSON cannot encode."""
    try:
        text = json.dumps(_canon(obj), separators=(",", ":"))
    except Exception:
        text = repr(obj)
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=10).hexdigest()


class LoopGuard:
    """Watches an agent's tool calls for the three loop shapes and the step cap.

    ``check`` returns None (keep going) or a string. ``trips`` counts the nudges given;
    ``halted`` becomes True only when the step cap is passed. ``check`` never raises.
    """

    def __init__(self, repeat=3, cycle=2, stall=6, max_steps=40):
        self.limits = {"repeat": repeat, "cycle": cycle, "stall": stall}
        self.max_steps = max_steps
        self.steps = 0
        self.trips = 0
        self.halted = False
        self._calls = Counter()
        self._states = Counter()
        self._best = None
        self._without_gain = 0

    def _identical(self, tool, args, state, progress):
        key = fingerprint(("call", tool, args))
        self._calls[key] += 1
        if self._calls[key] > self.limits["repeat"]:
            return (f"Loop detected: {tool} was called {self._calls[key]} times with the "
                    "same arguments. Change the arguments or use another tool.")
        return None

    def _frozen(self, tool, args, state, progress):
        key = fingerprint(state)
        self._states[key] += 1
        if self._states[key] > self.limits["cycle"]:
            return "Loop detected: the world is back in a state seen before, you are cycling."
        return None

    def _stalled(self, tool, args, state, progress):
        if progress is None:
            return None
        if self._best is None or progress > self._best:
            self._best = progress
            self._without_gain = 0
            return None
        self._without_gain += 1
        if self._without_gain > self.limits["stall"]:
            return (f"Loop detected: no progress past {self._best} in "
                    f"{self._without_gain} steps.")
        return None

    def check(self, tool, args, state, progress=None):
        """One tool call, the world after it, and the progress metric (higher is better)."""
        self.steps += 1
        if self.halted or self.steps > self.max_steps:
            self.halted = True
            return f"Halted: the run went past its cap of {self.max_steps} tool calls."
        for signal in (self._identical, self._frozen, self._stalled):
            message = signal(tool, args, state, progress)
            if message is not None:
                self.trips += 1
                return message
        return None
'''
        },
        correct=True,
    ),
]
