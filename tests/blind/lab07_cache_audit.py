"""Blind samples for lab07_cache_audit: written from the release notebook alone.

Each sample fills all four answer cells. The bugs start from one plain, correct audit
(the ``*_CELL`` templates) and change one stated behaviour with :func:`_patch`.

The notebook's price for claude-sonnet-5 changed from $3 / $15 to $2 / $10 per MTok after
these were written (its model page's price); the price tables here follow it, nothing else.
It was also written before the notebook said a probe is matched as the render writes it
(`json.dumps(probe)[1:-1]`, so a quote or a non-ASCII character is escaped): the two
correct variants' probe filter follows that rule now.
"""

from course.grading.proofs.blind import Blind

PRICE_CELL = r'''PRICE = {
    "claude-opus-5": {"in": 5 / 1_000_000, "out": 25 / 1_000_000},
    "claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000},
    "claude-haiku-4-5": {"in": 1 / 1_000_000, "out": 5 / 1_000_000},
}
'''

CALL_USD_CELL = r'''def call_usd(inp, cw, cr, out, model="claude-opus-5"):
    """Dollars for one call with these token counts, at PRICE[model]."""
    rate = PRICE[model]
    return (inp * rate["in"] + cw * rate["in"] * 1.25 + cr * rate["in"] * 0.10
            + out * rate["out"])
'''

AUDIT_CELL = r'''def audit_caching(build_request, *, client, n=3):
    """Send build_request(f"probe {i}") for i = 0..n-1 and judge the LAST call's cache use."""
    if n < 1:
        raise ValueError(f"n must be at least 1 (one call to measure), got {n}")
    per_call = []
    for i in range(n):
        usage = client.messages.create(**build_request(f"probe {i}")).usage
        per_call.append({
            "uncached_in": usage.input_tokens or 0,
            "cache_write": usage.cache_creation_input_tokens or 0,
            "cache_read": usage.cache_read_input_tokens or 0,
        })
    last = per_call[-1]
    total = last["cache_read"] + last["cache_write"] + last["uncached_in"]
    hit_rate = last["cache_read"] / total if total else 0.0
    if hit_rate > 0.7:
        verdict = "HEALTHY"
    elif hit_rate > 0.1:
        verdict = "WEAK"
    else:
        verdict = "BROKEN"
    return {"per_call": per_call, "hit_rate": hit_rate, "verdict": verdict}
'''

FIND_CELL = r'''import difflib
import json

NO_DIFF = "payloads identical outside the probe: check the prefix length"


def find_invalidator(build_request, probe_a="q1", probe_b="q2"):
    """The lines that differ between the renders of two probes, outside the probe itself."""
    before = json.dumps(build_request(probe_a), indent=2).splitlines()
    after = json.dumps(build_request(probe_b), indent=2).splitlines()
    kept = []
    for line in difflib.unified_diff(before, after, lineterm="", n=0):
        if line.startswith(("---", "+++")) or not line.startswith(("-", "+")):
            continue                      # file headers, hunk headers
        if any(json.dumps(p)[1:-1] in line for p in (probe_a, probe_b)):
            continue                      # the probe itself differs on purpose
        kept.append(line)
    return "\n".join(kept) if kept else NO_DIFF
'''


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"a blind edit expects {old!r} once in its template, found {found}")
        source = source.replace(old, new)
    return source


def _cells(price: str = PRICE_CELL, call_usd: str = CALL_USD_CELL,
           audit_caching: str = AUDIT_CELL, find_invalidator: str = FIND_CELL
           ) -> dict[str, str]:
    """All four answer cells, the correct templates unless overridden."""
    return {"price": price, "call_usd": call_usd, "audit_caching": audit_caching,
            "find_invalidator": find_invalidator}


TABLE_PRICE_CELL = r'''PER_MTOK = {                  # model: (input $/MTok, output $/MTok)
    "claude-opus-5": (5.0, 25.0),
    "claude-sonnet-5": (2.0, 10.0),
    "claude-haiku-4-5": (1.0, 5.0),
}
PRICE = {model: {"in": i / 1e6, "out": o / 1e6} for model, (i, o) in PER_MTOK.items()}
'''

FACTORED_CALL_USD_CELL = r'''WRITE, READ = 1.25, 0.10


def call_usd(inp, cw, cr, out, model="claude-opus-5"):
    """Dollars for one call with these token counts, at PRICE[model]."""
    if model not in PRICE:
        raise KeyError(f"no price for model {model!r}; PRICE knows {sorted(PRICE)}")
    input_units = inp + WRITE * cw + READ * cr
    return PRICE[model]["in"] * input_units + PRICE[model]["out"] * out
'''

