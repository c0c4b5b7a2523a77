# %% [markdown]
# # Lecture 4 — Owning the loop: context is a cache
#
# **Points:** 26 autograded + 6 written = 32.
#
# You have used agents and judged them from the outside. Today you write one, and make explicit the four
# decisions every framework has already made for you: **what goes into the context**, **when
# to call a tool**, **when to stop**, and **what to do when something fails**. The
# centrepiece is the first of these: context management is admission and eviction against a
# fixed-capacity cache whose misses are silent.
#
# **You implement**
#
# ```python
# run_loop(task, *, client, tools, dispatch, max_steps=8) -> str          # §4.1, live-coded
# tokens(entries) -> int                                                   # §4.3
# assemble_keep_until_full(transcript, budget) -> list
# assemble_sliding_window_pinned(transcript, budget, W=3000) -> list
# assemble_summarize_and_compact(transcript, budget, trigger=3000, target=500, *, summarize) -> list
# ledger(assemble, *, preamble, per_turn, turns,
#        spikes=None, cap=None, cap_in="tool", limit=None) -> LedgerReport
# retry_allowed(state, *, idempotent) -> bool                              # §4.5
# with_request_key(tool, *, table) -> call(entry)                          # §4.5
# ```
#
# * **In:** a transcript is a list of entries, dicts with an `"id"`, a `"kind"`, the
#   `"turn"` that added them and a `"tokens"` size. `budget.context_limit` is the model's
#   limit. `summarize(history, target)` is the (fake) summarizing model call.
# * **Out:** each `assemble_*` returns the context to send; `ledger` returns a
#   `LedgerReport` (tokens per turn, cumulative, compaction traffic, held, the turn a window
#   binds, the turn of an overflow, and the eviction log); `retry_allowed` says whether a
#   tool call that ended in `state` may be sent again; `with_request_key` wraps a write so
#   that a replayed call commits once.
#
# Everything runs offline: the model is a scripted fake behind the real Anthropic SDK.

# %% [markdown] kind="instructor"
# ### Instructor notes — plan for the 75 minutes
#
# | min | segment | what to protect |
# |---|---|---|
# | 0–5 | framing | "You used agents; now you own the loop." Promise the Assignment 2 briefing at the end. |
# | 5–17 | §4.1 the loop | Type the loop into the `run_loop` cell line by line; do not paste it. |
# | 17–27 | §4.2 tool interfaces | Weak vs good schema, then 16 × 20,000 = 320,000 on the board. Keep it brisk. |
# | 27–47 | §4.3 context as a cache | The lecture. Policies live, then the three-policy table column by column. All 20 minutes. |
# | 47–56 | §4.4 control flow | Finish on "a dependency graph of model calls, generated while it runs". |
# | 56–70 | §4.5 failures | The state machine as six boxes; "a timeout means you learned nothing". |
# | 70–75 | assignment | Deadlines said out loud; a small agent with good measurements beats an ambitious broken one. |
#
# Reading only, one sentence each in class: the three assemble bodies and the spiky-session
# caveat of §4.3. **Running long:** shrink §4.4 to five minutes (keep sub-agents as context
# isolation, drop parallel calls) and §4.5's state machine to the single timeout sentence.
# **Never cut §4.3.**

# %%
import json

from course import tokens as token_counter
from course.worlds import context_cache as cc

MODEL = cc.MODEL
print("task: ", cc.TASK)
print("tools:", [t["name"] for t in cc.TOOLS])

# %% [markdown]
# ## 4.1 The loop, as code you own
#
# An agent is a `for` loop around a model call. Four places in it are decisions, and every
# framework you might import is a set of answers to them:
#
# ```text
# transcript = [task]
# repeat at most max_steps times:                  ← decision 3b: an external bound
#     context = assemble(transcript)               ← decision 1: what the model may know
#     reply   = model(context, tool schemas)
#     transcript += reply
#     if reply asks for no tool: return its text   ← decision 3a: the model says it is done
#     for each tool call in reply:                 ← decision 2: act on the world
#         result = invoke(call)                    ← decision 4: a failure becomes data
#     transcript += ONE message with every result
# give up: the bound was reached
# ```
#
# The four decisions depend on the workload, so any framework's defaults are wrong for
# somebody, and quietly: one that drops the middle of your transcript when it stops
# fitting has made decision 1 for you, and the result is a confident wrong answer, not an
# error. Write it yourself, in the cell below, and label each decision where it is made.

# %% [markdown] kind="instructor"
# ### Instructor notes — §4.1 (12 minutes)
#
# **Board.** Type the loop into the `run_loop` stub in front of the room, one line at a
# time, and stop at each of the four labels to ask what can go wrong there. Do not show a
# finished version first: seeing it appear line by line is what makes it feel small enough
# to own. Leave the loop visible all class; §4.3 and §4.5 point back to its lines.
#
# **Ask the room.** "Which line of this does a framework most often get wrong for you, and
# how would you notice?"
#
# **Expected confusion.** People who used a framework believe agents are architecturally
# complex. Answer: the loop is about fifteen lines; the complexity is policy inside
# `assemble` and `invoke`, which is where their work goes.
#
# **Short on time.** Skip the framework-defaults aside; keep the four labels.

# %% id="run_loop" kind="solution"
def run_loop(task, *, client, tools, dispatch, max_steps=8):
    """Run the agent loop on ``task`` and return the model's final text.

    client    -- an anthropic.Anthropic client (here: the fake)
    tools     -- tool definitions offered to the model
    dispatch  -- a dict from tool name to a Python function called with the tool's input
                 as keyword arguments (a dict here, not a dispatch function)
    max_steps -- the most model calls to make; after that raise RuntimeError (an answer
                 that comes on call max_steps itself is still returned)

    Every model call sends the whole transcript so far: the task as the first user
    message, then each assistant reply and the user message with its results, and
    tools=tools. A reply that asks for no tool ends the loop, whatever its stop_reason
    ("end_turn", "max_tokens", ...): return its text blocks joined with no separator.
    Otherwise call every tool it asks for, and send all the results back in ONE user
    message, in the order of the calls.

    A tool's result goes back as JSON text: tool_result content is json.dumps(result),
    not str(result) (a Python dict's repr is not JSON). A tool that raises must not end
    the loop: send the error back as a tool_result with is_error=True, with the exception's
    message in its content, and go on. Whatever the tool raises (FileNotFoundError,
    TypeError for a wrong argument name, ...) is caught. Label each of the four decisions
    with a comment.
    """
    ### BEGIN SOLUTION
    transcript = [{"role": "user", "content": task}]
    for _ in range(max_steps):                      # decision 3b: an external bound
        context = list(transcript)                  # decision 1: what goes in (all of it)
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=context)
        transcript.append({"role": "assistant",
                           "content": [b.model_dump(exclude_none=True) for b in reply.content]})
        if reply.stop_reason != "tool_use":         # decision 3a: the model says it is done
            said = [b.text for b in reply.content if b.type == "text"]
            return "".join(said)
        answers = []
        for call in [b for b in reply.content if b.type == "tool_use"]:   # decision 2: act
            try:                                    # decision 4: a failure becomes data
                out, failed = dispatch[call.name](**call.input), False
            except Exception as exc:
                out = {"error": f"{type(exc).__name__}: {exc}",
                       "hint": "check the arguments, or use another tool"}
                failed = True
            answers.append({"type": "tool_result", "tool_use_id": call.id,
                            "content": json.dumps(out), "is_error": failed})
        transcript.append({"role": "user", "content": answers})
    raise RuntimeError(f"no final answer after {max_steps} model calls")
    ### END SOLUTION

# %% [markdown]
# Run it against the scripted model. It first asks for a file that does not exist, then
# searches, then reads the right page, then answers. Watch the request grow: every call
# re-sends everything before it.

# %%
from course.live import Inspector  # noqa: E402

