"""The offline API: the real SDK over the fake transport behaves as it does online."""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import httpx2
import pytest

from course import tokens
from course.cassette import Cassette, CassetteError, Replay, ReplayMiss
from course.fakes import FakeAPI, Queue, Scripted, fake_client
from course.grading.record import Recorder, RecordingDisabled, scrub_headers
from course.wire import Reply, message, sse_events, text, tool_use, usage

GOAL = {"role": "user", "content": "hi"}


def create(client, messages, **kw):
    return client.messages.create(model="claude-opus-5", max_tokens=64, messages=messages, **kw)


def texts(reply) -> str:
    """The reply's text, read by block type (a reply on claude-opus-5 starts with thinking)."""
    return "".join(b.text for b in reply.content if b.type == "text")


def block(reply, kind: str):
    """The reply's first block of this type."""
    return next(b for b in reply.content if b.type == kind)


def test_queue_returns_sdk_types_and_logs_requests():
    client, api = fake_client([message([text("hello")])])
    reply = create(client, [GOAL])
    assert isinstance(reply, anthropic.types.Message)
    assert texts(reply) == "hello" and reply.stop_reason == "end_turn"
    assert api.requests == [{"model": "claude-opus-5", "max_tokens": 64, "messages": [GOAL]}]
    assert api.paths == ["/v1/messages"]


def test_usage_is_counted_when_left_out():
    client, _ = fake_client([message([text("x" * 40)])])
    reply = create(client, [GOAL], thinking={"type": "disabled"})
    assert reply.usage.output_tokens == 10  # 40 characters at four per token
    assert reply.usage.input_tokens == tokens.request_tokens({"messages": [GOAL]})


def test_rate_limit_error_carries_retry_after():
    client, _ = fake_client([Reply.error(429, "slow down", retry_after=7)])
    with pytest.raises(anthropic.RateLimitError) as info:
        create(client, [GOAL])
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "7"
    assert info.value.body["error"]["type"] == "rate_limit_error"


@pytest.mark.parametrize(("status", "kind"), [
    (500, anthropic.InternalServerError),
    (529, anthropic.InternalServerError),
    (400, anthropic.BadRequestError),
])
def test_status_errors_map_to_sdk_exceptions(status, kind):
    client, _ = fake_client([Reply.error(status)])
    with pytest.raises(kind) as info:
        create(client, [GOAL])
    assert info.value.status_code == status


def test_529_is_overloaded_error_type():
    client, _ = fake_client([Reply.error(529)])
    with pytest.raises(anthropic.APIStatusError) as info:
        create(client, [GOAL])
    assert info.value.body["error"]["type"] == "overloaded_error"


def test_dropped_connection_is_api_connection_error():
    client, _ = fake_client([Reply.dropped()])
    with pytest.raises(anthropic.APIConnectionError):
        create(client, [GOAL])


def test_sdk_does_not_retry_on_its_own():
    client, api = fake_client([Reply.error(503), message([text("late")])])
    with pytest.raises(anthropic.InternalServerError):
        create(client, [GOAL])
    assert len(api.requests) == 1


def test_streaming_delivers_usage_in_message_delta():
    body = message([text("streamed answer")], usage=usage(120, 42))
    client, api = fake_client([body])
    with client.messages.stream(model="claude-opus-5", max_tokens=64, messages=[GOAL]) as s:
        events = [e.type for e in s]
        final = s.get_final_message()
    assert api.requests[0]["stream"] is True
    assert texts(final) == "streamed answer"
    assert final.usage.output_tokens == 42 and final.usage.input_tokens == 120
    # The SDK's own stream: raw events, plus the "text" convenience event it derives; the
    # usage arrives in message_delta, just before the stream ends.
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    assert "text" in events and "content_block_delta" in events


SSE_FIXTURE = Path(__file__).parent / "fixtures" / "sse_tool_use.txt"


def _parse_sse(raw: str) -> list[tuple[str, dict]]:
    out = []
    for chunk in raw.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((fields["event"], json.loads(fields["data"])))
    return out


