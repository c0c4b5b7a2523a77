# %% [markdown]
# # Tier 2 — The same guards in LangGraph
#
# **Points:** 22 autograded (twelve test cells) + 3 written = 25.
#
# You have written the loop (Lab 1), retry (Lab 2), the budget (Lab 3), the loop guard
# (Lab 4), the semantic cache (Lab 5) and the offloader (Lab 8) by hand. At work you will
# meet them inside a framework. LangGraph models the loop as a graph: **nodes** are
# functions that take the shared state and return an update, **edges** say which node runs
# next, and a **reducer** per state key says how an update is merged. This notebook builds
# each guard as a piece of a graph, runs it against the same fake API, and grades only
# what the framework changes. For each guard it says what LangGraph takes off your hands
# and what it leaves to you.
#
# LangGraph's model binding, `ChatAnthropic`, builds its own SDK client, so it cannot use
# the fake's transport the way `api.client()` does. Instead the fake is **served on
# loopback**: `with api.serve() as base_url:` runs it as a local HTTP server on
# `127.0.0.1` for the length of the block, and `graphs.chat_model(base_url)` points
# `ChatAnthropic` at it. Same replies, same 400s, same `api.requests` log. Nothing leaves
# the machine.
#
# **You implement** (each section repeats the details)
#
# ```python
# build_graph(llm, tools, *, checkpointer=None, approve=())  # -> compiled graph
# run_or_resume(app, goal, *, thread_id)      # -> final answer text, or None when paused
# should_retry(exc)                           # -> bool, the retry_on of a RetryPolicy
# BudgetState                                 # TypedDict: messages, spent (adds up)
# budget_route(state, *, limit_usd)           # -> "halt" | "tools" | END
# loop_guard(state, *, repeat=3)              # -> state update: {}, a nudge, or a halt
# cache_lookup(state, *, cache)               # -> state update; cache_route(state) -> str
# cache_store(state, *, cache)                # -> {} after storing the answer
# offloading_tools(tools, *, root, threshold=2000)  # -> a tool node function
# artifact_reader(root)                       # -> the read_artifact tool function
# ```
#
# Every graded cell has a visible check for the most likely mistake and **hidden tests**
# that check more cases. Everything runs offline in a few seconds.

# %%
import json
import operator
import os
import re
import sqlite3
import tempfile
from collections import Counter
from typing import Annotated, TypedDict

import anthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, MessagesState, StateGraph, add_messages
from langgraph.managed import RemainingSteps
from langgraph.prebuilt import ToolNode
from langgraph.types import RetryPolicy

from course.fakes import FakeAPI, Queue, Scripted
from course.wire import Reply, message, text
from course.worlds import graphs

MODEL = graphs.MODEL
NUDGE = graphs.NUDGE   # loop_guard's nudge (section 4); print it to read it
HALT = graphs.HALT     # ...and its halt
print("END is the string", repr(END))

# %% [markdown]
# ## 1. The loop as a graph, with a checkpointer
#
# Lab 1's loop is four decisions: call the model, stop on an answer, run *all* the tools of
# a turn, answer them in *one* message. As a graph that is an `agent` node, a `tools` node
# (`ToolNode`, which packs every result of a turn into the history for you), and a
# conditional edge after `agent`: tools if the last message asks for any, else `END`.
#
# The real gain is the **checkpointer**. Compile the graph with one and LangGraph saves the
# state after every step under a `thread_id`. If the process dies, a new process opens the
# same SQLite file, asks the graph for that thread's state, and **continues** from the
# step that did not finish. Without it, a crash at minute 39 of a 40-minute run throws all
# 39 minutes away.
#
# ### The bug: resuming by starting again
#
# Here the run dies during its second model call (the fake drops the connection), after
# the order lookup already ran. The "restart" below sends the goal again on the same
# thread, the obvious thing to do. Count the lookups:

# %%
def demo_graph(llm, tools, checkpointer):
    # the plain agent -> tools -> agent loop of Lab 1, compiled with a checkpointer
    return graphs.unguarded_graph(llm, tools, checkpointer=checkpointer)


db = os.path.join(tempfile.mkdtemp(), "runs.sqlite")
shop, api = graphs.Shop(), FakeAPI(graphs.RefundModel(drop_at=2))
config = {"configurable": {"thread_id": "ticket-7"}}
with api.serve() as base_url:
    saver = SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    app = demo_graph(graphs.chat_model(base_url), shop.tools(), saver)
    try:
        app.invoke({"messages": [HumanMessage(graphs.GOAL)]}, config)
    except anthropic.APIConnectionError as err:
        # langchain_anthropic re-raises it as its subclass AnthropicConnectionError
        print("run died: anthropic.APIConnectionError"
              f" (raised as {type(err).__name__}) | lookups so far:", shop.lookups)
    print("checkpoint says the next step is", app.get_state(config).next)
    # a new process: new connection, new graph, same file, same thread_id
    app = demo_graph(graphs.chat_model(base_url),
                     shop.tools(), SqliteSaver(sqlite3.connect(db, check_same_thread=False)))
    app.invoke({"messages": [HumanMessage(graphs.GOAL)]}, config)
print("lookups:", shop.lookups, "| refunds:", shop.refunds)

# %% [markdown]
# The checkpoint knew the next step was `agent`, with the lookup's result already in the
# history. Sending the goal again appended a *new* user request after it, and the model
# did what a model does with a fresh request: it started over and looked the order up a
# second time. For a read that costs a call. For a write it is a second refund.
#
# To continue a thread, invoke it with **`None`** as the input: "no new input, carry on
# from the checkpoint". `app.get_state(config).next` tells you whether the thread has a
# step pending (a non-empty tuple) or is finished or new (empty).
#
# ### Human approval on a write
#
# A graph compiled with `interrupt_before=["node"]` stops *before* that node runs and
# saves the state; the run is then paused, not dead. Invoking the thread with `None`
# later runs the node. So route any turn that calls a write tool to its own tool node,
# and interrupt before it: the write cannot happen until someone resumes. (Interrupting
# *after* the node pauses too, but only once the money has moved.)
#
# **What LangGraph takes off your hands:** saving state after every step, resuming a
# thread, pausing for a human without a process waiting. **What it leaves to you:** how
# you resume (with `None`, not the goal again), which tools need approval, and where the
# pause goes relative to the side effect.
#
# ### Implement
#
# * `build_graph(llm, tools, *, checkpointer=None, approve=())` returns the compiled
#   graph. State: `MessagesState`. Nodes: `"agent"` calls `llm.bind_tools(tools)` on the
#   messages and returns `{"messages": [reply]}`; `"tools"` and `"approved_tools"` are both
#   `ToolNode(tools)`. After `agent`: `END` when the last message has no `tool_calls`,
#   `"approved_tools"` when any of its calls names a tool in `approve`, else `"tools"`.
#   So a turn that asks for a read and a write together pauses as a whole: none of its
#   calls runs before approval. Both tool nodes lead back to `agent`. Compile with
#   `checkpointer=checkpointer` and `interrupt_before=["approved_tools"]`.
# * `run_or_resume(app, goal, *, thread_id)` uses the config
#   `{"configurable": {"thread_id": thread_id}}`. If the thread has a step pending, it
#   continues it with `app.invoke(None, config)`; otherwise it starts it with
#   `{"messages": [HumanMessage(goal)]}`. Any pending step counts: the `agent` step a
#   crash left behind or the `approved_tools` step of a pause. A finished thread has no
#   step pending, so a new goal on it starts a new turn on the same history. It returns
#   `None` when the thread is left paused (a step still pending after the call), else the
#   text of the last message as a `str` (`str(msg.text)`). Errors from the run (a dead connection) propagate unchanged.
# * Resuming a paused approval **is** the approval: the next `run_or_resume` on that
#   thread runs the write, once.

