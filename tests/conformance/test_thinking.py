"""Thinking blocks: which requests get them, what they look like, how they are billed, and
the 400 a loop gets when it does not send them back unchanged.

Every test drives the fake through the real SDK. The round-trip tests run a tool loop the way
a student writes one: the assistant turn sent back is the SDK's own ``reply.content``, or a
version of it with the bug under test.

Sources (the ``search`` tool's docs corpus, the pinned SDK, and recorded API messages):
* opus-5 migration -- https://platform.claude.com/docs/zh-CN/models/opus-5/migration-guide,
  "Breaking changes" 1: thinking on by default; ``thinking: {type: "disabled"}`` keeps the
  old behaviour; replies may begin with thinking blocks, empty ``thinking`` text (``display``
  defaults to ``"omitted"``) and a ``signature``; thinking tokens billed as output tokens.
* troubleshooting -- https://platform.claude.com/docs/zh-CN/build-with-claude/thinking-troubleshooting,
  the per-model table: Opus 5 and Sonnet 5 adaptive and on by default, Haiku 4.5 off.
* tool workflows -- https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows:
  "Pass thinking blocks back complete and unmodified"; "Echo the assistant message exactly as
  received: rebuilding the message ... triggers a 400 error"; forced tool use, where
  accepted, skips thinking (ja copy of the page).
* omitting earlier turns -- Amazon Bedrock, claude-messages-thinking-encryption: "It is only
  strictly necessary to send back thinking blocks when using tools with extended thinking.
  Otherwise, you can omit thinking blocks from previous turns".
* recorded 400s -- anthropics/claude-cookbooks, extended_thinking/
  extended_thinking_with_tool_use.ipynb (the "Expected `thinking` ..." message);
  microsoft/vscode#318076 and cortexkit/magic-context#8 ("... cannot be modified").
* SDK -- ``types/thinking_block.py`` (``signature``), ``types/thinking_config_adaptive_param.py``
  (``display``), ``types/output_tokens_details.py`` (``thinking_tokens``).
"""

from __future__ import annotations

import math

import anthropic
import pytest

