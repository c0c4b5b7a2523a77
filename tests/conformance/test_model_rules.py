"""Per-model rules of round two: manual thinking where a model takes it, adaptive thinking only
where a model has it, the context window, ``max_tokens: 0``, and tool schemas as JSON Schema.

Sources (the ``search`` tool's docs corpus, and the pinned SDK, anthropic 2.10.0):
* extended -- https://platform.claude.com/docs/en/build-with-claude/extended-thinking (manual
  thinking, ``thinking: {type: "enabled", budget_tokens: N}``, on the models that support it:
  claude-haiku-4-5-20251001 among them); its "Feature compatibility": "Thinking isn't
  compatible with temperature or top_k modifications as well as forced tool use" (quoted in
  anthropics/claude-code issue 19414); its tool-use section: "Using tool_choice: {"type":
  "any"} or tool_choice: {"type": "tool", ...} will result in an error" (quoted in
  run-llama/llama_index issue 19641).
* SDK-thinking -- ``types/thinking_config_enabled_param.py``: budget_tokens "Must be ≥1024
  and less than `max_tokens`".
* adaptive -- Amazon Bedrock, claude-messages-adaptive-thinking: "Older models ... do not
  support adaptive thinking and require thinking.type: "enabled" with budget_tokens"; the
  thinking-troubleshooting per-model table: Haiku 4.5 extended thinking only.
* windows -- models/opus-5/overview ("Context window: 1M tokens"), models/haiku-4-5/overview
  ("Context window: 200K tokens"); context-windows page (the window holds the prompt and the
  response); live 400 "prompt is too long: 208310 tokens > 200000 maximum" (anthropics/
  claude-code issue 12186); SDK ``types/message.py`` (stop_reason
  "model_context_window_exceeded": "we exceeded the model's context window").
* SDK-create -- ``types/message_create_params.py`` lines 41-43: "Set to `0` to populate the
  prompt cache without generating a response".
* schema -- SDK ``types/tool_param.py`` (input_schema: "JSON schema for this tool's input");
  the live 400 "tools.N.custom.input_schema: JSON schema is invalid. It must match JSON
  Schema draft 2020-12" (quoted in many public reports, e.g. claude-code MCP debugging notes).
"""

from __future__ import annotations

import anthropic
import pytest

from course.fakes import FakeAPI, Queue
from course.wire import message, text

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
GOAL = {"role": "user", "content": "What is the weather in Paris?"}
WEATHER = {"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}
ENABLED = {"type": "enabled", "budget_tokens": 2048}


def send(*, model=HAIKU, max_tokens=4096, messages=(GOAL,), reply=None, **kwargs):
    api = FakeAPI(Queue([reply or message([text("ok")])]))
    try:
        return api.client().messages.create(model=model, max_tokens=max_tokens,
                                            messages=list(messages), **kwargs)
    except anthropic.APIStatusError as err:
        return err


def rejected(**kwargs) -> str:
    err = send(**kwargs)
    assert isinstance(err, anthropic.BadRequestError), f"expected a 400, got {err!r}"
    return err.body["error"]["message"]


# -- manual thinking on Haiku 4.5 ---------------------------------------------------------


def test_manual_thinking_within_the_rules_is_accepted_on_haiku():
    # source: extended (Haiku 4.5 takes thinking.type "enabled").
    reply = send(thinking=ENABLED)
    assert isinstance(reply, anthropic.types.Message)
    assert reply.content[0].type == "thinking"


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}])
def test_forced_tool_use_with_manual_thinking_is_a_400(choice):
    # source: extended (forced tool use with thinking "will result in an error").
    # the live wording, as quoted in run-llama/llama_index issue 19641
    assert rejected(thinking=ENABLED, tools=[WEATHER], tool_choice=choice) == (
        "Thinking may not be enabled when tool_choice forces tool use.")


@pytest.mark.parametrize("choice", [{"type": "auto"}, {"type": "none"}])
def test_auto_and_none_tool_choice_with_manual_thinking_are_accepted(choice):
    # source: extended (thinking supports tool_choice auto and none).
    assert isinstance(send(thinking=ENABLED, tools=[WEATHER], tool_choice=choice),
                      anthropic.types.Message)


def test_a_budget_under_1024_is_a_400():
    # source: SDK-thinking (budget_tokens "Must be ≥1024").
    msg = rejected(thinking={"type": "enabled", "budget_tokens": 1023})
    assert "budget_tokens" in msg and "1024" in msg