# %% id="resume" kind="solution"
def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    ### BEGIN SOLUTION
    model = llm.bind_tools(tools)

    def call_model(state):
        reply = model.invoke(state["messages"])
        return {"messages": [reply]}

    def after_agent(state):
        calls = state["messages"][-1].tool_calls
        if not calls:
            return END
        return "approved_tools" if any(c["name"] in approve for c in calls) else "tools"

    graph = StateGraph(MessagesState)
    graph.add_edge(START, "agent")
    graph.add_node("agent", call_model)
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    for name in ("tools", "approved_tools"):
        graph.add_node(name, ToolNode(tools))
        graph.add_edge(name, "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])
    ### END SOLUTION


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    ### BEGIN SOLUTION
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        out = app.invoke(None, config)
    else:
        out = app.invoke({"messages": [HumanMessage(goal)]}, config)
    if app.get_state(config).next:
        return None
    return str(out["messages"][-1].text)
    ### END SOLUTION

# %% [markdown]
# ### Graded: section 1
#
# Each cell serves its own fake, so it depends only on your functions.

# %% id="resume_no_duplicate" kind="tests" points=3
def crash_and_resume():
    folder = tempfile.mkdtemp()
    shop, api = graphs.Shop(), graphs.refund_api(drop_at=2)
    with api.serve() as url:
        def saver():
            return SqliteSaver(sqlite3.connect(os.path.join(folder, "cp.sqlite"),
                                               check_same_thread=False))
        first = build_graph(graphs.chat_model(url), shop.tools(), checkpointer=saver())
        try:
            run_or_resume(first, graphs.GOAL, thread_id="t-1")
        except anthropic.APIConnectionError:
            pass
        else:
            raise AssertionError("the run did not die on the dropped connection; "
                                 "let errors from app.invoke propagate")
        again = build_graph(graphs.chat_model(url), shop.tools(), checkpointer=saver())
        out = run_or_resume(again, graphs.GOAL, thread_id="t-1")
    return shop, api, out


shop, api, out = crash_and_resume()
assert shop.lookups == ["A-1042"], (
    f"lookup ran {len(shop.lookups)} times across the crash; resume with app.invoke(None, "
    "config), not the goal again")
assert shop.refunds == [("A-1042", 49.0)], (
    f"refunds after the resume: {shop.refunds}; the resumed run must refund once")
assert type(out) is str and out == graphs.ANSWER, (
    f"the resumed run returned {out!r} ({type(out).__name__}); expected the final answer "
    "as a str, str(msg.text) of the last message")
offered = [t.get("name") for t in api.requests[0].get("tools", [])]
assert offered == ["lookup_order", "refund_order"], (
    f"the model was offered the tools {offered}; the agent node must call the model "
    "bound with llm.bind_tools(tools)")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(crash_thread=("t-9", "t-23", "ticket-58", "case-4410", "run-7b", "order-A-1042"),
                  crash_drop_at=(1, 2, 3))


def first_run():
    folder = tempfile.mkdtemp()
    shop, api = graphs.Shop(), graphs.refund_api(drop_at=h.crash_drop_at)
    with api.serve() as url:
        app = build_graph(graphs.chat_model(url), shop.tools(), checkpointer=SqliteSaver(
            sqlite3.connect(os.path.join(folder, "cp.sqlite"), check_same_thread=False)))
        try:
            out = run_or_resume(app, graphs.GOAL, thread_id=h.crash_thread)
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - what it raised is the observation
            return {"value": None, "raised": [c.__name__ for c in type(exc).__mro__]}
        return {"value": out, "raised": None}


rec = record(died=first_run(), lookups=shop.lookups, refunds=shop.refunds, out=out,
             out_type=type(out).__name__, requests=api.requests)
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs
from course.worlds import graphs

h = hidden_inputs(crash_thread=("t-9", "t-23", "ticket-58", "case-4410", "run-7b", "order-A-1042"),
                  crash_drop_at=(1, 2, 3))
died = rec["died"]
assert died["raised"] is not None and "APIConnectionError" in died["raised"], (
    f"a new thread {h.crash_thread!r} whose model call {h.crash_drop_at} drops the connection "
    f"did not die (it gave {died}); let errors from app.invoke propagate unchanged")
lookups = rec["lookups"]
assert lookups == ["A-1042"], (
    f"lookup ran {len(lookups)} times across the crash; resume with app.invoke(None, "
    "config), not the goal again")
refunds = [tuple(r) for r in rec["refunds"]]
assert refunds == [("A-1042", 49.0)], f"refunds after resume: {refunds}; expected one"
assert rec["out"] == graphs.ANSWER and rec["out_type"] == "str", (
    f"resumed run returned {rec['out']!r} ({rec['out_type']}); the final answer text as a "
    "str was expected")
log = log_of(rec["requests"])
reqs = [r["messages"] for r in log]
assert len(reqs) == 4, (
    f"{len(reqs)} model calls; 2 before the crash (one dropped) and 2 after it")
roles = [m["role"] for m in reqs[2]]
assert roles == ["user", "assistant", "user"], (
    f"the resumed request has roles {roles}; the checkpoint's history "
    "(goal, tool call, tool result) must be sent unchanged")
offered = [[t.get("name") for t in r.get("tools", [])] for r in log]
assert all(names == ["lookup_order", "refund_order"] for names in offered), (
    f"tools offered per request: {offered}; bind the tools to the model")
### END HIDDEN TESTS

# %% id="approval_before_write" kind="tests" points=2
from langgraph.checkpoint.memory import InMemorySaver


def approval_run(approve, *, together=False):
    # start (it pauses), what ran while paused, approve (resume), then a new goal
    shop, api = graphs.Shop(), graphs.refund_api(together=together)
    with api.serve() as url:
        app = build_graph(graphs.chat_model(url), shop.tools(), checkpointer=InMemorySaver(),
                          approve=approve)
        paused = run_or_resume(app, graphs.GOAL, thread_id="t-2")
        while_paused = {"lookups": list(shop.lookups), "refunds": list(shop.refunds)}
        done = run_or_resume(app, graphs.GOAL, thread_id="t-2")
        again = run_or_resume(app, "It is broken again. Please refund it.", thread_id="t-2")
    return shop, api, paused, while_paused, done, again


shop, api, paused, while_paused, done, again = approval_run(("refund_order",))
refunds_while_paused = while_paused["refunds"]
assert refunds_while_paused == [], (
    f"the refund ran before approval ({refunds_while_paused}); interrupt BEFORE the tool "
    "node that runs a write")
assert paused is None, f"a thread paused at approval must return None; got {paused!r}"
assert shop.refunds == [("A-1042", 49.0)], (
    f"after approval the refunds are {shop.refunds}; the write must run exactly once")
assert done == graphs.ANSWER, (
    f"resuming the paused thread returned {done!r}; continue the pending step with "
    "app.invoke(None, config) and return the answer")
assert again is None and shop.lookups == ["A-1042", "A-1042"], (
    f"a new goal on the finished thread returned {again!r} (lookups {shop.lookups}); a "
    "finished thread has no step pending (.next is empty): start a new turn with the goal")
mixed = {}
for approve in (("refund_order",), ("lookup_order",)):
    _shop, _api, mixed_paused, mixed_while, _done, _again = approval_run(approve, together=True)
    mixed[approve[0]] = {"paused": mixed_paused, "while_paused": mixed_while}
    assert mixed_paused is None and mixed_while == {"lookups": [], "refunds": []}, (
        f"one turn called lookup_order and refund_order, approve={approve}: it returned "
        f"{mixed_paused!r} and ran {mixed_while} before approval; pause when ANY call of "
        "the turn is in approve, not only the first, the last or all of them")


def two_threads():
    # one app, two tickets: thread 't-3' pauses at approval, then thread 't-4' starts
    shop, api = graphs.Shop(), graphs.refund_api()
    with api.serve() as url:
        app = build_graph(graphs.chat_model(url), shop.tools(), checkpointer=InMemorySaver(),
                          approve=("refund_order",))
        first = run_or_resume(app, graphs.GOAL, thread_id="t-3")
        second = run_or_resume(app, graphs.GOAL, thread_id="t-4")
    return {"first": first, "second": second, "lookups": list(shop.lookups),
            "refunds": list(shop.refunds)}


threads = two_threads()
assert threads == {"first": None, "second": None, "lookups": ["A-1042", "A-1042"],
                   "refunds": []}, (
    f"thread 't-4' did not start a run of its own beside paused 't-3': {threads}; the config "
    "is {'configurable': {'thread_id': thread_id}}, from the thread_id argument")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(paused=paused, while_paused=refunds_while_paused, refunds=shop.refunds,
             lookups=shop.lookups, done=done, requests=api.requests, again=again,
             mixed=mixed, threads=two_threads())
### JUDGE
from course.hub import log_of
from course.worlds import graphs

while_paused = [tuple(r) for r in rec["while_paused"]]
assert while_paused == [], (
    f"the refund ran before approval ({while_paused}); interrupt BEFORE the tool "
    "node that runs a write")
refunds = [tuple(r) for r in rec["refunds"]]
assert refunds == [("A-1042", 49.0)], (
    f"after approval the refunds are {refunds}; the write must run exactly once")
assert rec["paused"] is None, f"a paused thread must return None, got {rec['paused']!r}"
assert rec["lookups"] == ["A-1042", "A-1042"], (
    f"lookups {rec['lookups']}: a read tool outside `approve` runs without a pause, once "
    "per goal (the first goal and the new one)")
assert rec["done"] == graphs.ANSWER, (
    f"after approval the run must finish with the answer; got {rec['done']!r}")
calls = len(log_of(rec["requests"]))
assert calls == 5, (
    f"{calls} model calls; lookup, refund, answer, then lookup and refund for the new goal "
    "is 5")
assert rec["again"] is None, "a new goal on a finished thread starts a new turn (it pauses)"
for name, got in rec["mixed"].items():
    ran = got["while_paused"]
    assert got["paused"] is None and ran["lookups"] == [] and ran["refunds"] == [], (
        f"a turn with a read and a write (approve {name}) ran {ran} before approval")
threads = rec["threads"]
assert threads == {"first": None, "second": None, "lookups": ["A-1042", "A-1042"],
                   "refunds": []}, (
    f"thread 't-4' on the app where 't-3' is paused gave {threads}; each thread_id is a run "
    "of its own: 't-4' must look the order up and pause too, and nothing be refunded")
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Retry as a node policy
#
# In LangGraph you do not write Lab 2's loop: you attach
# `RetryPolicy(max_attempts, initial_interval, backoff_factor, jitter, retry_on)` to a node
# (`add_node(..., retry_policy=...)`) and a failed node runs again from the state it
# started with. That is worth having: a retried node does not redo the steps before it.
#
# But read what the policy does with an API error. Its default `retry_on` retries every
# exception that is not a plain Python error (`ValueError`, `OSError`, ...), and
# `anthropic.BadRequestError` is none of those. So a **400**, a request that will fail
# the same way every time, is retried:

# %%
api = FakeAPI(Queue([Reply.error(400, "messages: roles must alternate")] * 3))
with api.serve() as url:
    app = graphs.retry_graph(graphs.chat_model(url),
                             RetryPolicy(max_attempts=3, initial_interval=0.001, jitter=False))
    try:
        app.invoke({"messages": [HumanMessage("hi")]})
    except anthropic.BadRequestError:
        pass
print("a 400 was sent", len(api.requests), "times with the default retry_on")

# %% [markdown]
# And the wait. A 429 carries `retry-after`, the server's own estimate of when capacity
# returns; Lab 2 waits that long. `RetryPolicy` never sees the response, so it waits its
# own schedule: `initial_interval * backoff_factor ** k`, plus, with `jitter=True`, a
# random **0 to 1 second** added whatever the interval (not a share of it, as in Lab 2):

# %%
import time  # noqa: E402

when = []
api = FakeAPI(Queue([Reply.error(429, retry_after=20), message([text("fine")])]))
api.on_request(lambda body, response: when.append(time.monotonic()))
with api.serve() as url:
    app = graphs.retry_graph(graphs.chat_model(url),
                             RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False))
    app.invoke({"messages": [HumanMessage("hi")]})
