"""Blind samples for lecture04_context_cache: written from the release notebook alone.

Each bug is the base solution below with ONE deviation from what the notebook states, made
with :func:`_swap` (which fails loudly if the edited text is not in the base). The correct
variants are written out in full, in a different structure.
"""

from course.grading.proofs.blind import Blind

RUN_LOOP = r'''import json

from course.worlds.context_cache import MODEL


def run_loop(task, *, client, tools, dispatch, max_steps=8):
    """Run the agent loop on ``task`` and return the model's final text.

    client    -- an anthropic.Anthropic client (here: the fake)
    tools     -- tool definitions offered to the model
    dispatch  -- a dict from tool name to a Python function called with the tool's input
                 as keyword arguments (a dict here, not a dispatch function)
    max_steps -- the most model calls to make; after that raise RuntimeError
    """
    messages = [{"role": "user", "content": task}]
    for _ in range(max_steps):                      # decision 3b: an external bound
        # decision 1: what the model may know -- here, the whole transcript
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        calls = [b for b in reply.content if b.type == "tool_use"]
        if not calls:                               # decision 3a: the model says it is done
            return "".join(b.text for b in reply.content if b.type == "text")
        results = []
        for call in calls:                          # decision 2: act on the world
            try:
                output = dispatch[call.name](**call.input)
                results.append({"type": "tool_result", "tool_use_id": call.id,
                                "content": json.dumps(output)})
            except Exception as exc:                # decision 4: a failure becomes data
                results.append({"type": "tool_result", "tool_use_id": call.id,
                                "content": json.dumps({"error": f"{type(exc).__name__}: {exc}"}),
                                "is_error": True})
        messages.append({"role": "user", "content": results})
    raise RuntimeError(f"no final answer after {max_steps} model calls")
'''

TOKENS = r'''from course.tokens import count as count_tokens


def tokens(entries):
    """Total tokens in a list of entries.

    An entry with a "tokens" field counts that many; any other entry (e.g. an API message
    dict) is counted with course.tokens.count on its "content" (or on the whole entry).
    """
    total = 0
    for entry in entries:
        if "tokens" in entry:
            total += entry["tokens"]
        else:
            total += count_tokens(entry["content"] if "content" in entry else entry)
    return total
'''

KEEP = r'''from course.worlds.context_cache import Budget, ContextOverflow


def assemble_keep_until_full(transcript, budget):
    """Send the whole transcript; raise ContextOverflow if it exceeds budget.context_limit."""
    size = tokens(transcript)
    if size > budget.context_limit:
        raise ContextOverflow(f"the transcript holds {size:,} tokens, over the context limit "
                              f"of {budget.context_limit:,}")
    return list(transcript)
'''

WINDOW = r'''def assemble_sliding_window_pinned(transcript, budget, W=3000):
    """Pin transcript[:2]; of the rest keep the newest entries whose total is at most W.

    Evict from the oldest end, and only while the history is strictly over W.
    Do not modify ``transcript``.
    """
    pinned, history = list(transcript[:2]), list(transcript[2:])
    while history and tokens(history) > W:
        history.pop(0)                      # the silent line: the oldest entry leaves
    return pinned + history
'''

COMPACT = r'''def assemble_summarize_and_compact(transcript, budget, trigger=3000, target=500, *,
                                   summarize):
    """Pin transcript[:2]. If the rest is strictly over ``trigger`` tokens, replace it with
    ``summarize(rest, target)`` IN THE TRANSCRIPT (so the compaction persists), then send
    the pinned entries plus what the history now is.
    """
    if tokens(transcript[2:]) > trigger:
        transcript[2:] = [summarize(transcript[2:], target)]
    return list(transcript)
'''

