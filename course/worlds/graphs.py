"""The world of the LangGraph tier (tier2_langgraph): scripted models, tools, and graph wiring.

Its one job is to give the notebook and its tests something to run a student's graph
pieces against, over :meth:`course.fakes.FakeAPI.serve`:

* :class:`Shop`, two tools that record every call: ``lookup_order`` (a read) and
  ``refund_order`` (a write: money moves), and :class:`RefundModel`, a scripted model that
  looks an order up, refunds it and answers, and that can drop the connection on one call
  (the process "dies" there);
* :class:`PlanModel`, a scripted model that asks for the tool calls of a plan one per turn,
  forever if told to (a loop), and :func:`lookup_plan`, a long task with no repeats;
* :func:`chat_model`, ``ChatAnthropic`` pointed at a served fake, with the SDK's own
  retries off;
* the fakes the graded cells serve, built by name so the grader can hold them
  (:func:`course.hub.served`): :func:`refund_api`, :func:`plan_api`, :func:`queue_api`;
* wiring for the sections whose graded piece is a node or an edge: :func:`budget_graph`,
  :func:`guarded_graph`, :func:`cached_graph`, :func:`tools_graph`, :func:`retry_graph`;
* :class:`ExactCache`, a stand-in cache keyed on the exact question text per namespace,
  with the same ``get``/``put`` signature as the semantic cache of Lab 5.

The graded pieces are the student's: resuming, retry classification, the budget reducer and
route, the loop guard, the cache node and route, the offloading tool node. Nothing here
decides any of them. LangGraph and LangChain are imported inside the functions that use
them, so the course runs without the optional ``frameworks`` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..fakes import FakeAPI, Queue, Scripted
from ..hub import served
from ..wire import JSON, Reply, message, text, tool_results, tool_use

MODEL = "claude-opus-5"
#: loop_guard's two messages: the nudge it adds on a first trip, the halt on a second.
NUDGE = ("You have made this exact tool call several times and it returned the same "
         "result. Change your approach, or answer with what you have.")
HALT = "halted: the same tool call kept repeating after a nudge"
#: The name of LangGraph's end node (``langgraph.graph.END``), for a judge in the grader: it
#: compares a route with it without importing LangGraph (1.4 s in a grading worker).
#: tests/test_tier2_langgraph.py checks the two are equal.
END = "__end__"
GOAL = "Order A-1042 arrived broken. Please refund it."
ORDER = {"order_id": "A-1042", "status": "delivered", "price_usd": 49.0}
ANSWER = "Refunded $49.00 for order A-1042."


def chat_model(base_url: str, **kwargs: Any):
    """``ChatAnthropic`` on the served fake at ``base_url``: claude-opus-5, 1024 output
    tokens, and ``max_retries=0`` so the SDK never retries behind a graph's back."""
    from langchain_anthropic import ChatAnthropic

    model = ChatAnthropic(model=MODEL, base_url=base_url, api_key="test-key",
                          max_retries=kwargs.pop("max_retries", 0),
                          max_tokens=kwargs.pop("max_tokens", 1024), **kwargs)
    _plain_http(model, base_url)
    return model


def _plain_http(model: Any, base_url: str) -> None:
    """Give ``model`` its SDK client now, on an HTTP client that reads no certificates.

    langchain_anthropic makes one HTTP client per base URL (``_client_utils.py``,
    ``_get_default_httpx_client``, an ``lru_cache``), and each one loads the system's CA
    bundle, about 20 ms; every served fake has a URL of its own, so every chat model paid
    it, 0.6 s of this notebook's run. A served fake speaks plain HTTP on 127.0.0.1, where no
    certificate is read. The client is made as ``ChatAnthropic._client`` makes it, from the
    same ``_client_params``; should a later langchain_anthropic name these differently, the
    model is left to make its own."""
    if not base_url.startswith("http://") or not hasattr(model, "_client_params"):
        return
    import anthropic

    try:
        http = anthropic.DefaultHttpxClient(base_url=base_url, verify=False)
        model.__dict__["_client"] = anthropic.Client(**model._client_params, http_client=http)
    except TypeError:  # a parameter this SDK does not take
        model.__dict__.pop("_client", None)


class Shop:
    """Two tools with recorded side effects. ``tools()`` returns plain typed functions,
    which ``ToolNode`` and ``bind_tools`` accept as they are."""

    def __init__(self) -> None:
        self.lookups: list[str] = []
        self.refunds: list[tuple[str, float]] = []

    def tools(self) -> list[Callable[..., str]]:
        shop = self

        def lookup_order(order_id: str) -> str:
            """Look up an order: its status and the price paid, in USD."""
            shop.lookups.append(order_id)
            return f"order {order_id}: {ORDER['status']}, paid ${ORDER['price_usd']:.2f}"

        def refund_order(order_id: str, amount_usd: float) -> str:
            """Refund an order. This moves money: it must run at most once per order."""
            shop.refunds.append((order_id, float(amount_usd)))
            return f"refund of ${float(amount_usd):.2f} issued for {order_id}"

        return [lookup_order, refund_order]


