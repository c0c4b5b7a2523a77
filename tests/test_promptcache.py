"""The fake prompt cache on its own: render order, breakpoints, keys, minimum, TTL, and the
usage fields as the real SDK parses them (plain and streamed)."""

from __future__ import annotations

import json

import anthropic
import pytest

from course.clock import FakeClock
from course.fakes import FakeAPI, PromptCache, Queue, Scripted
from course.promptcache import MIN_TOKENS, render
from course.wire import Reply, message, text

BREAK = {"type": "ephemeral"}


def block(n_tokens: int, tag: str = "x", cached: bool = False) -> dict:
    """A text block of exactly n_tokens tokens (4 chars each)."""
    body = (tag + "." * (4 * n_tokens))[: 4 * n_tokens]
    out = {"type": "text", "text": body}
    return dict(out, cache_control=BREAK) if cached else out


def request(system: list[dict], user: list[dict] | str = "hi", model: str = "claude-opus-5",
            tools: list[dict] | None = None) -> dict:
    body = {"model": model, "max_tokens": 64, "system": system,
            "messages": [{"role": "user", "content": user}]}
    if tools is not None:
        body["tools"] = tools
    return body


def reply(body: dict) -> dict:
    return message([text("ok")], model=body["model"], usage={"output_tokens": 7})


def setup(**kw):
    clock = FakeClock(0)
    cache = PromptCache(Scripted(reply), clock=clock, **kw)
    api = FakeAPI(cache)
    return api.client(), cache, clock


def counts(client, body) -> tuple[int, int, int]:
    u = client.messages.create(**body).usage
    return u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens


def test_render_order_is_tools_then_system_then_messages():
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    body = request([block(3, "s")], [block(2, "m")], tools=[tool])
    # insertion order of the body dict is messages-last here, tools-last in the dict below
    reordered = {"messages": body["messages"], "system": body["system"], "tools": [tool],
                 "model": body["model"]}
    assert [s.where for s in render(reordered)] == ["tools[0]", "system[0]",
                                                    "messages[0].content[0]"]


def test_write_then_read_then_uncached_tail():
    client, cache, _ = setup()
    body = request([block(1_500, cached=True)], [block(40)])
    assert counts(client, body) == (40, 1_500, 0)   # written on first sight; the tail uncached
    assert counts(client, body) == (40, 0, 1_500)   # read back on an identical prefix
    assert [b.prompt_tokens for b in cache.log] == [1_540, 1_540]


def test_any_changed_byte_rewrites_with_read_zero():
    client, _, _ = setup()
    counts(client, request([block(1_500, "a", cached=True)]))
    assert counts(client, request([block(1_500, "b", cached=True)]))[1:] == (1_500, 0)


def test_dict_key_order_is_part_of_the_key():
    client, _, _ = setup()
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    flipped = dict(reversed(list(tool.items())))
    sys_ = [block(1_500, cached=True)]
    counts(client, request(sys_, tools=[tool]))
    assert counts(client, request(sys_, tools=[tool]))[2] > 0
    assert counts(client, request(sys_, tools=[flipped]))[2] == 0


def test_cache_control_itself_is_not_part_of_the_key():
    client, _, _ = setup()
    counts(client, request([block(1_500, cached=True)], [block(5)]))
    moved = request([block(1_500, cached=True)], [dict(block(5), cache_control=BREAK)])
    assert counts(client, moved) == (0, 5, 1_500)


def test_keyed_by_model():
    client, _, _ = setup()
    sys_ = [block(2_500, cached=True)]
    counts(client, request(sys_, model="claude-opus-5"))
    assert counts(client, request(sys_, model="claude-sonnet-5"))[1:] == (2_500, 0)
    assert counts(client, request(sys_, model="claude-opus-5"))[1:] == (0, 2_500)


