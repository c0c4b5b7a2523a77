"""Requests the Messages API rejects, rejected by the fake with the API's status, type and words.

One test per documented rule a loop in this course can break, each driven through the real
SDK (``FakeAPI(...).client()``) and caught as the SDK's own exception, as a student's loop
would catch it. Every test names its source: a docs page, an SDK file, or, where the docs
describe the rule but do not quote the message, a live API message quoted in public reports
(``live``; the reports are listed in ``course/validation.py``). Where the docs are silent
the test says so and checks that the fake stays permissive.

Sources (the ``search`` tool's docs corpus):
* tool-calls -- https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
* errors     -- https://platform.claude.com/docs/en/api/errors
* opus-5     -- https://platform.claude.com/docs/models/opus-5/overview, and the Opus 5
                migration guide (zh-CN copy: docs/zh-CN/models/opus-5/migration-guide): two
                breaking changes from Opus 4.8, the rest of Opus 4.8's rules unchanged
* migration  -- https://platform.claude.com/docs/en/about-claude/models/migration-guide
* prefill    -- https://platform.claude.com/docs/en/docs/prefill-claudes-response
* SDK        -- anthropic 2.10.0, the files named on each test.
"""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from course.fakes import FakeAPI, Queue
from course.wire import message, text, tool_use

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
GOAL = {"role": "user", "content": "What is the weather in Paris?"}
WEATHER = {"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}
ASKED = {"role": "assistant", "content": [text("Checking."),
                                          tool_use("get_weather", {"city": "Paris"},
                                                   id="toolu_P")]}


def result(tool_use_id: str = "toolu_P", content: object = "18 C, clear", **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, **extra}


def send(messages: list, *, model: str = OPUS, max_tokens: int = 256, **kwargs):
    """One request through the SDK; the fake answers "ok" when it accepts it.

    Returns ``(reply or raised APIStatusError, the fake)``. ``max_retries=2`` proves that a
    rejected request is answered once and not retried: a 400 is not retryable, a broken
    transport would be."""
    api = FakeAPI(Queue([message([text("ok")])] * 3))
    client = api.client(max_retries=2)
    try:
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages,
                                       timeout=60, **kwargs)
    except anthropic.APIStatusError as err:
        return err, api
    return reply, api


def rejected(messages: list, **kwargs) -> str:
    """The message of the 400 ``invalid_request_error`` the request gets."""
    err, api = send(messages, **kwargs)
    assert isinstance(err, anthropic.BadRequestError), f"expected a 400, got {err!r}"
    assert err.status_code == 400 and err.body["error"]["type"] == "invalid_request_error"
    assert len(api.requests) == 1, "a 400 must reach the caller after one request"
    return err.body["error"]["message"]


def accepted(messages: list, **kwargs) -> None:
    reply, _ = send(messages, **kwargs)
    assert isinstance(reply, anthropic.types.Message), f"expected a reply, got {reply!r}"


# -- tool_use ids -----------------------------------------------------------------------


def test_the_assistant_turn_appended_twice_is_a_400():
    # source: live ("messages.1.content.1: `tool_use` ids must be unique", by merged turn and
    # block); SDK types/message_create_params.py lines 56-57 (consecutive turns are combined).
    msg = rejected([GOAL, ASKED, ASKED, {"role": "user", "content": [result()]}])
    assert msg == "messages.1.content.3: `tool_use` ids must be unique"


def test_a_tool_use_id_reused_in_a_later_turn_is_a_400():
    # source: live, as above: ids are unique over the whole history, not per turn.
    again = {"role": "assistant", "content": [tool_use("get_weather", {"city": "Lyon"},
                                                       id="toolu_P")]}
    msg = rejected([GOAL, ASKED, {"role": "user", "content": [result()]}, again,
                    {"role": "user", "content": [result()]}])
    assert msg == "messages.3.content.0: `tool_use` ids must be unique"


# -- where the tool results go ----------------------------------------------------------


