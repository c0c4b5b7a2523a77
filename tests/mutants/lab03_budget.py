"""Lab 3 mutants: the budget bugs of seed 001 exercise 3 (the arithmetic, the two signals, the
per-model attribution)."""

from course.grading.mutation import Mutant

MUTANTS = [
    Mutant(
        name="cache_reads_full_price",
        bug="seed 001 ex.3: cache reads charged at the full input rate; the seed's $0.82 call "
            "books $1.00 and trips the hard stop",
        cell="budget",
        old='(usage.cache_read_input_tokens, rate["in"] * CACHE_READ)',
        new='(usage.cache_read_input_tokens, rate["in"])',
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="cache_writes_at_1x",
        bug="seed 001 ex.3: cache writes charged at 1x instead of 1.25x the input rate; the "
            "seed's call books $0.795 and the 80% warning never fires",
        cell="budget",
        old='(usage.cache_creation_input_tokens, rate["in"] * CACHE_WRITE)',
        new='(usage.cache_creation_input_tokens, rate["in"])',
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="warning_every_turn",
        bug="seed 001 ex.3 test 2: no warned flag, so the wrap-up note is re-sent on every turn "
            "above 80%",
        cell="budget",
        old='if level == "warn" and not self.warned:',
        new='if level == "warn":',
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="stop_does_not_stop",
        bug="seed 001 ex.3 test 3: the hard stop returns a message instead of raising, so the "
            "loop carries on past the limit",
        cell="budget",
        old="raise BudgetExceeded(",
        new="return (",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="by_model_never_updated",
        bug="seed 001 ex.3 test 5: spend is totalled but never attributed to the model that "
            "made it",
        cell="budget",
        old="self.by_model[model] = self.by_model.get(model, 0.0) + cost",
        new="pass",
        loses={"by_model_sums_to_spent"},
    ),
]
MUTANTS += [
    Mutant(
        name="unrounded_warn_boundary",
        bug="dollars compared without rounding: 800,000 tokens at $1/MTok is "
            "0.7999999999999999, so exactly 80% reads as 'ok' and no note goes out",
        cell="budget",
        old='return "warn" if share >= 0.8 else "ok"',
        new='return "warn" if self.spent >= 0.8 * self.limit else "ok"',
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="strict_stop_boundary",
        bug="the hard stop compares with > where the spec says >=: spending exactly the "
            "limit lets one more call through",
        cell="budget",
        old="if share >= 1:",
        new="if share > 1:",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="unknown_model_free",
        bug="an unknown model is billed at $0 instead of failing loudly",
        cell="budget",
        old="rate = PRICE[model]  # an unknown model fails loudly instead of billing $0",
        new='rate = PRICE.get(model, {"in": 0.0, "out": 0.0})',
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="stale_sonnet_price",
        bug="claude-sonnet-5 priced at $3/$15 per MTok, the rate once announced, instead of "
            "the $2/$10 its model page lists: every Sonnet call books 1.5x its cost",
        cell="price",
        old='"claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},',
        new='"claude-sonnet-5": {"in": 3 / 1_000_000, "out": 15 / 1_000_000},',
        loses={"four_terms_to_the_cent", "warning_fires_once"},
    ),
]
