# %% [markdown]
# # Lab 1 — The tool-calling loop
#
# **Points:** 14 autograded + 3 written = 17.
#
# **You implement**
#
# ```python
# agent(goal, tools, dispatch, *, client, max_steps=12) -> str
# ```
#
# * **In:** a goal in plain English, a list of tool definitions, and `dispatch(name, args)`,
#   the function that runs a tool. `client` is an `anthropic.Anthropic` client.
# * **Each model call** is `client.messages.create(model=MODEL, max_tokens=1024,
#   tools=tools, messages=history)`, with `MODEL = "claude-opus-5"` from the first code cell.
#   The first message is the goal as a user message. Its content may be the goal string or a
#   list holding one text block with it.
# * **Out:** the model's final text answer: the text of every `text` block of the last reply,
#   joined with no separator. Read blocks by their `type`, never by position: the first block
#   of a reply is often a `thinking` block (below). The last reply is the first one whose
#   `stop_reason` is not `tool_use` (`end_turn`, `stop_sequence`, ...), after the checks for
#   `max_tokens` and `refusal` below.
# * **Assistant turn:** append the reply's `content` as it came, every block, unchanged.
#   `claude-opus-5` thinks by default, so a reply begins with a `thinking` block whose text is
#   empty and which carries a `signature`; the API answers 400 when the assistant turn sent
#   back with the tool results lacks it or changed it.
# * **Tool results:** call `dispatch(block.name, block.input)` once per `tool_use` block;
#   all results of one turn go back in **one** user message, one `tool_result` per
#   `tool_use` id, in the order of the calls. A tool's return value is sent as text:
#   `None` becomes `""`, anything else that is not a string becomes `str(value)`.
#   So `0` is sent as `"0"`, and a dict `d` as `str(d)`, not as JSON.
#   A tool that raises is answered with `is_error: True` and the error's text as content;
#   the loop goes on. Catch every `Exception`, not only `KeyError`, and mark only the results
#   of tools that raised.
# * **Refusal:** when `stop_reason == "refusal"`, return `"refused: "` followed by the
#   reply's own text (its text blocks joined). Join them with no separator, as for the
#   answer. A refusal may carry no blocks at all: then return `"refused: "` alone. Never
#   raise on a refusal.
# * **Raises** `RuntimeError` when a reply stops at `max_tokens`, and when the model is still
#   asking for tools after `max_steps` model calls (so exactly `max_steps` calls are made).
#   A reply cut at `max_tokens` raises even when it holds a `tool_use` block: that block is
#   incomplete, so run no tool from it. A reply that answers on call number `max_steps` is
#   returned, not an error.
#
# Everything here runs offline. `client` is the real Anthropic SDK talking to a fake API
# that replays recorded replies and rejects malformed requests with the API's own 400s.

# %%
import anthropic

from course.worlds import weather

MODEL = "claude-opus-5"
print("tools:", [t["name"] for t in weather.TOOLS])
print("goal: ", weather.GOAL)

# %% [markdown]
# ## Why the loop exists
#
# The server remembers nothing between calls. Every request carries the whole conversation:
# the system prompt, the tool definitions and every message so far. Turn 20 knows about
# turn 1 only because you sent turn 1 again.
#
# So one iteration of the loop is four steps:
#
# 1. **Serialize** the tools, the system prompt and the message history into one request.
# 2. **Prefill**: the model reads it all (reusing cached work for an unchanged prefix).
# 3. **Decode**: it writes a reply — a *list of content blocks*, some `text`, some `tool_use`.
# 4. **Dispatch**: if the reply asks for tools, you run them and append the results.
#
# The message list *is* the agent's memory, and every bug in this lab is a bug in how that
# list is built. Watch one recorded run, request by request:

# %%
api = weather.two_step()
client = api.client()

history = [{"role": "user", "content": weather.GOAL}]
first = client.messages.create(model=MODEL, max_tokens=1024, tools=weather.TOOLS,
                               messages=history)
print("stop_reason:", first.stop_reason)
for block in first.content:
    if block.type == "thinking":
        print("  block: thinking", repr(block.thinking), "signature", block.signature[:12] + "...")
    elif block.type == "text":
        print("  block: text", repr(block.text))
    else:
        print("  block:", block.type, block.name, block.input)
print("output tokens:", first.usage.output_tokens, "of which thinking:",
      first.usage.output_tokens_details.thinking_tokens)

