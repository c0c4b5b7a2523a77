"""Replies that follow the request: the model echoed, ``max_tokens`` and ``stop_sequences`` obeyed.

Each test drives the fake through the real SDK, as a student's loop would, with a reply
written longer or wider than the request allows, and checks what comes back. The fake counts
four characters to a token (``course.tokens``), so the expected cut points below are worked
out from the text lengths, not read from the fake.

Sources (the ``search`` tool's docs corpus and the pinned SDK, anthropic 2.10.0):
* opus-5 migration -- https://platform.claude.com/docs/zh-CN/models/opus-5/migration-guide
  ("max_tokens is still a hard limit on the total output, thinking plus response text")
* stop reasons -- https://platform.claude.com/docs/build-with-claude/handling-stop-reasons
  (``max_tokens``: "The response reached your max_tokens limit"; ``stop_sequence``: "Claude
  emitted one of your stop_sequences. Read stop_sequence to see which one fired.")
* tool use -- docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use, "Handling
  the max_tokens stop reason": "the truncated response contains an incomplete tool use block"
* SDK -- ``anthropic/types/message.py`` (``model``, ``stop_sequence``) and
  ``anthropic/types/message_create_params.py`` (``stop_sequences``).
"""

from __future__ import annotations

import math

from course.fakes import FakeAPI, Queue
from course.wire import message, text, tool_use

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
GOAL = {"role": "user", "content": "What is the weather in Paris?"}
OFF = {"type": "disabled"}        # thinking off, so only the reply's own text is counted


def create(reply: dict, *, model: str = OPUS, max_tokens: int = 1024, **kwargs):
    api = FakeAPI(Queue([reply]))
    return api.client().messages.create(model=model, max_tokens=max_tokens, messages=[GOAL],
                                        **kwargs)


def texts(reply) -> str:
    return "".join(b.text for b in reply.content if b.type == "text")


def test_model_is_echoed():
    # source: SDK types/message.py, `model`: the model that completed the prompt. A reply
    # written as claude-opus-5 and requested as claude-sonnet-5 comes back as claude-sonnet-5.
    reply = create(message([text("hi")], model=OPUS), model=SONNET)
    assert reply.model == SONNET


def test_model_is_echoed_in_a_stream():
    # source: SDK types/message.py, `model`; the stream's message_start carries the message.
    api = FakeAPI(Queue([message([text("hi")], model=OPUS)]))
    with api.client().messages.stream(model=HAIKU, max_tokens=64, messages=[GOAL]) as s:
        final = s.get_final_message()
    assert final.model == HAIKU


def test_max_tokens_one_cuts_a_long_reply():
    # source: stop reasons (max_tokens), opus-5 migration (a hard limit). 500 tokens of text
    # against max_tokens=1: one token (four characters) comes back.
    long = "alpha beta gamma delta " * 87           # 2,001 characters: 501 tokens
    reply = create(message([text(long)]), max_tokens=1, thinking=OFF)
    assert reply.stop_reason == "max_tokens"
    assert reply.usage.output_tokens == 1
    assert texts(reply) == long[:4]


def test_cut_reply_keeps_the_start_of_its_text():
    # source: stop reasons (max_tokens). 175 characters (44 tokens) against max_tokens=20:
    # the first 80 characters, and the blocks after the cut are never written.
    words = "".join(f"word{i:02d} " for i in range(25))   # 7 characters each
    reply = create(message([text(words), text("a second block")]), max_tokens=20,
                   thinking=OFF)
    assert (reply.stop_reason, reply.usage.output_tokens) == ("max_tokens", 20)
    assert [b.type for b in reply.content] == ["text"]
    assert reply.content[0].text == words[:80]


def test_max_tokens_counts_thinking_and_text():
    # source: opus-5 migration: max_tokens caps thinking plus text, and thinking tokens are
    # billed as output tokens. 400 characters (100 tokens) of text fit max_tokens=100 alone,
    # but not with the thinking before them.
    body = "x" * 400
    reply = create(message([text(body)]), max_tokens=100)
    thought = reply.usage.output_tokens_details.thinking_tokens
    assert thought > 0 and reply.content[0].type == "thinking"
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 100
    assert len(texts(reply)) == (100 - thought) * 4


