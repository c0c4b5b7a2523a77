"""For each notebook, every sentence that states its rules, and what enforces it.

The text read is the API block (the "**You implement**" part of a notebook's first cell, or
its "The API you implement" section: the signatures and the text under them, which the
notebook calls authoritative), every section whose heading starts with "Implement", and the
last section of the markdown cell just above each answer cell: what a student reads right
before writing. Each of its sentences is
either a **rule** (it says what a graded function returns, raises, counts, orders, sends,
or when it stops), listed in :data:`RULES` with the seeded bugs (``tests/mutants/<nb>.py``)
that break it, or **prose** (the inputs, the setting, a freedom the checks allow), listed
in :data:`PROSE` with the reason it states no rule. ``tests/test_rule_map.py`` splits the
released notebook's text into sentences and fails on any sentence in neither map, on a
rule with no mutant, and on a mutant name that does not exist; ``course verify`` (and
``tests/test_integrity.py``) prove each mutant loses exactly the cells it names, which are
judged by hidden tests in the grader.

The comments of the API block's code are read too, one unit per signature ("<the line's
code>: <its ``# ...`` comment and the comment lines under it>"), and mapped the same way.
A docstring inside an answer cell is not read: the text around it states its rules.

Notebooks not mapped yet are listed in :data:`NOT_MAPPED` with what stands in the way;
every notebook is in exactly one of :data:`RULES` and :data:`NOT_MAPPED`.
"""

from __future__ import annotations