# %% [markdown]
# The reply holds **three** blocks. First a `thinking` block: `claude-opus-5` thinks before
# it answers unless the request says `thinking={"type": "disabled"}`, and by default it
# returns the thinking *omitted*: the text is empty, the `signature` carries what the API
# needs to continue the reasoning, and the thinking is billed as output tokens all the same.
# Then a sentence, and a `tool_use` with an `id`. The next request must repeat all three
# blocks, unchanged, as the assistant turn, and answer the id with a `tool_result` in the
# user turn that follows. That is the whole protocol.
#
# ## The bug it prevents: five failures in ten lines of plumbing
#
# Three of the five fail loudly. Two fail silently, and those are the expensive ones.
# Each runs below against the fake, which checks requests the way the live API does.
#
# ### Watching the wire
#
# `Inspector(fake)` from `course.live` watches one fake API and adds a row for every
# request: the messages in order (role and block types), each `tool_use` id with ✓ if the
# next user turn answered it and ✗ if not, the input tokens, and the reply. A row turns red
# the moment it shows one of three mistakes: results split across user messages, a
# `tool_use` id left without a `tool_result`, or a history resent without the `tool_use`
# its result answers. Failures 1 to 3 run with one attached.

# %%
from course.live import Inspector  # noqa: E402


def send(messages, fake):
    """One request on the given fake; returns the reply, or prints the API's 400."""
    try:
        return fake.client().messages.create(model=MODEL, max_tokens=1024,
                                             tools=weather.TOOLS, messages=messages)
    except anthropic.BadRequestError as err:
        print(f"HTTP {err.status_code} {err.body['error']['type']}: {err.body['error']['message']}")


def answer(tool_id, content):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


# Failure 1: keep only the reply's text. The tool_use id vanishes from history.
fake = weather.two_step()
Inspector(fake).show()
reply = send([{"role": "user", "content": weather.GOAL}], fake)
call = next(b for b in reply.content if b.type == "tool_use")
said = "".join(b.text for b in reply.content if b.type == "text")
send([{"role": "user", "content": weather.GOAL},
      {"role": "assistant", "content": said},
      {"role": "user", "content": [answer(call.id, weather.dispatch(call.name, call.input))]}],
     fake)

# %%
# Failure 1b: rebuild the assistant turn from the blocks you know, text and tool_use. The
# thinking block is gone, and the API refuses to continue the reasoning without it.
fake = weather.two_step()
reply = send([{"role": "user", "content": weather.GOAL}], fake)
call = next(b for b in reply.content if b.type == "tool_use")
known = [b for b in reply.content if b.type in ("text", "tool_use")]
send([{"role": "user", "content": weather.GOAL},
      {"role": "assistant", "content": known},
      {"role": "user", "content": [answer(call.id, weather.dispatch(call.name, call.input))]}],
     fake)
head = reply.content[0]
print(f"and reading by position fails too: the first block is a {head.type} block, and it "
      f"has {'a' if hasattr(head, 'text') else 'no'} .text")

# %%
# Failure 2: three parallel calls, but only two answers (Lima's tool "returned nothing").
fake = weather.three_cities()
Inspector(fake).show()
reply = send([{"role": "user", "content": weather.THREE_CITIES_GOAL}], fake)
calls = [b for b in reply.content if b.type == "tool_use"]
print(len(calls), "tool_use blocks:", [b.id for b in calls])
answered = [answer(b.id, weather.WEATHER[b.input["city"]]) for b in calls
            if b.input["city"] != "Lima"]
send([{"role": "user", "content": weather.THREE_CITIES_GOAL},
      {"role": "assistant", "content": reply.content},
      {"role": "user", "content": answered}], fake)

# %% [markdown]
# ### Failure 3 succeeds, and that is the problem
#
# Now answer all three calls, but in three separate user messages. The API merges
# consecutive user turns, so the request is accepted and the run finishes normally.
# Only the request log shows the difference:

# %%
split_fake = weather.three_cities()
Inspector(split_fake).show()
reply = send([{"role": "user", "content": weather.THREE_CITIES_GOAL}], split_fake)
calls = [b for b in reply.content if b.type == "tool_use"]
split = [{"role": "user", "content": weather.THREE_CITIES_GOAL},
         {"role": "assistant", "content": reply.content}]
split += [{"role": "user", "content": [answer(b.id, weather.WEATHER[b.input["city"]])]}
          for b in calls]
final = send(split, split_fake)
print("answer:", "".join(b.text for b in final.content if b.type == "text"))

sent = split_fake.requests[-1]["messages"]
carriers = [m for m in sent if m["role"] == "user" and isinstance(m["content"], list)]
print(f"{len(calls)} parallel calls were answered in {len(carriers)} separate user messages")

# %% [markdown]
# The red row is the only place this failure shows: the request was accepted and the
# answer is right. Nothing failed. But the transcript the model reads next now
# *shows* parallel calls being answered one at a time, and a model continues the pattern
# in front of it. It drifts to one tool per turn. Each turn is a full round trip
# (prefill of the whole history, then decode), so the cost in wall-clock time is the
# lost batch size:

# %%
round_trips_batched = 1
round_trips_serial = len(calls)
print(f"{len(calls)} tools: {round_trips_batched} round trip batched, {round_trips_serial} "
      f"serial -> {round_trips_serial / round_trips_batched:.0f}x slower, with no error anywhere")

# %%
# Failure 4: a tool raises and nothing catches it. The whole run dies on a typo the
# model could have fixed in one more turn.
try:
    weather.dispatch("get_weather", {"city": "Pariss"})