@pytest.mark.parametrize("budget", [4096, 5000])
def test_a_budget_not_below_max_tokens_is_a_400(budget):
    # source: SDK-thinking (budget_tokens "less than `max_tokens`").
    msg = rejected(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": budget})
    assert "max_tokens" in msg and "budget_tokens" in msg


def test_temperature_other_than_1_with_thinking_is_a_400():
    # source: extended ("not compatible with temperature or top_k modifications").
    # (SDK 2.10.0 has no temperature keyword any more: the fields go in extra_body)
    assert "temperature" in rejected(thinking=ENABLED, extra_body={"temperature": 0.5})
    assert "top_k" in rejected(thinking=ENABLED, extra_body={"top_k": 5})
    assert isinstance(send(thinking=ENABLED, extra_body={"temperature": 1}),
                      anthropic.types.Message)


def test_temperature_without_thinking_stays_accepted_on_haiku():
    # source: models-overview via course/models.py (Haiku 4.5 keeps its sampling parameters).
    assert isinstance(send(extra_body={"temperature": 0.2}), anthropic.types.Message)


def test_adaptive_thinking_on_a_model_without_it_is_a_400():
    # source: adaptive (Haiku 4.5 has extended thinking only).
    assert "adaptive" in rejected(thinking={"type": "adaptive"})
    assert isinstance(send(model=OPUS, thinking={"type": "adaptive"}), anthropic.types.Message)


# -- context windows ------------------------------------------------------------------------


def long_prompt(n_tokens: int) -> dict:
    return {"role": "user", "content": "x" * (4 * n_tokens)}


def test_a_prompt_over_haikus_window_is_a_400():
    # source: windows (Haiku 4.5: 200K tokens; live "prompt is too long: N tokens > W maximum").
    msg = rejected(messages=[long_prompt(200_010)], max_tokens=64)
    assert msg.startswith("prompt is too long: ") and msg.endswith(" tokens > 200000 maximum")


def test_the_same_prompt_fits_opus_5s_window():
    # source: windows (Opus 5: 1M tokens).
    assert isinstance(send(model=OPUS, messages=[long_prompt(200_010)], max_tokens=64),
                      anthropic.types.Message)


def test_output_stops_at_the_window_when_input_plus_max_tokens_exceed_it():
    # source: windows (the window holds the response too); SDK types/message.py
    # (stop_reason "model_context_window_exceeded"). 199,900 input tokens leave about 100.
    long_reply = message([text("word " * 2_000)])
    reply = send(messages=[long_prompt(199_900)], max_tokens=8_000, reply=long_reply)
    assert isinstance(reply, anthropic.types.Message), reply
    assert reply.stop_reason == "model_context_window_exceeded"
    assert reply.usage.input_tokens + reply.usage.output_tokens <= 200_000


def test_max_tokens_0_generates_nothing():
    # source: SDK-create ("Set to `0` to populate the prompt cache without generating a
    # response").
    reply = send(model=OPUS, max_tokens=0)
    assert isinstance(reply, anthropic.types.Message), reply
    assert reply.content == [] and reply.usage.output_tokens == 0


def test_max_tokens_0_streams_nothing():
    # source: SDK-create, as above, on a stream.
    api = FakeAPI(Queue([message([text("ok")])]))
    with api.client().messages.stream(model=OPUS, max_tokens=0, messages=[GOAL]) as stream:
        final = stream.get_final_message()
    assert final.content == [] and final.usage.output_tokens == 0


# -- tool schemas as JSON Schema ------------------------------------------------------------


@pytest.mark.parametrize("schema", [
    {"type": "object", "required": "city"},                       # required not an array
    {"type": "object", "properties": {"city": {"type": "town"}}},  # no such type
    {"type": "object", "properties": {"n": {"minimum": "one"}}},   # minimum not a number
    {"type": "object", "properties": ["city"]},                    # properties not an object
])
def test_an_input_schema_that_is_not_valid_json_schema_is_a_400(schema):
    # source: schema (the input schema must be valid JSON Schema draft 2020-12; live wording).
    msg = rejected(tools=[dict(WEATHER, input_schema=schema)])
    assert msg.startswith("tools.0.custom.input_schema: JSON schema is invalid. It must match "
                          "JSON Schema draft 2020-12")


def test_a_schemas_verdict_is_kept_by_its_text_and_a_big_schemas_is_not():
    # An agent loop sends the same tools with every call: the metaschema check runs once
    # per schema text. A schema changed in place is judged anew; a big one is never kept.
    from course import validation

    validation._valid_schema_text.cache_clear()
    schema = {"type": "object", "properties": {"city": {"type": "town"}}}
    for _ in range(2):  # the second verdict is the kept one: still a 400
        assert rejected(tools=[dict(WEATHER, input_schema=schema)]).startswith(
            "tools.0.custom.input_schema: JSON schema is invalid")
    schema["properties"]["city"]["type"] = "string"
    assert isinstance(send(tools=[dict(WEATHER, input_schema=schema)]), anthropic.types.Message)
    assert validation._valid_schema_text.cache_info().currsize == 2
    big = {"type": "object", "description": "x" * validation.MAX_KEPT_SCHEMA}
    assert isinstance(send(tools=[dict(WEATHER, input_schema=big)]), anthropic.types.Message)
    assert validation._valid_schema_text.cache_info().currsize == 2, "a big schema was kept"


def test_a_valid_schema_with_nesting_and_refs_is_accepted():
    # source: schema (any valid draft 2020-12 object schema).
    schema = {"type": "object", "$defs": {"city": {"type": "string", "minLength": 1}},
              "properties": {"city": {"$ref": "#/$defs/city"},
                             "days": {"type": "integer", "minimum": 1, "maximum": 7}},
              "required": ["city"], "additionalProperties": False}
    assert isinstance(send(tools=[dict(WEATHER, input_schema=schema)]), anthropic.types.Message)