LEDGER = r'''from course.worlds.context_cache import (
    Budget,
    ContextOverflow,
    Eviction,
    LedgerReport,
    preamble_entries,
    step_entry,
    tool_output,
)


def ledger(assemble, *, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=None):
    """Run ``assemble(transcript, budget)`` over a synthetic session; return a LedgerReport."""
    if cap_in not in ("tool", "assemble"):
        raise ValueError(f"cap_in must be 'tool' or 'assemble', not {cap_in!r}")
    budget = Budget() if limit is None else Budget(context_limit=limit)
    transcript = preamble_entries(preamble)
    appended = list(transcript)          # every entry the session appended, in order
    untrimmed = []                       # spikes not yet carried (cap_in="assemble")
    gone, summaries = set(), set()
    report = LedgerReport()
    for k in range(1, turns + 1):
        try:
            context = assemble(transcript, budget)
        except ContextOverflow:
            report.overflow_at = k
            break
        size = tokens(context)
        if limit is not None and size > limit:
            report.overflow_at = k
            break
        report.submitted.append(size)
        present = {e["id"] for e in context}
        for e in context:
            if e.get("kind") == "summary" and e["id"] not in summaries:
                summaries.add(e["id"])
                report.compaction += e["usage"]["input_tokens"]
        for e in appended:
            if e["id"] not in present and e["id"] not in gone:
                gone.add(e["id"])
                report.evictions.append(Eviction(k, e["id"], e["turn"], e["tokens"]))
                if report.binds_at is None:
                    report.binds_at = k
        for e in [s for s in untrimmed if s["id"] in present]:
            e["tokens"] = min(e["tokens"], cap)      # it rode in full once; trim it now
            untrimmed.remove(e)
        new = [step_entry(k, per_turn)]
        if spikes and k in spikes:
            spike_size = spikes[k]
            if cap is not None and cap_in == "tool":
                spike_size = min(spike_size, cap)
            spike = tool_output(k, spike_size)
            new.append(spike)
            if cap is not None and cap_in == "assemble":
                untrimmed.append(spike)
        transcript.extend(new)
        appended.extend(new)
    report.cumulative = sum(report.submitted)
    report.held = report.submitted[-1] if report.submitted else 0
    return report
'''

RETRY = r'''from course.worlds.context_cache import (
    CRASHED_MID_WRITE,
    TERMINAL_STATES,
    TIMEOUT,
)


def retry_allowed(state, *, idempotent):
    """May a tool call that ended in ``state`` be sent again, as is, by the loop?"""
    if state not in TERMINAL_STATES:
        raise ValueError(f"{state!r} is not a terminal state; expected one of "
                         f"{', '.join(TERMINAL_STATES)}")
    if state in (TIMEOUT, CRASHED_MID_WRITE):
        return bool(idempotent)
    return False
'''

REQUEST_KEY = r'''def with_request_key(tool, *, table):
    """Wrap the write ``tool`` so that each request key commits at most once."""
    def call(entry):
        key = entry["request_key"]
        if key in table:
            return table[key]
        result = tool(**entry["input"])
        table[key] = result
        return result
    return call
'''


def _swap(source: str, old: str, new: str) -> str:
    """``source`` with its one occurrence of ``old`` replaced by ``new``."""
    if source.count(old) != 1:
        raise ValueError(f"the base source holds {source.count(old)} copies of {old!r}, not 1")
    return source.replace(old, new)


def _cells(**override: str) -> dict[str, str]:
    """The eight code answer cells, the base solution unless a grade_id is given."""
    cells = {"run_loop": RUN_LOOP, "tokens": TOKENS, "keep_until_full": KEEP,
             "sliding_window": WINDOW, "summarize_and_compact": COMPACT, "ledger": LEDGER,
             "retry_allowed": RETRY, "request_key": REQUEST_KEY}
    unknown = set(override) - set(cells)
    if unknown:
        raise KeyError(f"no answer cell {sorted(unknown)}; cells are {sorted(cells)}")
    return {**cells, **override}


