"""Blind samples for lab05_semantic_cache: written from the release notebook alone.

Each sample fills all three answer cells. The bugs start from one plain, correct solution
(the ``*_CELL`` templates) and change one stated behaviour with :func:`_patch`, so every bug
differs from a working cache in exactly one place.
"""

from course.grading.proofs.blind import Blind

SEMANTIC_CACHE_CELL = r'''import time

import numpy as np


class _Table:
    """One tenant's rows: unit vectors, store times and answers, with spare room."""

    def __init__(self, dim):
        self.vectors = np.zeros((16, dim))
        self.stamps = np.zeros(16)
        self.answers = []
        self.size = 0

    def add(self, vector, answer, stamp):
        if self.size == len(self.stamps):      # full: double the room
            self.vectors = np.concatenate([self.vectors, np.zeros_like(self.vectors)])
            self.stamps = np.concatenate([self.stamps, np.zeros_like(self.stamps)])
        self.vectors[self.size] = vector
        self.stamps[self.size] = stamp
        self.answers.append(answer)
        self.size += 1


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds."""

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self._tables = {}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64).ravel()
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self._tables.get(namespace)
        if table is not None and table.size:
            n = table.size
            scores = table.vectors[:n] @ self._unit_vector(q)
            expired = self.clock() - table.stamps[:n] >= self.ttl
            scores[expired] = -np.inf
            best = int(np.argmax(scores))
            if scores[best] >= self.threshold:
                self.hits += 1
                return table.answers[best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self._tables.get(namespace)
        if table is None:
            table = self._tables[namespace] = _Table(v.size)
        table.add(v, a, self.clock())

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
'''

CACHEABLE_CELL = r'''import re

_USER_WORDS = re.compile(r"\b(?:my|mine|our|ours)\b", re.IGNORECASE)
_TIME_WORDS = re.compile(
    r"\b(?:right now|at the moment|now|today|tonight|tomorrow|yesterday"
    r"|currently|current|latest)\b",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"\d{4,}")


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others."""
    if _USER_WORDS.search(q) or _TIME_WORDS.search(q):
        return False
    return not (_IDENTIFIER.search(q) or _IDENTIFIER.search(a))
'''

PICK_THRESHOLD_CELL = r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0."""
    ordered = sorted(rows, key=lambda row: row.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(
                    f"the first threshold with zero false hits, {row.threshold}, is the top "
                    "of the grid: extend the grid so there is a notch above it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold in the sweep has zero false hits: extend the grid upwards")
'''


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"a blind edit expects {old!r} once in its template, found {found}")
        source = source.replace(old, new)
    return source


def _cells(semantic_cache: str = SEMANTIC_CACHE_CELL, cacheable: str = CACHEABLE_CELL,
           pick_threshold: str = PICK_THRESHOLD_CELL) -> dict[str, str]:
    """All three answer cells, the correct templates unless overridden."""
    return {"semantic_cache": semantic_cache, "cacheable": cacheable,
            "pick_threshold": pick_threshold}


# A correct cache built differently: one flat float32 table for every tenant, a tenant code
# per row and boolean masks, instead of one table object per namespace.
FLAT_TABLE_CELL = r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds."""

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = float(threshold)
        self.ttl = float(ttl)
        self.embed = embed
        self.clock = clock
        self.hits = self.misses = 0
        self._codes_of = {}                 # namespace -> small int
        self._matrix = None                 # float32 rows, with spare room
        self._tenant = np.zeros(0, dtype=np.int64)
        self._born = np.zeros(0)
        self._answers = []

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.array(self.embed(q), dtype=np.float64).reshape(-1)
        length = np.sqrt(v @ v)
        if length > 0:
            v = v / length
        return v

    def _make_room(self, dim):
        used = len(self._answers)
        if self._matrix is not None and used < len(self._born):
            return
        room = max(32, 2 * len(self._born))
        matrix = np.zeros((room, dim), dtype=np.float32)
        tenant = np.full(room, -1, dtype=np.int64)
        born = np.zeros(room)
        if self._matrix is not None:
            matrix[:used] = self._matrix[:used]
            tenant[:used] = self._tenant[:used]
            born[:used] = self._born[:used]
        self._matrix, self._tenant, self._born = matrix, tenant, born

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        code = self._codes_of.setdefault(namespace, len(self._codes_of))
        self._make_room(v.size)
        row = len(self._answers)
        self._matrix[row] = v
        self._tenant[row] = code
        self._born[row] = self.clock()
        self._answers.append(a)

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        code = self._codes_of.get(namespace)
        used = len(self._answers)
        best = None
        if code is not None and used:
            now = self.clock()
            usable = (self._tenant[:used] == code) & (now - self._born[:used] < self.ttl)
            if usable.any():
                scores = np.where(usable, self._matrix[:used] @ self._unit_vector(q), -np.inf)
                top = int(scores.argmax())
                if scores[top] >= self.threshold:
                    best = top
        if best is None:
            self.misses += 1
            return None
        self.hits += 1
        return self._answers[best]

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        total = self.hits + self.misses
        if total == 0:
            return 0.0
        return self.hits / total