def test_text_before_the_tool_results_is_a_400():
    # source: tool-calls ("the tool_result blocks must come FIRST in the content array. Any
    # text must come AFTER all tool results"; text first "will cause a 400 error", reported
    # as "tool_use ids were found without tool_result blocks immediately after").
    nudge = {"type": "text", "text": "You have asked this twice; try another city."}
    msg = rejected([GOAL, ASKED, {"role": "user", "content": [nudge, result()]}])
    assert msg.startswith("messages.1: `tool_use` ids were found without `tool_result` blocks "
                          "immediately after: toolu_P.")


def test_text_after_the_tool_results_is_accepted():
    # source: tool-calls ("This is correct": the tool_result, then the text).
    nudge = {"type": "text", "text": "What should I do next?"}
    accepted([GOAL, ASKED, {"role": "user", "content": [result(), nudge]}])


def test_text_first_is_a_400_even_when_split_over_two_user_messages():
    # source: SDK types/message_create_params.py lines 56-57 (consecutive user messages are
    # one turn), tool-calls (results first in that turn).
    msg = rejected([GOAL, ASKED, {"role": "user", "content": "a note first"},
                    {"role": "user", "content": [result()]}])
    assert "ids were found without `tool_result` blocks immediately after: toolu_P" in msg


def test_results_split_over_user_messages_are_accepted():
    # source: tool-calls ("Sending separate user messages for each tool result" reduces
    # parallel tool use; it is not an error). Matched before issue 19.
    two = {"role": "assistant", "content": [tool_use("get_weather", {"city": "A"}, id="toolu_A"),
                                            tool_use("get_weather", {"city": "B"}, id="toolu_B")]}
    accepted([GOAL, two, {"role": "user", "content": [result("toolu_A")]},
              {"role": "user", "content": [result("toolu_B")]}])


def test_an_unanswered_tool_use_is_a_400():
    # source: tool-calls ("Tool result blocks must immediately follow their corresponding tool
    # use blocks"); live wording. Matched before issue 19.
    msg = rejected([GOAL, ASKED, {"role": "user", "content": "no result here"}])
    assert msg == ("messages.1: `tool_use` ids were found without `tool_result` blocks "
                   "immediately after: toolu_P. Each `tool_use` block must have a "
                   "corresponding `tool_result` block in the next message.")


# -- empty text -------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "wording"), [
    ("", "messages: text content blocks must be non-empty"),
    ("  \n", "messages: text content blocks must contain non-whitespace text"),
])
def test_an_empty_text_block_is_a_400(value, wording):
    # source: live (both messages word for word).
    assert rejected([{"role": "user", "content": [{"type": "text", "text": value}]}]) == wording


def test_a_tool_result_whose_text_block_is_empty_is_a_400():
    # source: live ("messages: text content blocks must be non-empty"): a tool that returned
    # None, sent as an empty text block inside the result.
    empty = result(content=[{"type": "text", "text": ""}])
    assert rejected([GOAL, ASKED, {"role": "user", "content": [empty]}]) == (
        "messages: text content blocks must be non-empty")


def test_a_whitespace_only_message_is_a_400():
    # source: live; SDK types/message_create_params.py lines 99-105 (a string is shorthand
    # for one text block, so it follows the text-block rule).
    assert rejected([{"role": "user", "content": " "}]) == (
        "messages: text content blocks must contain non-whitespace text")