def test_reply_within_max_tokens_is_untouched():
    # source: stop reasons (end_turn: "Claude finished its response naturally").
    reply = create(message([text("It is 18 C and clear.")]), max_tokens=64, thinking=OFF)
    assert reply.stop_reason == "end_turn" and reply.stop_sequence is None
    assert texts(reply) == "It is 18 C and clear."
    assert reply.usage.output_tokens == math.ceil(len("It is 18 C and clear.") / 4)


def test_tool_use_cut_by_max_tokens_is_incomplete():
    # source: tool use, "Handling the max_tokens stop reason": the truncated response ends in
    # an incomplete tool_use block (its last block is a tool_use). What the cut input holds
    # is not documented: the test only checks it is an object and not the whole input.
    lead = "Checking."                                             # 3 tokens
    call = tool_use("get_weather", {"city": "Paris", "units": "metric", "days": 3},
                    id="toolu_cut")                                # name 3 + input 11 tokens
    reply = create(message([text(lead), call]), max_tokens=10, thinking=OFF)
    assert reply.stop_reason == "max_tokens"
    last = reply.content[-1]
    assert last.type == "tool_use" and last.id == "toolu_cut"
    assert isinstance(last.input, dict) and last.input != call["input"]


def test_stop_sequence_cuts_the_text():
    # source: SDK types/message_create_params.py, `stop_sequences`: stop_reason
    # "stop_sequence", and stop_sequence holds the matched sequence.
    reply = create(message([text("alpha END beta")]), stop_sequences=["END"])
    assert reply.stop_reason == "stop_sequence" and reply.stop_sequence == "END"
    assert texts(reply) == "alpha "


def test_first_stop_sequence_in_the_text_wins():
    # source: stop reasons: "Read stop_sequence to see which one fired"; generation stops at
    # the first one the model writes, whichever place it has in the list.
    reply = create(message([text("one STOP two END three")]), stop_sequences=["END", "STOP"])
    assert reply.stop_sequence == "STOP" and texts(reply) == "one "


def test_stop_sequence_drops_the_blocks_after_it():
    # source: SDK message_create_params.py: the model stops generating at the sequence, so
    # the tool call it would have written next never comes.
    ask = [text("I will check. END"), tool_use("get_weather", {"city": "Paris"}, id="toolu_s")]
    reply = create(message(ask), stop_sequences=["END"])
    assert reply.stop_reason == "stop_sequence"
    assert [b.type for b in reply.content if b.type != "thinking"] == ["text"]


def test_stop_sequence_that_never_appears_changes_nothing():
    # source: SDK types/message.py, `stop_sequence`: non-null only if a sequence was generated.
    reply = create(message([text("alpha beta")]), stop_sequences=["END"])
    assert reply.stop_reason == "end_turn" and reply.stop_sequence is None
    assert texts(reply) == "alpha beta"


def test_stop_sequence_shortens_the_billed_output():
    # source: SDK message.py (`usage.output_tokens`, the tokens generated): the text after the
    # sequence was never generated: 26 characters kept of 44, 7 tokens.
    reply = create(message([text("It is 18 C and clear in P STOP and more text")]),
                   stop_sequences=["STOP"], thinking=OFF)
    assert reply.usage.output_tokens == 7             # "It is 18 C and clear in P " = 26 chars


def test_streamed_reply_is_cut_like_a_created_one():
    # source: streaming docs (the stream carries the same message); stop reasons.
    words = "".join(f"word{i:02d} " for i in range(25))
    api = FakeAPI(Queue([message([text(words)])] * 2))
    made = api.client().messages.create(model=OPUS, max_tokens=30, messages=[GOAL])
    with api.client().messages.stream(model=OPUS, max_tokens=30, messages=[GOAL]) as s:
        final = s.get_final_message()
    assert final.stop_reason == made.stop_reason == "max_tokens"
    assert texts(final) == texts(made) and final.usage.output_tokens == 30
