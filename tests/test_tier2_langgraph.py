"""Tier 2 (LangGraph): the world, and every number the notebook prints, from running code.

The solution is taken from the authoring script (markers dropped) and executed after the
notebook's first code cell (its imports and constants). Expected values are literals: the
seed's $2.00 limit, LangGraph's step counting (one superstep per node run, so a stuck
agent -> tools loop makes (limit + 1) // 2 model calls), the 3rd-identical-call nudge of
Lab 4; none is read back from the code under test.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import types

import pytest

pytest.importorskip("langgraph", reason="the frameworks extra is not installed")

import anthropic  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.errors import GraphRecursionError  # noqa: E402

from course.fakes import FakeAPI, Scripted  # noqa: E402
from course.grading.authoring.scripts import build  # noqa: E402
from course.worlds import graphs  # noqa: E402

from . import notebook_code  # noqa: E402

ASSIGNMENT = "tier2_langgraph"
MODULE = "tier2_langgraph_answers"


def _preamble() -> dict:
    path = notebook_code.script(ASSIGNMENT)
    nb = build(path.read_text(encoding="utf-8"), str(path))
    first = next(c for c in nb.cells if c.cell_type == "code")
    ns: dict = {"__name__": "__main__"}
    exec(compile(first.source, "<tier2 first cell>", "exec"), ns)  # noqa: S102 - our notebook
    return ns


@pytest.fixture(scope="module")
def sol() -> dict:
    # LangGraph reads a state type's hints from the module that defined it, so the
    # answers live in a registered module, as a notebook's live in __main__.
    ns = notebook_code.namespace(ASSIGNMENT, preamble={**_preamble(), "__name__": MODULE})
    module = types.ModuleType(MODULE)
    module.__dict__.update(ns)
    sys.modules[MODULE] = module
    yield ns
    sys.modules.pop(MODULE, None)


def test_refund_model_starts_over_on_a_resent_request():
    # the model answers the latest typed request: results before it do not count
    body = {"messages": [
        {"role": "user", "content": "refund"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                      "content": "r"}, {"type": "text", "text": "refund"}]}]}
    reply = graphs.RefundModel()(body)
    assert reply["content"][-1]["name"] == "lookup_order"
    body["messages"][-1]["content"] = body["messages"][-1]["content"][:1]
    assert graphs.RefundModel()(body)["content"][-1]["name"] == "refund_order"


def test_the_worlds_end_is_langgraphs():
    """A judge compares a route with graphs.END so the grader need not import LangGraph."""
    from langgraph.graph import END

    assert graphs.END == END


def test_world_imports_no_framework_at_module_level():
    src = (notebook_code.ROOT / "course" / "worlds" / "graphs.py").read_text()
    top = [line for line in src.splitlines() if line.startswith(("import ", "from "))]
    assert not [line for line in top if "lang" in line], top


def test_crash_then_resume_runs_each_tool_once(sol, tmp_path):
    shop, api = graphs.Shop(), FakeAPI(graphs.RefundModel(drop_at=2))
    db = str(tmp_path / "cp.sqlite")
    with api.serve() as url:
        app = sol["build_graph"](graphs.chat_model(url), shop.tools(),
                                 checkpointer=SqliteSaver(sqlite3.connect(
                                     db, check_same_thread=False)))
        with pytest.raises(anthropic.APIConnectionError):
            sol["run_or_resume"](app, graphs.GOAL, thread_id="t")
        assert shop.lookups == ["A-1042"] and shop.refunds == []
        again = sol["build_graph"](graphs.chat_model(url), shop.tools(),
                                   checkpointer=SqliteSaver(sqlite3.connect(
                                       db, check_same_thread=False)))
        out = sol["run_or_resume"](again, graphs.GOAL, thread_id="t")
    assert out == "Refunded $49.00 for order A-1042."
    assert shop.lookups == ["A-1042"] and shop.refunds == [("A-1042", 49.0)]
    assert len(api.requests) == 4  # lookup, dropped, refund, answer


def test_resending_the_goal_duplicates_the_lookup(sol, tmp_path):
    # the bug the notebook shows live: the same thread invoked with the goal again
    shop, api = graphs.Shop(), FakeAPI(graphs.RefundModel(drop_at=2))
    with api.serve() as url:
        app = sol["build_graph"](graphs.chat_model(url), shop.tools(),
                                 checkpointer=SqliteSaver(sqlite3.connect(
                                     str(tmp_path / "c.sqlite"), check_same_thread=False)))
        config = {"configurable": {"thread_id": "t"}}
        with pytest.raises(anthropic.APIConnectionError):
            app.invoke({"messages": [HumanMessage(graphs.GOAL)]}, config)
        app.invoke({"messages": [HumanMessage(graphs.GOAL)]}, config)
    assert shop.lookups == ["A-1042", "A-1042"]


def test_budget_halts_at_two_dollars_after_four_calls(sol):
    api = FakeAPI(Scripted(graphs.PlanModel(graphs.STUCK_PLAN, forever=True)))
    with api.serve() as url:
        app = graphs.budget_graph(graphs.chat_model(url), [graphs.search_docs],
                                  sol["BudgetState"], sol["budget_route"],
                                  limit_usd=2.00, usd_per_call=0.50)
        out = app.invoke({"messages": [HumanMessage("q")], "spent": 0.0},
                         {"recursion_limit": 40})
    assert (len(api.requests), out["spent"]) == (4, 2.0)  # 4 x $0.50 reaches $2.00


def test_a_chat_model_on_a_served_fake_loads_no_certificates(monkeypatch):
    """Every served fake has a URL of its own, and langchain_anthropic made one HTTP client
    per URL, each loading the CA bundle (about 20 ms, 0.6 s of the notebook's run): the
    world's chat model speaks to the fake with none, through the SDK as before."""
    import httpcore2
    from langchain_core.messages import AIMessage

    made = []
    real = httpcore2.default_ssl_context
    monkeypatch.setattr(httpcore2, "default_ssl_context",
                        lambda *a, **k: made.append(1) or real(*a, **k))
    api = FakeAPI(Scripted(graphs.PlanModel(graphs.STUCK_PLAN, forever=True)))
    with api.serve() as url:
        reply = graphs.chat_model(url).invoke([HumanMessage("q")])
        other = graphs.chat_model(url, max_tokens=64).invoke([HumanMessage("q")])
    assert isinstance(reply, AIMessage) and reply.tool_calls and other.tool_calls
    assert [r["max_tokens"] for r in api.requests] == [1024, 64]
    assert made == [], f"{len(made)} SSL contexts (CA bundles) loaded for a plain-HTTP fake"


@pytest.mark.parametrize("plan,forever", [(graphs.STUCK_PLAN, True),
                                          (graphs.lookup_plan(14), False)])
def test_recursion_limit_25_stops_both_runs_after_13_model_calls(plan, forever):
    api = FakeAPI(Scripted(graphs.PlanModel(plan, forever=forever)))
    with api.serve() as url:
        app = graphs.unguarded_graph(graphs.chat_model(url),
                                     [graphs.search_docs, graphs.lookup_order])
        with pytest.raises(GraphRecursionError):
            app.invoke({"messages": [HumanMessage("go")]}, {"recursion_limit": 25})
    assert len(api.requests) == 13  # supersteps 1, 3, ..., 25 are agent runs


def test_default_recursion_limit_of_the_pinned_langgraph():
    from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

    assert int(DEFAULT_RECURSION_LIMIT) == 10_007


def test_guard_nudges_on_the_third_identical_call_and_halts_on_the_fourth(sol):
    api = FakeAPI(Scripted(graphs.PlanModel(graphs.STUCK_PLAN, forever=True)))
    with api.serve() as url:
        app = graphs.guarded_graph(graphs.chat_model(url), [graphs.search_docs],
                                   lambda s: sol["loop_guard"](s, repeat=3))
        out = app.invoke({"messages": [HumanMessage("go")], "halted": False})
    assert len(api.requests) == 4 and out["halted"] is True
    last_user = api.requests[3]["messages"][-1]
    assert sol["NUDGE"] in str(last_user["content"])


def test_offloaded_report_pointer_is_short_and_the_file_is_whole(sol, tmp_path):
    report = graphs.big_report("A-1042")
    assert (len(report), len(report.splitlines())) == (6_359, 120)
    api = FakeAPI(Scripted(graphs.PlanModel([("big_report", {"order_id": "A-1042"})])))
    with api.serve() as url:
        node = sol["offloading_tools"]([graphs.big_report], root=str(tmp_path))
        graphs.tools_graph(graphs.chat_model(url), [graphs.big_report], node).invoke(
            {"messages": [HumanMessage("go")]})
    sent = api.requests[-1]["messages"][-1]["content"][0]["content"]
    assert len(sent) <= 2000 and "read_artifact" in sent
    (saved,) = os.listdir(tmp_path)
    assert (tmp_path / saved).read_text() == report


def test_reader_refuses_a_sibling_folder_that_shares_the_prefix(sol, tmp_path):
    root = tmp_path / "artifacts"
    root.mkdir()
    (tmp_path / "artifacts-evil").mkdir()
    (tmp_path / "artifacts-evil" / "s.txt").write_text("secret")
    read = sol["artifact_reader"](str(root))
    assert read(str(tmp_path / "artifacts-evil" / "s.txt")).startswith("Error:")
    assert read("../artifacts-evil/s.txt").startswith("Error:")
    (root / "ok.txt").write_text("a\nb\nc")
    assert read("ok.txt", offset=1, limit=1) == "b"


def test_remaining_steps_in_the_first_step_is_the_limit_minus_one():
    # the notebook reads the default limit this way instead of running 10,007 steps
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.managed import RemainingSteps

    # the functional form: this module's annotations are strings (__future__)
    Peek = TypedDict("Peek", {"remaining_steps": RemainingSteps, "left": int})  # noqa: UP013
    g = StateGraph(Peek)
    g.add_node("peek", lambda state: {"left": state["remaining_steps"]})
    g.add_edge(START, "peek")
    g.add_edge("peek", END)
    app = g.compile()
    assert app.invoke({"left": 0}, {"recursion_limit": 25})["left"] == 24
    assert app.invoke({"left": 0})["left"] + 1 == 10_007


def test_refund_model_together_asks_for_the_read_and_the_write_in_one_turn():
    model = graphs.RefundModel(together=True)
    first = model({"messages": [{"role": "user", "content": "refund"}]})
    assert [b["name"] for b in first["content"] if b["type"] == "tool_use"] == [
        "lookup_order", "refund_order"]
    body = {"messages": [
        {"role": "user", "content": "refund"},
        {"role": "assistant", "content": first["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"],
                                      "content": "ok"}
                                     for b in first["content"] if b["type"] == "tool_use"]}]}
    assert model(body)["content"] == [{"type": "text", "text": graphs.ANSWER}]


