"""The weather world of Lab 1: two tools, their dispatch, and the scripted models that drive them.

Everything a Lab 1 notebook cell or hidden test needs to set up a run lives here,
so tests never depend on variables a student might have renamed or deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic

from ..cassette import Replay, ReplayMiss
from ..fakes import FakeAPI, Queue, Scripted
from ..hub import served
from ..wire import JSON, block_text, message, text, tool_use
from ..wire import tool_results as tool_results  # the graded cells read requests with it

GOAL = "What is the weather in the capital of France?"
THREE_CITIES_GOAL = "What is the weather in Paris, Tokyo, and Lima?"

TOOLS: list[JSON] = [
    {
        "name": "get_capital",
        "description": "Return the capital city of a country. Input: the country's English name.",
        "input_schema": {
            "type": "object",
            "properties": {"country": {"type": "string", "description": "e.g. 'France'"}},
            "required": ["country"],
        },
    },
    {
        "name": "get_weather",
        "description": "Return current conditions for a city as '<temp>C, <sky>'.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "e.g. 'Paris'"}},
            "required": ["city"],
        },
    },
]

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Peru": "Lima"}
WEATHER = {"Paris": "14C, rain", "Tokyo": "22C, clear", "Lima": "19C, overcast"}


def dispatch(name: str, args: JSON) -> str:
    """Run a weather-world tool. Unknown names and cities raise, as real tools do."""
    if name == "get_capital":
        return CAPITALS[args["country"]]
    if name == "get_weather":
        return WEATHER[args["city"]]
    raise KeyError(f"unknown tool {name!r}")


class CountingDispatch:
    """A dispatch that records every call, so tests can see what actually ran."""

    def __init__(self, inner: Callable[[str, JSON], Any] = dispatch) -> None:
        self.inner = inner
        self.calls: list[tuple[str, JSON]] = []

    def __call__(self, name: str, args: JSON) -> Any:
        self.calls.append((name, dict(args)))
        return self.inner(name, args)


# -- the scenarios ---------------------------------------------------------------------
# Each is @served: under the grader, a graded test cell's fake lives in the grader's
# process (course.hub), so the request log a judge reads is the grader's own.


@served
def two_step() -> FakeAPI:
    """The recorded two-step trace: capital, then weather, then the answer."""
    return FakeAPI(Replay("lab01_tool_loop__weather_two_step"))


@served
def three_cities() -> FakeAPI:
    """The model asks for three weather calls in one turn, then answers."""
    return FakeAPI(Replay("lab01_tool_loop__three_cities"))


@served
def typo_then_fix() -> FakeAPI:
    """The model misspells a city, reads the tool's error, and corrects itself.

    The correction only comes if the error reaches the model as an ``is_error``
    tool_result; anything else gets a reply that says so.
    """

    def respond(body: JSON) -> JSON:
        turns = body["messages"]
        if len(turns) == 1:
            return message([tool_use("get_weather", {"city": "Pariss"}, id="toolu_typo")])
        results = [b for m in turns if m["role"] == "user" and isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result"]
        if len(turns) == 3 and results and results[-1].get("is_error") is True:
            return message([tool_use("get_weather", {"city": "Paris"}, id="toolu_fixed")])
        if len(turns) == 5:
            return message([text("It is 14C and raining in Paris.")])
        return message([text("I could not tell whether that tool call failed.")])

    return FakeAPI(Scripted(respond))


@served
def two_text_answer() -> FakeAPI:
    """A model that answers at once in two text blocks (the second starts with a space)."""
    return FakeAPI(Queue([message([text("Paris is 14C and rainy."),
                                   text(" Take an umbrella.")])]))


@served
def stop_sequence_answer() -> FakeAPI:
    """An answer that ends at a stop sequence: stop_reason ``stop_sequence``, no tool asked."""
    reply = message([text("14C and rain in Paris.")], stop_reason="stop_sequence")
    return FakeAPI(Queue([dict(reply, stop_sequence="END")]))


@served
def truncated(in_tool: bool = False) -> FakeAPI:
    """A reply cut off by ``max_tokens``: HTTP 200, stop_reason max_tokens. With ``in_tool``
    the cut falls inside a ``tool_use`` block, which comes back incomplete."""
    if in_tool:
        cut = [text("Let me look that up."),
               tool_use("get_weather", {"city": "Par"}, id="toolu_cut_off")]
        return FakeAPI(Queue([message(cut, stop_reason="max_tokens")]))
    return FakeAPI(Queue([message([text("The weather in Par")], stop_reason="max_tokens")]))


@served
def refusal(reason: str = "", *more: str) -> FakeAPI:
    """A refusal: stop_reason ``refusal``, with ``reason`` (and each of ``more``) as its text
    blocks, or with no content blocks at all when ``reason`` is empty."""
    blocks = [text(t) for t in (reason, *more) if t]
    return FakeAPI(Queue([message(blocks, stop_reason="refusal")]))


@served(bounds={"limit": (0, 100)})
def endless(limit: int = 40) -> FakeAPI:
    """A model that asks for a tool on every turn. After ``limit`` calls the fake stops
    answering with a :class:`~course.cassette.ReplayMiss`, so an unbounded loop ends."""
    return FakeAPI(Queue([
        message([tool_use("get_weather", {"city": "Paris"}, id=f"toolu_loop_{n:03d}")])
        for n in range(1, limit + 1)
    ]))


def run(agent: Callable[..., Any], goal: str, dispatch: Callable[[str, JSON], Any],
        api: FakeAPI, **kwargs: Any) -> Any:
    """Call a student's ``agent`` on ``api`` for a graded test.

    A request the API rejects, or one the fake has no reply for, becomes a one-line
    ``AssertionError`` that says which model call failed and why, instead of an SDK
    traceback. Everything the agent raises itself passes through unchanged.
    """
    try:
        return agent(goal, TOOLS, dispatch, client=api.client(), **kwargs)
    except anthropic.APIStatusError as err:
        body = err.body if isinstance(err.body, dict) else {}
        why = body.get("error", {}).get("message", str(err))
        raise AssertionError(f"the API rejected model call {len(api.requests)} "
                             f"(HTTP {err.status_code}): {why}") from None
    except ReplayMiss as miss:
        lines = str(miss).splitlines()
        first = lines[1].strip() if len(lines) > 1 else lines[0] if lines else ""
        raise AssertionError(f"model call {len(api.requests)} was not what the recorded "
                             f"conversation expects: check the messages you resend ({first})"
                             ) from None


# -- shape helpers for reading a request log -------------------------------------------


def result_messages(body: JSON) -> list[JSON]:
    """The user messages of a request that carry at least one tool_result."""
    return [m for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            and any(b.get("type") == "tool_result" for b in m["content"])]


def result_text(block: JSON) -> str:
    """The text a tool_result carries: its string content, or its text blocks joined."""
    return block_text(block.get("content"))


def assistant_blocks(body: JSON) -> list[JSON]:
    """Every block of every assistant message of a request, in order."""
    out = []
    for m in body["messages"]:
        if m["role"] == "assistant":
            out += m["content"] if isinstance(m["content"], list) else [text(m["content"])]
    return out