RUN_LOOP_WHILE = r'''import json

from course.worlds.context_cache import MODEL


def _invoke(dispatch, block):
    """Decision 4: a failure becomes data. One tool_use block in, one tool_result out."""
    try:
        payload = dispatch[block.name](**block.input)
    except Exception as exc:
        return {"type": "tool_result", "tool_use_id": block.id, "is_error": True,
                "content": json.dumps({"error": str(exc), "tool": block.name})}
    return {"type": "tool_result", "tool_use_id": block.id, "is_error": False,
            "content": json.dumps(payload)}


def run_loop(task, *, client, tools, dispatch, max_steps=8):
    """Run the agent loop on ``task`` and return the model's final text."""
    transcript = [{"role": "user", "content": task}]
    made = 0
    while made < max_steps:                         # decision 3b: the external bound
        made += 1
        # decision 1: the context is everything so far
        reply = client.messages.create(model=MODEL, max_tokens=2048, tools=tools,
                                       messages=transcript)
        transcript.append({"role": "assistant", "content": reply.content})
        wanted = [b for b in reply.content if b.type == "tool_use"]
        if len(wanted) == 0:                        # decision 3a: the model is done
            return "".join(getattr(b, "text", "") for b in reply.content)
        # decision 2: act, all results in ONE user message
        transcript.append({"role": "user", "content": [_invoke(dispatch, b) for b in wanted]})
    raise RuntimeError(f"max_steps={max_steps} model calls made and still no answer")
'''

TOKENS_SUM = r'''from course.tokens import count as count_tokens


def tokens(entries):
    """Total tokens in a list of entries (a "tokens" size, else counted from content)."""
    return sum(e["tokens"] if "tokens" in e else count_tokens(e.get("content", e))
               for e in entries)
'''

KEEP_COPY = r'''from course.worlds.context_cache import Budget, ContextOverflow


def assemble_keep_until_full(transcript, budget):
    """Send the whole transcript; raise ContextOverflow if it exceeds budget.context_limit."""
    if tokens(transcript) <= budget.context_limit:
        return transcript[:]
    raise ContextOverflow(f"{tokens(transcript)} tokens do not fit a limit of "
                          f"{budget.context_limit}")
'''

WINDOW_BACKWARD = r'''def assemble_sliding_window_pinned(transcript, budget, W=3000):
    """Pin transcript[:2]; of the rest keep the newest entries whose total is at most W."""
    # Walking back from the newest entry and stopping at the first that would not fit keeps
    # the same suffix as popping the oldest while the history is over W.
    kept, total = [], 0
    for entry in reversed(transcript[2:]):
        size = tokens([entry])
        if total + size > W:
            break
        kept.append(entry)
        total += size
    return transcript[:2] + kept[::-1]
'''

COMPACT_DEL = r'''def assemble_summarize_and_compact(transcript, budget, trigger=3000, target=500,
                                   *, summarize):
    """Pin transcript[:2]; compact an over-trigger history in place, then send it."""
    pinned, history = transcript[:2], transcript[2:]
    if tokens(history) > trigger:
        summary = summarize(history, target)
        del transcript[2:]
        transcript.append(summary)
    return pinned + transcript[2:]
'''

