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
#   your function that runs a tool. `client` is an `anthropic.Anthropic` client.
# * **Out:** the model's final text answer.
# * **Raises** `RuntimeError` when the reply was cut off at `max_tokens`, and when the model
#   is still asking for tools after `max_steps` model calls.
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
    print("  block:", block.type, getattr(block, "text", None) or (block.name, block.input))

# %% [markdown]
# The reply holds **two** blocks: a sentence and a `tool_use` with an `id`. The next request
# must repeat both blocks as the assistant turn, and answer the id with a `tool_result` in
# the user turn that follows. That is the whole protocol.
#
# ## The bug it prevents: five failures in ten lines of plumbing
#
# Three of the five fail loudly. Two fail silently, and those are the expensive ones.
# Each runs below against the fake, which checks requests the way the live API does.

# %%
def send(messages, fake):
    """One request on the given fake; returns the reply, or prints the API's 400."""
    try:
        return fake.client().messages.create(model=MODEL, max_tokens=1024,
                                             tools=weather.TOOLS, messages=messages)
    except anthropic.BadRequestError as err:
        print(f"HTTP {err.status_code} {err.body['error']['type']}: {err.body['error']['message']}")


def answer(tool_id, content):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


# Failure 1: keep only the first block's text. The tool_use id vanishes from history.
fake = weather.two_step()
reply = send([{"role": "user", "content": weather.GOAL}], fake)
call = reply.content[1]
send([{"role": "user", "content": weather.GOAL},
      {"role": "assistant", "content": reply.content[0].text},
      {"role": "user", "content": [answer(call.id, weather.dispatch(call.name, call.input))]}],
     fake)

# %%
# Failure 2: three parallel calls, but only two answers (Lima's tool "returned nothing").
fake = weather.three_cities()
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
reply = send([{"role": "user", "content": weather.THREE_CITIES_GOAL}], split_fake)
calls = [b for b in reply.content if b.type == "tool_use"]
split = [{"role": "user", "content": weather.THREE_CITIES_GOAL},
         {"role": "assistant", "content": reply.content}]
split += [{"role": "user", "content": [answer(b.id, weather.WEATHER[b.input["city"]])]}
          for b in calls]
final = send(split, split_fake)
print("answer:", final.content[0].text)

sent = split_fake.requests[-1]["messages"]
carriers = [m for m in sent if m["role"] == "user" and isinstance(m["content"], list)]
print(f"{len(calls)} parallel calls were answered in {len(carriers)} separate user messages")

# %% [markdown]
# Nothing failed, and the answer is right. But the transcript the model reads next now
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
        ask = r.content[0]
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
#     if reply is a refusal:          return a refusal note # content may be empty
#     if reply asks for no tool:      return its text
#     history += assistant turn with ALL of reply's blocks
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
# Check `stop_reason` in this order: `max_tokens`, `refusal`, then "anything that is not
# `tool_use` is an answer". A truncated reply looks like an answer; a refusal may have no
# text block at all.

