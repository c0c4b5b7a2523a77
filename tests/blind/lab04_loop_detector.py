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
