"""Lab 7 (prompt-cache audit): the world, every seed number the notebook shows, and each mutant
losing exactly its graded cells, all outside Jupyter.

Expected values are literals from seed 001 exercise 7 or worked by hand from the prices
($5/$25 per MTok on claude-opus-5, $2/$10 on claude-sonnet-5, writes 1.25x, reads 0.10x; the
pricing pages) and the 512-token minimum of claude-opus-5 (the prompt-caching page), never
read back from the code under test.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from course.grading.proofs.mutation import load_mutants
from course.worlds import cache_audit as world

from . import graded_cells as cells
from . import notebook_code

ASSIGNMENT = "lab07_cache_audit"
MUTANTS = notebook_code.ROOT / "tests" / "mutants" / f"{ASSIGNMENT}.py"
PRICE = {
    "claude-opus-5": {"in": 5e-6, "out": 25e-6},
    "claude-sonnet-5": {"in": 2e-6, "out": 10e-6},
    "claude-haiku-4-5": {"in": 1e-6, "out": 5e-6},
}


def _ns(edits=()) -> dict[str, Any]:
    return notebook_code.namespace(ASSIGNMENT, edits, preamble={"PRICE": PRICE, "json": json})


@pytest.fixture(scope="module")
def sol() -> dict[str, Any]:
    return _ns()


def _cold(build_request, n=3):
    api, cache, clock = world.support_api()
    client = api.client()
    out = []
    for i in range(n):
        u = client.messages.create(**build_request(f"probe {i}")).usage
        out.append((u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens,
                    u.output_tokens))
    return out


# -- the world over the caching fake -------------------------------------------------------


def test_healthy_builder_reproduces_the_seed_column():
    assert _cold(world.healthy) == [(210, 24_500, 0, 400), (210, 6_100, 18_400, 400),
                                    (210, 6_100, 18_400, 400)]


def test_healthy_hit_rate_is_18400_of_24710():
    i, w, r, _ = _cold(world.healthy)[-1]
    assert (r, r + w + i) == (18_400, 24_710)
    assert round(r / (r + w + i), 3) == 0.745


@pytest.mark.parametrize("name", ["stamped", "shuffled", "model_switch"])
def test_each_invalidator_rewrites_the_whole_prefix(name):
    rows = _cold(world.builders()[name])
    assert all(row[1:3] == (24_500, 0) for row in rows), rows


def test_short_prefix_writes_nothing_and_raises_nothing():
    # 400 system tokens + 9 for the question, under claude-opus-5's 512-token minimum
    assert world.SHORT_PREFIX_TOKENS < 512
    assert _cold(world.too_short) == [(409, 0, 0, 400)] * 3


def test_early_breakpoint_is_a_quarter():
    i, w, r, _ = _cold(world.early_breakpoint)[-1]
    assert (i, w, r) == (6_009, 0, 2_000)


def test_entries_expire_after_five_idle_minutes():
    api, cache, clock = world.support_api()
    client = api.client()
    client.messages.create(**world.healthy("a"))
    clock.advance(301)
    u = client.messages.create(**world.healthy("b")).usage
    assert (u.cache_creation_input_tokens, u.cache_read_input_tokens) == (24_500, 0)


def test_billed_as_reports_the_given_rows():
    client = world.billed_as([(1, 2, 3)]).client()
    u = client.messages.create(model="claude-opus-5", max_tokens=8,
                               messages=[{"role": "user", "content": "x"}]).usage
    assert (u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens) == (1, 2, 3)


# -- the seed's numbers, from the student's call_usd ---------------------------------------


def test_healthy_broken_and_ratio(sol):
    call_usd = sol["call_usd"]
    healthy, broken = call_usd(210, 6_100, 18_400, 400), call_usd(18_610, 6_100, 0, 400)
    assert math.isclose(healthy, 0.058375, abs_tol=1e-12)   # 0.00105+0.038125+0.0092+0.01
    assert math.isclose(broken, 0.141175, abs_tol=1e-12)    # 0.09305+0.038125+0.01
    assert (round(healthy, 4), round(broken, 4), round(broken / healthy, 2)) == (
        0.0584, 0.1412, 2.42)


def test_table_bug_and_input_only_ratios(sol):
    call_usd = sol["call_usd"]
    healthy = call_usd(210, 6_100, 18_400, 400)
    assert round(call_usd(210, 6_100, 0, 400) / healthy, 2) == 0.84
    assert round(call_usd(210, 6_100, 0, 0) / call_usd(210, 6_100, 18_400, 0), 2) == 0.81
    # 2.71 on the input terms: 26,235 / 9,675 input-price units; the output adds 2,000 to both
    assert round(26_235 / 9_675, 2) == 2.71 and round(28_235 / 11_675, 2) == 2.42
    ratio_in = call_usd(18_610, 6_100, 0, 0) / call_usd(210, 6_100, 18_400, 0)
    assert round(ratio_in, 2) == 2.71


def test_stamped_call_costs_more_than_the_tables_broken_column(sol):
    i, w, r, o = _cold(world.stamped())[-1]
    assert round(sol["call_usd"](i, w, r, o), 4) == 0.1642   # 0.00105+0.153125+0.01
    assert round(0.164175 / 0.058375, 2) == 2.81


def test_written_answer_numbers(sol):
    call_usd = sol["call_usd"]
    before = call_usd(500, 0, 30_000, 800, model="claude-sonnet-5")
    after = call_usd(500, 30_000, 0, 800, model="claude-sonnet-5")
    assert (round(before, 4), round(after, 4)) == (0.015, 0.084)
    assert round(after / before, 1) == 5.6 and round((after - before) * 10_000) == 690
    assert round(30_000 / 30_500, 3) == 0.984


# -- the audit and the diff ----------------------------------------------------------------


def test_audit_verdicts_per_builder(sol):
    verdicts = {}
    for name, build_request in world.builders().items():
        api, cache, clock = world.support_api()
        verdicts[name] = sol["audit_caching"](build_request, client=api.client())["verdict"]
    assert verdicts == {"healthy": "HEALTHY", "stamped": "BROKEN", "shuffled": "BROKEN",
                        "model_switch": "BROKEN", "too_short": "BROKEN",
                        "early_breakpoint": "WEAK"}


def test_find_invalidator_names_each_line(sol):
    find, no_diff = sol["find_invalidator"], sol["NO_DIFF"]
    stamp = find(world.stamped()).split("\n")
    assert len(stamp) == 2 and "09:15:01" in stamp[0] and "09:15:02" in stamp[1]
    assert find(world.healthy) == no_diff and find(world.too_short) == no_diff
    assert "region" in find(world.shuffled())
    assert '"model": "claude-sonnet-5"' in find(world.model_switch())


def test_every_cell_passes_on_the_solution(sol):
    assert cells.failing_cells(ASSIGNMENT, sol) == set()


def test_every_cell_fails_on_the_stub():
    stub = {name: (lambda *a, **k: (_ for _ in ()).throw(NotImplementedError()))
            for name in ("call_usd", "audit_caching", "find_invalidator")}
    assert cells.failing_cells(ASSIGNMENT, {**_ns(), **stub}) == set(
        cells.graded_cells(ASSIGNMENT))


@pytest.mark.parametrize("mutant", load_mutants(MUTANTS), ids=lambda m: m.name)
def test_each_mutant_loses_exactly_its_cells(mutant):
    assert cells.failing_cells(ASSIGNMENT, _ns(mutant.edits())) == set(mutant.loses)


def test_mutants_cover_the_seed_bugs():
    assert [m.name for m in load_mutants(MUTANTS)][:6] == [
        "cache_reads_full_price", "hit_rate_from_first_call", "denominator_without_writes",
        "sort_keys_hides_dict_order", "probe_lines_not_filtered", "stale_sonnet_price"]


def test_a_quoted_or_non_ascii_probe_is_escaped_in_the_render():
    probe = 'refund "now"? café'
    render = json.dumps(world.healthy(probe), indent=2)
    assert probe not in render
    assert 'refund \\"now\\"? caf\\u00e9' in render
