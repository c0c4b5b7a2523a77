"""Lab 10 mutants: the token-accounting bugs of seed 001 exercise 10 (the four price terms, the
streamed usage, retried attempts, and the call site nobody decorated)."""

from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(
        name="stream_usage_before_finish",
        bug="seed 001 ex.10: the streamed call's usage is read off the stream before it ends "
            "(message_start), so the row records the placeholder output of 1 token",
        cell="decorators",
        old="                for _ in stream.text_stream:\n"
            "                    pass\n"
            "                final = stream.get_final_message()   # the usage is complete only now",
        new="                final = next(iter(stream)).message",
        loses={"streamed_output_recorded"},
    ),
    Mutant(
        name="cache_reads_full_price",
        bug="seed 001 ex.10: cache reads priced at the full input rate; the $0.82 call books "
            "$1.00 and every share shifts toward reads",
        cell="ledger",
        old='"usd_read": cr * rate["in"] * 0.10,',
        new='"usd_read": cr * rate["in"],',
        loses={"worked_call_to_the_cent", "shares_and_hit_rate"},
    ),
    Mutant(
        name="wrong_multipliers",
        bug="seed 001 ex.10 test 4: the two cache multipliers swapped (writes at 0.10x, reads "
            "at 1.25x); the ledger disagrees with the provider's bill",
        cell="ledger",
        old='"usd_write": cw * rate["in"] * 1.25,\n'
            '            "usd_read": cr * rate["in"] * 0.10,',
        new='"usd_write": cw * rate["in"] * 0.10,\n'
            '            "usd_read": cr * rate["in"] * 1.25,',
        loses={"worked_call_to_the_cent", "shares_and_hit_rate"},
    ),
    Mutant(
        name="retries_not_charged",
        bug="seed 001 ex.10 test 3: the ledger decorator sits outside the retry loop, so a "
            "truncated attempt that was billed never becomes a row",
        cell="instrument",
        old='"plan": world.retry_truncated(accounted("plan", OPUS, ledger=ledger)(world.plan)),',
        new='"plan": accounted("plan", OPUS, ledger=ledger)(world.retry_truncated(world.plan)),',
        loses={"retries_each_charged", "every_call_site_recorded"},
    ),
    Mutant(
        name="call_site_undecorated",
        bug="seed 001 ex.10: a summarisation call inside a tool never touches the ledger, and "
            "the reported cost is about 23% below the bill",
        cell="instrument",
        old='"summarize": accounted("summarize", SONNET, ledger=ledger)(world.summarize),',
        new='"summarize": world.summarize,',
        loses={"every_call_site_recorded"},
    ),
    Mutant(
        name="stale_sonnet_price",
        bug="claude-sonnet-5 priced at $3/$15 per MTok instead of the $2/$10 its model page "
            "lists: the summaries book $0.054 a ticket instead of $0.036",
        cell="price",
        old='"claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},',
        new='"claude-sonnet-5": {"in": 3 / 1_000_000, "out": 15 / 1_000_000},',
        loses={"worked_call_to_the_cent", "every_call_site_recorded", "shares_and_hit_rate"},
    ),
    Mutant(
        name="none_cache_field_crashes",
        bug="a None cache field (an uncached reply) is added as is, so record raises "
            "TypeError instead of counting it as 0",
        cell="ledger",
        old="cw = usage.cache_creation_input_tokens or 0",
        new="cw = usage.cache_creation_input_tokens",
        loses={"worked_call_to_the_cent", "shares_and_hit_rate"},
    ),
    Mutant(
        name="haiku_output_misprized",
        bug="claude-haiku-4-5 output priced at $4/MTok instead of $5/MTok",
        cell="price",
        old='"claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 4 / 1_000_000},',
        loses={"worked_call_to_the_cent"},
    ),
    Mutant(
        name="record_returns_row",
        bug="record() returns the new row although the spec says it returns None",
        cell="ledger",
        old='"usd_read": cr * rate["in"] * 0.10,\n        })',
        new='"usd_read": cr * rate["in"] * 0.10,\n        })\n        return self.rows[-1]',
        loses={"worked_call_to_the_cent"},
    ),
    Mutant(
        name="hit_rate_rounded",
        bug="cache_hit_rate() rounds to 3 places itself; only where_the_money_went rounds",
        cell="ledger",
        old="return read / seen if seen else 0.0",
        new="return round(read / seen, 3) if seen else 0.0",
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="by_label_ms_overwritten",
        bug="by_label keeps the last row's ms instead of summing the label's ms",
        cell="ledger",
        old='agg["ms"] += r["ms"]',
        new='agg["ms"] = r["ms"]',
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="empty_ledger_divides_by_zero",
        bug="where_the_money_went divides by a zero total on an empty ledger",
        cell="ledger",
        old='return round(sum(r[column] for r in self.rows) / total, 3) if total else 0.0',
        new='return round(sum(r[column] for r in self.rows) / total, 3)',
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="accounted_ms_in_seconds",
        bug="accounted records perf_counter seconds in the ms column (no x 1,000)",
        cell="decorators",
        old="ledger.record(label, model, reply.usage, (time.perf_counter() - start) * 1000)",
        new="ledger.record(label, model, reply.usage, time.perf_counter() - start)",
        loses={"retries_each_charged"},
    ),
    Mutant(
        name="stream_ms_in_seconds",
        bug="accounted_stream records perf_counter seconds in the ms column (no x 1,000)",
        cell="decorators",
        old="ledger.record(label, model, final.usage, (time.perf_counter() - start) * 1000)",
        new="ledger.record(label, model, final.usage, time.perf_counter() - start)",
        loses={"streamed_output_recorded"},
    ),
    Mutant(
        name="accounted_returns_copy",
        bug="accounted returns a copy of the message instead of the message unchanged",
        cell="decorators",
        old="            return reply\n",
        new="            return reply.model_copy()\n",
        loses={"retries_each_charged"},
    ),
    Mutant(
        name="unknown_model_free",
        bug="a model not in PRICE is priced at $0 instead of raising KeyError, hiding its spend",
        cell="ledger",
        old="rate = PRICE[model]",
        new='rate = PRICE.get(model, {"in": 0.0, "out": 0.0})',
        loses={"worked_call_to_the_cent"},
    ),
    Mutant(
        name="ms_rounded",
        bug="ms rounded to whole milliseconds before it is stored, so 7.25 ms is kept as 7.0",
        cell="ledger",
        old='"ms": float(ms),',
        new='"ms": float(round(ms)),',
        loses={"worked_call_to_the_cent"},
    ),
    Mutant(
        name="total_fails_when_empty",
        bug="total() folds the rows with reduce and no start value: an empty ledger raises "
            "TypeError instead of giving 0.0",
        cell="ledger",
        old='return sum(r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"] '
            'for r in self.rows)',
        new='return functools.reduce(lambda a, b: a + b, (r["usd_in"] + r["usd_out"] + '
            'r["usd_write"] + r["usd_read"] for r in self.rows))',
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="by_label_none_when_empty",
        bug="by_label() of an empty ledger returns None instead of {}",
        cell="ledger",
        old="return dict(out)",
        new="return dict(out) or None",
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="shares_rounded_to_2",
        bug="where_the_money_went rounds each share to 2 places instead of 3",
        cell="ledger",
        old="return round(sum(r[column] for r in self.rows) / total, 3) if total else 0.0",
        new="return round(sum(r[column] for r in self.rows) / total, 2) if total else 0.0",
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="total_rounded_to_cents",
        bug="where_the_money_went rounds total_usd to the cent instead of 4 places",
        cell="ledger",
        old='"total_usd": round(total, 4),',
        new='"total_usd": round(total, 2),',
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="price_per_mtok",
        bug="PRICE holds dollars per million tokens and record divides by a million: the "
            "costs are right but PRICE is not USD per token, as the notebook says",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-opus-5": {"in": 5, "out": 25},\n'
            '    "claude-sonnet-5": {"in": 2, "out": 10},\n'
            '    "claude-haiku-4-5": {"in": 1, "out": 5},',
        patches=(("ledger", "rate = PRICE[model]",
                  "rate = {k: v / 1_000_000 for k, v in PRICE[model].items()}"),),
        loses={"worked_call_to_the_cent"},
    ),
]
MUTANTS += [
    Mutant(
        name="rows_newest_first",
        bug="record puts each new row first (rows.insert(0, ...)), so rows run newest first, "
            "not in the order the calls were recorded",
        cell="ledger",
        old="self.rows.append({",
        new="self.rows.insert(0, {",
        loses={"retries_each_charged"},
    ),
    Mutant(
        name="total_drops_cache_reads",
        bug="total() sums three of the four terms: cache reads are left out",
        cell="ledger",
        old='return sum(r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"] for r in '
            "self.rows)",
        new='return sum(r["usd_in"] + r["usd_out"] + r["usd_write"] for r in self.rows)',
        loses={"worked_call_to_the_cent", "shares_and_hit_rate"},
    ),
    Mutant(
        name="hit_rate_ignores_writes",
        bug="cache_hit_rate() leaves cache writes out of the denominator: read / (read + "
            "uncached)",
        cell="ledger",
        old='r["cache_read"] + r["cache_write"] + r["in"]',
        new='r["cache_read"] + r["in"]',
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="hit_rate_empty_divides_by_zero",
        bug="cache_hit_rate() of an empty ledger divides by zero instead of giving 0.0",
        cell="ledger",
        old="return read / seen if seen else 0.0",
        new="return read / seen",
        loses={"shares_and_hit_rate"},
    ),
    Mutant(
        name="instrument_key_misspelt",
        bug='instrument returns the summarisation site under "summary", not "summarize"',
        cell="instrument",
        old='"summarize": accounted(',
        new='"summary": accounted(',
        loses={"every_call_site_recorded"},
    ),
]
