"""Agent frameworks nobody here wrote run their own loops against ``api.serve()``.

pydantic-ai and anthropic-haystack (the ``agent-frameworks`` extra, pinned with anthropic
2.10.0) build their own SDK clients, send their own requests and resend their own turns;
the fake serves them on loopback, as ``ChatAnthropic`` is served in the framework tier. Each
run must end with the world's answer, through the framework's own loop: the weather world
(a capital, then its weather), and the typo world of Lab 1, which answers only when the
tool's error comes back as an ``is_error`` result. Where a framework sends what the live API
refuses, it gets the live API's 400: anthropic-haystack, streaming, keeps a thinking block
only when it has text (``haystack_integrations/components/generators/anthropic/chat/utils.py``,
``_finalize_reasoning_group``), so under Opus 5's default ``display: "omitted"`` it resends a
tool turn without its thinking block.

Nothing here reaches the network: the session's network guard (tests/conftest.py) lets only
loopback through, and haystack's telemetry is switched off before haystack is imported.
"""

from __future__ import annotations

import asyncio
import os

import anthropic
import pytest

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"   # haystack reads it when imported

pytest.importorskip("pydantic_ai", reason="the agent-frameworks extra is not installed")
pytest.importorskip("haystack_integrations.components.generators.anthropic",
                    reason="the agent-frameworks extra is not installed")

from haystack.components.agents import Agent as HaystackAgent  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402
from haystack.tools import create_tool_from_function  # noqa: E402
from haystack.utils import Secret  # noqa: E402
from haystack_integrations.components.generators.anthropic import (  # noqa: E402
    AnthropicChatGenerator,
)
from pydantic_ai import Agent, ModelRetry  # noqa: E402
from pydantic_ai.models.anthropic import AnthropicModel  # noqa: E402
from pydantic_ai.providers.anthropic import AnthropicProvider  # noqa: E402
from pydantic_ai.usage import UsageLimits  # noqa: E402

from course.fakes import FakeAPI, Scripted  # noqa: E402
from course.thinking import DROPPED  # noqa: E402
from course.wire import JSON, block_text, message, text, tool_results, tool_use  # noqa: E402
from course.worlds import weather  # noqa: E402

MODEL = "claude-opus-5"
ANSWER = "It is 14C and raining in Paris."     # the weather world's answer (Lab 1)


def two_step(body: JSON) -> JSON:
    """The weather world, scripted from what the loop sends back: the capital of France,
    then the weather of the city the first result named, then the answer."""
    results = tool_results(body)
    if not results:
        return message([tool_use("get_capital", {"country": "France"})])
    if len(results) == 1:
        return message([tool_use("get_weather", {"city": block_text(results[0]["content"])})])
    return message([text(ANSWER)])


def get_capital(country: str) -> str:
    """Return the capital city of a country, given its English name."""
    return weather.dispatch("get_capital", {"country": country})


def get_weather(city: str) -> str:
    """Return current conditions for a city as '<temp>C, <sky>'."""
    return weather.dispatch("get_weather", {"city": city})


def model_calls(api: FakeAPI) -> int:
    return len(api.requests)


# -- pydantic-ai ----------------------------------------------------------------------------


def pydantic_agent(base_url: str, *, retrying: bool = False) -> Agent:
    model = AnthropicModel(MODEL, provider=AnthropicProvider(api_key="sk-fake",
                                                             base_url=base_url))
    agent = Agent(model, system_prompt="Answer with the tools.", retries=2)

    @agent.tool_plain(name="get_capital")
    def get_capital_tool(country: str) -> str:
        """Return the capital city of a country, given its English name."""
        return get_capital(country)

    @agent.tool_plain(name="get_weather")
    def get_weather_tool(city: str) -> str:
        """Return current conditions for a city as '<temp>C, <sky>'."""
        try:
            return get_weather(city)
        except KeyError:
            if not retrying:
                raise
            # pydantic-ai's way to hand a tool error back to the model: a retry prompt,
            # which it sends as a tool_result with is_error
            raise ModelRetry(f"unknown city {city!r}") from None

    return agent


@pytest.fixture
def weather_api() -> FakeAPI:
    return FakeAPI(Scripted(two_step))


def test_pydantic_ai_runs_the_weather_world(weather_api):
    with weather_api.serve() as url:
        result = pydantic_agent(url).run_sync(weather.GOAL)
    assert result.output == ANSWER
    assert model_calls(weather_api) == 3 and weather_api.server_errors == []


