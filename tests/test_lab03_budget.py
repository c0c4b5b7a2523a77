"""Lab 3 (token budget manager): the world module, and every seed number the notebook shows.

The notebook's answer cells (``price`` and ``budget``) are executed here straight from
``authoring/lab03_budget``. Expected values are literals from seed 001 exercise 3 and the
pricing pages (claude-sonnet-5 at $2/$10 per MTok, models/sonnet-5/overview), or from the
derivation n*P + a*n(n+1)/2, never read back from the code under test.
"""

from __future__ import annotations

import math
from typing import Any

import anthropic
import matplotlib
import pytest

from course.grading.proofs.mutation import load_mutants
from course.worlds import budget as world

from . import ROOT, notebook_code

matplotlib.use("Agg")

SCRIPT = ROOT / "authoring" / "lab03_budget" / "lab03_budget.py"
MUTANTS = ROOT / "tests" / "mutants" / "lab03_budget.py"
OPUS = "claude-opus-5"


def _exec(replace: dict[str, str] | None = None) -> dict[str, Any]:
    """The solution cells run in one namespace, after replacing ``old`` by ``new`` in
    whichever answer cell holds it."""
    answers = notebook_code.answers("lab03_budget")
    edits = []
    for old, new in (replace or {}).items():
        (cell,) = [gid for gid, code in answers.items() if old in code]
        edits.append((cell, old, new))
    return notebook_code.namespace("lab03_budget", edits)


@pytest.fixture(scope="module")
def sol() -> dict[str, Any]:
    return _exec()


# -- the world -----------------------------------------------------------------------------


def test_sdk_usage_is_the_sdks_own_type_and_keeps_none():
    u = world.sdk_usage(10, 2)
    assert isinstance(u, anthropic.types.Usage)
    assert (u.input_tokens, u.output_tokens) == (10, 2)
    assert u.cache_creation_input_tokens is None and u.cache_read_input_tokens is None
    v = world.sdk_usage(1, 2, 3, 4, model="claude-haiku-4-5")
    assert (v.cache_creation_input_tokens, v.cache_read_input_tokens) == (3, 4)


def test_seed_data_matches_the_seed():
    assert world.WORKED_CALL == {"input_tokens": 130_000, "output_tokens": 1_000,
                               "cache_creation_input_tokens": 20_000,
                               "cache_read_input_tokens": 40_000}
    assert world.TAIL_ROWS == [("a91", 6, 41_200, 2_100), ("a92", 5, 33_800, 1_800),
                               ("a93", 40, 1_904_000, 16_400)]
    assert (world.PREFIX_TOKENS, world.TURN_TOKENS) == (6_000, 1_500)
    assert world.GROWTH_TURNS == (5, 10, 20, 40)


def test_invoices_and_the_right_answer():
    assert world.invoice_numbers(3) == ["INV-01", "INV-02", "INV-03"]
    assert world.read_invoice("INV-03") == "INV-03: 600 units at $2.00, billed $1,320.00"
    assert world.overbilled(world.invoice_numbers(12)) == ["INV-03", "INV-07", "INV-11"]


@pytest.mark.parametrize("n, exact", [(5, 52_500), (10, 142_500), (20, 435_000),
                                      (40, 1_470_000)])
def test_fake_bills_the_resent_history_exactly(n, exact):
    # exact = n*P + a*n(n+1)/2 with P = 6,000 and a = 1,500, worked by hand
    meter = world.TokenMeter()
    report = world.run_turns(meter, n)
    assert report["ok"] is True and report["calls"] == n
    assert meter.input_tokens == exact
    assert meter.output_tokens == 400 * n
    assert all(u.cache_read_input_tokens is None for u in meter.usages)