'''

WORD_SET_CACHEABLE_CELL = r'''import re

USER_WORDS = frozenset({"my", "mine", "our", "ours"})
TIME_WORDS = frozenset({"now", "today", "tonight", "tomorrow", "yesterday", "currently",
                        "current", "latest"})
TIME_PHRASES = (("right", "now"), ("at", "the", "moment"))


def _has_phrase(words, phrase):
    size = len(phrase)
    return any(tuple(words[i:i + size]) == phrase for i in range(len(words) - size + 1))


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others."""
    words = re.findall(r"\w+", q.lower())
    if USER_WORDS.intersection(words) or TIME_WORDS.intersection(words):
        return False
    if any(_has_phrase(words, phrase) for phrase in TIME_PHRASES):
        return False
    for text in (q, a):
        if re.search(r"\d{4,}", text):
            return False
    return True
'''

GRID_PICK_CELL = r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0."""
    grid = sorted({row.threshold for row in rows})
    safe = [row.threshold for row in rows if row.false_hits == 0]
    if not safe:
        raise ValueError("no threshold reaches zero false hits: extend the grid upwards")
    first_zero = min(safe)
    above = [th for th in grid if th > first_zero]
    if not above:
        raise ValueError(f"{first_zero} is the first zero and the top of the grid: extend the "
                         "grid past it so there is a notch above")
    return above[0]
