"""The cache_control rules hold on every fake, whether or not it models cache hits.

The plain ``FakeAPI`` (Lab 1, Lab 10, the capstone) answers a request the API refuses over
its ``cache_control`` fields with the API's 400, as the prompt-caching fake does.

Sources (the ``search`` tool's docs corpus; PC is the prompt-caching page):
* PC  -- https://platform.claude.com/docs/en/build-with-claude/prompt-caching: "You can define
  up to 4 cache breakpoints"; mixing TTLs: "a 1-hour cache entry must appear before any
  5-minute cache entries"; caching with thinking blocks: "Thinking blocks cannot be
  explicitly marked with cache_control".
* SDK -- anthropic 2.10.0, ``types/cache_control_ephemeral_param.py`` (``type:
  Required[Literal["ephemeral"]]``, ``ttl: Literal["5m", "1h"]``) and
  ``types/tool_result_block_param.py`` (a tool_result's ``content`` holds text blocks that
  take their own ``cache_control``).
* live -- the API's messages, as quoted in course/promptcache.py ("A maximum of 4 blocks with
  cache_control may be provided. Found 5."; "system.0.cache_control.ttl: Input should be '5m'
  or '1h'"; the 1h-after-5m message).
"""

from __future__ import annotations

import anthropic
import pytest

from course.fakes import FakeAPI, PromptCache, Queue
from course.wire import message, text, tool_use

EPHEMERAL = {"type": "ephemeral"}


def marked(value: str, control=EPHEMERAL) -> dict:
    return {"type": "text", "text": value, "cache_control": control}


def send(plain: bool, **body):
    replies = Queue([message([text("ok")])] * 2)
    api = FakeAPI(replies if plain else PromptCache(replies))
    body.setdefault("model", "claude-opus-5")
    body.setdefault("max_tokens", 64)
    try:
        return api.client().messages.create(**body)
    except anthropic.BadRequestError as err:
        return err


def message_of(result) -> str:
    assert isinstance(result, anthropic.BadRequestError), f"expected a 400, got {result!r}"
    return result.body["error"]["message"]


FAKES = pytest.mark.parametrize("plain", [True, False], ids=["FakeAPI", "PromptCache"])


@FAKES
def test_five_breakpoints_are_a_400(plain):
    # source: PC ("up to 4 cache breakpoints"); live wording.
    msg = message_of(send(plain, system=[marked(f"s{i}") for i in range(5)],
                          messages=[{"role": "user", "content": "hi"}]))
    assert msg == "A maximum of 4 blocks with cache_control may be provided. Found 5."


@FAKES
def test_breakpoints_nested_in_a_tool_result_count_toward_the_4(plain):
    # source: PC (4 breakpoints per request); SDK types/tool_result_block_param.py (nested
    # text blocks carry cache_control). Three on the system prompt and two inside a result.
    ask = {"role": "assistant", "content": [tool_use("lookup", {}, id="toolu_1")]}
    result = {"type": "tool_result", "tool_use_id": "toolu_1",
              "content": [marked("part one"), marked("part two")]}
    msg = message_of(send(plain, system=[marked(f"s{i}") for i in range(3)],
                          tools=[{"name": "lookup", "input_schema": {"type": "object"}}],
                          messages=[{"role": "user", "content": "go"}, ask,
                                    {"role": "user", "content": [result]}]))
    assert msg == "A maximum of 4 blocks with cache_control may be provided. Found 5."


@FAKES
def test_a_ttl_other_than_5m_or_1h_is_a_400(plain):
    # source: SDK types/cache_control_ephemeral_param.py (ttl: Literal["5m", "1h"]); live.
    msg = message_of(send(plain, system=[marked("s", {"type": "ephemeral", "ttl": "10m"})],
                          messages=[{"role": "user", "content": "hi"}]))
    assert msg == "system.0.cache_control.ttl: Input should be '5m' or '1h'"


@FAKES
def test_a_type_other_than_ephemeral_is_a_400(plain):
    # source: SDK types/cache_control_ephemeral_param.py (type: Required[Literal["ephemeral"]]).
    msg = message_of(send(plain, system=[marked("s", {"type": "persistent"})],
                          messages=[{"role": "user", "content": "hi"}]))
    assert msg == "system.0.cache_control.type: Input should be 'ephemeral'"


@FAKES
def test_a_1h_breakpoint_after_a_5m_one_is_a_400(plain):
    # source: PC, mixing TTLs (1-hour entries before 5-minute ones); live wording.
    msg = message_of(send(plain, system=[marked("s")], messages=[
        {"role": "user", "content": [marked("u", {"type": "ephemeral", "ttl": "1h"})]}]))
    assert msg.startswith("messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control "
                          "block must not come after a ttl='5m' cache_control block.")


@FAKES
def test_cache_control_on_a_thinking_block_is_a_400(plain):
    # source: PC ("Thinking blocks cannot be explicitly marked with cache_control").
    thought = {"type": "thinking", "thinking": "", "signature": "c2ln",
               "cache_control": EPHEMERAL}
    msg = message_of(send(plain, messages=[
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": [thought,
                                                                          text("hello")]},
        {"role": "user", "content": "again"}]))
    assert msg.startswith("messages.1.content.0.cache_control")


@FAKES
def test_four_breakpoints_in_order_are_accepted(plain):
    # source: PC ("up to 4"); 1h before 5m is the documented order.
    reply = send(plain, system=[marked("a", {"type": "ephemeral", "ttl": "1h"}),
                                marked("b"), marked("c")],
                 messages=[{"role": "user", "content": [marked("d")]}])
    assert isinstance(reply, anthropic.types.Message), reply
