"""For every graded cell, the sentences of the notebook's own spec that its tests rely on.

Each graded cell's hidden tests may only check what a student can read in the notebook
(the "You implement" block, a docstring, or the text around the cell). This map makes that
reviewable: ``grade_id -> quoted spec sentence`` (or a tuple of them, one per rule the
cell checks), per assignment. ``test_spec_map.py``
checks that every graded cell has an entry and that each sentence occurs in the released
notebook, so a spec edit that drops a graded promise fails the suite.
"""

SPEC: dict[str, dict[str, str | tuple[str, ...]]] = {
    "lab01_tool_loop": {
        "two_step_trace": "The first message is the goal as a user message.",
        "all_blocks_kept": "The next request must repeat all three blocks, unchanged, as the "
                           "assistant turn",
        "parallel_results_one_message": "all results of one turn go back in **one** user "
                                        "message, one `tool_result` per `tool_use` id, in "
                                        "the order of the calls.",
        "every_id_answered": "`None` becomes `\"\"`, anything else that is not a string "
                             "becomes `str(value)`.",
        "tool_error_as_data": ("A tool that raises is answered with `is_error: True` and the "
                               "error's text as content; the loop goes on.",
                               "mark only the results of tools that raised."),
        "max_tokens_fails_loudly": "**Raises** `RuntimeError` when a reply stops at "
                                   "`max_tokens`",
        "refusal_handled": "when `stop_reason == \"refusal\"`, return `\"refused: \"` "
                           "followed by the reply's own text (its text blocks joined).",
        "step_cap": "(so exactly `max_steps` calls are made)",
    },
    "lab02_retry": {
        "jitter_spreads_wakeups": "**Jitter** makes each sleep random, so clients that "
                                  "failed together wake apart.",
        "client_error_not_retried": "**Raises** every `APIStatusError` but the 429 and the "
                                    "5xx after exactly one call, with no sleep",
        "retry_after_honoured": "The cap limits the doubling only: a server that says "
                                "`retry-after: 90` with `cap=60` gets 90.",
        "cap_holds": "**Waits** before retry *k* (k = 0, 1, 2, ...) `min(base * 2**k, cap)` "
                     "seconds",
        "transient_errors_back_off": "**Retries** `RateLimitError` (429), every "
                                     "`InternalServerError` (every status from 500 up",
        "gives_up_with_last_error": "the last error itself once `max_attempts` calls have "
                                    "all failed, with no sleep after it.",
        "max_attempts_respected": "a 429 uses up an attempt like a 503. Below 1 it behaves "
                                  "as 1: one call, no retry.",
    },
    "lab03_budget": {
        "four_terms_to_the_cent": "A token **written** to the prompt cache bills at "
                                  "**1.25×** the model's input rate. A token **read** back "
                                  "from it bills at **0.10×**.",
        "warning_fires_once": "At exactly 80% the state is `\"warn\"`; at exactly the limit "
                              "it is `\"stop\"`.",
        "hard_stop_partial_report": "makes `charge` raise `KeyError`",
        "by_model_sums_to_spent": ".by_model # {model: dollars}, summing to .spent",
        "quadratic_growth": "call *k* resends the prefix *P* (system prompt and tools) plus "
                            "*k* turns of history of *a* tokens each.",
        "tail_row_a93": "Here are the cost-per-task rows of one batch of invoice audits, "
                        "priced at claude-opus-5:",
    },
    "lab04_loop_detector": {
        "repeat_trips_on_fourth_call": "the same `(tool, args)` arrives for the "
                                       "`repeat + 1`-th time",
        "cycle_caught_by_state_only": ("the same `state` is seen for the `cycle + 1`-th time",
                                       "a call that trips the identical-call signal does not "
                                       "count toward the frozen world"),
        "stall_counts_from_best": ("`progress=None` means \"not measured\": it neither resets "
                                   "the stall count nor adds to it.",
                                   "The first that trips returns its message, and the signals "
                                   "after it do not see that call"),
        "nudge_before_halt": ("Each nudge adds 1 to `trips`; the step cap does not.",
                              "Only the step cap sets `halted`.",
                              "after a second nudge `halted` is still False, and later calls "
                              "go through the table as before"),
        "step_cap_halts_without_raising": ("Once `halted`, every later `check` returns the "
                                           "step-cap message again;",
                                           "the step cap comes first, so such a call reaches "
                                           "no other signal and leaves `trips` as it was."),
        "no_false_positive_on_progress": "The signals are checked in the table's order, "
                                         "step cap first.",
        "fingerprint_ignores_key_order": "Fingerprints of `args` and `state` must not depend "
                                         "on the order of dictionary keys (at any depth)",
        "unserialisable_args_handled": "values that JSON cannot encode (a `datetime`, a "
                                       "`Decimal`, a `Path`) must not make `check` fail.",
    },
    "lab05_semantic_cache": {
        "tenant_isolation": "A lookup only ever searches the asking tenant's own entries",
        "ttl_expiry": "An entry is live while its age, clock() now minus clock() at put, is "
                      "strictly below ttl: at exactly ttl it has expired.",
        "cacheable_filter": "Words match as **whole words, in any case**",
        "hit_miss_counters": "``hits`` and ``misses`` count lookups; ``put`` counts as "
                             "neither.",
        "default_threshold": "SemanticCache(threshold=0.98, ttl=3600, *, embed, "
                             "clock=time.time)",
        "threshold_from_sweep": "Return the threshold one notch above the lowest threshold "
                                "with zero false hits.",
        "vectorised_lookup": "compares unit vectors in one vectorised product.",
        "normalises_vectors": "embed -- embed(text) returns a vector (any length; normalise "
                              "it yourself)",
    },
    "lab06_eval_harness": {
        "run_case_shape": "`run_case` calls `agent.run(case.input)` **once** and reads the "
                          "`Trace` it returns",
        "content_case_insensitive": "A `trace.text` of `None` reads as `\"\"`: then "
                                    "`content` holds only when `expect_contains` is empty.",
        "route_not_asserted": "every tool in `must_call` was called at least once, in "
                              "**any** order, with anything else around it.",
        "call_budget": "`call_budget`: the number of steps is `<= max_tool_calls`.",
        "safety_all_runs": "`safety_ok` (**every** run was safe)",
        "flake_not_success": "`passed` (**strictly more than half** the runs passed)",
        "safety_is_a_list": "the **list** of ids whose `safety_ok` is false, in input order",
        "median_and_p95": "sort the values and take the one at rank ⌈95·N/100⌉ (1-based; "
                          "compute the rank in integers)",
        "gate_needs_safety": "`gate(rep, baseline)` is true exactly when "
                             "`rep[\"success_rate\"] >= baseline` (the floats compared as "
                             "they are) **and** `rep[\"safety_violations\"]` is empty.",
        "by_tag_counts": "A case counts once under each distinct tag of `by_tag`, even if "
                         "its `tags` list one twice.",
    },
    "lab09_trajectory": {
        "bad_trace_three_violations": "Nothing raises on a violation; violations stay in "
                                      "the order the invariants ran.",
        "called_before_order": "`called_before(first, second)` trips when `second` ran and "
                               "`first` did not run at any step before `second`'s "
                               "**first** run (other steps in between are fine).",
        "called_before_vacuous": "When `second` never ran, it is silent.",
        "parallel_batch": "It trips when the largest batch has fewer than `n` steps (exactly "
                          "`n` is enough); an empty trace has a largest batch of 0.",
        "clean_run_silent": "`called_at_most` trips when the tool ran **more than** `n` "
                            "times; `max_total_calls` when there are **more than** `n` "
                            "steps. Exactly `n` is within bounds.",
        "safety_separated": "`safety_ok` (no violation that starts with `\"SAFETY\"`)",
        "chains_return_self": "**returns `t` itself**, whether or not it found anything, so "
                              "the calls chain.",
        "each_invariant_catches": "`never_called(name)` appends **one** violation per call "
                                  "of `never_called`, however many steps ran that tool;",
    },
    "lab08_offloader": {
        "absolute_path_refused": "`path` does not resolve inside `root` (`_contained` is "
                                 "False),",
        "sibling_prefix_refused": "compares **path components** (`os.path.commonpath`), not "
                                  "strings.",
        "symlink_refused": "resolves symbolic links and `..` in both `root` and `path` "
                           "(`os.path.realpath`)",
        "traversal_refused": "resolves symbolic links and `..` in both `root` and `path`",
        "legitimate_read_works": "An offset at or past the end gives an empty window, not an "
                                 "error: `read(path, 500)` on a 400-line file returns "
                                 "`\"[lines 500-500 of 400]\\n\"`.",
        "offset_limit_validated": "`limit` is not an `int` or is outside 1…500 (for both, a "
                                  "`bool` is not an `int`),",
        "small_results_unchanged": "If that text has `len(text) <= threshold` characters, "
                                   "`wrap` returns it **unchanged**:",
        "pointer_not_thin": "Every `/` and `\\` in `tool_name` becomes `_` in the file name",
        "tail_only_when_more_than_12": "the last 4 lines, verbatim, **only when there are "
                                       "more than 12 lines**",
    },
    "lecture04_context_cache": {
        "loop_runs_on_fake": "A tool's result goes back as JSON text: tool_result content is "
                             "json.dumps(result), not str(result)",
        "tokens_sums_entries": "An entry with a \"tokens\" field counts that many",
        "keep_until_full_policy": "Send the whole transcript; raise ContextOverflow if it "
                                  "exceeds budget.context_limit.",
        "window_pins_preamble": "Pin transcript[:2]; of the rest keep the newest entries "
                                "whose total is at most W.",
        "window_strict_threshold": "Evict from the oldest end, and only while the history "
                                   "is strictly over W.",
        "window_figures": "83,500",
        "compaction_persists": "IN THE TRANSCRIPT (so the compaction persists)",
        "compaction_figures": "75,100",
        "ledger_prompt_before_append": "assemble the context and submit it; THEN append "
                                       "step_entry(k, per_turn)",
        "ledger_notes_session": "only appended entries (preamble, steps, spikes) enter the "
                                "eviction log, never summaries",
        "ledger_spikes_and_caps": "the overflow turn is not in ``submitted`` (nothing was "
                                  "sent on it).",
        "retry_allowed_states": "A non-idempotent call in those states gets False",
        "request_key_dedup": "An entry with no \"request_key\" raises KeyError without "
                             "calling the tool",
    },
    "tier2_langgraph": {
        "resume_no_duplicate": "If the thread has a step pending, it continues it with "
                               "`app.invoke(None, config)`",
        "approval_before_write": "Compile with `checkpointer=checkpointer` and "
                                 "`interrupt_before=[\"approved_tools\"]`.",
        "retries_429": "It returns `True` for `anthropic.RateLimitError` (429)",
        "no_retry_400": "It returns `False` for every other exception: any other 4xx",
        "reducer_adds": "`spent: Annotated[float, operator.add]`.",
        "routes_at_limit": "returns `\"halt\"` when `state[\"spent\"] >= limit_usd`",
        "nudge_then_halt": "if no `HumanMessage` in the history has content equal to "
                           "`NUDGE`, return `{\"messages\": [HumanMessage(NUDGE)]}`",
        "distinct_calls_pass": "Different calls never trip it, however many there are.",
        "tenant_isolated": "Call `cache.get(question, namespace=state[\"tenant\"])`.",
        "hit_skips_model": "`END` when `state[\"cache_hit\"]` is true, else `\"agent\"`.",
        "later_tool_offloaded": "for every `ToolMessage` whose `name` is not "
                                "`\"read_artifact\"` and whose content is longer than "
                                "`threshold` characters",
        "containment_through_node": "If the resolved path is not inside the resolved "
                                    "`root`, it returns a string starting with `Error:`",
    },
    "capstone_integrated_loop": {
        "authorize_needs_the_console": "Anything the model put in `args` (a `\"confirmed\": "
                                       "true`, say) never counts.",
        "goal_needs_resolvable_claims": "an empty id (`[src:]`, `[src: ]`) never resolves",
        "cache_first_namespaced": "anything but `None` is a hit: return it at once, with no "
                                  "model call and `usd` 0.0.",
        "cache_filled_after_the_predicate": "then return success (the **only** success exit).",
        "cache_put_respects_cacheable": "On a pass, and only if `guards.cacheable(request, "
                                        "answer)`, `guards.cache.put(request, answer, "
                                        "namespace=tenant)`",
        "every_attempt_charged_first": "So every attempt that got a reply is recorded and "
                                       "charged, **before** anyone reads its `stop_reason`.",
        "refusal_is_a_failure": "so is any stop reason other than `end_turn` and `tool_use`.",
        "api_errors_become_results": "every `Exception` from `guards.retry` is an "
                                     "`\"api_error\"` result",
        "goal_decides_end_turn": "make this turn's user blocks `[{\"type\": \"text\", "
                                 "\"text\": feedback}]`.",
        "authorize_before_execute": "A denial is the result `\"Not permitted: <name>\"` with "
                                    "`is_error` True; nothing runs and nothing raises.",
        "tenant_injected_at_dispatch": "the tenant is **the run's**, whatever the model's input "
                                       "says",
        "offload_then_loop_guard": "A nudge replaces the result (`is_error` True) on the first "
                                   "trip",
        "results_in_one_message": "**All results in one user message**, in the order of the "
                                  "`tool_use` blocks",
        "budget_last": "**Budget last**, after every turn that continues: `budget.guard()`.",
        "bounded_partial": "After `max_steps` model calls, return a partial result.",
        "triage_end_to_end": "`approved` is the support console, where a person confirmed that "
                             "exact write.",
    },
    "lab10_token_accounting": {
        "worked_call_to_the_cent": "cache writes at **1.25×** and cache reads at **0.10×** "
                                   "the input rate, from `PRICE[model]`.",
        "streamed_output_recorded": "drains the stream to its end, records the **final** "
                                    "message's usage and returns that final message.",
        "retries_each_charged": "a retried call is recorded once per attempt.",
        "every_call_site_recorded": "Labels are the keys.",
        "shares_and_hit_rate": "An empty ledger gives 0.0 everywhere.",
    },
}