gap = when[1] - when[0]   # wall time: compared with 10 s, so a busy machine prints the same
print("the server asked for 20 s; the retry came",
      "before 10 s had passed" if gap < 10 else "only after the 20 s")
policy = RetryPolicy(max_attempts=5, initial_interval=1.0, backoff_factor=2.0)
print("waits of RetryPolicy(max_attempts=5, initial_interval=1.0):",
      [policy.initial_interval * policy.backoff_factor ** k
       for k in range(policy.max_attempts - 1)], "+ up to 1 s jitter each")

# %% [markdown]
# Two more things to keep: `ChatAnthropic` has its own SDK retries (2 by default); keep
# them at `max_retries=0` (as `graphs.chat_model` does) or the two layers multiply. And if
# `retry-after` matters to you (it does under a shared rate limit), you are back to
# Lab 2's code inside the node.
#
# **What LangGraph takes off your hands:** the retry loop and the backoff schedule, per
# node. **What it leaves to you:** which errors are worth retrying (`retry_on`), and
# honouring `retry-after`.
#
# ### Implement
#
# `should_retry(exc) -> bool`, to pass as `retry_on`. It returns `True` for
# `anthropic.RateLimitError` (429), for any `anthropic.APIStatusError` whose
# `status_code` is 500 or above (500, 529 overloaded, ...), and for
# `anthropic.APIConnectionError` (a dropped connection or a timeout). It returns `False`
# for every other exception: any other 4xx (400, 401, 403, 404, 413, ...), and anything
# that is not an API error (`ValueError`, `KeyError`, ...).

# %% id="retry" kind="solution"
def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    ### BEGIN SOLUTION
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    return isinstance(exc, anthropic.APIConnectionError)
    ### END SOLUTION

# %% [markdown]
# ### Graded: section 2
#
# The tests pass tiny intervals (`initial_interval=0.001`, no jitter), so nothing waits.

# %% id="retries_429" kind="tests" points=1
def run_retried(replies, n=4):
    # the fake and how the run ended: the reply's text, or the error's class name
    api = graphs.queue_api(replies)
    with api.serve() as url:
        app = graphs.retry_graph(graphs.chat_model(url), RetryPolicy(
            max_attempts=n, initial_interval=0.001, jitter=False, retry_on=should_retry))
        try:
            out = app.invoke({"messages": [HumanMessage("hi")]})
        except anthropic.APIError as err:
            return api, type(err).__name__
    return api, str(out["messages"][-1].text)


def attempts(replies, n=4):
    # (model calls, how the run ended)
    api, ended = run_retried(replies, n)
    return len(api.requests), ended


ok = message([text("fine")])
made = attempts([Reply.error(429, retry_after=1), Reply.error(429, retry_after=1), ok])
assert made == (3, "fine"), (
    f"two 429s then a reply gave {made}; a 429 is rate limiting: retry it (expected 3 calls)")
five_xx = attempts([Reply.error(500), Reply.error(529), ok])
assert five_xx == (3, "fine"), (
    f"a 500, a 529, then a reply gave {five_xx}; every status of 500 or above is retried "
    "(>= 500, not > 500, not a short list)")
dropped = attempts([Reply.dropped(), ok])
assert dropped == (2, "fine"), (
    f"a dropped connection then a reply gave {dropped}; anthropic.APIConnectionError "
    "(a drop or a timeout) is retried")
value_error = should_retry(ValueError("bad"))
assert value_error is False, (
    f"should_retry(ValueError()) returned {value_error!r}; an error that is not an API "
    "error gives False (the bool, not None)")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

def observed(replies):
    api, ended = run_retried(replies)
    return {"requests": api.requests, "ended": ended}


rec = record(two_429=observed([Reply.error(429, retry_after=1)] * 2 + [ok]),
             five_xx=observed([Reply.error(500), Reply.error(529), ok]),
             dropped=observed([Reply.dropped(), ok]),
             value_error=outcome(should_retry, ValueError("bad")))
### JUDGE
from course.hub import log_of


def made(run):
    return len(log_of(run["requests"])), run["ended"]


got = made(rec["two_429"])
assert got == (3, "fine"), (
    f"two 429s then a reply gave {got}; a 429 is rate limiting: retry it "
    "(expected 3 calls)")
got = made(rec["five_xx"])
assert got == (3, "fine"), f"500 then 529 then a reply gave {got}; 5xx must be retried"
got = made(rec["dropped"])
assert got == (2, "fine"), f"a dropped connection then a reply gave {got}; retry it"
got = rec["value_error"]
assert got["raised"] is None and got["value"] is False, (
    f"a ValueError is not an API error: should_retry must return False; got {got}")
### END HIDDEN TESTS

# %% id="no_retry_400" kind="tests" points=2
made = attempts([Reply.error(400, "bad request")] * 3 + [ok])
assert made[0] == 1, (
    f"a 400 was sent {made[0]} times; a 4xx other than 429 fails the same way again: "
    "should_retry must return False")
statuses = {status: attempts([Reply.error(status)] * 3 + [ok]) for status in (401, 403, 404, 413)}
for status, got in statuses.items():
    assert got[0] == 1, (
        f"a {status} was sent {got[0]} times; only 429 and 5xx are retried, every other "
        "4xx is not")
key_error = should_retry(KeyError("x"))
assert key_error is False, (
    f"should_retry(KeyError()) returned {key_error!r}; a plain Python error is not worth a "
    "retry: return False")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

def sent(replies):
    return run_retried(replies)[0].requests


rec = record(bad_request=sent([Reply.error(400, "bad request")] * 3 + [ok]),
             statuses={status: sent([Reply.error(status)] * 3 + [ok])
                       for status in (401, 403, 404, 413)},
             key_error=outcome(should_retry, KeyError("x")))
### JUDGE
from course.hub import log_of

times = len(log_of(rec["bad_request"]))
assert times == 1, (
    f"a 400 was sent {times} times; a 4xx other than 429 fails the same way again: "
    "should_retry must return False")
for status, log in rec["statuses"].items():
    times = len(log_of(log))
    assert times == 1, f"a {status} was sent {times} times; only 429 and 5xx are retried"
got = rec["key_error"]
assert got["raised"] is None and got["value"] is False, (
    f"a KeyError is not worth a retry: should_retry must return False; got {got}")
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Budget in state
#
# In a graph the money spent so far is part of the state, and a node does not set it: it
# returns what **it** spent. How that is merged is the key's **reducer**, written in the
# type: `spent: Annotated[float, operator.add]` means "new value = old + update". A key
# with no reducer keeps the last value written, so each model call would *overwrite* the
# total with its own cost, and the total would never grow.
#
# A conditional edge after `agent` reads the total: at or over the limit it goes to a
# `halt` node that writes a partial report and ends. A halt is a node, not an exception, so the
# caller still gets a state back. The edge is the rule from Lab 3: stop **at** the limit
# (`spent >= limit_usd`), because the next call is billed before anyone can check.
#
# **What LangGraph takes off your hands:** carrying the total between steps and routing on
# it. **What it leaves to you:** the reducer (one word in a type) and the comparison.
#
# ### Implement
#
# * `BudgetState`: a `TypedDict` with `messages: Annotated[list, add_messages]` and
#   `spent: Annotated[float, operator.add]`. A run starts with `spent` 0.0 and the
#   `agent` node returns `{"messages": [reply], "spent": <this call's cost>}`.
# * `budget_route(state, *, limit_usd)` returns `"halt"` when `state["spent"] >= limit_usd`
#   (compared as floats, exactly like that), whatever the last message is; otherwise
#   `"tools"` when the last message has `tool_calls`, else `END`. The `halt` node of
#   `graphs.budget_graph` then appends its report, `"stopped: budget of $2.00 reached
#   (spent $2.00)"` for a \$2.00 limit, and the run ends with the whole history kept.

# %% id="budget" kind="solution"
### BEGIN SOLUTION
class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    return "tools" if state["messages"][-1].tool_calls else END
### END SOLUTION

# %% [markdown]
# Run it: a stuck model, \$0.50 a call, a \$2.00 limit. `graphs.budget_graph` wires
# `agent -> budget_route -> tools | halt | END`, `tools -> agent`, and the agent node
# charges `usd_per_call` on every call.

# %%
api = FakeAPI(Scripted(graphs.PlanModel(graphs.STUCK_PLAN, forever=True)))
with api.serve() as url:
    app = graphs.budget_graph(graphs.chat_model(url), [graphs.search_docs], BudgetState,
                              budget_route, limit_usd=2.00, usd_per_call=0.50)
    try:
        out = app.invoke({"messages": [HumanMessage("refund policy?")], "spent": 0.0},
                         {"recursion_limit": 40})
        print(f"{len(api.requests)} model calls, spent ${out['spent']:.2f} of a $2.00 limit;"
              f" the halt node's report: {str(out['messages'][-1].text)!r}")
    except NotImplementedError:
        print("implement BudgetState and budget_route above")

# %% [markdown]
# ### Graded: section 3

# %% id="reducer_adds" kind="tests" points=2
def stuck_budget_run(limit, per_call, *, fake=False):
    # the final state and the number of model calls (with fake=True, the fake itself)
    api = graphs.plan_api(graphs.STUCK_PLAN, forever=True)
    with api.serve() as url:
        app = graphs.budget_graph(graphs.chat_model(url), [graphs.search_docs], BudgetState,
                                  budget_route, limit_usd=limit, usd_per_call=per_call)
        try:
            out = app.invoke({"messages": [HumanMessage("q")], "spent": 0.0},
                             {"recursion_limit": 60})
        except GraphRecursionError:
            raise AssertionError(
                f"the run was never halted in {len(api.requests)} calls of ${per_call:.2f} "
                f"against ${limit:.2f}; spent must ADD (operator.add), not overwrite, and "
                "budget_route must return 'halt' at the limit") from None
    return out, api if fake else len(api.requests)


