"""Blind samples for lab11_context_reduction: written from the release notebook alone.

The notebook's rule for what reduce_while_over returns was settled after these were
written (it said "how many times it called it"; it now says how many cuts, the refused call
not counted): the base, the two correct variants and the one bug about it follow the rule
now stated.
"""

from course.grading.proofs.blind import Blind

CELL = "reduction"

BASE = '''from course.worlds.context_reduction import extract

TRUSTED_ROLES = ("user", "assistant")


def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many cuts."""
    calls = 0
    while count(window) > budget:
        if not reduce_once(window):
            break
        calls += 1
    return calls


class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.slots = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.slots[key] = (text, step)

    def get(self, key):
        """The current text under key, or None."""
        slot = self.slots.get(key)
        return None if slot is None else slot[0]

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if not self.slots:
            return ""
        lines = ["State:"]
        for key in sorted(self.slots):
            lines.append(f"- {key}: {self.slots[key][0]}")
        return "\\n".join(lines)


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        for key, text in self.extract(turn):
            if turn.role in TRUSTED_ROLES:
                self.store.put(key, text, turn.step)
            else:
                self.quarantine.append((turn.step, key, text))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    if probe.answer not in window:
        return False
    if any(old in window for old in probe.stale):
        return False
    if any(bad in window for bad in probe.forbidden):
        return False
    return True
'''


def _bug(name: str, bug: str, old: str, new: str) -> Blind:
    """A sample that differs from BASE in exactly one place (``old`` must occur once)."""
    if BASE.count(old) != 1:
        raise ValueError(f"{name}: the text to replace must occur exactly once in BASE: {old!r}")
    return Blind(name=name, bug=bug, cells={CELL: BASE.replace(old, new)})