'''


BLIND = [
    Blind(
        name="ttl_boundary_still_live",
        bug="an entry whose age is exactly ttl is still served: the expiry test uses "
            "age > ttl, but the notebook says an entry is live only while its age is strictly "
            "below ttl (at exactly ttl it has expired)",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("table.stamps[:n] >= self.ttl", "table.stamps[:n] > self.ttl"))),
    ),
    Blind(
        name="threshold_strictly_above",
        bug="a hit needs a cosine strictly above the threshold (>), while the notebook says "
            "a cosine >= threshold counts as the same question",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("if scores[best] >= self.threshold:", "if scores[best] > self.threshold:"))),
    ),
    Blind(
        name="probe_not_normalised",
        bug="stored rows are scaled to length 1 but the asked question's vector is used as "
            "embed returned it, so with unnormalised embeddings every raw dot product is "
            "far above 1 (the notebook: enforce length 1 inside the cache, never assume it)",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("scores = table.vectors[:n] @ self._unit_vector(q)",
             "scores = table.vectors[:n] @ np.asarray(self.embed(q), dtype=np.float64)"))),
    ),
    Blind(
        name="put_replaces_same_question",
        bug="storing a question that is already stored overwrites its row (answer and store "
            "time) instead of adding another row; the notebook says put never replaces and "
            "on equal scores the earliest stored row wins",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("        self.answers = []\n        self.size = 0\n",
             "        self.answers = []\n        self.questions = []\n        self.size = 0\n"),
            ("    def add(self, vector, answer, stamp):\n",
             "    def add(self, question, vector, answer, stamp):\n"
             "        if question in self.questions:     # asked before: refresh that row\n"
             "            i = self.questions.index(question)\n"
             "            self.vectors[i] = vector\n"
             "            self.stamps[i] = stamp\n"
             "            self.answers[i] = answer\n"
             "            return\n"),
            ("        self.answers.append(answer)\n",
             "        self.answers.append(answer)\n        self.questions.append(question)\n"),
            ("table.add(v, a, self.clock())", "table.add(q, v, a, self.clock())"))),
    ),
    Blind(
        name="expired_best_row_hides_live_row",
        bug="the argmax is taken over all rows and expiry is checked only on the winner, so "
            "when the best-scoring row has expired a live row that clears the threshold is "
            "never served (the notebook drops rows older than the TTL before scoring)",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("            expired = self.clock() - table.stamps[:n] >= self.ttl\n"
             "            scores[expired] = -np.inf\n"
             "            best = int(np.argmax(scores))\n"
             "            if scores[best] >= self.threshold:\n",
             "            best = int(np.argmax(scores))\n"
             "            age = self.clock() - table.stamps[best]\n"
             "            if age < self.ttl and scores[best] >= self.threshold:\n"))),
    ),
    Blind(
        name="hit_rate_counts_puts",
        bug="hit_rate divides hits by the number of embeddings computed, which counts every "
            "put (and skips lookups of empty tenants); the notebook says hit_rate is hits / "
            "lookups and put counts as neither a hit nor a miss",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("        self.misses = 0\n", "        self.misses = 0\n        self.lookups = 0\n"),
            ("        v = np.asarray(self.embed(q), dtype=np.float64).ravel()\n",
             "        self.lookups += 1\n"
             "        v = np.asarray(self.embed(q), dtype=np.float64).ravel()\n"),
            ("        lookups = self.hits + self.misses\n"
             "        return self.hits / lookups if lookups else 0.0\n",
             "        return self.hits / self.lookups if self.lookups else 0.0\n"))),
    ),
    Blind(
        name="empty_tenant_lookup_not_counted",
        bug="a lookup in a namespace that has stored nothing yet returns None without "
            "counting a miss; the notebook counts every lookup as a hit or a miss",
        cells=_cells(semantic_cache=_patch(
            SEMANTIC_CACHE_CELL,
            ("        if table is not None and table.size:\n",
             "        if table is None:\n"
             "            return None                 # this tenant has stored nothing yet\n"
             "        if table.size:\n"))),
    ),
    Blind(
        name="words_matched_as_substrings",
        bug="user-specific words are found with a substring test, so 'your' counts as "
            "'our'; the notebook says words match as whole words",
        cells=_cells(cacheable=_patch(
            CACHEABLE_CELL,
            ("_USER_WORDS = re.compile(r\"\\b(?:my|mine|our|ours)\\b\", re.IGNORECASE)\n",
             "USER_WORDS = (\"my\", \"mine\", \"our\", \"ours\")\n"),
            ("if _USER_WORDS.search(q) or",
             "if any(word in q.lower() for word in USER_WORDS) or"))),
    ),
    Blind(
        name="identifier_in_answer_ignored",
        bug="only the question is searched for a 4+ digit identifier; the notebook refuses "
            "the store when the question OR the answer contains one",
        cells=_cells(cacheable=_patch(
            CACHEABLE_CELL,
            ("return not (_IDENTIFIER.search(q) or _IDENTIFIER.search(a))",
             "return not _IDENTIFIER.search(q)"))),
    ),
    Blind(
        name="identifier_needs_five_digits",
        bug="an identifier is taken to be MORE than 4 digits (\\d{5,}), so a 4-digit "
            "number such as '#5521' is stored; the notebook says a run of 4 or more digits",
        cells=_cells(cacheable=_patch(
            CACHEABLE_CELL,
            ("re.compile(r\"\\d{4,}\")", "re.compile(r\"\\d{5,}\")"))),
    ),
    Blind(
        name="at_the_moment_never_matches",
        bug="the question is split into single words and compared with a set that also "
            "holds the phrases 'right now' and 'at the moment'; a phrase is never one word, "
            "so 'at the moment' is not refused ('right now' still is, through 'now')",
        cells=_cells(cacheable=r'''import re