out, calls = stuck_budget_run(2.00, 0.50)
assert out["spent"] == 0.50 * calls, (
    f"after {calls} calls of $0.50 spent is {out['spent']}; the reducer must add the deltas")
report = str(out["messages"][-1].text)
assert report.startswith("stopped: budget of $2.00 reached"), (
    f"the run ended with {report!r}; at the limit budget_route must send it to the halt node")
kept = len(out["messages"])
assert kept == 2 * calls + 1 and str(out["messages"][0].text) == "q", (
    f"{kept} messages in the final state after {calls} calls (expected {2 * calls + 1}: the "
    "question, each reply and tool result, the report); messages needs add_messages")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(budget_limit=(0.75, 1.0, 1.25, 1.5), budget_per_call=(0.125, 0.25, 0.375))


def observed(limit, per_call):
    out, api = stuck_budget_run(limit, per_call, fake=True)
    return {"spent": out["spent"], "requests": api.requests, "kept": len(out["messages"]),
            "last": str(out["messages"][-1].text)}


rec = record(first=observed(2.00, 0.50),
             drawn=outcome(observed, h.budget_limit, h.budget_per_call))
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs

h = hidden_inputs(budget_limit=(0.75, 1.0, 1.25, 1.5), budget_per_call=(0.125, 0.25, 0.375))

first = rec["first"]
first["calls"] = len(log_of(first["requests"]))
assert first["spent"] == 0.50 * first["calls"], (
    f"after {first['calls']} calls of $0.50 spent is {first['spent']}; the reducer must add "
    "the deltas")
limit, per_call = h.budget_limit, h.budget_per_call
drawn = rec["drawn"]
assert drawn["raised"] is None, drawn["raised"] and drawn["raised"]["message"]
got = drawn["value"]
got["calls"] = len(log_of(got["requests"]))
assert got["spent"] == per_call * got["calls"] and got["spent"] >= limit, (
    f"${per_call:g} a call against a ${limit:.2f} limit gave spent {got['spent']} after "
    f"{got['calls']} calls; the total must be the sum of every call's cost (operator.add), "
    "and the run halts once it reaches the limit")
assert str(got["last"]).startswith(f"stopped: budget of ${limit:.2f} reached"), (
    f"the halt node's report ends the run; it ended with {got['last']!r}")
assert first["kept"] == 2 * first["calls"] + 1, (
    f"{first['kept']} messages kept after {first['calls']} calls; messages needs add_messages")
assert first["last"].startswith("stopped: budget"), "the halt node's report ends the run"
### END HIDDEN TESTS

# %% id="routes_at_limit" kind="tests" points=2
asks = AIMessage("", tool_calls=[{"name": "search_docs", "args": {"q": "x"}, "id": "t1"}])
answer = AIMessage("done")
got = budget_route({"messages": [asks], "spent": 2.0}, limit_usd=2.0)
assert got == "halt", (
    f"spent 2.00 against a 2.00 limit routed to {got!r}; halt AT the limit (spent >= limit)")
for last, spent, want in ((asks, 1.99, "tools"), (answer, 0.5, END), (answer, 2.5, "halt"),
                          (asks, 2.5, "halt")):
    route = budget_route({"messages": [last], "spent": spent}, limit_usd=2.0)
    assert route == want, (
        f"spent {spent} of 2.00 with {'a tool call' if last.tool_calls else 'an answer'} "
        f"last routed to {route!r}, expected {want!r}; check the budget first, then the "
        "tool calls")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

rec = record(at_limit=got,
             under_tools=outcome(budget_route, {"messages": [asks], "spent": 1.99},
                                 limit_usd=2.0),
             under_answer=outcome(budget_route, {"messages": [answer], "spent": 0.5},
                                  limit_usd=2.0),
             over_answer=outcome(budget_route, {"messages": [answer], "spent": 2.5},
                                 limit_usd=2.0))
### JUDGE
from course.worlds import graphs

got = rec["at_limit"]
assert got == "halt", (
    f"spent 2.00 against a 2.00 limit routed to {got!r}; halt AT the limit (spent >= limit)")
got = rec["under_tools"]
assert got["raised"] is None and got["value"] == "tools", (
    f"under the limit with a tool call routed to {got['value']!r}, not 'tools' "
    f"(raised: {got['raised']})")
got = rec["under_answer"]
assert got["raised"] is None and got["value"] == graphs.END, (
    f"under the limit with an answer routed to {got['value']!r}, not END "
    f"(raised: {got['raised']})")
got = rec["over_answer"]
assert got["raised"] is None and got["value"] == "halt", (
    f"over the limit routed to {got['value']!r}, not 'halt' (raised: {got['raised']})")
### END HIDDEN TESTS

# %% [markdown]
# ## 4. The loop guard as a node
#
# LangGraph has a step cap of its own: `recursion_limit` counts **supersteps** (every
# round of node runs) and raises `GraphRecursionError` when the count is reached. It is
# often quoted as 25 and called loop protection. Check both claims. First the default in
# the version this course pins, read through the public API only: a state key typed
# `RemainingSteps` (from `langgraph.managed`) is filled in by LangGraph with the number
# of supersteps the run has left after the current one. A one-node graph reads it in its
# first superstep, which is one of the limit's, so the limit is that number plus 1.

# %%
class Peek(TypedDict):
    remaining_steps: RemainingSteps
    left: int


peek = StateGraph(Peek)
peek.add_node("peek", lambda state: {"left": state["remaining_steps"]})
peek.set_entry_point("peek")
peek.set_finish_point("peek")
peek = peek.compile()
print("with recursion_limit=25 the first step has",
      peek.invoke({"left": 0}, {"recursion_limit": 25})["left"], "left")
default_limit = peek.invoke({"left": 0})["left"] + 1
print(f"default recursion_limit: {default_limit:,} supersteps, about "
      f"{default_limit // 2:,} model calls of a stuck agent -> tools loop")

# %% [markdown]
# So with the defaults nothing stops a stuck loop for thousands of model calls. Now set
# the often-quoted 25 explicitly and run a stuck model, then an honest task that looks up
# 14 different orders:

# %%
for name, plan, forever in (("stuck", graphs.STUCK_PLAN, True),
                            ("14 lookups", graphs.lookup_plan(14), False)):
    api = FakeAPI(Scripted(graphs.PlanModel(plan, forever=forever, answer="all delivered")))
    with api.serve() as url:
        app = graphs.unguarded_graph(graphs.chat_model(url),
                                     [graphs.search_docs, graphs.lookup_order])
        try:
            app.invoke({"messages": [HumanMessage("go")]}, {"recursion_limit": 25})
            print(f"{name}: finished after {len(api.requests)} model calls")
        except GraphRecursionError:
            print(f"{name}: GraphRecursionError after {len(api.requests)} model calls")

# %% [markdown]
# Both runs are stopped at the same place: 25 supersteps, 13 model calls. The stuck run
# paid for 13 identical searches before it was stopped, and the honest run, which needs 15
# model calls, was killed for being long. `recursion_limit` is a **step cap**: it bounds
# cost, it cannot tell a loop from work. Keep it, set it from your longest legitimate run
# (the default is far too high to bound cost), and put a real loop detector in the graph.
#
# Lab 4's guard becomes a `guard` node between `tools` and `agent`. Its first trip adds a
# **nudge** to the state (the model reads it on its next call and may change course); if
# the loop goes on after a nudge, the guard **halts**. Nudge first, halt second: a model
# that was never told it is looping has had no chance to stop.
#
# **What LangGraph takes off your hands:** a place for the guard in every cycle, state to
# keep its evidence in. **What it leaves to you:** the detection itself.
#
# ### Implement
#
# `loop_guard(state, *, repeat=3) -> dict` runs after every tools step, in a state with
# `messages` and `halted` (`graphs.guarded_graph` wires `tools -> guard -> agent`, or
# `END` once `halted` is true). A tool call's identity is its name and its arguments
# (`json.dumps(args, sort_keys=True)`). Count the identity of every call in every
# `AIMessage` of the history. If none of the calls of the **latest** `AIMessage` has been
# made `repeat` times or more, return `{}`. Otherwise, if no `HumanMessage` in the history
# has content equal to `NUDGE`, return `{"messages": [HumanMessage(NUDGE)]}`; if one
# has, return `{"messages": [AIMessage(HALT)], "halted": True}`. `NUDGE` and `HALT` are
# in the first code cell. Different calls never trip it, however many there are.

# %% id="guard" kind="solution"
def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    ### BEGIN SOLUTION
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    asked = [m for m in state["messages"] if isinstance(m, AIMessage)]
    if not asked or not asked[-1].tool_calls:
        return {}
    seen = Counter(identity(c) for m in asked for c in m.tool_calls)
    if max(seen[identity(c)] for c in asked[-1].tool_calls) < repeat:
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE
                 for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
    ### END SOLUTION

# %% [markdown]
# ### Graded: section 4

# %% id="nudge_then_halt" kind="tests" points=2
def guarded_run(plan, forever, repeat=3):
    api = graphs.plan_api(plan, forever=forever, answer="all delivered")
    with api.serve() as url:
        app = graphs.guarded_graph(graphs.chat_model(url),
                                   [graphs.search_docs, graphs.lookup_order],
                                   lambda s: loop_guard(s, repeat=repeat))
        out = app.invoke({"messages": [HumanMessage("go")], "halted": False},
                         {"recursion_limit": 100})
    return out, api


def history(*turns, nudge_after=None):
    # a history of turns, each one call (name, args) or a list of the calls of one turn;
    # NUDGE goes after turn nudge_after
    msgs = [HumanMessage("go")]
    for i, turn in enumerate(turns):
        calls = turn if isinstance(turn, list) else [turn]
        ids = [f"c{i}-{k}" for k in range(len(calls))]
        msgs.append(AIMessage("", tool_calls=[{"name": name, "args": args, "id": c}
                                              for (name, args), c in zip(calls, ids)]))
        msgs += [ToolMessage("no match", tool_call_id=c) for c in ids]
        if i == nudge_after:
            msgs.append(HumanMessage(NUDGE))
    return {"messages": msgs, "halted": False}


