"""Lab 3 mutants: the budget bugs of seed 001 exercise 3 (the arithmetic, the two signals, the
per-model attribution)."""

from course.grading.proofs.mutation import Mutant

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

# Bugs a student writes from the release text alone; each is caught by a visible check.
# _TERMS: the four priced terms of charge, as the solution writes them.
_TERMS = ('(usage.input_tokens, rate["in"]),\n'
          '            (usage.output_tokens, rate["out"]),\n'
          '            (usage.cache_creation_input_tokens, rate["in"] * CACHE_WRITE),\n'
          '            (usage.cache_read_input_tokens, rate["in"] * CACHE_READ),')

MUTANTS += [
    Mutant(
        name="price_per_mtok",
        bug="PRICE holds the table's dollars per million tokens and charge divides by a "
            "million: the costs are right but PRICE is not in dollars per token",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-opus-5": {"in": 5, "out": 25},\n'
            '    "claude-sonnet-5": {"in": 2, "out": 10},\n'
            '    "claude-haiku-4-5": {"in": 1, "out": 5},',
        patches=(("budget", "sum((count or 0) * per_token for count, per_token in priced)",
                  "sum((count or 0) * per_token for count, per_token in priced) / 1_000_000"),),
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="haiku_old_price",
        bug="claude-haiku-4-5 priced at $0.80/$4 per MTok, an older Haiku's rate, instead of "
            "the $1/$5 in the table",
        cell="price",
        old='"claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-haiku-4-5": {"in": 0.80 / 1_000_000, "out": 4 / 1_000_000},',
        loses={"four_terms_to_the_cent", "warning_fires_once", "hard_stop_partial_report"},
    ),
    Mutant(
        name="price_keys_input_output",
        bug="PRICE keyed 'input'/'output' instead of the 'in'/'out' the spec names; charge "
            "reads the same keys, so only PRICE itself is wrong",
        cell="price",
        old='"claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},',
        new='"claude-opus-5": {"input": 5 / 1_000_000, "output": 25 / 1_000_000},\n'
            '    "claude-sonnet-5": {"input": 2 / 1_000_000, "output": 10 / 1_000_000},\n'
            '    "claude-haiku-4-5": {"input": 1 / 1_000_000, "output": 5 / 1_000_000},',
        patches=(("budget", _TERMS,
                  _TERMS.replace('"in"]', '"input"]').replace('"out"]', '"output"]')),),
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="one_hour_writes_billed_2x",
        bug="writes made with a 1-hour TTL (usage.cache_creation.ephemeral_1h_input_tokens) "
            "are billed at the API's 2x, though the notebook says Lab 3 prices every write at "
            "1.25x (the round-three blind bug one_hour_writes_at_2x)",
        cell="budget",
        old='            (usage.cache_creation_input_tokens, rate["in"] * CACHE_WRITE),\n',
        new='            (usage.cache_creation_input_tokens, rate["in"] * CACHE_WRITE),\n'
            '            (getattr(usage.cache_creation, "ephemeral_1h_input_tokens", 0),\n'
            '             rate["in"] * (2.0 - CACHE_WRITE)),\n',
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="cache_write_as_surcharge",
        bug="CACHE_WRITE holds the 0.25 surcharge and charge adds 1: the cost is right but "
            "the constant is not the 1.25 multiplier the spec names",
        cell="price",
        old="CACHE_WRITE = 1.25",
        new="CACHE_WRITE = 0.25",
        patches=(("budget", 'rate["in"] * CACHE_WRITE)', 'rate["in"] * (1 + CACHE_WRITE))'),),
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="none_not_counted_as_zero",
        bug="a cache field of None is multiplied as is, so a reply without caching raises "
            "TypeError",
        cell="budget",
        old="sum((count or 0) * per_token",
        new="sum(count * per_token",
        loses={"four_terms_to_the_cent", "warning_fires_once", "hard_stop_partial_report",
               "quadratic_growth", "tail_row_a93"},
    ),
    Mutant(
        name="none_drops_both_cache_terms",
        bug="a None cache field is read as 'no caching on this call', so both cache terms are "
            "dropped unless both fields are set (the round-four blind bug "
            "r4_none_means_no_cache, which passed Validate)",
        cell="budget",
        old="cost = sum((count or 0) * per_token for count, per_token in priced)",
        new="if None in (usage.cache_creation_input_tokens, usage.cache_read_input_tokens):\n"
            "            priced = priced[:2]\n"
            "        cost = sum((count or 0) * per_token for count, per_token in priced)",
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="input_minus_cache",
        bug="the cache tokens are taken to be part of input_tokens and subtracted from it",
        cell="budget",
        old='(usage.input_tokens, rate["in"]),',
        new='(usage.input_tokens - (usage.cache_creation_input_tokens or 0)'
            ' - (usage.cache_read_input_tokens or 0), rate["in"]),',
        loses={"four_terms_to_the_cent", "hard_stop_partial_report"},
    ),
    Mutant(
        name="cost_rounded_to_cents",
        bug="each call's cost is rounded to the cent before it is booked",
        cell="budget",
        old="cost = sum((count or 0) * per_token for count, per_token in priced)",
        new="cost = round(sum((count or 0) * per_token for count, per_token in priced), 2)",
        loses={"four_terms_to_the_cent", "warning_fires_once", "quadratic_growth"},
    ),
    Mutant(
        name="returns_running_total",
        bug="charge returns .spent, the total so far, instead of this call's cost",
        cell="budget",
        old="        return cost\n",
        new="        return self.spent\n",
        loses={"four_terms_to_the_cent", "by_model_sums_to_spent"},
    ),
    Mutant(
        name="spent_overwritten",
        bug=".spent is set to the last call's cost instead of adding it",
        cell="budget",
        old="self.spent += cost",
        new="self.spent = cost",
        loses={"four_terms_to_the_cent", "warning_fires_once", "hard_stop_partial_report",
               "by_model_sums_to_spent", "quadratic_growth"},
    ),
    Mutant(
        name="unknown_model_value_error",
        bug="an unknown model raises ValueError instead of the KeyError the spec names",
        cell="budget",
        old="rate = PRICE[model]  #",
        new='if model not in PRICE:\n            raise ValueError(f"no price for {model}")\n'
            "        rate = PRICE[model]  #",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="unknown_model_key_added",
        bug="by_model gets its key before the price is looked up, so an unknown model is left "
            "in the books at $0",
        cell="budget",
        old="rate = PRICE[model]  #",
        new="self.by_model.setdefault(model, 0.0)\n        rate = PRICE[model]  #",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="strict_warn_boundary",
        bug="the warning compares with > where the spec says >=: exactly 80% reads 'ok'",
        cell="budget",
        old='return "warn" if share >= 0.8 else "ok"',
        new='return "warn" if share > 0.8 else "ok"',
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="unrounded_stop_boundary",
        bug="the stop compares raw dollars: 100,000 tokens at $1/MTok is 0.09999999999999999, "
            "so exactly the limit of $0.10 does not stop",
        cell="budget",
        old="if share >= 1:",
        new="if self.spent >= self.limit:",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="share_rounded_to_2",
        bug="the share is rounded to 2 decimals instead of 9, so 79.9% already reads 'warn'",
        cell="budget",
        old="share = round(self.spent / self.limit, 9)",
        new="share = round(self.spent / self.limit, 2)",
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="thresholds_in_dollars",
        bug="the thresholds are compared with the dollars spent, not the share of the limit: "
            "only a $1.00 limit works",
        cell="budget",
        old="share = round(self.spent / self.limit, 9)",
        new="share = round(self.spent, 9)",
        loses={"warning_fires_once", "hard_stop_partial_report", "quadratic_growth"},
    ),
    Mutant(
        name="warn_checked_before_stop",
        bug="state tests the 80% line first, so a spend past the limit still reads 'warn'",
        cell="budget",
        old='if share >= 1:\n            return "stop"\n'
            '        return "warn" if share >= 0.8 else "ok"',
        new='if share >= 0.8:\n            return "warn"\n'
            '        return "stop" if share >= 1 else "ok"',
        loses={"hard_stop_partial_report", "tail_row_a93"},
    ),
    Mutant(
        name="spent_set_lazily",
        bug=".spent is first set by charge, so a new Budget has no .spent and no state",
        cell="budget",
        old="        self.spent = 0.0\n",
        new="",
        patches=(("budget", "self.spent += cost",
                  'self.spent = getattr(self, "spent", 0.0) + cost'),),
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="limit_kept_as_given",
        bug=".limit keeps the argument as passed, so Budget(2).limit is the int 2, not a float",
        cell="budget",
        old="self.limit = float(limit_usd)",
        new="self.limit = limit_usd",
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="note_without_budget",
        bug="the wrap-up note never mentions the budget, so the model cannot tell why to stop",
        cell="budget",
        old='return (f"Budget note: ${self.spent:.2f} of your ${self.limit:.2f} budget is spent. "',
        new='return ("Time to wrap up. "',
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="empty_string_not_none",
        bug="guard returns '' instead of None when there is nothing to say",
        cell="budget",
        old="            \"finish, say exactly what remains.\")\n        return None",
        new="            \"finish, say exactly what remains.\")\n        return \"\"",
        loses={"warning_fires_once", "hard_stop_partial_report"},
    ),
    Mutant(
        name="note_used_up_in_ok",
        bug="the warned flag is set on the first guard call, even in 'ok', so the note never "
            "goes out",
        cell="budget",
        old='        if level == "warn" and not self.warned:\n            self.warned = True\n',
        new='        first, self.warned = not self.warned, True\n'
            '        if level == "warn" and first:\n',
        loses={"warning_fires_once"},
    ),
    Mutant(
        name="warned_flag_silences_stop",
        bug="guard returns None as soon as the note has gone out, so a run that was warned "
            "is never stopped",
        cell="budget",
        old="        level = self.state\n",
        new="        if self.warned:\n            return None\n        level = self.state\n",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="stop_raises_once",
        bug="guard raises BudgetExceeded the first time only, then returns None",
        cell="budget",
        old='        if level == "stop":\n            raise',
        new='        if level == "stop" and not getattr(self, "stopped", False):\n'
            "            self.stopped = True\n            raise",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="stop_raises_runtime_error",
        bug="guard raises a plain RuntimeError instead of BudgetExceeded, which the loop does "
            "not catch",
        cell="budget",
        old="raise BudgetExceeded(",
        new="raise RuntimeError(",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="note_before_stop",
        bug="guard sends the unsent note before it checks the stop, so a run that jumps past "
            "the limit gets a note instead of a stop",
        cell="budget",
        old='if level == "warn" and not self.warned:',
        new='if level in ("warn", "stop") and not self.warned:',
        patches=(("budget", 'if level == "stop":', 'if level == "stop" and self.warned:'),),
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="charge_refuses_when_stopped",
        bug="charge raises BudgetExceeded once the budget is stopped, so a reply the API "
            "already billed is never booked",
        cell="budget",
        old="rate = PRICE[model]  #",
        new='if self.state == "stop":\n            raise BudgetExceeded("over budget")\n'
            "        rate = PRICE[model]  #",
        loses={"hard_stop_partial_report"},
    ),
    Mutant(
        name="by_model_overwritten",
        bug="by_model keeps only the last call of each model instead of adding them up",
        cell="budget",
        old="self.by_model[model] = self.by_model.get(model, 0.0) + cost",
        new="self.by_model[model] = cost",
        loses={"by_model_sums_to_spent"},
    ),
    Mutant(
        name="by_model_shared",
        bug="by_model is one dict on the class, so every Budget shares the same books",
        cell="budget",
        old="        self.by_model = {}\n",
        new="",
        patches=(("budget", 'class Budget:\n    """The ledger of one agent run: charge every '
                            'reply, then ask guard() what to do."""\n',
                  'class Budget:\n    """The ledger of one agent run: charge every '
                  'reply, then ask guard() what to do."""\n\n    by_model = {}\n'),),
        loses={"by_model_sums_to_spent"},
    ),
]

# The "Implement" paragraph's rules (issue 32): the constants are the multipliers, and charge
# sums all four terms.
MUTANTS += [
    Mutant(
        name="cache_read_as_discount",
        bug="CACHE_READ holds the 0.90 discount and charge takes 1 minus it: the cost is right "
            "but the constant is not the 0.10 multiplier the spec names",
        cell="price",
        old="CACHE_READ = 0.10",
        new="CACHE_READ = 0.90",
        patches=(("budget", 'rate["in"] * CACHE_READ)', 'rate["in"] * (1 - CACHE_READ))'),),
        loses={"four_terms_to_the_cent"},
    ),
    Mutant(
        name="cache_reads_free",
        bug="charge sums three terms: cache reads are taken to be free, so a cached call is "
            "billed less than the API bills it",
        cell="budget",
        old='            (usage.cache_read_input_tokens, rate["in"] * CACHE_READ),\n',
        new="",
        # hard_stop_partial_report's exact-limit case reaches $2.00 through 1M cache reads
        loses={"four_terms_to_the_cent", "hard_stop_partial_report"},
    ),
]