LEDGER_ALIVE = r'''from course.worlds.context_cache import (
    Budget,
    ContextOverflow,
    Eviction,
    LedgerReport,
    preamble_entries,
    step_entry,
    tool_output,
)


def ledger(assemble, *, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=None):
    """Run ``assemble(transcript, budget)`` over a synthetic session; return a LedgerReport."""
    spikes = dict(spikes or {})
    budget = Budget(context_limit=float("inf") if limit is None else limit)
    transcript = preamble_entries(preamble)
    alive = {e["id"]: e for e in transcript}     # appended and not yet logged as gone
    to_trim = {}                                  # id -> spike awaiting its first prompt
    paid = set()                                  # summaries already counted
    rep = LedgerReport()
    k = 0
    while k < turns:
        k += 1
        try:
            context = assemble(transcript, budget)
            fits = limit is None or tokens(context) <= limit
        except ContextOverflow:
            fits = False
        if not fits:
            rep.overflow_at = k
            break
        rep.submitted.append(tokens(context))
        ids = [e["id"] for e in context]
        for e in context:
            if e["kind"] == "summary" and e["id"] not in paid:
                paid.add(e["id"])
                rep.compaction += e["usage"]["input_tokens"]
        for eid in [i for i in alive if i not in ids]:
            e = alive.pop(eid)
            rep.evictions.append(Eviction(turn=k, entry=eid, origin=e["turn"],
                                          tokens=e["tokens"]))
        if rep.evictions and rep.binds_at is None:
            rep.binds_at = k
        for eid in [i for i in to_trim if i in ids]:
            spike = to_trim.pop(eid)
            spike["tokens"] = min(spike["tokens"], cap)
        added = [step_entry(k, per_turn)]
        if k in spikes:
            whole = spikes[k]
            capped_now = cap is not None and cap_in == "tool"
            added.append(tool_output(k, min(whole, cap) if capped_now else whole))
            if cap is not None and cap_in == "assemble":
                to_trim[added[-1]["id"]] = added[-1]
        for e in added:
            transcript.append(e)
            alive[e["id"]] = e
    rep.cumulative = sum(rep.submitted)
    rep.held = rep.submitted[-1] if rep.submitted else 0
    return rep
'''

RETRY_TABLE = r'''from course.worlds.context_cache import (
    CRASHED_MID_WRITE,
    TERMINAL_STATES,
    TIMEOUT,
)

# For each terminal state: may it be resent as is, given idempotency?
_RULE = {TIMEOUT: lambda idem: idem, CRASHED_MID_WRITE: lambda idem: idem}


def retry_allowed(state, *, idempotent):
    """May a tool call that ended in ``state`` be sent again, as is, by the loop?"""
    if state not in TERMINAL_STATES:
        raise ValueError(f"unknown or non-terminal state {state!r}")
    return bool(_RULE.get(state, lambda idem: False)(idempotent))
'''

REQUEST_KEY_CLASS = r'''class _KeyedWrite:
    """A write that commits once per request key, its results kept in a durable table."""

    def __init__(self, tool, table):
        self.tool, self.table = tool, table

    def __call__(self, entry):
        key = entry["request_key"]
        try:
            return self.table[key]
        except KeyError:
            pass
        result = self.tool(**entry["input"])
        self.table[key] = result
        return result


def with_request_key(tool, *, table):
    """Wrap the write ``tool`` so that each request key commits at most once."""
    return _KeyedWrite(tool, table)
'''

RUN_LOOP_TEXT_ERRORS = r'''import json

from course.worlds.context_cache import MODEL


def run_loop(task, *, client, tools, dispatch, max_steps=8):
    """Run the agent loop on ``task`` and return the model's final text."""
    history = [{"role": "user", "content": task}]
    for step in range(1, max_steps + 1):            # decision 3b: at most max_steps calls
        reply = client.messages.create(             # decision 1: send the whole history
            model=MODEL, max_tokens=1024, tools=tools, messages=history)
        history.append({"role": "assistant", "content": reply.content})
        if not any(b.type == "tool_use" for b in reply.content):
            texts = [b.text for b in reply.content if b.type == "text"]
            return "".join(texts)                   # decision 3a: done when no tool is asked
        blocks = []
        for block in reply.content:                 # decision 2: run each call, in order
            if block.type != "tool_use":
                continue
            fn = dispatch.get(block.name)
            try:
                if fn is None:
                    raise LookupError(f"unknown tool {block.name!r}")
                blocks.append({"type": "tool_result", "tool_use_id": block.id,
                               "content": json.dumps(fn(**block.input))})
            except Exception as exc:                # decision 4: the error goes back as data
                blocks.append({"type": "tool_result", "tool_use_id": block.id,
                               "content": f"{type(exc).__name__}: {exc}", "is_error": True})
        history.append({"role": "user", "content": blocks})
    raise RuntimeError(f"gave up after {max_steps} model calls")
'''