from course.cassette import Replay
from course.fakes import FakeAPI, Queue, Scripted
from course.wire import message, text, tool_use

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
GOAL = {"role": "user", "content": "What is the weather in Paris?"}
WEATHER = {"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}
DROPPED = ("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
           "`{}`. When `thinking` is enabled, a final `assistant` message must start with a "
           "thinking block")
MODIFIED = ("`thinking` or `redacted_thinking` blocks in the latest assistant message cannot "
            "be modified. These blocks must remain as they were in the original response.")


def weather_model(body: dict) -> dict:
    """Asks for the weather once, then answers."""
    if len(body["messages"]) == 1:
        return message([text("Checking."), tool_use("get_weather", {"city": "Paris"},
                                                     id="toolu_paris")])
    return message([text("18 C and clear.")])


def first_reply(model: str = OPUS, **kwargs):
    api = FakeAPI(Scripted(weather_model))
    client = api.client()
    reply = client.messages.create(model=model, max_tokens=1024, tools=[WEATHER],
                                   messages=[GOAL], **kwargs)
    return reply, client, api


def answer_with(assistant_content, client, **kwargs):
    """The second call of the loop: the given assistant turn, then the tool's result."""
    return client.messages.create(
        model=OPUS, max_tokens=1024, tools=[WEATHER], **kwargs,
        messages=[GOAL, {"role": "assistant", "content": assistant_content},
                  {"role": "user", "content": [{"type": "tool_result",
                                                "tool_use_id": "toolu_paris",
                                                "content": "18 C, clear"}]}])


def rejected(assistant_content, client) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        answer_with(assistant_content, client)
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


def as_dicts(content) -> list[dict]:
    return [b.model_dump(exclude_none=True) for b in content]


# -- which requests think, and what the blocks look like -----------------------------------


def test_opus_5_thinks_by_default_with_display_omitted():
    # source: opus-5 migration, breaking change 1: a request with no thinking field runs with
    # adaptive thinking; the blocks come first, with empty text and a signature.
    reply, _, _ = first_reply()
    assert [b.type for b in reply.content] == ["thinking", "text", "tool_use"]
    assert reply.content[0].thinking == "" and reply.content[0].signature


def test_sonnet_5_thinks_by_default():
    # source: troubleshooting, the per-model table: Claude Sonnet 5, adaptive, on by default.
    reply, _, _ = first_reply(SONNET)
    assert reply.content[0].type == "thinking"


def test_haiku_4_5_does_not_think_by_default():
    # source: troubleshooting, the per-model table: Claude Haiku 4.5, extended only, off.
    reply, _, _ = first_reply(HAIKU)
    assert [b.type for b in reply.content] == ["text", "tool_use"]


def test_disabled_thinking_sends_no_thinking_block():
    # source: opus-5 migration: thinking: {type: "disabled"} keeps the old behaviour (at
    # effort high or below, the default).
    reply, _, _ = first_reply(thinking={"type": "disabled"})
    assert [b.type for b in reply.content] == ["text", "tool_use"]


def test_display_summarized_returns_thinking_text():
    # source: SDK types/thinking_config_adaptive_param.py: "When set to `summarized`, thinking
    # is returned normally".
    reply, _, _ = first_reply(thinking={"type": "adaptive", "display": "summarized"})
    assert reply.content[0].type == "thinking" and reply.content[0].thinking.strip()


def test_forced_tool_use_skips_thinking():
    # source: tool workflows (ja copy): where forced tool use is accepted, thinking is skipped
    # and the response begins with the tool call.
    reply, _, _ = first_reply(tool_choice={"type": "tool", "name": "get_weather"})
    assert reply.content[0].type != "thinking"


def test_reading_content_0_finds_the_thinking_block():
    # source: opus-5 migration: code that reads the reply by position (content[0].text) breaks.
    reply, _, _ = first_reply()
    assert not hasattr(reply.content[0], "text")


def test_thinking_tokens_are_billed_as_output_tokens():
    # source: opus-5 migration (billed as output tokens even when the text is not returned);
    # SDK output_tokens_details.py (thinking_tokens is part of output_tokens). The reply's
    # text is 15 characters: 4 tokens at the fake's four characters a token.
    api = FakeAPI(Queue([message([text("18 C and clear.")])]))
    reply = api.client().messages.create(model=OPUS, max_tokens=256, messages=[GOAL])
    thought = reply.usage.output_tokens_details.thinking_tokens
    assert thought > 0
    assert reply.usage.output_tokens == math.ceil(len("18 C and clear.") / 4) + thought


@pytest.mark.parametrize("responder", ["scripted", "queue", "replay"])
def test_every_kind_of_responder_gets_thinking(responder):
    # source: opus-5 migration: every claude-opus-5 reply may begin with thinking blocks; a
    # recorded reply (the cassette) carries them as the live API sent them.
    make = {"scripted": lambda: Scripted(weather_model),
            "queue": lambda: Queue([weather_model({"messages": [GOAL]})]),
            "replay": lambda: Replay("lab01_tool_loop__weather_two_step")}[responder]
    api = FakeAPI(make())
    goal = ({"role": "user", "content": "What is the weather in the capital of France?"}
            if responder == "replay" else GOAL)
    reply = api.client().messages.create(model=OPUS, max_tokens=1024, messages=[goal])
    assert [b.type for b in reply.content].count("thinking") == 1
    assert reply.content[0].type == "thinking"


def test_a_reply_that_brings_its_own_thinking_is_not_given_more():
    # source: opus-5 migration ("one or more thinking blocks"): a reply written with its
    # thinking keeps exactly the blocks it has.
    own = {"type": "thinking", "thinking": "Paris first.", "signature": "c2lnbmF0dXJl"}
    api = FakeAPI(Queue([message([own, text("Paris.")])]))
    reply = api.client().messages.create(model=OPUS, max_tokens=256, messages=[GOAL])
    assert [b.type for b in reply.content] == ["thinking", "text"]
    assert reply.content[0].thinking == "Paris first."


# -- the round trip -------------------------------------------------------------------------


def test_sending_every_block_back_is_accepted():
    # source: tool workflows: echo the assistant message exactly as received.
    reply, client, _ = first_reply()
    done = answer_with(reply.content, client)
    assert "".join(b.text for b in done.content if b.type == "text") == "18 C and clear."


def test_sending_the_blocks_back_as_dicts_is_accepted():
    # source: tool workflows: the same blocks as JSON (a loop that stores plain dicts).
    reply, client, _ = first_reply()
    assert answer_with(as_dicts(reply.content), client).stop_reason == "end_turn"


def test_dropping_the_thinking_block_is_a_400():
    # source: tool workflows ("rebuilding the message ... triggers a 400 error"); the wording
    # is the API's, as recorded in claude-cookbooks.
    reply, client, _ = first_reply()
    kept = [b for b in reply.content if b.type != "thinking"]
    assert rejected(kept, client).startswith(DROPPED.format("text"))


def test_keeping_only_the_tool_calls_is_a_400():
    # source: as above: found `tool_use` at content.0.
    reply, client, _ = first_reply()
    kept = [b for b in reply.content if b.type == "tool_use"]
    assert rejected(kept, client).startswith(DROPPED.format("tool_use"))


def test_editing_the_thinking_block_is_a_400():
    # source: tool workflows ("complete and unmodified"); wording as recorded in
    # microsoft/vscode#318076.
    reply, client, _ = first_reply()
    edited = as_dicts(reply.content)
    edited[0]["signature"] = "EqQBCkgIARABGAIiQL=="       # another block's signature
    assert rejected(edited, client).endswith(MODIFIED)


def test_writing_text_into_an_omitted_block_is_a_400():
    # source: tool workflows: the block must come back as received, text included.
    reply, client, _ = first_reply()
    edited = as_dicts(reply.content)
    edited[0]["thinking"] = "I looked it up."
    assert rejected(edited, client).endswith(MODIFIED)


def test_moving_the_thinking_block_after_the_text_is_a_400():
    # source: recorded 400 (claude-cookbooks): the final assistant message must START with a
    # thinking block.
    reply, client, _ = first_reply()
    moved = [reply.content[1], reply.content[0], reply.content[2]]
    assert rejected(moved, client).startswith(DROPPED.format("text"))


def test_the_assistant_turn_appended_twice_is_a_400():
    # source: tool workflows (the message exactly as received); the API also rejects the
    # repeated tool_use id ("`tool_use` ids must be unique", see test_requests.py).
    reply, client, _ = first_reply()
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model=OPUS, max_tokens=1024, tools=[WEATHER],
            messages=[GOAL, {"role": "assistant", "content": reply.content},
                      {"role": "assistant", "content": reply.content},
                      {"role": "user", "content": [{"type": "tool_result",
                                                    "tool_use_id": "toolu_paris",
                                                    "content": "18 C, clear"}]}])
    assert caught.value.status_code == 400


