"""Capstone (the integrated loop): the triage world, every walk-through number from a run of the
solution through the prompt-cache fake, and each mutant losing exactly its graded cells, all
outside Jupyter.

Expected values are literals from seed 001 ("Putting it together") or worked by hand from the
prices ($5/$25 per MTok on claude-opus-5, writes 1.25x, reads 0.10x), never read back from the
code under test.
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from typing import Any

import anthropic
import pytest

from course.grading.proofs.mutation import load_mutants
from course.trace import Step, Trace
from course.wire import Reply, message, text, tool_use
from course.worlds import capstone as world

from . import graded_cells as cells
from . import notebook_code

ASSIGNMENT = "capstone_integrated_loop"
MUTANTS = notebook_code.ROOT / "tests" / "mutants" / f"{ASSIGNMENT}.py"
IN, OUT = 5e-6, 25e-6
SEED_TURNS = [(20, 6_100, 0, 180), (0, 1_300, 6_100, 150), (0, 900, 7_400, 120),
              (0, 700, 8_300, 260), (40, 400, 9_000, 300)]


def _preamble() -> dict[str, Any]:
    return {"world": world, "re": re, "time": time, "json": json, "anthropic": anthropic,
            "functools": functools, "Step": Step, "Trace": Trace, "Reply": Reply,
            "message": message, "text": text, "tool_use": tool_use,
            "NO_CLAIMS": world.NO_CLAIMS, "UNVERIFIED": world.UNVERIFIED}


def _ns(edits=()) -> dict[str, Any]:
    return notebook_code.namespace(ASSIGNMENT, edits, preamble=_preamble())


@pytest.fixture(scope="module")
def sol() -> dict[str, Any]:
    return _ns()


def _usd(i: int, w: int, r: int, o: int) -> float:
    return i * IN + w * IN * 1.25 + r * IN * 0.10 + o * OUT


def _triage(sol, ticket: str, *, breakpoints: str = "moving", desk=None, tenant="acme"):
    desk = desk or world.Desk()
    guards, _ = world.stand_in_guards(
        authorize=functools.partial(sol["authorize"], approved=desk.approved),
        goal=sol["goal_predicate"], desk=desk, breakpoints=breakpoints)
    api, cache = world.triage_api()
    out = sol["run"](ticket, tenant, client=api.client(), guards=guards)
    return out, guards, api, cache, desk


def _turns(guards) -> list[tuple[int, int, int, int]]:
    return [(r["in"], r["cache_write"], r["cache_read"], r["out"]) for r in guards.ledger.rows]


# -- the world -----------------------------------------------------------------------------


def test_prefix_ticket_and_search_sizes():
    from course import tokens
    assert sum(tokens.count(t) for t in world.TOOLS) + tokens.count(world.SYSTEM_TEXT) == 6_100
    assert tokens.count(world.ROTATE_TICKET) == 20
    assert (len(world.SEARCH_DUMP), len(world.SEARCH_DUMP.splitlines())) == (38_059, 346)
    assert all("tenant" not in json.dumps(t) for t in world.TOOLS)


def test_breakpoints_at_most_three_and_not_on_harness_text():
    history = [{"role": "user", "content": "ticket"},
               {"role": "assistant", "content": [tool_use("get_account", {}, id="t1")]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                             "content": "x", "is_error": False}]},
               {"role": "assistant", "content": [text("draft")]},
               {"role": "user", "content": [text("feedback")]}]
    marked = world.place_breakpoints(history, "moving")
    where = [(i, j) for i, m in enumerate(marked) if isinstance(m["content"], list)
             for j, b in enumerate(m["content"]) if "cache_control" in b]
    assert where == [(2, 0), (3, 0)]                # previous end (results), newest (draft)
    assert "cache_control" not in json.dumps(history)   # the history itself is untouched
    assert world.place_breakpoints(history, "system") == history


def test_doubles_record_order_and_fail_loudly_when_exhausted():
    d = world.doubles([world.answer("a")])
    client = d.api.client()
    client.messages.create(**d.guards.agent.request([{"role": "user", "content": "x"}]))
    with pytest.raises(world.ScriptExhausted):
        client.messages.create(**d.guards.agent.request([{"role": "user", "content": "x"}]))
    assert d.log.names() == ["model", "model"]


# -- the walk-through, from the solution -------------------------------------------------------


def test_walk_through_ledger_is_the_seeds(sol):
    out, guards, api, cache, _ = _triage(sol, world.ROTATE_TICKET)
    assert out["ok"] and out["stop"] == "answered" and len(api.requests) == 5
    assert _turns(guards) == SEED_TURNS
    per_turn = [_usd(*t) for t in _turns(guards)]
    for got, want in zip(per_turn, [0.042725, 0.014925, 0.012325, 0.015025, 0.0147], strict=True):
        assert math.isclose(got, want, abs_tol=1e-12)
    assert round(sum(per_turn), 4) == 0.0997
    assert round(sum(round(x, 4) for x in per_turn), 4) == 0.0996      # rounding first loses it
    read = sum(t[2] for t in SEED_TURNS)
    seen = sum(t[0] + t[1] + t[2] for t in SEED_TURNS)
    assert (read, seen) == (30_800, 40_260) and round(read / seen, 3) == 0.765
    total = sum(per_turn)
    assert round(sum(t[1] for t in SEED_TURNS) * IN * 1.25 / total, 3) == 0.589
    assert round(sum(t[3] for t in SEED_TURNS) * OUT / total, 3) == 0.253
    assert round(read * IN * 0.10 / total, 3) == 0.154
    assert [b.prompt_tokens for b in cache.log] == [6_120, 7_400, 8_300, 9_000, 9_440]
    assert round(6_100 * IN * 1.25, 4) == 0.0381                     # of turn 1's $0.0427
    assert (round(6_100 * IN * 0.10, 4), round(6_100 * IN, 4)) == (0.0031, 0.0305)


def test_system_breakpoint_alone_costs_more(sol):
    out, guards, _, _, _ = _triage(sol, world.ROTATE_TICKET, breakpoints="system")
    assert out["ok"]
    assert _turns(guards) == [(20, 6_100, 0, 180), (1_300, 0, 6_100, 150),
                              (2_200, 0, 6_100, 120), (2_900, 0, 6_100, 260),
                              (3_340, 0, 6_100, 300)]
    total = sum(_usd(*t) for t in _turns(guards))
    assert round(total, 4) == 0.1244
    assert round(4 * 6_100 / 40_260, 3) == 0.606


def test_first_answer_fails_on_claim_2_then_passes(sol):
    out, _, api, _, _ = _triage(sol, world.ROTATE_TICKET)
    feedback = api.requests[4]["messages"][-1]["content"]
    assert feedback[0]["text"].startswith("Not verified: Claim 2.")
    assert [s.tool for s in out["trace"].steps] == [
        "search_docs", "get_account", "read_artifact", "search_docs"]
    pointer = out["trace"].steps[0].result
    assert len(pointer) < 1_600 and len(world.SEARCH_DUMP) / len(pointer) > 24


def test_cache_hit_second_time_and_namespaced(sol):
    out, guards, _, _, _ = _triage(sol, world.ROTATE_TICKET)
    api = world.triage_api()[0]
    again = sol["run"](world.ROTATE_TICKET, "acme", client=api.client(), guards=guards)
    assert again["stop"] == "cache_hit" and again["usd"] == 0.0 and len(api.requests) == 0
    other = sol["run"](world.ROTATE_TICKET, "globex", client=api.client(), guards=guards)
    assert other["stop"] == "answered" and len(api.requests) == 5


def test_injected_refund_denied_then_allowed_by_console(sol):
    out, guards, _, _, desk = _triage(sol, world.REFUND_TICKET)
    assert out["ok"] and desk.refunds == []
    assert [(s.tool, s.is_error) for s in out["trace"].steps][-1] == ("issue_refund", True)
    assert guards.cache.get(world.REFUND_TICKET, namespace="acme") is None
    desk = world.Desk()
    desk.approve("acme", "issue_refund", {"order_id": "ORD-7731", "amount_usd": 49.0})
    out, _, _, _, desk = _triage(sol, world.REFUND_TICKET, desk=desk)
    assert out["ok"] and len(desk.refunds) == 1
    other = world.Desk()
    other.approve("globex", "issue_refund", {"order_id": "ORD-7731", "amount_usd": 49.0})
    _, _, _, _, other = _triage(sol, world.REFUND_TICKET, desk=other)
    assert other.refunds == []                    # another tenant's approval does not count


def test_common_authorize_lets_the_model_confirm_itself(sol):
    turn = world.refund_request_turn()
    call = [b for b in turn["reply"]["content"] if b["type"] == "tool_use"][0]
    assert call["input"]["confirmed"] is True
    assert sol["authorize"](call["name"], call["input"], "acme",
                            approved=world.Desk().approved) is False


def test_loopy_ticket_ends_partial(sol):
    out, _, api, _, _ = _triage(sol, world.LOOPY_TICKET)
    assert out["stop"] == "loop_guard" and out["partial"] and len(api.requests) == 4


def test_written_answer_numbers():
    spend = [0.0427, 0.0149, 0.0123, 0.0150]          # tool, failed answer, tool, truncated
    mine = round(spend[0] + spend[1], 4)
    assert mine == 0.0576 and mine > 0.05 > spend[0]  # stops after call 2, books = bill
    books_a = round(spend[0] + spend[2], 4)           # (a) never charges the answer turn
    bill_a = round(sum(spend[:3]), 4)
    assert (books_a, bill_a) == (0.0550, 0.0699) and books_a > 0.05
    assert round(0.2 * 199) == 40


# -- graded cells in-process ---------------------------------------------------------------


def test_every_cell_passes_on_the_solution(sol):
    assert cells.failing_cells(ASSIGNMENT, sol) == set()


def test_every_cell_fails_on_the_stub():
    def stub(*a, **k):
        raise NotImplementedError

    fakes = {"authorize": stub, "goal_predicate": stub, "run": stub}
    assert cells.failing_cells(ASSIGNMENT, {**_ns(), **fakes}) == set(
        cells.graded_cells(ASSIGNMENT))


@pytest.mark.parametrize("mutant", load_mutants(MUTANTS), ids=lambda m: m.name)
def test_each_mutant_loses_exactly_its_cells(mutant):
    assert cells.failing_cells(ASSIGNMENT, _ns(mutant.edits())) == set(mutant.loses)


def test_mutants_cover_the_seed_bugs():
    seeded = ["authorize_after_execute", "tenant_from_model_args",
              "budget_checked_before_charging", "cache_filled_before_predicate",
              "results_split_across_messages", "model_confirms_own_write",
              "refusal_not_handled", "api_error_escapes", "put_ignores_cacheable",
              "retries_not_charged", "no_claims_pass"]
    names = [m.name for m in load_mutants(MUTANTS)]
    assert names[:len(seeded)] == seeded
    # and the bugs the API's own rules make catchable (thinking blocks, duplicate ids)
    assert {"drops_thinking", "appends_assistant_twice", "reads_content_0"} <= set(names)
