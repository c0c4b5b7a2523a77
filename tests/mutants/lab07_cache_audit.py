"""Lab 7 mutants: the prompt-cache audit bugs of seed 001 exercise 7 (pricing, where the hit rate
is read, what it divides by, and what the invalidator diff is allowed to see)."""

from course.grading.mutation import Mutant

MUTANTS = [
    Mutant(
        name="cache_reads_full_price",
        bug="seed 001 ex.7: cache reads priced at the full input rate; the healthy call books "
            "$0.1412, the same as the broken one, and the audit's dollar case disappears",
        cell="call_usd",
        old='cr * rate["in"] * 0.10',
        new='cr * rate["in"]',
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="hit_rate_from_first_call",
        bug="seed 001 ex.7: the hit rate is read on stats[0], a call that can only write, so "
            "every builder reads as BROKEN",
        cell="audit_caching",
        old="warm = per_call[-1]",
        new="warm = per_call[0]",
        loses={"hit_rate_on_last_call"},
    ),
    Mutant(
        name="denominator_without_writes",
        bug="seed 001 ex.7: the hit rate divides by read + uncached and forgets the cache "
            "write; the healthy call reads 0.989 instead of 18,400/24,710 = 0.745",
        cell="audit_caching",
        old='total = warm["cache_read"] + warm["cache_write"] + warm["uncached_in"]',
        new='total = warm["cache_read"] + warm["uncached_in"]',
        loses={"hit_rate_denominator"},
    ),
    Mutant(
        name="sort_keys_hides_dict_order",
        bug="seed 001 ex.7: json.dumps(..., sort_keys=True) in the detector normalises the "
            "very dict-order change that invalidates the cache, so a shuffled schema diffs clean",
        cell="find_invalidator",
        old="a = json.dumps(build_request(probe_a), indent=2).splitlines()\n"
            "    b = json.dumps(build_request(probe_b), indent=2).splitlines()",
        new="a = json.dumps(build_request(probe_a), indent=2, sort_keys=True).splitlines()\n"
            "    b = json.dumps(build_request(probe_b), indent=2, sort_keys=True).splitlines()",
        loses={"invalidator_sees_key_order"},
    ),
    Mutant(
        name="probe_lines_not_filtered",
        bug="seed 001 ex.7: the probe lines are kept, so every builder, healthy or not, "
            "reports a finding and the finding is the audit's own question",
        cell="find_invalidator",
        old="ours = [line for line in changed if probe_a not in line and probe_b not in line]",
        new="ours = changed",
        loses={"invalidator_ignores_probe"},
    ),
    Mutant(
        name="stale_sonnet_price",
        bug="claude-sonnet-5 priced at $3/$15 per MTok instead of the $2/$10 its model page "
            "lists",
        cell="price",
        old='"claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},',
        new='"claude-sonnet-5": {"in": 3 / 1_000_000, "out": 15 / 1_000_000},',
        loses={"call_usd_four_terms"},
    ),
]
