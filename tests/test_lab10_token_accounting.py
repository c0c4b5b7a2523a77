"""Lab 10 (token accounting): the world, every seed number the notebook shows, and each mutant
losing exactly its graded cells, all outside Jupyter.

Expected values are literals from seed 001 (exercise 10 and the integrated run's trace) or
worked by hand from the prices ($5/$25 on claude-opus-5 and $2/$10 per MTok on
claude-sonnet-5, from the pricing pages; writes 1.25x, reads 0.10x), never read back from the
code under test.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import pytest
from anthropic.lib.streaming import MessageStreamManager

from course.grading.proofs.mutation import load_mutants
from course.worlds import token_accounting as world

from . import graded_cells as cells
from . import notebook_code

ASSIGNMENT = "lab10_token_accounting"
MUTANTS = notebook_code.ROOT / "tests" / "mutants" / f"{ASSIGNMENT}.py"
PRICE = {
    "claude-opus-5": {"in": 5e-6, "out": 25e-6},
    "claude-sonnet-5": {"in": 2e-6, "out": 10e-6},
    "claude-haiku-4-5": {"in": 1e-6, "out": 5e-6},
}


def _ns(edits=()) -> dict[str, Any]:
    return notebook_code.namespace(ASSIGNMENT, edits, preamble={
        "PRICE": PRICE, "world": world, "OPUS": world.OPUS, "SONNET": world.SONNET})


@pytest.fixture(scope="module")
def sol() -> dict[str, Any]:
    return _ns()


# -- the world -----------------------------------------------------------------------------


def test_trace_is_the_seeds_five_turns():
    usages = [r.usage for r in world.trace_replies()]
    assert [(u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens,
             u.output_tokens) for u in usages] == [
        (20, 6_100, 0, 180), (0, 1_300, 6_100, 150), (0, 900, 7_400, 120),
        (0, 700, 8_300, 260), (40, 400, 9_000, 300)]


def test_ticket_makes_five_requests_and_answers():
    api = world.ticket_api()
    sites = {"plan": world.retry_truncated(world.plan), "summarize": world.summarize,
             "answer": world.answer}
    text = world.run_ticket(sites, client=api.client())
    assert "new key" in text
    assert [b["max_tokens"] for b in api.requests] == [512, 1_024, 512, 512, 2_048]
    assert api.requests[-1]["stream"] is True


def test_streamed_answer_puts_input_first_and_output_last():
    api = world.ticket_api()
    with world.answer(api.client(), "g", "n") as stream:
        events = list(stream)
        final = stream.get_final_message()
    start = events[0].message.usage
    assert (start.input_tokens, start.cache_read_input_tokens, start.output_tokens) == (
        900, 6_100, 1)
    delta = [e for e in events if e.type == "message_delta"]
    assert len(delta) == 1 and delta[0].usage.output_tokens == 1_200
    assert final.usage.output_tokens == 1_200


def test_raw_stream_true_has_no_usage():
    api = world.ticket_api()
    raw = api.client().messages.create(model=world.OPUS, max_tokens=64,
                                       system=world.ANSWER_SYSTEM,
                                       messages=[{"role": "user", "content": "x"}], stream=True)
    assert not hasattr(raw, "usage") and not hasattr(raw, "get_final_message")
    assert not isinstance(raw, MessageStreamManager)


def test_retry_truncated_gives_up_loudly():
    api = world.ticket_api()
    always_cut = world.retry_truncated(lambda c, g, max_tokens: world.plan(c, g, 512))
    with pytest.raises(RuntimeError, match="still truncated after 3 attempts"):
        always_cut(api.client(), world.GOAL)
    assert len(api.requests) == 3


# -- the seed's numbers, from the student's Ledger -----------------------------------------


def test_worked_call_is_82_cents(sol):
    ledger = sol["Ledger"]()
    ledger.record("x", "claude-opus-5", world.sdk_usage(**world.WORKED_CALL), 0.0)
    assert math.isclose(ledger.total(), 0.65 + 0.025 + 0.125 + 0.02, abs_tol=1e-12)
    assert round(ledger.total(), 2) == 0.82


def test_trace_shares_and_hit_rate(sol):
    ledger = sol["Ledger"]()
    for reply in world.trace_replies():
        ledger.record("agent", reply.model, reply.usage, 0.0)
    assert ledger.where_the_money_went() == {
        "total_usd": 0.0997, "share_output": 0.253, "share_uncached_input": 0.003,
        "share_cache_write": 0.589, "share_cache_read": 0.154, "cache_hit_rate": 0.765}
    per_turn = [sum(r[k] for k in ("usd_in", "usd_out", "usd_write", "usd_read"))
                for r in ledger.rows]
    assert [round(x, 4) for x in per_turn] == [0.0427, 0.0149, 0.0123, 0.0150, 0.0147]
    # the first call's write: 6,100 x 1.25 x $5/MTok = $0.0381 of its $0.0427
    assert round(ledger.rows[0]["usd_write"], 4) == 0.0381
    # turn 2's 6,100-token read: $0.0031, not the $0.0305 it would cost uncached
    assert (round(ledger.rows[1]["usd_read"], 4), round(6_100 * 5e-6, 4)) == (0.0031, 0.0305)


def test_undecorated_site_reads_about_23_percent_low(sol):
    full, missing = sol["Ledger"](), sol["Ledger"]()
    api = world.ticket_api()
    world.run_ticket(sol["instrument"](full), client=api.client())
    assert len(full.rows) == len(api.requests) == 5
    # by hand, site by site: plan 0.056925 + 0.02655, summaries 2 x (0.014 + 0.004) at
    # $2/$10, answer 0.03755
    assert math.isclose(full.total(), 0.157025, abs_tol=1e-12)
    sites = dict(sol["instrument"](missing), summarize=world.summarize)
    world.run_ticket(sites, client=world.ticket_api().client())
    assert math.isclose(missing.total(), 0.121025, abs_tol=1e-12)
    low = 1 - missing.total() / full.total()
    assert 0.2 < low < 0.25 and round(low, 2) == 0.23


def test_retried_attempt_is_charged(sol):
    ledger = sol["Ledger"]()
    api = world.ticket_api()
    sol["instrument"](ledger)["plan"](api.client(), world.GOAL)
    assert [r["out"] for r in ledger.rows] == [512, 700] and len(api.requests) == 2
    assert round(ledger.rows[0]["usd_in"] + ledger.rows[0]["usd_out"]
                 + ledger.rows[0]["usd_write"], 4) == 0.0569


def test_opus_to_sonnet_cuts_all_four_terms_by_60_percent(sol):
    rows = {}
    for model in ("claude-opus-5", "claude-sonnet-5"):
        ledger = sol["Ledger"]()
        ledger.record("x", model, world.sdk_usage(1_000, 1_000, 1_000, 1_000), 0.0)
        rows[model] = ledger.rows[0]
    for column in ("usd_in", "usd_out", "usd_write", "usd_read"):
        cut = 1 - rows["claude-sonnet-5"][column] / rows["claude-opus-5"][column]
        assert math.isclose(cut, 0.60, abs_tol=1e-12), column


def test_the_months_ledger_agrees_with_the_question(sol):
    # issue 20: the question's shares and hit rate must come from one ledger
    m = world.MONTH_TOKENS
    ledger = sol["Ledger"]()
    ledger.record("month", "claude-opus-5",
                  world.sdk_usage(m["in"], m["out"], m["cache_write"], m["cache_read"]), 0.0)
    assert ledger.where_the_money_went() == {
        "total_usd": 12_000.0, "share_output": 0.127, "share_uncached_input": 0.85,
        "share_cache_write": 0.02, "share_cache_read": 0.003, "cache_hit_rate": 0.033}
    text = notebook_code.script(ASSIGNMENT).read_text(encoding="utf-8")
    prompt = text[text.index('id="explain_prompt"'):text.index('id="explain_which_term"')]
    for figure in ("\\$12,000", "share_uncached_input\n# 0.850", "share_cache_write 0.020",
                   "share_cache_read 0.003", "share_output 0.127", "cache hit rate\n# 0.033"):
        assert figure in prompt, figure


def test_written_answer_numbers():
    bill = 12_000
    assert bill * 0.4 == 4_800                                   # sonnet: all four terms x 0.4
    uncached = 0.85 * bill
    moved = 0.9 * uncached
    assert round(moved) == 9_180 and round(moved * 0.10) == 918  # reads at 0.10x
    assert round(moved - moved * 0.10) == 8_262 > 7_200          # more than the switch saves
    assert round((bill - 8_262) * 0.4) == 1_495


# -- graded cells in-process ---------------------------------------------------------------


def test_every_cell_passes_on_the_solution(sol):
    assert cells.failing_cells(ASSIGNMENT, sol) == set()


def test_every_cell_fails_on_the_stub():
    def stub(*a, **k):
        raise NotImplementedError

    class StubLedger:
        def __init__(self):
            raise NotImplementedError

    fakes = {"Ledger": StubLedger, "accounted": stub, "accounted_stream": stub,
             "instrument": stub}
    assert cells.failing_cells(ASSIGNMENT, {**_ns(), **fakes}) == set(
        cells.graded_cells(ASSIGNMENT))


@pytest.mark.parametrize("mutant", load_mutants(MUTANTS), ids=lambda m: m.name)
def test_each_mutant_loses_exactly_its_cells(mutant):
    assert cells.failing_cells(ASSIGNMENT, _ns(mutant.edits())) == set(mutant.loses)


def test_mutants_cover_the_seed_bugs():
    assert [m.name for m in load_mutants(MUTANTS)][:6] == [
        "stream_usage_before_finish", "cache_reads_full_price", "wrong_multipliers",
        "retries_not_charged", "call_site_undecorated", "stale_sonnet_price"]


@pytest.mark.parametrize("site", ["plan", "summarize", "answer", "retry_truncated"])
def test_notebook_states_each_world_call_site_signature(site):
    """The notebook shows the signature of every world function a student decorates."""
    params = inspect.signature(getattr(world, site)).parameters.values()
    shown = ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default}"
                      for p in params)
    text = (notebook_code.ROOT / "authoring" / ASSIGNMENT / f"{ASSIGNMENT}.py").read_text()
    assert f"world.{site}({shown})" in text, f"the notebook does not show world.{site}({shown})"
