"""Blind samples for lab03_budget: written from the release notebook alone."""

from course.grading.proofs.blind import Blind


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"blind edit target occurs {found} times, not once: {old!r}")
        source = source.replace(old, new)
    return source


# The obvious solution, two cells; every bug below edits ONE deviation into one of them.
PRICE = r'''PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
'''

BUDGET = r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model]."""
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        uncached = usage.input_tokens
        cost = (uncached * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * CACHE_WRITE
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%."""
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge."""
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"Budget note: ${self.spent:.2f} of your ${self.limit:.2f} budget is spent. "
                    "Wrap up now and answer with what you have.")
        return None
'''

# PRICE built from the per-MTok table; the ledger keeps one entry per reply and derives
# spent and by_model from it; state walks a threshold table.
PRICE_TABLE = r'''PER_MTOK = {  # USD per million tokens: (input, output)
    "claude-opus-5": (5.00, 25.00),
    "claude-sonnet-5": (2.00, 10.00),
    "claude-haiku-4-5": (1.00, 5.00),
}
PRICE = {model: {"in": i / 1_000_000, "out": o / 1_000_000}
         for model, (i, o) in PER_MTOK.items()}
CACHE_WRITE = 1.25  # a cache write bills 1.25x the input rate
CACHE_READ = 0.10   # a cache read bills 0.10x the input rate
'''

BUDGET_ENTRIES = r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


LEVELS = ((1, "stop"), (0.8, "warn"))  # highest first: the first share it reaches wins


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        self.limit = float(limit_usd)
        self.entries = []          # (model, dollars), one per charged reply
        self.note_sent = False

    @property
    def spent(self):
        total = 0.0
        for _model, dollars in self.entries:
            total += dollars
        return total

    @property
    def by_model(self):
        out = {}
        for model, dollars in self.entries:
            out[model] = out.get(model, 0.0) + dollars
        return out

    def charge(self, model, usage):
        if model not in PRICE:
            raise KeyError(f"no price for model {model!r}: add it to PRICE before billing it")
        rate_in, rate_out = PRICE[model]["in"], PRICE[model]["out"]
        terms = [
            (usage.input_tokens, rate_in),
            (usage.output_tokens, rate_out),
            (usage.cache_creation_input_tokens or 0, rate_in * CACHE_WRITE),
            (usage.cache_read_input_tokens or 0, rate_in * CACHE_READ),
        ]
        cost = sum(tokens * rate for tokens, rate in terms)
        self.entries.append((model, cost))
        return cost

    @property
    def state(self):
        share = round(self.spent / self.limit, 9)
        for floor, name in LEVELS:
            if share >= floor:
                return name
        return "ok"

    def guard(self):
        now = self.state
        if now == "stop":
            raise BudgetExceeded(
                f"budget of ${self.limit:.2f} exhausted (${self.spent:.4f} spent)")
        if now != "warn" or self.note_sent:
            return None
        self.note_sent = True
        return ("You have used 80% of this run's budget: finish the current step and write "
                "your answer now.")
'''

# A per-model defaultdict and a dict of handlers per state.
BUDGET_HANDLERS = r'''from collections import defaultdict


class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = defaultdict(float)
        self._warnings_left = 1

    def charge(self, model, usage):
        rate = PRICE[model]  # KeyError for a model with no price
        input_rate = rate["in"]
        cost = usage.input_tokens * input_rate
        cost += usage.output_tokens * rate["out"]
        if usage.cache_creation_input_tokens is not None:
            cost += usage.cache_creation_input_tokens * input_rate * CACHE_WRITE
        if usage.cache_read_input_tokens is not None:
            cost += usage.cache_read_input_tokens * input_rate * CACHE_READ
        self.spent += cost
        self.by_model[model] += cost
        return cost

    @property
    def state(self):
        share = round(self.spent / self.limit, 9)
        return "stop" if share >= 1 else "warn" if share >= 0.8 else "ok"

    def _stop(self):
        raise BudgetExceeded(f"hard stop: ${self.spent:.4f} spent, limit ${self.limit:.2f}")

    def _warn(self):
        if self._warnings_left == 0:
            return None
        self._warnings_left -= 1
        return f"Budget warning: {self.spent / self.limit:.0%} of the budget is spent; wrap up."

    def guard(self):
        handler = {"stop": self._stop, "warn": self._warn}.get(self.state)
        return handler() if handler is not None else None
'''

BLIND = [
    Blind(
        name="input_tokens_minus_cache",
        bug="input_tokens is taken as the whole prompt and the cache writes and reads are "
            "subtracted from it, though the notebook's input_tokens are already the "
            "uncached input",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "uncached = usage.input_tokens\n",
            "uncached = usage.input_tokens - written - read\n"))},
    ),
    Blind(
        name="cache_read_as_discount",
        bug="the 0.10 cache-read multiplier is applied as a 10% discount, reads billed at "
            "(1 - 0.10) = 0.90x the input rate instead of 0.10x",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            'read * rate["in"] * CACHE_READ', 'read * rate["in"] * (1 - CACHE_READ)'))},
    ),
    Blind(
        name="none_cache_fields_crash",
        bug="the cache fields are read with getattr(..., 0), whose default does not cover a "
            "field that is present but None, so a reply with None cache fields raises "
            "TypeError instead of counting 0",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "        written = usage.cache_creation_input_tokens or 0\n"
            "        read = usage.cache_read_input_tokens or 0\n",
            "        written = getattr(usage, \"cache_creation_input_tokens\", 0)\n"
            "        read = getattr(usage, \"cache_read_input_tokens\", 0)\n"))},
    ),
    Blind(
        name="price_per_mtok",
        bug="PRICE holds dollars per MILLION tokens and charge divides by 1e6, instead of "
            "PRICE in dollars per token as the notebook asks",
        cells={
            "price": r'''PRICE = {
    "claude-opus-5": {"in": 5.00, "out": 25.00},
    "claude-sonnet-5": {"in": 2.00, "out": 10.00},
    "claude-haiku-4-5": {"in": 1.00, "out": 5.00},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            "budget": _patch(BUDGET, (
                "        self.spent += cost\n",
                "        cost = cost / 1_000_000\n        self.spent += cost\n")),
        },
    ),
    Blind(
        name="one_hour_writes_at_2x",
        bug="cache writes with a 1-hour TTL (usage.cache_creation.ephemeral_1h_input_tokens) "
            "are billed at 2x the input rate, though the notebook says Lab 3 prices every "
            "write at the 5-minute rate, 1.25x",
        cells={"price": PRICE, "budget": _patch(
            BUDGET,
            ("        uncached = usage.input_tokens\n",
             "        detail = getattr(usage, \"cache_creation\", None)\n"
             "        hour = (detail.ephemeral_1h_input_tokens or 0) if detail is not None else 0\n"
             "        uncached = usage.input_tokens\n"),
            ('                + written * rate["in"] * CACHE_WRITE\n',
             '                + (written - hour) * rate["in"] * CACHE_WRITE\n'
             '                + hour * rate["in"] * 2.0  # 1-hour writes bill 2x\n'),
        )},
    ),
    Blind(
        name="unknown_model_billed_zero",
        bug="a model missing from PRICE is billed at $0 via PRICE.get instead of raising "
            "KeyError",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "rate = PRICE[model]", 'rate = PRICE.get(model, {"in": 0.0, "out": 0.0})'))},
    ),
    Blind(
        name="share_not_rounded",
        bug="state compares the raw spent / limit, not rounded to 9 decimals, so exactly 80% "
            "computed as 0.7999999999999999 reads 'ok' (and exactly the limit may not stop)",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "share = round(self.spent / self.limit, 9)", "share = self.spent / self.limit"))},
    ),
    Blind(
        name="warn_strictly_above_80",
        bug="'warn' starts strictly above 80% (share > 0.8), so exactly 80% is still 'ok'",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "if share >= 0.8:", "if share > 0.8:"))},
    ),
    Blind(
        name="spend_rounded_to_cents",
        bug="spent is rounded to whole cents before the share is taken, so a spend just "
            "under a boundary (e.g. $0.0796 of $0.10) is moved onto it",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "share = round(self.spent / self.limit, 9)",
            "share = round(round(self.spent, 2) / self.limit, 9)"))},
    ),
    Blind(
        name="by_model_shared_between_budgets",
        bug="by_model is a class attribute, one dict shared by every Budget, so a new budget "
            "starts with the models charged by earlier ones and by_model no longer sums to "
            "its own spent",
        cells={"price": PRICE, "budget": _patch(
            BUDGET,
            ('    """The ledger of one agent run: charge every reply, then ask guard() what '
             'to do."""\n',
             '    """The ledger of one agent run: charge every reply, then ask guard() what '
             'to do."""\n\n    by_model = {}\n'),
            ("        self.by_model = {}\n", ""),
        )},
    ),
    Blind(
        name="by_model_overwritten",
        bug="by_model[model] is set to the latest reply's cost instead of adding to it, so "
            "with several calls per model it does not sum to spent",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "self.by_model[model] = self.by_model.get(model, 0.0) + cost",
            "self.by_model[model] = cost"))},
    ),
    Blind(
        name="charge_returns_running_total",
        bug="charge returns the running total (spent) instead of this reply's cost",
        cells={"price": PRICE, "budget": _patch(BUDGET, (
            "        return cost\n", "        return self.spent\n"))},
    ),
    Blind(
        name="note_before_stop",
        bug="guard checks for the unsent wrap-up note before the stop, so a run whose first "
            "guard() call is already past the limit gets a note instead of BudgetExceeded",
        cells={"price": PRICE, "budget": _patch(
            BUDGET,
            ('        if state == "stop":\n'
             '            raise BudgetExceeded(f"spent ${self.spent:.4f} of the '
             '${self.limit:.2f} budget")\n'
             '        if state == "warn" and not self.warned:\n',
             '        if state in ("warn", "stop") and not self.warned:\n'),
            ("        return None\n",
             '        if state == "stop":\n'
             '            raise BudgetExceeded(f"spent ${self.spent:.4f} of the '
             '${self.limit:.2f} budget")\n'
             "        return None\n"),
        )},
    ),
    Blind(
        name="entries_ledger_threshold_table",
        bug="correct: PRICE built from a per-MTok table; spent and by_model derived from a "
            "list of per-reply entries; state walks a threshold table",
        cells={"price": PRICE_TABLE, "budget": BUDGET_ENTRIES},
        correct=True,
    ),
    Blind(
        name="defaultdict_state_handlers",
        bug="correct: by_model a defaultdict(float), None cache fields skipped with explicit "
            "checks, and guard dispatching on a dict of per-state handlers",
        cells={"price": PRICE, "budget": BUDGET_HANDLERS},
        correct=True,
    ),
]


