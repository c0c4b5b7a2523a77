"""Blind samples for lab10_token_accounting: written from the release notebook alone.

The notebook's price for claude-sonnet-5 changed from $3 / $15 to $2 / $10 per MTok after
these were written (its model page's price); the price tables here follow it, nothing else.
"""

from course.grading.proofs.blind import Blind

PRICE_CELL = '''PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
'''

LEDGER_CELL = '''import functools
import time
from collections import defaultdict


class Ledger:
    """Every model call as a row, with the four price terms kept in separate columns."""

    def __init__(self):
        self.rows = []

    def record(self, label, model, usage, ms):
        """Price one call's usage at PRICE[model] and append it as a row. Returns None."""
        rate = PRICE[model]
        uncached = usage.input_tokens or 0
        out = usage.output_tokens or 0
        write = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        self.rows.append({
            "label": label, "model": model, "ms": ms,
            "in": uncached, "out": out, "cache_write": write, "cache_read": read,
            "usd_in": uncached * rate["in"],
            "usd_out": out * rate["out"],
            "usd_write": write * rate["in"] * 1.25,
            "usd_read": read * rate["in"] * 0.10,
        })

    def total(self):
        """Dollars over every row and all four terms."""
        return float(sum(r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"]
                         for r in self.rows))

    def cache_hit_rate(self):
        """sum(cache_read) / sum(cache_read + cache_write + in) over all rows; 0.0 if empty."""
        read = sum(r["cache_read"] for r in self.rows)
        every = sum(r["cache_read"] + r["cache_write"] + r["in"] for r in self.rows)
        return read / every if every else 0.0

    def by_label(self):
        """{label: {"calls": int, "usd": float, "ms": float}}, summed over that label's rows."""
        out = defaultdict(lambda: {"calls": 0, "usd": 0.0, "ms": 0.0})
        for r in self.rows:
            agg = out[r["label"]]
            agg["calls"] += 1
            agg["usd"] += r["usd_in"] + r["usd_out"] + r["usd_write"] + r["usd_read"]
            agg["ms"] += r["ms"]
        return dict(out)

    def where_the_money_went(self):
        """total_usd (4 places), the four shares and cache_hit_rate (3 places); 0.0 if empty."""
        total = self.total()

        def share(column):
            if not total:
                return 0.0
            return round(sum(r[column] for r in self.rows) / total, 3)

        return {
            "total_usd": round(total, 4),
            "share_output": share("usd_out"),
            "share_uncached_input": share("usd_in"),
            "share_cache_write": share("usd_write"),
            "share_cache_read": share("usd_read"),
            "cache_hit_rate": round(self.cache_hit_rate(), 3),
        }
'''

DECORATORS_CELL = '''def accounted(label, model, *, ledger):
    """Decorator: record the usage of the Message the site returns, then return it."""
    def decorate(site):
        @functools.wraps(site)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            message = site(*args, **kwargs)
            ms = (time.perf_counter() - start) * 1000
            ledger.record(label, model, message.usage, ms)
            return message
        return wrapper
    return decorate


def accounted_stream(label, model, *, ledger):
    """Decorator for a site returning client.messages.stream(...): drain the stream, record
    the FINAL message's usage, return the final message."""
    def decorate(site):
        @functools.wraps(site)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            with site(*args, **kwargs) as stream:
                for _event in stream:
                    pass
                final = stream.get_final_message()
            ms = (time.perf_counter() - start) * 1000
            ledger.record(label, model, final.usage, ms)
            return final
        return wrapper
    return decorate
'''

INSTRUMENT_CELL = '''from course.worlds import token_accounting as world


def instrument(ledger):
    """The ticket agent's call sites, each recorded in ledger under its key as label."""
    return {
        "plan": world.retry_truncated(
            accounted("plan", "claude-opus-5", ledger=ledger)(world.plan)),
        "summarize": accounted("summarize", "claude-sonnet-5", ledger=ledger)(world.summarize),
        "answer": accounted_stream("answer", "claude-opus-5", ledger=ledger)(world.answer),
    }
'''