# %% id="agent" kind="solution"
def agent(goal, tools, dispatch, *, client, max_steps=12):
    """Run the tool-calling loop for ``goal`` and return the model's final text.

    goal      -- the user's request, a string
    tools     -- tool definitions to offer the model (a list of dicts)
    dispatch  -- dispatch(name, args) runs one tool and returns its result
    client    -- an anthropic.Anthropic client (the fake one, in this course)
    max_steps -- the most model calls to make before giving up

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
            return "The model declined this request."
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
# Run this cell for a quick signal. It is **not** the grade: hidden tests check more
# (parallel calls, unanswered ids, tool errors, truncation, refusals and the step cap).

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
out = agent(weather.GOAL, weather.TOOLS, calls, client=api.client())
assert out == "It is 14C and raining in Paris.", f"expected the model's final text, got {out!r}"
### BEGIN HIDDEN TESTS
assert calls.calls == [("get_capital", {"country": "France"}), ("get_weather", {"city": "Paris"})], (
    f"tools ran as {calls.calls}; the trace must be get_capital(France) then get_weather(Paris)")
assert len(api.requests) == 3, (
    f"{len(api.requests)} model calls; two tool rounds and one answer make exactly 3")
assert api.requests[0]["messages"][0]["content"] in (
    weather.GOAL, [{"type": "text", "text": weather.GOAL}]), "the first message must be the goal"
### END HIDDEN TESTS

# %% id="all_blocks_kept" kind="tests" points=2
from course.worlds import weather

api = weather.two_step()
agent(weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client())
### BEGIN HIDDEN TESTS
kept = weather.assistant_blocks(api.requests[1])
kinds = [b.get("type") for b in kept]
assert kinds == ["text", "tool_use"], (
    f"the assistant turn was resent with blocks {kinds}; append reply.content (ALL blocks: "
    "the text AND the tool_use), not just the text or just the tool calls")
assert kept[1]["id"] == "toolu_01CapitalFrance00000" and kept[0]["text"], (
    "the resent assistant turn must be the reply's own blocks, unchanged")
### END HIDDEN TESTS

# %% id="parallel_results_one_message" kind="tests" points=2
from course.worlds import weather

api = weather.three_cities()
agent(weather.THREE_CITIES_GOAL, weather.TOOLS, weather.dispatch, client=api.client())
### BEGIN HIDDEN TESTS
carriers = weather.result_messages(api.requests[1])
assert len(api.requests) == 2, f"{len(api.requests)} model calls; one tool round + answer is 2"
assert len(carriers) == 1, (
    f"tool results were split across {len(carriers)} user messages; answer all tool_use ids "
    "in ONE message, or the transcript teaches the model to call tools one at a time "
    "(3 round trips instead of 1)")
assert len(weather.tool_results(api.requests[1])) == 3, "all three results belong in that message"
### END HIDDEN TESTS

# %% id="every_id_answered" kind="tests" points=2
from course.worlds import weather


def lima_returns_nothing(name, args):
    return None if args.get("city") == "Lima" else weather.dispatch(name, args)


api = weather.three_cities()
agent(weather.THREE_CITIES_GOAL, weather.TOOLS, lima_returns_nothing, client=api.client())
### BEGIN HIDDEN TESTS
ids = [b["tool_use_id"] for b in weather.tool_results(api.requests[1])]
assert ids == ["toolu_01WeatherParis0000A", "toolu_01WeatherTokyo0000B",
               "toolu_01WeatherLima00000C"], (
    f"answered ids {ids}: every tool_use id needs a tool_result, even when the tool returned "
    "nothing (the API rejects unanswered ids with a 400)")
### END HIDDEN TESTS

# %% id="tool_error_as_data" kind="tests" points=2
from course.worlds import weather

api = weather.typo_then_fix()
try:
    out = agent(weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client())
except KeyError as err:
    raise AssertionError(f"the tool's KeyError {err} escaped the loop; catch it and return "
                         "it to the model as a tool_result with is_error=True") from None
### BEGIN HIDDEN TESTS
first = weather.tool_results(api.requests[1])[0]
assert first.get("is_error") is True, (
    "a failing tool must come back as a tool_result with is_error=True so the model can react")
assert "Pariss" in str(first.get("content")), "the error text should reach the model"
assert out == "It is 14C and raining in Paris.", (
    f"given the error, the model fixes the typo and answers; got {out!r}")
### END HIDDEN TESTS

# %% id="max_tokens_fails_loudly" kind="tests" points=1
from course.worlds import weather

api = weather.truncated()
try:
    out = agent(weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client())
except NotImplementedError:
    raise
except RuntimeError:
    out = None
### BEGIN HIDDEN TESTS
assert out is None, (
    f"returned {out!r} for a reply that stopped at max_tokens; a truncated reply is HTTP 200 "
    "but not an answer: raise RuntimeError")
### END HIDDEN TESTS

# %% id="refusal_handled" kind="tests" points=1
from course.worlds import weather

api = weather.refusal()
### BEGIN HIDDEN TESTS
try:
    out = agent(weather.GOAL, weather.TOOLS, weather.dispatch, client=api.client())
except Exception as err:
    raise AssertionError(f"a refusal with empty content crashed the loop "
                         f"({type(err).__name__}); check stop_reason == 'refusal' before "
                         "reading text blocks") from None
assert isinstance(out, str) and out.strip(), (
    f"return a short note saying the model declined, got {out!r}")
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


### BEGIN HIDDEN TESTS
for cap in (5, 12):
    made = calls_until_cap(cap)
    assert made == cap, f"max_steps={cap} made {made} model calls; the cap is exactly {cap}"
### END HIDDEN TESTS

# %% [markdown]
# ## Explain
#
# Why must the results of parallel tool calls travel back in **one** user message? Name the
# mechanism, say why the API does not stop you, and give the number it costs on the
# three-city question.

# %% [markdown] id="why_one_message" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** The model predicts a continuation of the transcript it is shown. When
# three parallel calls are answered in three messages, the transcript becomes a worked
# example of "tools are answered one at a time", and the next forward pass imitates it:
# the agent stops batching calls. The API merges consecutive user turns, so the request is
# valid and nothing errors. Each tool then needs its own round trip (a full prefill of the
# growing history plus a decode), so three calls cost 3 round trips instead of 1: about 3×
# the wall-clock time, and more prompt tokens, with no error anywhere.
#
# **Mark scheme (3 points).**
# * 1 — mechanism: the model imitates the shape of its own transcript (in-context pattern),
#   so split results teach sequential calling.
# * 1 — silence: the API accepts it (consecutive user turns merge), so only a test on the
#   message shape catches it.
# * 1 — number: 3 round trips instead of 1 for the three-city question (≈3× slower), each
#   round trip resending the whole history.
# ### END SOLUTION