def _merged(events: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """Drop pings and join consecutive deltas of one block: the API chunks text freely."""
    out: list[tuple[str, dict]] = []
    for name, data in events:
        if name == "ping":
            continue
        if name == "content_block_delta" and data["delta"].get("partial_json") == "":
            continue
        prev = out[-1] if out else None
        if (name == "content_block_delta" and prev and prev[0] == name
                and prev[1]["index"] == data["index"]):
            key = "text" if "text" in data["delta"] else "partial_json"
            joined = dict(prev[1]["delta"], **{key: prev[1]["delta"][key] + data["delta"][key]})
            out[-1] = (name, dict(prev[1], delta=joined))
        else:
            out.append((name, data))
    return out


def _keys(value):
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    return type(value).__name__


def test_sse_events_match_a_stream_in_the_api_wire_format():
    """``wire.sse_events`` against a tool_use stream written out in the API's documented
    wire format: the same event types in the same order, the same fields in each, usage
    where the API puts it (input side in message_start, output in message_delta)."""
    theirs = _merged(_parse_sse(SSE_FIXTURE.read_text(encoding="utf-8")))
    start = theirs[0][1]["message"]
    final_usage = dict(start["usage"], output_tokens=theirs[-2][1]["usage"]["output_tokens"])
    msg = dict(start, content=[text("Okay, let me check the weather in Paris."),
                               tool_use("get_weather", {"city": "Paris"},
                                        id="toolu_01SseWeatherParis00000")],
               stop_reason="tool_use", usage=final_usage)
    raw = sse_events(msg)
    ours = _merged(raw)
    assert [n for n, _ in ours] == [n for n, _ in theirs] == [
        "message_start", "content_block_start", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
        "message_stop"]
    for (name, mine), (_, real) in zip(ours, theirs, strict=True):
        assert _keys(mine) == _keys(real) or name in ("message_start", "message_delta"), (
            name, mine, real)
        if name == "content_block_delta" and "partial_json" in real["delta"]:
            assert json.loads(mine["delta"]["partial_json"]) == json.loads(
                real["delta"]["partial_json"])
        elif name == "message_delta":
            # the documented event carries the cumulative counts; the fixture only the output
            assert mine["delta"] == real["delta"], (mine, real)
            assert mine["usage"]["output_tokens"] == real["usage"]["output_tokens"]
        elif name != "message_start":
            assert mine == real, (name, mine, real)
    assert ours[0][1]["message"]["usage"]["input_tokens"] == 472
    assert ours[-2][1]["usage"]["output_tokens"] == 89
    assert ours[-2][1]["usage"]["input_tokens"] == 472
    # and the SDK assembles both into the same message
    for events in (raw, theirs):
        client, _ = fake_client([Reply(200, {}, events=events)])
        with client.messages.stream(model="claude-opus-5", max_tokens=64,
                                    messages=[GOAL]) as s:
            final = s.get_final_message()
        assert [b.type for b in final.content] == ["text", "tool_use"]
        assert block(final, "tool_use").input == {"city": "Paris"}
        assert (final.usage.input_tokens, final.usage.output_tokens) == (472, 89)


def test_streamed_tool_use_input_is_reassembled():
    body = message([tool_use("get_weather", {"city": "Paris"}, id="toolu_x")])
    client, _ = fake_client([body])
    with client.messages.stream(model="claude-opus-5", max_tokens=64, messages=[GOAL]) as s:
        final = s.get_final_message()
    assert final.stop_reason == "tool_use"
    assert block(final, "tool_use").input == {"city": "Paris"}


# -- validation like the API ------------------------------------------------------------

ASK = message([text("checking"), tool_use("t", {}, id="toolu_A"), tool_use("t", {}, id="toolu_B")])


def _bad_request(messages):
    client, api = fake_client([message([text("never")])])
    with pytest.raises(anthropic.BadRequestError) as info:
        create(client, messages)
    assert info.value.body["error"]["type"] == "invalid_request_error"
    return info.value.body["error"]["message"]


def test_rejects_tool_result_without_tool_use():
    msg = _bad_request([GOAL, {"role": "assistant", "content": "checking"},
                        {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_A", "content": "x"}]}])
    assert msg.startswith("messages.2: tool_result block(s) provided when previous message "
                          "does not contain any tool_use blocks")


def test_rejects_unanswered_tool_use_id():
    msg = _bad_request([GOAL, {"role": "assistant", "content": ASK["content"]},
                        {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_A", "content": "x"}]}])
    assert "tool_use` ids were found without `tool_result` blocks immediately after: toolu_B" \
        in msg


def test_rejects_unknown_tool_use_id():
    msg = _bad_request([GOAL, {"role": "assistant", "content": ASK["content"]},
                        {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": i, "content": "x"}
                            for i in ("toolu_A", "toolu_B", "toolu_Z")]}])
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_Z" in msg


@pytest.mark.parametrize("messages", [[], [{"role": "user", "content": []}],
                                      [{"role": "robot", "content": "x"}]])
def test_rejects_empty_or_invalid_message_lists(messages):
    assert _bad_request(messages).startswith("messages")


def test_split_results_are_accepted_like_the_api():
    client, api = fake_client([message([text("done")])])
    split = [GOAL, {"role": "assistant", "content": ASK["content"]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_A", "content": "a"}]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_B", "content": "b"}]}]
    assert texts(create(client, split)) == "done"
    assert len(api.requests[0]["messages"]) == 4  # the log keeps what was really sent


# -- cassettes -------------------------------------------------------------------------

def _cassette(tmp_path, data):
    path = tmp_path / "c.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_packaged_cassette_replays_in_order():
    api = FakeAPI(Replay("lab01_tool_loop__weather_two_step"))
    reply = create(api.client(), [{"role": "user", "content":
                                   "What is the weather in the capital of France?"}])
    assert block(reply, "tool_use").name == "get_capital"


def test_replay_miss_names_interaction_and_difference():
    api = FakeAPI(Replay("lab01_tool_loop__weather_two_step"))
    with pytest.raises(ReplayMiss) as info:
        create(api.client(), [{"role": "user", "content": "What is the weather in Rome?"}])
    text_ = str(info.value)
    assert "interaction 1 ('asks for the capital')" in text_
    assert "messages.0.content.0.text: expected" in text_ and "Rome" in text_


def test_replay_miss_points_at_nearest_recorded_request():
    api = FakeAPI(Replay("lab01_tool_loop__weather_two_step"))
    client = api.client()
    first = create(client, [{"role": "user", "content":
                             "What is the weather in the capital of France?"}])
    wrong = [{"role": "user", "content": "What is the weather in the capital of France?"},
             {"role": "assistant", "content": first.content},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id":
                                           block(first, "tool_use").id, "content": "Lyon"}]}]
    with pytest.raises(ReplayMiss) as info:
        create(client, wrong)
    assert "expected \"Paris\", got \"Lyon\"" in str(info.value)


def test_replay_miss_when_cassette_is_used_up():
    replay = Replay(Cassette.from_json({"version": 1, "interactions": [
        {"request": {}, "response": {"status": 200, "body": message([text("once")])}}]}))
    client = FakeAPI(replay).client()
    create(client, [GOAL])
    with pytest.raises(ReplayMiss, match="all were used"):
        create(client, [GOAL])


def test_replay_miss_is_not_swallowed_by_except_exception():
    client, _ = fake_client([])
    with pytest.raises(ReplayMiss):
        try:
            create(client, [GOAL])
        except Exception:  # what a careless student loop does
            pass


@pytest.mark.parametrize(("content", "needle"), [
    ("{not json", "invalid JSON at line 1"),
    ('{"version": 2, "interactions": []}', "version 2 is not supported"),
    ('{"version": 1, "interactions": []}', "'interactions' must be a non-empty list"),
    ('{"version": 1, "interactions": [{"request": {}, "response": {}}]}', "needs one of body"),
    ("[]", "a cassette is a JSON object"),
])
def test_malformed_cassettes_fail_with_a_clear_error(tmp_path, content, needle):
    with pytest.raises(CassetteError, match=needle):
        Cassette.load(_cassette(tmp_path, content))


def test_unknown_cassette_lists_known_ones():
    with pytest.raises(CassetteError, match="known: .*lab01_tool_loop__three_cities"):
        Cassette.load("no_such_scenario")


def test_cassette_round_trips(tmp_path):
    original = Cassette.load("lab01_tool_loop__three_cities")
    original.save(tmp_path / "copy.json")
    assert Cassette.load(tmp_path / "copy.json") == original


def test_scripted_responder_sees_the_request():
    api = FakeAPI(Scripted(lambda body: message([text(f"{len(body['messages'])} msgs")])))
    assert texts(create(api.client(), [GOAL])) == "1 msgs"


def test_queue_exhaustion_is_loud():
    api = FakeAPI(Queue([]))
    with pytest.raises(ReplayMiss, match="all were used"):
        create(api.client(), [GOAL])


# -- record mode ------------------------------------------------------------------------

def test_record_mode_needs_explicit_opt_in_and_key():
    with pytest.raises(RecordingDisabled, match="COURSE_RECORD=1"):
        Recorder("s", api_key="sk-test", environ={})
    with pytest.raises(RecordingDisabled, match="needs a key"):
        Recorder("s", environ={"COURSE_RECORD": "1"})


def test_record_mode_forwards_and_scrubs(tmp_path):
    seen = {}

    def upstream(request: httpx2.Request) -> httpx2.Response:
        seen["key"] = request.headers.get("authorization")
        leaky = {"request-id": "req_secret", "set-cookie": "a=b",
                 "anthropic-organization-id": "org", "retry-after": "3"}
        return httpx2.Response(200, headers=leaky,
                               json=message([text("live")], usage=usage(5, 2)))

    rec = Recorder("recorded", api_key="sk-real", environ={"COURSE_RECORD": "1"},
                   upstream=httpx2.MockTransport(upstream))
    reply = create(rec.client(), [GOAL])
    assert texts(reply) == "live" and seen["key"] == "Bearer sk-real"
    rec.save(tmp_path / "out.json")
    saved = (tmp_path / "out.json").read_text()
    assert "sk-real" not in saved and "req_secret" not in saved and "org" not in saved
    replayed = FakeAPI(Replay(tmp_path / "out.json"))
    assert texts(create(replayed.client(), [GOAL])) == "live"


def test_scrub_keeps_behavioural_headers_only():
    assert scrub_headers({"Retry-After": "7", "x-api-key": "k", "Date": "now"}) == \
        {"retry-after": "7"}