except KeyError as err:
    print("the harness crashed with", type(err).__name__, err, "- the model never saw it")

# %% [markdown]
# ### Failure 5: no cap on the loop
#
# A model that keeps asking for tools keeps being served. Here is an unbounded loop
# against a model that never stops asking. The fake gives up after 40 replies; a real
# API never does. Note what each call costs: the whole history is sent again every time.

# %%
from course import tokens  # noqa: E402
from course.cassette import ReplayMiss  # noqa: E402

LIMIT = 40
runaway = weather.endless(limit=LIMIT)
convo = [{"role": "user", "content": weather.GOAL}]
try:
    while True:
        r = runaway.client().messages.create(model=MODEL, max_tokens=1024,
                                             tools=weather.TOOLS, messages=convo)
        ask = next(b for b in r.content if b.type == "tool_use")
        convo += [{"role": "assistant", "content": r.content},
                  {"role": "user", "content": [answer(ask.id, "14C, rain")]}]
except ReplayMiss:
    pass
served = runaway.requests[:LIMIT]  # the next request found the fake exhausted
sent_tokens = [tokens.request_tokens(body) for body in served]
print(f"{len(served)} model calls served; first request ~{sent_tokens[0]} tokens, "
      f"last ~{sent_tokens[-1]}; ~{sum(sent_tokens):,} tokens sent in total")

# %% [markdown]
# The total grows with the *square* of the number of turns, because every call resends
# everything before it. A bounded `for` cannot run forever; a `while True` can.
#
# ## Tier 1 — pseudocode
#
# ```text
# history = [goal]
# repeat at most MAX_STEPS times:
#     reply = model(history, tools)
#     if reply stopped at max_tokens: fail loudly          # a cut-off reply is not an answer
#     if reply is a refusal:          return it, marked as a refusal  # may have no blocks
#     if reply asks for no tool:      return its text
#     history += assistant turn with ALL of reply's blocks   # thinking included, unchanged
#     history += ONE user turn answering EVERY tool_use id  # errors become is_error results
# fail: step cap reached
# ```
#
# **What a framework changes.** LangGraph's prebuilt tool node packs all of a turn's
# results into one message, so it cannot commit failure 3, and its checkpointer lets a
# crashed run resume. The four decisions above are still yours to get right.
#
# ## Implement `agent`
#
# Check `stop_reason` for `max_tokens` and for `refusal` first, then apply "anything that is
# not `tool_use` is an answer". A truncated reply looks like an answer; a refusal may have no
# text block at all.

# %% id="agent" kind="solution"
def agent(goal, tools, dispatch, *, client, max_steps=12):
    """Run the tool-calling loop for ``goal`` and return the model's final text.

    goal      -- the user's request, a string
    tools     -- tool definitions to offer the model (a list of dicts)
    dispatch  -- dispatch(name, args) runs one tool and returns its result
    client    -- an anthropic.Anthropic client (the fake one, in this course)
    max_steps -- the most model calls to make before giving up

    Returns the final reply's text blocks joined; on a refusal, "refused: " + its text.
    Raises RuntimeError if a reply stops at max_tokens, or if the model is still asking
    for tools after max_steps calls. A tool that raises must NOT crash the loop: the
    error goes back to the model as a tool_result with is_error=True.
    """
    ### BEGIN SOLUTION
    history = [{"role": "user", "content": goal}]
    for _step in range(max_steps):
        reply = client.messages.create(
            model=MODEL, max_tokens=1024, tools=tools, messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply cut off at max_tokens: a truncated reply is not an answer")
        if reply.stop_reason == "refusal":
            return "refused: " + "".join(b.text for b in reply.content if b.type == "text")
        if reply.stop_reason != "tool_use":
            return "".join(b.text for b in reply.content if b.type == "text")
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                out = dispatch(block.name, block.input)
                content, failed = ("" if out is None else str(out)), False
            except Exception as exc:
                content, failed = f"Error: {type(exc).__name__}: {exc}", True
            results.append({"type": "tool_result", "tool_use_id": block.id,
                            "content": content, "is_error": failed})
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"step cap: still asking for tools after {max_steps} model calls")
    ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# Run this cell for a quick signal. Then press **Validate**: each graded cell below has a
# visible check for the most common mistake of its property. It is **not** the whole grade:
# hidden tests in the same cells check more cases (other step caps, other refusal texts,
# other kinds of return values).

# %%
api = weather.two_step()
calls = weather.CountingDispatch()
print("answer:", agent(weather.GOAL, weather.TOOLS, calls, client=api.client()))
print("tools run:", calls.calls)
print("model calls:", len(api.requests))

# %% [markdown]
# ## Graded tests
#
# One cell per property. Each builds its own fake, so it depends only on `agent`.

# %% id="two_step_trace" kind="tests" points=2
from course.worlds import weather