BASE = {"price": PRICE_CELL, "ledger": LEDGER_CELL, "decorators": DECORATORS_CELL,
        "instrument": INSTRUMENT_CELL}


def _bug(name: str, bug: str, *edits: tuple[str, str, str]) -> Blind:
    """A sample that differs from BASE by ``edits``: (cell, old, new), each old found once."""
    cells = dict(BASE)
    for cell, old, new in edits:
        if cells[cell].count(old) != 1:
            raise ValueError(f"{name}: {old!r} must occur exactly once in cell {cell!r}")
        cells[cell] = cells[cell].replace(old, new)
    return Blind(name=name, bug=bug, cells=cells)


BLIND = [
    _bug("price_per_mtok",
         "PRICE holds dollars per MILLION tokens (5.0, 25.0, ...) and record divides by a "
         "million; the notebook says PRICE[model] is USD per token, as in Lab 3",
         ("price", PRICE_CELL, '''PRICE = {
    "claude-opus-5": {"in": 5.00, "out": 25.00},
    "claude-sonnet-5": {"in": 2.00, "out": 10.00},
    "claude-haiku-4-5": {"in": 1.00, "out": 5.00},
}
'''),
         ("ledger", "        rate = PRICE[model]\n",
          "        rate = {k: v / 1_000_000 for k, v in PRICE[model].items()}\n")),
    _bug("write_without_premium",
         "cache writes are billed at the plain input rate; the notebook says 1.25x the input "
         "rate",
         ("ledger", '"usd_write": write * rate["in"] * 1.25,', '"usd_write": write * rate["in"],')),
    _bug("none_cache_fields_crash",
         "the cache fields are used as they come, so a usage whose cache fields are None "
         "raises TypeError; the notebook says a None cache field counts as 0",
         ("ledger", "        write = usage.cache_creation_input_tokens or 0\n"
                    "        read = usage.cache_read_input_tokens or 0\n",
          "        write = usage.cache_creation_input_tokens\n"
          "        read = usage.cache_read_input_tokens\n")),
    _bug("unknown_model_priced_as_opus",
         "a model not in PRICE is priced at the Opus rates instead of raising KeyError",
         ("ledger", "        rate = PRICE[model]\n",
          "        rate = PRICE.get(model, PRICE[\"claude-opus-5\"])\n")),
    _bug("hit_rate_without_writes",
         "cache_hit_rate divides the reads by read + uncached input only; the notebook's "
         "denominator also holds the cache writes",
         ("ledger", 'every = sum(r["cache_read"] + r["cache_write"] + r["in"] for r in self.rows)',
          'every = sum(r["cache_read"] + r["in"] for r in self.rows)')),
    _bug("hit_rate_empty_divides_by_zero",
         "cache_hit_rate on an empty ledger raises ZeroDivisionError instead of returning 0.0",
         ("ledger", "        return read / every if every else 0.0\n",
          "        return read / every\n")),
    _bug("total_rounded_to_3",
         "where_the_money_went rounds total_usd to 3 places like the shares; the notebook says "
         "total_usd is rounded to 4 places",
         ("ledger", '"total_usd": round(total, 4),', '"total_usd": round(total, 3),')),
    _bug("shares_of_tokens",
         "the shares are each term's share of the TOKENS, not of the dollars; the notebook "
         "says each term's dollars over the total",
         ("ledger", '''        def share(column):
            if not total:
                return 0.0
            return round(sum(r[column] for r in self.rows) / total, 3)

        return {
            "total_usd": round(total, 4),
            "share_output": share("usd_out"),
            "share_uncached_input": share("usd_in"),
            "share_cache_write": share("usd_write"),
            "share_cache_read": share("usd_read"),''',
          '''        tokens = sum(r["in"] + r["out"] + r["cache_write"] + r["cache_read"]
                     for r in self.rows)

        def share(column):
            if not tokens:
                return 0.0
            return round(sum(r[column] for r in self.rows) / tokens, 3)

        return {
            "total_usd": round(total, 4),
            "share_output": share("out"),
            "share_uncached_input": share("in"),
            "share_cache_write": share("cache_write"),
            "share_cache_read": share("cache_read"),''')),
    _bug("by_label_mean_ms",
         "by_label reports the MEAN milliseconds per call for a label; the notebook says ms is "
         "summed over that label's rows",
         ("ledger", "        return dict(out)\n",
          "        for agg in out.values():\n"
          "            agg[\"ms\"] = agg[\"ms\"] / agg[\"calls\"]\n"
          "        return dict(out)\n")),
    _bug("elapsed_in_seconds",
         "the decorators record the elapsed time in seconds, not milliseconds",
         ("decorators", "            message = site(*args, **kwargs)\n"
                        "            ms = (time.perf_counter() - start) * 1000\n",
          "            message = site(*args, **kwargs)\n"
          "            ms = time.perf_counter() - start\n"),
         ("decorators", "                final = stream.get_final_message()\n"
                        "            ms = (time.perf_counter() - start) * 1000\n",
          "                final = stream.get_final_message()\n"
          "            ms = time.perf_counter() - start\n")),
    _bug("stream_usage_from_message_start",
         "accounted_stream drains the stream but records the usage carried by the "
         "message_start event (output_tokens is a placeholder 1) instead of the FINAL "
         "message's usage",
         ("decorators", '''                for _event in stream:
                    pass
                final = stream.get_final_message()
            ms = (time.perf_counter() - start) * 1000
            ledger.record(label, model, final.usage, ms)''',
          '''                usage = None
                for event in stream:
                    if event.type == "message_start":
                        usage = event.message.usage
                final = stream.get_final_message()
            ms = (time.perf_counter() - start) * 1000
            ledger.record(label, model, usage, ms)''')),
    _bug("retry_outside_decorator",
         "plan's decorator wraps the whole retry loop, so the cut-off first attempt is never "
         "a row; the notebook says every attempt is a billed call and a row",
         ("instrument", '''        "plan": world.retry_truncated(
            accounted("plan", "claude-opus-5", ledger=ledger)(world.plan)),''',
          '''        "plan": accounted("plan", "claude-opus-5", ledger=ledger)(
            world.retry_truncated(world.plan)),''')),
    _bug("summarize_priced_as_opus",
         "the summarize site is recorded against claude-opus-5; the notebook says summarize "
         "runs on claude-sonnet-5",
         ("instrument", 'accounted("summarize", "claude-sonnet-5", ledger=ledger)',
          'accounted("summarize", "claude-opus-5", ledger=ledger)')),
    Blind(
        name="table_driven_classes",
        bug="correct: PRICE built from a per-MTok table by a comprehension, record driven by a "
            "table of (column, token field, rate, multiplier), decorators written as classes "
            "with __call__, the stream drained with until_done(), by_label with setdefault",
        cells={
            "price": '''PER_MTOK = {"claude-opus-5": (5, 25), "claude-sonnet-5": (2, 10),
            "claude-haiku-4-5": (1, 5)}
PRICE = {model: {"in": i / 1e6, "out": o / 1e6} for model, (i, o) in PER_MTOK.items()}
''',
            "ledger": '''import functools
import time
from collections import defaultdict

TERMS = (
    # (dollar column, token column, usage field, rate, multiplier)
    ("usd_in", "in", "input_tokens", "in", 1.0),
    ("usd_out", "out", "output_tokens", "out", 1.0),
    ("usd_write", "cache_write", "cache_creation_input_tokens", "in", 1.25),
    ("usd_read", "cache_read", "cache_read_input_tokens", "in", 0.10),
)


class Ledger:
    """Every model call as a row, with the four price terms kept in separate columns."""

    def __init__(self):
        self.rows = []

    def record(self, label, model, usage, ms):
        rates = PRICE[model]
        row = {"label": label, "model": model, "ms": ms}
        for usd_col, tok_col, field, rate, mult in TERMS:
            count = getattr(usage, field)
            row[tok_col] = 0 if count is None else count
            row[usd_col] = row[tok_col] * rates[rate] * mult
        self.rows.append(row)

    @staticmethod
    def _usd(row):
        return sum(row[t[0]] for t in TERMS)

    def total(self):
        total = 0.0
        for row in self.rows:
            total += self._usd(row)
        return total

    def cache_hit_rate(self):
        if not self.rows:
            return 0.0
        read = write = uncached = 0
        for row in self.rows:
            read += row["cache_read"]
            write += row["cache_write"]
            uncached += row["in"]
        seen = read + write + uncached
        return read / seen if seen else 0.0

    def by_label(self):
        report = {}
        for row in self.rows:
            agg = report.setdefault(row["label"], {"calls": 0, "usd": 0.0, "ms": 0.0})
            agg["calls"] += 1
            agg["usd"] += self._usd(row)
            agg["ms"] += row["ms"]
        return report

    def where_the_money_went(self):
        total = self.total()
        names = {"usd_out": "share_output", "usd_in": "share_uncached_input",
                 "usd_write": "share_cache_write", "usd_read": "share_cache_read"}
        report = {"total_usd": round(total, 4)}
        for column, key in names.items():
            spent = sum(row[column] for row in self.rows)
            report[key] = round(spent / total, 3) if total > 0 else 0.0
        report["cache_hit_rate"] = round(self.cache_hit_rate(), 3)
        return report
''',
            "decorators": '''class accounted:  # noqa: N801 - used as a decorator factory
    """Decorator: record the usage of the Message the site returns, then return it."""

    def __init__(self, label, model, *, ledger):
        self.label, self.model, self.ledger = label, model, ledger

    def __call__(self, site):
        @functools.wraps(site)
        def timed(*args, **kwargs):
            t0 = time.perf_counter_ns()
            reply = site(*args, **kwargs)
            self.ledger.record(self.label, self.model, reply.usage,
                               (time.perf_counter_ns() - t0) / 1e6)
            return reply
        return timed


class accounted_stream:  # noqa: N801 - used as a decorator factory
    """Decorator for a streamed site: drain, record the final usage, return the message."""

    def __init__(self, label, model, *, ledger):
        self.label, self.model, self.ledger = label, model, ledger

    def __call__(self, site):
        @functools.wraps(site)
        def timed(*args, **kwargs):
            t0 = time.perf_counter_ns()
            manager = site(*args, **kwargs)
            with manager as stream:
                stream.until_done()
                final = stream.get_final_message()
            self.ledger.record(self.label, self.model, final.usage,
                               (time.perf_counter_ns() - t0) / 1e6)
            return final
        return timed
''',
            "instrument": '''from course.worlds import token_accounting as world


def instrument(ledger):
    """The ticket agent's call sites, each recorded in ledger under its key as label."""
    @accounted("plan", "claude-opus-5", ledger=ledger)
    def one_plan_attempt(client, goal, max_tokens=512):
        return world.plan(client, goal, max_tokens=max_tokens)

    sites = {}
    sites["plan"] = world.retry_truncated(one_plan_attempt)
    sites["summarize"] = accounted("summarize", "claude-sonnet-5",
                                   ledger=ledger)(world.summarize)
    sites["answer"] = accounted_stream("answer", "claude-opus-5", ledger=ledger)(world.answer)
    return sites
''',
        },
        correct=True,
    ),
    Blind(
        name="closures_and_final_message",
        bug="correct: the four dollar columns computed in one expression per row, totals via "
            "a per-row helper and dict comprehensions, time.monotonic for the timer, and the "
            "stream drained by get_final_message() itself (it reads the stream to its end)",
        cells={
            "price": '''MTOK = 1_000_000
PRICE = {}
PRICE["claude-opus-5"] = {"in": 5 / MTOK, "out": 25 / MTOK}
PRICE["claude-sonnet-5"] = {"in": 2 / MTOK, "out": 10 / MTOK}
PRICE["claude-haiku-4-5"] = {"in": 1 / MTOK, "out": 5 / MTOK}
''',
            "ledger": '''import functools
import time
from collections import defaultdict


def _count(value):
    return value if value is not None else 0


class Ledger:
    """Every model call as a row, with the four price terms kept in separate columns."""

    def __init__(self):
        self.rows = []

    def record(self, label, model, usage, ms):
        p_in, p_out = PRICE[model]["in"], PRICE[model]["out"]
        i, o = _count(usage.input_tokens), _count(usage.output_tokens)
        w, r = _count(usage.cache_creation_input_tokens), _count(usage.cache_read_input_tokens)
        self.rows.append(dict(label=label, model=model, ms=ms, cache_write=w, cache_read=r,
                              usd_in=i * p_in, usd_out=o * p_out, usd_write=1.25 * w * p_in,
                              usd_read=0.1 * r * p_in, **{"in": i, "out": o}))

    @staticmethod
    def _row_usd(row):
        return row["usd_in"] + row["usd_out"] + row["usd_write"] + row["usd_read"]

    def total(self):
        return sum(map(self._row_usd, self.rows), 0.0)

    def cache_hit_rate(self):
        read = sum(row["cache_read"] for row in self.rows)
        seen = read + sum(row["cache_write"] + row["in"] for row in self.rows)
        return 0.0 if seen == 0 else read / seen

    def by_label(self):
        labels = list(dict.fromkeys(row["label"] for row in self.rows))
        return {lab: {"calls": sum(1 for row in self.rows if row["label"] == lab),
                      "usd": sum(self._row_usd(row) for row in self.rows if row["label"] == lab),
                      "ms": float(sum(row["ms"] for row in self.rows if row["label"] == lab))}
                for lab in labels}

    def where_the_money_went(self):
        total = self.total()
        columns = {"share_output": "usd_out", "share_uncached_input": "usd_in",
                   "share_cache_write": "usd_write", "share_cache_read": "usd_read"}
        shares = {key: (round(sum(row[col] for row in self.rows) / total, 3) if total else 0.0)
                  for key, col in columns.items()}
        return {"total_usd": round(total, 4), **shares,
                "cache_hit_rate": round(self.cache_hit_rate(), 3)}
''',
            "decorators": '''def accounted(label, model, *, ledger):
    """Decorator: record the usage of the Message the site returns, then return it."""
    def decorate(site):
        def call(*args, **kwargs):
            began = time.monotonic()
            reply = site(*args, **kwargs)
            ledger.record(label, model, reply.usage, 1000.0 * (time.monotonic() - began))
            return reply
        return functools.update_wrapper(call, site)
    return decorate


def accounted_stream(label, model, *, ledger):
    """Decorator for a site returning client.messages.stream(...): drain the stream, record
    the FINAL message's usage, return the final message."""
    def decorate(site):
        def call(*args, **kwargs):
            began = time.monotonic()
            with site(*args, **kwargs) as stream:
                final = stream.get_final_message()
            ledger.record(label, model, final.usage, 1000.0 * (time.monotonic() - began))
            return final
        return functools.update_wrapper(call, site)
    return decorate
''',
            "instrument": '''from course.worlds import token_accounting as world

SITES = (("plan", "claude-opus-5"), ("summarize", "claude-sonnet-5"),
         ("answer", "claude-opus-5"))


def instrument(ledger):
    """The ticket agent's call sites, each recorded in ledger under its key as label."""
    wired = {}
    for label, model in SITES:
        if label == "answer":
            wired[label] = accounted_stream(label, model, ledger=ledger)(world.answer)
        elif label == "plan":
            wired[label] = world.retry_truncated(
                accounted(label, model, ledger=ledger)(world.plan))
        else:
            wired[label] = accounted(label, model, ledger=ledger)(getattr(world, label))
    return wired
''',
        },
        correct=True,
    ),
]
