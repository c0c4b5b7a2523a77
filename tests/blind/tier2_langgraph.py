"""Blind samples for tier2_langgraph: written from the release notebook alone.

Written before the notebook said read_artifact answers an offset or limit that is not an int
of 0 or more (negative, float, bool) with an 'Error:' string: the base and the correct
variants were then brought to that rule, nothing else. Likewise, written before it said a
cached answer that is empty after .strip() is neither served as a hit nor stored: the two
correct variants' cache cells were brought to that rule, nothing else.
"""

from course.grading.proofs.blind import Blind

RESUME = '''import anthropic
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def route(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    state = app.get_state(config)
    if state.next:
        return None
    return str(state.values["messages"][-1].text)
'''

RETRY = '''import anthropic


def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
'''

BUDGET = '''import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, add_messages


class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    """"halt" at or over the limit; else "tools" when the model asked for tools; else END."""
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
'''

GUARD = '''import json
from collections import Counter

from langchain_core.messages import AIMessage, HumanMessage


def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    messages = state["messages"]
    seen = Counter()
    latest = []
    for message in messages:
        if isinstance(message, AIMessage):
            latest = [(call["name"], json.dumps(call["args"], sort_keys=True))
                      for call in message.tool_calls]
            seen.update(latest)
    if not any(seen[call] >= repeat for call in latest):
        return {}
    if any(isinstance(m, HumanMessage) and m.content == NUDGE for m in messages):
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
'''

CACHE = '''from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END


def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None:
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    asked = [m for m in state["messages"] if isinstance(m, HumanMessage)][-1]
    question = str(asked.text)
    answer = str(state["messages"][-1].text)
    cache.put(question, answer, namespace=state["tenant"])
    return {}
'''

OFFLOAD = '''import os
import tempfile

from langchain_core.messages import ToolMessage
from langgraph.prebuilt import ToolNode


def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read lines offset to offset + limit of an offloaded artifact file."""
        if not all(type(v) is int and v >= 0 for v in (offset, limit)):
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
            if os.path.commonpath([base, full]) != base:
                return f"Error: {path!r} is outside the artifact folder"
            if not os.path.isfile(full):
                return f"Error: no artifact at {path!r}"
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
            return "\\n".join(lines[offset:offset + limit])
        except Exception as err:
            return f"Error: could not read {path!r}: {err}"

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    node = ToolNode(tools)

    def offload(state):
        out = []
        for message in node.invoke(state)["messages"]:
            content = message.content if isinstance(message.content, str) else str(
                message.content)
            if (isinstance(message, ToolMessage) and message.name != "read_artifact"
                    and len(content) > threshold):
                fd, path = tempfile.mkstemp(suffix=".txt", dir=root)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(content)
                pointer = (f"[{len(content)} chars offloaded to {path}; "
                           f"call read_artifact(path={path!r}) to read it]")
                message = message.model_copy(update={"content": pointer})
            out.append(message)
        return {"messages": out}

    return offload
'''

BASE = {"resume": RESUME, "retry": RETRY, "budget": BUDGET, "guard": GUARD, "cache": CACHE,
        "offload": OFFLOAD}


def _bug(name: str, bug: str, cell: str, old: str, new: str) -> Blind:
    """A sample that differs from BASE in one place of one cell (``old`` must occur once)."""
    if BASE[cell].count(old) != 1:
        raise ValueError(f"{name}: {old!r} must occur exactly once in cell {cell!r}")
    return Blind(name=name, bug=bug, cells={**BASE, cell: BASE[cell].replace(old, new)})