api = weather.two_step()
calls = weather.CountingDispatch()
out = weather.run(agent, weather.GOAL, calls, api)
assert out == "It is 14C and raining in Paris.", (
    f"final answer should be the last reply's text, 'It is 14C and raining in Paris.'; got {out!r}")
assert calls.calls == [("get_capital", {"country": "France"}), ("get_weather", {"city": "Paris"})], (
    f"dispatch ran {calls.calls}; expected get_capital(France) then get_weather(Paris), each "
    "once: call dispatch once per tool_use block")
sent = [(r.get("model"), r.get("max_tokens"), r.get("tools") == weather.TOOLS)
        for r in api.requests]
assert sent == [("claude-opus-5", 1024, True)] * 3, (
    f"(model, max_tokens, tools sent) per call: {sent}; every call is "
    "create(model=MODEL, max_tokens=1024, tools=tools, messages=history)")
two = weather.run(agent, weather.GOAL, weather.dispatch, weather.two_text_answer())
assert two == "Paris is 14C and rainy. Take an umbrella.", (
    "the last reply has text blocks 'Paris is 14C and rainy.' and ' Take an umbrella.'; join "
    f"ALL of them with no separator (''.join); got {two!r}")
try:
    stopped = weather.run(agent, weather.GOAL, weather.dispatch, weather.stop_sequence_answer())
except AssertionError as err:
    raise AssertionError("a reply with stop_reason 'stop_sequence' is an answer (anything but "
                         f"'tool_use' ends the loop), yet the loop went on: {err}") from None
assert stopped == "14C and rain in Paris.", (
    f"a reply with stop_reason 'stop_sequence' is an answer: return its text; got {stopped!r}")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(out=out, calls=calls.calls, requests=api.requests, two=two, stopped=stopped)
### JUDGE
from course.hub import log_of
from course.wire import block_text
from course.worlds import weather

assert rec["out"] == "It is 14C and raining in Paris.", (
    f"final answer should be the last reply's text; got {rec['out']!r}")
assert rec["two"] == "Paris is 14C and rainy. Take an umbrella.", (
    f"the last reply's text blocks must be joined with no separator; got {rec['two']!r}")
assert rec["stopped"] == "14C and rain in Paris.", (
    f"a stop_sequence reply is an answer; got {rec['stopped']!r}")
trace = rec["calls"]
assert trace == [["get_capital", {"country": "France"}], ["get_weather", {"city": "Paris"}]], (
    f"tools ran as {trace}; the trace must be get_capital(France) then get_weather(Paris)")
reqs = log_of(rec["requests"])
assert len(reqs) == 3, f"{len(reqs)} model calls; two tool rounds and one answer make exactly 3"
goal = reqs[0]["messages"][0]
content = goal.get("content")
as_text = isinstance(content, str) or (
    isinstance(content, list) and len(content) == 1 and content[0].get("type") == "text")
assert goal.get("role") == "user" and as_text and block_text(content) == weather.GOAL, (
    "the first message must be the goal as a user message (a string or one text block)")
sent = [[r.get("model"), r.get("max_tokens")] for r in reqs]
assert sent == [["claude-opus-5", 1024]] * 3, (
    f"model calls used (model, max_tokens) {sent}; the spec says claude-opus-5 and 1024")
assert all(r.get("tools") == weather.TOOLS for r in reqs), "every call must send tools=tools"
### END HIDDEN TESTS

# %% id="all_blocks_kept" kind="tests" points=2
from course.worlds import weather

api = weather.two_step()
out = weather.run(agent, weather.GOAL, weather.dispatch, api)
kept = weather.assistant_blocks(api.requests[1])
kinds = [b.get("type") for b in kept]
assert kinds == ["thinking", "text", "tool_use"], (
    f"assistant turn resent with blocks {kinds}, not [thinking, text, tool_use]: append ALL "
    "of reply.content, thinking block included, not just the text or the tool calls")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(requests=api.requests)
### JUDGE
from course.cassette import Cassette
from course.hub import log_of
from course.worlds import weather

reqs = log_of(rec["requests"])
assert len(reqs) > 1, f"{len(reqs)} model call(s); the two-step run makes 3"
sent = Cassette.load("lab01_tool_loop__weather_two_step").interactions[0].response.body
kept = weather.assistant_blocks(reqs[1])
assert [b.get("type") for b in kept] == ["thinking", "text", "tool_use"], (
    "the assistant turn must be resent with ALL of reply.content: [thinking, text, tool_use]")
fields = {"thinking": ("thinking", "signature"), "text": ("text",), "tool_use": ("id", "name",
                                                                               "input")}
for got, want in zip(kept, sent["content"], strict=True):
    for key in fields[want["type"]]:
        assert got.get(key) == want[key], (
            f"the resent {want['type']} block's {key} is {got.get(key)!r}, not the reply's "
            f"{want[key]!r}: resend the reply's own blocks, unchanged")
later = weather.assistant_blocks(reqs[2]) if len(reqs) > 2 else None
assert later is not None and later[:3] == kept, (
    "the third request changed the first assistant turn; every earlier turn is resent as it was")