def test_below_minimum_writes_nothing_and_raises_nothing():
    client, cache, _ = setup()
    short = request([block(MIN_TOKENS["claude-opus-5"] - 1, cached=True)])
    for _ in range(3):
        assert counts(client, short) == (MIN_TOKENS["claude-opus-5"], 0, 0)
    assert cache.entries == {}
    exact = request([block(MIN_TOKENS["claude-opus-5"], cached=True)])
    assert counts(client, exact)[1] == 512        # Opus 5's documented minimum
    haiku = request([block(1_500, cached=True)], model="claude-haiku-4-5")
    assert counts(client, haiku)[1] == 0          # haiku's minimum is 4,096


def test_longest_live_breakpoint_is_read_and_longer_ones_written():
    client, _, _ = setup()
    first = request([block(1_200, "p", cached=True)], [block(2_000, "d1", cached=True),
                                                       block(10)])
    assert counts(client, first) == (10, 3_200, 0)
    second = request([block(1_200, "p", cached=True)], [block(2_000, "d2", cached=True),
                                                        block(10)])
    assert counts(client, second) == (10, 2_000, 1_200)
    assert counts(client, second) == (10, 0, 3_200)


def test_ttl_expires_on_the_fake_clock_and_reads_renew_it():
    client, _, clock = setup()
    body = request([block(1_500, cached=True)])
    counts(client, body)
    clock.advance(299)
    assert counts(client, body)[2] == 1_500        # read at 299 s renews: lives to 599 s
    clock.advance(299)
    assert counts(client, body)[2] == 1_500
    clock.advance(301)
    assert counts(client, body)[1:] == (1_500, 0)  # expired: written again
    one_hour = request([dict(block(1_500, "h"), cache_control={"type": "ephemeral",
                                                                 "ttl": "1h"})])
    counts(client, one_hour)
    clock.advance(3_000)
    assert counts(client, one_hour)[2] == 1_500


def test_more_than_four_breakpoints_is_the_apis_400():
    client, _, _ = setup()
    body = request([block(300, str(i), cached=True) for i in range(5)])
    with pytest.raises(anthropic.BadRequestError, match="maximum of 4 blocks"):
        client.messages.create(**body)


def test_error_replies_cache_nothing():
    cache = PromptCache(Queue([Reply.error(529, "overloaded")]), clock=FakeClock(0))
    client = FakeAPI(cache).client()
    with pytest.raises(anthropic.APIStatusError):
        client.messages.create(**request([block(1_500, cached=True)]))
    assert cache.entries == {} and cache.log == []


def test_usage_fields_sit_where_the_api_puts_them():
    cache = PromptCache(Scripted(reply), clock=FakeClock(0))
    api = FakeAPI(cache)
    raw = api.client().messages.with_raw_response.create(**request([block(1_500, cached=True)]))
    usage = json.loads(raw.http_response.content)["usage"]
    assert usage == {"input_tokens": 1, "output_tokens": 7,
                     "cache_creation_input_tokens": 1_500, "cache_read_input_tokens": 0,
                     "cache_creation": {"ephemeral_5m_input_tokens": 1_500,
                                        "ephemeral_1h_input_tokens": 0}}
    parsed = raw.parse().usage
    assert isinstance(parsed, anthropic.types.Usage)
    assert (parsed.cache_creation_input_tokens, parsed.cache_read_input_tokens) == (1_500, 0)


def test_streamed_usage_arrives_in_message_start():
    client, _, _ = setup()
    body = request([block(1_500, cached=True)])
    counts(client, body)
    with client.messages.stream(**body) as stream:
        events = list(stream)
        final = stream.get_final_message()
    start = events[0]
    assert start.type == "message_start"
    assert (start.message.usage.cache_read_input_tokens,
            start.message.usage.cache_creation_input_tokens) == (1_500, 0)
    assert start.message.usage.output_tokens == 1          # a placeholder until the end
    assert [e.type for e in events][-2:] == ["message_delta", "message_stop"]
    assert final.usage.output_tokens == 7 and final.usage.cache_read_input_tokens == 1_500
