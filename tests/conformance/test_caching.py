"""Prompt caching as the Messages API documents it, driven through the real SDK.

One test per documented behaviour. The fake is ``FakeAPI(PromptCache(...)).client()``; the
counts are read from ``usage`` as a student's loop reads them. Token counts come from
``course.tokens`` (4 characters a token), so a text block of ``n`` tokens is ``4 * n``
characters.

Sources (the ``search`` tool's docs corpus; PC is the prompt-caching page):
* PC  -- https://platform.claude.com/docs/en/build-with-claude/prompt-caching
* SDK -- anthropic 2.10.0, the files named on each test.
"""

from __future__ import annotations

import anthropic
import pytest

from course import tokens
from course.clock import FakeClock
from course.fakes import FakeAPI, PromptCache, Scripted
from course.wire import message, text

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAA"
                                             "DUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}}
TOOL = {"name": "lookup", "description": "Look a record up by id." + " Fields: id, owner." * 120,
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}},
                         "required": ["id"]}}


def block(n_tokens: int, tag: str = "x", ttl: str | None = None) -> dict:
    """A text block of exactly ``n_tokens`` tokens; ``ttl`` makes it a breakpoint."""
    body = {"type": "text", "text": (tag + "." * (4 * n_tokens))[: 4 * n_tokens]}
    if ttl is None:
        return body
    control = {"type": "ephemeral"} if ttl == "default" else {"type": "ephemeral", "ttl": ttl}
    return dict(body, cache_control=control)


def user(*blocks: dict) -> dict:
    return {"role": "user", "content": list(blocks)}


def fake():
    clock = FakeClock(0)
    reply = Scripted(lambda body: message([text("ok")], model=body["model"],
                                          usage={"output_tokens": 5}))
    return FakeAPI(PromptCache(reply, clock=clock)).client(), clock


def create(client: anthropic.Anthropic, **body):
    body.setdefault("model", OPUS)
    body.setdefault("max_tokens", 64)
    return client.messages.create(**body).usage


def counts(usage) -> tuple[int, int, int]:
    """(uncached input, cache write, cache read)."""
    return usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens


# -- the minimum cacheable prompt, per model ------------------------------------------------


def test_opus_5_caches_a_prefix_of_512_tokens():
    # source: PC, "Cache limitations": "512 tokens for Claude Opus 5"; models/opus-5/overview,
    # "Good to know": "The minimum cacheable prompt length is 512 tokens."
    client, _ = fake()
    assert counts(create(client, system=[block(512, ttl="default")],
                         messages=[user(block(4))])) == (4, 512, 0)
    assert counts(create(client, system=[block(511, "s", ttl="default")],
                         messages=[user(block(4))])) == (515, 0, 0)


def test_sonnet_5_needs_1024_tokens():
    # source: PC, "Cache limitations": "1,024 tokens for ... Claude Sonnet 5"
    client, _ = fake()
    assert counts(create(client, model=SONNET, system=[block(1_023, ttl="default")],
                         messages=[user(block(4))]))[1] == 0
    assert counts(create(client, model=SONNET, system=[block(1_024, "b", ttl="default")],
                         messages=[user(block(4))]))[1] == 1_024


def test_haiku_4_5_needs_4096_tokens():
    # source: PC, "Cache limitations": "4,096 tokens for Claude Haiku 4.5"
    client, _ = fake()
    assert counts(create(client, model=HAIKU, system=[block(4_095, ttl="default")],
                         messages=[user(block(4))]))[1] == 0
    assert counts(create(client, model=HAIKU, system=[block(4_096, "b", ttl="default")],
                         messages=[user(block(4))]))[1] == 4_096


def test_below_the_minimum_nothing_is_cached_and_nothing_is_raised():
    # source: PC, "Cache limitations": shorter prompts "will be processed without caching,
    # and no error is returned"; both cache counts are 0.
    client, _ = fake()
    for _ in range(2):
        assert counts(create(client, system=[block(300, ttl="default")],
                             messages=[user(block(4))])) == (304, 0, 0)


# -- writes, reads, the prefix and its key --------------------------------------------------


def test_identical_prefix_is_written_then_read_and_the_tail_is_uncached():
    # source: PC, tracking cache performance: input_tokens counts the tokens "after the last
    # cache breakpoint"; the three fields sum to the whole prompt.
    client, _ = fake()
    body = {"system": [block(800, ttl="default")], "messages": [user(block(30))]}
    assert counts(create(client, **body)) == (30, 800, 0)
    assert counts(create(client, **body)) == (30, 0, 800)