### END HIDDEN TESTS

# %% id="parallel_results_one_message" kind="tests" points=2
from course.worlds import weather

api = weather.three_cities()
out = weather.run(agent, weather.THREE_CITIES_GOAL, weather.dispatch, api)
carriers = weather.result_messages(api.requests[1])
assert len(carriers) == 1, (
    f"tool results split across {len(carriers)} user messages; answer all tool_use ids in ONE "
    "message, or the transcript teaches the model to call tools one at a time "
    "(3 round trips instead of 1)")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(requests=api.requests)
### JUDGE
from course.hub import log_of
from course.worlds import weather

reqs = log_of(rec["requests"])
assert len(reqs) == 2, f"{len(reqs)} model calls; one tool round + answer is 2"
carriers = weather.result_messages(reqs[1])
assert len(carriers) == 1, (
    f"tool results split across {len(carriers)} user messages; answer all ids in ONE message")
assert len(weather.tool_results(reqs[1])) == 3, "all three results belong in that message"
### END HIDDEN TESTS

# %% id="every_id_answered" kind="tests" points=2
from course.worlds import weather


def lima_returns_nothing(name, args):
    return None if args.get("city") == "Lima" else weather.dispatch(name, args)


def not_strings(name, args):
    return {"Paris": 14, "Tokyo": {"temp_c": 22, "sky": "clear"}, "Lima": 0}[args["city"]]


api = weather.three_cities()
out = weather.run(agent, weather.THREE_CITIES_GOAL, lima_returns_nothing, api)
results = weather.tool_results(api.requests[1])
ids = [b["tool_use_id"] for b in results]
assert "toolu_01WeatherLima00000C" in ids, (
    "Lima's tool returned None and its tool_use id got no tool_result; answer EVERY id "
    "(None is sent as \"\")")
lima = weather.result_text(results[ids.index("toolu_01WeatherLima00000C")])
assert lima == "", f"Lima's tool returned None, sent as {lima!r}; None is sent as \"\""
api = weather.three_cities()
weather.run(agent, weather.THREE_CITIES_GOAL, not_strings, api)
texts = [weather.result_text(b) for b in weather.tool_results(api.requests[1])]
assert texts == ["14", "{'temp_c': 22, 'sky': 'clear'}", "0"], (
    f"tools returned 14, {{'temp_c': 22, 'sky': 'clear'}} and 0, sent as {texts}; send "
    "str(value) (not JSON), and only None becomes \"\" (0 is '0')")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(paris=(14.5, 9.25, 21.75, -3.5, 0.5), tokyo=(True, False),
                  lima=(("19C", "overcast"), ("8C", "fog"), ("31C", "sun", "haze"),
                        ("12C", "drizzle")))


def others(name, args):
    return {"Paris": h.paris, "Tokyo": h.tokyo, "Lima": list(h.lima)}[args["city"]]


none_api, other_api = weather.three_cities(), weather.three_cities()
weather.run(agent, weather.THREE_CITIES_GOAL, lima_returns_nothing, none_api)
weather.run(agent, weather.THREE_CITIES_GOAL, others, other_api)
rec = record(none_case=none_api.requests, other_case=other_api.requests)
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs
from course.wire import block_text
from course.worlds import weather

h = hidden_inputs(paris=(14.5, 9.25, 21.75, -3.5, 0.5), tokyo=(True, False),
                  lima=(("19C", "overcast"), ("8C", "fog"), ("31C", "sun", "haze"),
                        ("12C", "drizzle")))
none_case, other_case = log_of(rec["none_case"]), log_of(rec["other_case"])
assert len(none_case) > 1 and len(other_case) > 1, "each run answers its tool calls once"
results = weather.tool_results(none_case[1])
order = [b.get("tool_use_id") for b in results]
assert order == ["toolu_01WeatherParis0000A", "toolu_01WeatherTokyo0000B",
                 "toolu_01WeatherLima00000C"], (
    f"answered ids {order}: one tool_result per tool_use id, in the order of the calls")
assert block_text(results[2].get("content")) == "", (
    f"a tool that returned None is answered with content \"\"; got {results[2].get('content')!r}")
sent = [weather.result_text(b) for b in weather.tool_results(other_case[1])]
values = [h.paris, h.tokyo, list(h.lima)]
assert sent == [str(v) for v in values], (
    f"tools returning {values[0]!r}, {values[1]!r} and {values[2]!r} must be sent as str(value) "
    f"(not JSON); got {sent}")
### END HIDDEN TESTS

# %% id="tool_error_as_data" kind="tests" points=2
from course.worlds import weather


def raises_value_error(name, args):
    if args.get("city") == "Pariss":
        raise ValueError("no such city: Pariss")
    return weather.dispatch(name, args)


api = weather.typo_then_fix()
try:
    out = weather.run(agent, weather.GOAL, weather.dispatch, api)