def test_mixed_turn_pauses_before_both_calls(sol):
    from langgraph.checkpoint.memory import InMemorySaver

    shop, api = graphs.Shop(), FakeAPI(graphs.RefundModel(together=True))
    with api.serve() as url:
        app = sol["build_graph"](graphs.chat_model(url), shop.tools(),
                                 checkpointer=InMemorySaver(), approve=("refund_order",))
        assert sol["run_or_resume"](app, graphs.GOAL, thread_id="t") is None
        assert (shop.lookups, shop.refunds) == ([], [])
        assert sol["run_or_resume"](app, graphs.GOAL, thread_id="t") == graphs.ANSWER
    assert (shop.lookups, shop.refunds) == (["A-1042"], [("A-1042", 49.0)])


def test_pointer_fits_a_small_threshold(sol, tmp_path):
    def small(day: str) -> str:
        """A short answer."""
        return "x" * 2000

    api = FakeAPI(Scripted(graphs.PlanModel([("small", {"day": "Mon"})])))
    with api.serve() as url:
        node = sol["offloading_tools"]([small], root=str(tmp_path), threshold=500)
        graphs.tools_graph(graphs.chat_model(url), [small], node).invoke(
            {"messages": [HumanMessage("go")]})
    sent = api.requests[-1]["messages"][-1]["content"][0]["content"]
    (saved,) = os.listdir(tmp_path)
    assert len(sent) <= 500 and str(tmp_path / saved) in sent