def test_a_changed_byte_in_the_prefix_is_a_new_entry():
    # source: PC: "Cache hits require 100% identical prompt segments, including all text and
    # images, up to and including the block marked with cache control."
    client, _ = fake()
    create(client, system=[block(800, "a", ttl="default")], messages=[user(block(4))])
    assert counts(create(client, system=[block(800, "b", ttl="default")],
                         messages=[user(block(4))]))[1:] == (800, 0)


def test_the_cache_is_per_model():
    # source: PC, cache invalidation: switching models forces a full rebuild (each model has
    # its own cache).
    client, _ = fake()
    body = {"system": [block(1_200, ttl="default")], "messages": [user(block(4))]}
    create(client, **body)
    assert counts(create(client, model=SONNET, **body))[1:] == (1_200, 0)


def test_more_than_four_breakpoints_is_a_400():
    # source: PC, "You can define up to 4 cache breakpoints"; the message is the API's.
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, system=[block(200, str(i), ttl="default") for i in range(5)],
               messages=[user(block(4))])
    assert err.value.status_code == 400
    assert "A maximum of 4 blocks with cache_control may be provided. Found 5." in str(err.value)


# -- the lookback -----------------------------------------------------------------------------


def _turns(n_blocks: int, breakpoint_at: int) -> dict:
    """A 600-token system block, then ``n_blocks - 1`` 10-token user blocks; block numbers
    count from 1 at the system block, and ``breakpoint_at`` carries the only breakpoint."""
    blocks = [block(10, f"b{k}", ttl="default" if k == breakpoint_at else None)
              for k in range(2, n_blocks + 1)]
    system = [block(600, "s", ttl="default" if breakpoint_at == 1 else None)]
    return {"system": system, "messages": [user(*blocks)]}


def test_a_breakpoint_moved_forward_reads_the_earlier_entry():
    # source: PC, the lookback: the system checks block boundaries before the breakpoint for
    # an entry an earlier request wrote, "counting the breakpoint itself as the first".
    client, _ = fake()
    assert counts(create(client, **_turns(15, 15))) == (0, 740, 0)
    assert counts(create(client, **_turns(20, 20))) == (0, 50, 740)


def test_the_lookback_checks_20_positions_and_no_more():
    # source: PC, the lookback's worked example: breakpoint on block 35 checks blocks 35
    # through 16, "the turn-2 entry at block 15 is one position outside the window, so there
    # is no cache hit"; a breakpoint on block 34 reaches block 15.
    client, _ = fake()
    create(client, **_turns(15, 15))
    assert counts(create(client, **_turns(34, 34))) == (0, 190, 740)
    client, _ = fake()
    create(client, **_turns(15, 15))
    assert counts(create(client, **_turns(35, 35))) == (0, 940, 0)


def test_the_lookback_finds_only_entries_written_at_breakpoints():
    # source: PC: "The lookback does not find stable content behind the breakpoint; it only
    # finds entries that earlier requests wrote at their own breakpoints."
    client, _ = fake()
    create(client, system=[block(600)], messages=[user(block(10, "q1", ttl="default"))])
    assert counts(create(client, system=[block(600)],
                         messages=[user(block(10, "q2", ttl="default"))])) == (0, 610, 0)


# -- automatic caching ----------------------------------------------------------------------


def test_top_level_cache_control_caches_up_to_the_last_block():
    # source: PC, automatic caching: "Add a single cache_control field at the top level of
    # your request. The system automatically applies the cache breakpoint to the last
    # cacheable block"; SDK resources/messages/messages.py:250 ("Top-level cache control").
    client, _ = fake()
    body = {"cache_control": {"type": "ephemeral"}, "system": [block(600)],
            "messages": [user(block(20))]}
    assert counts(create(client, **body)) == (0, 620, 0)
    assert counts(create(client, **body)) == (0, 0, 620)


def test_automatic_breakpoint_moves_forward_as_the_conversation_grows():
    # source: PC, automatic caching: the breakpoint "moves forward as conversations grow";
    # the 20-block lookback "applies the same as with explicit breakpoints".
    client, _ = fake()
    history = [user(block(20, "q1"))]
    create(client, cache_control={"type": "ephemeral"}, system=[block(600)], messages=history)
    history += [{"role": "assistant", "content": [block(30, "a1")]}, user(block(10, "q2"))]
    assert counts(create(client, cache_control={"type": "ephemeral"}, system=[block(600)],
                         messages=history)) == (0, 40, 620)