out, api = guarded_run(graphs.STUCK_PLAN, True)
nudged = [i for i, r in enumerate(api.requests) if NUDGE in json.dumps(r["messages"])]
assert nudged, (
    f"the run ended after {len(api.requests)} model calls and none carried NUDGE; "
    "nudge on the first trip, halt only if it trips again")
assert (len(api.requests), nudged[0]) == (4, 3), (
    f"{len(api.requests)} model calls, first nudge in request {nudged[0]}; expected the "
    "nudge after the 3rd identical call (count >= repeat) and the halt after the 4th")
assert api.requests[3]["messages"][-1]["role"] == "user", (
    "the nudge reached the model as an assistant message; add it as HumanMessage(NUDGE)")
assert out["halted"] is True and str(out["messages"][-1].text) == HALT, (
    f"after the nudge the next repeat must return AIMessage(HALT) and halted=True; the run "
    f"ended with halted={out['halted']!r}, last message {str(out['messages'][-1].text)!r}")
q = ("search_docs", {"q": "refund", "lang": "en"})
cases = [("two repeats, repeat=3", history(q, q), 3, "go on"),
         ("two repeats, repeat=2", history(q, q), 2, "nudge"),
         ("same args in another key order", history(q, ("search_docs", {"lang": "en",
                                                                        "q": "refund"}), q),
          3, "nudge"),
         ("a repeat after the nudge", history(q, q, q, q, nudge_after=2), 3, "halt"),
         ("the same call between other calls",
          history(q, ("lookup_order", {"order_id": "A-1"}), q,
                  ("lookup_order", {"order_id": "A-2"}), q), 3, "nudge"),
         ("the same args under another tool name",
          history(("search_docs", {"order_id": "A-1"}), ("lookup_order", {"order_id": "A-1"}),
                  ("search_docs", {"order_id": "A-1"})), 3, "go on"),
         ("a repeat as the second call of the latest turn",
          history(q, q, [("lookup_order", {"order_id": "A-1"}), q]), 3, "nudge")]
kinds = {}
for what, state, repeat, want in cases:
    got = loop_guard(state, repeat=repeat)
    kind = ("go on" if got == {} else "halt" if got.get("halted") is True
            else "nudge" if [type(m).__name__ for m in got.get("messages", [])]
            == ["HumanMessage"] and got["messages"][0].content == NUDGE else repr(got))
    kinds[what] = kind
    assert kind == want, (
        f"loop_guard on {what} gave {kind}, expected {want}; count every call of every "
        "AIMessage, identity name + json.dumps(args, sort_keys=True), against repeat (>=)")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(guard_repeat=(2, 4, 5, 6),
                  guard_query=("refund policy for damaged goods", "return window for opened items",
                               "warranty on refurbished phones", "shipping cost to Norway",
                               "how to cancel an order"))
_out2, _api2 = guarded_run([("search_docs", {"q": h.guard_query})], True, repeat=h.guard_repeat)
rec = record(requests=api.requests, halted=out["halted"], last=str(out["messages"][-1].text),
             drawn=_api2.requests, drawn_halted=_out2["halted"],
             drawn_last=str(_out2["messages"][-1].text), kinds=kinds)
### JUDGE
import json

from course.hub import log_of
from course.observe import hidden_inputs
from course.worlds.graphs import HALT, NUDGE

h = hidden_inputs(guard_repeat=(2, 4, 5, 6),
                  guard_query=("refund policy for damaged goods", "return window for opened items",
                               "warranty on refurbished phones", "shipping cost to Norway",
                               "how to cancel an order"))

reqs = [r["messages"] for r in log_of(rec["requests"])]
nudged = [i for i, r in enumerate(reqs) if NUDGE in json.dumps(r)]
assert nudged, (
    f"the run ended after {len(reqs)} model calls and none carried NUDGE; "
    "nudge on the first trip, halt only if it trips again")
assert len(reqs) == 4 and nudged == [3], (
    f"{len(reqs)} model calls, nudge in requests {nudged}; expected the nudge after "
    "the 3rd identical call and the halt after the 4th")
assert rec["halted"] is True and rec["last"] == HALT, (
    "after the nudge the next repeat must halt with HALT and halted=True")
repeat = h.guard_repeat
drawn = [r["messages"] for r in log_of(rec["drawn"])]
drawn_nudged = [i for i, r in enumerate(drawn) if NUDGE in json.dumps(r)]
assert len(drawn) == repeat + 1 and drawn_nudged[:1] == [repeat], (
    f"a model stuck on search_docs(q={h.guard_query!r}) with repeat={repeat}: {len(drawn)} "
    f"model calls, first nudge in request {drawn_nudged[:1]}; expected the nudge after the "
    f"call made {repeat} times (count >= repeat, the repeat argument) and the halt after the "
    f"next, {repeat + 1} calls")
assert rec["drawn_halted"] is True and rec["drawn_last"] == HALT, (
    f"repeat={repeat}: after the nudge the next repeat must halt with HALT and halted=True; "
    f"got halted={rec['drawn_halted']!r}, last message {rec['drawn_last']!r}")
assert rec["kinds"] == {"two repeats, repeat=3": "go on", "two repeats, repeat=2": "nudge",
                        "same args in another key order": "nudge",
                        "a repeat after the nudge": "halt",
                        "the same call between other calls": "nudge",
                        "the same args under another tool name": "go on",
                        "a repeat as the second call of the latest turn": "nudge"}, (
    f"loop_guard on hand-made histories gave {rec['kinds']}")
### END HIDDEN TESTS

# %% id="distinct_calls_pass" kind="tests" points=1
out, api = guarded_run(graphs.lookup_plan(14), False)
assert str(out["messages"][-1].text) == "all delivered", (
    f"14 different lookups were stopped after {len(api.requests)} model calls; count "
    "identical calls (name + args), not steps: a long task is not a loop")
search = ("search_docs", {"q": "refund"})
changed = history(search, search, search, ("lookup_order", {"order_id": "A-1042"}),
                  nudge_after=2)
moved_on = loop_guard(changed, repeat=3)
assert moved_on == {}, (
    f"after the nudge the model switched to a new call and loop_guard gave {moved_on!r}; "
    "only the calls of the LATEST AIMessage are checked against repeat")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

rec = record(last=str(out["messages"][-1].text), halted=out.get("halted"),
             requests=api.requests, moved_on=outcome(loop_guard, changed, repeat=3))
### JUDGE
import json

from course.hub import log_of
from course.worlds.graphs import NUDGE

reqs = [r["messages"] for r in log_of(rec["requests"])]
assert rec["last"] == "all delivered", (
    f"14 different lookups were stopped after {len(reqs)} model calls; count "
    "identical calls (name + args), not steps: a long task is not a loop")
assert len(reqs) == 15 and not rec["halted"], (
    f"the 14-lookup task needs 15 calls; it made {len(reqs)} (halted={rec['halted']!r})")
assert not any(NUDGE in json.dumps(r) for r in reqs), (
    "a task with no repeated call must never be nudged")
moved_on = rec["moved_on"]
assert moved_on["raised"] is None and moved_on["value"] == {}, (
    f"a new call after the nudge must pass; loop_guard gave {moved_on}")
### END HIDDEN TESTS

# %% [markdown]
# ## 5. The semantic cache as a node in front of the agent
#
# Lab 5's cache sits in front of the model: a hit answers without a model call. In a graph
# that is a `cache` node after `START` and a conditional edge: on a hit, straight to
# `END`; on a miss, on to `agent`, and after it a `store` node saves the answer.
#
# The cache's `namespace` keeps one tenant's answers from another tenant. In a graph the
# node only sees the state, so the tenant has to **be in the state** and the node has to
# read it. A node that forgets and uses the default namespace serves one customer's answer
# to every customer who asks the same words. The cache here (`graphs.ExactCache`) hits
# only on the exact text, so this section is only about where the lookup sits and whose
# it is.
#
# **What LangGraph takes off your hands:** skipping the rest of the graph on a hit.
# **What it leaves to you:** carrying the tenant from the request to every lookup and store.
#
# ### Implement
#
# The state has `messages`, `tenant: str` and `cache_hit: bool`; `graphs.cached_graph`
# wires `START -> cache -> (cache_route) -> agent | END`, `agent -> store -> END`.
#
# * `cache_lookup(state, *, cache)`: the question is the text of the last message. Call
#   `cache.get(question, namespace=state["tenant"])`. On a hit (a string that is not
#   empty after `.strip()`) return `{"messages": [AIMessage(hit)], "cache_hit": True}`,
#   else `{"cache_hit": False}`: `None` and an empty answer are both misses.
# * `cache_route(state)`: `END` when `state["cache_hit"]` is true, else `"agent"`.
# * `cache_store(state, *, cache)`: store the text of the last `HumanMessage` as the
#   question and the text of the last message as the answer, with
#   `cache.put(question, answer, namespace=state["tenant"])`; return `{}`. An answer that
#   is empty after `.strip()` (a reply with no text) is not stored at all.

# %% id="cache" kind="solution"
def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    ### BEGIN SOLUTION
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is None or not hit.strip():
        return {"cache_hit": False}
    return {"messages": [AIMessage(hit)], "cache_hit": True}
    ### END SOLUTION


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    ### BEGIN SOLUTION
    return END if state["cache_hit"] else "agent"
    ### END SOLUTION


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    ### BEGIN SOLUTION
    question = [m for m in state["messages"] if isinstance(m, HumanMessage)][-1]
    answer = str(state["messages"][-1].text)
    if answer.strip():
        cache.put(str(question.text), answer, namespace=state["tenant"])
    return {}
    ### END SOLUTION

# %% [markdown]
# ### Graded: section 5