TABLE_AUDIT_CELL = r'''VERDICTS = ((0.7, "HEALTHY"), (0.1, "WEAK"))
FIELDS = (("uncached_in", "input_tokens"), ("cache_write", "cache_creation_input_tokens"),
          ("cache_read", "cache_read_input_tokens"))


def audit_caching(build_request, *, client, n=3):
    """Send build_request(f"probe {i}") for i = 0..n-1 and judge the LAST call's cache use."""
    if not n >= 1:
        raise ValueError(f"audit_caching needs n >= 1 calls, got n={n}")
    per_call = []
    i = 0
    while i < n:
        reply = client.messages.create(**build_request(f"probe {i}"))
        per_call.append({ours: int(getattr(reply.usage, theirs) or 0) for ours, theirs in FIELDS})
        i += 1
    read, write, uncached = (per_call[-1][k] for k in ("cache_read", "cache_write", "uncached_in"))
    denominator = read + write + uncached
    hit_rate = 0.0 if denominator == 0 else read / denominator
    verdict = next((name for floor, name in VERDICTS if hit_rate > floor), "BROKEN")
    return {"per_call": per_call, "hit_rate": hit_rate, "verdict": verdict}
'''

OPCODES_FIND_CELL = r'''import difflib
import json

NO_DIFF = "payloads identical outside the probe: check the prefix length"


def find_invalidator(build_request, probe_a="q1", probe_b="q2"):
    """The lines that differ between the renders of two probes, outside the probe itself."""
    renders = []
    for probe in (probe_a, probe_b):
        renders.append(json.dumps(build_request(probe), indent=2).split("\n"))
    a, b = renders
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.extend("-" + line for line in a[i1:i2])
        out.extend("+" + line for line in b[j1:j2])
    shown = [json.dumps(p)[1:-1] for p in (probe_a, probe_b)]
    out = [line for line in out if not any(p in line for p in shown)]
    if not out:
        return NO_DIFF
    return "\n".join(out)
'''