def test_a_tool_result_with_no_content_is_accepted():
    # source: tool-calls ("Example of empty tool result": type and tool_use_id only).
    accepted([GOAL, ASKED, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_P"}]}])


def test_an_error_tool_result_needs_content():
    # source: live ("messages.N.content.M.tool_result: content cannot be empty if `is_error`
    # is true").
    msg = rejected([GOAL, ASKED, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_P", "is_error": True}]}])
    assert msg == "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"


# -- prefill ----------------------------------------------------------------------------


@pytest.mark.parametrize("model", [OPUS, SONNET])
def test_a_prefilled_assistant_turn_is_a_400_on_the_5_models(model):
    # source: SDK types/message_create_params.py lines 64-69 ("On models that don't support
    # prefill ... returns a 400 error"); migration (Opus 4.8: "last-assistant-turn prefills
    # still 400", carried to Opus 5 by opus-5; Sonnet 5: "assistant-turn prefills still
    # return a 400"); live wording.
    msg = rejected([GOAL, {"role": "assistant", "content": "The weather is"}], model=model)
    assert msg == ("This model does not support assistant message prefill. The conversation "
                   "must end with a user message.")


def test_a_prefill_is_accepted_on_haiku_4_5():
    # source: migration (prefill removed from Opus 4.6 / Sonnet 4.6 on; Haiku 4.5 predates
    # it), prefill (how to prefill).
    accepted([GOAL, {"role": "assistant", "content": "The weather is"}], model=HAIKU)


def test_a_prefill_ending_in_whitespace_is_a_400():
    # source: prefill ("The prefill content cannot end with trailing whitespace ... will
    # result in an error"); wording ours.
    msg = rejected([GOAL, {"role": "assistant", "content": "The weather is "}], model=HAIKU)
    assert "cannot end with trailing whitespace" in msg


# -- the model --------------------------------------------------------------------------


def test_an_unknown_model_is_a_404_not_found_error():
    # source: errors (404 not_found_error); live ("model: opus-4").
    err, api = send([GOAL], model="claude-opus5")
    assert isinstance(err, anthropic.NotFoundError) and err.status_code == 404
    assert err.body["error"] == {"type": "not_found_error", "message": "model: claude-opus5"}
    assert len(api.requests) == 1


def test_a_model_the_sdk_lists_is_served():
    # source: SDK types/model_param.py lines 9-32 (claude-opus-4-8 is a model id). The fake
    # has no facts for it, so it checks nothing model-specific (looser than the API).
    accepted([GOAL], model="claude-opus-4-8")


@pytest.mark.parametrize(("model", "ceiling"), [(OPUS, 128_000), (SONNET, 128_000),
                                                (HAIKU, 64_000)])
def test_max_tokens_above_the_models_ceiling_is_a_400(model, ceiling):
    # source: opus-5 (max output: Opus 5 128K, Sonnet 5 128K, Haiku 4.5 64K); live wording.
    msg = rejected([GOAL], model=model, max_tokens=ceiling + 1)
    assert msg == (f"max_tokens: {ceiling + 1} > {ceiling}, which is the maximum allowed "
                   f"number of output tokens for {model}")
    accepted([GOAL], model=model, max_tokens=ceiling)


def test_a_negative_max_tokens_is_a_400():
    # source: SDK types/message_create_params.py lines 35-47 (0 is the smallest value: it
    # pre-warms the cache); wording ours.
    assert rejected([GOAL], max_tokens=-1).startswith("max_tokens:")


@pytest.mark.parametrize(("param", "value"), [("temperature", 0.2), ("temperature", 1.0),
                                              ("top_p", 0.9), ("top_k", 40)])
def test_sampling_parameters_are_a_400_on_opus_5(param, value):
    # source: migration (Opus 4.7: "no longer accepted ... Requests that include them return a
    # 400 error"; still so on 4.8), opus-5 (Opus 5 changes nothing else); live wording. The
    # pinned SDK has no such keyword, so a loop sends them with extra_body or its own client.
    msg = rejected([GOAL], extra_body={param: value})
    assert msg == f"`{param}` is deprecated for this model."


@pytest.mark.parametrize(("param", "value", "ok"), [
    ("temperature", 1.0, True), ("temperature", 0.2, False), ("top_p", 1.0, True),
    ("top_p", 0.9, False), ("top_k", 40, False)])
def test_sampling_parameters_on_sonnet_5_only_at_their_default(param, value, ok):
    # source: migration (Claude Sonnet 5: "Setting temperature, top_p, or top_k to a
    # non-default value returns a 400; omitting the parameter, or passing its default, is
    # still accepted"; top_k has no default value to pass).
    if ok:
        accepted([GOAL], model=SONNET, extra_body={param: value})
    else:
        assert rejected([GOAL], model=SONNET, extra_body={param: value}) == (
            f"`{param}` is deprecated for this model.")


def test_haiku_4_5_takes_temperature_but_not_with_top_p():
    # source: migration (Claude 4.x: "temperature OR top_p, not both"); wording ours.
    accepted([GOAL], model=HAIKU, extra_body={"temperature": 0.2})
    assert "cannot both be specified" in rejected(
        [GOAL], model=HAIKU, extra_body={"temperature": 0.2, "top_p": 0.9})


@pytest.mark.parametrize("model", [OPUS, SONNET])
def test_manual_thinking_with_budget_tokens_is_a_400_on_the_5_models(model):
    # source: migration (Opus 4.7 on and Claude Sonnet 5: thinking {type: "enabled",
    # budget_tokens: N} "is removed -- sending it returns 400"); wording ours.
    msg = rejected([GOAL], model=model, max_tokens=4096,
                   thinking={"type": "enabled", "budget_tokens": 2048})
    assert msg.startswith('thinking.type: "enabled" is not supported for this model')
    accepted([GOAL], model=model, thinking={"type": "adaptive"})


@pytest.mark.parametrize(("effort", "ok"), [("high", True), ("medium", True),
                                            ("xhigh", False), ("max", False)])
def test_thinking_disabled_only_at_effort_high_or_below_on_opus_5(effort, ok):
    # source: opus-5 ("thinking can be disabled only at effort high or below", a breaking
    # change from Opus 4.8); wording ours.
    kwargs = {"thinking": {"type": "disabled"}, "output_config": {"effort": effort}}
    if ok:
        accepted([GOAL], **kwargs)
    else:
        assert rejected([GOAL], **kwargs) == (
            f"output_config.effort: '{effort}' is not supported when thinking is disabled "
            "on this model")


def test_a_mid_conversation_system_message_is_accepted():
    # source: SDK types/message_param.py and types/system_message_param.py (a message may
    # have role "system"); github:anthropics/skills model-migration.md, "mid-session system
    # prompts" (Opus 4.8 on), whose example puts one after a tool_result turn. The docs do
    # not say where one may not go, so the fake accepts it anywhere.
    accepted([GOAL, ASKED, {"role": "user", "content": [result()]},
              {"role": "system", "content": "The user is on a metered connection."}])


# -- tools and tool_choice --------------------------------------------------------------


def test_a_tool_without_input_schema_is_a_400():
    # source: SDK types/tool_param.py (input_schema is Required); API field-path wording.
    tool = {"name": "get_weather", "description": "Weather for a city."}
    assert rejected([GOAL], tools=[tool]) == "tools.0.custom.input_schema: Field required"


def test_an_input_schema_that_is_not_an_object_schema_is_a_400():
    # source: SDK types/tool_param.py lines 17-20 (input_schema.type is Literal["object"]).
    tool = dict(WEATHER, input_schema={"type": "string"})
    assert rejected([GOAL], tools=[tool]) == (
        "tools.0.custom.input_schema.type: Input should be 'object'")


@pytest.mark.parametrize("name", ["get weather", "weather.get", "x" * 129, ""])
def test_a_tool_name_outside_the_pattern_is_a_400(name):
    # source: live ("tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'").
    assert rejected([GOAL], tools=[dict(WEATHER, name=name)]) == (
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'")


def test_a_tool_name_at_the_pattern_limit_is_accepted():
    # source: live, as above: 128 characters of [a-zA-Z0-9_-] match.
    accepted([GOAL], tools=[dict(WEATHER, name="get_weather-" + "x" * 116)])


def test_two_tools_with_one_name_is_a_400():
    # source: SDK types/tool_name_conflict_error_details.py (a name another available tool
    # holds is refused); wording ours.
    assert rejected([GOAL], tools=[WEATHER, dict(WEATHER)]) == "tools: Tool names must be unique."


def test_tool_choice_naming_a_missing_tool_is_a_400():
    # source: SDK types/tool_choice_tool_param.py ("The model will use the specified tool
    # with tool_choice.name"); the docs do not quote the 400; wording ours.
    msg = rejected([GOAL], tools=[WEATHER], tool_choice={"type": "tool", "name": "get_time"})
    assert msg.startswith("tool_choice.tool.name: tool 'get_time' is not among")


def test_tool_choice_of_an_unknown_type_is_a_400():
    # source: SDK types/tool_choice_param.py (auto, any, tool, none); wording ours.
    msg = rejected([GOAL], tools=[WEATHER], extra_body={"tool_choice": {"type": "required"}})
    assert msg == "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}])
def test_tool_choice_that_forces_a_tool_without_tools_is_a_400(choice):
    # source: SDK types/tool_choice_any_param.py ("The model will use any available tools");
    # with none available the request cannot be met; wording ours.
    assert "may only be specified while providing tools" in rejected([GOAL], tool_choice=choice)


def test_tool_choice_auto_and_none_without_tools_are_accepted():
    # source: the docs are silent on auto/none without tools; the fake stays permissive.
    accepted([GOAL], tool_choice={"type": "auto"})
    accepted([GOAL], tool_choice={"type": "none"})


# -- malformed blocks and bodies: always a 400, never a transport error -----------------


@pytest.mark.parametrize(("block", "wording"), [
    ({"type": "tool_result", "content": "18 C"},
     "messages.2.content.0.tool_result.tool_use_id: Field required"),
    ("just a string", "messages.2.content.0: Input should be a valid block"),
    ({"text": "no type"}, "messages.2.content.0: Input should be a valid block"),
    ({"type": "tool_result", "tool_use_id": "toolu_P", "content": 42},
     "messages.2.content.0.tool_result.content: Input should be a valid string or a list of "
     "content blocks"),
])
def test_a_malformed_block_is_a_400_not_a_connection_error(block, wording):
    # source: SDK types/tool_result_block_param.py (tool_use_id and type are Required),
    # errors (400 for the format of the request). Before, a tool_result without
    # tool_use_id raised TypeError in the fake, which the SDK turned into a retryable
    # APIConnectionError, retried twice.
    assert rejected([GOAL, ASKED, {"role": "user", "content": [block]}]) == wording


def test_a_tool_use_block_without_an_id_is_a_400():
    # source: SDK types/tool_use_block_param.py (id, input, name are Required).
    bare = {"role": "assistant", "content": [{"type": "tool_use", "name": "get_weather",
                                              "input": {}}]}
    assert rejected([GOAL, bare, {"role": "user", "content": "?"}]) == (
        "messages.1.content.0.tool_use.id: Field required")


@pytest.mark.parametrize("raw", [b"[1, 2]", b'"hello"', b"null"])
def test_a_body_that_is_not_an_object_is_a_400(raw):
    # source: errors (400 invalid_request_error: the format of the request); wording ours.
    api = FakeAPI(Queue([]))
    response = api(httpx2.Request("POST", "https://api.anthropic.com/v1/messages", content=raw,
                                  headers={"x-api-key": "k", "anthropic-version": "2023-06-01"}))
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_a_malformed_request_over_http_is_a_400_too():
    # source: as above; the served fake answers through the same checks.
    api = FakeAPI(Queue([message([text("ok")])]))
    with api.serve() as url:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=2)
        with pytest.raises(anthropic.BadRequestError) as err:
            client.messages.create(model=OPUS, max_tokens=64, messages=[
                GOAL, ASKED, {"role": "user", "content": [{"type": "tool_result"}]}])
    assert err.value.body["error"]["message"].endswith("tool_use_id: Field required")
    assert api.server_errors == [] and len(api.requests) == 1