def test_automatic_on_a_block_with_the_same_ttl_is_a_no_op():
    # source: PC, automatic caching, edge cases: "If the last block already has an explicit
    # cache_control with the same TTL, automatic caching is a no-op."
    client, _ = fake()
    body = {"cache_control": {"type": "ephemeral"}, "system": [block(600, ttl="default")],
            "messages": [user(block(20, ttl="5m"))]}
    assert counts(create(client, **body)) == (0, 620, 0)


def test_automatic_with_another_ttl_on_the_same_block_is_a_400():
    # source: PC, automatic caching, edge cases: "If the last block has an explicit
    # cache_control with a different TTL, the API returns a 400 error." (wording ours)
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, cache_control={"type": "ephemeral"}, system=[block(600)],
               messages=[user(block(20, ttl="1h"))])
    assert err.value.status_code == 400 and "ttl" in str(err.value)


def test_automatic_after_four_explicit_breakpoints_is_a_400():
    # source: PC, automatic caching, edge cases: "If 4 explicit block-level breakpoints
    # already exist, the API returns a 400 error (no slots left for automatic caching)."
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, cache_control={"type": "ephemeral"},
               system=[block(200, str(i), ttl="default") for i in range(4)],
               messages=[user(block(20))])
    assert err.value.status_code == 400 and "A maximum of 4 blocks" in str(err.value)


# -- what invalidates what -------------------------------------------------------------------


def _layered(**extra) -> dict:
    """Breakpoints after the tools (over 512 tokens on their own), after the system prompt
    and after the user turn."""
    tool = dict(TOOL, cache_control={"type": "ephemeral"})
    return {"tools": [tool], "system": [block(600, ttl="default")],
            "messages": [user(block(300, "u", ttl="default"))], **extra}


def _tools_tokens() -> int:
    return tokens.count(TOOL)


def test_a_tool_choice_change_invalidates_only_the_messages_cache():
    # source: PC, cache invalidation table: "Tool choice | ✓ | ✓ | ✘ | Changes to
    # tool_choice parameter only affect message blocks"
    client, _ = fake()
    create(client, **_layered(tool_choice={"type": "auto"}))
    assert counts(create(client, **_layered(tool_choice={"type": "any"}))) == (
        0, 300, _tools_tokens() + 600)


def test_a_thinking_change_invalidates_only_the_messages_cache():
    # source: PC, cache invalidation table: thinking parameters "(enable/disable, budget)
    # affect message blocks"; tools and system stay valid.
    client, _ = fake()
    create(client, **_layered(thinking={"type": "adaptive"}))
    assert counts(create(client, **_layered(thinking={"type": "disabled"}))) == (
        0, 300, _tools_tokens() + 600)


def test_an_effort_change_invalidates_the_messages_cache_but_its_default_does_not():
    # source: PC, cache invalidation: output_config.effort invalidates message blocks;
    # "Setting effort explicitly to the model's default is equivalent to omitting it";
    # models/opus-5/overview: "Default effort high".
    client, _ = fake()
    create(client, **_layered())
    assert counts(create(client, **_layered(output_config={"effort": "high"}))) == (
        0, 0, _tools_tokens() + 900)
    assert counts(create(client, **_layered(output_config={"effort": "low"}))) == (
        0, 300, _tools_tokens() + 600)


def test_adding_an_image_invalidates_only_the_messages_cache():
    # source: PC, cache invalidation table: "Images | ✓ | ✓ | ✘ | Adding/removing images
    # anywhere in the prompt affects message blocks"
    client, _ = fake()
    first = _layered()
    create(client, **first)
    later = dict(first, messages=[*first["messages"],
                                  {"role": "assistant", "content": [block(5, "a")]},
                                  user(IMAGE, block(5, "q"))])
    usage = create(client, **later)
    assert usage.cache_read_input_tokens == _tools_tokens() + 600


def test_a_tool_definition_change_invalidates_everything():
    # source: PC, cache invalidation table: "Modifying tool definitions (names,
    # descriptions, parameters) invalidates the entire cache"
    client, _ = fake()
    create(client, **_layered())
    changed = _layered()
    changed["tools"] = [dict(changed["tools"][0], description="Look a record up.")]
    assert counts(create(client, **changed))[2] == 0


def test_a_system_change_keeps_the_tools_cache():
    # source: PC: the cache follows the hierarchy tools -> system -> messages; "Changes at
    # each level invalidate that level and all subsequent levels."
    client, _ = fake()
    create(client, **_layered())
    changed = dict(_layered(), system=[block(700, "s2", ttl="default")])
    assert counts(create(client, **changed)) == (0, 1_000, _tools_tokens())