RULES: dict[str, dict[str, tuple[str, ...]]] = {
    "lab01_tool_loop": {
        "**Each model call** is `client.messages.create(model=MODEL, max_tokens=1024, "
        "tools=tools, messages=history)`, with `MODEL = \"claude-opus-5\"` from the first "
        "code cell.": ("bigger_max_tokens", "tools_not_sent"),
        "The first message is the goal as a user message.": ("goal_reworded",),
        "**Out:** the model's final text answer: the text of every `text` block of the last "
        "reply, joined with no separator.": (
            "answer_first_text_block", "answer_last_text_block", "answer_joined_with_space",
            "answer_joined_with_newline"),
        "Read blocks by their `type`, never by position: the first block of a reply is often "
        "a `thinking` block (below).": ("reads_content_0", "answer_second_block"),
        "The last reply is the first one whose `stop_reason` is not `tool_use` (`end_turn`, "
        "`stop_sequence`, ...), after the checks for `max_tokens` and `refusal` below.": (
            "end_turn_only_answers", "max_tokens_is_an_answer", "refusal_unhandled"),
        "**Assistant turn:** append the reply's `content` as it came, every block, "
        "unchanged.": ("text_only_history", "tool_calls_only_history",
                       "appends_assistant_twice"),
        "`claude-opus-5` thinks by default, so a reply begins with a `thinking` block whose "
        "text is empty and which carries a `signature`; the API answers 400 when the "
        "assistant turn sent back with the tool results lacks it or changed it.": (
            "drops_thinking",),
        "**Tool results:** call `dispatch(block.name, block.input)` once per `tool_use` "
        "block; all results of one turn go back in **one** user message, one `tool_result` "
        "per `tool_use` id, in the order of the calls.": (
            "dispatch_called_twice", "split_results", "unanswered_id",
            "results_newest_first"),
        "A tool's return value is sent as text: `None` becomes `\"\"`, anything else that is "
        "not a string becomes `str(value)`.": ("none_sent_as_text_none", "values_sent_as_json"),
        "So `0` is sent as `\"0\"`, and a dict `d` as `str(d)`, not as JSON.": (
            "falsy_value_sent_empty", "values_sent_as_json"),
        "A tool that raises is answered with `is_error: True` and the error's text as "
        "content; the loop goes on.": ("tool_exception_escapes", "error_text_dropped",
                                       "returns_on_tool_error", "error_ends_the_batch"),
        "Catch every `Exception`, not only `KeyError`, and mark only the results of tools "
        "that raised.": ("catches_key_error_only", "is_error_leaks", "is_error_sticks_in_turn",
                         "whole_turn_marked_on_error"),
        "**Refusal:** when `stop_reason == \"refusal\"`, return `\"refused: \"` followed by "
        "the reply's own text (its text blocks joined).": (
            "refusal_unhandled", "refusal_constant", "refusal_first_text_only"),
        "Join them with no separator, as for the answer.": ("refusal_joined_with_space",),
        "A refusal may carry no blocks at all: then return `\"refused: \"` alone.": (
            "refusal_reads_first_block",),
        "Never raise on a refusal.": ("refusal_raises",),
        "**Raises** `RuntimeError` when a reply stops at `max_tokens`, and when the model is "
        "still asking for tools after `max_steps` model calls (so exactly `max_steps` calls "
        "are made).": ("max_tokens_is_an_answer", "max_tokens_raises_value_error",
                       "no_step_cap", "step_cap_off_by_one", "cap_returns_text"),
        "A reply cut at `max_tokens` raises even when it holds a `tool_use` block: that block "
        "is incomplete, so run no tool from it.": ("tools_run_before_max_tokens_check",),
        "A reply that answers on call number `max_steps` is returned, not an error.": (
            "cap_checked_before_answer",),
        "Check `stop_reason` for `max_tokens` and for `refusal` first, then apply \"anything "
        "that is not `tool_use` is an answer\".": (
            "answer_checked_first", "max_tokens_is_an_answer", "refusal_unhandled"),
    },
    "lab04_loop_detector": {
        'guard.check(tool, args, state, progress=None): -> None | str':
            ('no_signal_returns_empty_string',),
        'guard.halted: True once the step cap is passed; check() never raises':
            ('step_cap_not_halted', 'raise_at_step_cap', 'halted_on_second_nudge',
             'halt_on_first_trip', 'no_default_str'),
        'guard.trips: nudges given so far; the harness halts when a second one is needed':
            ('nudge_not_counted', 'step_cap_counts_trip'),
        '| identical call | the same `(tool, args)` arrives for the `repeat + 1`-th time | '
        "the tool's name |":
            ('repeat_ge', 'repeat_nudge_unnamed', 'fingerprint_tool_only'),
        '| frozen world | the same `state` is seen for the `cycle + 1`-th time | `cycling` '
        '|':
            ('cycle_ge', 'cycle_nudge_unworded'),
        '| stall | `stall + 1` steps in a row fail to beat the **best** `progress` so far '
        '(higher is better; `None` means "not measured") | `progress` |':
            ('stall_since_last_change', 'stall_ge', 'stall_nudge_unworded'),
        '| step cap | call `max_steps + 1`: set `halted = True`, return the reason | any '
        'wording |':
            ('raise_at_step_cap',),
        "The signals are checked in the table's order, step cap first.":
            ('step_cap_checked_last',),
        'The first that trips returns its message, and the signals after it do not see that '
        'call (a call that trips the identical-call signal does not count toward the frozen '
        'world or the stall).':
            ('counters_before_checks', 'progress_before_checks'),
        'Each nudge adds 1 to `trips`; the step cap does not.':
            ('step_cap_counts_trip',),
        '`progress=None` means "not measured": it neither resets the stall count nor adds '
        'to it.':
            ('none_resets_stall', 'none_counts_as_stall'),
        'Once `halted`, every later `check` returns the step-cap message again; the step '
        'cap comes first, so such a call reaches no other signal and leaves `trips` as it '
        'was.':
            ('halt_message_once',),
        'Only the step cap sets `halted`.':
            ('halted_on_second_nudge', 'halt_on_first_trip'),
        'The harness ends a run on its second trip by reading `trips`, so the guard itself '
        'keeps going: after a second nudge `halted` is still False, and later calls go '
        'through the table as before (a third identical repeat is a third nudge).':
            ('silent_after_second_nudge', 'halted_on_second_nudge'),
        'Fingerprints of `args` and `state` must not depend on the order of dictionary keys '
        '(at any depth), and values that JSON cannot encode (a `datetime`, a `Decimal`, a '
        '`Path`) must not make `check` fail.':
            ('no_sort_keys', 'no_default_str'),
        '`fingerprint` is a helper for you (it is not graded on its own): turn any value '
        'into a short string that is the same for equal content, whatever the key order, and '
        'that does not fail on values JSON cannot encode.':
            ('no_sort_keys', 'no_default_str'),
    },
    "lab02_retry": {
        'Every wait goes through the `sleep` you are given, never `time.sleep` itself.':
            ('sleeps_with_time_sleep',),
        '**Out:** whatever `fn()` returns (that very object), once a call succeeds.':
            ('returns_nothing', 'returns_text'),
        '**Raises** every `APIStatusError` but the 429 and the 5xx after exactly one call, '
        'with no sleep: 400, 401, 403, 404, 413, 422, any other status below 500.':
            ('retries_400', 'only_400_is_final', 'fixed_client_status_list',
             'named_client_classes_only', 'client_error_wrapped'),
        "That includes 408 and 409, which the SDK's own retry retries: here they are the "
        "caller's.":
            ('sdk_status_list',),
        'It also raises the last error itself once `max_attempts` calls have all failed, '
        'with no sleep after it.':
            ('sleeps_before_giving_up', 'raises_first_error',
             'returns_none_when_out_of_attempts', 'unbounded_attempts'),
        '"Itself" means the very exception object `fn` raised, not a new one wrapping it.':
            ('wraps_last_error', 'raises_previous_error'),
        'Anything else `fn` raises (a `KeyError` from your own code, say, or an '
        '`anthropic.APIResponseValidationError`, which is neither a status error nor a '
        'connection error) also propagates after one call, with no sleep: it is not a '
        'failure of the service.':
            ('retries_own_exceptions', 'validation_error_retried'),
        '**Retries** `RateLimitError` (429), every `InternalServerError` (every status from '
        '500 up: 500, 502, 507, and the subclasses `HTTPNotImplementedError` for 501, '
        '`ServiceUnavailableError` for 503, `GatewayTimeoutError` for 504 and '
        '`OverloadedError` for 529) and every `APIConnectionError` (a dropped connection, '
        'and its subclass `APITimeoutError`).':
            ('only_503_retried', 'status_list_misses_529', 'exact_class_match',
             'only_named_5xx_retried', 'timeout_not_retried',
             'status_read_on_connection_error', 'connection_error_has_no_response',
             'rate_limit_counted_as_client_error'),
        '**Waits** before retry *k* (k = 0, 1, 2, ...) `min(base * 2**k, cap)` seconds, or '
        "the error's `retry-after` value in seconds when it sent one: a 429 usually, but a "
        '503 or a 529 with the header counts the same.':
            ('no_cap', 'no_doubling', 'doubling_one_step_behind', 'first_retry_doubles',
             'linear_backoff', 'max_for_cap', 'ignores_base', 'ignores_cap_argument',
             'cap_on_multiplier', 'back_to_base_past_cap', 'ignores_retry_after',
             'retry_after_only_on_429', 'retry_after_header_required'),
        'The value may be fractional (`1.5`).':
            ('retry_after_int',),
        'The cap limits the doubling only: a server that says `retry-after: 90` with '
        '`cap=60` gets 90.':
            ('cap_limits_retry_after',),
        "The server's value replaces the doubling value when it is shorter, too, and it "
        'applies to its own retry only.':
            ('retry_after_only_if_longer', 'retry_after_added', 'stale_retry_after'),
        '*k* numbers the retries, whichever wait each one used: after a 429 that said '
        '`retry-after: 7` and then a 503, the retry after the 503 is retry 1 and waits '
        '`min(base * 2, cap)`.':
            ('retry_after_not_counted', 'doubles_the_last_wait'),
        '**Jitter** makes each sleep random, so clients that failed together wake apart.':
            ('no_jitter',),
        'Under a `retry-after`, jitter goes on top, never below: each sleep is in '
        '`[retry-after, 1.3 × retry-after]`.':
            ('full_jitter', 'sdk_jitter_under_retry_after',
             'jitter_from_doubling_under_retry_after', 'retry_after_slept_exactly'),
        'Without one, jitter may also go below the doubling value: each sleep is above 0 '
        'and at most `1.3 × wait`, and over 30 seeded runs the largest sleep before retry '
        '*k* reaches at least `0.7 × wait`.':
            ('jitter_too_wide', 'jitter_never_near_the_wait'),
        'Jitter comes after the cap: once the doubling passes the cap, `wait` is the cap '
        'and each sleep is still drawn at random, so runs differ.':
            ('cap_after_jitter',),
        'It scales with the wait (a fixed `uniform(0, 0.3)` seconds does not): in every '
        "round, 20 clients' waits must spread with a standard deviation above 0.05 × their "
        'mean.':
            ('jitter_in_seconds', 'jitter_too_narrow', 'jitter_first_retry_only'),
        '**`max_attempts`** counts every call, the first included, whatever error each one '
        'got: a 429 uses up an attempt like a 503.':
            ('one_retry_too_many', 'gives_up_one_call_early', 'ignores_max_attempts',
             'rate_limits_not_counted'),
        'Below 1 it behaves as 1: one call, no retry.':
            ('zero_attempts_makes_no_call', 'zero_attempts_unbounded'),
        'A `max_attempts` of 0 or -3 is not an error.':
            ('rejects_zero_attempts',),
    },
    "lab03_budget": {
        'PRICE: {model: {"in": usd_per_token, "out": usd_per_token}}':
            ('price_per_mtok', 'price_keys_input_output'),
        "CACHE_WRITE, CACHE_READ: 1.25 and 0.10: multipliers of the model's input rate":
            ('cache_write_as_surcharge', 'cache_read_as_discount'),
        'class BudgetExceeded(RuntimeError): given: what the hard stop raises':
            ('stop_raises_runtime_error', 'stop_does_not_stop'),
        '.limit: the limit in dollars, a float':
            ('limit_kept_as_given',),
        '.charge(model, usage) -> float: price one reply, add it to the books, return its cost':
            ('returns_running_total', 'spent_overwritten', 'by_model_never_updated'),
        '.state: "ok" below 80% of the limit, "warn" from 80%, "stop" from 100%':
            ('strict_warn_boundary', 'strict_stop_boundary', 'thresholds_in_dollars',
             'warn_checked_before_stop'),
        '.guard() -> str | None: "stop": raise BudgetExceeded, on every call "warn": a wrap-up '
        'note for the model, the FIRST time only otherwise None':
            ('stop_does_not_stop', 'stop_raises_once', 'warned_flag_silences_stop',
             'note_before_stop', 'warning_every_turn', 'note_used_up_in_ok',
             'empty_string_not_none'),
        '.spent: dollars so far':
            ('spent_overwritten', 'spent_set_lazily'),
        '.by_model: {model: dollars}, summing to .spent':
            ('by_model_never_updated', 'by_model_overwritten', 'by_model_shared'),
        'The API bills a write made with `"ttl": "1h"` at 2×, but Lab 3\'s runs write only '
        '5-minute entries, so `charge` prices **every** write at 1.25×, whatever '
        '`usage.cache_creation` says about its time to live.':
            ('cache_writes_at_1x', 'cache_write_as_surcharge', 'one_hour_writes_billed_2x'),
        '**A new `Budget`** has `.spent == 0.0`, `.by_model == {}` and state `"ok"`.':
            ('spent_set_lazily',),
        'Each `Budget` keeps its own books.':
            ('by_model_shared',),
        "**`charge` returns this call's cost**, not the running total, at full precision "
        '(no rounding to cents).':
            ('returns_running_total', 'cost_rounded_to_cents'),
        'It books every reply, even past the limit: the API has already billed it.':
            ('charge_refuses_when_stopped',),
        'Only `guard` stops the run.':
            ('charge_refuses_when_stopped',),
        '**The wrap-up note** is a sentence that mentions the budget.':
            ('note_without_budget',),
        '`guard` sends it once: the first call that finds the state at `"warn"`.':
            ('warning_every_turn', 'note_used_up_in_ok'),
        'Earlier calls in `"ok"` return `None` and do not use it up.':
            ('note_used_up_in_ok', 'empty_string_not_none'),
        'Once the state is `"stop"`, `guard` raises, whether or not the note went out.':
            ('stop_does_not_stop', 'warned_flag_silences_stop', 'stop_raises_once',
             'note_before_stop', 'stop_raises_runtime_error'),
        'So compare the *share* of the limit rounded to 9 decimals: `share = round(spent / '
        'limit, 9)`.':
            ('unrounded_warn_boundary', 'unrounded_stop_boundary', 'share_rounded_to_2'),
        'The state is `"stop"` when `share >= 1`, `"warn"` when `share >= 0.8`, else '
        '`"ok"`.':
            ('strict_stop_boundary', 'strict_warn_boundary', 'thresholds_in_dollars',
             'warn_checked_before_stop'),
        'At exactly 80% the state is `"warn"`; at exactly the limit it is `"stop"`.':
            ('strict_warn_boundary', 'strict_stop_boundary'),
        '**An unknown model** (not in `PRICE`) makes `charge` raise `KeyError` and book '
        'nothing: `.spent` and `.by_model` stay as they were.':
            ('unknown_model_free', 'unknown_model_value_error', 'unknown_model_key_added'),
        'The two cache fields can be `None`.':
            ('none_not_counted_as_zero', 'none_drops_both_cache_terms'),
        '**Prices** per million tokens (MTok), input/output: claude-opus-5 \\$5/\\$25, '
        'claude-sonnet-5 \\$2/\\$10, claude-haiku-4-5 \\$1/\\$5.':
            ('stale_sonnet_price', 'haiku_old_price', 'price_per_mtok',
             'price_keys_input_output'),
        "A token **written** to the prompt cache bills at **1.25×** the model's input rate.":
            ('cache_writes_at_1x', 'cache_write_as_surcharge'),
        'A token **read** back from it bills at **0.10×**.':
            ('cache_reads_full_price',),
        'Prices go in `PRICE` in **dollars per token**, under the keys `"in"` and `"out"`.':
            ('price_per_mtok', 'price_keys_input_output'),
        '`CACHE_WRITE` and `CACHE_READ` are the multipliers themselves (1.25 and 0.10), not '
        'the surcharge or the discount.':
            ('cache_write_as_surcharge', 'cache_read_as_discount'),
        '`charge` sums four terms, and a cache field of `None` counts as zero.':
            ('cache_reads_free', 'none_not_counted_as_zero', 'none_drops_both_cache_terms'),
        '`state` compares the rounded share of the limit, as specified at the top.':
            ('unrounded_warn_boundary', 'unrounded_stop_boundary', 'share_rounded_to_2',
             'thresholds_in_dollars'),
    },
    "lab09_trajectory": {
        'Every invariant **appends** its violation (the exact text above) to `t.violations` '
        'and **returns `t` itself**, whether or not it found anything, so the calls chain.':
            ('no_return_self',),
        'Nothing raises on a violation; violations stay in the order the invariants ran.':
            ('raise_on_first', 'result_sorted'),
        'A `name` matches a step only when it equals `step.tool` exactly (no substring, no '
        'change of case).':
            ('name_substring',),
        '`never_called(name)` appends **one** violation per call of `never_called`, however '
        'many steps ran that tool; `never_called_all` so appends one per listed name that '
        'ran.':
            ('never_called_per_step', 'names_sorted'),
        '`called_at_most` trips when the tool ran **more than** `n` times; '
        '`max_total_calls` when there are **more than** `n` steps.':
            ('at_most_inclusive', 'total_inclusive'),
        'Exactly `n` is within bounds.':
            ('at_most_inclusive', 'total_inclusive'),
        '`called_before(first, second)` trips when `second` ran and `first` did not run at '
        "any step before `second`'s **first** run (other steps in between are fine).":
            ('before_anywhere', 'before_last_run', 'exact_sequence'),
        'When `second` never ran, it is silent.':
            ('flags_absent_second',),
        '`called_before(x, x)` trips whenever `x` ran, since nothing can run before its own '
        'first run.':
            ('self_pair_silent',),
        '`parallel_batch_at_least(n)`: a batch is all the steps that share a `batch` number '
        '(steps the model asked for in one reply).':
            ('ignores_batch',),
        'It trips when the largest batch has fewer than `n` steps (exactly `n` is enough); '
        'an empty trace has a largest batch of 0.':
            ('batch_strict', 'batch_empty_raises'),
        '`no_pattern_in_args(pattern, label)` runs `re.search(pattern, str(step.args))` on '
        'every step and appends one violation for each step that matches.':
            ('pattern_once',),
        '`result()` returns `passed` (no violation at all), `safety_ok` (no violation that '
        'starts with `"SAFETY"`), `violations` (all of them, in order), `safety` (the '
        'SAFETY ones) and `other` (the rest), as new lists: changing a list it returned '
        'changes neither `t.violations` nor a later `result()`.':
            ('safety_folded', 'result_shares_list'),
        't = Trajectory(trace): t.violations == [] to start':
            ('violations_shared',),
        't.never_called(name): "SAFETY: called forbidden tool {name}"':
            ('never_called_message',),
        't.called_at_most(name, n): "EFFICIENCY: {name} called {count}x (max {n})"':
            ('at_most_message',),
        't.called_before(first, second): "ORDER: {second} ran without {first}"':
            ('before_message_swapped',),
        't.max_total_calls(n): "EFFICIENCY: {count} calls (max {n})"':
            ('total_message',),
        't.parallel_batch_at_least(n): "PARALLELISM: largest batch was {largest}, want {n}"':
            ('batch_message_swapped',),
        't.never_called_all(names): never_called for each name, in the order given':
            ('names_sorted',),
        't.no_pattern_in_args(pattern, label): "SAFETY: {label} in args to {tool}"':
            ('pattern_message_shows_pattern',),
        't.result(): {"passed", "safety_ok", "violations", "safety", "other"}':
            ('result_key_renamed',),
    },
    "lab10_token_accounting": {
        '**A row** has the keys `label`, `model`, `ms`, `in`, `out`, `cache_write`, '
        '`cache_read` (token counts; a `None` cache field counts as 0) and `usd_in`, '
        '`usd_out`, `usd_write`, `usd_read` (dollars, kept apart, never pre-summed).':
            ('none_cache_field_crashes',),
        'Uncached input bills at the input rate, output at the output rate, cache writes at '
        '**1.25×** and cache reads at **0.10×** the input rate, from `PRICE[model]`.':
            ('cache_reads_full_price', 'wrong_multipliers'),
        'A model not in `PRICE` raises `KeyError`.':
            ('unknown_model_free',),
        '`ms` is stored unchanged, as the float it is passed.':
            ('ms_rounded',),
        '**`total()`** of an empty ledger is 0.0 and **`by_label()`** of an empty ledger is '
        '`{}`.':
            ('total_fails_when_empty', 'by_label_none_when_empty'),
        '`cache_hit_rate()` is not rounded.':
            ('hit_rate_rounded',),
        '**`where_the_money_went()`** returns `total_usd` (rounded to 4 places), '
        '`share_output`, `share_uncached_input`, `share_cache_write`, `share_cache_read` '
        "(each term's dollars over the total) and `cache_hit_rate`, those five rounded to 3 "
        'places.':
            ('shares_rounded_to_2', 'total_rounded_to_cents'),
        'An empty ledger gives 0.0 everywhere.':
            ('empty_ledger_divides_by_zero',),
        "**`accounted`** calls the site, records the returned message's `usage` against "
        '`label` and `model` with the elapsed milliseconds, and returns the message '
        'unchanged, once per call: a retried call is recorded once per attempt.':
            ('retries_not_charged', 'accounted_returns_copy'),
        "The elapsed milliseconds are wall-clock time around the site's call, read from "
        '`time.perf_counter()` (seconds) and multiplied by 1,000.':
            ('accounted_ms_in_seconds', 'stream_ms_in_seconds'),
        "**`accounted_stream`** calls the site, which returns the SDK's stream manager, "
        "drains the stream to its end, records the **final** message's usage and returns "
        'that final message.':
            ('stream_usage_before_finish',),
        "**`instrument(ledger)`** returns the ticket agent's three call sites, each "
        'recorded: `"plan"` (claude-opus-5, retried with `world.retry_truncated`), '
        '`"summarize"` (claude-sonnet-5) and `"answer"` (claude-opus-5, streamed).':
            ('call_site_undecorated',),
        '**Prices** per million tokens, input/output: claude-opus-5 \\$5/\\$25, '
        'claude-sonnet-5 \\$2/\\$10, claude-haiku-4-5 \\$1/\\$5.':
            ('stale_sonnet_price', 'haiku_output_misprized', 'price_per_mtok'),
        'PRICE: {model: {"in": usd_per_token, "out": usd_per_token}}, as in Lab 3':
            ('price_per_mtok',),
        '.rows: one dict per recorded call, in order':
            ('rows_newest_first', 'retries_not_charged'),
        '.record(label, model, usage, ms): price one call into a new row; returns None':
            ('record_returns_row', 'wrong_multipliers'),
        '.total() -> float: dollars, all rows, all four terms':
            ('total_drops_cache_reads', 'total_fails_when_empty'),
        '.cache_hit_rate() -> float: sum(read) / sum(read + write + uncached); 0.0 if empty':
            ('hit_rate_ignores_writes', 'hit_rate_empty_divides_by_zero'),
        'instrument(ledger) -> {"plan": fn, "summarize": fn, "answer": fn}: the ticket agent, '
        'wired':
            ('instrument_key_misspelt', 'call_site_undecorated'),
    },
    "lab08_offloader": {
        'A payload that is not a `str` becomes `json.dumps(payload, indent=2, '
        'default=str)`.':
            ('json_without_default',),
        'If that text has `len(text) <= threshold` characters, `wrap` returns it '
        '**unchanged**: no file is written and `saved_chars` does not move.':
            ('offload_small_results', 'threshold_strict', 'threshold_hard_coded'),
        'Otherwise it writes the text to a new file directly inside `root`, named '
        '`<tool_name>-<8 characters>.txt` (use `os.path.join(root, name)`, so the path in '
        'the pointer is exactly the string `read` expects).':
            ('same_file_for_every_payload', 'tool_name_used_raw', 'digest_full_length'),
        'Every `/` and `\\` in `tool_name` becomes `_` in the file name (`mcp/search` is '
        'saved as `mcp_search-….txt`), so the file always lands directly inside `root`; the '
        'pointer shows the tool name as given.':
            ('tool_name_used_raw', 'backslash_kept'),
        'Two different payloads get two different files.':
            ('same_file_for_every_payload',),
        '`wrap` adds `len(text)` to `saved_chars` and returns a pointer that holds: * the '
        'tool name, the number of lines (`len(text.splitlines())`) and of characters; * the '
        "file's path; * the first 8 lines, verbatim; * the last 4 lines, verbatim, **only "
        'when there are more than 12 lines** (with 12 or fewer, a tail would repeat lines '
        'the head already shows); * how to read the rest: the word `read_artifact` and the '
        'path again.':
            ('saved_chars_not_counted', 'thin_pointer', 'duplicated_tail',
             'tail_at_twelve_lines'),
        'No other line of the payload appears in the pointer, and none appears twice.':
            ('duplicated_tail', 'tail_at_twelve_lines'),
        'The choice depends on `len(text)` alone: a text over the threshold is offloaded '
        'even when its pointer comes out longer than the text (one long line is its own '
        'head).':
            ('inline_when_pointer_longer',),
        '**`read(path, offset=0, limit=200)`** never raises.':
            ('missing_file_raises',),
        '`path` does not resolve inside `root` (`_contained` is False),':
            ('no_containment', 'startswith_containment'),
        '`offset` is not an `int` or is below 0,':
            ('bool_offset_accepted', 'negative_offset_accepted'),
        '`limit` is not an `int` or is outside 1…500 (for both, a `bool` is not an `int`),':
            ('limit_500_refused', 'limit_501_accepted'),
        'or there is no such file (a folder, `root` itself included, is not a file).':
            ('missing_file_raises', 'root_itself_not_contained'),
        'Otherwise it returns `"[lines {offset}-{end} of {total}]\\n"` followed by lines '
        '`offset` to `end - 1` (0-based) of the file, joined with `"\\n"`, where `end = '
        'max(offset, min(offset + limit, total))`.':
            ('header_end_taken_literally', 'refuse_everything'),
        'An offset at or past the end gives an empty window, not an error: `read(path, '
        '500)` on a 400-line file returns `"[lines 500-500 of 400]\\n"`.':
            ('header_end_taken_literally',),
        '**`_contained(path)`** resolves symbolic links and `..` in both `root` and `path` '
        '(`os.path.realpath`) and compares **path components** (`os.path.commonpath`), not '
        'strings.':
            ('startswith_containment', 'abspath_not_realpath'),
        'A relative path is taken from the current folder, as `open` would.':
            ('relative_path_from_root',),
        '`root` itself counts as inside root.':
            ('root_itself_not_contained',),
        'It returns a `bool` and never raises.':
            ('contained_raises', 'contained_not_bool'),
        'off = Offloader(root, threshold=2000): creates root (and its parents) if missing':
            ('parents_not_created', 'threshold_default_2048'),
        'off.wrap(tool_name, payload): -> str: the payload as text, or a pointer to its file':
            ('offload_small_results', 'inline_when_pointer_longer'),
        'off.read(path, offset=0, limit=200): -> str: a window of lines, or "Error: ..."':
            ('read_default_offset_1', 'read_default_limit_100', 'missing_file_raises',
             'refuse_everything'),
        'off._contained(path): -> bool: does path really resolve inside root?':
            ('contained_not_bool', 'startswith_containment', 'abspath_not_realpath',
             'no_containment'),
        'off.saved_chars: characters written to artifact files so far (int)':
            ('saved_chars_not_counted', 'saved_chars_in_bytes'),
        'The file name needs 8 characters that differ between payloads; a hash of the text '
        '(`hashlib.sha256(...).hexdigest()[:8]`) also keeps the pointer the same length from '
        'run to run.':
            ('same_file_for_every_payload', 'digest_full_length'),
    },
    "lab07_cache_audit": {
        'PRICE: {model: {"in": usd_per_token, "out": usd_per_token}}, as in Lab 3':
            ('price_per_mtok', 'price_keys_input_output'),
        'call_usd(inp, cw, cr, out, model="claude-opus-5") -> float: dollars for one call: '
        'uncached input, cache write (1.25x input), cache read (0.10x input), output; prices '
        'from PRICE[model] (a KeyError for a model not in PRICE)':
            ('default_model_sonnet', 'writes_priced_as_input', 'cache_reads_full_price',
             'unknown_model_priced_as_opus'),
        'audit_caching(build_request, *, client, n=3) -> dict: call i (i = 0 .. n-1) sends '
        'client.messages.create(**build_request(f"probe {i}")) returns {"per_call": '
        '[{"uncached_in", "cache_write", "cache_read"}, ...], # ints, None -> 0 "hit_rate": '
        'read / (read + write + uncached) of the LAST call (0.0 if all are 0), "verdict": '
        '"HEALTHY" if hit_rate > 0.7, "WEAK" if > 0.1, else "BROKEN"} n < 1 raises ValueError':
            ('default_n_two', 'probes_counted_from_one', 'per_call_key_misnamed',
             'none_usage_kept', 'hit_rate_from_first_call', 'denominator_without_writes',
             'zero_total_divides', 'healthy_at_exactly_0_7', 'weak_at_exactly_0_1',
             'n_zero_accepted'),
        'find_invalidator(build_request, probe_a="q1", probe_b="q2") -> str: the lines that '
        'differ between json.dumps(build_request(probe), indent=2) of the two probes, without '
        'sort_keys, each starting with "-" (probe_a) or "+" (probe_b), joined by "\\n"; lines '
        'containing probe_a or probe_b are dropped; NO_DIFF if nothing is left':
            ('default_probes_swapped', 'sort_keys_hides_dict_order', 'space_after_marker',
             'all_minus_lines_first', 'lines_joined_by_space', 'probe_lines_not_filtered',
             'raw_probe_matched', 'empty_string_not_no_diff'),
        'A changed line is the marker glued to the rendered line, indentation kept and no space '
        'added (`- "model": "claude-opus-5",`), in the order `difflib.unified_diff(a, b, '
        'lineterm="", n=0)` yields them: for each run of changed lines, its `-` lines, then its '
        '`+` lines.':
            ('space_after_marker', 'all_minus_lines_first'),
        'A line "contains" a probe when it contains the probe *as the render writes it*, '
        '`json.dumps(probe)[1:-1]`: a quote becomes `\\"` and `café` becomes `caf\\u00e9` in the '
        "JSON, so matching the raw string would keep such a probe's own line in the diff.":
            ('raw_probe_matched',),
        '**Out:** whether the prompt cache actually warms, measured from `usage`, and when it '
        'does not, the line of the payload that broke it.':
            ('hit_rate_from_first_call', 'denominator_without_writes', 'sort_keys_hides_dict_order',
             'probe_lines_not_filtered'),
        '`hit_rate` is not rounded; the verdict compares it strictly (`0.7` exactly is WEAK).':
            ('hit_rate_rounded', 'healthy_at_exactly_0_7', 'weak_at_exactly_0_1'),
        '**Prices** per million tokens, input/output: claude-opus-5 \\$5/\\$25, claude-sonnet-5 '
        '\\$2/\\$10, claude-haiku-4-5 \\$1/\\$5.':
            ('stale_sonnet_price', 'haiku_old_price', 'opus_old_price'),
        'A token written to the cache bills at 1.25× the input rate (2× for a `"ttl": "1h"` '
        'write), a token read from it at 0.10×.':
            ('writes_priced_as_input', 'cache_reads_full_price'),
    },
    "lab11_context_reduction": {
        '**`reduce_while_over`** calls `reduce_once(window)` (which shortens the list `window` in '
        'place and returns `True`, or `False` when it cannot cut any more) for as long as '
        '`count(window) > budget`, and returns how many **cuts** it made.':
            ('cuts_at_the_budget', 'one_cut_per_step', 'returns_the_window', 'per_step_compaction'),
        'At or below the budget it never calls it (so it returns 0).':
            ('per_step_compaction', 'cuts_at_the_budget'),
        'It stops at the first call whose result is false: that call cut nothing and is not '
        'counted.':
            ('refused_call_counted',),
        'Five items over a budget of 3 is two cuts; a `reduce_once` that refuses at once gives 0.':
            ('cuts_at_the_budget', 'one_cut_per_step', 'refused_call_counted'),
        '**`StateStore`**: one slot per key.':
            ('unkeyed_store',),
        '`put` stores `text` and `step` under `key`, and a second `put` with the same key '
        'replaces both.':
            ('unkeyed_store', 'first_put_wins'),
        '`render()` returns `""` for an empty store, otherwise the line `State:` followed by one '
        'line per slot, `- {key}: {text}`, in sorted key order.':
            ('render_in_insertion_order', 'empty_store_renders_header'),
        'The old value of a replaced slot appears nowhere.':
            ('unkeyed_store', 'first_put_wins'),
        '**`TrustGate(store, extract=extract)`**: `ingest(turn)` runs `extract(turn)`, which '
        'gives `(key, text)` pairs.':
            ('given_extract_ignored',),
        'Facts from a turn whose `role` is `"user"` or `"assistant"` go into the store with '
        '`turn.step`; facts from **any other role** (a `"tool"` result, but also a `"system"` '
        'note or a retrieved page) are appended to `quarantine` as a tuple `(turn.step, key, '
        'text)` and never touch the store.':
            ('ungated_extractor', 'tool_role_only_quarantined', 'quarantine_without_step',
             'quarantined_and_stored', 'assistant_not_trusted'),
        'Trust is a list of who may write, not a list of who may not.':
            ('tool_role_only_quarantined',),
        '**`judge(window, probe)`** is `True` only if `probe.answer` occurs in `window`, **no** '
        'string of `probe.stale` occurs in it, and **no** string of `probe.forbidden` occurs in '
        'it.':
            ('presence_only_judge', 'forbidden_not_checked', 'first_stale_only',
             'answer_not_required'),
        'All three are plain, case-sensitive substring tests.':
            ('judge_ignores_case',),
        'A garbled answer is a missing answer.':
            ('answer_not_required',),
        'store.put(key, text, step): a later put for the same key REPLACES the earlier value':
            ('unkeyed_store', 'first_put_wins'),
        'store.get(key): -> the current text, or None':
            ('get_returns_the_slot', 'get_missing_is_empty'),
        'store.render(): -> the state block (see below)':
            ('render_in_insertion_order', 'empty_store_renders_header'),
        'gate = TrustGate(store): extract= defaults to context_reduction.extract':
            ('extract_has_no_default',),
        'gate.ingest(turn): writes trusted facts, quarantines the rest':
            ('ungated_extractor', 'tool_role_only_quarantined', 'quarantined_and_stored',
             'assistant_not_trusted'),
        'gate.quarantine: list of (step, key, text), in arrival order':
            ('quarantine_without_step', 'quarantine_newest_first'),
        'judge(window, probe) -> bool: does this window answer the probe, safely?':
            ('presence_only_judge', 'answer_not_required', 'forbidden_not_checked',
             'first_stale_only'),
    },
    "lecture04_context_cache": {
        'Without idempotency the rule is blunt: retry only from a state that *proves* nothing '
        'happened, never from one that merely fails to prove something did.':
            ('retries_timeouts',),
        'A timeout proves nothing.':
            ('retries_timeouts',),
        'With idempotency, made with a **request key** (an id minted when the call is issued, '
        'written into the transcript, and deduplicated on where the write commits), the '
        'unanswerable "did my call happen?" becomes "did key *k* commit?".':
            ('key_on_arguments', 'key_truthy_lookup', 'retry_never_after_crash'),
        'The key must live in the transcript, not in a local variable: **the transcript is the '
        'state**.':
            ('dedup_on_local_id', 'key_table_of_its_own'),
        'Append each entry as it happens and recovery is a replay from the last one; a replayed '
        'call must carry the same key as the original, or the dedup has nothing to match.':
            ('dedup_on_local_id',),
        '`retry_allowed` takes a terminal state (`cc.OK`, `cc.ERROR_AS_DATA`, '
        '`cc.CRASHED_MID_WRITE`, `cc.TIMEOUT`).':
            ('retry_accepts_any_state',),
        '`with_request_key(tool, *, table)` wraps a write *where it commits*: it returns '
        '`call(entry)`, which runs `tool(**entry["input"])` at most once per '
        '`entry["request_key"]`, remembering each key\'s result in `table` (a durable dict that '
        'outlives the agent process).':
            ('key_table_of_its_own', 'key_truthy_lookup', 'key_missing_is_none',
             'key_on_arguments', 'key_first_call_returns_nothing'),
        '**Out:** each `assemble_*` returns the context to send; `ledger` returns a '
        '`LedgerReport` (tokens per turn, cumulative, compaction traffic, held, the turn a window '
        'binds, the turn of an overflow, and the eviction log); `retry_allowed` says whether a '
        'tool call that ended in `state` may be sent again; `with_request_key` wraps a write so '
        'that a replayed call commits once.':
            ('compact_sends_raw_turns', 'window_newest_first', 'fifo_evicts_preamble',
             'ledger_counts_own_append', 'ledger_summary_output_tokens', 'ledger_held_is_largest',
             'ledger_binds_zero', 'ledger_overflow_at_limit', 'ledger_logs_every_absence',
             'retries_timeouts', 'retry_never_after_crash', 'dedup_on_local_id',
             'key_table_of_its_own'),
    },
    "tier2_langgraph": {
        '`build_graph(llm, tools, *, checkpointer=None, approve=())` returns the compiled '
        'graph.':
            ('returns_the_builder',),
        'State: `MessagesState`.':
            ('state_without_reducer',),
        'Nodes: `"agent"` calls `llm.bind_tools(tools)` on the messages and returns '
        '`{"messages": [reply]}`; `"tools"` and `"approved_tools"` are both `ToolNode(tools)`.':
            ('agent_without_bound_tools',),
        'After `agent`: `END` when the last message has no `tool_calls`, `"approved_tools"` '
        'when any of its calls names a tool in `approve`, else `"tools"`.':
            ('approval_only_when_all_calls_approved', 'approval_checks_first_call',
             'approval_checks_last_call'),
        'So a turn that asks for a read and a write together pauses as a whole: none of its '
        'calls runs before approval.':
            ('approval_only_when_all_calls_approved', 'approval_checks_first_call',
             'approval_checks_last_call'),
        'Both tool nodes lead back to `agent`.':
            ('approved_tools_ends_the_run',),
        'Compile with `checkpointer=checkpointer` and `interrupt_before=["approved_tools"]`.':
            ('approval_after_write',),
        '`run_or_resume(app, goal, *, thread_id)` uses the config `{"configurable": '
        '{"thread_id": thread_id}}`.':
            ('fixed_thread_id',),
        'If the thread has a step pending, it continues it with `app.invoke(None, config)`; '
        'otherwise it starts it with `{"messages": [HumanMessage(goal)]}`.':
            ('resume_by_resending_goal', 'resume_any_saved_thread'),
        'Any pending step counts: the `agent` step a crash left behind or the '
        '`approved_tools` step of a pause.':
            ('resume_only_after_a_crash', 'resume_only_at_approval'),
        'A finished thread has no step pending, so a new goal on it starts a new turn on the '
        'same history.':
            ('resume_any_saved_thread',),
        'It returns `None` when the thread is left paused (a step still pending after the '
        'call), else the text of the last message as a `str` (`str(msg.text)`).':
            ('paused_returns_text', 'returns_the_message'),
        'Errors from the run (a dead connection) propagate unchanged.':
            ('dead_run_returns_none',),
        'Resuming a paused approval **is** the approval: the next `run_or_resume` on that '
        'thread runs the write, once.':
            ('resume_only_after_a_crash', 'resume_by_resending_goal'),
        '`should_retry(exc) -> bool`, to pass as `retry_on`.':
            ('retry_non_api_returns_none',),
        'It returns `True` for `anthropic.RateLimitError` (429), for any '
        '`anthropic.APIStatusError` whose `status_code` is 500 or above (500, 529 overloaded, '
        '...), and for `anthropic.APIConnectionError` (a dropped connection or a timeout).':
            ('429_classed_as_client_error', 'retry_500_excluded', 'retry_listed_5xx',
             'retry_timeouts_only'),
        'It returns `False` for every other exception: any other 4xx (400, 401, 403, 404, '
        '413, ...), and anything that is not an API error (`ValueError`, `KeyError`, ...).':
            ('retry_on_every_status', 'retry_all_but_400', 'retry_non_api_returns_none'),
        '`BudgetState`: a `TypedDict` with `messages: Annotated[list, add_messages]` and '
        '`spent: Annotated[float, operator.add]`.':
            ('spent_overwritten', 'messages_without_reducer'),
        '`budget_route(state, *, limit_usd)` returns `"halt"` when `state["spent"] >= '
        'limit_usd` (compared as floats, exactly like that), whatever the last message is; '
        'otherwise `"tools"` when the last message has `tool_calls`, else `END`.':
            ('halt_only_over_limit', 'route_tools_before_budget', 'route_answer_before_budget'),
        'The `halt` node of `graphs.budget_graph` then appends its report, `"stopped: budget '
        'of $2.00 reached (spent $2.00)"` for a \\$2.00 limit, and the run ends with the '
        'whole history kept.':
            ('spent_overwritten', 'messages_without_reducer'),
        "A tool call's identity is its name and its arguments (`json.dumps(args, "
        'sort_keys=True)`).':
            ('guard_identity_key_order', 'guard_identity_args_only'),
        'Count the identity of every call in every `AIMessage` of the history.':
            ('guard_counts_recent_turns_only',),
        'If none of the calls of the **latest** `AIMessage` has been made `repeat` times or '
        'more, return `{}`.':
            ('guard_trips_after_repeat', 'guard_ignores_repeat', 'guard_any_call_in_history',
             'guard_first_call_of_latest_only'),
        'Otherwise, if no `HumanMessage` in the history has content equal to `NUDGE`, return '
        '`{"messages": [HumanMessage(NUDGE)]}`; if one has, return `{"messages": '
        '[AIMessage(HALT)], "halted": True}`.':
            ('halt_without_nudge', 'guard_nudge_as_assistant', 'guard_halt_without_message'),
        'Different calls never trip it, however many there are.':
            ('guard_is_a_step_cap',),
        '`cache_lookup(state, *, cache)`: the question is the text of the last message.':
            ('cache_question_first_message',),
        'Call `cache.get(question, namespace=state["tenant"])`.':
            ('cache_default_namespace',),
        'On a hit (a string that is not empty after `.strip()`) return `{"messages": '
        '[AIMessage(hit)], "cache_hit": True}`, else `{"cache_hit": False}`: `None` and an '
        'empty answer are both misses.':
            ('cache_serves_empty_answer', 'cache_blank_answer_served'),
        '`cache_route(state)`: `END` when `state["cache_hit"]` is true, else `"agent"`.':
            ('cache_hit_still_calls_model',),
        '`cache_store(state, *, cache)`: store the text of the last `HumanMessage` as the '
        'question and the text of the last message as the answer, with `cache.put(question, '
        'answer, namespace=state["tenant"])`; return `{}`.':
            ('cache_store_first_message', 'cache_store_default_namespace'),
        'build_graph(llm, tools, *, checkpointer=None, approve=()): -> compiled graph':
            ('returns_the_builder',),
        'run_or_resume(app, goal, *, thread_id): -> final answer text, or None when paused':
            ('paused_returns_text', 'returns_the_message'),
        'should_retry(exc): -> bool, the retry_on of a RetryPolicy':
            ('retry_non_api_returns_none', 'retry_on_every_status'),
        'BudgetState: TypedDict: messages, spent (adds up)':
            ('spent_overwritten', 'messages_without_reducer'),
        'budget_route(state, *, limit_usd): -> "halt" | "tools" | END':
            ('halt_only_over_limit', 'route_tools_before_budget', 'route_answer_before_budget'),
        'loop_guard(state, *, repeat=3): -> state update: {}, a nudge, or a halt':
            ('guard_trips_after_repeat', 'halt_without_nudge', 'guard_nudge_as_assistant',
             'guard_halt_without_message'),
        'cache_lookup(state, *, cache): -> state update; cache_route(state) -> str':
            ('cache_serves_empty_answer', 'cache_question_first_message',
             'cache_hit_still_calls_model'),
        'cache_store(state, *, cache): -> {} after storing the answer':
            ('cache_store_first_message', 'cache_store_default_namespace'),
        'offloading_tools(tools, *, root, threshold=2000): -> a tool node function':
            ('offload_known_tools_only', 'offload_threshold_hard_coded', 'offload_at_threshold',
             'reader_offloaded_again', 'offload_default_4000'),
        'artifact_reader(root): -> the read_artifact tool function':
            ('reader_named_otherwise',),
        'An answer that is empty after `.strip()` (a reply with no text) is not stored at all.':
            ('cache_stores_empty_answer',),
        '`artifact_reader(root)` returns a tool function `read_artifact(path: str, offset: int '
        '= 0, limit: int = 200) -> str` (keep that name, those parameters and a docstring: the '
        'model sees them).':
            ('reader_default_limit',),
        'A relative `path` is taken inside `root`.':
            ('reader_relative_to_cwd',),
        'If the resolved path is not inside the resolved `root`, it returns a string starting '
        'with `Error:` and reads nothing; so it does for a path that is not a file it can read '
        '(a file that does not exist, a folder), and for an `offset` or `limit` that is not an '
        '`int` of 0 or more (a negative number, a float, a `bool`), since a negative slice '
        'would silently read from the end.':
            ('containment_by_prefix', 'reader_abspath_not_realpath',
             'reader_missing_file_raises', 'reader_catches_missing_only',
             'reader_negative_offset_slices', 'reader_accepts_bool',
             'reader_checks_offset_only'),
        'Otherwise it returns lines `offset` to `offset + limit` of the file (the first line is '
        'offset 0), joined with `"\\n"`.':
            ('reader_limit_as_end_line', 'reader_rejects_absolute_paths'),
        "It never raises (`ToolNode` passes a tool's exceptions up and the run would die).":
            ('reader_missing_file_raises', 'reader_catches_missing_only'),
        '`offloading_tools(tools, *, root, threshold=2000)` returns a node function `state -> '
        '{"messages": [...]}` that runs `ToolNode(tools)` on the state, then, for every '
        '`ToolMessage` whose `name` is not `"read_artifact"` and whose content is longer than '
        '`threshold` characters, writes the content to a new file directly inside `root` (a '
        'new name each time: two results never share a file, even from the same tool) and '
        'replaces the content with a pointer of at most `threshold` characters that holds the '
        "file's path exactly as `os.path.join(root, filename)` gives it and the word "
        "`read_artifact`; the rest of the pointer's wording is yours.":
            ('offload_known_tools_only', 'reader_offloaded_again', 'offload_threshold_hard_coded',
             'offload_one_file_per_tool', 'offload_pointer_file_name_only'),
        'A content that is not a string (a list of blocks) is measured and saved as '
        '`str(content)`.':
            ('offload_list_content_by_blocks',),
        'Results of `threshold` characters or fewer pass unchanged.':
            ('offload_at_threshold',),
    },
    "capstone_integrated_loop": {
        '| `ok` | True only for a passed goal predicate or a cache hit |':
            ('ok_from_text',),
        '| `partial` | True for a controlled stop: `budget`, `loop_guard`, `step_cap` |':
            ('max_tokens_is_partial', 'budget_stop_not_partial'),
        '| `stop` | `"answered"`, `"cache_hit"`, `"max_tokens"`, `"refusal"`, `"stop_reason"`, '
        '`"api_error"`, `"budget"`, `"loop_guard"` or `"step_cap"` |':
            ('refusal_not_handled', 'unknown_stop_reason_answers', 'step_cap_named_max_steps'),
        '| `text` | the answer (the cached one on a hit), `""` when not `ok` |':
            ('truncated_text_returned', 'reads_content_0'),
        '| `source` | `"semantic_cache"` on a hit, else `"model"` |':
            ('source_named_cache',),
        '| `usd` | `budget.spent` (0.0 on a hit) |':
            ('usd_only_when_answered',),
        "| `trace` | the run's `Trace`, with `trace.text = text` and `trace.usd = usd` |":
            ('trace_fields_not_set',),
        '**`authorize`** is an allow-list.':
            ('deny_list_authorize',),
        'A tool in `world.READ_ONLY` is allowed.':
            ('read_only_asks_the_console',),
        'A tool in `world.WRITE` is allowed only when `tenant` is non-empty **and** '
        '`approved(tenant, tool, args)` returns exactly `True`: `approved` is the support '
        'console, where a person confirmed that exact write.':
            ('write_without_tenant_check', 'approved_truthy', 'model_confirms_own_write'),
        'Anything the model put in `args` (a `"confirmed": true`, say) never counts.':
            ('model_confirms_own_write',),
        'Every other tool is denied.':
            ('deny_list_authorize',),
        'A *claim* is a line whose stripped text starts with `Claim`; its *label* is the text '
        'before its first `:`, stripped (`Claim 2`).':
            ('claim_lines_not_stripped', 'label_is_whole_claim'),
        'A citation is `[src:<id>]`; it *resolves* when `<id>` occurs inside the `result` of a '
        'step of `trace.steps` whose `is_error` is False.':
            ('error_results_resolve', 'citation_equals_result'),
        '`<id>` is the text up to the next `]`, stripped of spaces; an empty id (`[src:]`, '
        '`[src: ]`) never resolves, because the empty string occurs in every result and would '
        'verify anything.':
            ('id_not_stripped', 'empty_citation_resolves'),
        'The answer passes when it has at least one claim and every claim has at least one '
        'citation and all of its citations resolve: return `(True, "")`.':
            ('no_claims_pass', 'uncited_claim_passes', 'any_citation_resolves'),
        'With no claim at all (an empty answer included) return `(False, NO_CLAIMS)`.':
            ('no_claims_pass',),
        "Otherwise return `(False, UNVERIFIED.format(labels=...))`, the failing claims' labels "
        'in order, joined by `", "`.':
            ('label_is_whole_claim', 'uncited_claim_passes'),
        '**Semantic cache first.** `guards.cache.get(request, namespace=tenant)`; anything but '
        '`None` is a hit: return it at once, with no model call and `usd` 0.0. 2.':
            ('falsy_hit_is_a_miss', 'cache_not_namespaced', 'budget_made_before_cache'),
        'Otherwise make `budget = guards.Budget(limit_usd)`, `loop_guard = '
        'guards.LoopGuard(max_steps=max_steps)` and the history `[{"role": "user", "content": '
        'request}]`.':
            ('loop_guard_default_steps', 'budget_made_per_call', 'loop_guard_made_per_call'),
        'Then at most `max_steps` model calls (**bounded**), each as below. 3.':
            ('step_cap_off_by_one',),
        '**Retry around the call, charging inside it.** `reply = guards.retry(attempt)`, where '
        '`attempt()` calls `client.messages.create(**guards.agent.request(messages))`, then '
        '`guards.ledger.record("agent", guards.agent.model, reply.usage, ms)` (elapsed '
        'milliseconds, a float), then `budget.charge(guards.agent.model, reply.usage)`, and '
        'returns the reply.':
            ('retries_not_charged', 'budget_checked_before_charging'),
        'So every attempt that got a reply is recorded and charged, **before** anyone reads its '
        '`stop_reason`.':
            ('retries_not_charged', 'budget_checked_before_charging'),
        'If `guards.retry` raises any `Exception`, return a failure. 4.':
            ('api_error_escapes', 'catches_api_error_only'),
        '`stop_reason` **`max_tokens`** or **`refusal`** (content may be `[]`) is a failure; so '
        'is any stop reason other than `end_turn` and `tool_use`. 5.':
            ('refusal_not_handled', 'unknown_stop_reason_answers'),
        '**`end_turn`**: the answer is the text of the reply\'s text blocks joined with `""` '
        '(read blocks by `type`: the first one is often `thinking`).':
            ('reads_content_0',),
        '`passed, feedback = guards.goal(answer, trace)`.':
            ('end_turn_trusted', 'cache_filled_before_predicate'),
        'On a pass, and only if `guards.cacheable(request, answer)`, `guards.cache.put(request, '
        'answer, namespace=tenant)`; then return success (the **only** success exit).':
            ('put_ignores_cacheable', 'cache_filled_before_predicate', 'put_not_namespaced'),
        'On a fail, append the reply as an assistant message (skip it if its content is empty) '
        'and make this turn\'s user blocks `[{"type": "text", "text": feedback}]`. 6.':
            ('rejected_answer_dropped', 'empty_answer_appended'),
        '**`tool_use`**: append `{"role": "assistant", "content": reply.content}`, every block '
        'as it came: a `claude-opus-5` reply begins with a `thinking` block, and the API answers '
        '400 to tool results whose assistant turn lost it or changed it.':
            ('drops_thinking', 'appends_assistant_twice'),
        'Then for each `tool_use` block, in order: **authorize first**, `guards.authorize(name, '
        'input, tenant)`.':
            ('authorize_after_execute',),
        'A denial is the result `"Not permitted: <name>"` with `is_error` True; nothing runs and '
        'nothing raises. 7.':
            ('denial_text_without_name', 'authorize_after_execute', 'denial_sticks_in_turn',
             'is_error_sticks_in_turn'),
        'Allowed: `guards.agent.dispatch(name, input, tenant=tenant)`: the tenant is **the '
        "run's**, whatever the model's input says (no tool schema has a tenant).":
            ('tenant_from_model_args',),
        'An exception becomes `"Error: <message>"` with `is_error` True. 8.':
            ('tool_catches_key_error_only', 'error_without_prefix'),
        'A successful result goes through `guards.offloader.wrap(name, result)`.':
            ('result_not_offloaded',),
        'Then, for every allowed call, `nudge = loop_guard.check(name, input, '
        'guards.agent.snapshot(), progress=guards.agent.progress())`.':
            ('failed_call_not_checked', 'denied_call_checked', 'loop_guard_before_execute'),
        'A nudge replaces the result (`is_error` True) on the first trip; if `loop_guard.halted` '
        'or `loop_guard.trips > 1`, return a partial result.':
            ('halt_ignored', 'stops_on_first_trip', 'loop_guard_made_per_call'),
        'Append one `Step(name, input, content, is_error, batch=k)` to `trace.steps` for every '
        '`tool_use` block, denied ones included (`k` counts model calls from 0).':
            ('denied_call_not_traced', 'batch_counts_tool_turns'),
        'The step whose check stopped the run is appended too (its content is the nudge) before '
        'the partial result is returned, so the trace ends with the call that tripped the guard. '
        '9.':
            ('tripping_step_not_traced',),
        '**All results in one user message**, in the order of the `tool_use` blocks, each '
        '`{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": bool}`. 10.':
            ('results_split_across_messages', 'results_newest_first'),
        '**Budget last**, after every turn that continues: `budget.guard()`.':
            ('budget_checked_before_charging', 'budget_checked_after_tool_turns_only'),
        'If it raises `guards.BudgetExceeded`, return a partial result.':
            ('budget_stop_not_partial',),
        'If it returns a note, add `{"type": "text", "text": note}` at the end of this turn\'s '
        'user blocks.':
            ('note_before_results',),
        'Then append `{"role": "user", "content": blocks}` and loop. 11.':
            ('note_as_separate_message', 'results_split_across_messages'),
        'After `max_steps` model calls, return a partial result.':
            ('step_cap_off_by_one', 'step_cap_named_max_steps'),
        '**`run` never raises** on what the model, the API or a tool does: every `Exception` '
        'from `guards.retry` is an `"api_error"` result and every `Exception` from `dispatch` is '
        'an `"Error: ..."` result.':
            ('api_error_escapes', 'catches_api_error_only', 'tool_catches_key_error_only'),
        'The other guards (`cache`, `authorize`, `goal`, `offloader`, `LoopGuard`, '
        '`budget.guard` except for `BudgetExceeded`) are your own code; an exception from one of '
        'them is a bug in that guard, and `run` lets it through rather than hide it.':
            ('offloader_errors_swallowed', 'budget_guard_errors_swallowed'),
    },
    "lab05_semantic_cache": {
        '.get(q, namespace="default") -> str | None: the stored answer, or None on a miss':
            ('miss_returns_empty_string', 'expired_answers_kept'),
        '.put(q, a, namespace="default") -> None: store answer a for question q':
            ('put_keys_on_answer', 'no_namespace'),
        '.hits, .misses: lookup counters':
            ('put_counts_a_miss',),
        '.hit_rate: hits / lookups, 0.0 before any lookup':
            ('hit_rate_over_misses', 'hit_rate_zero_division'),
        'Keep, per namespace, a matrix of unit vectors (one row per stored question) with the '
        'answers and store times beside it.':
            ('no_namespace', 'unnormalised_vectors', 'normalise_only_long_vectors',
             'expired_answers_kept'),
        'A lookup is then one matrix–vector product and an `argmax`, whatever the number of '
        'rows; expiry is one comparison on the array of store times.':
            ('python_loop_lookup', 'first_row_over_threshold', 'expiry_checked_row_by_row'),
        '**Out:** the stored answer to the closest question, straight away, when one close '
        'enough in meaning was answered before for the same tenant and has not expired; '
        'otherwise `None`, and the agent runs as usual.':
            ('first_row_over_threshold', 'latest_row_wins', 'default_0_95',
             'threshold_strictly_above', 'unnormalised_vectors', 'normalise_only_long_vectors',
             'no_namespace', 'default_shared_by_tenants', 'no_expiry', 'live_at_exactly_ttl',
             'default_ttl_two_hours', 'expired_answers_kept', 'miss_returns_empty_string'),
        'It reads `time.time()` inside `get` and `put`, so the only way to test expiry is to '
        'wait an hour.':
            ('wall_clock_in_get', 'wall_clock_in_put'),
        'Here the clock is injected: `clock=FakeClock()` in every test.':
            ('wall_clock_in_get', 'wall_clock_in_put'),
        'It scans the table in a Python `for` loop (and drops expired rows with a list '
        'comprehension) on every lookup.':
            ('python_loop_lookup', 'expiry_checked_row_by_row'),
        '**user-specific**: the question says *my*, *mine*, *our* or *ours* ("what is my '
        'balance").':
            ('caches_my_balance', 'ours_left_out', 'word_rules_on_the_answer'),
        'This is crude on purpose: it also refuses the generic "changing my API key".':
            ('caches_my_balance',),
        '**time-sensitive**: the question asks about *now*, *today*, *tonight*, *tomorrow*, '
        '*yesterday*, *currently*, *current*, *latest*, *right now* or *at the moment*.':
            ('no_at_the_moment', 'currently_left_out', 'word_rules_on_the_answer'),
        '**identifiers**: the question or the answer contains an order, invoice, ticket or '
        'account number: a run of 4 or more digits ("order 48213", "INV-20931", "#5521").':
            ('three_digit_identifier', 'five_digit_identifier', 'identifier_in_question_only'),
        'Words match as **whole words, in any case**: "My" counts as *my*, but "your" does not '
        'contain *our* and "known" does not contain *now*.':
            ('case_sensitive_words', 'substring_words', 'substring_time_words'),
        '`rows` is a sweep like the one above: objects with `.threshold`, `.hits`, '
        '`.false_hits`, `.hit_rate` and `.false_hit_rate`, in any order.':
            ('rows_assumed_sorted',),
        'Return the threshold one notch above the lowest threshold with zero false hits.':
            ('no_safety_notch', 'notch_is_plus_0_01'),
        'If no threshold reaches zero false hits, or the first zero is the top of the grid, '
        'there is nothing safe to return: raise `ValueError` saying the grid must be '
        'extended.':
            ('no_zero_returns_top', 'top_of_grid_returned', 'top_of_grid_index_error'),
    },
    "lab06_eval_harness": {
        'expect_contains=[], tags=[], n_runs=3): a dataclass; list defaults not shared':
            ('tags_default_shared', 'n_runs_default_1'),
        'run_case(case, agent) -> dict: one run, four checks':
            ('runs_agent_twice', 'checks_key_misnamed', 'passed_without_budget'),
        'run_case_majority(case, agent) -> dict: n_runs runs, voted':
            ('n_runs_ignored', 'half_is_a_majority', 'flake_counted_as_pass'),
        '| `id`, `tags` | copied from the case (`tags` with its order and repeats) |':
            ('id_is_the_input', 'tags_deduplicated'),
        '| `checks` | `{"required_tools", "forbidden_tools", "call_budget", "content"}`, '
        'each a bool |':
            ('checks_key_misnamed', 'reads_tool_calls'),
        '| `passed` | all four checks hold |':
            ('passed_without_budget',),
        '| `safety_ok` | the `forbidden_tools` check holds |':
            ('safety_ok_is_passed',),
        '| `usd` | `trace.usd` |':
            ('usd_rounded_to_cents',),
        '| `calls` | the number of steps (repeats count) |':
            ('calls_distinct_tools',),
        '| `success_rate` | passed cases / cases, a float, not rounded |':
            ('success_rate_rounded',),
        '| `safety_violations` | the **list** of ids whose `safety_ok` is false, in input '
        'order |':
            ('safety_as_rate', 'violations_sorted'),
        '| `flaky_cases` | the list of ids whose `flake` is true, in input order |':
            ('flaky_cases_sorted',),
        '| `median_usd` | the median of `usd` (`statistics.median`) |':
            ('mean_not_median',),
        '| `p95_calls` | the 95th percentile of `calls` by **nearest rank**: sort the values '
        'and take the one at rank ⌈95·N/100⌉ (1-based; compute the rank in integers) |':
            ('p95_index_one_rank_high', 'mean_not_median'),
        '| `by_tag` | `{tag: {"passed": passed cases with that tag, "n": cases with that '
        'tag}}` |':
            ('tag_counted_twice',),
        '`run_case` calls `agent.run(case.input)` **once** and reads the `Trace` it returns '
        '(`trace.steps`, a list of `Step` with `.tool`; `trace.text`; `trace.usd`).':
            ('runs_agent_twice', 'reads_tool_calls'),
        '`required_tools`: every tool in `must_call` was called at least once, in **any** '
        'order, with anything else around it.':
            ('exact_route', 'any_required_tool'),
        '`forbidden_tools`: no tool in `must_not_call` was called.':
            ('forbidden_needs_all',),
        '`call_budget`: the number of steps is `<= max_tool_calls`.':
            ('budget_strict',),
        '`content`: every string in `expect_contains` appears in `trace.text`, **ignoring '
        'case** (`str.lower()` or `str.casefold()`, either: the graded texts are plain '
        'ASCII, where the two agree).':
            ('content_case_sensitive', 'content_any_string'),
        'A `trace.text` of `None` reads as `""`: then `content` holds only when '
        '`expect_contains` is empty.':
            ('text_none_crashes',),
        '`run_case_majority` calls `run_case` exactly `case.n_runs` times and returns `id`, '
        '`tags`, `passed` (**strictly more than half** the runs passed), `safety_ok` '
        '(**every** run was safe), `flake` (`0 < passes < n_runs`), `passes` (how many runs '
        'passed), `usd` (the mean over the runs), `calls` (the largest over the runs) and '
        '`runs` (the per-run dicts).':
            ('n_runs_ignored', 'half_is_a_majority', 'flake_counted_as_pass',
             'safety_by_majority', 'all_passes_flaky', 'usd_summed_over_runs',
             'calls_of_last_run'),
        'A case with `n_runs` below 1 is no evidence: `run_case_majority` raises '
        '`ValueError` for it, before it calls the agent.':
            ('n_runs_unchecked', 'n_runs_assert'),
        '`report(results)` takes a non-empty list of those dicts (a dict without `flake` '
        'counts as not flaky) and returns':
            ('flake_key_required',),
        'A case counts once under each distinct tag of `by_tag`, even if its `tags` list one '
        'twice.':
            ('tag_counted_twice',),
        '`gate(rep, baseline)` is true exactly when `rep["success_rate"] >= baseline` (the '
        'floats compared as they are) **and** `rep["safety_violations"]` is empty.':
            ('gate_without_safety', 'gate_strict', 'gate_rounds_success'),
    },
}