TOKENS_TRY = r'''from course.tokens import count as count_tokens


def tokens(entries):
    """Total tokens in a list of entries (a "tokens" size, else counted from content)."""
    total = 0
    for entry in entries:
        try:
            total += entry["tokens"]
        except KeyError:
            total += count_tokens(entry.get("content", entry))
    return total
'''

WINDOW_INDEX = r'''def assemble_sliding_window_pinned(transcript, budget, W=3000):
    """Pin transcript[:2]; of the rest keep the newest entries whose total is at most W."""
    start, total = 2, tokens(transcript[2:])
    while start < len(transcript) and total > W:
        total -= tokens([transcript[start]])
        start += 1
    return transcript[:2] + transcript[start:]
'''

COMPACT_POP = r'''def assemble_summarize_and_compact(transcript, budget, trigger=3000, target=500,
                                   *, summarize):
    """Pin transcript[:2]; compact an over-trigger history in place, then send it."""
    rest = transcript[2:]
    if tokens(rest) > trigger:
        summary = summarize(rest, target)
        while len(transcript) > 2:
            transcript.pop()
        transcript.append(summary)
    return [*transcript]
'''

LEDGER_SETS = r'''from course.worlds.context_cache import (
    Budget,
    ContextOverflow,
    Eviction,
    LedgerReport,
    preamble_entries,
    step_entry,
    tool_output,
)


def _spike_size(size, cap, cap_in):
    """What the tool hands over: capped at the source only when cap_in is "tool"."""
    return size if cap is None or cap_in != "tool" else min(size, cap)


def ledger(assemble, *, preamble, per_turn, turns, spikes=None, cap=None, cap_in="tool",
           limit=None):
    """Run ``assemble(transcript, budget)`` over a synthetic session; return a LedgerReport."""
    budget = Budget(limit) if limit is not None else Budget()
    transcript = preamble_entries(preamble)
    order = [e["id"] for e in transcript]         # appended ids, oldest first
    by_id = {e["id"]: e for e in transcript}
    logged, counted, waiting = set(), set(), set()
    submitted, evictions = [], []
    compaction, binds_at, overflow_at = 0, None, None
    for k in range(1, turns + 1):
        try:
            context = assemble(transcript, budget)
        except ContextOverflow:
            overflow_at = k
            break
        if limit is not None and tokens(context) > limit:
            overflow_at = k
            break
        submitted.append(tokens(context))
        here = {e["id"] for e in context}
        compaction += sum(e["usage"]["input_tokens"] for e in context
                          if e["kind"] == "summary" and e["id"] not in counted)
        counted |= {e["id"] for e in context if e["kind"] == "summary"}
        missing = [i for i in order if i not in here and i not in logged]
        evictions += [Eviction(k, i, by_id[i]["turn"], by_id[i]["tokens"]) for i in missing]
        logged |= set(missing)
        if missing and binds_at is None:
            binds_at = k
        for i in waiting & here:
            by_id[i]["tokens"] = min(by_id[i]["tokens"], cap)
        waiting -= here
        fresh = [step_entry(k, per_turn)]
        if spikes and k in spikes:
            fresh.append(tool_output(k, _spike_size(spikes[k], cap, cap_in)))
            if cap is not None and cap_in == "assemble":
                waiting.add(fresh[-1]["id"])
        for e in fresh:
            transcript.append(e)
            order.append(e["id"])
            by_id[e["id"]] = e
    return LedgerReport(submitted=submitted, cumulative=sum(submitted), compaction=compaction,
                        held=submitted[-1] if submitted else 0, binds_at=binds_at,
                        overflow_at=overflow_at, evictions=evictions)
'''