# -- TTLs ------------------------------------------------------------------------------------


def test_entries_live_five_minutes_and_a_read_renews_them():
    # source: PC: "By default, the cache has a 5-minute lifetime. The cache is refreshed for
    # no additional cost each time the cached content is used."
    client, clock = fake()
    body = {"system": [block(800, ttl="default")], "messages": [user(block(4))]}
    create(client, **body)
    clock.advance(299)
    assert counts(create(client, **body))[2] == 800
    clock.advance(299)
    assert counts(create(client, **body))[2] == 800
    clock.advance(301)
    assert counts(create(client, **body))[1:] == (800, 0)


def test_a_one_hour_entry_outlives_five_minutes():
    # source: PC, 1-hour cache duration: cache_control {"type": "ephemeral", "ttl": "1h"};
    # SDK types/cache_control_ephemeral_param.py:11.
    client, clock = fake()
    body = {"system": [block(800, ttl="1h")], "messages": [user(block(4))]}
    create(client, **body)
    clock.advance(3_000)
    assert counts(create(client, **body))[2] == 800


def test_usage_splits_the_write_by_ttl():
    # source: PC, mixing TTLs: read A, 1-hour write B - A, 5-minute write C - B; tracking
    # cache performance: cache_creation holds ephemeral_5m_input_tokens and
    # ephemeral_1h_input_tokens, summing to cache_creation_input_tokens (SDK
    # types/cache_creation.py:7-10, types/usage.py:13).
    client, _ = fake()
    usage = create(client, system=[block(700, ttl="1h")], messages=[user(block(200, ttl="5m"))])
    assert usage.cache_creation is not None
    assert (usage.cache_creation.ephemeral_1h_input_tokens,
            usage.cache_creation.ephemeral_5m_input_tokens) == (700, 200)
    assert usage.cache_creation_input_tokens == 900


def test_a_ttl_other_than_5m_or_1h_is_a_400():
    # source: SDK types/cache_control_ephemeral_param.py:11, ttl: Literal["5m", "1h"]; the
    # message is the API's ("system.0.cache_control.ttl: Input should be '5m' or '1h'").
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, system=[block(800, ttl="2h")], messages=[user(block(4))])
    assert err.value.status_code == 400
    assert "system.0.cache_control.ttl: Input should be '5m' or '1h'" in str(err.value)


def test_a_cache_type_other_than_ephemeral_is_a_400():
    # source: SDK types/cache_control_ephemeral_param.py:9, type: Required[Literal[
    # "ephemeral"]]; PC: "ephemeral" is the only cache type. Message in the API's style.
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, system=[dict(block(800), cache_control={"type": "persistent"})],
               messages=[user(block(4))])
    assert "Input should be 'ephemeral'" in str(err.value)


def test_a_one_hour_breakpoint_after_a_five_minute_one_is_a_400():
    # source: PC, mixing TTLs: "Cache entries with longer TTL must appear before shorter
    # TTLs"; the message is the API's.
    client, _ = fake()
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, system=[block(700, ttl="5m")], messages=[user(block(200, ttl="1h"))])
    assert err.value.status_code == 400
    assert ("messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not "
            "come after a ttl='5m' cache_control block") in str(err.value)


def test_a_thinking_block_cannot_carry_cache_control():
    # source: PC, caching with thinking blocks: "Thinking blocks cannot be explicitly marked
    # with cache_control" (a 400; wording as the API words a field a block does not take).
    client, _ = fake()
    thinking = {"type": "thinking", "thinking": "", "signature": "c2ln",
                "cache_control": {"type": "ephemeral"}}
    with pytest.raises(anthropic.BadRequestError) as err:
        create(client, system=[block(600)], messages=[
            user(block(10, "q")), {"role": "assistant", "content": [thinking, block(5, "a")]},
            user(block(10, "q2"))])
    assert "cache_control" in str(err.value)


def test_streamed_usage_carries_the_cache_counts_in_message_start():
    # source: PC, tracking cache performance: the fields are "within usage in the response
    # (or message_start event if streaming)".
    client, _ = fake()
    body = {"model": OPUS, "max_tokens": 64, "system": [block(800, ttl="1h")],
            "messages": [user(block(4))]}
    with client.messages.stream(**body) as stream:
        start = next(iter(stream))
        stream.get_final_message()
    assert start.type == "message_start"
    usage = start.message.usage
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (800, 0)
    assert usage.cache_creation is not None
    assert usage.cache_creation.ephemeral_1h_input_tokens == 800