# Round four: written from the release notebook of 2026-12-06 (after its rules were
# mapped) alone, told to write the mistakes a student would make, not edits of an answer.
BLIND += [
    Blind(
        'r4_price_per_mtok',
        "PRICE keeps the table's dollars per MTok (5, 25, ...) and charge divides by a million; the Implement section says PRICE holds dollars per TOKEN under 'in' and 'out'",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
MTOK = 1_000_000
PRICE = {
    "claude-opus-5": {"in": 5.00, "out": 25.00},      # $ per MTok, as on the pricing page
    "claude-sonnet-5": {"in": 2.00, "out": 10.00},
    "claude-haiku-4-5": {"in": 1.00, "out": 5.00},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        tokens_at_in_rate = usage.input_tokens + written * CACHE_WRITE + read * CACHE_READ
        cost = (tokens_at_in_rate * rate["in"] + usage.output_tokens * rate["out"]) / MTOK
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_cache_write_as_surcharge',
        'CACHE_WRITE is set to the 0.25 surcharge and charge adds 1 + CACHE_WRITE; the text says CACHE_WRITE and CACHE_READ are the multipliers themselves (1.25 and 0.10), not the surcharge',
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 0.25   # a write costs 25% more than a normal input token
CACHE_READ = 0.10    # a read costs 10% of a normal input token
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * (1 + CACHE_WRITE)
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_one_hour_write_at_2x',
        'charge reads usage.cache_creation and bills the 1-hour part of the writes at 2x the input rate; the text says Lab 3 prices EVERY write at 1.25x, whatever cache_creation says about its TTL',
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        # the API bills 1-hour writes at 2x: split the writes by their time to live
        one_hour = 0
        split = getattr(usage, "cache_creation", None)
        if split is not None:
            one_hour = split.ephemeral_1h_input_tokens or 0
        five_min = written - one_hour
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + five_min * rate["in"] * CACHE_WRITE
                + one_hour * rate["in"] * 2.0
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_none_means_no_cache',
        "charge reads a None cache field as 'caching was off for this call' and then prices only input and output, dropping the other cache field even when it has tokens; the text says a cache field of None counts as zero (and the other terms are still billed)",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        cost = usage.input_tokens * rate["in"] + usage.output_tokens * rate["out"]
        written = usage.cache_creation_input_tokens
        read = usage.cache_read_input_tokens
        if written is not None and read is not None:     # None: this call did not use the cache
            cost += written * rate["in"] * CACHE_WRITE + read * rate["in"] * CACHE_READ
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_state_compares_raw_dollars',
        "state compares spent against 0.8 * limit and limit in raw floats, without the rounded share; the text says compare share = round(spent / limit, 9), so exactly 80% (0.7999999999999999) must read 'warn'",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * CACHE_WRITE
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        if self.spent >= self.limit:
            return "stop"
        if self.spent >= 0.8 * self.limit:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_note_used_up_in_ok',
        "guard marks the note as sent on its very first call, whatever the state, so a call in 'ok' uses it up; the text says earlier calls in 'ok' return None and do NOT use it up",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * CACHE_WRITE
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        first_call = not self.warned
        self.warned = True
        if state == "warn" and first_call:
            return "You are close to your budget: wrap up and report what you have."
        return None
''',
        },
    ),
    Blind(
        'r4_note_sent_silences_stop',
        "guard returns None as soon as the note has gone out, before it looks at the state, so a run that passed 80% never raises at 100%; the text says once the state is 'stop', guard raises whether or not the note went out",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * CACHE_WRITE
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] = self.by_model.get(model, 0.0) + cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        if self.warned:
            return None          # the model has been told already
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn":
            self.warned = True
            return "You have used 80% of your budget: wrap up now."
        return None
''',
        },
    ),
    Blind(
        'r4_unknown_model_leaves_entry',
        'charge creates by_model[model] with setdefault before looking the price up, so an unknown model raises KeyError but leaves a 0.0 entry behind; the text says it raises and books nothing: .by_model stays as it was',
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = {}
        self.warned = False

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        self.by_model.setdefault(model, 0.0)
        rate = PRICE[model]
        written = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = (usage.input_tokens * rate["in"]
                + usage.output_tokens * rate["out"]
                + written * rate["in"] * CACHE_WRITE
                + read * rate["in"] * CACHE_READ)
        self.spent += cost
        self.by_model[model] += cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        if share >= 1:
            return "stop"
        if share >= 0.8:
            return "warn"
        return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        state = self.state
        if state == "stop":
            raise BudgetExceeded(f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget")
        if state == "warn" and not self.warned:
            self.warned = True
            return (f"You have used {self.spent / self.limit:.0%} of your budget: wrap up now "
                    "and report what is done and what is missing.")
        return None
''',
        },
    ),
    Blind(
        'r4_table_driven_ledger',
        'correct: PRICE built by a comprehension from a per-MTok table; charge sums (tokens, multiplier) pairs; state walks a threshold table; by_model is a defaultdict(float) only touched after the price lookup; the note is remembered as a set of sent states',
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
_PER_MTOK = (("claude-opus-5", 5, 25), ("claude-sonnet-5", 2, 10), ("claude-haiku-4-5", 1, 5))
PRICE = {name: {"in": i / 1e6, "out": o / 1e6} for name, i, o in _PER_MTOK}
CACHE_WRITE, CACHE_READ = 1.25, 0.10
''',
            'budget': r'''from collections import defaultdict


class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    _LINES = ((1.0, "stop"), (0.8, "warn"))

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.spent = 0.0
        self.by_model = defaultdict(float)
        self._sent = set()

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        if model not in PRICE:
            raise KeyError(f"no price for model {model!r}")
        rin, rout = PRICE[model]["in"], PRICE[model]["out"]
        terms = [
            (usage.input_tokens, rin),
            (usage.output_tokens, rout),
            (usage.cache_creation_input_tokens, rin * CACHE_WRITE),
            (usage.cache_read_input_tokens, rin * CACHE_READ),
        ]
        cost = sum((n or 0) * rate for n, rate in terms)
        self.spent += cost
        self.by_model[model] += cost
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        return next((name for line, name in self._LINES if share >= line), "ok")

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        now = self.state
        if now == "stop":
            raise BudgetExceeded(f"budget of ${self.limit:.2f} spent (${self.spent:.4f})")
        if now != "warn" or now in self._sent:
            return None
        self._sent.add(now)
        return "Budget nearly spent: finish the current step and write your summary."
''',
        },
        correct=True,
    ),
    Blind(
        'r4_ledger_of_entries',
        "correct: every charge is appended to a list of (model, cost) entries; .spent and .by_model are properties recomputed from that list with math.fsum, state uses match on the rounded share, and the note is a counter that only the first 'warn' call increments",
        {
            'price': r'''# PRICE[model] = {"in": USD per input token, "out": USD per output token}, for
# claude-opus-5, claude-sonnet-5 and claude-haiku-4-5. Per token, not per MTok:
# $5/MTok is 5 / 1_000_000 dollars per token. Also define CACHE_WRITE and CACHE_READ, the
# multipliers of the input rate for a cache write and a cache read.
PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
CACHE_WRITE = 1.25
CACHE_READ = 0.10
''',
            'budget': r'''import math


class BudgetExceeded(RuntimeError):
    """The hard stop: this run has spent its whole limit."""


class Budget:
    """The ledger of one agent run: charge every reply, then ask guard() what to do."""

    def __init__(self, limit_usd):
        """limit_usd -- the most this run may spend, in dollars (kept as the float .limit)."""
        self.limit = float(limit_usd)
        self.entries = []          # (model, dollars), one per charged reply
        self.notes_sent = 0

    @property
    def spent(self):
        return math.fsum(cost for _, cost in self.entries)

    @property
    def by_model(self):
        books = {}
        for model in dict.fromkeys(m for m, _ in self.entries):
            books[model] = math.fsum(c for m, c in self.entries if m == model)
        return books

    def charge(self, model, usage):
        """Price one reply's usage at PRICE[model]; add it to .spent and .by_model[model].

        Four terms: uncached input, output, cache writes (1.25x the input rate) and cache
        reads (0.10x the input rate). A cache field that is None counts as 0.
        Returns this call's cost in dollars (not the total so far), unrounded. Books every
        reply, even past the limit. A model not in PRICE raises KeyError and books nothing.
        """
        price = PRICE[model]
        cached_in = (CACHE_WRITE * (usage.cache_creation_input_tokens or 0)
                     + CACHE_READ * (usage.cache_read_input_tokens or 0))
        cost = ((usage.input_tokens + cached_in) * price["in"]
                + usage.output_tokens * price["out"])
        self.entries.append((model, cost))
        return cost

    @property
    def state(self):
        """'ok' below 80% of the limit, 'warn' from 80%, 'stop' from 100%.

        Compare share = round(spent / limit, 9): 'stop' if share >= 1, 'warn' if >= 0.8.
        """
        share = round(self.spent / self.limit, 9)
        match share:
            case s if s >= 1:
                return "stop"
            case s if s >= 0.8:
                return "warn"
            case _:
                return "ok"

    def guard(self):
        """What the loop should do now; call it after each charge.

        'stop': raise BudgetExceeded, on every call. 'warn': return a wrap-up note for the
        model (a sentence that mentions the budget), the first time only. Otherwise, and on
        every later call in 'warn', return None.
        """
        match self.state:
            case "stop":
                raise BudgetExceeded(f"${self.spent:.4f} spent of a ${self.limit:.2f} limit")
            case "warn" if self.notes_sent == 0:
                self.notes_sent += 1
                return (f"Note: {self.spent / self.limit:.0%} of this run's budget is spent. "
                        "Wrap up with what you have.")
            case _:
                return None
''',
        },
        correct=True,
    ),
]