PROSE: dict[str, dict[str, str]] = {
    "lab01_tool_loop": {
        "**In:** a goal in plain English, a list of tool definitions, and "
        "`dispatch(name, args)`, the function that runs a tool.": "the inputs",
        "`client` is an `anthropic.Anthropic` client.": "the inputs",
        "Its content may be the goal string or a list holding one text block with it.":
            "a freedom: the checks accept both forms of the first message",
        "Everything here runs offline.": "the setting",
        "`client` is the real Anthropic SDK talking to a fake API that replays recorded "
        "replies and rejects malformed requests with the API's own 400s.": "the setting",
        "A truncated reply looks like an answer; a refusal may have no text block at all.":
            "why the order of the checks above matters (the max_tokens and no-block refusal "
            "rules are the API block's)",
    },
    "lab04_loop_detector": {
        '| signal | trips when | the message must contain |':
            "the table's header",
        'Words are matched without regard to case.':
            'how the checks read a message: a freedom (any case)',
        '`hashlib` and `json` are enough.':
            'a hint: which modules suffice',
    },
    "lab02_retry": {
        '**In:** `fn`, a zero-argument callable that makes one model call, for example '
        '`lambda: client.messages.create(...)`; the retry budget; and `sleep`, which the '
        'tests replace with a fake that records each wait instead of waiting.':
            'the inputs',
        'A `retry-after` of 0 may be slept as 0 or taken as none, as the SDK does (either '
        'is accepted).':
            'a freedom: the checks accept both readings of a retry-after of 0',
        "Full jitter `uniform(0, wait)` qualifies there; this lab's own rule, `sleep(wait + "
        'random.uniform(0, 0.3 * wait))`, qualifies in both cases.':
            'a freedom: which jitter rules qualify',
        'A failing call goes in.':
            'a summary of the rules above',
        'Either a result comes out after some waiting, or the error comes out untouched.':
            'a summary of the rules above',
        'The work is deciding, for each failure, who should fix it: your harness or the '
        'caller.':
            'why the lab exists',
        'Everything runs offline.':
            'the setting',
        'The errors come from the real Anthropic SDK reading a fake wire, and time is a '
        'fake clock: no cell here really sleeps.':
            'the setting',
    },
    "lab03_budget": {
        '**Boundaries, exactly.** Money in floats is not exact: 800,000 tokens at \\$1/MTok '
        'is `800_000 * (1 / 1_000_000)`, which Python computes as `0.7999999999999999`.':
            'why the boundary rule that follows exists',
        'Billing it at \\$0 would hide the spend.':
            'why the rule above exists',
        "**In:** after every model call, the model's name and the reply's `usage`: a real "
        '`anthropic.types.Usage` with `input_tokens`, `output_tokens`, '
        '`cache_creation_input_tokens` and `cache_read_input_tokens`.':
            'the inputs',
        '**Out:** a running total in dollars, and two signals.':
            'a summary of the rules above',
        'At 80% of the limit the model gets a wrap-up note it can read.':
            'a summary of the rules above',
        'At 100% it gets a hard stop it cannot argue with.':
            'a summary of the rules above',
        'Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) '
        "and each model's page, read 2026-12-02 (claude-sonnet-5 was priced here at "
        '\\$3/\\$15 before; its page lists \\$2/\\$10).':
            'the source of the prices',
        'Everything runs offline: replies come from the real SDK talking to a fake API.':
            'the setting',
        '`guard` is what the loop calls every turn.':
            "the setting: who calls guard (what it returns and raises is the API block's)",
    },
    "lab09_trajectory": {
    },
    "lab10_token_accounting": {
        'Labels are the keys.':
            "says how instrument's result is keyed (by the labels above)",
        "The world's call sites, which you decorate (all from "
        '`course.worlds.token_accounting`):':
            "introduces the list of the world's call sites",
        'Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) '
        "and each model's page, read 2026-12-02. claude-sonnet-5 was priced here at "
        '\\$3/\\$15 before; its page lists \\$2/\\$10, which changes every Sonnet figure '
        'below (the cut is 60%, not 40%).':
            'the source of the prices',
        '.where_the_money_went() -> dict: see below':
            'points to the section below',
        'accounted(label, model, *, ledger): decorator for a call site returning a Message':
            'the signature only; its rules are stated below',
        'accounted_stream(label, model, *, ledger): decorator for a call site returning '
        'messages.stream(...)':
            'the signature only; its rules are stated below',
        'world.plan(client, goal, max_tokens=512) -> Message: cut off at max_tokens below '
        '1,024':
            "given, not graded: the world's call site",
        'world.answer(client, goal, notes) -> MessageStreamManager: use as `with ... as '
        'stream:`':
            "given, not graded: the world's call site",
        'world.retry_truncated(fn, attempts=3) -> retried: retried(client, goal) calls '
        'fn(client, goal, max_tokens=room), doubling room from 512 while the reply stops at '
        'max_tokens; returns the first reply that does not, RuntimeError after `attempts`':
            "given, not graded: the world's retry helper, which instrument uses as it is",
    },
    "lab08_offloader": {
        '**`wrap(tool_name, payload)`**':
            "the heading of wrap's rules",
        'It returns a string that starts with `Error:` when':
            'introduces the list of Error: cases below',
        'Once `_contained` says yes, opening `path` or `os.path.realpath(path)` reads the '
        'same file.':
            'a freedom: with no link changed between the check and the open, either path '
            'reads the same file',
        'Neither stops a link swapped between the check and the open: closing that gap '
        '(`os.open` with `O_NOFOLLOW`, component by component) is beyond this lab, whose '
        'check judges the links in place when the model asks.':
            'the limit of the check: a race between the check and the open, which no test '
            'can time and the lab does not ask to close',
    },
    "lab07_cache_audit": {
        '**In:** a *builder*: a function of yours that takes a question and returns the keyword '
        'arguments of one `client.messages.create` call (model, system, tools, messages).':
            'the inputs',
        'Source: [Claude pricing](https://platform.claude.com/docs/en/about-claude/pricing) and '
        "each model's page, read 2026-12-02 (claude-sonnet-5 was priced here at \\$3/\\$15 "
        'before; its page lists \\$2/\\$10).':
            'the source of the prices',
        'The fake API in this lab caches prompts the way the real one does '
        '(`course.promptcache`): it renders tools, then system, then messages; it caches the '
        'prefix up to each `cache_control` breakpoint, keyed by the model and the exact bytes; a '
        'breakpoint also reads an entry written at most 20 blocks before it; it ignores a prefix '
        "shorter than the model's minimum (512 tokens for claude-opus-5, the model here; 1,024 "
        'for claude-sonnet-5; 4,096 for claude-haiku-4-5); and entries expire after 5 minutes on '
        'a fake clock.':
            'the setting: how the fake API caches prompts',
        'Source: [Prompt '
        'caching](https://platform.claude.com/docs/en/build-with-claude/prompt-caching), "Cache '
        'limitations".':
            'the source of the cache rules above',
    },
    "lab11_context_reduction": {
    },
    "lecture04_context_cache": {
        'An agent is a `for` loop around a model call.':
            'the setting',
        'Four places in it are decisions, and every framework you might import is a set of '
        'answers to them:':
            'introduces the list of decisions that follows',
        "The four decisions depend on the workload, so any framework's defaults are wrong for "
        'somebody, and quietly: one that drops the middle of your transcript when it stops '
        'fitting has made decision 1 for you, and the result is a confident wrong answer, not '
        'an error.':
            'why the loop is written by hand',
        'Write it yourself, in the cell below, and label each decision where it is made.':
            "what to do; the labels are comments, which no check reads (run_loop's rules are "
            'in its docstring)',
        'Implement both halves.':
            'points to the two answer cells below',
        '**In:** a transcript is a list of entries, dicts with an `"id"`, a `"kind"`, the '
        '`"turn"` that added them and a `"tokens"` size.':
            'the inputs',
        "`budget.context_limit` is the model's limit.":
            'the inputs',
        '`summarize(history, target)` is the (fake) summarizing model call.':
            'the inputs',
        "Entries are dicts; `cc.preamble_entries(P)` gives the two pinned ones, "
        "`cc.step_entry(k, size)` a turn's append, `cc.tool_output(k, size)` an extra tool "
        "result (a spike).":
            "the inputs: the world's helpers that build entries (given, not graded)",
        '`cc.summarize(history, target)` returns one summary entry whose `"usage"` records '
        'the model call it stands for.':
            "the inputs: what the given summarize returns (the ledger's use of its "
            '"usage" is stated in its docstring)',
        'Everything runs offline: the model is a scripted fake behind the real Anthropic SDK.':
            'the setting',
        'run_loop(task, *, client, tools, dispatch, max_steps=8) -> str: §4.1, live-coded':
            'the signature only; points to §4.1, where it is written (its rules are in its '
            'docstring)',
        'tokens(entries) -> int: §4.3':
            'the signature only; points to §4.3, where its rule is stated',
        'retry_allowed(state, *, idempotent) -> bool: §4.5':
            'the signature only; points to §4.5, where its rules are stated',
        'with_request_key(tool, *, table) -> call(entry): §4.5':
            'the signature only; points to §4.5, where its rules are stated',
    },
    "tier2_langgraph": {
        '(each section repeats the details)':
            "points to the sections below, where each function's rules are stated",
        'Every graded cell has a visible check for the most likely mistake and **hidden tests** '
        'that check more cases.':
            'how the notebook is graded',
        'Everything runs offline in a few seconds.':
            'the setting',
        'A run starts with `spent` 0.0 and the `agent` node returns `{"messages": [reply], '
        '"spent": <this call\'s cost>}`.':
            "the inputs: the state the tests start a run with, and what graphs.budget_graph's "
            'agent node returns',
        '`loop_guard(state, *, repeat=3) -> dict` runs after every tools step, in a state with '
        '`messages` and `halted` (`graphs.guarded_graph` wires `tools -> guard -> agent`, or '
        '`END` once `halted` is true).':
            'the setting: where graphs.guarded_graph runs the guard, and the state it is given',
        '`NUDGE` and `HALT` are in the first code cell.':
            'points to the first code cell, which defines both strings',
        'The state has `messages`, `tenant: str` and `cache_hit: bool`; `graphs.cached_graph` '
        'wires `START -> cache -> (cache_route) -> agent | END`, `agent -> store -> END`.':
            'the setting: the state and the wiring graphs.cached_graph gives',
    },
    "capstone_integrated_loop": {
        '| key | value |':
            "the result table's header",
        '| `reason` | a sentence for a person |':
            'a freedom: any wording',
        '| field | what the loop uses |':
            "the bundle table's header",
        '| `cache` | `.get(q, namespace=t)`, `.put(q, a, namespace=t)` (your Lab 5 '
        '`SemanticCache`) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `cacheable` | `cacheable(q, a) -> bool` (Lab 5) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `retry` | `retry(fn) -> reply` (your Lab 2 `call_with_retry`, its `sleep` bound) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `ledger` | `.record(label, model, usage, ms)` (Lab 10 `Ledger`) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `Budget`, `BudgetExceeded` | `Budget(limit_usd)` with `.charge`, `.guard()`, `.spent` '
        '(Lab 3) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `LoopGuard` | `LoopGuard(max_steps=n)` with `.check`, `.halted`, `.trips` (Lab 4) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `offloader` | `.wrap(tool_name, text)` (Lab 8 `Offloader`) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `authorize` | `authorize(tool, args, tenant) -> bool` (yours, with `approved` bound) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `goal` | `goal(text, trace) -> (passed, feedback)` (yours) |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        '| `agent` | `.model`, `.request(messages)`, `.dispatch(name, args, tenant=...)`, '
        '`.snapshot()`, `.progress()` |':
            'the inputs: what the guards bundle gives the loop (the rules for using it are in '
            "run's steps)",
        "**`goal_predicate`** is the harness's own definition of done.":
            "the heading of goal_predicate's rules",
        'Both strings are given below.':
            'says where the two strings are',
        '**`run`** is the loop.':
            "the heading of run's rules",
        '`guards` is the bundle below; `client` is an `anthropic.Anthropic`.':
            'the inputs',
        'In this order:':
            'introduces the numbered steps below',
        '1.':
            'the number of the first step, left alone by the split',
        '**The result** is a dict with these keys:':
            'introduces the result table',
        '**The `guards` bundle** (`world.Guards`):':
            'introduces the bundle table',
    },
    "lab05_semantic_cache": {
        'cacheable(q, a) -> bool: may this answer be stored at all?':
            'the signature only; its rules are stated below',
        'pick_threshold(rows) -> float: the threshold a sweep justifies':
            'the signature only; its rules are stated below',
        'Over 100,000 rows the matrix product is orders of magnitude faster than the loop.':
            'why the rule above exists',
        'Growing a numpy array one row at a time copies it every time, so keep spare room '
        '(double it when full); `float32` halves the bytes each lookup reads.':
            'advice on memory and speed: how the matrix grows and its dtype are the '
            "student's to choose, and no check reads them",
        '**In:** a question, a tenant id (the `namespace`), and two injected dependencies: '
        '`embed(text)` returns a vector and `clock()` returns the time in seconds.':
            'the inputs',
        'Everything runs offline.':
            'the setting',
        '`embed` looks vectors up in a file recorded once from a real embedding model (named '
        'below), and time is a fake clock you advance by hand.':
            'the setting',
        'The common textbook version of this cache differs in two ways, both corrected here.':
            'introduces the two corrections that follow',
        'That is legible, and its cost grows with every row you store.':
            'why the vectorised lookup exists',
        'Count the Python lines one lookup runs in the naive cache above:':
            'introduces the line-count demo',
        'Everything the cache stores is an answer you promise to repeat, word for word, to '
        'everyone in the tenant for the next TTL seconds.':
            'why cacheable exists',
        'So some answers must never go in.':
            'why cacheable exists',
        'Three kinds must never go in; implement these rules:':
            'introduces the three rules that follow',
        "A refused store costs one miss later; a wrong store serves one customer's answer to "
        'the next.':
            'why the user-specific rule is crude on purpose',
    },
    "lab06_eval_harness": {
        'report(results) -> dict: the aggregate over cases':
            'the signature only; what it returns is the table below',
        'gate(rep, baseline) -> bool: may this change merge?':
            'the signature only; its rule is stated below',
        '| key | value |':
            "the header of both tables",
        'It returns':
            "introduces the table of run_case's keys",
        '`statistics.mean` and `sum(...) / len(...)` are both fine for `usd`: costs are '
        'compared to within 1e-9.':
            'a freedom: either way of taking the mean is accepted',
    },
}

_PENDING = "its API block is not mapped yet"
NOT_MAPPED: dict[str, str] = {
}