def _results_since_request(body: JSON) -> int:
    """How many tool results the model has seen since the user's latest typed text."""
    blocks: list[str] = []
    for m in body.get("messages") or []:
        if m.get("role") != "user":
            continue
        content = m.get("content")
        items = [{"type": "text"}] if isinstance(content, str) else content or []
        blocks += [b.get("type", "") for b in items]
    last_text = max((i for i, kind in enumerate(blocks) if kind == "text"), default=-1)
    return sum(kind == "tool_result" for kind in blocks[last_text + 1:])


class RefundModel:
    """A scripted model for :data:`GOAL`: look the order up, refund it, answer.

    It answers the user's *latest* request, as a model does: a request typed again after
    tool results starts the plan over. ``drop_at=k`` cuts the connection on the k-th
    request (once), which is how a run dies mid-flight here. ``together=True`` asks for
    the lookup and the refund in one turn (two tool calls, a read and a write), then
    answers.
    """

    def __init__(self, *, drop_at: int | None = None, together: bool = False) -> None:
        self.drop_at = drop_at
        self.together = together
        self.calls = 0

    def __call__(self, body: JSON) -> Reply | JSON:
        self.calls += 1
        if self.calls == self.drop_at:
            return Reply.dropped()
        done = _results_since_request(body)
        if self.together:
            if done:
                return message([text(ANSWER)])
            return message([text("Looking it up and refunding it."),
                            tool_use("lookup_order", {"order_id": "A-1042"},
                                     id=f"toolu_{self.calls:02d}_lookup"),
                            tool_use("refund_order", {"order_id": "A-1042", "amount_usd": 49.0},
                                     id=f"toolu_{self.calls:02d}_refund")])
        if done == 0:
            return message([text("Let me look that order up."),
                            tool_use("lookup_order", {"order_id": "A-1042"},
                                     id=f"toolu_{self.calls:02d}_lookup")])
        if done == 1:
            return message([tool_use("refund_order",
                                     {"order_id": "A-1042", "amount_usd": 49.0},
                                     id=f"toolu_{self.calls:02d}_refund")])
        return message([text(ANSWER)])


class PlanModel:
    """A scripted model that asks for ``plan[k]`` on its k-th turn, one call per turn.

    ``forever=True`` repeats the plan without end (a loop that never converges); otherwise
    the turn after the plan answers ``answer``. A turn is counted from the assistant
    messages in the request, so the model ignores what the tools said: it is a stuck model.
    """

    def __init__(self, plan: Sequence[tuple[str, JSON]], *, forever: bool = False,
                 answer: str = "done") -> None:
        self.plan, self.forever, self.answer = list(plan), forever, answer

    def __call__(self, body: JSON) -> JSON:
        turn = sum(m.get("role") == "assistant" for m in body.get("messages") or [])
        if turn >= len(self.plan) and not self.forever:
            return message([text(self.answer)])
        name, args = self.plan[turn % len(self.plan)]
        return message([tool_use(name, args, id=f"toolu_{turn:03d}_{name}")])


def search_docs(q: str) -> str:
    """Search the help centre; returns the best matching line."""
    return f"no article matches {q!r}"


def lookup_order(order_id: str) -> str:
    """Look up an order's status."""
    return f"order {order_id}: delivered"


def lookup_plan(n: int = 14) -> list[tuple[str, JSON]]:
    """A long task with no repeats: look up ``n`` different orders, A-1001 onwards."""
    return [("lookup_order", {"order_id": f"A-{1001 + i}"}) for i in range(n)]


STUCK_PLAN: list[tuple[str, JSON]] = [("search_docs", {"q": "refund policy for damaged goods"})]


class ExactCache:
    """A cache that hits only on the exact same question in the same namespace.

    It has the call shape of Lab 5's semantic cache (``get(q, namespace=...)``,
    ``put(q, a, namespace=...)``) without embeddings, so this notebook is about where the
    lookup sits in the graph and which tenant it is made for.
    """

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], str] = {}
        self.gets: list[tuple[str, str]] = []
        self.puts: list[tuple[str, str, str]] = []

    def get(self, q: str, namespace: str = "default") -> str | None:
        self.gets.append((q, namespace))
        return self.rows.get((namespace, q))

    def put(self, q: str, a: str, namespace: str = "default") -> None:
        self.puts.append((q, a, namespace))
        self.rows[(namespace, q)] = a


def _route_tools(state: dict) -> str:
    from langgraph.graph import END

    return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END


def _agent(llm, tools: Sequence[Any]) -> Callable[[dict], dict]:
    bound = llm.bind_tools(list(tools)) if tools else llm

    def agent(state: dict) -> dict:
        return {"messages": [bound.invoke(state["messages"])]}

    return agent


def retry_graph(llm, policy):
    """START -> agent -> END, with ``policy`` (a ``RetryPolicy``) on the agent node."""
    from langgraph.graph import MessagesState, StateGraph

    g = StateGraph(MessagesState)
    g.add_node("agent", _agent(llm, ()), retry_policy=policy)
    g.set_entry_point("agent")
    g.set_finish_point("agent")
    return g.compile()