BLIND = [
    _bug("reduces_at_budget",
         "reduce_while_over keeps cutting while the window is AT the budget; the notebook says "
         "only while count(window) > budget, and never at or below it",
         "    while count(window) > budget:",
         "    while count(window) >= budget:"),
    _bug("refused_call_counted",
         "reduce_while_over counts the call that returned False as a cut, though the "
         "notebook says that call cut nothing and is not counted",
         "        if not reduce_once(window):\n            break\n        calls += 1\n",
         "        calls += 1\n        if not reduce_once(window):\n            break\n"),
    _bug("store_keeps_history",
         "put appends to a per-key history and render shows every value of a slot; the "
         "notebook says a later put replaces the earlier value and the old value appears "
         "nowhere",
         '''    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.slots[key] = (text, step)

    def get(self, key):
        """The current text under key, or None."""
        slot = self.slots.get(key)
        return None if slot is None else slot[0]
''',
         '''    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.history = getattr(self, "history", {})
        self.history.setdefault(key, []).append(text)
        self.slots[key] = (" / ".join(self.history[key]), step)

    def get(self, key):
        """The current text under key, or None."""
        texts = getattr(self, "history", {}).get(key)
        return texts[-1] if texts else None
'''),
    _bug("get_returns_slot",
         "get returns the (text, step) slot instead of the current text",
         "        return None if slot is None else slot[0]\n",
         "        return slot\n"),
    _bug("render_insertion_order",
         "render lists the slots in the order they were first put, not in sorted key order",
         "        for key in sorted(self.slots):",
         "        for key in self.slots:"),
    _bug("render_empty_header",
         "render returns the bare 'State:' line for an empty store instead of ''",
         "        if not self.slots:\n            return \"\"\n",
         ""),
    _bug("gate_denies_only_tool",
         "the gate quarantines only turns whose role is 'tool' and trusts every other role; "
         "the notebook says only 'user' and 'assistant' may write, any other role is "
         "quarantined",
         "            if turn.role in TRUSTED_ROLES:",
         "            if turn.role != \"tool\":"),
    _bug("quarantine_tuple_order",
         "quarantine entries are (key, text, step) instead of (step, key, text)",
         "                self.quarantine.append((turn.step, key, text))",
         "                self.quarantine.append((key, text, turn.step))"),
    _bug("gate_ignores_given_extract",
         "ingest always calls the module's extract, ignoring an extract= passed to TrustGate",
         "        for key, text in self.extract(turn):",
         "        for key, text in extract(turn):"),
    _bug("judge_case_insensitive",
         "judge lower-cases the window and the probe strings; the notebook says all three "
         "tests are plain, case-sensitive substring tests",
         '''    if probe.answer not in window:
        return False
    if any(old in window for old in probe.stale):
        return False
    if any(bad in window for bad in probe.forbidden):
        return False''',
         '''    seen = window.lower()
    if probe.answer.lower() not in seen:
        return False
    if any(old.lower() in seen for old in probe.stale):
        return False
    if any(bad.lower() in seen for bad in probe.forbidden):
        return False'''),
    _bug("judge_ignores_forbidden",
         "judge checks the answer and the stale values but never probe.forbidden, so an "
         "injected decision beside the answer passes",
         "    if any(bad in window for bad in probe.forbidden):\n        return False\n",
         ""),
    Blind(
        name="for_loop_and_records",
        bug="correct: reduce_while_over as a for loop over itertools.count that returns from "
            "inside, slots as a dict of small dataclass records, a trusted-role set, and judge "
            "as one boolean expression with all()",
        cells={CELL: '''import itertools
from dataclasses import dataclass

from course.worlds.context_reduction import extract

TRUSTED_ROLES = ("user", "assistant")


def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many calls."""
    for done in itertools.count():
        if count(window) <= budget:
            return done
        if reduce_once(window) is False:
            return done


@dataclass
class Slot:
    text: str
    step: int


class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self._slots: dict[str, Slot] = {}

    def put(self, key, text, step):
        self._slots[key] = Slot(text, step)

    def get(self, key):
        return self._slots[key].text if key in self._slots else None

    def render(self):
        body = [f"- {k}: {s.text}" for k, s in sorted(self._slots.items())]
        return "\\n".join(["State:", *body]) if body else ""


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    trusted = frozenset(TRUSTED_ROLES)

    def __init__(self, store, extract=extract):
        self.store, self._extract = store, extract
        self.quarantine = []

    def ingest(self, turn):
        facts = self._extract(turn)
        if turn.role in self.trusted:
            for key, text in facts:
                self.store.put(key, text, turn.step)
        else:
            self.quarantine.extend((turn.step, key, text) for key, text in facts)


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    return probe.answer in window and all(
        s not in window for s in (*probe.stale, *probe.forbidden))
'''},
        correct=True,
    ),
    Blind(
        name="while_true_two_dicts",
        bug="correct: the trigger as a while True loop with explicit breaks, text and step "
            "kept in two parallel dicts, the state block built with str.join over a "
            "generator, the gate routing with a conditional expression, and judge using "
            "str.find",
        cells={CELL: '''from course.worlds.context_reduction import extract

TRUSTED_ROLES = ("user", "assistant")


def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many calls."""
    made = 0
    while True:
        if count(window) <= budget:
            break
        cut = reduce_once(window)
        if not cut:
            break
        made += 1
    return made


class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.text = {}
        self.step = {}

    def put(self, key, text, step):
        self.text[key] = text
        self.step[key] = step

    def get(self, key):
        return self.text.get(key)

    def render(self):
        if len(self.text) == 0:
            return ""
        return "State:\\n" + "\\n".join("- %s: %s" % (k, self.text[k]) for k in sorted(self.text))


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = list()

    def ingest(self, turn):
        trusted = turn.role == "user" or turn.role == "assistant"
        for key, text in self.extract(turn):
            (self.store.put(key, text, turn.step) if trusted
             else self.quarantine.append((turn.step, key, text)))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    if window.find(probe.answer) < 0:
        return False
    for unwanted in list(probe.stale) + list(probe.forbidden):
        if window.find(unwanted) >= 0:
            return False
    return True
'''},
        correct=True,
    ),
]


# Round three: written from the release notebook of 2026-12-06 alone, told to write the
# mistakes a student would make, not edits of an answer.
_R3_STORE_GATE_JUDGE_OK = r'''

class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.slots = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.slots[key] = (text, step)

    def get(self, key):
        """The current text under key, or None."""
        slot = self.slots.get(key)
        return None if slot is None else slot[0]

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if not self.slots:
            return ""
        lines = ["State:"]
        for key in sorted(self.slots):
            lines.append(f"- {key}: {self.slots[key][0]}")
        return "\n".join(lines)


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        for key, text in self.extract(turn):
            if turn.role in TRUSTED_ROLES:
                self.store.put(key, text, turn.step)
            else:
                self.quarantine.append((turn.step, key, text))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    if probe.answer not in window:
        return False
    for bad in list(probe.stale) + list(probe.forbidden):
        if bad in window:
            return False
    return True
'''

