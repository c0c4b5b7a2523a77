"""Lab 5 mutants: the semantic-cache bugs of seed 001 exercise 5 and its "Test it" section."""

from course.grading.proofs.mutation import Mutant

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
MUTANTS += [
    Mutant(
        name="threshold_strictly_above",
        bug="a hit needs cosine >= threshold; written as >, a cosine exactly at the threshold "
            "misses",
        cell="semantic_cache",
        old="if scores[best] >= self.threshold:",
        new="if scores[best] > self.threshold:",
        loses={"default_threshold"},
    ),
    Mutant(
        name="live_at_exactly_ttl",
        bug="an entry is live while its age is below ttl; written as <=, it is served at "
            "exactly ttl",
        cell="semantic_cache",
        old='fresh = now - shelf["born"][:n] < self.ttl',
        new='fresh = now - shelf["born"][:n] <= self.ttl',
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="latest_row_wins",
        bug="put never replaces and the earliest row wins ties; here the latest row wins",
        cell="semantic_cache",
        old="best = int(np.argmax(scores))",
        new="best = n - 1 - int(np.argmax(scores[::-1]))",
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="default_ttl_two_hours",
        bug="the signature's default ttl is 3600 s; a 7200 s default keeps answers twice as long",
        cell="semantic_cache",
        old="ttl=3600, *",
        new="ttl=7200, *",
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="put_counts_a_miss",
        bug="put is not a lookup, but here every store adds to misses",
        cell="semantic_cache",
        old='shelf["n"] = n + 1',
        new='shelf["n"] = n + 1\n        self.misses += 1',
        loses={"hit_miss_counters"},
    ),
    Mutant(
        name="hit_rate_over_misses",
        bug="hit_rate divides hits by misses instead of by all lookups",
        cell="semantic_cache",
        old="return self.hits / lookups if lookups else 0.0",
        new="return self.hits / self.misses if self.misses else 0.0",
        loses={"hit_miss_counters"},
    ),
    Mutant(
        name="default_shared_by_tenants",
        bug="entries stored without a namespace are served to every tenant as a fallback",
        cell="semantic_cache",
        old="shelf = self._shelves.get(namespace)",
        new='shelf = self._shelves.get(namespace) or self._shelves.get("default")',
        loses={"tenant_isolation"},
    ),
    Mutant(
        name="three_digit_identifier",
        bug="an identifier is a run of 4 or more digits; 3 digits (error 429) refused too",
        cell="cacheable",
        old=r'ident = r"\d{4,}"',
        new=r'ident = r"\d{3,}"',
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="identifier_in_question_only",
        bug="the answer is not checked for identifiers, so a quoted invoice number is stored",
        cell="cacheable",
        old="return not (re.search(ident, q) or re.search(ident, a))",
        new="return not re.search(ident, q)",
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="no_at_the_moment",
        bug="'at the moment' left out of the time-sensitive phrases",
        cell="cacheable",
        old=r'r"|at the moment)\b"',
        new=r'r")\b"',
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="top_of_grid_returned",
        bug="when the first zero is the top of the grid there is no notch; it is returned "
            "instead of raising ValueError",
        cell="pick_threshold",
        old="if i + 1 == len(ordered):\n                raise",
        new="if i + 1 == len(ordered):\n"
            "                return row.threshold\n                raise",
        loses={"threshold_from_sweep"},
    ),
    Mutant(
        name="normalise_only_long_vectors",
        bug="vectors are scaled only when longer than 1, so short vectors are compared raw",
        cell="semantic_cache",
        old="return v / length if length > 0 else v",
        new="return v / length if length > 1 else v",
        loses={"normalises_vectors"},
    ),
    Mutant(
        name="first_row_over_threshold",
        bug="get serves the first stored row whose cosine clears the threshold, not the "
            "closest one, so an earlier, looser match hides an exact repeat",
        cell="semantic_cache",
        old="best = int(np.argmax(scores))",
        new="best = int(np.argmax(scores >= self.threshold))",
        loses={"default_threshold"},
    ),
    Mutant(
        name="expired_answers_kept",
        bug="expired rows are dropped from the vectors and store times but not from the "
            "answers, so after an expiry a live question is served a dead row's answer",
        cell="semantic_cache",
        old='                shelf["answers"] = [shelf["answers"][i] for i in keep]\n',
        new="",
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="miss_returns_empty_string",
        bug="a miss returns an empty string instead of None, so the caller's "
            "'is None' test never runs the agent",
        cell="semantic_cache",
        old="        return found\n",
        new='        return "" if found is None else found\n',
        loses={"tenant_isolation", "ttl_expiry", "hit_miss_counters", "default_threshold",
               "threshold_from_sweep", "normalises_vectors"},
    ),
]
MUTANTS.append(Mutant(
    name="word_rules_on_the_answer",
    bug="the user-specific and time-sensitive words are searched in the answer too, so a "
        "generic question answered 'see our Billing page' is never stored",
    cell="cacheable",
    old="question = q.lower()",
    new="question = (q + \"\\n\" + a).lower()",
    loses={"cacheable_filter"},
))
MUTANTS += [
    Mutant(
        name="wall_clock_in_put",
        bug="put stamps entries with time.time() instead of the injected clock, so on a fake "
            "clock no entry ever ages and expiry never happens",
        cell="semantic_cache",
        old='shelf["born"][n] = self.clock()',
        new='shelf["born"][n] = time.time()',
        loses={"ttl_expiry"},
    ),
    Mutant(
        name="wall_clock_in_get",
        bug="get reads time.time() instead of the injected clock, so against a fake clock "
            "every stored entry looks years old and every lookup misses",
        cell="semantic_cache",
        old="now = self.clock()",
        new="now = time.time()",
        loses={"tenant_isolation", "ttl_expiry", "hit_miss_counters", "default_threshold",
               "vectorised_lookup", "normalises_vectors"},
    ),
    Mutant(
        name="expiry_checked_row_by_row",
        bug="the lookup is one matrix product, but expiry is checked with a list comprehension "
            "over every row, so each lookup still runs a Python line per stored row",
        cell="semantic_cache",
        old='fresh = now - shelf["born"][:n] < self.ttl',
        new='fresh = np.array([now - shelf["born"][i] < self.ttl for i in range(n)], '
            'dtype=bool)',
        loses={"vectorised_lookup"},
    ),
    Mutant(
        name="ours_left_out",
        bug="'ours' left out of the user-specific words: whole-word 'our' does not match it",
        cell="cacheable",
        old=r'personal = r"\b(my|mine|our|ours)\b"',
        new=r'personal = r"\b(my|mine|our)\b"',
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="currently_left_out",
        bug="'currently' left out of the time-sensitive words, as if 'current' covered it; "
            "whole-word matching does not",
        cell="cacheable",
        old="currently|current|latest",
        new="current|latest",
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="case_sensitive_words",
        bug="the question is not lowered, so 'My', 'Our' and 'TODAY' are not matched",
        cell="cacheable",
        old="question = q.lower()",
        new="question = q",
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="substring_time_words",
        bug="the time-sensitive words are matched as substrings (no word boundaries), so "
            "'known' counts as 'now' and a generic question is refused",
        cell="cacheable",
        old=r'volatile = (r"\b(now|',
        new=r'volatile = (r"(now|',
        patches=(("cacheable", r'r"|at the moment)\b")', r'r"|at the moment)")'),),
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="five_digit_identifier",
        bug="an identifier is taken to be 5 or more digits (like the examples 48213 and "
            "20931), so 'order 4821' is stored",
        cell="cacheable",
        old=r'ident = r"\d{4,}"',
        new=r'ident = r"\d{5,}"',
        loses={"cacheable_filter"},
    ),
    Mutant(
        name="rows_assumed_sorted",
        bug="pick_threshold walks the rows in the order given, as if the sweep were sorted, "
            "so a shuffled sweep gives the row after the first zero in the list",
        cell="pick_threshold",
        old="ordered = sorted(rows, key=lambda r: r.threshold)",
        new="ordered = list(rows)",
        loses={"threshold_from_sweep"},
    ),
    Mutant(
        name="notch_is_plus_0_01",
        bug="the notch is taken as 0.01 above the first zero instead of the next threshold of "
            "the grid, so a first zero at 0.995 gives 1.005, a threshold nothing can reach",
        cell="pick_threshold",
        old="return ordered[i + 1].threshold",
        new="return round(row.threshold + 0.01, 3)",
        loses={"threshold_from_sweep"},
    ),
    Mutant(
        name="top_of_grid_index_error",
        bug="no check for the first zero being the top of the grid: ordered[i + 1] raises "
            "IndexError instead of ValueError",
        cell="pick_threshold",
        old="            if i + 1 == len(ordered):\n"
            '                raise ValueError(f"the first zero-false-hit threshold '
            '{row.threshold} is the "\n'
            '                                 "top of the grid; extend the sweep past it")\n',
        new="",
        loses={"threshold_from_sweep"},
    ),
    Mutant(
        name="no_zero_returns_top",
        bug="when no threshold reaches zero false hits, the highest threshold is returned "
            "instead of raising ValueError",
        cell="pick_threshold",
        old='raise ValueError("no threshold in the sweep has zero false hits; extend the grid '
            'upward")',
        new="return ordered[-1].threshold",
        loses={"threshold_from_sweep"},
    ),
    Mutant(
        name="hit_rate_zero_division",
        bug="hit_rate divides by the lookups without a guard, so before any lookup it "
            "raises ZeroDivisionError instead of returning 0.0",
        cell="semantic_cache",
        old="return self.hits / lookups if lookups else 0.0",
        new="return self.hits / lookups",
        loses={"hit_miss_counters"},
    ),
    Mutant(
        name="put_keys_on_answer",
        bug="put stores the answer under the embedding of the answer, not of the question, "
            "so asking the same question again misses",
        cell="semantic_cache",
        old="v = self._unit_vector(q)",
        new="v = self._unit_vector(a)",
        loses={"tenant_isolation", "ttl_expiry", "hit_miss_counters", "default_threshold",
               "threshold_from_sweep", "vectorised_lookup", "normalises_vectors"},
    ),
]