except KeyError as err:
    raise AssertionError(f"the tool's KeyError {err} escaped the loop; catch it and return "
                         "it to the model as a tool_result with is_error=True") from None
assert len(api.requests) > 1, (
    f"agent returned {out!r} right after the tool raised; send the error back as a "
    "tool_result and let the loop go on")
first = weather.tool_results(api.requests[1])[0]
assert first.get("is_error") is True, (
    f"failed tool answered with is_error={first.get('is_error')!r}; a tool that raised must be "
    "sent back with is_error=True so the model can react")
said = weather.result_text(first)
assert "Pariss" in said, (
    f"the failed tool's result says {said!r}; send the error's own text (it names 'Pariss')")
assert out == "It is 14C and raining in Paris.", (
    f"after the error the model retries and answers; got {out!r}: the loop must go on")
fixed = weather.tool_results(api.requests[2])[-1]
assert fixed.get("is_error") is not True, (
    "the corrected call succeeded but went back with is_error=True; mark only tools that raised")
try:
    other = weather.run(agent, weather.GOAL, raises_value_error, weather.typo_then_fix())
except ValueError as err:
    raise AssertionError(f"the tool's ValueError ({err}) escaped the loop; catch every "
                         "Exception, not only KeyError") from None
assert other == "It is 14C and raining in Paris.", (
    f"a tool raising ValueError must be handled like the KeyError; got {other!r}")


def paris_down(name, args):
    if args.get("city") == "Paris":
        raise TimeoutError("weather service timed out for Paris")
    return weather.dispatch(name, args)


city = {"toolu_01WeatherParis0000A": "Paris", "toolu_01WeatherTokyo0000B": "Tokyo",
        "toolu_01WeatherLima00000C": "Lima"}
batch_api = weather.three_cities()
weather.run(agent, weather.THREE_CITIES_GOAL, paris_down, batch_api)
flags = {city.get(b["tool_use_id"]): b.get("is_error") is True
         for b in weather.tool_results(batch_api.requests[1])}
assert flags == {"Paris": True, "Tokyo": False, "Lima": False}, (
    f"Paris's tool raised, Tokyo's and Lima's returned, and is_error went out as {flags}; "
    "mark only the results of tools that raised: set the flag per call, not per turn")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(down=("Tokyo", "Lima"),
                  error=(ConnectionError, TimeoutError, OSError, PermissionError, ValueError),
                  why=("station offline", "sensor feed stalled", "upstream answered 502",
                       "quota exhausted for today"), code=range(100, 1000))


def one_down(name, args):
    if args.get("city") == h.down:
        raise h.error(f"{h.down} {h.why} (code {h.code})")
    return weather.dispatch(name, args)


middle_api = weather.three_cities()
rec = record(out=out, requests=api.requests,
             other=outcome(weather.run, agent, weather.GOAL, raises_value_error,
                           weather.typo_then_fix()),
             batch=batch_api.requests,
             middle=outcome(weather.run, agent, weather.THREE_CITIES_GOAL, one_down,
                            middle_api),
             middle_requests=middle_api.requests)
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs
from course.wire import block_text
from course.worlds import weather

h = hidden_inputs(down=("Tokyo", "Lima"),
                  error=(ConnectionError, TimeoutError, OSError, PermissionError, ValueError),
                  why=("station offline", "sensor feed stalled", "upstream answered 502",
                       "quota exhausted for today"), code=range(100, 1000))
reqs = log_of(rec["requests"])
assert len(reqs) > 2, f"{len(reqs)} model calls; the typo, its fix and the answer make 3"
first = weather.tool_results(reqs[1])[0]
assert first.get("is_error") is True, "a tool that raised must be sent back with is_error=True"
assert "Pariss" in block_text(first.get("content")), "the error text should reach the model"
assert rec["out"] == "It is 14C and raining in Paris.", (
    f"given the error, the model fixes the typo and answers; got {rec['out']!r}")
fixed = weather.tool_results(reqs[2])
assert fixed and fixed[-1].get("is_error") in (False, None), (
    "a tool that succeeded must not be marked is_error=True")
assert rec["other"]["value"] == "It is 14C and raining in Paris.", (
    f"a tool raising ValueError must go back as an is_error result too; got {rec['other']}")
city = {"toolu_01WeatherParis0000A": "Paris", "toolu_01WeatherTokyo0000B": "Tokyo",
        "toolu_01WeatherLima00000C": "Lima"}