def test_seed_approximation_and_its_gap():
    p, a = 6_000, 1_500
    measured = {}
    for n in (10, 20, 40):
        meter = world.TokenMeter()
        world.run_turns(meter, n)
        measured[n] = meter.input_tokens
    approx = {n: n * p + a * n * n // 2 for n in (10, 20, 40)}
    assert (approx[10], approx[20]) == (135_000, 420_000)          # the seed's figures
    assert (measured[10] - approx[10], measured[20] - approx[20]) == (7_500, 15_000)  # a*n/2
    assert round(approx[20] / approx[10], 1) == 3.1                 # the seed's "3.1x"
    assert round(measured[20] / measured[10], 2) == 3.05            # the exact factor
    assert round(measured[40] / measured[10], 1) == 10.3            # not the seed's 16x
    assert 2 * p / a == 8                                           # where n^2 starts to dominate


def test_cached_mode_reads_the_previous_prompt():
    meter = world.TokenMeter()
    world.run_turns(meter, 3, cached=True)
    cr = [u.cache_read_input_tokens for u in meter.usages]
    cw = [u.cache_creation_input_tokens for u in meter.usages]
    assert cr == [0, 7_500, 9_000] and cw == [7_500, 1_500, 1_500]
    assert [u.input_tokens for u in meter.usages] == [0, 0, 0]


def test_loop_step_cap_is_a_report_not_a_raise():
    report = world.run_audit(world.TokenMeter(), stop=Exception, n_invoices=10, max_steps=4)
    assert report["ok"] is False and report["partial"] is True
    assert "step cap of 4" in report["reason"] and report["calls"] == 4
    assert report["missing"].startswith("Not read: INV-05, INV-06")


def test_routed_run_carries_the_billed_model():
    replies = world.routed_run()
    assert [r.model for r in replies] == ["claude-haiku-4-5"] * 3 + ["claude-sonnet-5"] * 2 + [
        OPUS]
    assert replies[-1].usage.cache_creation_input_tokens == 12_000


def test_plot_has_three_lines_and_closes():
    import matplotlib.pyplot as plt

    fig = world.plot_spend([5, 10, 20, 40], [0.3, 0.8, 2.4, 7.8], [0.2, 0.3, 0.6, 1.5])
    assert len(fig.axes[0].lines) == 3
    plt.close(fig)


# -- the seed's numbers, from the solution -------------------------------------------------


def test_prices_are_per_token(sol):
    for model, (pin, pout) in {OPUS: (5, 25), "claude-sonnet-5": (2, 10),
                               "claude-haiku-4-5": (1, 5)}.items():
        assert math.isclose(sol["PRICE"][model]["in"], pin / 1e6)
        assert math.isclose(sol["PRICE"][model]["out"], pout / 1e6)


def test_seed_call_is_82_cents_and_warns_once(sol):
    b = sol["Budget"](1.00)
    cost = b.charge(OPUS, world.sdk_usage(**world.WORKED_CALL))
    assert math.isclose(cost, 0.65 + 0.025 + 0.125 + 0.02, abs_tol=1e-12)
    assert round(cost, 2) == 0.82 and b.state == "warn"
    assert "budget" in b.guard().lower()
    assert b.guard() is None


@pytest.mark.parametrize("replace, usd, state", [
    ({'rate["in"] * CACHE_READ)': 'rate["in"])'}, 1.00, "stop"),    # reads at the full rate
    ({'rate["in"] * CACHE_WRITE)': 'rate["in"])'}, 0.795, "ok"),    # writes at 1x
])
def test_mispriced_cache_terms_flip_the_verdict(replace, usd, state):
    ns = _exec(replace)
    b = ns["Budget"](1.00)
    assert math.isclose(b.charge(OPUS, world.sdk_usage(**world.WORKED_CALL)), usd, abs_tol=1e-12)
    assert b.state == state


def test_tail_rows(sol):
    cost = {t: sol["Budget"](100).charge(OPUS, world.sdk_usage(i, o))
            for t, _n, i, o in world.TAIL_ROWS}
    assert math.isclose(cost["a93"], 9.93, abs_tol=1e-12)
    assert (round(cost["a91"], 2), round(cost["a92"], 2)) == (0.26, 0.21)
    assert round(cost["a93"] / 0.26) == 38
    assert round(sum(cost.values()) / 3, 2) == 3.47                  # the mean the notebook shows


def test_spend_curve_at_5_10_20_40(sol):
    spend = {}
    for n in (5, 10, 20, 40):
        b = sol["Budget"](100.0)
        world.run_turns(b, n, stop=sol["BudgetExceeded"])
        spend[n] = b.spent
    # 5e-6 * (n*6,000 + 1,500*n(n+1)/2) + 25e-6 * 400n, worked by hand
    for n, usd in {5: 0.3125, 10: 0.8125, 20: 2.375, 40: 7.75}.items():
        assert math.isclose(spend[n], usd, abs_tol=1e-9)
    cached = sol["Budget"](100.0)
    world.run_turns(cached, 40, stop=sol["BudgetExceeded"], cached=True)
    assert math.isclose(cached.spent, 1.5145, abs_tol=1e-9)


def test_hard_stop_turns_into_a_partial_report(sol):
    b = sol["Budget"](1.00)
    report = world.run_audit(b, stop=sol["BudgetExceeded"], n_invoices=12)
    assert report["calls"] == 12 and math.isclose(b.spent, 1.065, abs_tol=1e-9)
    assert report["ok"] is False and report["partial"] is True and "answer" not in report
    assert len(report["done"]) == 11 and "INV-12" in report["missing"]
    assert [i for i, _ in report["notes"]] == [11]          # $0.8125 after call 10


def test_soft_budget_run_finishes_with_one_note(sol):
    b = sol["Budget"](2.60)
    report = world.run_audit(b, stop=sol["BudgetExceeded"], n_invoices=20)
    assert report["ok"] is True and math.isclose(b.spent, 2.5725, abs_tol=1e-9)
    assert report["answer"].endswith("Overbilled: INV-03, INV-07, INV-11, INV-15, INV-19.")
    assert [i for i, _ in report["notes"]] == [20]


def test_by_model_sums_to_spent(sol):
    b = sol["Budget"](5.0)
    for reply in world.routed_run():
        b.charge(reply.model, reply.usage)
    assert math.isclose(sum(b.by_model.values()), b.spent)
    # opus: 4,000 x $5 + 1,200 x $25 + 12,000 x $6.25 per MTok
    assert math.isclose(b.by_model[OPUS], 0.02 + 0.03 + 0.075, abs_tol=1e-12)


def test_unknown_model_is_not_billed_zero(sol):
    with pytest.raises(KeyError):
        sol["Budget"](1.0).charge("claude-unknown", world.sdk_usage(1, 1))


def test_boundaries_are_exact_despite_float_money(sol):
    # 800,000 tokens at $1/MTok is 0.7999999999999999 in floats: the spec's rounding makes it 80%
    assert 800_000 * (1 / 1_000_000) < 0.8
    at_warn = sol["Budget"](1.0)
    at_warn.charge("claude-haiku-4-5", world.sdk_usage(800_000, 0))
    assert at_warn.state == "warn"
    at_stop = sol["Budget"](0.10)
    at_stop.charge("claude-haiku-4-5", world.sdk_usage(100_000, 0))
    assert at_stop.state == "stop"
    with pytest.raises(sol["BudgetExceeded"]):
        at_stop.guard()


def test_mutants_apply_to_the_solution():
    names = [m.name for m in load_mutants(MUTANTS)]
    assert names[:9] == ["cache_reads_full_price", "cache_writes_at_1x", "warning_every_turn",
                         "stop_does_not_stop", "by_model_never_updated",
                         "unrounded_warn_boundary", "strict_stop_boundary",
                         "unknown_model_free", "stale_sonnet_price"]
    assert len(names) == 41 and len(set(names)) == len(names)
    for m in load_mutants(MUTANTS):
        notebook_code.namespace("lab03_budget", m.edits())


def test_written_answer_numbers(sol):
    # the Explain case: claude-sonnet-5 at $2/MTok input, P = 4,000, a = 2,000, a $1.00 limit
    def tokens(n):
        return 4_000 * n + 2_000 * n * (n + 1) // 2

    assert (tokens(10), tokens(20)) == (150_000, 500_000)
    b = sol["Budget"](1.00)
    spent, warn_after, stop_after = {}, None, None
    for k in range(1, 21):
        b.charge("claude-sonnet-5", world.sdk_usage(4_000 + 2_000 * k, 0))
        spent[k] = b.spent
        if b.state == "warn" and warn_after is None:
            warn_after = k
        if b.state == "stop" and stop_after is None:
            stop_after = k
    assert (round(spent[10], 2), round(spent[20], 2)) == (0.30, 1.00)
    assert round(6_000 * 2e-6 * 20, 2) == 0.24                      # "first call x 20 turns"
    assert (round(spent[17], 3), round(spent[18], 3), round(spent[19], 3)) == (
        0.748, 0.828, 0.912)
    assert (warn_after, stop_after) == (18, 20)