# %% id="tenant_isolated" kind="tests" points=2
def ask(cache, tenant, question, replies, *, fake=False):
    # the answer and the number of model calls (with fake=True, the fake itself)
    api = graphs.queue_api([message([text(r)]) for r in replies])
    with api.serve() as url:
        app = graphs.cached_graph(graphs.chat_model(url),
                                  lambda s: cache_lookup(s, cache=cache), cache_route,
                                  lambda s: cache_store(s, cache=cache))
        out = app.invoke({"messages": [HumanMessage(question)], "tenant": tenant,
                          "cache_hit": False})
    return str(out["messages"][-1].text), api if fake else len(api.requests)


seats = "What is my plan's seat limit?"
cache = graphs.ExactCache()
ask(cache, "acme", seats, ["Acme: 50 seats."])
got, calls = ask(cache, "globex", seats, ["Globex: 12 seats."])
assert got == "Globex: 12 seats.", (
    f"globex was answered {got!r}, acme's cached answer; look up and store with "
    "namespace=state['tenant']")
assert cache.gets == [(seats, "acme"), (seats, "globex")], (
    f"cache.get calls were {cache.gets}; one per question, with the question's exact text "
    "and namespace=state['tenant']")
assert cache.puts == [(seats, "Acme: 50 seats.", "acme"), (seats, "Globex: 12 seats.", "globex")], (
    f"cache.put calls were {cache.puts}; store the exact question and answer under "
    "namespace=state['tenant']")
later = {"messages": [HumanMessage("old q"), AIMessage("old a"), HumanMessage("new q"),
                      AIMessage("new a")], "tenant": "acme", "cache_hit": False}
direct = graphs.ExactCache()
stored = cache_store(later, cache=direct)
assert stored == {} and direct.puts == [("new q", "new a", "acme")], (
    f"cache_store on a 2-question history returned {stored!r} and stored {direct.puts}; "
    "store the LAST HumanMessage with the last message, and return {}")
blank = graphs.ExactCache()
for reply in ("", "  \n"):
    cache_store({"messages": [HumanMessage("q"), AIMessage(reply)], "tenant": "acme",
                 "cache_hit": False}, cache=blank)
assert blank.puts == [], (
    f"an empty answer was stored: {blank.puts}; store nothing when the answer's .strip() "
    "is empty")
### BEGIN HIDDEN TESTS
from course.observe import record

_cache = graphs.ExactCache()
ask(_cache, "acme", seats, ["Acme: 50 seats."])
_got, _api = ask(_cache, "globex", seats, ["Globex: 12 seats."], fake=True)
rec = record(got=_got, requests=_api.requests, puts=_cache.puts, gets=_cache.gets,
             direct=direct.puts, blank=blank.puts)
### JUDGE
from course.hub import log_of

got = rec["got"]
assert got == "Globex: 12 seats.", (
    f"globex was answered {got!r}, acme's cached answer; look up and store with "
    "namespace=state['tenant']")
calls = len(log_of(rec["requests"]))
assert calls == 1, f"globex's first question made {calls} model calls; a miss makes 1"
puts = [tuple(p) for p in rec["puts"]]
assert ("What is my plan's seat limit?", "Acme: 50 seats.", "acme") in puts, (
    f"stores were {puts}; acme's answer must be stored under namespace 'acme'")
namespaces = [ns for _q, ns in rec["gets"]]
assert all(ns in ("acme", "globex") for ns in namespaces), (
    f"lookups used namespaces {namespaces}; always the state's tenant")
assert [tuple(p) for p in rec["direct"]] == [("new q", "new a", "acme")], (
    f"on a 2-question history the store was {rec['direct']}; the last question and answer")
assert rec["blank"] == [], f"empty answers were stored: {rec['blank']}"
### END HIDDEN TESTS

# %% id="hit_skips_model" kind="tests" points=1
cache = graphs.ExactCache()
ask(cache, "acme", "How do I rotate an API key?", ["Settings, then Keys, then Rotate."])
got, calls = ask(cache, "acme", "How do I rotate an API key?", ["a second model answer"])
assert calls == 0, (
    f"a repeated question made {calls} model call(s); on a hit, cache_route must go to END")
assert got == "Settings, then Keys, then Rotate.", (
    f"the hit answered {got!r}; answer with the cached text as AIMessage(hit)")
direct = graphs.ExactCache()
direct.put("new q", "the new answer", namespace="acme")
state = {"messages": [HumanMessage("old q"), AIMessage("old a"), HumanMessage("new q")],
         "tenant": "acme", "cache_hit": False}
found = cache_lookup(state, cache=direct)
assert (found.get("cache_hit"), [type(m).__name__ + ":" + str(m.text)
                                 for m in found.get("messages", [])]) == (
        True, ["AIMessage:the new answer"]), (
    f"cache_lookup on a 2-question history gave {found!r}; the question is the text of the "
    "LAST message, and a hit adds AIMessage(hit)")
served = {}
for empty in ("", "   "):
    direct.put("new q", empty, namespace="acme")
    served[empty] = cache_lookup(state, cache=direct)
    assert served[empty] == {"cache_hit": False}, (
        f"a cached {empty!r} gave {served[empty]!r}; an empty answer is a miss: "
        "{'cache_hit': False}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    hit_tenant=("acme", "initech", "umbrella", "hooli", "globex"),
    hit_pair=(("How do I rotate an API key?", "Settings, then Keys, then Rotate."),
              ("How do I reset my password?", "Use the Forgot password link."),
              ("Where is my invoice?", "Billing, then Invoices."),
              ("How do I add a seat?", "Admin, then Seats, then Add.")),
    hit_new=(("How do I delete a user?", "Admin, then Users."),
             ("Can I export my data?", "Yes: Settings, then Export."),
             ("How do I enable SSO?", "Security, then SSO."),
             ("What is the API rate limit?", "100 requests a minute.")))
_cache = graphs.ExactCache()
ask(_cache, h.hit_tenant, h.hit_pair[0], [h.hit_pair[1]])
_hit = ask(_cache, h.hit_tenant, h.hit_pair[0], ["a second model answer"], fake=True)
_new = ask(_cache, h.hit_tenant, h.hit_new[0], [h.hit_new[1]], fake=True)
rec = record(hit={"answer": _hit[0], "requests": _hit[1].requests},
             new={"answer": _new[0], "requests": _new[1].requests},
             found=[found.get("cache_hit"), [str(m.text) for m in found.get("messages", [])]],
             served=list(served.values()))
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs

h = hidden_inputs(
    hit_tenant=("acme", "initech", "umbrella", "hooli", "globex"),
    hit_pair=(("How do I rotate an API key?", "Settings, then Keys, then Rotate."),
              ("How do I reset my password?", "Use the Forgot password link."),
              ("Where is my invoice?", "Billing, then Invoices."),
              ("How do I add a seat?", "Admin, then Seats, then Add.")),
    hit_new=(("How do I delete a user?", "Admin, then Users."),
             ("Can I export my data?", "Yes: Settings, then Export."),
             ("How do I enable SSO?", "Security, then SSO."),
             ("What is the API rate limit?", "100 requests a minute.")))
question, answer = h.hit_pair
got, calls = rec["hit"]["answer"], len(log_of(rec["hit"]["requests"]))
assert calls == 0, (
    f"tenant {h.hit_tenant!r} asking {question!r} a second time made {calls} model call(s); "
    "on a hit, cache_route must go to END")
assert got == answer, (
    f"the hit must answer the cached text {answer!r}; got {got!r}")
got, calls = rec["new"]["answer"], len(log_of(rec["new"]["requests"]))
assert (got, calls) == (h.hit_new[1], 1), (
    f"a new question ({h.hit_new[0]!r}) must miss and make one model call: {got!r}, {calls}")
assert rec["found"] == [True, ["the new answer"]], (
    f"the lookup on a 2-question history gave {rec['found']}; the question is the last message")
assert rec["served"] == [{"cache_hit": False}] * 2, (
    f"cached empty answers gave {rec['served']}; both are misses")
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Offloading in the tool node
#
# Lab 8 offloaded a big result inside each tool. In a graph every tool result passes
# through one tool node, so offloading belongs **there**: wrap `ToolNode` in a node of
# your own that replaces a long result with a pointer to a file. A tool someone adds next
# month is then offloaded without anyone remembering to.
#
# Two things come with the move. First, the `read_artifact` tool now also runs through
# that node; a window it reads back can itself be long, and offloading it again would
# answer "read the file" with "read this other file". So `read_artifact` is exempt.
# Second, `read_artifact` takes a path the **model** chose, and a tool result can tell the
# model which path to choose. Lab 8's containment check must still hold: resolve the path
# (`os.path.realpath`, so `..` and symlinks are followed) and accept it only if it is
# inside the folder. A bare `startswith(root)` also accepts `root + "-evil/..."`.
#
# **What LangGraph takes off your hands:** one place every tool result passes.
# **What it leaves to you:** what is offloaded, what is exempt, and containment.
#
# ### Implement
#
# * `artifact_reader(root)` returns a tool function
#   `read_artifact(path: str, offset: int = 0, limit: int = 200) -> str` (keep that name,
#   those parameters and a docstring: the model sees them). A relative `path` is taken
#   inside `root`. If the resolved path is not inside the resolved `root`, it returns a
#   string starting with `Error:` and reads nothing; so it does for a path that is not a
#   file it can read (a file that does not exist, a folder), and for an `offset` or
#   `limit` that is not an `int` of 0 or more (a negative number, a float, a `bool`),
#   since a negative slice would silently read from the end.
#   Otherwise it returns lines `offset` to `offset + limit` of the file (the first line is
#   offset 0), joined with `"\n"`. It never raises (`ToolNode` passes a tool's exceptions
#   up and the run would die).
# * `offloading_tools(tools, *, root, threshold=2000)` returns a node function
#   `state -> {"messages": [...]}` that runs `ToolNode(tools)` on the state, then, for
#   every `ToolMessage` whose `name` is not `"read_artifact"` and whose content is longer
#   than `threshold` characters, writes the content to a new file directly inside `root`
#   (a new name each time: two results never share a file, even from the same tool)
#   and replaces the content with a pointer of at most `threshold` characters that holds
#   the file's path exactly as `os.path.join(root, filename)` gives it and the word
#   `read_artifact`; the rest of the pointer's wording is yours. A content that is not a
#   string (a list of blocks) is measured and saved as `str(content)`. Results of
#   `threshold` characters or fewer pass unchanged.

