"""Lab 7 mutants: the prompt-cache audit bugs of seed 001 exercise 7 (pricing, where the hit rate
is read, what it divides by, and what the invalidator diff is allowed to see)."""

from course.grading.proofs.mutation import Mutant

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
        old="ours = [line for line in changed if not any(probe in line for probe in shown)]",
        new="ours = changed",
        loses={"invalidator_ignores_probe", "invalidator_names_the_line"},
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
    Mutant(
        name="writes_priced_as_input",
        bug="a cache write billed at 1.0x input instead of 1.25x",
        cell="call_usd",
        old='cw * rate["in"] * 1.25',
        new='cw * rate["in"]',
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="probes_counted_from_one",
        bug="call i sends f'probe {i + 1}', so the probes run 1..n instead of 0..n-1",
        cell="audit_caching",
        old='create(**build_request(f"probe {i}"))',
        new='create(**build_request(f"probe {i + 1}"))',
        loses={"hit_rate_on_last_call"},
    ),
    Mutant(
        name="none_usage_kept",
        bug="a usage field that is None is kept as None instead of counting as 0",
        cell="audit_caching",
        old='"cache_write": usage.cache_creation_input_tokens or 0,',
        new='"cache_write": usage.cache_creation_input_tokens,',
        loses={"hit_rate_on_last_call"},
    ),
    Mutant(
        name="hit_rate_rounded",
        bug="the hit rate is rounded to 3 places, against the text's 'not rounded'",
        cell="audit_caching",
        old='hit_rate = warm["cache_read"] / total if total else 0.0',
        new='hit_rate = round(warm["cache_read"] / total, 3) if total else 0.0',
        loses={"hit_rate_denominator", "verdict_thresholds"},
    ),
    Mutant(
        name="healthy_at_exactly_0_7",
        bug="HEALTHY decided by hit_rate >= 0.7, so exactly 0.7 reads HEALTHY instead of WEAK",
        cell="audit_caching",
        old="if hit_rate > 0.7 else",
        new="if hit_rate >= 0.7 else",
        loses={"verdict_thresholds"},
    ),
    Mutant(
        name="weak_at_exactly_0_1",
        bug="WEAK decided by hit_rate >= 0.1, so exactly 0.1 reads WEAK instead of BROKEN",
        cell="audit_caching",
        old="if hit_rate > 0.1 else",
        new="if hit_rate >= 0.1 else",
        loses={"verdict_thresholds"},
    ),
    Mutant(
        name="n_zero_accepted",
        bug="only a negative n raises; n=0 sends nothing and fails on an empty list",
        cell="audit_caching",
        old="if n < 1:",
        new="if n < 0:",
        loses={"verdict_thresholds"},
    ),
    Mutant(
        name="space_after_marker",
        bug="each changed line printed as '- line' (ndiff style) instead of '-line'",
        cell="find_invalidator",
        old='return "\\n".join(ours) or NO_DIFF',
        new='return "\\n".join(line[0] + " " + line[1:] for line in ours) or NO_DIFF',
        loses={"invalidator_names_the_line"},
    ),
    Mutant(
        name="all_minus_lines_first",
        bug="every '-' line before every '+' line, instead of the diff's order run by run",
        cell="find_invalidator",
        old='return "\\n".join(ours) or NO_DIFF',
        new='return "\\n".join(sorted(ours, key=lambda line: line[0] != "-")) or NO_DIFF',
        loses={"invalidator_names_the_line"},
    ),
    Mutant(
        name="raw_probe_matched",
        bug="probe lines matched on the raw probe, so a probe with a quote or a non-ASCII "
            "character keeps its own lines in the diff",
        cell="find_invalidator",
        old="ours = [line for line in changed if not any(probe in line for probe in shown)]",
        new="ours = [line for line in changed if probe_a not in line and probe_b not in line]",
        loses={"invalidator_ignores_probe"},
    ),
]
MUTANTS += [
    Mutant(
        name="haiku_old_price",
        bug="claude-haiku-4-5 priced at $0.80/$4 per MTok, an older Haiku's rate, instead of "
            "the $1/$5 its model page lists",
        cell="price",
        old='"claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-haiku-4-5": {"in": 0.8 / 1_000_000, "out": 4 / 1_000_000},',
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="opus_old_price",
        bug="claude-opus-5 priced at $15/$75 per MTok, an older Opus's rate, instead of $5/$25",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},',
        new='"claude-opus-5": {"in": 15 / 1_000_000, "out": 75 / 1_000_000},',
        loses={"call_usd_four_terms"},
    ),
]
MUTANTS += [
    Mutant(
        name="price_per_mtok",
        bug="PRICE holds the table's dollars per million tokens and call_usd divides by a "
            "million: every total is right, but PRICE is not in dollars per token as the API "
            "block states",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-opus-5": {"in": 5, "out": 25},\n'
            '    "claude-sonnet-5": {"in": 2, "out": 10},\n'
            '    "claude-haiku-4-5": {"in": 1, "out": 5},',
        patches=(("call_usd", '+ out * rate["out"])', '+ out * rate["out"]) / 1_000_000'),),
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="price_keys_input_output",
        bug="PRICE keyed 'input'/'output' instead of the 'in'/'out' the API block names; "
            "call_usd reads the same keys, so only PRICE itself is wrong",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-opus-5": {"input": 5 / 1_000_000, "output": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"input": 2 / 1_000_000, "output": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"input": 1 / 1_000_000, "output": 5 / 1_000_000},',
        patches=(("call_usd", "rate = PRICE[model]",
                  'rate = {"in": PRICE[model]["input"], "out": PRICE[model]["output"]}'),),
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="unknown_model_priced_as_opus",
        bug="a model not in PRICE is priced at claude-opus-5's rates instead of raising "
            "KeyError",
        cell="call_usd",
        old="rate = PRICE[model]",
        new='rate = PRICE.get(model, PRICE["claude-opus-5"])',
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="default_model_sonnet",
        bug="call_usd's model defaults to claude-sonnet-5 instead of claude-opus-5",
        cell="call_usd",
        old='model="claude-opus-5"):',
        new='model="claude-sonnet-5"):',
        loses={"call_usd_four_terms"},
    ),
    Mutant(
        name="default_n_two",
        bug="audit_caching's n defaults to 2 instead of 3",
        cell="audit_caching",
        old="def audit_caching(build_request, *, client, n=3):",
        new="def audit_caching(build_request, *, client, n=2):",
        loses={"hit_rate_on_last_call", "invalidators_flip_to_broken"},
    ),
    Mutant(
        name="per_call_key_misnamed",
        bug="the cache-write count is reported under 'cache_creation', not the "
            "'cache_write' the API block names",
        cell="audit_caching",
        old='"cache_write": usage.cache_creation_input_tokens or 0,',
        new='"cache_creation": usage.cache_creation_input_tokens or 0,',
        patches=(("audit_caching",
                  'total = warm["cache_read"] + warm["cache_write"] + warm["uncached_in"]',
                  'total = warm["cache_read"] + warm["cache_creation"] + warm["uncached_in"]'),),
        loses={"hit_rate_on_last_call", "invalidators_flip_to_broken"},
    ),
    Mutant(
        name="zero_total_divides",
        bug="the hit rate divides without a guard, so a last call with no input at all "
            "raises ZeroDivisionError instead of reading 0.0 and BROKEN",
        cell="audit_caching",
        old='hit_rate = warm["cache_read"] / total if total else 0.0',
        new='hit_rate = warm["cache_read"] / total',
        loses={"hit_rate_denominator"},
    ),
    Mutant(
        name="empty_string_not_no_diff",
        bug="find_invalidator returns '' when nothing is left, instead of NO_DIFF",
        cell="find_invalidator",
        old='return "\\n".join(ours) or NO_DIFF',
        new='return "\\n".join(ours)',
        loses={"invalidator_ignores_probe"},
    ),
    Mutant(
        name="lines_joined_by_space",
        bug="the changed lines are joined by a space instead of a newline",
        cell="find_invalidator",
        old='return "\\n".join(ours) or NO_DIFF',
        new='return " ".join(ours) or NO_DIFF',
        loses={"invalidator_names_the_line"},
    ),
    Mutant(
        name="default_probes_swapped",
        bug="find_invalidator's probes default to q2 then q1, so the '-' lines come from "
            "'q2' and the '+' lines from 'q1'",
        cell="find_invalidator",
        old='def find_invalidator(build_request, probe_a="q1", probe_b="q2"):',
        new='def find_invalidator(build_request, probe_a="q2", probe_b="q1"):',
        loses={"invalidator_names_the_line"},
    ),
]