BLIND = [
    # -- section 1: resume and approval
    _bug("resume_when_thread_exists",
         "run_or_resume resumes whenever the thread has any saved state, instead of only when "
         "a step is pending (get_state(config).next), so a finished thread given a new goal "
         "never starts it",
         "resume", "    if app.get_state(config).next:\n        app.invoke(None, config)",
         "    if app.get_state(config).values:\n        app.invoke(None, config)"),
    _bug("interrupt_after_write",
         "the graph is compiled with interrupt_after=['approved_tools'], so the write runs "
         "before the pause; the notebook says interrupt BEFORE that node",
         "resume", 'interrupt_before=["approved_tools"]', 'interrupt_after=["approved_tools"]'),
    _bug("approval_only_when_all_calls_need_it",
         "a turn goes to approved_tools only when ALL its calls name a tool in approve; the "
         "notebook says when ANY of them does, so a write beside a read skips approval",
         "resume", 'if any(call["name"] in approve for call in calls):',
         'if all(call["name"] in approve for call in calls):'),
    _bug("paused_returns_text",
         "run_or_resume returns the last message's text even when the thread is left paused; "
         "the notebook says it returns None while a step is still pending",
         "resume", "    state = app.get_state(config)\n    if state.next:\n        return None\n",
         "    state = app.get_state(config)\n"),
    _bug("dead_connection_swallowed",
         "run_or_resume catches anthropic.APIConnectionError and returns None as if paused; "
         "the notebook says errors from the run propagate unchanged",
         "resume", '''    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
''', '''    try:
        if app.get_state(config).next:
            app.invoke(None, config)
        else:
            app.invoke({"messages": [HumanMessage(goal)]}, config)
    except anthropic.APIConnectionError:
        return None
'''),
    # -- section 2: retry classification
    _bug("overloaded_529_not_retried",
         "only the usual 5xx codes (500, 502, 503, 504) are retried, so a 529 overloaded is "
         "not; the notebook says any status of 500 or above",
         "retry", "        return exc.status_code >= 500",
         "        return exc.status_code in (500, 502, 503, 504)"),
    _bug("every_api_error_retried",
         "the last check is isinstance(exc, anthropic.APIError), meant for connection errors "
         "but true of every API error that is not a status error (a response validation "
         "error, ...); the notebook retries only APIConnectionError besides 429 and 5xx",
         "retry", "    if isinstance(exc, anthropic.APIConnectionError):",
         "    if isinstance(exc, anthropic.APIError):"),
    _bug("only_timeouts_retried",
         "only anthropic.APITimeoutError is retried among connection errors, so a dropped "
         "connection is not; the notebook says APIConnectionError (a dropped connection or a "
         "timeout)",
         "retry", "    if isinstance(exc, anthropic.APIConnectionError):",
         "    if isinstance(exc, anthropic.APITimeoutError):"),
    _bug("plain_500_not_retried",
         "5xx is tested with > 500, so a plain 500 is not retried; the notebook says 500 or "
         "above",
         "retry", "        return exc.status_code >= 500", "        return exc.status_code > 500"),
    # -- section 3: budget in state
    _bug("spent_overwrites",
         "spent has no reducer, so each call's cost overwrites the total instead of adding "
         "to it",
         "budget", "    spent: Annotated[float, operator.add]", "    spent: float"),
    _bug("halt_only_over_limit",
         "budget_route halts only when spent > limit_usd; the notebook says at the limit "
         "(spent >= limit_usd)",
         "budget", 'if state["spent"] >= limit_usd:', 'if state["spent"] > limit_usd:'),
    _bug("answer_checked_before_budget",
         "budget_route returns END for an answer before it looks at the budget, so a final "
         "answer at or over the limit ends instead of going to halt; the notebook checks "
         "the limit first",
         "budget", '''    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''', '''    if not getattr(state["messages"][-1], "tool_calls", None):
        return END
    if state["spent"] >= limit_usd:
        return "halt"
    return "tools"
'''),
    # -- section 4: loop guard
    _bug("identity_is_name_only",
         "a call's identity is its tool name alone, so different lookups of one tool count "
         "as repeats; the notebook says name AND arguments",
         "guard", '''            latest = [(call["name"], json.dumps(call["args"], sort_keys=True))
                      for call in message.tool_calls]''',
         '''            latest = [call["name"] for call in message.tool_calls]'''),
    _bug("trips_only_above_repeat",
         "the guard trips when a call was made MORE than repeat times; the notebook says "
         "repeat times or more",
         "guard", "if not any(seen[call] >= repeat for call in latest):",
         "if not any(seen[call] > repeat for call in latest):"),
    _bug("nudge_looked_for_in_last_message",
         "the guard looks for the earlier nudge only in the LAST message (a tool result by "
         "then), so it nudges again and again and never halts; the notebook says any "
         "HumanMessage in the history",
         "guard",
         "    if any(isinstance(m, HumanMessage) and m.content == NUDGE for m in messages):",
         "    if isinstance(messages[-1], HumanMessage) and messages[-1].content == NUDGE:"),
    _bug("args_key_order_counts",
         "the arguments are serialised with json.dumps(args) without sort_keys, so one call "
         "whose keys come in another order is counted as a different call",
         "guard", 'json.dumps(call["args"], sort_keys=True)', 'json.dumps(call["args"])'),
    # -- section 5: cache node
    _bug("store_in_default_namespace",
         "cache_store puts the answer without namespace=state['tenant'], so it lands in the "
         "default namespace",
         "cache", "    cache.put(question, answer, namespace=state[\"tenant\"])",
         "    cache.put(question, answer)"),
    _bug("empty_answer_is_a_miss",
         "cache_lookup tests the hit for truth, so a cached empty answer counts as a miss; the "
         "notebook says a hit is anything not None",
         "cache", "    if hit is not None:", "    if hit:"),
    _bug("question_is_first_message",
         "cache_store takes the FIRST message of the history as the question instead of the "
         "last HumanMessage",
         "cache", "    asked = [m for m in state[\"messages\"] if isinstance(m, HumanMessage)][-1]",
         "    asked = state[\"messages\"][0]"),
    # -- section 6: offloading and containment
    _bug("containment_by_startswith",
         "read_artifact accepts any resolved path that startswith the root, so root + '-evil/' "
         "is read; the notebook says it must be INSIDE root",
         "offload", "            if os.path.commonpath([base, full]) != base:",
         "            if not full.startswith(base):"),
    _bug("containment_without_symlinks",
         "read_artifact resolves with os.path.abspath, which does not follow symlinks, so a "
         "link inside root to a file outside is read; the notebook says os.path.realpath",
         "offload", "            full = os.path.realpath(os.path.join(base, path))",
         "            full = os.path.abspath(os.path.join(base, path))"),
    _bug("missing_file_raises",
         "read_artifact opens the file without checking it exists and without catching "
         "errors, so a missing file raises FileNotFoundError; the notebook says it returns an "
         "Error: string and never raises",
         "offload", '''        try:
            full = os.path.realpath(os.path.join(base, path))
            if os.path.commonpath([base, full]) != base:
                return f"Error: {path!r} is outside the artifact folder"
            if not os.path.isfile(full):
                return f"Error: no artifact at {path!r}"
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
            return "\\n".join(lines[offset:offset + limit])
        except Exception as err:
            return f"Error: could not read {path!r}: {err}"
''', '''        full = os.path.realpath(os.path.join(base, path))
        if os.path.commonpath([base, full]) != base:
            return f"Error: {path!r} is outside the artifact folder"
        with open(full, encoding="utf-8") as f:
            lines = f.read().splitlines()
        return "\\n".join(lines[offset:offset + limit])
'''),
    _bug("offloads_at_threshold",
         "a result of exactly threshold characters is offloaded; the notebook says results "
         "of threshold characters or fewer pass unchanged",
         "offload", "                    and len(content) > threshold):",
         "                    and len(content) >= threshold):"),
    _bug("read_artifact_not_exempt",
         "read_artifact's own long results are offloaded too, so reading a file yields "
         "another file; the notebook says read_artifact is exempt",
         "offload",
         '''            if (isinstance(message, ToolMessage) and message.name != "read_artifact"
                    and len(content) > threshold):''',
         '''            if isinstance(message, ToolMessage) and len(content) > threshold:'''),
    _bug("pointer_carries_preview",
         "the pointer keeps a preview of the first threshold characters before the path, so "
         "it is longer than threshold; the notebook says at most threshold characters",
         "offload", '''                pointer = (f"[{len(content)} chars offloaded to {path}; "
                           f"call read_artifact(path={path!r}) to read it]")''',
         '''                pointer = (content[:threshold] + f"\\n[{len(content)} chars in all, "
                           f"saved to {path}; call read_artifact(path={path!r}) for more]")'''),
]