# %% id="offload" kind="solution"
def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    ### BEGIN SOLUTION
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read lines offset..offset+limit of a tool output that was saved to a file."""
        for name, value in (("offset", offset), ("limit", limit)):
            if type(value) is not int or value < 0:
                return f"Error: {name} must be an int of 0 or more, got {value!r}"
        real = os.path.realpath(os.path.join(base, path))
        if os.path.commonpath([real, base]) != base:
            return f"Error: {path} is outside the artifact folder"
        try:
            with open(real, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as err:
            return f"Error: cannot read {path}: {err.strerror}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact
    ### END SOLUTION


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    ### BEGIN SOLUTION
    inner = ToolNode(tools)
    os.makedirs(root, exist_ok=True)

    def node(state):
        out = inner.invoke(state)
        for m in out["messages"]:
            content = m.content if isinstance(m.content, str) else str(m.content)
            if m.name == "read_artifact" or len(content) <= threshold:
                continue
            path = tempfile.mkstemp(prefix=f"{m.name}-", suffix=".txt", dir=root)[1]
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
            head = (f"[{m.name} returned {len(content)} characters, saved to {path}. "
                    "Read a window with read_artifact(path, offset, limit). First line: ")
            first = content.splitlines()[0][:max(0, min(200, threshold - len(head) - 1))]
            m.content = head + first + "]"
        return out

    return node
    ### END SOLUTION

# %% [markdown]
# Run it: the model asks for a 120-line shipping log, a tool the node was never told about.

# %%
root = tempfile.mkdtemp()
plan = [("big_report", {"order_id": "A-1042"})]
api = FakeAPI(Scripted(graphs.PlanModel(plan, answer="read the log")))
with api.serve() as url:
    tools = [graphs.big_report]
    try:
        app = graphs.tools_graph(graphs.chat_model(url), tools,
                                 offloading_tools(tools, root=root))
        app.invoke({"messages": [HumanMessage("what happened to A-1042?")]})
        sent = api.requests[-1]["messages"][-1]["content"][0]["content"]
        shown = re.sub(re.escape(root) + r"\S+?\.txt", "<path>", sent)  # the name is random
        print(f"{len(graphs.big_report('A-1042')):,} characters became {len(shown)}, the path "
              f"counted as <path>: {shown}")
    except NotImplementedError:
        print("implement offloading_tools above")

# %% [markdown]
# ### Graded: section 6

# %% id="later_tool_offloaded" kind="tests" points=2
def offload_run(plan, tools, root, threshold=None, *, fake=False):
    # the tool results the model was sent, one per call of the plan (fake=True: the fake);
    # threshold=None leaves offloading_tools' own default
    api = graphs.plan_api(plan, answer="ok")
    with api.serve() as url:
        node = (offloading_tools(tools, root=root) if threshold is None
                else offloading_tools(tools, root=root, threshold=threshold))
        graphs.tools_graph(graphs.chat_model(url), tools, node).invoke(
            {"messages": [HumanMessage("go")]})
    return api if fake else graphs.results_sent(api.requests, len(plan))


def saved_files(root):
    paths = sorted(os.path.join(root, f) for f in os.listdir(root))
    return paths, [open(p, encoding="utf-8").read() for p in paths]


root = tempfile.mkdtemp()
sent = offload_run([("big_report", {"order_id": "A-1042"}), ("big_report", {"order_id": "A-2001"})],
                   [graphs.big_report], root)
full = graphs.big_report("A-1042")
paths, saved = saved_files(root)
assert full in saved and len(str(sent[0]["content"])) <= 2000, (
    f"a {len(full)}-char result reached the model as {len(str(sent[0]['content']))} chars; "
    "offload EVERY tool's long result in the node")
pointer = str(sent[0]["content"])
assert "read_artifact" in pointer and any(p in pointer for p in paths), (
    f"offload pointer must name the saved file's path {paths} and read_artifact; "
    f"got {pointer!r}")
second = graphs.big_report("A-2001")
assert len(saved) == 2 and second in saved, (
    f"two long results of one tool left {len(saved)} file(s) in root; write each result to a "
    "NEW file (a new name each time), or the second overwrites the first")
assert paths[saved.index(second)] in str(sent[1]["content"]), (
    "the second pointer must name the file that holds the second result")


def audit_log(day: str) -> str:
    """The audit log of one day."""
    return "\n".join(f"{day} event {i}" for i in range(400))


def small(day: str) -> str:
    """A short answer."""
    return "x" * 2000


def blocks(day: str) -> list:
    """The day's report as content blocks."""
    return [{"type": "text", "text": f"{day} block {i}"} for i in range(300)]


root = tempfile.mkdtemp()
later = offload_run([("audit_log", {"day": "Mon"}), ("small", {"day": "Mon"}),
                     ("blocks", {"day": "Mon"})], [audit_log, small, blocks], root)
later_saved = saved_files(root)[1]
assert len(str(later[0]["content"])) <= 2000 and audit_log("Mon") in later_saved, (
    "a tool the node was never told about (audit_log) must be offloaded too")
assert later[1]["content"] == "x" * 2000, (
    f"a result of exactly threshold (2000) chars came back as {str(later[1]['content'])[:60]!r};"
    " only LONGER than threshold is offloaded (>, not >=)")
assert len(str(later[2]["content"])) <= 2000 and str(blocks("Mon")) in later_saved, (
    f"a list-of-blocks result of {len(str(blocks('Mon')))} chars as str() reached the model as "
    f"{len(str(later[2]['content']))} chars; measure and save str(content) when it is not a str")
def just_over(day: str) -> str:
    """One character more than the default threshold."""
    return "y" * 2001


root = tempfile.mkdtemp()
over = offload_run([("just_over", {"day": "Mon"})], [just_over], root)
assert len(str(over[0]["content"])) <= 2000 and "y" * 2001 in saved_files(root)[1], (
    f"with no threshold given, a 2001-char result reached the model as "
    f"{len(str(over[0]['content']))} chars; threshold defaults to 2000")
root = tempfile.mkdtemp()
low = offload_run([("small", {"day": "Mon"})], [small], root, threshold=500)
assert len(str(low[0]["content"])) <= 500 and "x" * 2000 in saved_files(root)[1], (
    f"with threshold=500 a 2000-char result reached the model as {len(str(low[0]['content']))} "
    "chars; use the threshold argument, and keep the pointer within it")
### BEGIN HIDDEN TESTS
from course.observe import record

_root = tempfile.mkdtemp()
_api = offload_run([("big_report", {"order_id": "A-1042"}),
                    ("big_report", {"order_id": "A-2001"})], [graphs.big_report], _root,
                   fake=True)
first = {"requests": _api.requests, "saved": saved_files(_root)[1],
         "paths": saved_files(_root)[0]}
_root = tempfile.mkdtemp()
_api = offload_run([("audit_log", {"day": "Mon"}), ("small", {"day": "Mon"}),
                    ("blocks", {"day": "Mon"})], [audit_log, small, blocks], _root, fake=True)
_later = {"requests": _api.requests, "saved": saved_files(_root)[1]}
_root = tempfile.mkdtemp()
_over = offload_run([("just_over", {"day": "Mon"})], [just_over], _root, fake=True)
_over = {"requests": _over.requests, "saved": saved_files(_root)[1]}
_root = tempfile.mkdtemp()
_api = offload_run([("small", {"day": "Mon"})], [small], _root, threshold=500, fake=True)
rec = record(first=first, later=_later["requests"], later_saved=_later["saved"],
             over=_over["requests"], over_saved=_over["saved"],
             low=_api.requests, low_saved=saved_files(_root)[1])
### JUDGE
from course.hub import log_of
from course.worlds import graphs

full = graphs.big_report("A-1042")
sent = [str(r["content"]) for r in graphs.results_sent(log_of(rec["first"]["requests"]), 2)]
pointer = sent[0]
assert full in rec["first"]["saved"] and len(pointer) <= 2000, (
    f"a {len(full)}-char result reached the model as {len(pointer)} chars; "
    "offload EVERY tool's long result in the node")
assert "read_artifact" in pointer and any(p in pointer for p in rec["first"]["paths"]), (
    "the pointer must name the saved file's path and read_artifact")
saved = rec["first"]["saved"]
assert len(saved) == 2 and graphs.big_report("A-2001") in saved, (
    f"two long results of one tool left {len(saved)} file(s); each needs a new file")
later = [r["content"] for r in graphs.results_sent(log_of(rec["later"]), 3)]
assert len(str(later[0])) <= 2000, "a tool added later must be offloaded too"
assert later[1] == "x" * 2000, "a result of exactly threshold chars passes unchanged"
blocks = [{"type": "text", "text": f"Mon block {i}"} for i in range(300)]
assert len(str(later[2])) <= 2000 and str(blocks) in rec["later_saved"], (
    "a list-of-blocks result must be measured and saved as str(content)")
over = str(graphs.results_sent(log_of(rec["over"]), 1)[0]["content"])
assert len(over) <= 2000 and "y" * 2001 in rec["over_saved"], (
    f"with no threshold given, a 2001-char result reached the model as {len(over)} chars; "
    "threshold defaults to 2000")
low = str(graphs.results_sent(log_of(rec["low"]), 1)[0]["content"])
assert len(low) <= 500 and "x" * 2000 in rec["low_saved"], (
    f"threshold=500: the pointer was {len(low)} chars; honour the threshold argument")
### END HIDDEN TESTS

# %% id="containment_through_node" kind="tests" points=2
root = os.path.join(tempfile.mkdtemp(), "artifacts")
os.makedirs(root)
os.makedirs(root + "-evil")
with open(root + "-evil/secret.txt", "w") as f:
    f.write("TOKEN=s3cr3t")