for log, failed, error in [(rec["batch"], "Paris", "timed out for Paris"),
                           (rec["middle_requests"], h.down, f"{h.down} {h.why} (code {h.code})")]:
    reqs = log_of(log)
    assert len(reqs) > 1, f"{failed} raised: the other results and the error must go back"
    results = {city.get(b.get("tool_use_id")): b for b in weather.tool_results(reqs[1])}
    assert sorted(results, key=str) == ["Lima", "Paris", "Tokyo"], (
        f"{failed} raised, and the ids answered were for {sorted(results, key=str)}; every "
        "tool_use id gets a tool_result, also those after a tool that raised")
    flags = {c: b.get("is_error") is True for c, b in results.items()}
    assert flags == {c: c == failed for c in ("Paris", "Tokyo", "Lima")}, (
        f"{failed}'s tool raised in a batch of three, and is_error went out as {flags}; mark "
        "only the results of tools that raised")
    said = {c: block_text(b.get("content")) for c, b in results.items()}
    assert error in said[failed], (
        f"{failed}'s failed result must carry the error's own text; got {said[failed]!r}")
    assert all(said[c] == weather.WEATHER[c] for c in said if c != failed), (
        f"{failed} raised: the tools that returned must send their own values; got {said}")
assert rec["middle"]["raised"] is None, (
    f"a batch where {h.down}'s tool raised {h.error.__name__} must end in an answer; got "
    f"{rec['middle']}")
### END HIDDEN TESTS

# %% id="max_tokens_fails_loudly" kind="tests" points=1
from course.worlds import weather


def when_cut_off(api):
    """None if agent raised RuntimeError on the cut-off reply, else what it did instead."""
    try:
        got = weather.run(agent, weather.GOAL, weather.dispatch, api)
    except NotImplementedError:
        raise
    except RuntimeError:
        return None
    except AssertionError as err:  # weather.run: the loop made a call the fake did not expect
        return f"went on to call the model again ({err})"
    except Exception as err:
        raise AssertionError(f"a reply cut off at max_tokens raised {type(err).__name__}: "
                             f"{err}; raise RuntimeError") from None
    return f"returned {got!r}"


api = weather.truncated()
out = when_cut_off(api)
assert out is None, (
    f"a reply cut off at max_tokens: agent {out}; truncated is HTTP 200 but not an "
    "answer: raise RuntimeError")
assert len(api.requests) == 1, f"{len(api.requests)} model calls; stop at the cut-off reply"
in_tool = when_cut_off(weather.truncated(in_tool=True))
assert in_tool is None, (
    f"a reply cut off at max_tokens inside a tool_use block: agent {in_tool}; check "
    "stop_reason == 'max_tokens' before running any tool")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

rec = record(first=out, requests=api.requests,
             again=outcome(weather.run, agent, weather.GOAL, weather.dispatch,
                           weather.truncated(in_tool=True)))
### JUDGE
from course.hub import log_of

assert rec["first"] is None, "a reply cut off at max_tokens is not an answer: raise RuntimeError"
made = len(log_of(rec["requests"]))
assert made == 1, f"{made} model calls; stop at the first reply that hit max_tokens"
raised = rec["again"]["raised"]
assert raised is not None and raised["type"] == "RuntimeError", (
    f"a reply cut off at max_tokens inside a tool_use block must raise RuntimeError; got "
    f"{rec['again']}")
### END HIDDEN TESTS

# %% id="refusal_handled" kind="tests" points=1
from course.worlds import weather

api = weather.refusal()
try:
    out = weather.run(agent, weather.GOAL, weather.dispatch, api)
except NotImplementedError:
    raise
except Exception as err:
    raise AssertionError(f"a refusal with no content blocks crashed the loop "
                         f"({type(err).__name__}); check stop_reason == 'refusal' before "
                         "reading text blocks") from None
assert out == "refused: ", (
    f"a refusal with no blocks must return 'refused: ' (the marker, nothing after); got {out!r}")
worded = weather.run(agent, weather.GOAL, weather.dispatch,
                     weather.refusal("I can't help with that.", " Try a public source."))
assert worded == "refused: I can't help with that. Try a public source.", (
    "a refusal with text blocks 'I can't help with that.' and ' Try a public source.' must "
    f"return 'refused: ' + those texts joined with no separator; got {worded!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(reason=("I can't help with locating that person.",
                          "I won't look up a private individual's whereabouts.",
                          "I can't assist with tracking someone down.",
                          "That asks for someone's location, which I can't provide."),
                  more=(" Public records offices may help.", " Try asking them directly.",
                        " A licensed investigator may be able to help."))
rec = record(empty=out, worded=outcome(
    weather.run, agent, weather.GOAL, weather.dispatch, weather.refusal(h.reason, h.more)))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(reason=("I can't help with locating that person.",
                          "I won't look up a private individual's whereabouts.",
                          "I can't assist with tracking someone down.",
                          "That asks for someone's location, which I can't provide."),
                  more=(" Public records offices may help.", " Try asking them directly.",
                        " A licensed investigator may be able to help."))
assert rec["empty"] == "refused: ", (
    f"a refusal with no blocks must return 'refused: '; got {rec['empty']!r}")
worded = rec["worded"]
assert worded["raised"] is None, f"a refusal must never raise; it raised {worded['raised']}"
assert worded["value"] == "refused: " + h.reason + h.more, (
    f"a refusal with text blocks {h.reason!r} and {h.more!r} must return 'refused: ' + its own "
    f"text, the blocks joined with no separator; got {worded['value']!r}")
