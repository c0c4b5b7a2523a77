"""Lab 5 mutants: the semantic-cache bugs of seed 001 exercise 5 and its "Test it" section."""

from course.grading.mutation import Mutant

MUTANTS = [
    Mutant(
        name="no_namespace",
        bug="seed 001 ex.5: a cache keyed only on the question serves tenant A's answer to B",
        cell="semantic_cache",
        old='shelf = self._shelves.setdefault(namespace, {"answers": [], "n": 0})',
        new='shelf = self._shelves.setdefault("shared", {"answers": [], "n": 0})',
        patches=(("semantic_cache", "shelf = self._shelves.get(namespace)",
                  'shelf = self._shelves.get("shared")'),),
        loses={"tenant_isolation"},
    ),
    Mutant(
        name="no_expiry",
        bug="seed 001 ex.5: no TTL, so a stored answer is repeated forever",
        cell="semantic_cache",
        old='fresh = now - shelf["born"][:n] < self.ttl',
        new="fresh = np.ones(n, dtype=bool)",
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="default_0_95",
        bug="seed 001 ex.5: a 0.95 default threshold ships the near misses just below 0.98",
        cell="semantic_cache",
        old="threshold=0.98",
        new="threshold=0.95",
        loses={"default_threshold"},
    ),
    Mutant(
        name="caches_my_balance",
        bug="seed 001 ex.5: cacheable lets 'what is my balance' (user-specific) be stored",
        cell="cacheable",
        old=r'personal = r"\b(my|mine|our|ours)\b"',
        new=r'personal = r"\b(mine|our|ours)\b"',
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="unnormalised_vectors",
        bug="seed 001 ex.5: the dot product is a cosine only for unit vectors; embed's "
            "vectors used as returned",
        cell="semantic_cache",
        old="return v / length if length > 0 else v",
        new="return v",
        loses={"normalises_vectors"},
    ),
    Mutant(
        name="python_loop_lookup",
        bug="seed 001 ex.5 tier 3: scanning every row in a Python loop instead of one "
            "matrix-vector product",
        cell="semantic_cache",
        old='scores = shelf["vecs"][:n] @ probe',
        new='scores = np.array([float(np.dot(shelf["vecs"][i], probe)) for i in range(n)])',
        loses={"vectorised_lookup"},
    ),
    Mutant(
        name="no_safety_notch",
        bug="seed 001 ex.5 Test it: the lowest zero-false-hit threshold used as is, without "
            "moving one notch higher",
        cell="pick_threshold",
        old="return ordered[i + 1].threshold",
        new="return row.threshold",
        loses={"threshold_from_sweep"},
    ),
]
MUTANTS.append(Mutant(
    name="substring_words",
    bug="cacheable matches substrings: 'your' counts as 'our', so generic questions are refused",
    cell="cacheable",
    old=r'personal = r"\b(my|mine|our|ours)\b"',
    new=r'personal = r"(my|mine|our|ours)"',
    loses={"cacheable_filter"},
))