USER_WORDS = {"my", "mine", "our", "ours"}
TIME_WORDS = {"now", "today", "tonight", "tomorrow", "yesterday", "currently", "current",
              "latest", "right now", "at the moment"}


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others."""
    words = set(re.findall(r"\w+", q.lower()))
    if words & USER_WORDS or words & TIME_WORDS:
        return False
    return not (re.search(r"\d{4,}", q) or re.search(r"\d{4,}", a))
'''),
    ),
    Blind(
        name="word_rules_applied_to_answer",
        bug="the user-specific and time-sensitive words are searched in the question AND "
            "the answer, so 'See our refund page' makes a generic question uncacheable; the "
            "notebook applies those two rules to the question only (identifiers: both)",
        cells=_cells(cacheable=_patch(
            CACHEABLE_CELL,
            ("    if _USER_WORDS.search(q) or _TIME_WORDS.search(q):\n",
             "    both = f\"{q}\\n{a}\"\n"
             "    if _USER_WORDS.search(both) or _TIME_WORDS.search(both):\n"))),
    ),
    Blind(
        name="notch_is_a_fixed_step",
        bug="'one notch higher' is computed as the first zero plus 0.01 instead of the next "
            "threshold of the sweep's grid (0.995 becomes 1.005, not 0.998)",
        cells=_cells(pick_threshold=_patch(
            PICK_THRESHOLD_CELL,
            ("return ordered[i + 1].threshold", "return round(row.threshold + 0.01, 3)"))),
    ),
    Blind(
        name="top_of_grid_index_error",
        bug="when the first zero is the top of the grid the next row is indexed anyway and "
            "an IndexError escapes; the notebook says raise ValueError saying the grid must "
            "be extended",
        cells=_cells(pick_threshold=_patch(
            PICK_THRESHOLD_CELL,
            ("            if i + 1 == len(ordered):\n"
             "                raise ValueError(\n"
             "                    f\"the first threshold with zero false hits, {row.threshold}, "
             "is the top \"\n"
             "                    \"of the grid: extend the grid so there is a notch above it\")\n",
             ""))),
    ),
    Blind(
        name="per_tenant_tables",
        bug="the plain solution: one float64 table per namespace grown by doubling, expired "
            "rows masked with -inf before the argmax, regular expressions for cacheable",
        cells=_cells(),
        correct=True,
    ),
    Blind(
        name="flat_table_word_sets",
        bug="one flat float32 table for all tenants with a tenant code per row and boolean "
            "masks; cacheable tokenises the question and matches phrases as word tuples; "
            "pick_threshold works on the set of grid values instead of a sorted loop",
        cells=_cells(semantic_cache=FLAT_TABLE_CELL, cacheable=WORD_SET_CACHEABLE_CELL,
                     pick_threshold=GRID_PICK_CELL),
        correct=True,
    ),
]


# Round four: written from the release notebook of 2026-12-06 (after its rules were
# mapped) alone, told to write the mistakes a student would make, not edits of an answer.
BLIND += [
    Blind(
        'r4_cacheable_substring_words',
        "cacheable looks for the words as substrings of the lowercased question, so 'your' matches 'our', 'known' matches 'now' and 'currency' matches 'current'; the text says words match as WHOLE words",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    text = q.lower()
    for word in ("my", "mine", "our", "ours"):
        if word in text:
            return False
    for word in ("now", "today", "tonight", "tomorrow", "yesterday", "currently", "current",
                 "latest", "right now", "at the moment"):
        if word in text:
            return False
    if re.search(r"\d{4,}", q) or re.search(r"\d{4,}", a):
        return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_cacheable_case_sensitive',
        "cacheable matches whole words with \\b but case-sensitively against the lowercase word list, so 'MINE', 'Our' and 'TODAY' are let through; the text says whole words IN ANY CASE ('My' counts as my)",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    blocked = ["my", "mine", "our", "ours",
               "now", "today", "tonight", "tomorrow", "yesterday", "currently", "current",
               "latest", "right now", "at the moment"]
    for word in blocked:
        if re.search(r"\b" + re.escape(word) + r"\b", q):
            return False
    return re.search(r"\d{4,}", q + " " + a) is None
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_identifier_question_only',
        "cacheable looks for a 4+ digit identifier in the question only, so an answer quoting 'Invoice 55120' is stored; the text says the question OR THE ANSWER contains an identifier",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    words = set(re.findall(r"\w+", q.lower()))
    if words & {"my", "mine", "our", "ours"}:
        return False
    if words & {"now", "today", "tonight", "tomorrow", "yesterday", "currently", "current",
                "latest"}:
        return False
    if re.search(r"\bat the moment\b", q, re.IGNORECASE):
        return False
    if re.search(r"\d{4,}", q):          # an order, invoice, ticket or account number
        return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_words_checked_in_answer',
        "cacheable runs the user-specific and time-sensitive word rules over the question AND the answer, so a generic question whose answer says 'our login page now' is refused; the text says these are rules on what the QUESTION says (only identifiers are looked for in the answer)",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    both = q + "\n" + a
    user_words = r"\b(my|mine|our|ours)\b"
    time_words = (r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                  r"|right now|at the moment)\b")
    for pattern in (user_words, time_words, r"\d{4,}"):
        if re.search(pattern, both, re.IGNORECASE):
            return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_identifier_as_numeric_token',
        "cacheable counts an identifier only when a whitespace-separated token is all digits and 4+ long, so 'INV-77310', '#9034' and '4821?' slip through; the text says a RUN of 4 or more digits anywhere ('INV-20931', '#5521')",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    if re.search(r"\b(my|mine|our|ours)\b", q, re.IGNORECASE):
        return False
    if re.search(r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                 r"|right now|at the moment)\b", q, re.IGNORECASE):
        return False
    for token in (q + " " + a).split():
        if token.isdigit() and len(token) >= 4:
            return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_pick_returns_first_zero',
        "pick_threshold returns the lowest threshold with zero false hits itself; the text's rule is to take that threshold and then go ONE NOTCH HIGHER",
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    user_words = r"\b(my|mine|our|ours)\b"
    time_words = (r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                  r"|right now|at the moment)\b")
    if re.search(user_words, q, re.IGNORECASE):
        return False
    if re.search(time_words, q, re.IGNORECASE):
        return False
    if re.search(r"\d{4,}", q) or re.search(r"\d{4,}", a):
        return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    zeros = [r.threshold for r in rows if r.false_hits == 0]
    if not zeros:
        raise ValueError("no threshold reaches zero false hits: extend the grid")
    first_zero = min(zeros)
    if first_zero == max(r.threshold for r in rows):
        raise ValueError("the first zero is the top of the grid: extend the grid")
    return first_zero
''',
        },
    ),
    Blind(
        'r4_pick_top_of_grid_falls_back',
        'pick_threshold returns the first zero itself when it is the top of the grid, instead of raising; the text says when the first zero is the top of the grid there is nothing safe to return: raise ValueError saying the grid must be extended',
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = self.clock()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    user_words = r"\b(my|mine|our|ours)\b"
    time_words = (r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                  r"|right now|at the moment)\b")
    if re.search(user_words, q, re.IGNORECASE):
        return False
    if re.search(time_words, q, re.IGNORECASE):
        return False
    if re.search(r"\d{4,}", q) or re.search(r"\d{4,}", a):
        return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    grid = sorted(r.threshold for r in rows)
    zeros = sorted(r.threshold for r in rows if r.false_hits == 0)
    if not zeros:
        raise ValueError("no threshold reaches zero false hits: extend the grid")
    i = grid.index(zeros[0])
    return grid[min(i + 1, len(grid) - 1)]     # already at the top: the best we have
''',
        },
    ),
    Blind(
        'r4_put_stamps_wall_clock',
        'put stamps each entry with time.time() while get reads the injected clock, so on a FakeClock the ages come out negative and nothing ever expires; the text says the clock is injected and every read of the time goes through clock()',
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.tables = {}   # namespace -> {"vecs": 2-D array, "born": 1-D array, "answers": list, "n": rows used}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=np.float64)
        norm = np.linalg.norm(v)
        return v / norm if norm > 0 else v

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        table = self.tables.get(namespace)
        if table is None or table["n"] == 0:
            self.misses += 1
            return None
        n = table["n"]
        v = self._unit_vector(q)
        live = (self.clock() - table["born"][:n]) < self.ttl
        scores = np.where(live, table["vecs"][:n] @ v, -np.inf)
        best = int(np.argmax(scores))
        if live[best] and scores[best] >= self.threshold:
            self.hits += 1
            return table["answers"][best]
        self.misses += 1
        return None

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        table = self.tables.get(namespace)
        if table is None:
            table = {"vecs": np.zeros((8, v.shape[0])), "born": np.zeros(8), "answers": [], "n": 0}
            self.tables[namespace] = table
        n = table["n"]
        if n == table["vecs"].shape[0]:
            table["vecs"] = np.vstack([table["vecs"], np.zeros_like(table["vecs"])])
            table["born"] = np.concatenate([table["born"], np.zeros_like(table["born"])])
        table["vecs"][n] = v
        table["born"][n] = time.time()
        table["answers"].append(a)
        table["n"] = n + 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    user_words = r"\b(my|mine|our|ours)\b"
    time_words = (r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                  r"|right now|at the moment)\b")
    if re.search(user_words, q, re.IGNORECASE):
        return False
    if re.search(time_words, q, re.IGNORECASE):
        return False
    if re.search(r"\d{4,}", q) or re.search(r"\d{4,}", a):
        return False
    return True
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero false hits is at {row.threshold}, the top of "
                                 "the grid: extend the grid past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold reaches zero false hits: extend the grid")
''',
        },
    ),
    Blind(
        'r4_one_masked_table',
        'correct: one table for every tenant, with an integer namespace id per row; a lookup masks rows by tenant and by age in one boolean array and scores with one matrix product; cacheable is one compiled alternation with lookarounds; pick_threshold bisects the grid',
        {
            'semantic_cache': r'''import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold, self.ttl = float(threshold), ttl
        self.embed, self.clock = embed, clock
        self.hits = self.misses = 0
        self._ids = {}                 # namespace -> small int
        self._vecs = None              # (capacity, dim), allocated on the first put
        self._ns = np.empty(0, dtype=np.int64)
        self._born = np.empty(0, dtype=np.float64)
        self._answers = []
        self._size = 0

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.array(self.embed(q), dtype=np.float64).ravel()
        length = float(np.sqrt(v @ v))
        if length == 0.0:
            return v
        return v / length

    def _grow(self, dim):
        cap = max(16, 2 * len(self._ns))
        vecs = np.zeros((cap, dim))
        ns = np.full(cap, -1, dtype=np.int64)
        born = np.zeros(cap)
        if self._vecs is not None:
            vecs[:self._size] = self._vecs[:self._size]
            ns[:self._size] = self._ns[:self._size]
            born[:self._size] = self._born[:self._size]
        self._vecs, self._ns, self._born = vecs, ns, born

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        ns_id = self._ids.get(namespace)
        answer = None
        if ns_id is not None:
            k = self._size
            usable = (self._ns[:k] == ns_id) & ((self.clock() - self._born[:k]) < self.ttl)
            if usable.any():
                scores = self._vecs[:k] @ self._unit_vector(q)
                scores[~usable] = -np.inf
                best = int(np.argmax(scores))       # first of equal maxima: earliest row
                if scores[best] >= self.threshold:
                    answer = self._answers[best]
        if answer is None:
            self.misses += 1
        else:
            self.hits += 1
        return answer

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        if self._vecs is None or self._size == len(self._ns):
            self._grow(v.shape[0])
        i = self._size
        self._vecs[i] = v
        self._ns[i] = self._ids.setdefault(namespace, len(self._ids))
        self._born[i] = self.clock()
        self._answers.append(a)
        self._size += 1

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        total = self.hits + self.misses
        if total == 0:
            return 0.0
        return self.hits / total
''',
            'cacheable': r'''import re

_BLOCKED = re.compile(
    r"(?<!\w)(?:my|mine|ours?|now|today|tonight|tomorrow|yesterday|current(?:ly)?"
    r"|latest|right\s+now|at\s+the\s+moment)(?!\w)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"\d{4}")


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    if _BLOCKED.search(q):
        return False
    return not any(_IDENTIFIER.search(text) for text in (q, a))
''',
            'pick_threshold': r'''import bisect


def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    grid = sorted({r.threshold for r in rows})
    safe = [r.threshold for r in rows if r.false_hits == 0]
    if not safe:
        raise ValueError("no threshold in the sweep has zero false hits; extend the grid")
    above = bisect.bisect_right(grid, min(safe))
    if above >= len(grid):
        raise ValueError(f"{min(safe)} is the top of the grid, so there is no notch above "
                         "the first zero; extend the grid")
    return grid[above]
''',
        },
        correct=True,
    ),
    Blind(
        'r4_shelves_and_ngrams',
        'correct: each tenant is a small _Shelf object holding a float64 matrix that doubles when full; expiry is an age mask, and the earliest best row comes from np.flatnonzero on the maximum; cacheable tokenises into words and checks single words by set and phrases by n-grams, with digit runs measured by length; pick_threshold walks the sorted grid with a flag',
        {
            'semantic_cache': r'''import time

import numpy as np


class _Shelf:
    """One tenant's rows: unit vectors, store times and answers, with spare room."""

    def __init__(self, dim):
        self.vectors = np.empty((4, dim))
        self.stamps = np.empty(4)
        self.answers = []

    def __len__(self):
        return len(self.answers)

    def add(self, vector, stamp, answer):
        n = len(self)
        if n == len(self.stamps):
            self.vectors = np.resize(self.vectors, (2 * n, self.vectors.shape[1]))
            self.stamps = np.resize(self.stamps, 2 * n)
        self.vectors[n] = vector
        self.stamps[n] = stamp
        self.answers.append(answer)


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.shelves = {}

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        v = np.asarray(self.embed(q), dtype=float)
        n = np.linalg.norm(v)
        return v if n == 0 else v / n

    def _lookup(self, q, namespace):
        shelf = self.shelves.get(namespace)
        if not shelf:
            return None
        n = len(shelf)
        age = self.clock() - shelf.stamps[:n]
        scores = shelf.vectors[:n] @ self._unit_vector(q)
        scores[age >= self.ttl] = -np.inf
        top = scores.max()
        if not top >= self.threshold:
            return None
        return shelf.answers[int(np.flatnonzero(scores == top)[0])]

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        found = self._lookup(q, namespace)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        v = self._unit_vector(q)
        if namespace not in self.shelves:
            self.shelves[namespace] = _Shelf(v.shape[0])
        self.shelves[namespace].add(v, self.clock(), a)

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        return self.hits / max(1, self.hits + self.misses)
''',
            'cacheable': r'''import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    words = re.findall(r"\w+", q.casefold())
    single = {"my", "mine", "our", "ours", "now", "today", "tonight", "tomorrow",
              "yesterday", "currently", "current", "latest"}
    phrases = [("right", "now"), ("at", "the", "moment")]
    if single.intersection(words):
        return False
    for phrase in phrases:
        k = len(phrase)
        if any(tuple(words[i:i + k]) == phrase for i in range(len(words) - k + 1)):
            return False
    runs = re.findall(r"\d+", q) + re.findall(r"\d+", a)
    return all(len(run) < 4 for run in runs)
''',
            'pick_threshold': r'''def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    grid = sorted(rows, key=lambda r: r.threshold)
    seen_zero = None
    for row in grid:
        if seen_zero is not None and row.threshold > seen_zero:
            return row.threshold
        if seen_zero is None and row.false_hits == 0:
            seen_zero = row.threshold
    if seen_zero is None:
        raise ValueError("no row has zero false hits: the grid must be extended")
    raise ValueError(f"the first zero ({seen_zero}) is the top of the grid: extend the grid")
''',
        },
        correct=True,
    ),
]