BLIND += [
    Blind(
        name="status_codes_and_pathlib",
        bug="correct: the route reads a set of approved names, run_or_resume picks its input "
            "first and returns from invoke's result, should_retry reads status codes, "
            "BudgetState in TypedDict's functional form, the guard counts with one Counter "
            "over a generator, and containment with pathlib resolve() and is_relative_to()",
        cells={
            "resume": '''from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    model = llm.bind_tools(tools)
    needs_approval = set(approve)

    def agent(state: MessagesState):
        reply = model.invoke(state["messages"])
        return {"messages": [reply]}

    def after_agent(state: MessagesState):
        last = state["messages"][-1]
        names = {call["name"] for call in getattr(last, "tool_calls", None) or []}
        if not names:
            return END
        return "approved_tools" if names & needs_approval else "tools"

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_node("approved_tools", ToolNode(tools))
    builder.set_entry_point("agent")
    builder.add_conditional_edges("agent", after_agent,
                                  {"tools": "tools", "approved_tools": "approved_tools",
                                   END: END})
    for node in ("tools", "approved_tools"):
        builder.add_edge(node, "agent")
    return builder.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending."""
    config = {"configurable": {"thread_id": thread_id}}
    pending = bool(app.get_state(config).next)
    payload = None if pending else {"messages": [HumanMessage(goal)]}
    result = app.invoke(payload, config)
    if app.get_state(config).next:
        return None
    return str(result["messages"][-1].text)
''',
            "retry": '''import anthropic


def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    if not isinstance(exc, anthropic.APIStatusError):
        return False
    code = exc.status_code
    return code == 429 or code >= 500
''',
            "budget": '''import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, add_messages

BudgetState = TypedDict("BudgetState", {
    "messages": Annotated[list, add_messages],
    "spent": Annotated[float, operator.add],
})


def budget_route(state, *, limit_usd):
    wants_tools = bool(getattr(state["messages"][-1], "tool_calls", None))
    return "halt" if state["spent"] >= limit_usd else ("tools" if wants_tools else END)
''',
            "guard": '''import json
from collections import Counter

from langchain_core.messages import AIMessage, HumanMessage


def _identity(call):
    return call["name"], json.dumps(call["args"], sort_keys=True)


def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    history = state["messages"]
    asked = [m for m in history if isinstance(m, AIMessage)]
    if not asked:
        return {}
    made = Counter(_identity(call) for m in asked for call in m.tool_calls)
    if all(made[_identity(call)] < repeat for call in asked[-1].tool_calls):
        return {}
    already_nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in history)
    if already_nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            "cache": '''from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END


def cache_lookup(state, *, cache):
    found = cache.get(state["messages"][-1].text, namespace=state["tenant"])
    if found is None or not found.strip():
        return {"cache_hit": False}
    return {"messages": [AIMessage(found)], "cache_hit": True}


def cache_route(state):
    if state["cache_hit"]:
        return END
    return "agent"


def cache_store(state, *, cache):
    question = next(m for m in reversed(state["messages"]) if isinstance(m, HumanMessage))
    if state["messages"][-1].text.strip():
        cache.put(question.text, state["messages"][-1].text, namespace=state["tenant"])
    return {}
''',
            "offload": '''import itertools
import uuid
from pathlib import Path

from langchain_core.messages import ToolMessage
from langgraph.prebuilt import ToolNode


def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = Path(root).resolve()

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Return lines offset to offset + limit of a saved tool result (an artifact file)."""
        if not all(type(v) is int and v >= 0 for v in (offset, limit)):
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            target = (base / path).resolve()
            if not target.is_relative_to(base):
                return "Error: that path is outside the artifact folder"
            if not target.is_file():
                return "Error: there is no artifact at that path"
            with target.open(encoding="utf-8") as f:
                window = [line.rstrip("\\n") for line in itertools.islice(f, offset,
                                                                           offset + limit)]
            return "\\n".join(window)
        except (OSError, ValueError, UnicodeDecodeError) as err:
            return f"Error: {err}"

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    inner = ToolNode(tools)

    def node(state, config):
        results = inner.invoke(state, config)["messages"]
        for i, msg in enumerate(results):
            if not isinstance(msg, ToolMessage) or msg.name == "read_artifact":
                continue
            body = msg.content if isinstance(msg.content, str) else str(msg.content)
            if len(body) <= threshold:
                continue
            target = Path(root) / f"{msg.name}-{uuid.uuid4().hex}.txt"
            target.write_text(body, encoding="utf-8")
            results[i] = ToolMessage(
                content=f"Saved {len(body)} chars to {target}. Use read_artifact with "
                        f"path {str(target)!r} to read it.",
                tool_call_id=msg.tool_call_id, name=msg.name)
        return {"messages": results}

    return node
''',
        },
        correct=True,
    ),
    Blind(
        name="classes_and_early_returns",
        bug="correct: the route as a method of a small class, run_or_resume with two "
            "explicit branches that each read the snapshot after, should_retry as one "
            "boolean expression, the guard scanning the history backwards, the tool node as "
            "a callable object, and containment by comparing the path's parent chain",
        cells={
            "resume": '''from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


class _Router:
    def __init__(self, approve):
        self.approve = tuple(approve)

    def __call__(self, state):
        calls = state["messages"][-1].tool_calls if hasattr(
            state["messages"][-1], "tool_calls") else []
        for call in calls:
            if call["name"] in self.approve:
                return "approved_tools"
        return "tools" if calls else END


def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    chat = llm.bind_tools(list(tools))
    g = StateGraph(MessagesState)
    g.add_node("agent", lambda state: {"messages": [chat.invoke(state["messages"])]})
    g.add_node("tools", ToolNode(list(tools)))
    g.add_node("approved_tools", ToolNode(list(tools)))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", _Router(approve), ["tools", "approved_tools", END])
    g.add_edge("tools", "agent")
    g.add_edge("approved_tools", "agent")
    return g.compile(interrupt_before=["approved_tools"], checkpointer=checkpointer)


def _answer_or_none(app, config):
    snapshot = app.get_state(config)
    if len(snapshot.next) > 0:
        return None
    return str(snapshot.values["messages"][-1].text)


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending."""
    config = {"configurable": {"thread_id": thread_id}}
    if len(app.get_state(config).next) == 0:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
        return _answer_or_none(app, config)
    app.invoke(None, config)
    return _answer_or_none(app, config)
''',
            "retry": '''import anthropic


def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    return (isinstance(exc, (anthropic.RateLimitError, anthropic.APIConnectionError))
            or (isinstance(exc, anthropic.APIStatusError) and exc.status_code >= 500))
''',
            "budget": '''import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langgraph.graph import END, add_messages


class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    spent, limit = float(state["spent"]), float(limit_usd)
    if spent >= limit:
        return "halt"
    last = state["messages"][-1]
    if isinstance(last, AIMessage) and last.tool_calls:
        return "tools"
    return END
''',
            "guard": '''import json

from langchain_core.messages import AIMessage, HumanMessage


def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    messages = state["messages"]
    counts = {}
    for m in messages:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                key = call["name"] + "\\x00" + json.dumps(call["args"], sort_keys=True)
                counts[key] = counts.get(key, 0) + 1
    latest = None
    i = len(messages) - 1
    while i >= 0 and latest is None:
        if isinstance(messages[i], AIMessage):
            latest = messages[i]
        i -= 1
    if latest is None:
        return {}
    keys = [c["name"] + "\\x00" + json.dumps(c["args"], sort_keys=True)
            for c in latest.tool_calls]
    if max((counts[k] for k in keys), default=0) < repeat:
        return {}
    for m in messages:
        if isinstance(m, HumanMessage) and m.content == NUDGE:
            return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            "cache": '''from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END


def _text(message):
    return str(message.text)


def cache_lookup(state, *, cache):
    tenant = state["tenant"]
    answer = cache.get(_text(state["messages"][-1]), namespace=tenant)
    update = {"cache_hit": bool(answer and answer.strip())}
    if update["cache_hit"]:
        update["messages"] = [AIMessage(answer)]
    return update


def cache_route(state):
    return {True: END, False: "agent"}[bool(state["cache_hit"])]


def cache_store(state, *, cache):
    messages = state["messages"]
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if _text(messages[-1]).strip():
        cache.put(_text(messages[humans[-1]]), _text(messages[-1]), namespace=state["tenant"])
    return {}
''',
            "offload": '''import os
import tempfile

from langchain_core.messages import ToolMessage
from langgraph.prebuilt import ToolNode


def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    home = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read part of an offloaded tool result: lines offset to offset + limit."""
        if not all(type(v) is int and v >= 0 for v in (offset, limit)):
            return "Error: offset and limit must be whole numbers of 0 or more"
        where = os.path.realpath(path if os.path.isabs(path) else os.path.join(home, path))
        probe = where
        while probe != home:
            parent = os.path.dirname(probe)
            if parent == probe:
                return "Error: refused, the path is not inside the artifact folder"
            probe = parent
        if where == home or not os.path.isfile(where):
            return "Error: no such artifact"
        try:
            with open(where, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as err:
            return f"Error: cannot read the artifact ({err})"
        return "\\n".join(lines[offset:offset + limit])

    return read_artifact


class _Offloader:
    def __init__(self, tools, root, threshold):
        self.node, self.root, self.threshold = ToolNode(tools), root, threshold

    def _pointer(self, msg, text):
        fd, path = tempfile.mkstemp(prefix="artifact-", suffix=".txt", dir=self.root)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return msg.model_copy(update={
            "content": f"Output too long ({len(text)} chars); stored at {path}. "
                       f"Call read_artifact(path=\\"{path}\\") to page through it."})

    def __call__(self, state):
        kept = []
        for msg in self.node.invoke(state)["messages"]:
            text = msg.content if isinstance(msg.content, str) else str(msg.content)
            long = len(text) > self.threshold
            exempt = getattr(msg, "name", None) == "read_artifact"
            kept.append(self._pointer(msg, text)
                        if isinstance(msg, ToolMessage) and long and not exempt else msg)
        return {"messages": kept}


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    return _Offloader(tools, root, threshold)
''',
        },
        correct=True,
    ),
]