_R3_HEAD = r"""from course.worlds.context_reduction import extract

TRUSTED_ROLES = ("user", "assistant")

"""

_R3_REDUCE_OK = r'''
def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many cuts it made.

    Never calls it at or below the budget; stops at the first call whose result is false
    (that call cut nothing and is not counted).
    """
    cuts = 0
    while count(window) > budget:
        if not reduce_once(window):
            break
        cuts += 1
    return cuts
'''

BLIND += [
    Blind(
        "r3_counts_refused_cut",
        (
            "increments the cut counter before looking at reduce_once's result, so the final call"
            ' that returned False (and cut nothing) is counted as a cut.'
        ),
        {
            "reduction": _R3_HEAD
            + r'''
def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many cuts it made.

    Never calls it at or below the budget; stops at the first call whose result is false
    (that call cut nothing and is not counted).
    """
    cuts = 0
    while count(window) > budget:
        ok = reduce_once(window)
        cuts += 1
        if not ok:
            break
    return cuts
'''
            + _R3_STORE_GATE_JUDGE_OK
        },
    ),
    Blind(
        "r3_cut_then_check",
        (
            'cuts first and checks the budget afterwards (a do-while loop), so reduce_once is '
            'called once even when the window is already at or below the budget.'
        ),
        {
            "reduction": _R3_HEAD
            + r'''
def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many cuts it made.

    Never calls it at or below the budget; stops at the first call whose result is false
    (that call cut nothing and is not counted).
    """
    cuts = 0
    while True:
        if not reduce_once(window):
            break
        cuts += 1
        if count(window) <= budget:
            break
    return cuts
'''
            + _R3_STORE_GATE_JUDGE_OK
        },
    ),
    Blind(
        "r3_render_insertion_order",
        (
            'renders the slots in the order they were first put (dict order) instead of sorted '
            'key order.'
        ),
        {
            "reduction": _R3_HEAD
            + _R3_REDUCE_OK
            + r'''

class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.text = {}
        self.step = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.text[key] = text
        self.step[key] = step

    def get(self, key):
        """The current text under key, or None."""
        return self.text.get(key)

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if not self.text:
            return ""
        return "State:\n" + "\n".join(f"- {k}: {v}" for k, v in self.text.items())


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        for key, text in self.extract(turn):
            if turn.role in TRUSTED_ROLES:
                self.store.put(key, text, turn.step)
            else:
                self.quarantine.append((turn.step, key, text))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    return (probe.answer in window
            and not any(s in window for s in probe.stale)
            and not any(f in window for f in probe.forbidden))
'''
        },
    ),
    Blind(
        "r3_blocklist_tool_role",
        (
            "quarantines only turns whose role is 'tool' (a blocklist), so a 'system' note or any"
            ' other untrusted role writes straight into the store.'
        ),
        {
            "reduction": _R3_HEAD
            + _R3_REDUCE_OK
            + r'''

class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self._slots = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self._slots[key] = {"text": text, "step": step}

    def get(self, key):
        """The current text under key, or None."""
        return self._slots[key]["text"] if key in self._slots else None

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if not self._slots:
            return ""
        rows = [f"- {k}: {self._slots[k]['text']}" for k in sorted(self._slots)]
        return "\n".join(["State:"] + rows)


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        for key, text in self.extract(turn):
            if turn.role == "tool":  # tool output is untrusted data
                self.quarantine.append((turn.step, key, text))
            else:
                self.store.put(key, text, turn.step)


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    if probe.answer not in window:
        return False
    if any(s in window for s in probe.stale):
        return False
    return not any(f in window for f in probe.forbidden)
'''
        },
    ),
    Blind(
        "r3_gate_uses_module_extract",
        (
            'stores the extract argument but ingest calls the module-level extract(turn), so a '
            'TrustGate built with its own extractor ignores it.'
        ),
        {
            "reduction": _R3_HEAD
            + _R3_REDUCE_OK
            + r'''

class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.slots = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.slots[key] = (text, step)

    def get(self, key):
        """The current text under key, or None."""
        if key in self.slots:
            return self.slots[key][0]
        return None

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if len(self.slots) == 0:
            return ""
        out = "State:"
        for key in sorted(self.slots.keys()):
            out += f"\n- {key}: {self.slots[key][0]}"
        return out


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        trusted = turn.role in TRUSTED_ROLES
        for key, text in extract(turn):
            if trusted:
                self.store.put(key, text, turn.step)
            else:
                self.quarantine.append((turn.step, key, text))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    found = probe.answer in window
    stale = any(s in window for s in probe.stale)
    forbidden = any(f in window for f in probe.forbidden)
    return found and not stale and not forbidden
'''
        },
    ),
    Blind(
        "r3_judge_case_insensitive",
        (
            "lower-cases the window and the probe strings before matching to be 'robust', "
            'although all three tests must be case-sensitive substring tests.'
        ),
        {
            "reduction": _R3_HEAD
            + _R3_REDUCE_OK
            + r'''

class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self.slots = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self.slots[key] = (text, step)

    def get(self, key):
        """The current text under key, or None."""
        return self.slots[key][0] if key in self.slots else None

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        if not self.slots:
            return ""
        return "\n".join(["State:"] + [f"- {k}: {t}" for k, (t, _) in sorted(self.slots.items())])


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self.extract = extract
        self.quarantine = []

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        for key, text in self.extract(turn):
            if turn.role in TRUSTED_ROLES:
                self.store.put(key, text, turn.step)
            else:
                self.quarantine.append((turn.step, key, text))


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    text = window.lower()
    if probe.answer.lower() not in text:
        return False
    for s in probe.stale:
        if s.lower() in text:
            return False
    for f in probe.forbidden:
        if f.lower() in text:
            return False
    return True
'''
        },
    ),
    Blind(
        "r3_correct_functional_style",
        (
            'counts cuts with an itertools.count loop that returns early, keeps the store as a '
            'dict of small dataclass slots, routes facts with a role->sink lookup, and writes '
            'judge as one all() over three predicates.'
        ),
        {
            "reduction": r'''import itertools
from dataclasses import dataclass

from course.worlds.context_reduction import extract

TRUSTED_ROLES = ("user", "assistant")


def reduce_while_over(window, budget, reduce_once, *, count):
    """Call reduce_once(window) while count(window) > budget; return how many cuts it made.

    Never calls it at or below the budget; stops at the first call whose result is false
    (that call cut nothing and is not counted).
    """
    for made in itertools.count():
        if count(window) <= budget or not reduce_once(window):
            return made


@dataclass
class _Slot:
    text: str
    step: int


class StateStore:
    """Keyed slots of facts that must survive reduction; a later put supersedes."""

    def __init__(self):
        self._by_key = {}

    def put(self, key, text, step):
        """Store text (stated at step) under key, replacing any earlier value."""
        self._by_key[key] = _Slot(text, step)

    def get(self, key):
        """The current text under key, or None."""
        slot = self._by_key.get(key)
        return slot.text if slot else None

    def render(self):
        """'' when empty, else 'State:' and one '- {key}: {text}' line per slot, keys sorted."""
        body = "".join(f"\n- {k}: {self._by_key[k].text}" for k in sorted(self._by_key))
        return "State:" + body if body else ""


class TrustGate:
    """Writes facts from user and assistant turns to the store; quarantines the rest."""

    def __init__(self, store, extract=extract):
        self.store = store
        self._extract = extract
        self.quarantine = []

    def _to_store(self, step, key, text):
        self.store.put(key, text, step)

    def _to_quarantine(self, step, key, text):
        self.quarantine.append((step, key, text))

    def ingest(self, turn):
        """Route every fact extract(turn) finds: the store, or (step, key, text) in quarantine."""
        sink = self._to_store if turn.role in TRUSTED_ROLES else self._to_quarantine
        for key, text in self._extract(turn):
            sink(turn.step, key, text)


def judge(window, probe):
    """True only if the answer is in window and no stale or forbidden string is."""
    return all((
        probe.answer in window,
        all(s not in window for s in probe.stale),
        all(f not in window for f in probe.forbidden),
    ))
'''
        },
        correct=True,
    ),
]