### END HIDDEN TESTS

# %% id="step_cap" kind="tests" points=2
from course.cassette import ReplayMiss
from course.worlds import weather


def calls_until_cap(max_steps):
    api = weather.endless(limit=3 * max_steps + 10)
    try:
        agent(weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client(),
              max_steps=max_steps)
    except NotImplementedError:
        raise
    except RuntimeError:
        return len(api.requests)
    except ReplayMiss:
        raise AssertionError(f"the loop kept calling past max_steps={max_steps}: bound it "
                             "with `for _ in range(max_steps)`") from None
    raise AssertionError("agent returned an answer from a model that never stopped asking")


made = calls_until_cap(5)
assert made == 5, f"max_steps=5 made {made} model calls; the cap is exactly max_steps calls"
try:
    just = weather.run(agent, weather.GOAL, weather.dispatch, weather.two_step(), max_steps=3)
except RuntimeError as err:
    raise AssertionError(f"the two-step run answers on call 3, yet max_steps=3 raised ({err}); "
                         "raise only when the model still asks for tools after max_steps "
                         "calls") from None
assert just == "It is 14C and raining in Paris.", (
    f"with max_steps=3 the run answers on its 3rd call; got {just!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(low=(1, 2), mid=range(3, 9), high=range(10, 21), short=(1, 2))


def capped(max_steps):
    """What agent raised on a model that never stops, and the requests it made."""
    api = weather.endless(limit=3 * max_steps + 10)
    got = outcome(agent, weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client(),
                  max_steps=max_steps)
    return {"raised": got["raised"], "requests": api.requests}


short_api = weather.two_step()
short = outcome(weather.run, agent, weather.GOAL, weather.dispatch, short_api,
                max_steps=h.short)
rec = record(caps={cap: capped(cap) for cap in (h.low, h.mid, h.high)}, just=just, short=short,
             short_requests=short_api.requests)
### JUDGE
from course.hub import log_of
from course.observe import hidden_inputs

h = hidden_inputs(low=(1, 2), mid=range(3, 9), high=range(10, 21), short=(1, 2))
assert sorted(int(cap) for cap in rec["caps"]) == [h.low, h.mid, h.high], (
    f"expected runs for max_steps {h.low}, {h.mid} and {h.high}; got {sorted(rec['caps'])}")
for cap, run in rec["caps"].items():
    made = len(log_of(run["requests"]))
    assert run["raised"] is not None and run["raised"]["type"] == "RuntimeError", (
        f"max_steps={cap}: a model that never stops must end in RuntimeError; got "
        f"{run['raised']}")
    assert made == int(cap), f"max_steps={cap} made {made} model calls; the cap is exactly {cap}"
assert rec["just"] == "It is 14C and raining in Paris.", (
    f"a reply that answers on call max_steps is returned; got {rec['just']!r}")
short = rec["short"]
assert short["raised"] is not None and short["raised"]["type"] == "RuntimeError", (
    f"two-step run with max_steps={h.short}: still asking for tools after {h.short} call(s) "
    f"must raise RuntimeError; got {short}")
short_calls = len(log_of(rec["short_requests"]))
assert short_calls == h.short, (
    f"two-step run with max_steps={h.short} made {short_calls} model calls; the cap is "
    f"{h.short}")
### END HIDDEN TESTS

# %% [markdown]
# ## Explain
#
# A support agent answers "where are my orders?" for a customer with **5** open orders. Each
# turn the model asks for all 5 `get_order` lookups in parallel; it needs **3** such turns
# (orders, then shipments, then carrier status), then one turn to answer. One round trip
# (prefill plus decode) takes **2.4 s**.
#
# Your loop answers the 5 results of each turn in 5 separate user messages, and the model
# drifts to one call per turn, as described above. How many round trips, and how many
# seconds, does the task take with one-message answers and with split answers? Say by
# which mechanism the split happens to cost this, and why no request ever fails.

# %% [markdown] id="why_one_message" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** Batched: 3 tool turns + 1 answer = **4 round trips ≈ 9.6 s**. Split, the
# model imitates the transcript it is shown (results arriving one at a time) and starts
# calling one tool per turn: 3 × 5 = 15 tool turns + 1 answer = **16 round trips ≈ 38.4 s**,
# 4× slower, and each extra round trip resends the whole growing history, so prompt tokens
# grow too. Nothing errors because the API merges consecutive user turns into one, so the
# split request is valid; only a check on the message shape catches it.
#
# **Mark scheme (3 points).**
# * 1 — numbers: 4 round trips (≈9.6 s) batched against 16 (≈38.4 s) split; accept 15/36 s
#   if the final answer turn is left out of both consistently.
# * 1 — mechanism: the model continues the pattern of its own transcript, so split results
#   teach it to call tools one at a time.
# * 1 — silence: consecutive user turns merge, the API accepts the request, only a test on
#   the request shape (one user message per turn) catches it.
# ### END SOLUTION