def two_rounds(body: dict) -> dict:
    """Asks for a tool twice, then answers."""
    n = len(body["messages"])
    if n in (1, 3):
        return message([text("Checking."), tool_use("get_weather", {"city": "Paris"},
                                                     id=f"toolu_{n}")])
    return message([text("18 C and clear.")])


def result(tool_use_id: str) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id,
                                         "content": "18 C, clear"}]}


def test_an_earlier_tool_turn_may_drop_its_thinking():
    # source: omitting earlier turns (Bedrock thinking-encryption page): only the latest
    # assistant turn, the one whose tool calls are being answered, must carry its thinking.
    client = FakeAPI(Scripted(two_rounds)).client()
    ask = {"model": OPUS, "max_tokens": 1024, "tools": [WEATHER]}
    r1 = client.messages.create(**ask, messages=[GOAL])
    first = {"role": "assistant", "content": r1.content}
    r2 = client.messages.create(**ask, messages=[GOAL, first, result("toolu_1")])
    bare = {"role": "assistant", "content": [b for b in r1.content if b.type != "thinking"]}
    r3 = client.messages.create(**ask, messages=[
        GOAL, bare, result("toolu_1"), {"role": "assistant", "content": r2.content},
        result("toolu_3")])
    assert r3.stop_reason == "end_turn"