BLIND = [
    Blind(
        name="price_in_dollars_per_mtok",
        bug="PRICE holds dollars per MILLION tokens (5, 25, ...) and call_usd divides by a "
            "million; the totals are right but PRICE is not in USD per token as stated",
        cells=_cells(
            price=r'''PRICE = {
    "claude-opus-5": {"in": 5.0, "out": 25.0},
    "claude-sonnet-5": {"in": 2.0, "out": 10.0},
    "claude-haiku-4-5": {"in": 1.0, "out": 5.0},
}
''',
            call_usd=_patch(
                CALL_USD_CELL,
                ("    rate = PRICE[model]\n",
                 "    rate = {k: v / 1_000_000 for k, v in PRICE[model].items()}\n"))),
    ),
    Blind(
        name="unknown_model_priced_as_opus",
        bug="a model that is not in PRICE is priced at claude-opus-5's rates instead of "
            "raising KeyError",
        cells=_cells(call_usd=_patch(
            CALL_USD_CELL,
            ("rate = PRICE[model]", "rate = PRICE.get(model, PRICE[\"claude-opus-5\"])"))),
    ),
    Blind(
        name="cache_write_at_input_rate",
        bug="tokens written to the cache bill at 1.0x the input rate; the notebook says "
            "1.25x",
        cells=_cells(call_usd=_patch(
            CALL_USD_CELL, ("cw * rate[\"in\"] * 1.25", "cw * rate[\"in\"]"))),
    ),
    Blind(
        name="probes_counted_from_one",
        bug="the questions sent are 'probe 1' .. 'probe n' instead of 'probe 0' .. "
            "'probe n-1'",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL, ("build_request(f\"probe {i}\")).usage",
                         "build_request(f\"probe {i + 1}\")).usage"))),
    ),
    Blind(
        name="none_usage_kept",
        bug="usage fields are read with getattr(usage, name, 0), which only defaults a "
            "MISSING attribute: a field that is None stays None (the notebook: None counts "
            "as 0)",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL,
            ("            \"uncached_in\": usage.input_tokens or 0,\n"
             "            \"cache_write\": usage.cache_creation_input_tokens or 0,\n"
             "            \"cache_read\": usage.cache_read_input_tokens or 0,\n",
             "            \"uncached_in\": getattr(usage, \"input_tokens\", 0),\n"
             "            \"cache_write\": getattr(usage, \"cache_creation_input_tokens\", 0),\n"
             "            \"cache_read\": getattr(usage, \"cache_read_input_tokens\", 0),\n"))),
    ),
    Blind(
        name="zero_usage_divides",
        bug="the hit rate divides without a guard, so a last call whose three input counts "
            "are all 0 raises ZeroDivisionError instead of giving 0.0",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL,
            ("hit_rate = last[\"cache_read\"] / total if total else 0.0",
             "hit_rate = last[\"cache_read\"] / total"))),
    ),
    Blind(
        name="n_zero_not_refused",
        bug="only a negative n is refused; n=0 sends nothing and fails with IndexError "
            "instead of the stated ValueError for n < 1",
        cells=_cells(audit_caching=_patch(AUDIT_CELL, ("if n < 1:", "if n < 0:"))),
    ),
    Blind(
        name="healthy_at_exactly_point_seven",
        bug="HEALTHY is hit_rate >= 0.7, so 0.7 exactly is HEALTHY; the notebook compares "
            "strictly (0.7 exactly is WEAK)",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL, ("if hit_rate > 0.7:", "if hit_rate >= 0.7:"))),
    ),
    Blind(
        name="hit_rate_over_all_calls",
        bug="the hit rate sums read, write and uncached over every call, cold first call "
            "included, instead of taking the LAST call's usage",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL,
            ("    last = per_call[-1]\n",
             "    last = {key: sum(call[key] for call in per_call) for key in per_call[0]}\n"))),
    ),
    Blind(
        name="hit_rate_rounded",
        bug="hit_rate is rounded to 3 decimals (and the verdict judged on the rounded "
            "value); the notebook says it is not rounded",
        cells=_cells(audit_caching=_patch(
            AUDIT_CELL,
            ("hit_rate = last[\"cache_read\"] / total if total else 0.0",
             "hit_rate = round(last[\"cache_read\"] / total, 3) if total else 0.0"))),
    ),
    Blind(
        name="rendered_with_sort_keys",
        bug="the payloads are rendered with sort_keys=True, which hides a reordered dict; "
            "the notebook says no sort_keys, key order is part of the cached bytes",
        cells=_cells(find_invalidator=_patch(
            FIND_CELL,
            ("before = json.dumps(build_request(probe_a), indent=2)",
             "before = json.dumps(build_request(probe_a), indent=2, sort_keys=True)"),
            ("after = json.dumps(build_request(probe_b), indent=2)",
             "after = json.dumps(build_request(probe_b), indent=2, sort_keys=True)"))),
    ),
    Blind(
        name="diff_signs_swapped",
        bug="the diff runs from probe_b's render to probe_a's, so '-' marks probe_b's lines "
            "and '+' probe_a's; the notebook says '-' is probe_a, '+' is probe_b",
        cells=_cells(find_invalidator=_patch(
            FIND_CELL,
            ("difflib.unified_diff(before, after,", "difflib.unified_diff(after, before,"))),
    ),
    Blind(
        name="diff_headers_kept",
        bug="every line starting with '-' or '+' is kept, including unified_diff's '--- ' "
            "and '+++ ' file headers, so a healthy builder does not give NO_DIFF",
        cells=_cells(find_invalidator=_patch(
            FIND_CELL,
            ("if line.startswith((\"---\", \"+++\")) or not line.startswith((\"-\", \"+\")):",
             "if not line.startswith((\"-\", \"+\")):"))),
    ),
    Blind(
        name="probe_b_built_first",
        bug="build_request is called with probe_b before probe_a; the notebook says once "
            "with probe_a, then once with probe_b (a stateful builder sees the order)",
        cells=_cells(find_invalidator=_patch(
            FIND_CELL,
            ("    before = json.dumps(build_request(probe_a), indent=2).splitlines()\n"
             "    after = json.dumps(build_request(probe_b), indent=2).splitlines()\n",
             "    after = json.dumps(build_request(probe_b), indent=2).splitlines()\n"
             "    before = json.dumps(build_request(probe_a), indent=2).splitlines()\n"))),
    ),
    Blind(
        name="plain_audit",
        bug="the plain solution: a literal PRICE table, term-by-term call_usd, a for loop "
            "and if/elif for the verdict, unified_diff with n=0 for the invalidator",
        cells=_cells(),
        correct=True,
    ),
    Blind(
        name="tables_and_opcodes",
        bug="PRICE built from a $/MTok table, call_usd factored as in_rate*(inp + 1.25cw + "
            "0.10cr) with an explicit KeyError, a while loop and a verdict table in the "
            "audit, SequenceMatcher opcodes instead of unified_diff",
        cells=_cells(price=TABLE_PRICE_CELL, call_usd=FACTORED_CALL_USD_CELL,
                     audit_caching=TABLE_AUDIT_CELL, find_invalidator=OPCODES_FIND_CELL),
        correct=True,
    ),
]