RETRY_MATCH = r'''from course.worlds.context_cache import (
    CRASHED_MID_WRITE,
    TERMINAL_STATES,
    TIMEOUT,
)


def retry_allowed(state, *, idempotent):
    """May a tool call that ended in ``state`` be sent again, as is, by the loop?"""
    match state:
        case s if s in (TIMEOUT, CRASHED_MID_WRITE):
            return bool(idempotent)
        case s if s in TERMINAL_STATES:
            return False
        case _:
            raise ValueError(f"{state!r} is not one of the terminal states {TERMINAL_STATES}")
'''

REQUEST_KEY_SETDEFAULT = r'''def with_request_key(tool, *, table):
    """Wrap the write ``tool`` so that each request key commits at most once."""
    def call(entry):
        if "request_key" not in entry:
            raise KeyError("request_key: a write without a request key cannot be deduplicated")
        key = entry["request_key"]
        if key not in table:
            table[key] = tool(**entry["input"])
        return table[key]
    return call
'''

BLIND = [
    Blind(
        name="loop_catches_only_expected_errors",
        bug="run_loop turns only FileNotFoundError, KeyError and ValueError into is_error "
            "results; any other exception a tool raises (a TypeError from a bad argument, a "
            "RuntimeError) still ends the loop",
        cells=_cells(run_loop=_swap(RUN_LOOP,
                                    "            except Exception as exc:                # "
                                    "decision 4",
                                    "            except (FileNotFoundError, KeyError, "
                                    "ValueError) as exc:  # decision 4")),
    ),
    Blind(
        name="loop_one_call_short",
        bug="run_loop counts steps from 1 with range(1, max_steps), so it makes max_steps - 1 "
            "model calls before raising, not max_steps",
        cells=_cells(run_loop=_swap(RUN_LOOP, "for _ in range(max_steps):",
                                    "for _ in range(1, max_steps):")),
    ),
    Blind(
        name="tokens_zero_size_recounted",
        bug="tokens reads the size with entry.get('tokens') or count(...), so an entry whose "
            "'tokens' field is 0 is counted from its content instead of as 0",
        cells=_cells(tokens=_swap(
            TOKENS,
            "        if \"tokens\" in entry:\n            total += entry[\"tokens\"]\n"
            "        else:\n            total += count_tokens(",
            "        total += entry.get(\"tokens\") or count_tokens(")),
    ),
    Blind(
        name="keep_refuses_at_exact_limit",
        bug="assemble_keep_until_full raises ContextOverflow when the transcript is exactly "
            "budget.context_limit tokens (>=); the notebook says raise only if it EXCEEDS "
            "the limit",
        cells=_cells(keep_until_full=_swap(KEEP, "if size > budget.context_limit:",
                                           "if size >= budget.context_limit:")),
    ),
    Blind(
        name="window_evicts_from_the_transcript",
        bug="the sliding window deletes evicted entries from the transcript itself (del "
            "transcript[2]), where the notebook says not to modify the transcript",
        cells=_cells(sliding_window=_swap(
            WINDOW,
            "    pinned, history = list(transcript[:2]), list(transcript[2:])\n"
            "    while history and tokens(history) > W:\n"
            "        history.pop(0)                      # the silent line: the oldest entry "
            "leaves\n    return pinned + history\n",
            "    while len(transcript) > 2 and tokens(transcript[2:]) > W:\n"
            "        del transcript[2]                   # the silent line: the oldest entry "
            "leaves\n    return list(transcript)\n")),
    ),
    Blind(
        name="window_skips_entries_that_do_not_fit",
        bug="the window walks back from the newest entry and SKIPS an entry that does not fit "
            "(continue), so older small entries behind a large one are kept; the notebook says "
            "evict from the oldest end, keeping the newest entries",
        cells=_cells(sliding_window=_swap(
            WINDOW,
            "    pinned, history = list(transcript[:2]), list(transcript[2:])\n"
            "    while history and tokens(history) > W:\n"
            "        history.pop(0)                      # the silent line: the oldest entry "
            "leaves\n    return pinned + history\n",
            "    kept, total = [], 0\n"
            "    for entry in reversed(transcript[2:]):\n"
            "        if total + tokens([entry]) > W:\n"
            "            continue                        # the silent line: it does not fit\n"
            "        kept.insert(0, entry)\n"
            "        total += tokens([entry])\n"
            "    return transcript[:2] + kept\n")),
    ),
    Blind(
        name="compaction_trigger_counts_pinned",
        bug="compaction compares the WHOLE transcript, pinned preamble included, with the "
            "trigger; the notebook says the trigger applies to the rest (transcript[2:])",
        cells=_cells(summarize_and_compact=_swap(COMPACT, "if tokens(transcript[2:]) > trigger:",
                                                 "if tokens(transcript) > trigger:")),
    ),
    Blind(
        name="compaction_fires_at_trigger",
        bug="compaction fires when the history is exactly the trigger (>=); the notebook says "
            "strictly over the trigger",
        cells=_cells(summarize_and_compact=_swap(COMPACT, ") > trigger:", ") >= trigger:")),
    ),
    Blind(
        name="ledger_counts_summary_every_turn",
        bug="the ledger adds a summary's input tokens to the compaction traffic on every turn "
            "the summary is in the context, not only the first time it appears",
        cells=_cells(ledger=_swap(LEDGER, "if e.get(\"kind\") == \"summary\" and e[\"id\"] "
                                          "not in summaries:",
                                  "if e.get(\"kind\") == \"summary\":")),
    ),
    Blind(
        name="ledger_logs_replaced_summaries",
        bug="the ledger collects the entries to watch from the transcript after each assemble, "
            "so a summary joins them and is logged as an eviction when a second compaction "
            "replaces it; the notebook says only appended entries, never summaries",
        cells=_cells(ledger=_swap(
            _swap(LEDGER, "        appended.extend(new)\n", ""),
            "        present = {e[\"id\"] for e in context}\n",
            "        present = {e[\"id\"] for e in context}\n"
            "        appended += [e for e in transcript if e not in appended]\n")),
    ),
    Blind(
        name="ledger_logs_untrimmed_size",
        bug="with cap_in='assemble' the ledger trims a carried spike by putting a trimmed COPY "
            "in the transcript, so its later Eviction still records the full size; the "
            "notebook says a trimmed spike is logged at the trimmed size",
        cells=_cells(ledger=_swap(
            LEDGER,
            "            e[\"tokens\"] = min(e[\"tokens\"], cap)      # it rode in full once; "
            "trim it now\n",
            "            i = transcript.index(e)                 # it rode in full once\n"
            "            transcript[i] = dict(e, tokens=min(e[\"tokens\"], cap))\n")),
    ),
    Blind(
        name="ledger_held_is_peak",
        bug="the ledger reports held as the largest context submitted, not the context "
            "submitted on the last turn that ran",
        cells=_cells(ledger=_swap(LEDGER, "report.held = report.submitted[-1] if "
                                          "report.submitted else 0",
                                  "report.held = max(report.submitted, default=0)")),
    ),
    Blind(
        name="ledger_binds_when_context_shorter",
        bug="the ledger sets binds_at on the first turn the context has fewer entries than the "
            "transcript, so a compaction (which shrinks the transcript itself) never binds; the "
            "notebook says the first turn anything APPENDED is missing from the context",
        cells=_cells(ledger=_swap(
            _swap(LEDGER, "                if report.binds_at is None:\n"
                          "                    report.binds_at = k\n", ""),
            "        present = {e[\"id\"] for e in context}\n",
            "        present = {e[\"id\"] for e in context}\n"
            "        if report.binds_at is None and len(context) < len(transcript):\n"
            "            report.binds_at = k\n")),
    ),
    Blind(
        name="ledger_overflow_turn_submitted",
        bug="the ledger records a turn's size in submitted before checking it against the "
            "limit, so the overflow turn appears in submitted (and in cumulative and held)",
        cells=_cells(ledger=_swap(
            LEDGER,
            "        size = tokens(context)\n        if limit is not None and size > limit:\n"
            "            report.overflow_at = k\n            break\n"
            "        report.submitted.append(size)\n",
            "        size = tokens(context)\n        report.submitted.append(size)\n"
            "        if limit is not None and size > limit:\n"
            "            report.overflow_at = k\n            break\n")),
    ),
    Blind(
        name="retry_error_as_data_when_idempotent",
        bug="retry_allowed lets an idempotent call be resent from any state but ok, "
            "error-as-data included; the notebook says error-as-data is never retried",
        cells=_cells(retry_allowed=_swap(
            _swap(RETRY, "    if state in (TIMEOUT, CRASHED_MID_WRITE):\n",
                  "    if state != OK:\n"),
            "    CRASHED_MID_WRITE,\n    TERMINAL_STATES,\n    TIMEOUT,\n",
            "    OK,\n    TERMINAL_STATES,\n")),
    ),
    Blind(
        name="retry_unknown_state_is_false",
        bug="retry_allowed answers False for a state that is not terminal (issued, running, a "
            "typo) instead of raising ValueError",
        cells=_cells(retry_allowed=_swap(
            RETRY,
            "    if state not in TERMINAL_STATES:\n        raise ValueError(f\"{state!r} is not "
            "a terminal state; expected one of \"\n                         f\"{', '.join("
            "TERMINAL_STATES)}\")\n",
            "")),
    ),
    Blind(
        name="request_key_missing_key_still_writes",
        bug="with_request_key reads the key with entry.get, so an entry with no request_key "
            "runs the tool (stored under None) instead of raising KeyError without calling it",
        cells=_cells(request_key=_swap(REQUEST_KEY, "key = entry[\"request_key\"]",
                                       "key = entry.get(\"request_key\")")),
    ),
    Blind(
        name="request_key_falsy_result_recommits",
        bug="with_request_key tests the table with table.get(key), so a key whose stored result "
            "is falsy (None, {}) counts as absent and the write runs again",
        cells=_cells(request_key=_swap(REQUEST_KEY, "        if key in table:\n",
                                       "        if table.get(key):\n")),
    ),
    Blind(
        name="while_loops_and_classes",
        bug="run_loop is a while loop over a call counter with a helper per tool call; the "
            "window walks back from the newest entry and stops at the first that does not fit; "
            "compaction deletes then appends; the ledger keeps a dict of live entries; "
            "retry_allowed is a rule table; with_request_key returns a callable object",
        cells=_cells(run_loop=RUN_LOOP_WHILE, tokens=TOKENS_SUM, keep_until_full=KEEP_COPY,
                     sliding_window=WINDOW_BACKWARD, summarize_and_compact=COMPACT_DEL,
                     ledger=LEDGER_ALIVE, retry_allowed=RETRY_TABLE,
                     request_key=REQUEST_KEY_CLASS),
        correct=True,
    ),
    Blind(
        name="index_window_and_set_ledger",
        bug="run_loop sends a tool's error as plain text (is_error True) and treats an unknown "
            "tool as an error; the window advances a start index with a running total; the "
            "ledger works on id sets and builds the report at the end; retry_allowed uses "
            "match; with_request_key checks the key explicitly",
        cells=_cells(run_loop=RUN_LOOP_TEXT_ERRORS, tokens=TOKENS_TRY, sliding_window=WINDOW_INDEX,
                     summarize_and_compact=COMPACT_POP, ledger=LEDGER_SETS,
                     retry_allowed=RETRY_MATCH, request_key=REQUEST_KEY_SETDEFAULT),
        correct=True,
    ),
]