def test_dropping_thinking_from_the_latest_of_two_tool_turns_is_a_400():
    # source: recorded 400 (claude-cookbooks): the FINAL assistant message must start with
    # its thinking block; the earlier one keeping its block does not help.
    client = FakeAPI(Scripted(two_rounds)).client()
    ask = {"model": OPUS, "max_tokens": 1024, "tools": [WEATHER]}
    r1 = client.messages.create(**ask, messages=[GOAL])
    first = {"role": "assistant", "content": r1.content}
    r2 = client.messages.create(**ask, messages=[GOAL, first, result("toolu_1")])
    bare = {"role": "assistant", "content": [b for b in r2.content if b.type != "thinking"]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**ask, messages=[GOAL, first, result("toolu_1"), bare,
                                                result("toolu_3")])
    assert caught.value.body["error"]["message"].startswith(
        "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`")


def test_a_finished_turn_may_drop_its_thinking():
    # source: omitting earlier turns (Bedrock thinking-encryption page): outside a tool-use
    # cycle thinking blocks need not be sent back.
    api = FakeAPI(Scripted(lambda body: message([text("Noted.")])))
    client = api.client()
    first = client.messages.create(model=OPUS, max_tokens=256, messages=[GOAL])
    later = client.messages.create(
        model=OPUS, max_tokens=256,
        messages=[GOAL, {"role": "assistant",
                         "content": [b for b in first.content if b.type == "text"]},
                  {"role": "user", "content": "And tomorrow?"}])
    assert later.stop_reason == "end_turn"


def test_an_edited_thinking_block_in_an_earlier_turn_fails_its_signature():
    # source: SDK types/thinking_block.py: the signature verifies the block was generated by
    # Claude when it is passed back; an edited block no longer verifies.
    api = FakeAPI(Scripted(lambda body: message([text("Noted.")])))
    client = api.client()
    first = client.messages.create(model=OPUS, max_tokens=256, messages=[GOAL])
    edited = as_dicts(first.content)
    edited[0]["thinking"] = "something else"
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=OPUS, max_tokens=256,
                               messages=[GOAL, {"role": "assistant", "content": edited},
                                         {"role": "user", "content": "And tomorrow?"}])
    assert "Invalid `signature` in `thinking` block" in caught.value.body["error"]["message"]


def test_without_thinking_nothing_needs_to_be_sent_back():
    # source: opus-5 migration: with thinking disabled the reply has no thinking blocks, so a
    # turn of text and tool_use is the whole reply.
    reply, client, _ = first_reply(thinking={"type": "disabled"})
    kept = [b for b in reply.content if b.type in ("text", "tool_use")]
    done = answer_with(kept, client, thinking={"type": "disabled"})
    assert done.stop_reason == "end_turn"


def test_a_recorded_turn_with_a_foreign_signature_is_accepted():
    # source: docs silent on what the fake can check: a signature the fake did not make (a
    # recording from the live API) cannot be verified offline, so it is accepted as long as
    # the block comes back as it was sent.
    live = {"type": "thinking", "thinking": "", "signature": "EqQBCkgIARABGAIiQL=="}
    api = FakeAPI(Queue([message([live, text("Checking."),
                                  tool_use("get_weather", {"city": "Paris"}, id="toolu_paris")]),
                         message([text("18 C and clear.")])]))
    client = api.client()
    first = client.messages.create(model=OPUS, max_tokens=1024, tools=[WEATHER],
                                   messages=[GOAL])
    assert answer_with(first.content, client).stop_reason == "end_turn"
