"""Streams as the API sends them: many small deltas, chunked tool input, pings, thinking and
signature deltas, and cumulative usage in ``message_delta``.

The raw events are read through the SDK (``messages.create(stream=True)`` yields them one by
one; ``with_streaming_response`` gives the SSE lines, pings included, which the SDK's own
iterator skips). ``messages.stream(...).get_final_message()`` must still assemble the message
that ``messages.create`` returns.

Sources:
* streaming -- https://docs.claude.com/en/api/messages-streaming: the event flow
  (message_start with empty content; per block a content_block_start, "one or more"
  content_block_delta and a content_block_stop; message_delta; message_stop); "Event streams
  may also include any number of ping events"; tool input deltas are "partial JSON strings"
  to accumulate and parse at content_block_stop; "The token counts shown in the usage field
  of the message_delta event are cumulative". Its tool-use example stream begins the tool
  input with an empty ``partial_json`` and places a ping after the first block's start (the
  same stream is kept in tests/fixtures/sse_tool_use.txt).
* SDK -- anthropic 2.10.0: ``types/signature_delta.py`` ("Delivered in a signature_delta event
  just before the block's content_block_stop event"), ``types/message_delta_usage.py`` (every
  count "cumulative"), ``lib/streaming/_messages.py`` ``accumulate_event`` (usage counts on a
  message_delta "are cumulative totals, so they overwrite rather than add"; a
  content_block_start's block is taken as it comes, a thinking_delta appends, a
  signature_delta sets the signature).
* omitted -- the streaming and extended-thinking pages found do not say how a block under
  ``display: "omitted"`` streams. Public reports of live streams describe it: "Thinking blocks
  still stream, but signature-only: the block opens, a single signature_delta arrives, and no
  thinking_delta ever carries text" (agentclientprotocol/claude-agent-acp pull request 766).
  The fake sends that shape, which the SDK's accumulator rebuilds whole.
"""

from __future__ import annotations

import json

from course.fakes import FakeAPI, Queue
from course.wire import message, text, tool_use, usage

OPUS = "claude-opus-5"
GOAL = {"role": "user", "content": "What is the weather in Paris and in Lima?"}
LONG = "Paris is 18 C and clear today; Lima is 19 C and overcast, with a light breeze."
CALL = tool_use("get_weather", {"city": "Paris", "units": "metric", "days": 3}, id="toolu_w")


def raw_events(reply: dict, **kwargs) -> list:
    api = FakeAPI(Queue([reply]))
    stream = api.client().messages.create(model=OPUS, max_tokens=1024, messages=[GOAL],
                                          stream=True, **kwargs)
    return list(stream)


def sse_names(reply: dict) -> list[str]:
    api = FakeAPI(Queue([reply]))
    with api.client().messages.with_streaming_response.create(
            model=OPUS, max_tokens=1024, messages=[GOAL], stream=True) as response:
        lines = list(response.iter_lines())
    return [line.split(": ", 1)[1] for line in lines if line.startswith("event: ")]


def deltas(events: list, index: int, kind: str) -> list:
    return [e.delta for e in events if e.type == "content_block_delta" and e.index == index
            and e.delta.type == kind]


def index_of(events: list, block_type: str) -> int:
    return next(e.index for e in events
                if e.type == "content_block_start" and e.content_block.type == block_type)


def test_text_arrives_in_several_deltas():
    # source: streaming ("one or more content_block_delta events"; the docs' example splits
    # one sentence over two text_deltas). Joined, they are the text.
    events = raw_events(message([text(LONG)]))
    pieces = deltas(events, index_of(events, "text"), "text_delta")
    assert len(pieces) >= 2 and "".join(p.text for p in pieces) == LONG


def test_tool_input_arrives_in_chunks_the_first_empty():
    # source: streaming, input JSON deltas (partial JSON strings; the example's first
    # partial_json is ""): no chunk but the whole is guaranteed to parse.
    events = raw_events(message([text("Checking."), CALL]))
    chunks = [d.partial_json for d in deltas(events, index_of(events, "tool_use"),
                                             "input_json_delta")]
    assert chunks[0] == "" and len(chunks) >= 3
    assert json.loads("".join(chunks)) == CALL["input"]
    unparsable = 0
    for chunk in chunks[1:]:
        try:
            json.loads(chunk)
        except json.JSONDecodeError:
            unparsable += 1
    assert unparsable >= 1, "an accumulator that json.loads every chunk must fail here"