reader = artifact_reader(root)
plan = [("read_artifact", {"path": "../artifacts-evil/secret.txt"}),
        ("read_artifact", {"path": root + "-evil/secret.txt"})]
_refused = offload_run(plan, [reader], root, fake=True)
sent = graphs.results_sent(_refused.requests, len(plan))
leaked = [str(r["content"]) for r in sent if "s3cr3t" in str(r["content"])]
assert not leaked, (
    f"read_artifact returned a file outside root through the tool node ({len(leaked)} of 2); "
    "resolve with realpath and check it is INSIDE root, not startswith")
refusals = list(sent)
with open(os.path.join(root, "log.txt"), "w") as f:
    f.write("\n".join(f"line {i}" for i in range(3000)))
_windowed = offload_run([("read_artifact", {"path": "log.txt", "offset": 10, "limit": 400})],
                        [reader], root, fake=True)
sent = graphs.results_sent(_windowed.requests, 1)
window = str(sent[0]["content"])
assert not window.startswith("Error:"), (
    f"read_artifact('log.txt') of a file inside root gave {window[:60]!r}; a relative path "
    "is taken inside root (join it to root before resolving)")
assert len(window) > 2000 and "line 200" in window, (
    f"a 400-line window came back as {len(window)} chars: never offload read_artifact's "
    "own result, or reading a file yields another file")
assert all(str(r["content"]).startswith("Error:") for r in refusals), (
    "read_artifact refusal must be a string starting with 'Error:'; got "
    f"{[str(r['content']) for r in refusals]!r}")
assert window.startswith("line 10\nline 11\n") and window.endswith("\nline 409"), (
    "read_artifact window must be lines offset..offset+limit (offset 10, limit 400 is "
    f"line 10 to line 409); got {window[:30]!r} ... {window[-30:]!r}")


def read(path, **args):
    try:
        return reader(path, **args)
    except Exception as exc:  # noqa: BLE001 - the raise is the bug being reported
        return exc


os.symlink(root + "-evil/secret.txt", os.path.join(root, "link.txt"))
for bad, why in (("missing.txt", "a missing file"), (".", "a folder (root itself)"),
                 ("link.txt", "a symlink inside root that points outside it")):
    got = read(bad)
    assert isinstance(got, str) and got.startswith("Error:"), (
        f"read_artifact of {why} must return an 'Error:' string; got {got!r} (realpath "
        "follows symlinks; catch OSError, not only FileNotFoundError)")
for bad in ({"offset": -5}, {"offset": 1.5}, {"limit": True}, {"limit": -3},
            {"offset": True}, {"offset": False}, {"limit": 2.0}, {"limit": "5"}):
    got = read("log.txt", **bad)
    assert isinstance(got, str) and got.startswith("Error:"), (
        f"read_artifact with {bad} must return an 'Error:' string; got {str(got)[:60]!r} "
        "(check both, with type(x) is int: a bool is an int subclass)")
for path, args, want in ((os.path.join(root, "log.txt"), {"limit": 2}, "line 0\nline 1"),
                         ("log.txt", {"offset": 5, "limit": 0}, ""),
                         ("log.txt", {"offset": 2999, "limit": 5}, "line 2999")):
    got = read(path, **args)
    assert got == want, (
        f"read_artifact({path!r}, {args}) gave {str(got)[:60]!r}, expected {want!r}; an "
        "absolute path inside root is fine, and limit=0 is a valid (empty) window")
default = read("log.txt")
assert isinstance(default, str) and default.splitlines() == [f"line {i}" for i in range(200)], (
    f"read_artifact('log.txt') gave {len(str(default).splitlines())} lines; the defaults are "
    "offset=0, limit=200")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(bad_offset=range(-40, 0), bad_limit=range(-40, 0),
                  float_offset=(0.0, 1.0, 2.0, 2.5, 10.0), abs_offset=range(1, 2990),
                  abs_limit=range(1, 8), zero_offset=range(0, 3000),
                  missing=("missing.txt", "gone.log", "nope/none.txt", "report-2.txt",
                           "old/log.txt"))
rec = record(refusals=_refused.requests, window=_windowed.requests,
             link=outcome(reader, "link.txt"), missing=outcome(reader, h.missing),
             bad_args=[outcome(reader, "log.txt", **a) for a in
                       ({"offset": h.bad_offset}, {"limit": h.bad_limit},
                        {"offset": h.float_offset}, {"offset": False})],
             edge=outcome(reader, "log.txt", offset=2999, limit=5),
             folder=outcome(reader, root),
             absolute=outcome(reader, os.path.join(root, "log.txt"), offset=h.abs_offset,
                              limit=h.abs_limit),
             zero=outcome(reader, "log.txt", offset=h.zero_offset, limit=0),
             default=outcome(reader, "log.txt"))
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs
from course.worlds import graphs

h = hidden_inputs(bad_offset=range(-40, 0), bad_limit=range(-40, 0),
                  float_offset=(0.0, 1.0, 2.0, 2.5, 10.0), abs_offset=range(1, 2990),
                  abs_limit=range(1, 8), zero_offset=range(0, 3000),
                  missing=("missing.txt", "gone.log", "nope/none.txt", "report-2.txt",
                           "old/log.txt"))

refusals = [str(r["content"]) for r in graphs.results_sent(log_of(rec["refusals"]), 2)]
leaked = [r for r in refusals if "s3cr3t" in r]
assert not leaked, (
    f"read_artifact returned a file outside root through the tool node ({len(leaked)} of "
    f"{len(refusals)}); resolve with realpath and check it is INSIDE root, not startswith")
window = str(graphs.results_sent(log_of(rec["window"]), 1)[0]["content"])
assert not window.startswith("Error:"), (
    f"read_artifact('log.txt') of a file inside root gave {window[:60]!r}; a relative path "
    "is taken inside root")
assert len(window) > 2000 and "line 200" in window, (
    f"a 400-line window came back as {len(window)} chars: never offload read_artifact's "
    "own result, or reading a file yields another file")
assert all(r.startswith("Error:") for r in refusals), (
    f"refusals must start with 'Error:'; got {[r[:40] for r in refusals]}")
link = rec["link"]
assert link["raised"] is None and str(link["value"]).startswith("Error:"), (
    f"a symlink inside root pointing out must be refused with an Error: string; got {link}")
missing = rec["missing"]
assert missing["raised"] is None and str(missing["value"]).startswith("Error:"), (
    f"a missing file ({h.missing!r}) is an Error: string, not a raise; got {missing}")
assert window.startswith("line 10\nline 11") and window.endswith("line 409"), (
    "read_artifact inside root must return lines offset..offset+limit")
bad_args = rec["bad_args"]
tried = [{"offset": h.bad_offset}, {"limit": h.bad_limit}, {"offset": h.float_offset},
         {"offset": False}]
wrong = [(a, b) for a, b in zip(tried, bad_args)
         if not (b["raised"] is None and str(b["value"]).startswith("Error:"))]
assert len(bad_args) == len(tried) and not wrong, (
    f"read_artifact offset/limit that is not an int of 0 or more must give 'Error:'; got "
    f"{wrong!r}")
edge = rec["edge"]
assert edge["raised"] is None and edge["value"] == "line 2999", (
    f"read_artifact of the last line (offset 2999 of 3000) must be 'line 2999'; got {edge!r}")
folder = rec["folder"]
assert folder["raised"] is None and str(folder["value"]).startswith("Error:"), (
    f"reading the folder itself must give an Error: string, not a raise; got {folder}")
start, size = h.abs_offset, h.abs_limit
want = "\n".join(f"line {i}" for i in range(start, start + size))
assert rec["absolute"] == {"value": want, "raised": None}, (
    f"an absolute path inside root must be read, offset={start}, limit={size} is lines "
    f"{start} to {start + size - 1}; got {rec['absolute']}")
assert rec["zero"]["raised"] is None and rec["zero"]["value"] == "", (
    f"limit=0 (offset={h.zero_offset}) is a valid empty window; got {rec['zero']}")
default = rec["default"]
assert default["raised"] is None and str(default["value"]).splitlines() == [
    f"line {i}" for i in range(200)], "the default window is offset=0, limit=200"
### END HIDDEN TESTS

# %% [markdown]
# ## Explain
#
# A refund graph checkpoints after every step. Its `tools` node runs two calls of one
# turn: `lookup_order` (0.3 s), then `refund_order` for \$180 (0.5 s), and the node's
# state is saved when the node finishes, 0.8 s after it starts. The process is killed
# 0.6 s into that node, and the run is resumed correctly, with `None`, from the SQLite
# checkpoint.
#
# How many times has each tool run once the resumed run finishes, and how much money has
# moved? Say which step the checkpoint resumed from and why. Then name one change that
# makes the refund safe to resume, and what LangGraph gives you that this change can use.

# %% [markdown] id="why_checkpoint_granularity" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** The last saved state is the one *before* the `tools` node (the
# model's reply with both tool calls). The kill at 0.6 s came after the refund started
# (0.3 s) but before the node's state was saved (0.8 s), so resuming runs the whole `tools`
# node again: `lookup_order` 2 times, `refund_order` 2 times, **\$360** moved for a \$180
# refund. A checkpoint is saved per step, not per side effect, so a resumed step can
# repeat work the dead process already did (at-least-once). Fix: make the write
# idempotent with a key that survives the crash: the `tool_call_id` of the refund call is
# in the checkpointed AI message and is the same on resume, so pass it to the payment
# service as an idempotency key (or record "refund done for id X" before returning and
# check it first). Putting the refund in its own node shrinks the window but does not
# close it.
#
# **Mark scheme (3 points).**
# * 1 — counts: both tools run twice, \$360 moved (accept "refund twice" with the amount).
# * 1 — mechanism: the state is saved after a step finishes, so the unfinished `tools`
#   node is re-run from the checkpoint before it.
# * 1 — fix: an idempotency key from the stable `tool_call_id` (or an equivalent record
#   checked before the write); a smaller node alone is not enough.
# ### END SOLUTION