def test_pydantic_ai_streams_the_weather_world(weather_api):
    async def run(url: str) -> str:
        async with pydantic_agent(url).run_stream(weather.GOAL) as streamed:
            return await streamed.get_output()

    with weather_api.serve() as url:
        assert asyncio.run(run(url)) == ANSWER
    assert all(body.get("stream") for body in weather_api.requests)
    assert model_calls(weather_api) == 3


def test_pydantic_ai_counts_tokens_before_each_request(weather_api):
    # UsageLimits(count_tokens_before_request=True) asks POST /v1/messages/count_tokens
    # before every model call; the fake answers {"input_tokens": N} and spends no reply.
    limits = UsageLimits(count_tokens_before_request=True, input_tokens_limit=100_000)
    with weather_api.serve() as url:
        result = pydantic_agent(url).run_sync(weather.GOAL, usage_limits=limits)
    assert result.output == ANSWER
    assert model_calls(weather_api) == 3 and len(weather_api.counted) == 3
    assert weather_api.server_errors == []


def test_pydantic_ai_stops_when_the_counted_tokens_pass_its_limit(weather_api):
    # The count is what a Messages call bills as input, so a limit below the first prompt
    # ends the run before any model call.
    from pydantic_ai.exceptions import UsageLimitExceeded

    limits = UsageLimits(count_tokens_before_request=True, input_tokens_limit=10)
    with weather_api.serve() as url, pytest.raises(UsageLimitExceeded):
        pydantic_agent(url).run_sync(weather.GOAL, usage_limits=limits)
    assert model_calls(weather_api) == 0 and len(weather_api.counted) == 1


def test_pydantic_ai_sends_a_tool_error_as_is_error():
    api = weather.typo_then_fix()
    with api.serve() as url:
        result = pydantic_agent(url, retrying=True).run_sync(weather.GOAL)
    assert result.output == ANSWER
    assert [r.get("is_error") for r in tool_results(api.requests[-1])] == [True, False]


# -- anthropic-haystack ---------------------------------------------------------------------


def haystack_agent(monkeypatch, base_url: str, *, streaming: bool = False,
                   **generation: object) -> HaystackAgent:
    # the generator builds anthropic.Anthropic(), which reads its base URL from the
    # environment
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    generator = AnthropicChatGenerator(
        api_key=Secret.from_token("sk-fake"), model=MODEL, max_retries=0,
        generation_kwargs=generation or None,
        streaming_callback=(lambda chunk: None) if streaming else None)
    agent = HaystackAgent(chat_generator=generator, tools=[
        create_tool_from_function(get_capital), create_tool_from_function(get_weather)])
    agent.warm_up()
    return agent


def _answer(agent: HaystackAgent) -> str:
    return agent.run(messages=[ChatMessage.from_user(weather.GOAL)])["last_message"].text


def test_haystack_runs_the_weather_world(weather_api, monkeypatch):
    with weather_api.serve() as url:
        assert _answer(haystack_agent(monkeypatch, url)) == ANSWER
    assert model_calls(weather_api) == 3


def test_haystack_streams_the_weather_world_with_summarized_thinking(weather_api, monkeypatch):
    with weather_api.serve() as url:
        agent = haystack_agent(monkeypatch, url, streaming=True,
                               thinking={"type": "adaptive", "display": "summarized"})
        assert _answer(agent) == ANSWER
    assert model_calls(weather_api) == 3


def test_haystack_streaming_omitted_thinking_gets_the_live_400(weather_api, monkeypatch):
    # Under display "omitted" a thinking block has no text; streamed, haystack drops it and
    # resends the tool turn without it: the live API's 400 for a dropped thinking block.
    with weather_api.serve() as url, pytest.raises(anthropic.BadRequestError) as err:
        _answer(haystack_agent(monkeypatch, url, streaming=True))
    assert err.value.body["error"]["message"] == DROPPED.format(turn=1, found="tool_use")
    assert model_calls(weather_api) == 2


def test_haystack_sends_a_tool_error_as_is_error(monkeypatch):
    api = weather.typo_then_fix()
    with api.serve() as url:
        assert _answer(haystack_agent(monkeypatch, url)) == ANSWER
    assert [r.get("is_error") for r in tool_results(api.requests[-1])] == [True, False]
