"""Lecture 4 mutants: the context-policy, ledger and retry bugs named in seed 000 and the issue."""

from course.grading.mutation import Mutant

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
        loses={"window_pins_preamble", "window_figures"},
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
]