# Round four: written from the release notebook of 2026-12-06 (after its rules were
# mapped) alone, told to write the mistakes a student would make, not edits of an answer.
BLIND += [
    Blind(
        'r4_interrupt_after_approved_tools',
        "build_graph compiles with interrupt_after=['approved_tools'], so the refund runs and only then does the thread pause; the text says interrupt BEFORE the write's tool node (after pauses only once the money has moved)",
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_after=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_resume_only_a_paused_approval',
        "run_or_resume continues the thread only when 'approved_tools' is the pending step, so a thread a crash left at 'agent' is started again with the goal and looks the order up twice; the text says ANY pending step counts, the agent step a crash left behind too",
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if "approved_tools" in app.get_state(config).next:
        # paused for a human: resuming is the approval
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    if "approved_tools" in app.get_state(config).next:
        return None
    return str(app.get_state(config).values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_retry_listed_5xx_only',
        'should_retry retries a fixed list of server statuses (500, 502, 503, 504), so a 529 overloaded is not retried; the text says every APIStatusError whose status_code is 500 or above (500, 529 overloaded, ...)',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''RETRY_STATUSES = {429, 500, 502, 503, 504}


def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code in RETRY_STATUSES
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_budget_halts_only_over_limit',
        'budget_route halts only once spent is OVER the limit (spent > limit_usd), so at exactly $2.00 of $2.00 the run makes one more billed call; the text says halt AT the limit, spent >= limit_usd',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    over_budget = state["spent"] > limit_usd
    if over_budget:
        return "halt"
    last = state["messages"][-1]
    if last.tool_calls if isinstance(last, AIMessage) else False:
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_guard_counts_trailing_streak',
        'loop_guard counts how many AIMessages IN A ROW at the end of the history repeat the latest call, so the same call interleaved with other calls never trips it; the text says count the identity of every call in every AIMessage of the history',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identities(msg):
        return {(c["name"], json.dumps(c["args"], sort_keys=True)) for c in msg.tool_calls}

    turns = [m for m in state["messages"] if isinstance(m, AIMessage) and m.tool_calls]
    if not turns:
        return {}
    tripped = False
    for ident in identities(turns[-1]):
        streak = 0
        for turn in reversed(turns):
            if ident not in identities(turn):
                break
            streak += 1
        if streak >= repeat:
            tripped = True
    if not tripped:
        return {}
    if any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"]):
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_store_first_question',
        'cache_store takes the question from the FIRST message of the history, so on a two-question thread the new answer is stored under the old question; the text says store the text of the LAST HumanMessage as the question',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    question = str(state["messages"][0].text)      # what the user asked
    answer = str(state["messages"][-1].text)       # what the model said
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_reader_prefix_containment',
        "artifact_reader resolves the path but accepts it when it merely startswith(root), so root + '-evil/secret.txt' is read; the text says accept it only if it is INSIDE the folder (a bare startswith(root) also accepts root + '-evil/...')",
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if type(offset) is not int or type(limit) is not int or offset < 0 or limit < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_reader_isinstance_offsets',
        'artifact_reader validates offset and limit with isinstance(x, int), so True and False pass as 1 and 0; the text says an offset or limit that is not an int of 0 or more, a bool included, gets an Error: string',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    bound = llm.bind_tools(tools)

    def agent(state):
        return {"messages": [bound.invoke(state["messages"])]}

    def after_agent(state):
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        if not calls:
            return END
        if any(call["name"] in approve for call in calls):
            return "approved_tools"
        return "tools"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("approved_tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", "approved_tools", END])
    graph.add_edge("tools", "agent")
    graph.add_edge("approved_tools", "agent")
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    if app.get_state(config).next:
        app.invoke(None, config)
    else:
        app.invoke({"messages": [HumanMessage(goal)]}, config)
    after = app.get_state(config)
    if after.next:
        return None
    return str(after.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.RateLimitError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code >= 500
    if isinstance(exc, anthropic.APIConnectionError):
        return True
    return False
''',
            'budget': r'''class BudgetState(TypedDict):
    messages: Annotated[list, add_messages]
    spent: Annotated[float, operator.add]


def budget_route(state, *, limit_usd):
    if state["spent"] >= limit_usd:
        return "halt"
    if getattr(state["messages"][-1], "tool_calls", None):
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    def identity(call):
        return call["name"], json.dumps(call["args"], sort_keys=True)

    counts = Counter()
    latest = None
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                counts[identity(call)] += 1
            latest = msg
    if latest is None or not any(counts[identity(c)] >= repeat for c in latest.tool_calls):
        return {}
    nudged = any(isinstance(m, HumanMessage) and m.content == NUDGE for m in state["messages"])
    if nudged:
        return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    question = str(state["messages"][-1].text)
    hit = cache.get(question, namespace=state["tenant"])
    if hit is not None and hit.strip():
        return {"messages": [AIMessage(hit)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return END if state["cache_hit"] else "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    messages = state["messages"]
    question = next(str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage))
    answer = str(messages[-1].text)
    if answer.strip():
        cache.put(question, answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    base = os.path.realpath(root)

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read a saved tool result: lines offset to offset + limit of the file at path.

        path is the file named in an offload pointer; offset is the first line (0-based),
        limit how many lines to return.
        """
        if not isinstance(offset, int) or not isinstance(limit, int) or min(offset, limit) < 0:
            return "Error: offset and limit must be whole numbers of 0 or more"
        try:
            full = os.path.realpath(os.path.join(base, path))
        except (TypeError, ValueError) as exc:
            return f"Error: bad path {path!r}: {exc}"
        if not full.startswith(base + os.sep):
            return f"Error: {path!r} is outside the artifact folder"
        if not os.path.isfile(full):
            return f"Error: {path!r} is not a file"
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r}: {exc}"
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    import uuid

    node = ToolNode(tools)

    def run_tools(state):
        out = []
        for msg in node.invoke(state)["messages"]:
            if isinstance(msg, ToolMessage) and msg.name != "read_artifact":
                content = msg.content if isinstance(msg.content, str) else str(msg.content)
                if len(content) > threshold:
                    path = os.path.join(root, f"{msg.name}-{uuid.uuid4().hex}.txt")
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(content)
                    pointer = (f"Result of {len(content)} chars saved to {path}. "
                               f"Call read_artifact(path) to read it in windows of lines.")
                    if len(pointer) > threshold:
                        pointer = f"read_artifact {path}"[:threshold]
                    msg = ToolMessage(content=pointer, tool_call_id=msg.tool_call_id,
                                      name=msg.name)
            out.append(msg)
        return {"messages": out}

    return run_tools
''',
        },
    ),
    Blind(
        'r4_pathmap_stream_and_pathlib',
        'correct: the route returns path-map keys through a dict, the write check is a set intersection, run_or_resume drives the run with app.stream and reads the snapshot after; should_retry is a match on the exception; BudgetState uses the functional TypedDict form; loop_guard counts with a Counter over a generator and finds the latest AIMessage from the end; artifact_reader uses pathlib with is_relative_to and reads the window lazily with islice; offloaded files get numbered names from a per-node counter plus a token',
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    model = llm.bind_tools(list(tools))
    needs_approval = set(approve)

    def agent(state):
        reply = model.invoke(state["messages"])
        return {"messages": [reply]}

    def next_step(state):
        last = state["messages"][-1]
        names = {c["name"] for c in (getattr(last, "tool_calls", None) or [])}
        if not names:
            return "done"
        return "approve" if names & needs_approval else "run"

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode(list(tools)))
    g.add_node("approved_tools", ToolNode(list(tools)))
    g.set_entry_point("agent")
    g.add_conditional_edges("agent", next_step,
                            {"run": "tools", "approve": "approved_tools", "done": END})
    for node in ("tools", "approved_tools"):
        g.add_edge(node, "agent")
    return g.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    pending = len(app.get_state(config).next) > 0
    payload = None if pending else {"messages": [HumanMessage(goal)]}
    for _ in app.stream(payload, config):
        pass
    snapshot = app.get_state(config)
    return None if snapshot.next else str(snapshot.values["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    match exc:
        case anthropic.APIConnectionError():
            return True
        case anthropic.APIStatusError(status_code=code):
            return code == 429 or code >= 500
        case _:
            return False
''',
            'budget': r'''BudgetState = TypedDict("BudgetState", {
    "messages": Annotated[list, add_messages],
    "spent": Annotated[float, operator.add],
})


def budget_route(state, *, limit_usd):
    at_limit = float(state["spent"]) >= float(limit_usd)
    wants_tools = bool(getattr(state["messages"][-1], "tool_calls", None))
    return "halt" if at_limit else ("tools" if wants_tools else END)
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    history = state["messages"]
    key = lambda c: c["name"] + "\x00" + json.dumps(c["args"], sort_keys=True)  # noqa: E731
    seen = Counter(key(c) for m in history if isinstance(m, AIMessage) for c in m.tool_calls)
    latest = next((m for m in reversed(history) if isinstance(m, AIMessage)), None)
    if latest is None or max((seen[key(c)] for c in latest.tool_calls), default=0) < repeat:
        return {}
    already_nudged = NUDGE in (m.content for m in history if isinstance(m, HumanMessage))
    return ({"messages": [AIMessage(HALT)], "halted": True} if already_nudged
            else {"messages": [HumanMessage(NUDGE)]})
''',
            'cache': r'''def _text(message):
    return str(message.text)


def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    found = cache.get(_text(state["messages"][-1]), namespace=state["tenant"])
    if not (found or "").strip():
        return {"cache_hit": False}
    return {"messages": [AIMessage(found)], "cache_hit": True}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    return {True: END, False: "agent"}[bool(state["cache_hit"])]


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    answer = _text(state["messages"][-1])
    if humans and answer.strip():
        cache.put(_text(humans[-1]), answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''import itertools
import pathlib
import secrets


def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    home = pathlib.Path(root).resolve()

    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read part of an offloaded result: `limit` lines from line `offset` (0-based).

        Pass the path from the pointer that replaced the long result.
        """
        for name, value in (("offset", offset), ("limit", limit)):
            if type(value) is not int or value < 0:
                return f"Error: {name} must be an int of 0 or more, got {value!r}"
        try:
            target = (home / path).resolve()
        except (TypeError, ValueError, OSError, RuntimeError) as exc:
            return f"Error: cannot resolve {path!r} ({exc})"
        if target == home or not target.is_relative_to(home):
            return f"Error: {path!r} is not inside {root}"
        try:
            with target.open(encoding="utf-8") as f:
                window = itertools.islice(f, offset, offset + limit)
                return "\n".join(line.rstrip("\r\n") for line in window)
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r} ({type(exc).__name__})"

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    inner = ToolNode(tools)
    counter = itertools.count(1)

    def offload(message):
        body = message.content if isinstance(message.content, str) else str(message.content)
        if message.name == "read_artifact" or len(body) <= threshold:
            return message
        filename = f"result-{next(counter):04d}-{secrets.token_hex(4)}.txt"
        where = os.path.join(root, filename)
        with open(where, "x", encoding="utf-8") as f:
            f.write(body)
        for pointer in (f"[{len(body)} chars offloaded to {where}; read_artifact(path) "
                        f"reads it]", f"read_artifact {where}"):
            if len(pointer) <= threshold:
                break
        return message.model_copy(update={"content": pointer[:threshold]})

    def node(state):
        result = inner.invoke(state)
        return {"messages": [offload(m) if isinstance(m, ToolMessage) else m
                             for m in result["messages"]]}

    return node
''',
        },
        correct=True,
    ),
    Blind(
        'r4_compact_helpers',
        "correct: build_graph routes with a generator over the call names and writes the two tool nodes in a loop; run_or_resume invokes once with a chosen input and decides from the snapshot's tasks; should_retry checks the connection error first and then 429/5xx on the status; budget_route uses early returns on a local; loop_guard builds a list of identities and uses list.count; the cache nodes walk the history backwards by index; the reader checks containment with os.path.commonpath and offloading names files with tempfile.mkstemp inside root",
        {
            'resume': r'''def build_graph(llm, tools, *, checkpointer=None, approve=()):
    """The Lab 1 loop as a graph: agent, tools, approved_tools (interrupted before)."""
    tools = list(tools)
    chat = llm.bind_tools(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [chat.invoke(state["messages"])]})
    for name in ("tools", "approved_tools"):
        graph.add_node(name, ToolNode(tools))
        graph.add_edge(name, "agent")

    def route(state):
        calls = state["messages"][-1].tool_calls if isinstance(state["messages"][-1], AIMessage) else []
        if len(calls) == 0:
            return END
        for call in calls:
            if call["name"] in approve:
                return "approved_tools"
        return "tools"

    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", "approved_tools", END])
    return graph.compile(checkpointer=checkpointer, interrupt_before=["approved_tools"])


def run_or_resume(app, goal, *, thread_id):
    """Start the thread with goal, or continue it from its checkpoint if a step is pending.

    Returns the final answer as a str, or None when the thread is paused at an approval.
    """
    config = {"configurable": {"thread_id": thread_id}}
    before = app.get_state(config)
    if before.tasks:
        result = app.invoke(None, config)
    else:
        result = app.invoke({"messages": [HumanMessage(goal)]}, config)
    if app.get_state(config).tasks:
        return None
    return str(result["messages"][-1].text)
''',
            'retry': r'''def should_retry(exc):
    """True when exc is worth another attempt: 429, 5xx, a lost connection."""
    if isinstance(exc, anthropic.APIConnectionError):      # includes timeouts
        return True
    if not isinstance(exc, anthropic.APIStatusError):
        return False
    status = exc.status_code
    return status == 429 or 500 <= status
''',
            'budget': r'''from typing import Annotated as _A


class BudgetState(TypedDict):
    """The graph's state: the history (appended) and the dollars spent (summed)."""

    messages: _A[list, add_messages]
    spent: _A[float, operator.add]


def budget_route(state, *, limit_usd):
    spent = state["spent"]
    if spent >= limit_usd:
        return "halt"
    last = state["messages"][-1]
    calls = getattr(last, "tool_calls", [])
    if calls:
        return "tools"
    return END
''',
            'guard': r'''def loop_guard(state, *, repeat=3):
    """{} to go on, a nudge on the first trip, a halt when it trips after a nudge."""
    made = []
    latest_calls = []
    for msg in state["messages"]:
        if isinstance(msg, AIMessage):
            latest_calls = [(c["name"], json.dumps(c["args"], sort_keys=True))
                            for c in msg.tool_calls]
            made.extend(latest_calls)
    if all(made.count(call) < repeat for call in latest_calls):
        return {}
    for msg in state["messages"]:
        if isinstance(msg, HumanMessage) and msg.content == NUDGE:
            return {"messages": [AIMessage(HALT)], "halted": True}
    return {"messages": [HumanMessage(NUDGE)]}
''',
            'cache': r'''def cache_lookup(state, *, cache):
    """A hit answers from the cache for this state's tenant; a miss sets cache_hit False."""
    tenant = state["tenant"]
    answer = cache.get(str(state["messages"][-1].text), namespace=tenant)
    if isinstance(answer, str) and len(answer.strip()) > 0:
        return {"messages": [AIMessage(answer)], "cache_hit": True}
    return {"cache_hit": False}


def cache_route(state):
    """END on a hit, "agent" on a miss."""
    if state["cache_hit"]:
        return END
    return "agent"


def cache_store(state, *, cache):
    """Store the tenant's question and the model's answer; return {}."""
    msgs = state["messages"]
    answer = str(msgs[-1].text)
    if not answer.strip():
        return {}
    i = len(msgs) - 1
    while i >= 0 and not isinstance(msgs[i], HumanMessage):
        i -= 1
    if i >= 0:
        cache.put(str(msgs[i].text), answer, namespace=state["tenant"])
    return {}
''',
            'offload': r'''def artifact_reader(root):
    """The read_artifact tool for files under root; refuses every path outside it."""
    def read_artifact(path: str, offset: int = 0, limit: int = 200) -> str:
        """Read an offloaded result back: lines offset .. offset+limit of the file at path."""
        ok_numbers = all(type(n) is int and n >= 0 for n in (offset, limit))
        if not ok_numbers:
            return "Error: offset and limit must be non-negative integers"
        try:
            folder = os.path.realpath(root)
            real = os.path.realpath(os.path.join(folder, path))
            if real == folder or os.path.commonpath([folder, real]) != folder:
                return f"Error: {path} is outside {root}"
            with open(real, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
        except (OSError, ValueError, TypeError) as err:
            return f"Error: {type(err).__name__}: {err}"
        if lines and lines[-1] == "":
            lines.pop()
        return "\n".join(lines[offset:offset + limit])

    return read_artifact


def offloading_tools(tools, *, root, threshold=2000):
    """A tool node: runs the tools, and offloads every long result except read_artifact's."""
    node = ToolNode(tools)

    def save(text):
        fd, _ = tempfile.mkstemp(prefix="artifact-", suffix=".txt", dir=root)
        path = os.path.join(root, os.path.basename(_))
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    def tools_node(state):
        results = node.invoke(state)["messages"]
        for k, msg in enumerate(results):
            if not isinstance(msg, ToolMessage) or msg.name == "read_artifact":
                continue
            text = msg.content if isinstance(msg.content, str) else str(msg.content)
            if len(text) <= threshold:
                continue
            path = save(text)
            note = f"Saved ({len(text)} chars) to {path}. Use read_artifact to page through it."
            if len(note) > threshold:
                note = f"{path} read_artifact"[:threshold]
            results[k] = ToolMessage(note, tool_call_id=msg.tool_call_id, name=msg.name)
        return {"messages": results}

    return tools_node
''',
        },
        correct=True,
    ),
]