def budget_graph(llm, tools: Sequence[Any], state_type: type, route: Callable[..., str], *,
                 limit_usd: float, usd_per_call: float):
    """agent -> route(state, limit_usd=...) -> tools | halt | END; tools -> agent.

    The agent node contributes ``usd_per_call`` to ``spent`` on every model call; the
    ``halt`` node appends a partial report, ``"stopped: budget of $2.00 reached (spent
    $2.00)"`` for a $2.00 limit, and ends.
    """
    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, StateGraph
    from langgraph.prebuilt import ToolNode

    call = _agent(llm, tools)

    def charged(state: dict) -> dict:
        return {**call(state), "spent": usd_per_call}

    def halt(state: dict) -> dict:
        return {"messages": [AIMessage(f"stopped: budget of ${limit_usd:.2f} reached "
                                       f"(spent ${state['spent']:.2f})")]}

    g = StateGraph(state_type)
    g.add_node("agent", charged)
    g.add_node("tools", ToolNode(list(tools)))
    g.add_node("halt", halt)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", lambda s: route(s, limit_usd=limit_usd),
                            ["tools", "halt", END])
    g.add_edge("tools", "agent")
    g.add_edge("halt", END)
    return g.compile()


def guard_state():
    """``MessagesState`` plus ``halted: bool``, the state of :func:`guarded_graph`."""
    from langgraph.graph import MessagesState

    class GuardState(MessagesState):
        halted: bool

    return GuardState


def guarded_graph(llm, tools: Sequence[Any], guard: Callable[[dict], dict]):
    """agent -> tools -> guard -> agent, or END once the guard has set ``halted``."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.prebuilt import ToolNode

    g = StateGraph(guard_state())
    g.add_node("agent", _agent(llm, tools))
    g.add_node("tools", ToolNode(list(tools)))
    g.add_node("guard", guard)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", _route_tools, ["tools", END])
    g.add_edge("tools", "guard")
    g.add_conditional_edges("guard", lambda s: END if s.get("halted") else "agent",
                            ["agent", END])
    return g.compile()


def unguarded_graph(llm, tools: Sequence[Any], *, checkpointer=None):
    """agent -> tools -> agent with no guard: only ``recursion_limit`` stops it."""
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    g = StateGraph(MessagesState)
    g.add_node("agent", _agent(llm, tools))
    g.add_node("tools", ToolNode(list(tools)))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", _route_tools, ["tools", END])
    g.add_edge("tools", "agent")
    return g.compile(checkpointer=checkpointer)


def cache_state():
    """``MessagesState`` plus ``tenant: str`` and ``cache_hit: bool``."""
    from langgraph.graph import MessagesState

    class CacheState(MessagesState):
        tenant: str
        cache_hit: bool

    return CacheState


def cached_graph(llm, lookup: Callable[[dict], dict], route: Callable[[dict], str],
                 store: Callable[[dict], dict]):
    """START -> cache (lookup) -> route -> agent | END; agent -> store -> END."""
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(cache_state())
    g.add_node("cache", lookup)
    g.add_node("agent", _agent(llm, ()))
    g.add_node("store", store)
    g.add_edge(START, "cache")
    g.add_conditional_edges("cache", route, ["agent", END])
    g.add_edge("agent", "store")
    g.add_edge("store", END)
    return g.compile()


def tools_graph(llm, tools: Sequence[Any], tool_node: Callable[[dict], dict]):
    """agent -> tool_node -> agent, the usual loop with your own tool node in the middle."""
    from langgraph.graph import END, START, MessagesState, StateGraph

    g = StateGraph(MessagesState)
    g.add_node("agent", _agent(llm, tools))
    g.add_node("tools", tool_node)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", _route_tools, ["tools", END])
    g.add_edge("tools", "agent")
    return g.compile()


def big_report(order_id: str) -> str:
    """Fetch the full shipping log of an order (long: one line per scan event)."""
    return "\n".join(f"{order_id} scan {i:04d}: parcel seen at depot {i % 17:02d}, status ok"
                     for i in range(120))


@served
def refund_api(*, drop_at: int | None = None, together: bool = False) -> FakeAPI:
    """A fake API driven by :class:`RefundModel` (same arguments)."""
    return FakeAPI(RefundModel(drop_at=drop_at, together=together))


@served
def plan_api(plan: Sequence[Sequence[Any]], *, forever: bool = False,
             answer: str = "done") -> FakeAPI:
    """A fake API driven by :class:`PlanModel` (same arguments; ``plan`` as pairs)."""
    return FakeAPI(Scripted(PlanModel([(name, args) for name, args in plan],
                                      forever=forever, answer=answer)))


@served
def queue_api(replies: Sequence[Reply | JSON]) -> FakeAPI:
    """A fake API that hands out ``replies`` in order (a :class:`~course.fakes.Queue`)."""
    return FakeAPI(Queue(replies))


def results_sent(requests: Sequence[JSON], n: int) -> list[JSON]:
    """The last ``n`` ``tool_result`` blocks the model was sent over a run's requests (each
    request carries the whole history, so these are the results of the run's last n calls)."""
    return [b for body in requests for b in tool_results(body)][-n:] if n else []