api = cc.docs_api()
inspector = Inspector(api)   # attach before the first request: one row per request
inspector.show()
answer = run_loop(cc.TASK, client=api.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
print("answer:", answer)
for n, body in enumerate(api.requests, 1):
    print(f"request {n}: {len(body['messages'])} messages, "
          f"~{token_counter.request_tokens(body):,} input tokens")

# %% id="loop_runs_on_fake" kind="tests" points=2
import json

from course.worlds import context_cache as cc

api = cc.docs_api()
out = run_loop(cc.TASK, client=api.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
assert isinstance(out, str) and cc.CACHE_FACT in out, (
    f"final answer does not quote the page the model read; send tool results as JSON text "
    f"(json.dumps), not str(dict). Got {out!r}")
_sizes = [len(body["messages"]) for body in api.requests]
assert _sizes == [1, 3, 5, 7], (
    f"messages per request were {_sizes}, expected [1, 3, 5, 7]: every call sends the whole "
    "transcript (the task, then each reply and ONE user message with its results)")
_head = api.requests[0]["messages"][0]
assert _head.get("role") == "user" and cc.block_text(_head.get("content")) == cc.TASK, (
    f"the first message must be the task as a user message, got {_head!r}")
_offered = [[t.get("name") for t in body.get("tools") or []] for body in api.requests]
assert _offered == [["search_docs", "read_file"]] * 4, (
    f"tools offered per request: {_offered}; pass tools=tools on every model call")
_err = cc.result_blocks(api.requests[1])
assert len(_err) == 1 and _err[0].get("is_error") is True, (
    "read_file raised FileNotFoundError: it must come back to the model as a tool_result "
    f"with is_error=True, not end the loop; got {_err}")
assert "no such file" in cc.block_text(_err[0].get("content")), (
    "the error result must carry the exception's message ('no such file: ...'), got "
    f"{_err[0].get('content')!r}")
_hit = cc.result_blocks(api.requests[2])
assert len(_hit) == 1 and not _hit[0].get("is_error"), (
    f"search_docs worked, so its result must not be marked is_error; got {_hit}")
assert json.loads(cc.block_text(_hit[0].get("content"))) == cc.search_docs("cache"), (
    "the search result must go back as json.dumps(result) of what the tool returned; got "
    f"{_hit[0].get('content')!r}")
_par = cc.parallel_api()
try:
    _said = run_loop(cc.TASK, client=_par.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
except Exception as _exc:  # noqa: BLE001 - the message below says what went wrong
    _said = f"raised {type(_exc).__name__}: {_exc}"
_two = cc.result_blocks(_par.requests[1]) if len(_par.requests) > 1 else []
assert [bool(b.get("is_error")) for b in _two] == [False, True], (
    "one reply asked for search_docs and for read_file(file=...), which raises TypeError: "
    f"expected two results, is_error [False, True], got {_two}; catch any Exception ({_said})")
_asked = [b["id"] for b in _par.requests[1]["messages"][1]["content"] if b["type"] == "tool_use"]
assert [b["tool_use_id"] for b in _two] == _asked, (
    f"results must follow the order of the calls {_asked}, got {[b['tool_use_id'] for b in _two]}")
assert [len(b["messages"]) for b in _par.requests] == [1, 3], (
    f"messages per request were {[len(b['messages']) for b in _par.requests]}, expected [1, 3]: "
    "both results of one reply go back in ONE user message")
assert _said == cc.PARALLEL_WORDS + cc.CACHE_FACT, (
    f"the last reply has two text blocks; return them joined with no separator (''.join), "
    f"got {_said!r}")
_cut = cc.cut_off_api()
try:
    _short = run_loop(cc.TASK, client=_cut.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
except Exception as _exc:  # noqa: BLE001
    _short = f"raised {type(_exc).__name__}: {_exc}"
assert _short == cc.CUT_WORDS and len(_cut.requests) == 1, (
    f"a reply with stop_reason 'max_tokens' asks for no tool: return its text after 1 call; got "
    f"{_short!r} after {len(_cut.requests)} calls (test stop_reason != 'tool_use')")


def _bounded(**steps):
    fake = cc.restless_api()
    try:
        run_loop(cc.TASK, client=fake.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH, **steps)
        ended = "returned"
    except RuntimeError:
        ended = "RuntimeError"
    except Exception as exc:  # noqa: BLE001
        ended = type(exc).__name__
    return ended, len(fake.requests)


assert _bounded(max_steps=3) == ("RuntimeError", 3), (
    f"a model that never stops, max_steps=3: got {_bounded(max_steps=3)}, expected "
    "('RuntimeError', 3): make exactly max_steps model calls, then raise RuntimeError")
assert _bounded() == ("RuntimeError", 8), (
    f"with the default max_steps=8: got {_bounded()}, expected ('RuntimeError', 8)")
_tight = cc.docs_api()
try:
    _just = run_loop(cc.TASK, client=_tight.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH,
                     max_steps=4)
except Exception as _exc:  # noqa: BLE001
    _just = f"raised {type(_exc).__name__}"
assert cc.CACHE_FACT in _just, (
    f"the docs task answers on call 4, so max_steps=4 must return that answer, got {_just!r}")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

bounded = cc.restless_api()
capped = outcome(run_loop, cc.TASK, client=bounded.client(), tools=cc.TOOLS,
                 dispatch=cc.DISPATCH, max_steps=3)
parallel = cc.parallel_api()
par_out = outcome(run_loop, cc.TASK, client=parallel.client(), tools=cc.TOOLS,
                  dispatch=cc.DISPATCH)
cut = cc.cut_off_api()
cut_out = outcome(run_loop, cc.TASK, client=cut.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
rec = record(out=out, requests=api.requests, capped=capped, bounded=bounded.requests,
             par_out=par_out, par_requests=parallel.requests, cut_out=cut_out,
             cut=cut.requests)
### JUDGE
from course.hub import log_of
from course.worlds import context_cache as cc

assert isinstance(rec["out"], str) and cc.CACHE_FACT in rec["out"], (
    f"final answer does not quote the page the model read; send tool results as JSON text "
    f"(json.dumps), not str(dict). Got {rec['out']!r}")
reqs = log_of(rec["requests"])
assert len(reqs) == 4, (
    f"{len(reqs)} model calls; a failed read, a search, a read and an answer make 4")
first = cc.result_blocks(reqs[1])
assert len(first) == 1 and first[0].get("is_error") is True, (
    "read_file raised FileNotFoundError: it must come back to the model as a tool_result "
    "with is_error=True, not end the loop")
sizes = [len(body["messages"]) for body in reqs]
assert sizes == [1, 3, 5, 7], (
    f"messages per request were {sizes}; each call must carry the whole transcript "
    "(task, then every assistant turn and its results)")
raised = rec["capped"]["raised"]
assert raised is not None and raised["type"] == "RuntimeError", (
    "a model that never stops asking must end in RuntimeError after max_steps calls; "
    f"got {rec['capped']}")
n_bounded = len(log_of(rec["bounded"]))
assert n_bounded == 3, f"max_steps=3 made {n_bounded} model calls; the bound is exactly 3"
assert rec["par_out"]["value"] == cc.PARALLEL_WORDS + cc.CACHE_FACT, (
    f"two tool calls in one reply, then two text blocks: got {rec['par_out']}")
par = log_of(rec["par_requests"])
assert [len(body["messages"]) for body in par] == [1, 3], (
    "the results of one reply go back in ONE user message")
assert [bool(b.get("is_error")) for b in cc.result_blocks(par[1])] == [False, True], (
    "a tool that raises TypeError becomes a result with is_error=True; the other stays ok")
assert rec["cut_out"]["value"] == cc.CUT_WORDS and len(log_of(rec["cut"])) == 1, (
    f"a reply that asks for no tool ends the loop whatever its stop_reason: {rec['cut_out']}")
### END HIDDEN TESTS

# %% [markdown]
# ## 4.2 Tool interfaces are API design, for an unusual client
#
# The client of a tool reads its documentation at call time, every time, and no compiler
# checks it. The schema *is* the documentation. Here is the tool as a hurried engineer
# writes it, beside the same tool written for a stranger who must use it right first time:

# %%
for schema in (cc.WEAK_SEARCH_SCHEMA, cc.SEARCH_DOCS_SCHEMA):
    print(json.dumps(schema, indent=1)[:700])
    missing = [q for q, ok in cc.schema_checklist(schema).items() if not ok]
    print("  unanswered:", missing or "nothing", "\n")

# %% [markdown]
# Each sentence of the good description removes a class of failed call: what it covers, what
# it does not, how big and what shape the result is, and which tool comes next.
#
# **Errors are data, not exceptions.** An exception that leaves `invoke` kills the loop; a
# returned `{"error": ..., "hint": ...}` gives the model something to act on. Above, the
# first `read_file` raised, and the model recovered because the loop handed it the error:

# %%
try:
    cc.read_file("docs/cache.md")
except FileNotFoundError as err:
    print("a loop without a try would stop here:", type(err).__name__, err)
print("what the model saw instead:", cc.result_blocks(api.requests[1])[0]["content"])

# %% [markdown]
# **Output size is a multiplier.** Tool output enters the context, and the context is
# re-sent on every later call. Take the session of §4.3 (20 model calls). A tool that dumps
# 20,000 tokens at step 4 rides in every prompt after it under keep-until-full:

# %%
session_turns, spike_step, spike = cc.NOTES_SESSION["turns"], cc.SPIKE_STEP, cc.SPIKE_TOKENS
prompts_carrying_it = session_turns - spike_step
print(f"{prompts_carrying_it} prompts × {spike:,} tokens = {prompts_carrying_it * spike:,} "
      "prompt tokens for one tool result")
print(f"everything else in the session: {cc.closed_form(**cc.NOTES_SESSION):,} prompt tokens")

# %% [markdown]
# That is more than three times everything else the task submits. So the cap belongs in the
# tool, where the output is produced, not in `assemble`, where it has already been paid for
# at least once (exercise 3 below prices the difference).
#
# **Idempotency, because retries are routine.** A write is idempotent if doing it twice
# leaves the world as doing it once. Setting a field is idempotent by nature; creating an
# invoice is not. Here is `post_invoice` behind a link that loses the *answer* after the
# write committed, and a client that "just retries on error":

# %%
book = cc.InvoiceBook()
link = cc.Link(cc.keyless(book.post_invoice), fates=[cc.RESPONSE_LOST])
call = {"name": "post_invoice", "input": {"customer_id": "c-17", "amount_cents": 12_900}}
for attempt in (1, 2, 3):
    try:
        print(f"attempt {attempt}:", link(call))
        break
    except cc.ToolTimeout as err:
        print(f"attempt {attempt}: {err} -> retrying")
print(f"invoices created: {len(book.rows)}; customer billed {book.charged('c-17'):,} cents "
      "for one 12,900-cent order")

# %% [markdown]
# Two charges on one card. In §4.5 you build the fix: a request key, minted when the call is
# issued and stored in the transcript, that the write deduplicates on.

# %% [markdown] kind="instructor"
# ### Instructor notes — §4.2 (10 minutes)
#
# **Board.** Put only the weak schema up; take three fixes from the room; then reveal the good
# one and tick off which suggestions it contains (faster and it sticks better than presenting
# both). Then write 16 × 20,000 = 320,000 in a corner and leave it: it is the number they
# will remember.
#
# **Ask the room.** "Your tool hits a rate limit. Do you raise, or return a string? Why?"
#
# **Expected confusion.** The description is treated as a comment. Answer: it is the only
# documentation the caller will ever read, and it reads it fresh on every call.
#
# **Common wrong answer.** "Just retry on error." Point at the double charge above, and
# forward to §4.5.

# %% [markdown]
# ## 4.3 Context management is a cache policy
#
# You have a fixed-capacity store, a cost model in which everything stored is charged on
# every access (the whole context is re-sent every call), and a workload whose future you
# cannot see. Deciding what stays in the window is admission and eviction. It is a cache.
#
# | policy | evicts first | what it gives up |
# |---|---|---|
# | keep until full | nothing, until it dies | every kept token re-sent each step; fails abruptly on the first long task |
# | drop oldest (FIFO) | the task statement | the entry with the longest reuse distance and the highest value |
# | summarize and compact | the detail of old turns | a paid model call, and whatever the summary left out |
# | retrieve on demand | everything not fetched | depends on retrieval quality |
# | pin the essential | the unpinned history | a pinned working set: system prompt, tools, task, current sub-goal |
#
# The **working set** is the part of the transcript the next few decisions depend on, and
# it moves: while the agent reads a file, the file matters and the earlier search results do
# not. A good `assemble` tracks the working set; a bad one tracks recency and hopes.
#
# The analogy breaks in one place. A CPU cache miss is slow. A context miss is **silent**:
# evict the constraint the user stated in turn 2 and nothing raises, no counter moves, and
# the model fluently violates a requirement it can no longer see. So keep what you are unsure
# about, and **log every eviction**: that log is your only evidence when the answer is wrong.
#
# (This is the design-side cache. The engine's KV cache sits underneath and decides whether a
# re-sent prefix is recomputed or looked up. One decides what the model may know; the other
# whether re-reading it is free.)
#
# ### The request grows on every step
#
# The request is not the log: it is computed from the log every step. With keep-everything
# it is the whole log, so it grows by one turn's worth each step until it hits the limit:

# %%
grow_turns = 60
keep_everything = [2_000 + 300 * (k - 1) for k in range(1, grow_turns + 1)]
crossing = next(k for k, size in enumerate(keep_everything, 1) if size > cc.EXERCISE1_LIMIT)
cc.show_figure(cc.draw_ledgers({"keep everything": keep_everything},
                               limit=cc.EXERCISE1_LIMIT,
                               title="The request re-sends the whole log every step"))
print(f"2,000-token preamble + 300 tokens a step: the request passes "
      f"{cc.EXERCISE1_LIMIT:,} tokens at step {crossing}")

# %% [markdown]
# ### The session, stated as an assumption
#
# To compare policies fairly, fix the session: a **2,000-token pinned preamble** (system
# prompt and task statement), exactly **300 tokens appended per turn** (the model's tool call
# plus the tool's result), **20 turns**. Turn *k*'s prompt holds the preamble and what turns
# 1 … *k*−1 appended: turn *k*'s own append arrives *after* its model call. So keep-until-full
# submits 2,000 + 300·(*k*−1) at turn *k*, and over *n* turns
#
# $$\text{cumulative} = n\,P + a\,\frac{n(n-1)}{2} = 20 \cdot 2{,}000 + 300 \cdot 190 = 97{,}000.$$
#
# It is *n*(*n*−1)/2, not *n*(*n*+1)/2: counting a turn's own append in its own prompt is
# an off-by-one worth 6,000 tokens here (one of the bugs the graders look for).
#
# ### The bug: a compaction that does not persist
#
# A natural way to write compaction takes the history as a slice, `transcript[2:]`, and
# then writes the summary into it with `history[:] = [summary]`. It reads as if it replaced
# the history. But a slice is a *new list*: that write changes the copy and leaves the
# transcript untouched. The figures of this section ("fires once", 75,100) need the
# compaction to persist. Run that body:

# %%
def compaction_as_printed(transcript, budget, trigger=3_000, target=500):
    older = transcript[2:]                              # a slice is a new list ...
    if sum(e["tokens"] for e in older) > trigger:
        older[:] = [cc.summarize(older, target)]        # ... so this rewrites the copy only
    return transcript[:2] + older


def drive(policy, preamble=2_000, per_turn=300, turns=20):
    """Run a policy over the session; return prompt sizes and the summaries it made."""
    log = cc.preamble_entries(preamble)
    prompts, made = [], {}
    for k in range(1, turns + 1):
        window = policy(log, cc.Budget())
        prompts.append(sum(e["tokens"] for e in window))
        made.update({e["id"]: e["usage"]["input_tokens"]
                     for e in window if e["kind"] == "summary"})
        log.append(cc.step_entry(k, per_turn))
    return prompts, made


prompts, made = drive(compaction_as_printed)
print(f"compactions: {len(made)} (one per turn from turn 12 on), "
      f"compaction traffic {sum(made.values()):,} tokens")
print(f"loop {sum(prompts):,} + compaction {sum(made.values()):,} = "
      f"{sum(prompts) + sum(made.values()):,} tokens: MORE than keeping everything (97,000)")

# %% [markdown]
# The transcript never shrinks, so the history is over the trigger again on every later turn,
# and every turn pays a fresh summarizing call over a longer history. The "cheapest" policy
# becomes the dearest, and nothing fails. Your version must **write the summary back into the
# transcript**, so that the next turn sees 500 tokens of summary and not 3,600 of raw turns.
#
# ### Tier 1 — pseudocode
#
# ```text
# tokens(entries)             = sum of the entries' sizes
# keep_until_full(T)          : if tokens(T) > limit: raise ContextOverflow   (refusing is a decision)
#                               send all of T
# window_pinned(T, W)         : pinned, history = T[:2], T[2:]
#                               while tokens(history) > W: drop the oldest      ← the silent line
#                               send pinned + history
# compact(T, trigger, target) : if the history is over the trigger:
#                                   summarize it, and decide WHERE the summary goes  ← the
#                                   next turn must see it, not the raw turns again
#                               send the pinned entries and the history as it now is
# ledger(policy, P, a, n)     : T = the pinned preamble (P tokens)
#                               for turn k = 1..n:
#                                   context = policy(T)       (overflow? note the turn, stop)
#                                   record tokens(context); add each NEW summary's input
#                                   tokens to the compaction traffic; log every appended
#                                   entry that is missing from the context for the first time
#                                   only now append turn k's 300 tokens (and any spike)
# ```
#
# Frameworks ship these policies as message trimmers and summarizing memories; what they
# rarely ship is the eviction log. The ledger is where you add it.

# %% [markdown]
# ## Implement the policies and the ledger
#
# Entries are dicts; `cc.preamble_entries(P)` gives the two pinned ones, `cc.step_entry(k,
# size)` a turn's append, `cc.tool_output(k, size)` an extra tool result (a spike).
# `cc.summarize(history, target)` returns one summary entry whose `"usage"` records the
# model call it stands for.

# %% id="tokens" kind="solution"
from course.tokens import count as count_tokens


def tokens(entries):
    """Total tokens in a list of entries.

    An entry with a "tokens" field counts that many; any other entry (e.g. an API message
    dict) is counted with course.tokens.count on its "content" (or on the whole entry).
    """
    ### BEGIN SOLUTION
    total = 0
    for entry in entries:
        if "tokens" in entry:
            total += entry["tokens"]
        else:
            total += count_tokens(entry.get("content", entry))
    return total
    ### END SOLUTION

# %% id="keep_until_full" kind="solution"
from course.worlds.context_cache import Budget, ContextOverflow


def assemble_keep_until_full(transcript, budget):
    """Send the whole transcript; raise ContextOverflow if it exceeds budget.context_limit.

    Every entry counts, the pinned ones too. A transcript of exactly the limit fits.
    """
    ### BEGIN SOLUTION
    need = tokens(transcript)
    if need > budget.context_limit:
        raise ContextOverflow(f"{need:,} tokens do not fit a {budget.context_limit:,} limit")
    return list(transcript)
    ### END SOLUTION

# %% id="sliding_window" kind="solution"
def assemble_sliding_window_pinned(transcript, budget, W=3000):
    """Pin transcript[:2]; of the rest keep the newest entries whose total is at most W.

    Evict from the oldest end, and only while the history is strictly over W.
    Do not modify ``transcript``.

    W counts the history only, never the two pinned entries. What is kept is a run of
    consecutive entries ending at the newest one, in transcript order: an old small entry
    behind a big one is evicted with it, not kept.
    """
    ### BEGIN SOLUTION
    pinned, history = transcript[:2], list(transcript[2:])
    while history and tokens(history) > W:
        history.pop(0)              # the silent line: only the ledger records what left
    return pinned + history
    ### END SOLUTION

# %% id="summarize_and_compact" kind="solution"
def assemble_summarize_and_compact(transcript, budget, trigger=3000, target=500, *, summarize):
    """Pin transcript[:2]. If the rest is strictly over ``trigger`` tokens, replace it with
    ``summarize(rest, target)`` IN THE TRANSCRIPT (so the compaction persists), then send
    the pinned entries plus what the history now is.

    Only the rest counts toward the trigger, never the pinned entries, and a rest of exactly
    ``trigger`` tokens is left alone. summarize reads the rest only (a summary already in
    it is read again with the newer turns) and is called at most once per call; after it the
    transcript is the pinned pair plus that one summary entry.
    """
    ### BEGIN SOLUTION
    pinned, history = transcript[:2], transcript[2:]
    if tokens(history) > trigger:
        history = [summarize(history, target)]
        transcript[2:] = history    # persist: the next turn must see the summary, not the turns
    return pinned + history
    ### END SOLUTION

# %% id="ledger" kind="solution"
from course.worlds.context_cache import (
    Eviction,
    LedgerReport,
    preamble_entries,
    step_entry,
    tool_output,
)


def ledger(assemble, *, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=None):
    """Run ``assemble(transcript, budget)`` over a synthetic session; return a LedgerReport.

    The transcript starts as preamble_entries(preamble). On turn k (1..turns): assemble the
    context and submit it; THEN append step_entry(k, per_turn), plus tool_output(k, size)
    if spikes has an entry {k: size} (the step first, then the spike). Do not modify the
    caller's ``spikes``. ``assemble`` is called as assemble(transcript, budget) with
    budget = Budget(context_limit=limit), or Budget() when limit is None; the tokens of a
    context are measured with tokens().

    cap, cap_in -- cap a spike's size. cap_in="tool": the tool returns at most ``cap``
                   tokens. cap_in="assemble": the spike is stored whole and rides in full in
                   the first prompt that carries it, then is trimmed to ``cap`` for later turns.
                   A spike already at most ``cap`` keeps its size; step entries are never
                   capped. cap=None caps nothing.
    limit       -- the context limit (None: unlimited). A turn whose context does not fit, or
                   whose assemble raises ContextOverflow, is the overflow turn; the run stops.
                   A context of exactly ``limit`` tokens fits.

    Report: tokens submitted per turn, their sum, the compaction traffic (the input tokens
    of each summary the first time it appears), the context held on the last turn, the
    first turn anything appended was missing (binds_at), the overflow turn, and one
    Eviction(turn, entry id, origin turn, tokens) for each entry the first time it is gone.
    An entry is gone when it is missing from a turn's context, whether the policy left it
    out or removed it from the transcript. The log is in turn order, and within a turn in
    the order the entries were appended. With no turn run, held is 0; binds_at and
    overflow_at are None when nothing was missing or nothing overflowed.

    Precisely: only appended entries (preamble, steps, spikes) enter the eviction log, never
    summaries; Eviction.tokens is the entry's size when it went (a spike trimmed by
    cap_in="assemble" is logged at the trimmed size); with cap_in="assemble" a spike is
    trimmed only after a prompt carried it, so a policy that never carries it never trims
    it; the overflow turn is not in ``submitted`` (nothing was sent on it).
    """
    ### BEGIN SOLUTION
    spikes = dict(spikes or {})
    budget = Budget() if limit is None else Budget(context_limit=limit)
    transcript = preamble_entries(preamble)
    appended = list(transcript)                     # every entry the session ever added
    report = LedgerReport()
    gone, summaries = set(), set()
    for turn in range(1, turns + 1):
        arriving = [step_entry(turn, per_turn)]
        if spikes.get(turn):
            size = spikes[turn] if cap is None or cap_in != "tool" else min(spikes[turn], cap)
            arriving.append(tool_output(turn, size))
        try:
            context = assemble(transcript, budget)
        except ContextOverflow:
            report.overflow_at = turn
            break
        sent = tokens(context)
        if sent > budget.context_limit:
            report.overflow_at = turn
            break
        report.submitted.append(sent)
        present = {e["id"] for e in context}
        for e in context:
            if e["kind"] == "summary" and e["id"] not in summaries:
                summaries.add(e["id"])
                report.compaction += e["usage"]["input_tokens"]
        for e in appended:
            if e["id"] not in present and e["id"] not in gone:
                gone.add(e["id"])
                report.evictions.append(Eviction(turn, e["id"], e["turn"], e["tokens"]))
        if cap is not None and cap_in == "assemble":
            for e in context:
                if e["kind"] == "tool_output" and e["tokens"] > cap:
                    e["tokens"] = cap               # trimmed only after the model read it once
        transcript.extend(arriving)                 # a turn's own work lands after its prompt
        appended.extend(arriving)
    report.cumulative = sum(report.submitted)
    report.held = report.submitted[-1] if report.submitted else 0
    report.binds_at = report.evictions[0].turn if report.evictions else None
    return report
    ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# Quick signals only. The graded cells below check every rule the docstrings state (exact
# boundaries, persistence, the eviction log, overflow, spikes and caps), and Validate runs
# their visible checks.

# %%
from functools import partial

session = cc.NOTES_SESSION
print("tokens of the preamble:", tokens(cc.preamble_entries(2_000)), "(expect 2,000)")
print("keep until full:", ledger(assemble_keep_until_full, **session).cumulative,
      "(expect 97,000)")
window = partial(assemble_sliding_window_pinned, W=cc.NOTES_W)
print("window binds at turn:", ledger(window, **session).binds_at, "(expect 12)")

# %% [markdown]
# ## What the three policies cost
#
# The three policies over the session, from your code:

# %%
compact = partial(assemble_summarize_and_compact, trigger=cc.NOTES_TRIGGER, target=cc.NOTES_TARGET,
                  summarize=cc.summarize)
runs = {
    "keep until full": ledger(assemble_keep_until_full, **session),
    "sliding window, pinned, W=3,000": ledger(window, **session),
    "summarize and compact (3,000 → 500)": ledger(compact, **session),
}
base = runs["keep until full"].total
print(f"{'policy':38}{'held at 20':>11}{'loop':>9}{'+ compaction':>14}{'= total':>9}"
      f"{'saving':>8}{'binds':>7}")
for name, r in runs.items():
    print(f"{name:38}{r.held:>11,}{r.cumulative:>9,}{r.compaction:>14,}{r.total:>9,}"
          f"{1 - r.total / base:>8.0%}{str(r.binds_at):>7}")

# %% [markdown]
# Read it by columns. The token column differs by at most about a quarter. The failure
# column differs absolutely: keep-until-full loses nothing until it dies abruptly; the window
# has silently lost everything appended before turn 10; compaction keeps turns 1–11 only as
# 500 tokens of summary. **Choose by which failure your task survives, not by the token
# column.**
#
# Two details that are easy to get wrong, pinned down by the run:
#
# * **Compaction traffic** is the summarizing call's *input*: the 3,300 tokens compacted.
#   Its 500 output tokens are billed as output, not prompt, so they are not in 75,100.
# * It is tempting to say "a 24-turn run would trip the trigger a second time". It trips sooner:
#   after the compaction at turn 12 the history is 500 + 300 per turn, which passes 3,000
#   at turn 21:

# %%
for n in (20, 21, 24):
    r = ledger(compact, preamble=2_000, per_turn=300, turns=n)
    fired = [e for e in r.evictions if e.entry == "turn-12"]
    print(f"{n} turns: compaction traffic {r.compaction:,}"
          + (f" (second compaction at turn {fired[0].turn})" if fired else " (one compaction)"))

# %% [markdown]
# ### The closed form, checked against the simulation
#
# Keep-until-full is the one policy with a formula, n·P + a·n(n−1)/2. The ledger agrees on
# every session shape tried, and the off-by-one formula n·P + a·n(n+1)/2 does not:

# %%
shapes = [(2_000, 300, 20), (3_000, 400, 24), (1_500, 250, 37), (500, 1_000, 9), (0, 50, 1)]
for P, a, n in shapes:
    simulated = ledger(assemble_keep_until_full, preamble=P, per_turn=a, turns=n).cumulative
    formula, off_by_one = n * P + a * n * (n - 1) // 2, n * P + a * n * (n + 1) // 2
    print(f"P={P:>5,} a={a:>5,} n={n:>3}: ledger {simulated:>9,}  formula {formula:>9,}  "
          f"{'agree' if simulated == formula else 'DIFFER'}   (n(n+1)/2 would say {off_by_one:,})")

# %% [markdown]
# One more number from the same ledger, for later in the course: how much of what the agent
# submits the serving system has *already seen*? Each prompt under keep-until-full is the
# previous prompt plus one turn, so only the first prompt and each turn's 300 tokens are new:

# %%
r = runs["keep until full"]
new = r.submitted[0] + sum(b - a for a, b in zip(r.submitted, r.submitted[1:], strict=False))
print(f"new tokens {new:,} of {r.cumulative:,}: {1 - new / r.cumulative:.0%} is a re-sent prefix")

# %% [markdown]
# ### The silent line, made visible
#
# Exercise: a 3,000-token preamble, 400 tokens a turn, 24 turns, a window of
# W = 4,000, and a context limit of 16,384. The user stated a numeric constraint in turn 3.

# %%
ex = cc.EXERCISE1_SESSION
keep1 = ledger(assemble_keep_until_full, **ex)
win1 = ledger(partial(assemble_sliding_window_pinned, W=cc.EXERCISE1_W), **ex)
print(f"(a) keep until full {keep1.cumulative:,}   (b) window {win1.cumulative:,}  "
      f"({1 - win1.cumulative / keep1.cumulative:.0%} less)")
print(f"(c) held at turn 24: {keep1.held:,} against {win1.held:,}")
longer = ledger(assemble_keep_until_full, preamble=3_000, per_turn=400, turns=60,
                limit=cc.EXERCISE1_LIMIT)
print(f"(d) keep until full overflows {cc.EXERCISE1_LIMIT:,} at turn {longer.overflow_at} "
      f"(turn {len(longer.submitted)} submitted {longer.submitted[-1]:,})")
print("(e) the window's eviction log:")
for ev in win1.evictions[:4]:
    print(f"    turn {ev.turn:>2}: {ev.entry} left the context ({ev.tokens} tokens, "
          f"appended at turn {ev.origin})")
print("    ...")

# %% [markdown]
# Turn 3's constraint rides in every prompt through turn 13 and is gone at turn 14. Nothing
# raised; only the log knows. Keep-until-full would instead die at turn 35 with an exception
# you can catch. A 20% token saving bought a wrong answer.
#
# ### A spiky session: where the output cap belongs
#
# Exercise: the §4.3 session, except that at step 4 a tool returns 20,000 tokens
# on top of the usual 300.

# %%
spiky = dict(session, spikes={cc.SPIKE_STEP: cc.SPIKE_TOKENS})
raw = ledger(assemble_keep_until_full, **spiky)
in_tool = ledger(assemble_keep_until_full, **spiky, cap=cc.OUTPUT_CAP, cap_in="tool")
in_assemble = ledger(assemble_keep_until_full, **spiky, cap=cc.OUTPUT_CAP, cap_in="assemble")
extra = raw.cumulative - runs["keep until full"].cumulative
print(f"(a) uncapped: {raw.cumulative:,}; the one result is {extra:,} of it "
      f"({extra / raw.cumulative:.0%})")
print(f"(b) capped in the tool: {in_tool.cumulative:,}, "
      f"{raw.cumulative / in_tool.cumulative:.1f}x less")
print(f"(c) capped in assemble: {in_assemble.cumulative:,}; the gap to (b) is "
      f"{in_assemble.cumulative - in_tool.cumulative:,} tokens: the prompt that had already paid")

# %% [markdown]
# (d) And the window? Its `while` pops from the front until the history fits, and nothing
# holding a 20,000-token entry fits under 3,000, so the spike and everything before it go.
# Run literally, the pop happens in the very `assemble` that would first have carried the
# result, turn 5: **the model never reads the result it asked for**. The notes say the
# window bounds the spike's cost "to a single prompt"; that is true only if a fresh result
# reaches the model once before `assemble` gets a say (the convention part (c) needs). With
# the code as written it costs no prompt at all, and the fetch was wasted:

# %%
win_spiky = ledger(window, **spiky)
spike_gone = next(ev for ev in win_spiky.evictions if ev.entry == f"output-{cc.SPIKE_STEP}")
print(f"window over the spiky session: {win_spiky.cumulative:,} tokens "
      f"(vs {runs['sliding window, pinned, W=3,000'].cumulative:,} without the spike)")
print(f"output-4 ({spike_gone.tokens:,} tokens) appended at turn {spike_gone.origin}, "
      f"evicted at turn {spike_gone.turn}: never in any prompt")
print("evicted with it at turn 5:", [ev.entry for ev in win_spiky.evictions if ev.turn == 5])

# %% [markdown]
# Bounded cost, silent miss: the two failure modes of the table have traded places.
#
# ### Try it: the ledger panel
#
# Drag the sliders: session shape, W, trigger and summary size, a spike, and the context
# limit. Every change re-runs your three policies through your ledger, redraws the tokens
# submitted per turn and updates the table. (Where no widget frontend exists, as when the
# notebook is graded, you get one static plot instead; if your editor has widgets but shows
# the static plot, call `cc.build_panel(..., interactive=True)`.)

# %%
panel = cc.build_panel(ledger=ledger, keep=assemble_keep_until_full,
                       window=assemble_sliding_window_pinned,
                       compact=assemble_summarize_and_compact)
panel.show()

# %% [markdown] kind="instructor"
# ### Instructor notes — §4.3 (20 minutes: the centrepiece)
#
# **Board.** Three columns, *policy | evicts first | gives up*, filled live with the five
# policies; do not pre-print it. Under it write "miss = wrong answer, not slow answer" and
# box it. Derive 97,000 and 83,500 by hand: the 14% is the set-up for the punchline that
# 14% is the wrong reason to choose. Then the panel: set a spike of 20,000 at step 4 and let
# the room watch the red line jump while the window's drops.
#
# **Ask the room.** "A CPU cache miss costs you 200 cycles. What does a context miss cost
# you?" Wait for "a wrong answer"; if nobody says it, say it and pause.
#
# **Expected confusion.** This cache is confused with the engine's KV cache. Answer: one
# decides what the model is allowed to know; the other whether recomputing what it knows is
# free.
#
# **Common wrong answer.** "Just summarize when it gets full." Ask what a summarizer does with
# a numeric constraint from turn 2, and what it costs to run: the 3,300 tokens of compaction
# traffic answer the second half, and the compaction-on-a-copy demo shows how easily it
# becomes the most expensive policy.
#
# **Short on time.** Drop the RAG and paging asides and state 83,500 and 75,100 without
# deriving them. Keep the five policies, the working set and the silent miss.

# %% [markdown]
# ## Graded tests: §4.3
#
# One cell per property. Each builds its own session from `course.worlds.context_cache`.

# %% id="tokens_sums_entries" kind="tests" points=1
from course.worlds import context_cache as cc

assert tokens([]) == 0, "an empty context holds 0 tokens"
_sized = cc.preamble_entries(2_000) + [cc.step_entry(1, 300), cc.tool_output(1, 20_000)]
assert tokens(_sized) == 22_300, (
    f"tokens() of a 2,000 preamble, a 300 step and a 20,000 spike gave {tokens(_sized)!r}; "
    "sum each entry's 'tokens' field")
_msg = {"role": "user", "content": "x" * 42}
assert tokens([_msg]) == 11, (
    f"an entry without 'tokens' is counted with course.tokens.count on its content: 42 "
    f"characters are 11 tokens (it rounds up), got {tokens([_msg])!r}")
assert tokens([_msg, cc.step_entry(1, 300), _msg]) == 322, (
    f"two 11-token messages and a 300-token step are 322 tokens, got "
    f"{tokens([_msg, cc.step_entry(1, 300), _msg])!r}")
_bare = {"role": "assistant", "n": 1}
assert tokens([_bare]) == 7, (
    f"no 'tokens' and no 'content': count the whole entry with course.tokens.count (its "
    f"compact JSON is 26 characters, 7 tokens), got {tokens([_bare])!r}")
assert tokens([{"id": "nothing", "tokens": 0}]) == 0, (
    f"a 'tokens' field of 0 counts 0, got {tokens([{'id': 'nothing', 'tokens': 0}])!r}; test "
    "for the key ('tokens' in entry), not for a truthy value")
assert tokens([{"id": "sized", "tokens": 7, "content": "x" * 400}]) == 7, (
    "an entry with a 'tokens' field counts that many, whatever its content")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(preamble=range(1_000, 4_001, 100), step=range(100, 1_001, 50),
                  spike=range(5_000, 30_001, 1_000),
                  chars=tuple(n for n in range(21, 200) if n % 4))
mixed = cc.preamble_entries(h.preamble) + [cc.step_entry(1, h.step), cc.tool_output(1, h.spike)]
msg = {"role": "user", "content": "x" * h.chars}
rec = record(empty=tokens([]), mixed=tokens(mixed), messages=tokens([msg, msg]))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(preamble=range(1_000, 4_001, 100), step=range(100, 1_001, 50),
                  spike=range(5_000, 30_001, 1_000),
                  chars=tuple(n for n in range(21, 200) if n % 4))
assert rec["empty"] == 0, f"an empty context holds 0 tokens; got {rec['empty']!r}"
want = h.preamble + h.step + h.spike
assert rec["mixed"] == want, (
    f"tokens() of a {h.preamble:,} preamble, a {h.step:,} step and a {h.spike:,} spike gave "
    f"{rec['mixed']}, not {want:,}; sum each entry's 'tokens' field")
each = -(-h.chars // 4)
assert rec["messages"] == 2 * each, (
    "an entry without a 'tokens' field (an API message) is counted with course.tokens.count "
    f"on its content: {h.chars} characters are {each} tokens (it rounds up), so two such "
    f"messages are {2 * each}; got {rec['messages']!r}")
### END HIDDEN TESTS

# %% id="keep_until_full_policy" kind="tests" points=2
from course.worlds import context_cache as cc

pre = cc.preamble_entries(2_000)
assert tokens(assemble_keep_until_full(pre, cc.Budget())) == 2_000, "send the whole transcript"
_t = pre + [cc.step_entry(k, 300) for k in range(1, 6)]           # 3,500 tokens
_ids = [e["id"] for e in _t]
try:
    _fit = [e["id"] for e in assemble_keep_until_full(_t, cc.Budget(context_limit=3_500))]
except Exception as _exc:  # noqa: BLE001
    _fit = f"raised {type(_exc).__name__}"
assert _fit == _ids, (
    f"3,500 tokens against a 3,500 limit fit and every entry is sent in order; got {_fit}. "
    "Raise only when the transcript EXCEEDS the limit (>, not >=)")
try:
    assemble_keep_until_full(_t, cc.Budget(context_limit=3_499))
    _over = "returned a context"
except cc.ContextOverflow:
    _over = "ContextOverflow"
except Exception as _exc:  # noqa: BLE001
    _over = type(_exc).__name__
assert _over == "ContextOverflow", (
    f"3,500 tokens (preamble included) against a 3,499 limit: expected ContextOverflow, got "
    f"{_over}")
assert [e["id"] for e in _t] == _ids, "keep-until-full must not change the transcript"
_huge = pre + [cc.tool_output(1, 1_000_000)]
assert len(assemble_keep_until_full(_huge, cc.Budget())) == 3, (
    "cc.Budget() has no limit (context_limit is infinite): a million tokens are sent")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(preamble=range(1_000, 4_001, 250), per_turn=range(100, 601, 50),
                  turns=range(12, 31), long_preamble=range(2_000, 5_001, 500),
                  long_per_turn=range(200, 801, 100), long_turns=range(20, 41),
                  limit=range(10_000, 20_001))
whole = [e["id"] for e in assemble_keep_until_full(pre, cc.Budget())]
t = pre + [cc.step_entry(k, 300) for k in range(1, 6)]
fits = outcome(assemble_keep_until_full, t, cc.Budget(context_limit=3_500))
over = outcome(assemble_keep_until_full, t, cc.Budget(context_limit=3_499))


def run_policy(policy, P, a, n, limit=float("inf")):
    seq = cc.preamble_entries(P)
    sizes = []
    for turn in range(1, n + 1):
        try:
            ctx = policy(seq, cc.Budget(context_limit=limit))
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - what it raised, and when, is the record
            return {"sizes": sizes, "stopped": turn, "raised": type(exc).__name__}
        sizes.append(sum(item["tokens"] for item in ctx))
        seq.append(cc.step_entry(turn, a))
    return {"sizes": sizes, "stopped": None, "raised": None}


rec = record(whole=whole, ids=[e["id"] for e in t], fits=fits, over=over,
             notes=run_policy(assemble_keep_until_full, h.preamble, h.per_turn, h.turns),
             ex1=run_policy(assemble_keep_until_full, h.long_preamble, h.long_per_turn,
                            h.long_turns),
             limited=run_policy(assemble_keep_until_full, h.long_preamble, h.long_per_turn, 120,
                                limit=h.limit))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(preamble=range(1_000, 4_001, 250), per_turn=range(100, 601, 50),
                  turns=range(12, 31), long_preamble=range(2_000, 5_001, 500),
                  long_per_turn=range(200, 801, 100), long_turns=range(20, 41),
                  limit=range(10_000, 20_001))
assert rec["whole"] == ["system", "task"], (
    f"sent {rec['whole']} for the 2,000-token preamble; send the whole transcript")
fits = rec["fits"]
assert fits["raised"] is None, (
    f"3,500 tokens fit a 3,500 limit, but keep-until-full raised {fits['raised']}")
assert [e.get("id") for e in fits["value"]] == rec["ids"], (
    "keep-until-full sends every entry, in order")
over = rec["over"]
assert over["raised"] is not None and over["raised"]["type"] == "ContextOverflow", (
    "3,500 tokens against a 3,499 limit must raise ContextOverflow: refusing to decide is "
    f"also a decision; got {over}")
for name in ("notes", "ex1"):
    run = rec[name]
    assert run["raised"] is None, (
        f"keep-until-full raised {run['raised']} at turn {run['stopped']} with no limit set")
for P, a, n, name in ((h.preamble, h.per_turn, h.turns, "notes"),
                      (h.long_preamble, h.long_per_turn, h.long_turns, "ex1")):
    sizes = rec[name]["sizes"]
    total, last = n * P + a * n * (n - 1) // 2, P + a * (n - 1)
    assert sum(sizes) == total and sizes[-1:] == [last], (
        f"keep-until-full over {P:,} + {a:,}/turn x {n} submitted {sum(sizes):,} holding "
        f"{sizes[-1] if sizes else None} at turn {n}; expected n*P + a*n(n-1)/2 = {total:,} "
        f"and {last:,}")
limited = rec["limited"]
assert limited["raised"] in (None, "ContextOverflow"), (
    f"keep-until-full raised {limited['raised']}; an overflow is a ContextOverflow")
P, a, limit = h.long_preamble, h.long_per_turn, h.limit
dies = next(k for k in range(1, 121) if P + a * (k - 1) > limit)
sizes, died = limited["sizes"], limited["stopped"]
assert died == dies and sizes and sizes[-1] == P + a * (dies - 2), (
    f"{P:,} + {a:,}/turn against {limit:,}: the overflow came at turn {died}; turn {dies - 1} "
    f"sends {P + a * (dies - 2):,}, turn {dies} would send {P + a * (dies - 1):,}")
### END HIDDEN TESTS

# %% id="window_pins_preamble" kind="tests" points=2
from course.worlds import context_cache as cc

t = cc.preamble_entries(2_000) + [cc.step_entry(k, 700) for k in range(1, 7)]
out = assemble_sliding_window_pinned(t, cc.Budget(), W=3_000)
assert [e["id"] for e in out[:2]] == ["system", "task"], (
    f"the context starts {[e['id'] for e in out[:2]]}; the system prompt and task are pinned "
    "and never evicted (a plain FIFO evicts the task statement first)")
_kept = [e["id"] for e in out]
assert _kept == ["system", "task", "turn-3", "turn-4", "turn-5", "turn-6"], (
    f"kept {_kept}; expected the pinned pair, then turns 3-6 oldest first: W=3,000 holds the "
    "newest four 700-token turns (W counts the history, not the pinned entries)")
assert [e["id"] for e in t] == ["system", "task"] + [f"turn-{k}" for k in range(1, 7)], (
    "the window must not remove entries from the transcript itself: build a new list")
_seq = cc.preamble_entries(2_000)
for _turn in range(1, 21):
    _head = [e["id"] for e in assemble_sliding_window_pinned(_seq, cc.Budget(), W=3_000)[:2]]
    assert _head == ["system", "task"], (
        f"turn {_turn}: the context starts {_head}; only the history slides")
    _seq.append(cc.step_entry(_turn, 300))
### BEGIN HIDDEN TESTS
from course.observe import record

seq = cc.preamble_entries(2_000)
heads = []
for turn in range(1, 21):
    ctx = assemble_sliding_window_pinned(seq, cc.Budget(), W=3_000)
    heads.append([e["id"] for e in ctx[:2]])
    seq.append(cc.step_entry(turn, 300))
rec = record(kept=[e["id"] for e in out], transcript=len(t), heads=heads)
### JUDGE
kept = rec["kept"]
assert kept[:2] == ["system", "task"], (
    f"the context starts {kept[:2]}; the system prompt and task are pinned "
    "and never evicted (a plain FIFO evicts the task statement first)")
assert kept == ["system", "task", "turn-3", "turn-4", "turn-5", "turn-6"], (
    f"kept {kept}; keep the newest history that fits W=3,000 (4 x 700)")
assert rec["transcript"] == 8, "the window must not remove entries from the transcript itself"
for turn, head in enumerate(rec["heads"], 1):
    assert head == ["system", "task"], (
        f"turn {turn}: the pinned preamble was evicted; only the history slides")
### END HIDDEN TESTS

# %% id="window_strict_threshold" kind="tests" points=2
from course.worlds import context_cache as cc


def kept_history(history, W):
    t = cc.preamble_entries(2_000) + history
    out = assemble_sliding_window_pinned(t, cc.Budget(), W=W)
    return [e["id"] for e in out if e["kind"] not in ("system", "task")]


exact = [cc.step_entry(1, 1), cc.step_entry(2, 2_999)]
assert kept_history(exact, 3_000) == ["turn-1", "turn-2"], (
    "a history of exactly W tokens fits: evict only while the history is strictly OVER W "
    "(> W, not >= W)")
_over = [cc.step_entry(1, 2), cc.step_entry(2, 2_999)]
assert kept_history(_over, 3_000) == ["turn-2"], (
    f"3,001 tokens is over W=3,000: drop the oldest entry; kept {kept_history(_over, 3_000)}")
_gap = [cc.step_entry(1, 100), cc.tool_output(1, 5_000), cc.step_entry(2, 100)]
assert kept_history(_gap, 3_000) == ["turn-2"], (
    f"history 100, 5,000, 100 with W=3,000 kept {kept_history(_gap, 3_000)}; evict from the "
    "oldest end until it fits: turn-1 goes with the spike behind it, only turn-2 stays")
_eleven = cc.preamble_entries(2_000) + [cc.step_entry(k, 300) for k in range(1, 12)]
_default = [e["id"] for e in assemble_sliding_window_pinned(_eleven, cc.Budget())][2:]
assert _default == [f"turn-{k}" for k in range(2, 12)], (
    f"with the default W=3,000, eleven 300-token turns keep turns 2-11; kept {_default}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(full_turns=range(4, 16), full_size=(100, 150, 200, 250, 300, 400, 500, 700))
over = [cc.step_entry(1, 2), cc.step_entry(2, 2_999)]
full = [cc.step_entry(k, h.full_size) for k in range(1, h.full_turns + 1)]
rec = record(exact=kept_history(exact, 3_000), over=kept_history(over, 3_000),
             full=kept_history(full, h.full_turns * h.full_size))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(full_turns=range(4, 16), full_size=(100, 150, 200, 250, 300, 400, 500, 700))
assert rec["exact"] == ["turn-1", "turn-2"], (
    "a history of exactly W tokens fits: evict only while the history is strictly OVER W "
    f"(> W, not >= W); kept {rec['exact']}")
assert rec["over"] == ["turn-2"], (
    f"3,001 tokens is over W=3,000: drop the oldest; kept {rec['over']}")
_w = h.full_turns * h.full_size
assert rec["full"] == [f"turn-{k}" for k in range(1, h.full_turns + 1)], (
    f"{h.full_turns} turns of {h.full_size} tokens are exactly W={_w:,} and all stay, oldest "
    f"first; kept {rec['full']}")
### END HIDDEN TESTS

# %% id="window_figures" kind="tests" points=2
from course.worlds import context_cache as cc


def window_run(P, a, n, W):
    transcript = cc.preamble_entries(P)
    sizes, contents = [], []
    for k in range(1, n + 1):
        ctx = assemble_sliding_window_pinned(transcript, cc.Budget(), W=W)
        sizes.append(sum(x["tokens"] for x in ctx))
        contents.append({x["id"] for x in ctx})
        transcript.append(cc.step_entry(k, a))
    return sizes, contents


sizes, contents = window_run(2_000, 300, 20, 3_000)
assert sum(sizes) == 83_500, f"the W=3,000 window submitted {sum(sizes):,}; expected 83,500"
assert sizes[-1] == 5_000, f"held at turn 20: {sizes[-1]:,}; expected 2,000 + 3,000 = 5,000"
assert sizes[:12] == [2_000 + 300 * k for k in range(11)] + [5_000], (
    f"turns 1-12 submitted {sizes[:12]}; ten turns of 300 fit W=3,000, so the window first "
    "binds at turn 12 (3,300 > 3,000) and sends 5,000")
_ex_sizes, _ex_contents = window_run(3_000, 400, 24, 4_000)
assert (sum(_ex_sizes), _ex_sizes[-1]) == (146_000, 7_000), (
    f"exercise 1 window: {sum(_ex_sizes):,} holding {_ex_sizes[-1]:,}; expected 146,000 and "
    "7,000")
_last = max((k for k, ids in enumerate(_ex_contents, 1) if "turn-3" in ids), default=None)
assert _last == 13, (
    f"turn 3's entry was last sent at turn {_last}; ten turns of 400 fit W=4,000, so it "
    "rides through turn 13 and is evicted at turn 14")
### BEGIN HIDDEN TESTS
from course.observe import record

ex_sizes, ex_contents = window_run(3_000, 400, 24, 4_000)
rec = record(notes=sizes, ex=ex_sizes, ex_contents=ex_contents)
### JUDGE
sizes = rec["notes"]
assert sum(sizes) == 83_500, f"the W=3,000 window submitted {sum(sizes):,}; expected 83,500"
assert sizes[-1] == 5_000, f"held at turn 20: {sizes[-1]:,}; expected 2,000 + 3,000 = 5,000"
binds = next((k for k, s in enumerate(sizes, 1) if s < 2_000 + 300 * (k - 1)), None)
assert binds == 12, f"the window first binds at turn {binds}; 300 x 11 = 3,300 > 3,000 at turn 12"
sizes = rec["ex"]
assert sum(sizes) == 146_000 and sizes[-1] == 7_000, (
    f"exercise 1 window: {sum(sizes):,} holding {sizes[-1]:,}; expected 146,000 and 7,000")
last_seen = max((k for k, ids in enumerate(rec["ex_contents"], 1) if "turn-3" in ids),
                default=None)
assert last_seen == 13, (
    f"turn 3's entry was last sent at turn {last_seen}; ten turns of 400 fit W=4,000, so it "
    "rides through turn 13 and is evicted at turn 14")
### END HIDDEN TESTS

# %% id="compaction_persists" kind="tests" points=2
from course.worlds import context_cache as cc

summ = cc.CountingSummarizer()
t = cc.preamble_entries(2_000) + [cc.step_entry(k, 300) for k in range(1, 12)]
first = assemble_summarize_and_compact(t, cc.Budget(), trigger=3_000, target=500, summarize=summ)
second = assemble_summarize_and_compact(t, cc.Budget(), trigger=3_000, target=500, summarize=summ)
assert len(summ.calls) == 1, (
    f"the summarizer ran {len(summ.calls)} times for one overflow: the compaction was written to "
    "a copy of the history (transcript[2:] is a new list), so the transcript never shrank. "
    "Write the summary back into the transcript")
assert summ.calls == [3_300], (
    f"the summarizer read {summ.calls}; it must read the 3,300 tokens of history only, not "
    "the pinned entries")
assert [e["kind"] for e in t] == ["system", "task", "summary"], (
    f"after compaction the transcript holds {[e['kind'] for e in t]}; it must be the pinned "
    "pair plus the one summary (replace the history, do not add to it)")
_sent = [[e["kind"] for e in first], tokens(first), tokens(second)]
assert _sent == [["system", "task", "summary"], 2_500, 2_500], (
    f"sent {_sent}; the compacting call itself already sends the pinned 2,000 + the "
    "500-token summary, and so does the next")


def _compact_once(history, **knobs):
    counting = cc.CountingSummarizer()
    log = cc.preamble_entries(2_000) + history
    sent = assemble_summarize_and_compact(log, cc.Budget(), summarize=counting, **knobs)
    return counting.calls, [e["id"] for e in sent], [e["id"] for e in log], tokens(log)


_at = [cc.step_entry(k, 300) for k in range(1, 11)]                # exactly 3,000
_calls, _sent_ids, _log_ids, _ = _compact_once(_at, trigger=3_000, target=500)
assert _calls == [] and _sent_ids == _log_ids == ["system", "task"] + [e["id"] for e in _at], (
    f"a history of exactly 3,000 tokens is not over a 3,000 trigger: no summary, send it all; "
    f"got summarizer calls {_calls}, sent {_sent_ids}")
_calls, _, _, _ = _compact_once([cc.step_entry(k, 300) for k in range(1, 6)], trigger=3_000)
assert _calls == [], (
    f"1,500 tokens of history (plus the 2,000 pinned) were summarized ({_calls}); only the "
    "history counts toward the trigger")
_calls, _, _, _held = _compact_once([cc.step_entry(k, 300) for k in range(1, 12)], target=700)
assert _calls == [3_300] and _held == 2_700, (
    f"target=700 with the default trigger: the summarizer read {_calls} and the transcript "
    f"holds {_held:,} tokens; expected [3300] and 2,000 + a 700-token summary")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(next_step=range(100, 2_401, 100),
                  at_trigger=((10, 300), (6, 500), (12, 250), (15, 200), (5, 600), (20, 150),
                              (4, 750), (8, 375)))
after_two = record(kinds=[e["kind"] for e in t], calls=summ.calls, first=first, second=second)
t.append(cc.step_entry(12, h.next_step))
assemble_summarize_and_compact(t, cc.Budget(), trigger=3_000, target=500, summarize=summ)
after_twelve = list(summ.calls)
steps, size = h.at_trigger
under = cc.preamble_entries(2_000) + [cc.step_entry(k, size) for k in range(1, steps + 1)]
assemble_summarize_and_compact(under, cc.Budget(), trigger=3_000, target=500, summarize=summ)
rec = record(after_two=after_two, after_twelve=after_twelve, after_under=summ.calls)
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(next_step=range(100, 2_401, 100),
                  at_trigger=((10, 300), (6, 500), (12, 250), (15, 200), (5, 600), (20, 150),
                              (4, 750), (8, 375)))
calls = rec["after_two"]["calls"]
assert len(calls) == 1, (
    f"the summarizer ran {len(calls)} times for one overflow: the compaction was written to "
    "a copy of the history (transcript[2:] is a new list), so the transcript never shrank. "
    "Write the summary back into the transcript")
kinds = rec["after_two"]["kinds"]
assert kinds == ["system", "task", "summary"], (
    f"after compaction the transcript holds {kinds}; it must be the pinned "
    "entries plus the one summary")
sent = [sum(e["tokens"] for e in rec["after_two"][k]) for k in ("first", "second")]
assert sent == [2_500, 2_500], f"sent {sent}; pinned 2,000 + a 500-token summary is 2,500"
assert calls == [3_300], f"the summarizer read {calls}; it should read the 3,300 tokens"
assert len(rec["after_twelve"]) == 1, (
    f"the 500-token summary plus a {h.next_step:,}-token turn is {500 + h.next_step:,} tokens "
    f"of history, under the 3,000 trigger: no new compaction; summarizer calls "
    f"{rec['after_twelve']}")
assert len(rec["after_under"]) == 1, (
    f"{h.at_trigger[0]} turns of {h.at_trigger[1]} tokens are exactly 3,000, which is not over "
    f"a 3,000 trigger: no compaction; summarizer calls {rec['after_under']}")
### END HIDDEN TESTS

# %% id="compaction_figures" kind="tests" points=2
from course.worlds import context_cache as cc


def compaction_run(n):
    summ = cc.CountingSummarizer()
    transcript = cc.preamble_entries(2_000)
    sizes = []
    for k in range(1, n + 1):
        ctx = assemble_summarize_and_compact(transcript, cc.Budget(), trigger=3_000,
                                             target=500, summarize=summ)
        sizes.append(sum(x["tokens"] for x in ctx))
        transcript.append(cc.step_entry(k, 300))
    return sizes, summ.calls


sizes, calls = compaction_run(20)
assert sum(sizes) + sum(calls) == 75_100, (
    f"loop {sum(sizes):,} + compaction traffic {sum(calls):,} = {sum(sizes) + sum(calls):,}; "
    "expected 71,800 + 3,300 = 75,100")
assert calls == [3_300] and sizes[11] == 2_500 and sizes[-1] == 4_900, (
    f"summarizer calls {calls}, turn 12 sent {sizes[11]:,}, turn 20 sent {sizes[-1]:,}; "
    "expected one compaction of 3,300 at turn 12 sending 2,500, and 4,900 at turn 20")
_longer = compaction_run(21)[1]
assert _longer == [3_300, 3_200], (
    f"a 21-turn run compacts again at turn 21 (the 500-token summary + 9 x 300 = 3,200 > "
    f"3,000, summary included); got {_longer}")
### BEGIN HIDDEN TESTS
from course.observe import record

rec = record(sizes=sizes, calls=calls, longer=compaction_run(21)[1])
### JUDGE
sizes, calls = rec["sizes"], rec["calls"]
assert sum(sizes) + sum(calls) == 75_100, (
    f"loop {sum(sizes):,} + compaction traffic {sum(calls):,} = {sum(sizes) + sum(calls):,}; "
    "expected 71,800 + 3,300 = 75,100")
assert sum(sizes) == 71_800 and calls == [3_300], (
    f"expected one compaction of 3,300 tokens at turn 12 and 71,800 for the loop; got "
    f"{sum(sizes):,} and {calls}")
assert sizes[-1] == 4_900, f"held at turn 20: {sizes[-1]:,}; expected 2,000 + 500 + 300 x 8"
assert sizes[11] == 2_500, "turn 12 submits the preamble plus the fresh 500-token summary"
calls = rec["longer"]
assert len(calls) == 2 and calls[1] == 3_200, (
    f"a 21-turn run compacts again at turn 21 (500 + 9 x 300 = 3,200 > 3,000); got {calls}")
### END HIDDEN TESTS

# %% id="ledger_prompt_before_append" kind="tests" points=2
from course.worlds import context_cache as cc

rep = ledger(lambda transcript, budget: list(transcript), preamble=2_000, per_turn=300, turns=1)
assert rep.submitted == [2_000], (
    f"turn 1 submitted {rep.submitted}; a turn's prompt holds only what came BEFORE it: its own "
    "300 tokens are appended after the model call")
_seen, _limits = [], []


def _recorder(transcript, budget):
    _seen.append([e["id"] for e in transcript])
    _limits.append(budget.context_limit)
    return list(transcript)


_three = ledger(_recorder, preamble=2_000, per_turn=300, turns=3)
assert _three.submitted == [2_000, 2_300, 2_600], (
    f"3 turns submitted {_three.submitted}; expected [2000, 2300, 2600]")
assert _seen == [["system", "task"], ["system", "task", "turn-1"],
                 ["system", "task", "turn-1", "turn-2"]], (
    f"assemble saw {_seen}; the transcript starts as the preamble, and turn k's entry is "
    "appended after turn k's prompt")
assert (_three.cumulative, _three.held) == (6_900, 2_600), (
    f"cumulative {_three.cumulative!r}, held {_three.held!r}; expected 6,900 (the sum) and "
    "2,600 (what the last turn submitted)")
assert (_three.compaction, _three.binds_at, _three.overflow_at, _three.evictions) == (
        0, None, None, []), (
    f"keeping everything: compaction {_three.compaction!r}, binds_at {_three.binds_at!r}, "
    f"overflow_at {_three.overflow_at!r}, evictions {_three.evictions!r}; expected 0, None, "
    "None, []")
assert _limits == [float("inf")] * 3, (
    f"with limit=None assemble got budgets with context_limit {_limits}; pass cc.Budget()")
_limits.clear()
ledger(_recorder, preamble=2_000, per_turn=300, turns=2, limit=9_000)
assert _limits == [9_000, 9_000], (
    f"with limit=9000 assemble got context_limit {_limits}; pass Budget(context_limit=limit)")
_none = ledger(_recorder, preamble=2_000, per_turn=300, turns=0)
assert (_none.submitted, _none.cumulative, _none.held, _none.binds_at) == ([], 0, 0, None), (
    f"turns=0 runs no turn: got submitted {_none.submitted}, cumulative {_none.cumulative!r}, "
    f"held {_none.held!r}, binds_at {_none.binds_at!r}")
### BEGIN HIDDEN TESTS
from course.observe import record

one = rep
seen = []


def recorder(transcript, budget):
    seen.append([e["id"] for e in transcript])
    return list(transcript)


rec = record(one=one, three=ledger(recorder, preamble=2_000, per_turn=300, turns=3), seen=seen)
### JUDGE
got = rec["one"]["submitted"]
assert got == [2_000], (
    f"turn 1 submitted {got}; a turn's prompt holds only what came BEFORE it: its own "
    "300 tokens are appended after the model call")
rep = rec["three"]
assert rep["submitted"] == [2_000, 2_300, 2_600], f"submitted {rep['submitted']}"
seen = rec["seen"]
assert seen and seen[-1] == ["system", "task", "turn-1", "turn-2"], (
    f"turn 3's assemble saw {seen[-1] if seen else None}; it should see the preamble and "
    "turns 1-2 only")
assert rep["cumulative"] == 6_900 and rep["held"] == 2_600, (
    f"cumulative {rep['cumulative']}, held {rep['held']}; expected 6,900 and 2,600")
### END HIDDEN TESTS

# %% id="ledger_notes_session" kind="tests" points=3
from course.worlds import context_cache as cc

rep = ledger(lambda transcript, budget: list(transcript), preamble=2_000, per_turn=300, turns=20)
assert rep.cumulative == 97_000, f"keep-everything over the session: {rep.cumulative:,} != 97,000"


def _log(report):
    return [(e.turn, e.entry, e.origin, e.tokens) for e in report.evictions]


def _last_two(transcript, budget):          # the pinned pair and the two newest entries
    return transcript[:2] + transcript[2:][-2:]


def _forget(transcript, budget):            # deletes the oldest turn from the transcript
    if len(transcript) > 4:
        del transcript[2]
    return list(transcript)


_want = [(4, "turn-1", 1, 100), (5, "turn-2", 2, 100)]
_two = ledger(_last_two, preamble=1_000, per_turn=100, turns=5)
assert _two.submitted == [1_000, 1_100, 1_200, 1_200, 1_200] and _log(_two) == _want, (
    f"keeping the two newest turns: submitted {_two.submitted}, log {_log(_two)}; expected "
    f"1000, 1100, 1200 x 3 and {_want}: Eviction(turn it left, id, turn appended, size), once")
assert _two.binds_at == 4, f"binds_at {_two.binds_at!r}: turn-1 is first missing at turn 4"
_gone = ledger(_forget, preamble=1_000, per_turn=100, turns=5)
assert _log(_gone) == _want, (
    f"a policy that deletes entries from the transcript evicts them too: expected {_want}, got "
    f"{_log(_gone)}; compare each context with every entry ever appended")
_nosys = ledger(lambda transcript, budget: transcript[1:], preamble=1_000, per_turn=100,
                turns=2)
assert _log(_nosys) == [(1, "system", 0, 750)] and _nosys.binds_at == 1, (
    f"a policy that drops the system prompt: log {_log(_nosys)}, binds_at {_nosys.binds_at!r}; "
    "the preamble entries are appended entries too: expected [(1, 'system', 0, 750)] and 1")
_made = {}


def _fold(transcript, budget):     # turns 1-3 folded into one summary, made once, dropped later
    history = transcript[2:]
    if len(history) >= 6:
        return transcript[:2] + history[-1:]
    if len(history) >= 3:
        _made.setdefault("summary", cc.summarize(history[:3], 50))
        return transcript[:2] + [_made["summary"]] + history[3:]
    return list(transcript)


_f = ledger(_fold, preamble=1_000, per_turn=100, turns=7)
assert _f.submitted == [1_000, 1_100, 1_200, 1_050, 1_150, 1_250, 1_100], (
    f"the folding policy submitted {_f.submitted}")
assert (_f.compaction, _f.total) == (300, 8_150), (
    f"compaction {_f.compaction!r}, total {_f.total!r}: one summary of 3 x 100 appears at turns "
    "4-6; count its input_tokens (300) once, the first time, not its 50 output tokens")
assert _f.held == 1_100 and _f.binds_at == 4, (
    f"held {_f.held!r}, binds_at {_f.binds_at!r}; expected 1,100 (turn 7's context, not the "
    "largest one) and 4")
_fwant = [(4, "turn-1", 1, 100), (4, "turn-2", 2, 100), (4, "turn-3", 3, 100),
          (7, "turn-4", 4, 100), (7, "turn-5", 5, 100)]
assert _log(_f) == _fwant, (
    f"log {_log(_f)}; expected {_fwant}: in appended order within a turn, and the summary, "
    "which was never appended, is not logged when it goes at turn 7")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(preamble=range(1_000, 3_001, 100), per_turn=range(200, 501, 50),
                  turns=range(16, 25), W=range(1_500, 2_751, 250),
                  trigger=range(1_500, 2_751, 250), target=(200, 300, 400, 500),
                  ex_preamble=range(2_000, 4_001, 250), ex_per_turn=range(300, 601, 50),
                  ex_turns=range(22, 31), ex_W=range(3_000, 5_001, 500),
                  overflow_limit=range(10_001, 16_001, 50), quiet_steps=(1, 2),
                  quiet_over=range(1, 200), shape_preamble=range(500, 5_001, 250),
                  shape_per_turn=range(50, 1_001, 50), shape_turns=range(1, 41),
                  zero_per_turn=range(10, 201, 10), zero_turns=range(1, 10))


def ref_keep(transcript, budget):
    if sum(x["tokens"] for x in transcript) > budget.context_limit:
        raise cc.ContextOverflow("over")
    return list(transcript)


def ref_window(W):
    def policy(transcript, budget):
        hist = list(transcript[2:])
        while sum(x["tokens"] for x in hist) > W:
            del hist[0]
        return list(transcript[:2]) + hist
    return policy


def ref_compact(transcript, budget):
    if sum(x["tokens"] for x in transcript[2:]) > h.trigger:
        transcript[2:] = [cc.summarize(transcript[2:], h.target)]
    return list(transcript)


S = dict(preamble=h.preamble, per_turn=h.per_turn, turns=h.turns)
E = dict(preamble=h.ex_preamble, per_turn=h.ex_per_turn, turns=h.ex_turns)
quiet_limit = h.preamble + h.per_turn * h.quiet_steps + h.quiet_over
shapes = [[h.shape_preamble, h.shape_per_turn, h.shape_turns], [0, h.zero_per_turn, h.zero_turns]]
rec = record(
    everything=rep,
    keep=ledger(ref_keep, **S),
    window=ledger(ref_window(h.W), **S),
    compact=ledger(ref_compact, **S),
    ex_keep=ledger(ref_keep, **E),
    ex_window=ledger(ref_window(h.ex_W), **E),
    overflow=ledger(ref_keep, preamble=h.ex_preamble, per_turn=h.ex_per_turn, turns=60,
                    limit=h.overflow_limit),
    quiet=ledger(ref_window(h.W), **S, limit=quiet_limit),
    shapes=[[P, a, n, ledger(ref_keep, preamble=P, per_turn=a, turns=n).cumulative]
            for P, a, n in shapes],
)
### JUDGE
import math

from course.observe import hidden_inputs
from course.worlds import context_cache as cc

h = hidden_inputs(preamble=range(1_000, 3_001, 100), per_turn=range(200, 501, 50),
                  turns=range(16, 25), W=range(1_500, 2_751, 250),
                  trigger=range(1_500, 2_751, 250), target=(200, 300, 400, 500),
                  ex_preamble=range(2_000, 4_001, 250), ex_per_turn=range(300, 601, 50),
                  ex_turns=range(22, 31), ex_W=range(3_000, 5_001, 500),
                  overflow_limit=range(10_001, 16_001, 50), quiet_steps=(1, 2),
                  quiet_over=range(1, 200), shape_preamble=range(500, 5_001, 250),
                  shape_per_turn=range(50, 1_001, 50), shape_turns=range(1, 41),
                  zero_per_turn=range(10, 201, 10), zero_turns=range(1, 10))


def expect(policy, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=math.inf):
    """The ledger of the notebook's spec, run here on the grader's own policies."""
    transcript = cc.preamble_entries(preamble)
    appended, gone, summaries = list(transcript), set(), set()
    out = {"submitted": [], "compaction": 0, "evictions": [], "overflow_at": None}
    for turn in range(1, turns + 1):
        arriving = [cc.step_entry(turn, per_turn)]
        if (spikes or {}).get(turn):
            size = spikes[turn] if cap is None or cap_in != "tool" else min(spikes[turn], cap)
            arriving.append(cc.tool_output(turn, size))
        try:
            context = policy(transcript, limit)
        except cc.ContextOverflow:
            out["overflow_at"] = turn
            break
        sent = sum(e["tokens"] for e in context)
        if sent > limit:
            out["overflow_at"] = turn
            break
        out["submitted"].append(sent)
        present = {e["id"] for e in context}
        for e in context:
            if e["kind"] == "summary" and e["id"] not in summaries:
                summaries.add(e["id"])
                out["compaction"] += e["usage"]["input_tokens"]
        for e in appended:
            if e["id"] not in present and e["id"] not in gone:
                gone.add(e["id"])
                out["evictions"].append({"turn": turn, "entry": e["id"], "origin": e["turn"],
                                         "tokens": e["tokens"]})
        if cap is not None and cap_in == "assemble":
            for e in context:
                if e["kind"] == "tool_output" and e["tokens"] > cap:
                    e["tokens"] = cap
        transcript.extend(arriving)
        appended.extend(arriving)
    out["cumulative"] = sum(out["submitted"])
    out["held"] = out["submitted"][-1] if out["submitted"] else 0
    out["binds_at"] = out["evictions"][0]["turn"] if out["evictions"] else None
    return out


def keep(transcript, limit):
    if sum(x["tokens"] for x in transcript) > limit:
        raise cc.ContextOverflow("over")
    return list(transcript)


def window(_w):
    def policy(transcript, limit):
        hist = list(transcript[2:])
        while sum(x["tokens"] for x in hist) > _w:
            del hist[0]
        return list(transcript[:2]) + hist
    return policy


def compact(transcript, limit):
    if sum(x["tokens"] for x in transcript[2:]) > h.trigger:
        transcript[2:] = [cc.summarize(transcript[2:], h.target)]
    return list(transcript)


def same(got, want, what, keys):
    for key in keys:
        assert got[key] == want[key], (
            f"{what}: {key} is {got[key]!r}, expected {want[key]!r}")


_fields = ("submitted", "cumulative", "held", "compaction", "binds_at", "overflow_at")
got = rec["everything"]["cumulative"]
assert got == 97_000, f"keep-everything over the session: {got:,} != 97,000"
_s = dict(preamble=h.preamble, per_turn=h.per_turn, turns=h.turns)
session = f"{h.preamble:,} preamble + {h.per_turn}/turn x {h.turns}"
k, want = rec["keep"], expect(keep, **_s)
assert (k["cumulative"], k["held"], k["compaction"], k["binds_at"], k["evictions"]) == (
        want["cumulative"], want["held"], 0, None, []), (
    f"keep-until-full over {session}: cumulative {k['cumulative']:,}, held {k['held']:,}, "
    f"compaction {k['compaction']}, binds {k['binds_at']}; expected {want['cumulative']:,} / "
    f"{want['held']:,} / 0 / None with no evictions")
w, want = rec["window"], expect(window(h.W), **_s)
same(w, want, f"window W={h.W:,} over {session}", _fields)
log = [(e["turn"], e["entry"]) for e in w["evictions"]]
assert log == [(e["turn"], e["entry"]) for e in want["evictions"]], (
    f"the window's eviction log must list each entry once, the turn it left: got {log}")
assert [(e["origin"], e["tokens"]) for e in w["evictions"]] == [
    (e["origin"], e["tokens"]) for e in want["evictions"]], "log origin turn and size"
c, want = rec["compact"], expect(compact, **_s)
same(c, want, f"compaction ({h.trigger:,} -> {h.target}) over {session} (count each "
     "summary's input tokens once, the first time it appears)", _fields)
fired = want["evictions"][0]["turn"]
assert sorted(e["entry"] for e in c["evictions"] if e["turn"] == fired) == sorted(
    e["entry"] for e in want["evictions"] if e["turn"] == fired), (
    f"the turns summarized at turn {fired} leave the context then, and the log must say so")
_e = dict(preamble=h.ex_preamble, per_turn=h.ex_per_turn, turns=h.ex_turns)
exercise = f"{h.ex_preamble:,} preamble + {h.ex_per_turn}/turn x {h.ex_turns}"
k1, w1 = rec["ex_keep"], rec["ex_window"]
kw, ww = expect(keep, **_e), expect(window(h.ex_W), **_e)
assert (k1["cumulative"], k1["held"], w1["cumulative"], w1["held"]) == (
        kw["cumulative"], kw["held"], ww["cumulative"], ww["held"]), (
    f"{exercise}: {k1['cumulative']:,}/{k1['held']:,} and {w1['cumulative']:,}/"
    f"{w1['held']:,}; expected {kw['cumulative']:,}/{kw['held']:,} and "
    f"{ww['cumulative']:,}/{ww['held']:,} (W={h.ex_W:,})")
third = [e["turn"] for e in ww["evictions"] if e["entry"] == "turn-3"]
assert [e["turn"] for e in w1["evictions"] if e["entry"] == "turn-3"] == third, (
    f"with W={h.ex_W:,} the turn-3 constraint is evicted at turn {third}, and the log must "
    "say so")
o = rec["overflow"]
want = expect(keep, preamble=h.ex_preamble, per_turn=h.ex_per_turn, turns=60,
              limit=h.overflow_limit)
assert (o["overflow_at"], len(o["submitted"]), o["held"]) == (
        want["overflow_at"], len(want["submitted"]), want["held"]), (
    f"overflow at turn {o['overflow_at']} after {len(o['submitted'])} turns holding "
    f"{o['held']:,}; against {h.overflow_limit:,} expected turn {want['overflow_at']}, after "
    f"{len(want['submitted'])} turns holding {want['held']:,} (the run stops at the overflow)")
quiet_limit = h.preamble + h.per_turn * h.quiet_steps + h.quiet_over
quiet = rec["quiet"]["overflow_at"]
dies = h.quiet_steps + 2
assert quiet == dies, (
    f"a policy that does not raise still overflows when its context exceeds the limit: turn "
    f"{dies} sends {h.preamble + h.per_turn * (dies - 1):,} > {quiet_limit:,}; got {quiet}")
for P, a, n, got in rec["shapes"]:
    assert got == n * P + a * n * (n - 1) // 2, (
        f"closed form n*P + a*n(n-1)/2 fails at {P, a, n}: the ledger gave {got:,}")
### END HIDDEN TESTS

# %% id="ledger_spikes_and_caps" kind="tests" points=2
from course.worlds import context_cache as cc

rep = ledger(lambda transcript, budget: list(transcript), preamble=2_000, per_turn=300, turns=20,
             spikes={4: 20_000})
assert rep.cumulative == 417_000, (
    f"a 20,000-token result at step 4 rides in prompts 5-20: expected 97,000 + 16 x 20,000 = "
    f"417,000, got {rep.cumulative:,}")


def _everything(transcript, budget):
    return list(transcript)


def _run(policy=_everything, **knobs):
    session = dict(preamble=1_000, per_turn=100, turns=4, spikes={2: 5_000})
    session.update(knobs)
    return ledger(policy, **session)


_spikes = {2: 5_000}
_raw = _run(spikes=_spikes)
assert _raw.submitted == [1_000, 1_100, 6_200, 6_300], (
    f"a 5,000 spike appended at turn 2 first rides in turn 3: got {_raw.submitted}")
assert _spikes == {2: 5_000}, f"ledger changed the caller's spikes to {_spikes}"
_order = []
_run(lambda t, b: _order.append([e["id"] for e in t]) or list(t), turns=3)
assert _order[-1] == ["system", "task", "turn-1", "turn-2", "output-2"], (
    f"turn 3's assemble saw {_order[-1]}; append the step entry first, then the spike")
assert _run(cap=2_000, cap_in="tool").submitted == [1_000, 1_100, 3_200, 3_300], (
    f"cap_in='tool': the tool returns 2,000 of the 5,000, so turns 3-4 send 3,200 and 3,300; "
    f"got {_run(cap=2_000, cap_in='tool').submitted}")
assert _run(cap=2_000, cap_in="assemble").submitted == [1_000, 1_100, 6_200, 3_300], (
    f"cap_in='assemble': the first prompt carrying the spike pays it whole (6,200), later ones "
    f"2,000 (3,300); got {_run(cap=2_000, cap_in='assemble').submitted}")
assert _run(spikes={1: 500}, cap=2_000, turns=2).submitted == [1_000, 1_600], (
    "a 500-token spike under a 2,000 cap keeps its 500 tokens: min(size, cap), not cap")
for _where, _cap_sizes in (("tool", [1_000, 1_500, 1_800]), ("assemble", [1_000, 2_300, 1_800])):
    _cap_sent = _run(per_turn=300, turns=3, spikes={1: 1_000}, cap=200, cap_in=_where).submitted
    assert _cap_sent == _cap_sizes, (
        f"cap=200, cap_in={_where!r}, 300-token steps, a 1,000 spike: expected {_cap_sizes}, got "
        f"{_cap_sent}; the cap applies to spikes only, never to step entries")
_trim = _run(lambda t, b: t[:2] + t[2:][-2:], turns=6, cap=2_000, cap_in="assemble")
_twant = [(3, "turn-1", 1, 100), (4, "turn-2", 2, 100), (5, "output-2", 2, 2_000),
          (6, "turn-3", 3, 100)]
assert [(e.turn, e.entry, e.origin, e.tokens) for e in _trim.evictions] == _twant, (
    f"a spike trimmed by cap_in='assemble' is logged at its trimmed size when it goes: "
    f"expected {_twant}, got {[(e.turn, e.entry, e.origin, e.tokens) for e in _trim.evictions]}")
_skip = _run(lambda t, b: [e for e in t if e["kind"] != "tool_output"], turns=3, cap=2_000,
             cap_in="assemble")
assert [(e.turn, e.entry, e.tokens) for e in _skip.evictions] == [(3, "output-2", 5_000)], (
    "a policy that never carries the spike never trims it: expected [(3, 'output-2', 5000)], "
    f"got {[(e.turn, e.entry, e.tokens) for e in _skip.evictions]}")
_full = ledger(_everything, preamble=2_000, per_turn=300, turns=10, limit=2_600)
assert (_full.overflow_at, _full.submitted, _full.held) == (4, [2_000, 2_300, 2_600], 2_600), (
    f"limit 2,600: turn 3 sends exactly 2,600 (it fits), turn 4 would send 2,900: expected "
    f"overflow_at 4, submitted [2000, 2300, 2600], held 2600; got {_full.overflow_at!r}, "
    f"{_full.submitted}, {_full.held!r}. The overflow turn is not in submitted")


def _refuse(transcript, budget):
    if len(transcript) > 3:
        raise cc.ContextOverflow("refused")
    return list(transcript)


try:
    _ref = ledger(_refuse, preamble=2_000, per_turn=300, turns=5)
    _refused = (_ref.overflow_at, _ref.submitted)
except cc.ContextOverflow:
    _refused = "ContextOverflow escaped from ledger"
assert _refused == (3, [2_000, 2_300]), (
    f"an assemble that raises ContextOverflow at turn 3 makes turn 3 the overflow turn: "
    f"expected (3, [2000, 2300]), got {_refused}")
_first = ledger(_everything, preamble=5_000, per_turn=300, turns=3, limit=4_000)
assert (_first.overflow_at, _first.submitted, _first.cumulative, _first.held) == (1, [], 0, 0), (
    f"a 5,000 preamble against 4,000 overflows at turn 1 with nothing sent: got overflow_at "
    f"{_first.overflow_at!r}, submitted {_first.submitted}, cumulative {_first.cumulative!r}, "
    f"held {_first.held!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(preamble=range(1_000, 3_001, 250), per_turn=range(200, 401, 50),
                  turns=range(16, 25), spike_at=range(2, 8), spike=range(10_000, 30_001, 1_000),
                  cap=range(1_000, 4_001, 500), W=range(2_000, 4_001, 500),
                  comp_preamble=range(1_000, 3_001, 250), comp_per_turn=range(200, 601, 50),
                  comp_turns=range(40, 46), over_preamble=range(1_000, 3_001, 250),
                  over_per_turn=range(200, 601, 50), over_limit=range(6_001, 12_001, 50))


def everything(transcript, budget):
    return list(transcript)


def ref_window(transcript, budget):
    hist = list(transcript[2:])
    while sum(x["tokens"] for x in hist) > h.W:
        del hist[0]
    return list(transcript[:2]) + hist


def last_three(transcript, budget):
    return list(transcript[:2]) + list(transcript[2:])[-3:]


S = dict(preamble=h.preamble, per_turn=h.per_turn, turns=h.turns, spikes={h.spike_at: h.spike})
tool = ledger(everything, **S, cap=h.cap, cap_in="tool")
asm = ledger(everything, **S, cap=h.cap, cap_in="assemble")
win = ledger(ref_window, **S)
spikes_after = record(spikes=S["spikes"])
rec = record(
    raw=rep, tool=tool, asm=asm, win=win, spikes_after=spikes_after,
    kept=ledger(last_three, **S, cap=h.cap, cap_in="assemble"),
    never=ledger(ref_window, **S, cap=h.cap, cap_in="assemble"),
    comp=ledger(lambda t, b: assemble_summarize_and_compact(t, b, summarize=cc.summarize),
                preamble=h.comp_preamble, per_turn=h.comp_per_turn, turns=h.comp_turns),
    over=ledger(everything, preamble=h.over_preamble, per_turn=h.over_per_turn, turns=60,
                limit=h.over_limit),
)
### JUDGE
import math

from course.observe import hidden_inputs
from course.worlds import context_cache as cc

h = hidden_inputs(preamble=range(1_000, 3_001, 250), per_turn=range(200, 401, 50),
                  turns=range(16, 25), spike_at=range(2, 8), spike=range(10_000, 30_001, 1_000),
                  cap=range(1_000, 4_001, 500), W=range(2_000, 4_001, 500),
                  comp_preamble=range(1_000, 3_001, 250), comp_per_turn=range(200, 601, 50),
                  comp_turns=range(40, 46), over_preamble=range(1_000, 3_001, 250),
                  over_per_turn=range(200, 601, 50), over_limit=range(6_001, 12_001, 50))


def expect(policy, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=math.inf):
    """The ledger of the notebook's spec, run here on the grader's own policies."""
    transcript = cc.preamble_entries(preamble)
    appended, gone, summaries = list(transcript), set(), set()
    out = {"submitted": [], "compaction": 0, "evictions": [], "overflow_at": None}
    for turn in range(1, turns + 1):
        arriving = [cc.step_entry(turn, per_turn)]
        if (spikes or {}).get(turn):
            size = spikes[turn] if cap is None or cap_in != "tool" else min(spikes[turn], cap)
            arriving.append(cc.tool_output(turn, size))
        try:
            context = policy(transcript, limit)
        except cc.ContextOverflow:
            out["overflow_at"] = turn
            break
        sent = sum(e["tokens"] for e in context)
        if sent > limit:
            out["overflow_at"] = turn
            break
        out["submitted"].append(sent)
        present = {e["id"] for e in context}
        for e in context:
            if e["kind"] == "summary" and e["id"] not in summaries:
                summaries.add(e["id"])
                out["compaction"] += e["usage"]["input_tokens"]
        for e in appended:
            if e["id"] not in present and e["id"] not in gone:
                gone.add(e["id"])
                out["evictions"].append({"turn": turn, "entry": e["id"], "origin": e["turn"],
                                         "tokens": e["tokens"]})
        if cap is not None and cap_in == "assemble":
            for e in context:
                if e["kind"] == "tool_output" and e["tokens"] > cap:
                    e["tokens"] = cap
        transcript.extend(arriving)
        appended.extend(arriving)
    out["cumulative"] = sum(out["submitted"])
    out["held"] = out["submitted"][-1] if out["submitted"] else 0
    out["binds_at"] = out["evictions"][0]["turn"] if out["evictions"] else None
    return out


def keep(transcript, limit):
    if sum(x["tokens"] for x in transcript) > limit:
        raise cc.ContextOverflow("over")
    return list(transcript)


def window(_w):
    def policy(transcript, limit):
        hist = list(transcript[2:])
        while sum(x["tokens"] for x in hist) > _w:
            del hist[0]
        return list(transcript[:2]) + hist
    return policy


def everything(transcript, limit):
    return list(transcript)


got = rec["raw"]["cumulative"]
assert got == 417_000, (
    f"a 20,000-token result at step 4 rides in prompts 5-20: expected 97,000 + 16 x 20,000 = "
    f"417,000, got {got:,}")
_s = dict(preamble=h.preamble, per_turn=h.per_turn, turns=h.turns, spikes={h.spike_at: h.spike})
spiky = (f"{h.preamble:,} preamble + {h.per_turn}/turn x {h.turns}, a {h.spike:,}-token result "
         f"at step {h.spike_at}")
s, cap = h.spike_at, h.cap
tool, asm = rec["tool"], rec["asm"]
want = expect(everything, **_s, cap=cap, cap_in="tool")["cumulative"]
assert tool["cumulative"] == want, (
    f"cap {cap:,} in the tool over {spiky}: {tool['cumulative']:,}; expected {want:,}")
want = expect(everything, **_s, cap=cap, cap_in="assemble")
assert asm["cumulative"] == want["cumulative"], (
    f"cap {cap:,} in assemble over {spiky}: {asm['cumulative']:,}; expected "
    f"{want['cumulative']:,} (the first carrying prompt pays {h.spike:,}, the later ones "
    f"{cap:,})")
sub = asm["submitted"]
assert sub[s:s + 2] == want["submitted"][s:s + 2], (
    f"turns {s + 1} and {s + 2} submitted {sub[s:s + 2]}; the spike rides whole once "
    f"({want['submitted'][s]:,}), then capped ({want['submitted'][s + 1]:,})")
win = rec["win"]
left = [[e["turn"], e["origin"], e["tokens"]] for e in win["evictions"]
        if e["entry"] == f"output-{s}"]
assert left == [[s + 1, s, h.spike]], (
    f"the window W={h.W:,} evicts the spike at turn {s + 1}, unread: got {left}")
want = expect(window(h.W), **_s)["cumulative"]
assert win["cumulative"] == want, (
    f"window W={h.W:,} over {spiky}: {win['cumulative']:,} != {want:,}")
assert rec["spikes_after"]["spikes"] == {str(s): h.spike}, "do not modify the caller's spikes"
# carried at turns s+1 to s+3 (trimmed after turn s+1's prompt), gone at turn s+4: logged trimmed
left = [[e["turn"], e["origin"], e["tokens"]] for e in rec["kept"]["evictions"]
        if e["entry"] == f"output-{s}"]
assert left == [[s + 4, s, cap]], (
    f"a spike trimmed by cap_in='assemble' is logged at its trimmed size when it goes: "
    f"expected [({s + 4}, {s}, {cap})], got {left}")
# a policy that never carries the spike never trims it
left = [[e["turn"], e["origin"], e["tokens"]] for e in rec["never"]["evictions"]
        if e["entry"] == f"output-{s}"]
assert left == [[s + 1, s, h.spike]], (
    f"cap_in='assemble' trims only after a prompt carried the spike; never carried, it is "
    f"logged whole: expected [({s + 1}, {s}, {h.spike})], got {left}")
# summaries never enter the eviction log, only appended entries
comp = [e["entry"] for e in rec["comp"]["evictions"]]
assert comp and all(not str(e).startswith("summary") for e in comp), (
    "only appended entries (preamble, steps, spikes) enter the eviction log, never summaries: "
    f"got {[e for e in comp if str(e).startswith('summary')][:3]}")
# the overflow turn sent nothing, so it is not in submitted
over = rec["over"]
P, a, limit = h.over_preamble, h.over_per_turn, h.over_limit
dies = next(k for k in range(1, 61) if P + a * (k - 1) > limit)
assert over["overflow_at"] == dies and len(over["submitted"]) == dies - 1, (
    f"the overflow turn is not in submitted (nothing was sent on it): {P:,} + {a}/turn against "
    f"{limit:,}, turn {dies}'s prompt is {P + a * (dies - 1):,} > {limit:,}, so {dies - 1} "
    f"entries; got overflow_at={over['overflow_at']}, {len(over['submitted'])} entries")
### END HIDDEN TESTS

# %% [markdown]
# ## 4.4 Control flow beyond one loop
#
# The loop decides one step at a time. The alternative is to **plan** first and then
# execute: auditable, cheaper per step, cacheable, but written before any observation
# arrives, so you now own a replanning policy too.
#
# **Sub-agents** are usually sold for parallelism. The real reason is **context isolation**:
# a sub-agent reads a file in its own context and hands back three lines, and the rest never
# enters the parent's transcript. The price is a fresh preamble for every sub-agent. Here is
# a fan-out of four readers with a join (illustrative timings):

# %%
parents = {n: [p for p, kids in cc.FANOUT_EDGES.items() if n in kids] for n in cc.FANOUT_EDGES}
finish, via = {}, {}
for node in ["plan", *cc.SUBAGENT_TURNS, "join"]:                # a topological order
    start = max((finish[p] for p in parents[node]), default=0.0)
    via[node] = max(parents[node], key=lambda p: finish[p], default=None)
    finish[node] = start + cc.FANOUT_SECONDS[node]
path, node = [], "join"
while node is not None:
    path.append(node)
    node = via[node]
print("critical path:", " -> ".join(reversed(path)), f"= {finish['join']:.1f} s "
      f"(all nodes one after another: {sum(cc.FANOUT_SECONDS.values()):.1f} s)")
print(f"\n{'sub-agent':18}{'turns':>6}{'fresh preamble':>16}{'all its prompts':>17}")
P, a = cc.SUBAGENT_PREAMBLE, cc.SUBAGENT_PER_TURN
for name, n in cc.SUBAGENT_TURNS.items():
    print(f"{name:18}{n:>6}{n * P:>16,}{cc.closed_form(P, a, n):>17,}")
fresh = sum(n * P for n in cc.SUBAGENT_TURNS.values())
raw_reading = sum(cc.SUBAGENT_TURNS.values()) * a
back = len(cc.SUBAGENT_TURNS) * cc.SUBAGENT_RETURN
print(f"\npaid for isolation: {fresh:,} tokens of re-sent preambles; bought: the parent's "
      f"transcript grows by {back:,} tokens instead of {raw_reading:,}")

# %% [markdown]
# Only the slowest branch is on the critical path, so parallelism buys the wall-clock gap,
# and only when branches really are independent. **Parallel tool calls** are the cheap
# version: issue independent calls in one turn and pay one round of model latency, not *k*.
# All of this needs the dependency structure, which is the point to end on: with planning,
# fan-out and conditional retries, an agent produces **a dependency graph of model calls,
# generated while it runs** — and the right words for it are scheduling words: dependencies,
# critical path, placement.

# %% [markdown] kind="instructor"
# ### Instructor notes — §4.4 (9 minutes)
#
# **Board.** Draw the four-way fan-out with its join. Circle the join and ask for the
# critical path; then write "fresh preamble" on each branch so the cost of isolation is
# visible. Leave the graph up: the next lecture prices each branch.
#
# **Ask the room.** "You spawn five sub-agents to read five files. What did that buy, and
# what did it cost?" Steer from "speed" to "the parent never sees the noise".
#
# **Expected confusion.** Sub-agents as a performance feature. Answer: the win is the
# parent's small context; the parallelism is a bonus you often cannot use, because the next
# call depends on this one.
#
# **Short on time.** Drop parallel tool calls. The "dependency graph generated while it
# runs" sentence must survive: it is the hand-off to the serving half of the course.

# %% [markdown]
# ## 4.5 Failures, budgets, stopping, durability
#
# Decide idempotency **before** retry policy: retrying a non-idempotent tool is strictly worse
# than failing. Budgets belong in the signature (a token budget and a wall-clock budget,
# checked in the loop condition). The stopping condition is a **safety property**: use two
# independent bounds, the model saying it is done and an external cap that fires regardless.
#
# Between them sits **loop detection**. The common non-termination is not a runaway but a
# two-step cycle: the same failing call, retried with cosmetically different arguments. A
# fingerprint of the tool name with its *normalised* arguments, over a short window, sees
# through the cosmetics:

# %%
import hashlib
from collections import deque


def normalised(value):
    if isinstance(value, str):
        return " ".join(value.lower().split())
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def fingerprint(name, args):
    raw = json.dumps([name, normalised(args)], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:10]


recent = deque(maxlen=4)                    # the last few failing calls: (step, fingerprint)
for step, (name, args) in enumerate(cc.STUCK_CALLS, 1):
    fp = fingerprint(name, args)
    print(f"step {step}: {name}({args}) fails  fingerprint {fp}")
    earlier = [s for s, f in recent if f == fp]
    if earlier:
        print(f"-> stop at step {step}: the same call, normalised, already failed at step "
              f"{earlier[0]} (a two-step cycle)")
        break
    recent.append((step, fp))

# %% [markdown]
# ### The life of a tool call
#
# ```text
#                      ┌──> ok                    size it: cap the output before it enters the transcript
#  issued ──> running ─┼──> error-as-data         do not retry in the loop: hand the error to the model
#                      ├──> crashed-mid-write     reconcile: read the world back, then decide
#                      └──> timeout               you learned NOTHING: the write may have landed
#
#                      retry  ⇐  idempotent
# ```
#
# A **timeout** is a silence, and three different worlds produce exactly the same one: the
# request never arrived; it arrived, committed, and the answer was lost; it arrived, is still
# running, and will commit after you gave up. The client sees the same exception each time:

# %%
for world in cc.TIMEOUT_WORLDS:
    book = cc.InvoiceBook()
    link = cc.Link(cc.keyless(book.post_invoice), fates=[world], book=book)
    try:
        link({"name": "post_invoice", "input": {"customer_id": "c-17", "amount_cents": 12_900}})
    except cc.ToolTimeout as err:
        seen_by_client = type(err).__name__
    at_timeout = len(book.rows)
    book.settle()
    print(f"{world:14} client saw {seen_by_client}; invoices when it gave up: {at_timeout}, "
          f"a moment later: {len(book.rows)}")

# %% [markdown]
# Without idempotency the rule is blunt: retry only from a state that *proves* nothing
# happened, never from one that merely fails to prove something did. A timeout proves
# nothing. With idempotency, made with a **request key** (an id minted when the call is
# issued, written into the transcript, and deduplicated on where the write commits), the
# unanswerable "did my call happen?" becomes "did key *k* commit?".
#
# The key must live in the transcript, not in a local variable: **the transcript is the
# state**. Append each entry as it happens and recovery is a replay from the last one; a
# replayed call must carry the same key as the original, or the dedup has nothing to match.
#
# Implement both halves. `retry_allowed` takes a terminal state (`cc.OK`,
# `cc.ERROR_AS_DATA`, `cc.CRASHED_MID_WRITE`, `cc.TIMEOUT`). `with_request_key(tool,
# *, table)` wraps a write *where it commits*: it returns `call(entry)`, which runs
# `tool(**entry["input"])` at most once per `entry["request_key"]`, remembering each
# key's result in `table` (a durable dict that outlives the agent process).

# %% id="retry_allowed" kind="solution"
from course.worlds.context_cache import CRASHED_MID_WRITE, TERMINAL_STATES, TIMEOUT


def retry_allowed(state, *, idempotent):
    """May a tool call that ended in ``state`` be sent again, as is, by the loop?

    ok and error-as-data: never (nothing to redo; the model decides what to do with an
    error). timeout and crashed-mid-write: True only if the call is idempotent. A
    non-idempotent call in those states gets False: the loop must not resend it as is; it
    reconciles instead (reads the world back, then decides), which is not this function's
    job. Raise ValueError for a state that is not terminal.
    """
    ### BEGIN SOLUTION
    if state not in TERMINAL_STATES:
        raise ValueError(f"{state!r} is not a terminal state of a tool call")
    if state == TIMEOUT:
        return bool(idempotent)     # silence proves nothing: the write may have landed
    if state == CRASHED_MID_WRITE:
        return bool(idempotent)     # otherwise reconcile: read the world back first
    return False                    # ok needs no retry; an error goes back to the model
    ### END SOLUTION

# %% id="request_key" kind="solution"
def with_request_key(tool, *, table):
    """Wrap the write ``tool`` so that each request key commits at most once.

    Returns call(entry): entry is the transcript's tool-call entry, with "input" (the
    tool's keyword arguments) and "request_key" (minted when the call was issued). If
    the key is in ``table`` (whatever was stored, None included), return the stored result
    without calling the tool; otherwise call it, store the result in ``table`` under the
    key, and return it. Two calls with the same arguments but different keys are two
    writes. An entry with no "request_key" raises KeyError without calling the tool: a
    write without a key cannot be deduplicated.
    """
    ### BEGIN SOLUTION
    def call(entry):
        key = entry["request_key"]          # the transcript's key: it survives a replay
        if key in table:
            return table[key]               # committed before: answer, do not write again
        result = tool(**entry["input"])
        table[key] = result
        return result
    return call
    ### END SOLUTION

# %% [markdown]
# A replayed call now commits once. The first attempt's answer is lost after the write; the
# agent crashes; a new process reads the transcript back and replays the last call:

# %%
import copy
import random

book, keys = cc.InvoiceBook(), {}
transcript = []
entry = cc.issue_call(transcript, "post_invoice", {"customer_id": "c-17", "amount_cents": 12_900},
                      rng=random.Random(0))
lossy = cc.Link(with_request_key(book.post_invoice, table=keys), fates=[cc.RESPONSE_LOST])
try:
    lossy(entry)
except cc.ToolTimeout:
    print("first attempt: timed out (the write had committed)")
recovered = copy.deepcopy(transcript)                      # what a restarted process reads back
print("replay of", recovered[-1]["request_key"], "->", lossy(recovered[-1]))
print(f"invoices: {len(book.rows)}; billed {book.charged('c-17'):,} cents")
print("and a timeout on a keyless write is not retried:",
      cc.call_with_policy(cc.Link(cc.keyless(book.post_invoice), [cc.RESPONSE_LOST]), entry,
                          retry_allowed=retry_allowed, idempotent=False)["result"])

# %% [markdown] kind="instructor"
# ### Instructor notes — §4.5 (14 minutes)
#
# **Board.** Two lines first: "stopping condition = safety property" and "transcript =
# state". Then the state machine as six boxes (issued, running, four exits) with
# "retry ⇐ idempotent" beneath, and walk the exits asking, for each, whether a retry is
# allowed. When you reach durability, draw the window between appending the call and
# appending its result: a tool can commit inside it, which is why the key goes in the
# transcript.
#
# **Ask the room.** "Your agent has been running nine minutes. What in your code was supposed
# to have stopped it?"
#
# **Expected confusion.** Budgets are "a production concern". Answer: you need one the first
# time you leave a loop running while you get coffee.
#
# **Common wrong answer.** "Timeout means it failed." It means you learned nothing; the tool
# may have committed. If everything else here is cut, that sentence stays.
#
# **Short on time.** Drop the append-then-commit window; compress the state machine to the
# timeout box; keep "transcript is the state" and the two bounds.

# %% id="retry_allowed_states" kind="tests" points=2
from course.worlds import context_cache as cc

assert not retry_allowed(cc.TIMEOUT, idempotent=False), (
    "a timeout on a non-idempotent call must not be retried: the write may already have "
    "committed, and a retry would commit it twice")
_expected = {(cc.OK, False): False, (cc.OK, True): False,
             (cc.ERROR_AS_DATA, False): False, (cc.ERROR_AS_DATA, True): False,
             (cc.CRASHED_MID_WRITE, False): False, (cc.CRASHED_MID_WRITE, True): True,
             (cc.TIMEOUT, False): False, (cc.TIMEOUT, True): True}
for (_state, _idem), _want in _expected.items():
    _got = retry_allowed(_state, idempotent=_idem)
    assert _got is _want, (
        f"retry_allowed({_state!r}, idempotent={_idem}) returned {_got!r}, expected {_want}: "
        "ok and error-as-data never; timeout and crashed-mid-write only if idempotent")
for _state in (cc.ISSUED, cc.RUNNING, "finished"):
    try:
        _said = repr(retry_allowed(_state, idempotent=True))
    except ValueError:
        _said = "ValueError"
    except Exception as _exc:  # noqa: BLE001
        _said = type(_exc).__name__
    assert _said == "ValueError", (
        f"retry_allowed({_state!r}) gave {_said}; a state that is not terminal raises ValueError")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

table = {state: {str(idem): outcome(retry_allowed, state, idempotent=idem)
                 for idem in (False, True)}
         for state in (cc.OK, cc.ERROR_AS_DATA, cc.CRASHED_MID_WRITE, cc.TIMEOUT)}
worlds = {}
for fate in cc.TIMEOUT_WORLDS:
    billing = cc.InvoiceBook()
    link = cc.Link(cc.keyless(billing.post_invoice), [fate, fate, fate], book=billing)
    out = cc.call_with_policy(link, {"name": "post_invoice",
                                     "input": {"customer_id": "c-9", "amount_cents": 500}},
                              retry_allowed=retry_allowed, idempotent=False)
    billing.settle()
    worlds[fate] = {"attempts": out["attempts"], "invoices": len(billing.rows)}
rec = record(table=table, worlds=worlds)
### JUDGE
from course.worlds import context_cache as cc


def answer(state, idem):
    got = rec["table"][state][str(idem)]
    assert got["raised"] is None, (
        f"retry_allowed({state!r}, idempotent={idem}) raised {got['raised']}; every terminal "
        "state has an answer")
    return got["value"]


assert not answer(cc.TIMEOUT, False), (
    "a timeout on a non-idempotent call must not be retried: the write may already have "
    "committed, and a retry would commit it twice")
assert answer(cc.TIMEOUT, True), (
    "an idempotent (request-keyed) call may be retried after a timeout: a duplicate is harmless")
assert not answer(cc.CRASHED_MID_WRITE, False), (
    "a non-idempotent write that crashed part-way must be reconciled, not retried")
for idem in (False, True):
    assert not answer(cc.OK, idem), "an ok call has nothing to retry"
    assert not answer(cc.ERROR_AS_DATA, idem), (
        "an error returned as data goes back to the model; the loop does not retry it")
for fate, seen in rec["worlds"].items():
    assert seen["attempts"] == 1 and seen["invoices"] <= 1, (
        f"in the {fate} world the keyless write was sent {seen['attempts']} times and made "
        f"{seen['invoices']} invoices; never retry a timeout without idempotency")
### END HIDDEN TESTS

# %% id="request_key_dedup" kind="tests" points=2
import random

from course.worlds import context_cache as cc

book, table, transcript = cc.InvoiceBook(), {}, []
entry = cc.issue_call(transcript, "post_invoice", {"customer_id": "c-17", "amount_cents": 12_900},
                      rng=random.Random(4))
link = cc.Link(with_request_key(book.post_invoice, table=table), [cc.RESPONSE_LOST])
try:
    link(entry)
except cc.ToolTimeout:
    pass
again = link(transcript[-1])
assert len(book.rows) == 1, (
    f"the replayed call made {len(book.rows)} invoices; deduplicate on the transcript entry's "
    "request_key so a retried write commits once")
assert again == book.rows[0], (
    f"the replay returned {again!r}; return the result stored for the key: {book.rows[0]!r}")
assert table == {entry["request_key"]: book.rows[0]}, (
    f"table holds {table!r}; store each result in the given table under its request_key")
_fresh = with_request_key(book.post_invoice, table=table)       # a new process, same table
assert _fresh(dict(entry)) == book.rows[0] and len(book.rows) == 1, (
    "a new wrapper over the same table must answer the committed key without writing: keep "
    "the results in ``table``, not in a dict of the wrapper's own")
_book, _table, _issued = cc.InvoiceBook(), {}, []
_args = {"customer_id": "c-17", "amount_cents": 12_900}
_write = with_request_key(_book.post_invoice, table=_table)
_results = [_write(cc.issue_call(_issued, "post_invoice", _args, rng=random.Random(n)))
            for n in (1, 2)]
assert len(_book.rows) == 2 and _results == _book.rows, (
    f"two calls (two keys) with the same arguments are two invoices: got {len(_book.rows)} "
    f"invoices, returned {_results!r}; deduplicate on the key, not on the arguments, and return "
    "the tool's result")
try:
    _write({"input": {"customer_id": "c-19", "amount_cents": 100}})
    _keyless = "no error"
except KeyError:
    _keyless = "KeyError"
assert _keyless == "KeyError" and len(_book.rows) == 2, (
    f"an entry with no request_key gave {_keyless} and left {len(_book.rows)} invoices (2 "
    "before); raise KeyError before calling the tool")
_notes = []
_quiet = with_request_key(lambda **kw: _notes.append(kw), table={})   # returns None
_once = {"input": {"text": "hi"}, "request_key": "rk-quiet"}
_quiet(_once)
_quiet(_once)
assert len(_notes) == 1, (
    f"a tool whose result is None ran {len(_notes)} times for one key; test 'key in table', "
    "not the stored value")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(late_customer=tuple(f"c-{n}" for n in range(20, 100)),
                  late_cents=range(100, 50_001, 100), late_key=range(10, 10_000),
                  new_key=range(10, 10_000),
                  keyless_customer=tuple(f"c-{n}" for n in range(20, 100)),
                  keyless_cents=range(100, 50_001, 100))
at_replay = record(again=again, rows=book.rows)
restarted = with_request_key(book.post_invoice, table=table)      # a new process, same table
replayed = [dict(e) for e in transcript]
at_restart = record(value=restarted(replayed[-1]), rows=book.rows)
late = cc.InvoiceBook()
late_table = {}
entry2 = cc.issue_call(transcript, "post_invoice",
                       {"customer_id": h.late_customer, "amount_cents": h.late_cents},
                       rng=random.Random(h.late_key))
slow = cc.Link(with_request_key(late.post_invoice, table=late_table), [cc.LATE_COMMIT], book=late)
try:
    slow(entry2)
except cc.ToolTimeout:      # the first attempt is still in flight
    pass
slow(entry2)
late.settle()
other = cc.issue_call(transcript, "post_invoice", {"customer_id": "c-17", "amount_cents": 12_900},
                      rng=random.Random(h.new_key))
link(other)
after_new = len(book.rows)
keyless = with_request_key(book.post_invoice, table={})
no_key = outcome(keyless, {"input": {"customer_id": h.keyless_customer,
                                     "amount_cents": h.keyless_cents}})
rec = record(at_replay=at_replay, at_restart=at_restart, late=len(late.rows),
             after_new=after_new, no_key=no_key, after_no_key=len(book.rows))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(late_customer=tuple(f"c-{n}" for n in range(20, 100)),
                  late_cents=range(100, 50_001, 100), late_key=range(10, 10_000),
                  new_key=range(10, 10_000),
                  keyless_customer=tuple(f"c-{n}" for n in range(20, 100)),
                  keyless_cents=range(100, 50_001, 100))
rows = rec["at_replay"]["rows"]
assert len(rows) == 1, (
    f"the replayed call made {len(rows)} invoices; deduplicate on the transcript entry's "
    "request_key so a retried write commits once")
assert rec["at_replay"]["again"] == rows[0], "the replay must return the original commit's result"
restart = rec["at_restart"]
assert restart["value"] == rows[0] and len(restart["rows"]) == 1, (
    "after a restart, replaying the transcript's entry must not write again: the key comes "
    "from the transcript, not from anything the old process held")
assert rec["late"] == 1, (
    f"a late commit plus a retry of {h.late_customer}'s {h.late_cents}-cent invoice made "
    f"{rec['late']} invoices; the key must dedupe both")
assert rec["after_new"] == 2, "a NEW call (a new key) with the same arguments is a new invoice"
raised = rec["no_key"]["raised"]
assert raised is not None and raised["type"] == "KeyError", (
    f"a call with no request_key ({h.keyless_customer}, {h.keyless_cents} cents) was written "
    f"(or raised {raised}); raise KeyError instead")
assert rec["after_no_key"] == 2, "a call with no request_key must raise before calling the tool"
### END HIDDEN TESTS

# %% [markdown]
# ## Explain
#
# **A new case.** Your agent calls `post_invoice(customer_id, amount_cents)`,
# which creates a billing record and has **no request key**. Median latency is 400 ms, the
# p99 is 8 s, and your client timeout is 5 s. Design the retry policy, defend it state by
# state against the state machine above, and name the one interface change that makes the
# question easy, and what that change costs.

# %% [markdown] id="post_invoice_policy" kind="manual" points=4
# ### BEGIN SOLUTION
# **Model answer.** The 5 s timeout is below the 8 s p99, so *more* than 1% of calls time
# out, and many of those have already committed (or will): blind retrying duplicates on the
# order of one invoice in a hundred. State by state: **ok** — done; cap the output.
# **error-as-data** — do not retry in the loop; a retry is safe only when the error itself
# proves no side effect (a validation rejection, connection refused before sending);
# otherwise hand it to the model and count repeats (the loop detector). **crashed-mid-write**
# — never retry; reconcile by reading back. **timeout** — never retry; append "post_invoice
# timed out, may or may not have committed" to the transcript as data, then call a read such
# as `list_invoices(customer_id, since)` to establish what happened before any further action.
# Raising the timeout above the p99 shrinks the ambiguous window but never closes it.
# **Interface change:** accept a client-generated `request_key` and deduplicate on it where
# the invoice is written; then every retry is safe and the reconciling read is unnecessary.
# **Cost:** the service must store keys (and expire them), and the key must be minted at issue
# time and written into the transcript, so that a replayed run reuses it instead of minting a
# new one.
#
# **Mark scheme (4 points).**
# * 1 — the number: 5 s < p99 = 8 s, so over 1% of calls time out, and a timed-out call may
#   have committed (duplicates ≈ 1 in 100 under blind retry).
# * 1 — the states: no retry on timeout or crashed-mid-write without idempotency; error-as-data
#   goes to the model (retry only when the error proves nothing happened).
# * 1 — the recovery: surface the ambiguity as data and reconcile with a read before acting.
# * 1 — the interface change (request key, deduplicated server-side) AND its cost (stored
#   keys; the key must live in the transcript to survive replay). Half a point if the cost is
#   missing.
# ### END SOLUTION

# %% [markdown]
# **Another new case.** On a task whose success depends on a numeric constraint the
# user stated in turn 3, which fails worse: keep-until-full or the W = 4,000 window? Argue from
# the eviction log and the overflow turn you computed above.

# %% [markdown] id="silent_versus_abrupt" kind="manual" points=2
# ### BEGIN SOLUTION
# **Model answer.** The window fails worse. It holds ten turns of 400 tokens, so turn 3's
# constraint is sent through turn 13 and evicted at turn 14; from then on every answer is
# produced without it, fluently and with no error — a silent miss that looks exactly like a
# correct run. Keep-until-full keeps the constraint until it overflows 16,384 tokens at turn 35,
# where it raises: loud, catchable, and it never answers with the constraint missing. The
# window's 20% saving (146,000 vs 182,400) bought a wrong answer.
#
# **Mark scheme (2 points).**
# * 1 — the mechanism with the numbers: turn 3 evicted at turn 14, silently; overflow at turn 35
#   raises.
# * 1 — the judgement: silent loss is worse than abrupt failure because it cannot be detected or
#   handled (only the eviction log shows it).
# ### END SOLUTION

# %% [markdown] kind="instructor"
# ### Instructor notes — the assignment briefing (5 minutes)
#
# Say the deadlines out loud, including the turnaround where one assignment is due on a
# Sunday night and the next goes out on the Monday morning. The message to land: write the
# loop yourself; the four decisions of §4.1 are the four things that must be yours; and a
# small working agent with measurements (where the tokens go, by context component; where the
# wall-clock goes, model vs tool vs orchestration) outscores an ambitious broken one. Tell them
# to build the counters while writing the loop, not after. **Ask the room:** nothing; use
# the time for logistics.