def test_the_tool_use_block_starts_with_an_empty_input():
    # source: streaming, the tool-use example: content_block_start carries "input": {}.
    events = raw_events(message([CALL]))
    start = next(e for e in events if e.type == "content_block_start"
                 and e.content_block.type == "tool_use")
    assert start.content_block.input == {} and start.content_block.id == "toolu_w"


def test_the_stream_carries_pings():
    # source: streaming ("any number of ping events"; the example has one after the first
    # content_block_start). The SDK's iterator skips them, so they are read off the wire.
    names = sse_names(message([text(LONG)]))
    assert "ping" in names
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]


def test_an_omitted_thinking_block_ends_with_a_signature_delta():
    # source: SDK types/signature_delta.py: a signature_delta just before the block's
    # content_block_stop. claude-opus-5 thinks by default (opus-5 migration guide).
    events = raw_events(message([text(LONG)]))
    at = index_of(events, "thinking")
    own = [e for e in events if getattr(e, "index", None) == at]
    assert own[0].type == "content_block_start" and own[0].content_block.thinking == ""
    assert own[-2].type == "content_block_delta" and own[-2].delta.type == "signature_delta"
    assert own[-2].delta.signature and own[-1].type == "content_block_stop"


def test_an_omitted_thinking_block_streams_signature_only():
    # source: omitted (the docs are silent; the live shape as publicly reported): the block
    # opens with empty thinking and signature, then one signature_delta, no thinking_delta.
    events = raw_events(message([text(LONG)]))
    at = index_of(events, "thinking")
    start = next(e for e in events if e.type == "content_block_start" and e.index == at)
    assert (start.content_block.thinking, start.content_block.signature) == ("", "")
    assert deltas(events, at, "thinking_delta") == []
    assert len(deltas(events, at, "signature_delta")) == 1


def test_the_sdk_accumulator_rebuilds_an_omitted_block_that_the_resend_keeps():
    # source: omitted; SDK lib/streaming/_messages.py accumulate_event (the signature comes
    # from the signature_delta); thinking-tool-workflows (the resent turn must carry its
    # thinking blocks unchanged, or a 400). The rebuilt block is the one the fake signed.
    api = FakeAPI(Queue([message([CALL]), message([text(LONG)])]))
    with api.client().messages.stream(model=OPUS, max_tokens=1024, messages=[GOAL]) as s:
        first = s.get_final_message()
    block = first.content[0]
    assert block.type == "thinking" and block.thinking == "" and block.signature
    turn = [b.model_dump(exclude_none=True) for b in first.content]
    answer = api.client().messages.create(model=OPUS, max_tokens=1024, messages=[
        GOAL, {"role": "assistant", "content": turn},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_w",
                                      "content": "18 C, clear"}]}])
    assert answer.content[-1].text == LONG


def test_a_summarized_thinking_block_streams_thinking_deltas():
    # source: SDK types/thinking_delta.py and thinking_config_adaptive_param.py ("summarized":
    # thinking is returned); the text comes in thinking_deltas, the signature last.
    events = raw_events(message([text(LONG)]),
                        thinking={"type": "adaptive", "display": "summarized"})
    at = index_of(events, "thinking")
    assert "".join(d.thinking for d in deltas(events, at, "thinking_delta")).strip()
    assert len(deltas(events, at, "signature_delta")) == 1


def test_message_delta_usage_is_cumulative():
    # source: streaming ("cumulative"), SDK message_delta_usage.py: the input-side counts come
    # again in message_delta, with the final output_tokens; message_start has a placeholder.
    bill = usage(472, 89, 30, 6_100)
    events = raw_events(message([text(LONG)], usage=bill))
    start = events[0].message.usage
    end = next(e for e in events if e.type == "message_delta").usage
    assert start.input_tokens == 472 and start.output_tokens <= 1
    assert (end.input_tokens, end.output_tokens) == (472, 89)
    assert (end.cache_creation_input_tokens, end.cache_read_input_tokens) == (30, 6_100)


def test_final_message_is_the_created_message():
    # source: streaming (the events build the final Message); the SDK's accumulator, with
    # thinking, text and a chunked tool call.
    reply = message([text(LONG), CALL])
    api = FakeAPI(Queue([reply, reply]))
    made = api.client().messages.create(model=OPUS, max_tokens=1024, messages=[GOAL])
    with api.client().messages.stream(model=OPUS, max_tokens=1024, messages=[GOAL]) as s:
        final = s.get_final_message()
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use"]
    assert final.model_dump(exclude_none=True) == made.model_dump(exclude_none=True)
