"""Lecture 4 mutants: the context-policy, ledger and retry bugs named in seed 000 and the issue."""

from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(
        name="compaction_on_a_copy",
        bug="seed 000 §4.3: the compaction is written to a slice of the history (a copy), so "
            "the transcript never shrinks and the summarizer fires on every turn from 12 on",
        cell="summarize_and_compact",
        old="        transcript[2:] = history    # persist: the next turn must see the summary, "
            "not the turns\n",
        new="",
        loses={"compaction_persists", "compaction_figures"},
    ),
    Mutant(
        name="fifo_evicts_preamble",
        bug="seed 000 §4.3: drop-oldest FIFO over the whole transcript evicts the system "
            "prompt and the task statement first",
        cell="sliding_window",
        old="pinned, history = transcript[:2], list(transcript[2:])",
        new="pinned, history = [], list(transcript)",
        loses={"window_pins_preamble", "window_strict_threshold", "window_figures"},
    ),
    Mutant(
        name="window_evicts_at_w",
        bug="seed 000 §4.3: the window evicts while history >= W; the seed means > W "
            "(ten turns of 300 fit W = 3,000; the window binds at turn 12, not 11)",
        cell="sliding_window",
        old="tokens(history) > W",
        new="tokens(history) >= W",
        loses={"window_strict_threshold", "window_figures"},
    ),
    Mutant(
        name="ledger_counts_own_append",
        bug="seed 000 §4.3: the turn's own 300 tokens counted in that turn's prompt "
            "(n(n+1)/2 instead of n(n-1)/2: 103,000 instead of 97,000)",
        cell="ledger",
        old="        transcript.extend(arriving)                 # a turn's own work lands after "
            "its prompt\n",
        new="",
        patches=(("ledger", "            context = assemble(transcript, budget)",
                  "            transcript.extend(arriving)\n"
                  "            context = assemble(transcript, budget)"),),
        loses={"ledger_prompt_before_append", "ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="retries_timeouts",
        bug="seed 000 §4.5: a timeout is retried without idempotency (the default of most "
            "retry libraries), duplicating a write that may already have committed",
        cell="retry_allowed",
        old="return bool(idempotent)     # silence proves nothing: the write may have landed",
        new="return True",
        loses={"retry_allowed_states"},
    ),
    Mutant(
        name="dedup_on_local_id",
        bug="seed 000 §4.5: the request key is generated locally at call time instead of read "
            "from the transcript, so a replayed call carries a new key and commits again",
        cell="request_key",
        old='key = entry["request_key"]          # the transcript\'s key: it survives a replay',
        new='key = __import__("uuid").uuid4().hex',
        loses={"request_key_dedup"},
    ),
    # -- run_loop ---------------------------------------------------------------------------
    Mutant(
        name="loop_results_as_repr",
        bug="the tool result is sent as str(result), a Python repr, so the model cannot parse "
            "the search's matches",
        cell="run_loop",
        old='"content": json.dumps(out)',
        new='"content": str(out)',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_never_flags_errors",
        bug="the error goes back as a normal result (is_error always False), so the model is "
            "not told the read failed",
        cell="run_loop",
        old='"is_error": failed}',
        new='"is_error": False}',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_catches_one_error_type",
        bug="only FileNotFoundError is caught, so a tool called with a wrong argument name "
            "(TypeError) ends the loop",
        cell="run_loop",
        old="except Exception as exc:",
        new="except FileNotFoundError as exc:",
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_generic_error_text",
        bug="the error result says only that the tool failed, not the exception's message",
        cell="run_loop",
        old='out = {"error": f"{type(exc).__name__}: {exc}",',
        new='out = {"error": "the tool failed",',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_one_message_per_result",
        bug="each tool result is appended as its own user message instead of one message with "
            "every result of the reply",
        cell="run_loop",
        old='            answers.append({"type": "tool_result", "tool_use_id": call.id,\n'
            '                            "content": json.dumps(out), "is_error": failed})\n'
            '        transcript.append({"role": "user", "content": answers})\n',
        new='            transcript.append({"role": "user", "content": [\n'
            '                {"type": "tool_result", "tool_use_id": call.id,\n'
            '                 "content": json.dumps(out), "is_error": failed}]})\n',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_first_text_block_only",
        bug="the final text is the first text block only, so a two-block answer loses its "
            "second half",
        cell="run_loop",
        old='return "".join(said)',
        new="return said[0]",
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_joins_with_space",
        bug="the text blocks of the final reply are joined with a space, not with no separator",
        cell="run_loop",
        old='return "".join(said)',
        new='return " ".join(said)',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_stops_on_end_turn_only",
        bug="the loop ends only on stop_reason 'end_turn', so a reply cut at max_tokens is "
            "treated as a tool turn",
        cell="run_loop",
        old='if reply.stop_reason != "tool_use":',
        new='if reply.stop_reason == "end_turn":',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_one_call_too_many",
        bug="the bound allows max_steps + 1 model calls",
        cell="run_loop",
        old="for _ in range(max_steps):",
        new="for _ in range(max_steps + 1):",
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_one_call_too_few",
        bug="the bound counts from 1 and makes only max_steps - 1 model calls",
        cell="run_loop",
        old="for _ in range(max_steps):",
        new="for _ in range(1, max_steps):",
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_returns_at_bound",
        bug="reaching the bound returns a message instead of raising RuntimeError",
        cell="run_loop",
        old='raise RuntimeError(f"no final answer after {max_steps} model calls")',
        new='return f"no final answer after {max_steps} model calls"',
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_sends_recent_only",
        bug="to save tokens each call sends the task and the latest exchange only, not the "
            "whole transcript",
        cell="run_loop",
        old="context = list(transcript) ",
        new="context = (transcript[:1] + transcript[-2:] if len(transcript) > 3\n"
            "                   else list(transcript)) ",
        loses={"loop_runs_on_fake"},
    ),
    Mutant(
        name="loop_tools_not_offered",
        bug="the tool definitions are not passed to the model call",
        cell="run_loop",
        old="max_tokens=1024, tools=tools,",
        new="max_tokens=1024,",
        loses={"loop_runs_on_fake"},
    ),
    # -- tokens -----------------------------------------------------------------------------
    Mutant(
        name="tokens_skips_unsized",
        bug="entries without a 'tokens' field count 0",
        cell="tokens",
        old='total += count_tokens(entry.get("content", entry))',
        new="total += 0",
        loses={"tokens_sums_entries"},
    ),
    Mutant(
        name="tokens_truthy_field",
        bug="the 'tokens' field is tested for truthiness, so an entry of 0 tokens is counted "
            "as JSON text",
        cell="tokens",
        old='if "tokens" in entry:',
        new='if entry.get("tokens"):',
        loses={"tokens_sums_entries", "ledger_notes_session"},
    ),
    Mutant(
        name="tokens_counts_whole_message",
        bug="an entry without 'tokens' is counted as the whole dict, not its content",
        cell="tokens",
        old='count_tokens(entry.get("content", entry))',
        new="count_tokens(entry)",
        loses={"tokens_sums_entries"},
    ),
    Mutant(
        name="tokens_floor_division",
        bug="an unsized entry is counted as len(text) // 4, rounding down instead of using "
            "course.tokens.count",
        cell="tokens",
        old='count_tokens(entry.get("content", entry))',
        new='len(str(entry.get("content", entry))) // 4',
        loses={"tokens_sums_entries"},
    ),
    # -- keep until full --------------------------------------------------------------------
    Mutant(
        name="keep_raises_at_limit",
        bug="keep-until-full raises when the transcript equals the limit (>= instead of >)",
        cell="keep_until_full",
        old="if need > budget.context_limit:",
        new="if need >= budget.context_limit:",
        loses={"keep_until_full_policy"},
    ),
    Mutant(
        name="keep_counts_history_only",
        bug="keep-until-full leaves the pinned entries out of the size it checks",
        cell="keep_until_full",
        old="need = tokens(transcript)",
        new="need = tokens(transcript[2:])",
        loses={"keep_until_full_policy"},
    ),
    Mutant(
        name="keep_raises_value_error",
        bug="keep-until-full raises ValueError instead of ContextOverflow",
        cell="keep_until_full",
        old="raise ContextOverflow(",
        new="raise ValueError(",
        loses={"keep_until_full_policy"},
    ),
    # -- sliding window ---------------------------------------------------------------------
    Mutant(
        name="window_evicts_newest",
        bug="the window pops the newest entry instead of the oldest",
        cell="sliding_window",
        old="history.pop(0)",
        new="history.pop()",
        loses={"window_pins_preamble", "window_strict_threshold", "window_figures"},
    ),
    Mutant(
        name="window_counts_pinned",
        bug="the window counts the pinned entries toward W",
        cell="sliding_window",
        old="while history and tokens(history) > W:",
        new="while history and tokens(pinned + history) > W:",
        loses={"window_pins_preamble", "window_strict_threshold", "window_figures"},
    ),
    Mutant(
        name="window_edits_transcript",
        bug="the window deletes evicted entries from the transcript itself",
        cell="sliding_window",
        old="        history.pop(0)              #",
        new="        history.pop(0)\n        del transcript[2]  #",
        loses={"window_pins_preamble"},
    ),
    Mutant(
        name="window_skips_big_entries",
        bug="the window walks from the newest entry and keeps every entry that still fits, so "
            "an old small entry behind a big one is kept",
        cell="sliding_window",
        old="    pinned, history = transcript[:2], list(transcript[2:])\n"
            "    while history and tokens(history) > W:\n",
        new="    pinned, history, room = transcript[:2], [], W\n"
            "    for e in reversed(transcript[2:]):\n"
            "        if e[\"tokens\"] <= room:\n"
            "            history.insert(0, e)\n"
            "            room -= e[\"tokens\"]\n"
            "    while False:\n",
        loses={"window_strict_threshold"},
    ),
    Mutant(
        name="window_newest_first",
        bug="the window collects the newest entries first and returns them newest first",
        cell="sliding_window",
        old="    return pinned + history",
        new="    return pinned + history[::-1]",
        loses={"window_pins_preamble", "window_strict_threshold"},
    ),
    # -- summarize and compact --------------------------------------------------------------
    Mutant(
        name="compact_at_trigger",
        bug="compaction fires when the history equals the trigger (>= instead of >)",
        cell="summarize_and_compact",
        old="if tokens(history) > trigger:",
        new="if tokens(history) >= trigger:",
        loses={"compaction_persists", "compaction_figures"},
    ),
    Mutant(
        name="compact_counts_pinned",
        bug="the pinned entries count toward the trigger",
        cell="summarize_and_compact",
        old="if tokens(history) > trigger:",
        new="if tokens(transcript) > trigger:",
        loses={"compaction_persists", "compaction_figures"},
    ),
    Mutant(
        name="compact_summarizes_pinned",
        bug="the summarizer is given the whole transcript, pinned entries included",
        cell="summarize_and_compact",
        old="history = [summarize(history, target)]",
        new="history = [summarize(transcript, target)]",
        loses={"compaction_persists", "compaction_figures"},
    ),
    Mutant(
        name="compact_appends_summary",
        bug="the summary is appended to the transcript and the raw turns stay",
        cell="summarize_and_compact",
        old="        transcript[2:] = history    #",
        new="        transcript.append(history[0])  #",
        loses={"compaction_persists", "compaction_figures"},
    ),
    Mutant(
        name="compact_fixed_target",
        bug="the summary size is hard-coded to 500 instead of the target argument",
        cell="summarize_and_compact",
        old="history = [summarize(history, target)]",
        new="history = [summarize(history, 500)]",
        loses={"compaction_persists"},
    ),
    Mutant(
        name="compact_sends_raw_turns",
        bug="the compacting turn still sends the raw history; only later turns see the summary",
        cell="summarize_and_compact",
        old="    pinned, history = transcript[:2], transcript[2:]\n",
        new="    pinned, history = transcript[:2], transcript[2:]\n    raw = list(history)\n",
        patches=(("summarize_and_compact", "    return pinned + history",
                  "    return pinned + raw"),),
        loses={"compaction_persists", "compaction_figures"},
    ),
    # -- ledger -----------------------------------------------------------------------------
    Mutant(
        name="ledger_summary_every_turn",
        bug="a summary's input tokens are added on every turn it appears, not once",
        cell="ledger",
        old='if e["kind"] == "summary" and e["id"] not in summaries:',
        new='if e["kind"] == "summary":',
        loses={"ledger_notes_session"},
    ),
    Mutant(
        name="ledger_summary_output_tokens",
        bug="compaction traffic counts the summary's own tokens (its output), not its input",
        cell="ledger",
        old='report.compaction += e["usage"]["input_tokens"]',
        new='report.compaction += e["tokens"]',
        loses={"ledger_notes_session"},
    ),
    Mutant(
        name="ledger_logs_every_absence",
        bug="an evicted entry is logged again on every later turn it is missing",
        cell="ledger",
        old='if e["id"] not in present and e["id"] not in gone:',
        new='if e["id"] not in present:',
        loses={"ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_origin_is_eviction_turn",
        bug="Eviction.origin is the turn the entry left, not the turn it was appended",
        cell="ledger",
        old='Eviction(turn, e["id"], e["turn"], e["tokens"])',
        new='Eviction(turn, e["id"], turn, e["tokens"])',
        loses={"ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_logs_appended_size",
        bug="the watch list keeps copies of the appended entries, so a spike trimmed by "
            "cap_in='assemble' is logged at its old size",
        cell="ledger",
        old="        appended.extend(arriving)\n",
        new="        appended.extend(dict(e) for e in arriving)\n",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_ignores_preamble",
        bug="only the entries the loop appended are watched, so a dropped system prompt is "
            "never logged",
        cell="ledger",
        old="appended = list(transcript)                     #",
        new="appended = []                                   #",
        loses={"ledger_notes_session"},
    ),
    Mutant(
        name="ledger_compares_with_transcript",
        bug="evictions are found by comparing the context with the current transcript, so "
            "entries a policy deleted from the transcript are never logged",
        cell="ledger",
        old="        for e in appended:\n",
        new="        for e in transcript:\n",
        loses={"ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_logs_summaries",
        bug="every entry ever seen in a context is watched, so a summary that goes is logged "
            "as an eviction",
        cell="ledger",
        old='        present = {e["id"] for e in context}\n',
        new='        present = {e["id"] for e in context}\n'
            '        appended.extend(e for e in context if e not in appended)\n',
        loses={"ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_binds_zero",
        bug="binds_at is 0 instead of None when nothing was evicted",
        cell="ledger",
        old="if report.evictions else None",
        new="if report.evictions else 0",
        loses={"ledger_prompt_before_append", "ledger_notes_session"},
    ),
    Mutant(
        name="ledger_held_is_largest",
        bug="held is the largest context of the run, not the last one",
        cell="ledger",
        old="report.held = report.submitted[-1] if report.submitted else 0",
        new="report.held = max(report.submitted, default=0)",
        loses={"ledger_notes_session"},
    ),
    Mutant(
        name="ledger_held_after_append",
        bug="held is measured on the transcript after the last append, not on the last context",
        cell="ledger",
        old="report.held = report.submitted[-1] if report.submitted else 0",
        new="report.held = tokens(transcript)",
        loses={"ledger_prompt_before_append", "ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_held_needs_a_turn",
        bug="held reads the last submitted figure even when no turn ran (IndexError)",
        cell="ledger",
        old="report.held = report.submitted[-1] if report.submitted else 0",
        new="report.held = report.submitted[-1]",
        loses={"ledger_prompt_before_append", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_overflow_at_limit",
        bug="a context of exactly the limit counts as an overflow (>= instead of >)",
        cell="ledger",
        old="if sent > budget.context_limit:",
        new="if sent >= budget.context_limit:",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_submits_overflow_turn",
        bug="the overflow turn's context is added to submitted before the limit is checked",
        cell="ledger",
        old="        sent = tokens(context)\n",
        new="        sent = tokens(context)\n        report.submitted.append(sent)\n",
        patches=(("ledger", "        report.submitted.append(sent)\n        present",
                  "        present"),),
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_budget_without_limit",
        bug="assemble always gets Budget(); the limit is checked only in the ledger",
        cell="ledger",
        old="budget = Budget() if limit is None else Budget(context_limit=limit)",
        new="budget = Budget()",
        patches=(("ledger", "if sent > budget.context_limit:",
                  "if limit is not None and sent > limit:"),),
        loses={"ledger_prompt_before_append"},
    ),
    Mutant(
        name="ledger_overflow_escapes",
        bug="a ContextOverflow raised by assemble is not caught, so it ends the ledger",
        cell="ledger",
        old="        try:\n            context = assemble(transcript, budget)\n"
            "        except ContextOverflow:\n            report.overflow_at = turn\n"
            "            break\n",
        new="        context = assemble(transcript, budget)\n",
        loses={"ledger_notes_session", "ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_cap_replaces_size",
        bug="cap_in='tool' sets every spike to cap, even one already smaller",
        cell="ledger",
        old="else min(spikes[turn], cap)",
        new="else cap",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_caps_steps_too",
        bug="cap_in='assemble' trims every entry over the cap, step entries included",
        cell="ledger",
        old='if e["kind"] == "tool_output" and e["tokens"] > cap:',
        new='if e["tokens"] > cap:',
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_caps_at_append",
        bug="cap_in is ignored: the spike is trimmed when appended, so the first prompt never "
            "pays it whole",
        cell="ledger",
        old='if cap is None or cap_in != "tool" else',
        new="if cap is None else",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_never_trims",
        bug="cap_in='assemble' never trims the stored spike",
        cell="ledger",
        old='e["tokens"] = cap               #',
        new="pass                            #",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_spike_before_step",
        bug="the spike is appended before the turn's step entry",
        cell="ledger",
        old="arriving.append(tool_output(turn, size))",
        new="arriving.insert(0, tool_output(turn, size))",
        loses={"ledger_spikes_and_caps"},
    ),
    Mutant(
        name="ledger_consumes_spikes",
        bug="spikes are popped from the caller's dict as they happen",
        cell="ledger",
        old="spikes = dict(spikes or {})",
        new="spikes = spikes if spikes is not None else {}",
        patches=(("ledger", "        if spikes.get(turn):\n            size = spikes[turn] if",
                  "        if spikes.get(turn):\n            raw = spikes.pop(turn)\n"
                  "            size = raw if"),
                 ("ledger", "else min(spikes[turn], cap)", "else min(raw, cap)")),
        loses={"ledger_spikes_and_caps"},
    ),
    # -- retry_allowed and with_request_key -------------------------------------------------
    Mutant(
        name="retry_never_after_crash",
        bug="a crashed-mid-write call is never retried, even when it is idempotent",
        cell="retry_allowed",
        old="return bool(idempotent)     # otherwise reconcile",
        new="return False     # otherwise reconcile",
        loses={"retry_allowed_states"},
    ),
    Mutant(
        name="retry_idempotent_errors",
        bug="any idempotent call is retried, ok and error-as-data included",
        cell="retry_allowed",
        old="return False                    # ok needs no retry",
        new="return bool(idempotent)         # ok needs no retry",
        loses={"retry_allowed_states"},
    ),
    Mutant(
        name="retry_accepts_any_state",
        bug="a state that is not terminal returns False instead of raising ValueError",
        cell="retry_allowed",
        old='        raise ValueError(f"{state!r} is not a terminal state of a tool call")',
        new="        return False",
        loses={"retry_allowed_states"},
    ),
    Mutant(
        name="key_table_of_its_own",
        bug="the wrapper keeps results in a dict of its own instead of the durable table",
        cell="request_key",
        old="    def call(entry):\n",
        new="    table = {}\n\n    def call(entry):\n",
        loses={"request_key_dedup"},
    ),
    Mutant(
        name="key_truthy_lookup",
        bug="a key counts as seen only if its stored result is truthy",
        cell="request_key",
        old="if key in table:",
        new="if table.get(key):",
        loses={"request_key_dedup"},
    ),
    Mutant(
        name="key_missing_is_none",
        bug="entry.get('request_key') lets a call with no key through, stored under None",
        cell="request_key",
        old='key = entry["request_key"] ',
        new='key = entry.get("request_key") ',
        loses={"request_key_dedup"},
    ),
    Mutant(
        name="key_on_arguments",
        bug="calls are deduplicated on their arguments, so a new call with the same arguments "
            "returns the old invoice",
        cell="request_key",
        old='key = entry["request_key"] ',
        new='entry["request_key"]; key = json.dumps(entry["input"], sort_keys=True) ',
        loses={"request_key_dedup"},
    ),
    Mutant(
        name="key_first_call_returns_nothing",
        bug="the first call stores the result but returns None",
        cell="request_key",
        old="        table[key] = result\n        return result\n",
        new="        table[key] = result\n",
        loses={"request_key_dedup"},
    ),
]
