"""Capstone mutants: the integrated loop's ordering bugs and the common version's defects
(seed 001, "Putting it together"), each a text edit of the solution that must lose exactly its
graded cells."""

from course.grading.proofs.mutation import Mutant

_RUN_AUTH = (
    "                if not guards.authorize(name, args, tenant):\n"
    "                    content, is_error = f\"Not permitted: {name}\", True\n"
    "                else:\n"
    "                    try:\n"
    "                        raw = agent.dispatch(name, args, tenant=tenant)\n"
    "                    except Exception as exc:\n"
    "                        content, is_error = f\"Error: {exc}\", True\n"
    "                    else:\n"
    "                        content, is_error = guards.offloader.wrap(name, raw), False\n")
_CHARGE = (
    "        guards.ledger.record(\"agent\", agent.model, reply.usage, ms)\n"
    "        budget.charge(agent.model, reply.usage)   # billed before anyone reads stop_reason\n"
    "        return reply\n")
_BUDGET = (
    "        try:\n"
    "            note = budget.guard()\n"
    "        except guards.BudgetExceeded as exc:\n"
    "            return finish(\"budget\", f\"budget exhausted: {exc}\", partial=True)\n")

_TOOL_TURN = (
    "        elif reply.stop_reason == \"tool_use\":\n"
    "            messages.append({\"role\": \"assistant\", \"content\": reply.content})\n")
_ANSWER = "            answer = \"\".join(b.text for b in reply.content if b.type == \"text\")\n"

MUTANTS = [
    Mutant(
        name="authorize_after_execute",
        bug="seed 001, putting it together: the tool runs first and the permission check "
            "afterwards, so a denied refund has already gone out",
        cell="run",
        old=_RUN_AUTH,
        new="                try:\n"
            "                    raw = agent.dispatch(name, args, tenant=tenant)\n"
            "                except Exception as exc:\n"
            "                    raw = exc\n"
            "                if not guards.authorize(name, args, tenant):\n"
            "                    content, is_error = f\"Not permitted: {name}\", True\n"
            "                else:\n"
            "                    if isinstance(raw, Exception):\n"
            "                        content, is_error = f\"Error: {raw}\", True\n"
            "                    else:\n"
            "                        content, is_error = guards.offloader.wrap(name, raw), False\n",
        loses={"authorize_before_execute", "triage_end_to_end"},
    ),
    Mutant(
        name="tenant_from_model_args",
        bug="seed 001, putting it together: the tenant is read from the model's tool input, "
            "so an injected document can move the call to another tenant",
        cell="run",
        old="raw = agent.dispatch(name, args, tenant=tenant)",
        new="raw = agent.dispatch(name, args, tenant=args.get(\"tenant\", tenant))",
        loses={"tenant_injected_at_dispatch"},
    ),
    Mutant(
        name="budget_checked_before_charging",
        bug="seed 001, putting it together: the budget is checked before the turn's charge, so "
            "one more call goes out over the limit and a non-tool reply is never charged",
        cell="run",
        old=_CHARGE,
        new="        guards.ledger.record(\"agent\", agent.model, reply.usage, ms)\n"
            "        return reply\n",
        patches=(("run", _BUDGET, _BUDGET + "        budget.charge(agent.model, reply.usage)\n"),),
        loses={"every_attempt_charged_first", "budget_last"},
    ),
    Mutant(
        name="cache_filled_before_predicate",
        bug="seed 001, putting it together: the answer is stored on end_turn, before the goal "
            "predicate, so a rejected draft is served to the next caller",
        cell="run",
        old="            passed, feedback = guards.goal(answer, trace)\n"
            "            if passed:\n"
            "                if guards.cacheable(request, answer):\n"
            "                    guards.cache.put(request, answer, namespace=tenant)\n",
        new="            if guards.cacheable(request, answer):\n"
            "                guards.cache.put(request, answer, namespace=tenant)\n"
            "            passed, feedback = guards.goal(answer, trace)\n"
            "            if passed:\n",
        loses={"cache_filled_after_the_predicate"},
    ),
    Mutant(
        name="results_split_across_messages",
        bug="seed 001 ex.1 failure three, in the integrated loop: one user message per tool "
            "result, which teaches the model to call one tool at a time",
        cell="run",
        old="                blocks.append({\"type\": \"tool_result\", \"tool_use_id\": block.id,\n"
            "                               \"content\": content, \"is_error\": is_error})\n",
        new="                messages.append({\"role\": \"user\", \"content\": [\n"
            "                    {\"type\": \"tool_result\", \"tool_use_id\": block.id,\n"
            "                     \"content\": content, \"is_error\": is_error}]})\n",
        patches=(("run", "        messages.append({\"role\": \"user\", \"content\": blocks})\n",
                  "        if blocks:\n"
                  "            messages.append({\"role\": \"user\", \"content\": blocks})\n"),),
        loses={"results_in_one_message"},
    ),
    Mutant(
        name="model_confirms_own_write",
        bug="seed 001, the prelude's authorize: a write is allowed when the model's own "
            "arguments say confirmed=true, which an injected note can make it say",
        cell="authorize",
        old="return bool(tenant) and approved(tenant, tool, args) is True",
        new="return bool(tenant) and (args.get(\"confirmed\") is True\n"
            "                               or approved(tenant, tool, args) is True)",
        loses={"authorize_needs_the_console", "triage_end_to_end"},
    ),
    Mutant(
        name="refusal_not_handled",
        bug="seed 001, putting it together: no refusal branch; a refusal is read as an answer "
            "(and with content [] the first-text-block lookup crashes)",
        cell="run",
        old="        if reply.stop_reason == \"refusal\":\n"
            "            return finish(\"refusal\", \"the model refused the request\")\n"
            "        if reply.stop_reason == \"end_turn\":\n",
        new="        if reply.stop_reason in (\"end_turn\", \"refusal\"):\n",
        loses={"refusal_is_a_failure"},
    ),
    Mutant(
        name="api_error_escapes",
        bug="seed 001, putting it together: no try around the retried call, so a 400 (never "
            "retried) leaves run as an exception instead of a failure report",
        cell="run",
        old="        try:\n"
            "            reply = guards.retry(attempt)\n"
            "        except Exception as exc:                  # a 400, or retries used up: "
            "report it\n"
            "            return finish(\"api_error\", f\"model call failed: "
            "{type(exc).__name__}: {exc}\")\n",
        new="        reply = guards.retry(attempt)\n",
        loses={"api_errors_become_results"},
    ),
    Mutant(
        name="put_ignores_cacheable",
        bug="seed 001, putting it together: CACHE.put stores every passing answer, one "
            "customer's order included",
        cell="run",
        old="                if guards.cacheable(request, answer):\n"
            "                    guards.cache.put(request, answer, namespace=tenant)\n",
        new="                guards.cache.put(request, answer, namespace=tenant)\n",
        loses={"cache_put_respects_cacheable", "triage_end_to_end"},
    ),
    Mutant(
        name="retries_not_charged",
        bug="seed 001 ex.2 test 5 / ex.3 test 4: the ledger and budget sit outside the retry, so "
            "only the returned attempt is charged",
        cell="run",
        old=_CHARGE,
        new="        return reply\n",
        patches=(("run", "            reply = guards.retry(attempt)\n",
                  "            reply = guards.retry(attempt)\n"
                  "            guards.ledger.record(\"agent\", agent.model, reply.usage, 0.0)\n"
                  "            budget.charge(agent.model, reply.usage)\n"),),
        loses={"every_attempt_charged_first"},
    ),
    Mutant(
        name="no_claims_pass",
        bug="seed 001, the prelude's goal_predicate: all() over an empty list of claims is True, "
            "so 'Done!' passes",
        cell="goal_predicate",
        old="    if not claims:\n        return False, NO_CLAIMS\n",
        new="",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="drops_thinking",
        bug="the tool_use turn resent without its thinking block: the API answers 400 and the "
            "run ends as an api_error",
        cell="run",
        old=_TOOL_TURN,
        new=_TOOL_TURN.replace('"content": reply.content}',
                               '"content": [b for b in reply.content if b.type != "thinking"]}'),
        loses={"authorize_before_execute", "bounded_partial", "budget_last",
               "every_attempt_charged_first", "offload_then_loop_guard", "triage_end_to_end"},
    ),
    Mutant(
        name="appends_assistant_twice",
        bug="the tool_use turn appended twice: its tool_use ids repeat, a 400",
        cell="run",
        old=_TOOL_TURN,
        new=_TOOL_TURN + "            messages.append({\"role\": \"assistant\", "
                         "\"content\": reply.content})\n",
        loses={"authorize_before_execute", "bounded_partial", "budget_last",
               "every_attempt_charged_first", "offload_then_loop_guard",
               "results_in_one_message", "triage_end_to_end"},
    ),
    Mutant(
        name="reads_content_0",
        bug="the answer read as reply.content[0].text: the first block is a thinking block",
        cell="run",
        old=_ANSWER,
        new="            answer = reply.content[0].text\n",
        loses={"authorize_before_execute", "bounded_partial", "budget_last",
               "cache_filled_after_the_predicate", "cache_first_namespaced",
               "cache_put_respects_cacheable", "every_attempt_charged_first",
               "goal_decides_end_turn", "offload_then_loop_guard", "results_in_one_message",
               "tenant_injected_at_dispatch", "triage_end_to_end"},
    ),
    Mutant(
        name="empty_citation_resolves",
        bug="an empty id ([src:]) taken as resolved: the empty string occurs in every result, "
            "so a claim with a blank citation passes",
        cell="goal_predicate",
        old="not all(c.strip() and any(",
        new="not all((True) and any(",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="tripping_step_not_traced",
        bug="the partial result returned before the step that tripped the loop guard is "
            "appended, so the trace hides the call that stopped the run",
        cell="run",
        old="                trace.steps.append(Step(name, args, content, is_error, batch=k))\n"
            "                if nudge and (loop_guard.halted or loop_guard.trips > 1):\n",
        new="                if nudge and (loop_guard.halted or loop_guard.trips > 1):\n"
            "                    trace.text, trace.usd = '', budget.spent\n"
            "                    return {'ok': False, 'partial': True, 'stop': 'loop_guard',\n"
            "                            'reason': nudge, 'text': '', 'source': 'model',\n"
            "                            'usd': budget.spent, 'trace': trace}\n"
            "                trace.steps.append(Step(name, args, content, is_error, batch=k))\n"
            "                if nudge and (loop_guard.halted or loop_guard.trips > 1):\n",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="unknown_stop_reason_answers",
        bug="every stop_reason other than tool_use, max_tokens and refusal read as an answer, "
            "so a reply stopped at a stop sequence reaches the goal predicate",
        cell="run",
        old='        if reply.stop_reason == "end_turn":\n',
        new='        if reply.stop_reason not in ("tool_use",):\n',
        loses={"refusal_is_a_failure"},
    ),
    Mutant(
        name="note_before_results",
        bug="the budget note put before the tool results in the turn's user message: the API "
            "answers 400 (tool_result blocks must come first)",
        cell="run",
        old='            blocks.append({"type": "text", "text": note})\n',
        new='            blocks.insert(0, {"type": "text", "text": note})\n',
        loses={"results_in_one_message", "budget_last"},
    ),
    # ---- the result dict ----
    Mutant(
        name="max_tokens_is_partial",
        bug="a reply cut at max_tokens reported as a partial result, as if the truncated text "
            "were a controlled stop",
        cell="run",
        old='            return finish("max_tokens", "output truncated at max_tokens")\n',
        new='            return finish("max_tokens", "output truncated at max_tokens", '
            'partial=True)\n',
        loses={"every_attempt_charged_first"},
    ),
    Mutant(
        name="budget_stop_not_partial",
        bug="the budget stop reported as a plain failure: partial stays False",
        cell="run",
        old='            return finish("budget", f"budget exhausted: {exc}", partial=True)\n',
        new='            return finish("budget", f"budget exhausted: {exc}")\n',
        loses={"budget_last"},
    ),
    Mutant(
        name="step_cap_named_max_steps",
        bug="the step cap reported as stop 'max_steps' instead of 'step_cap'",
        cell="run",
        old='    return finish("step_cap", ',
        new='    return finish("max_steps", ',
        loses={"bounded_partial"},
    ),
    Mutant(
        name="truncated_text_returned",
        bug="a reply cut at max_tokens hands its half sentence back as the result's text",
        cell="run",
        old='            return finish("max_tokens", "output truncated at max_tokens")\n',
        new='            return finish("max_tokens", "output truncated at max_tokens",\n'
            '                          "".join(b.text for b in reply.content '
            'if b.type == "text"))\n',
        loses={"every_attempt_charged_first"},
    ),
    Mutant(
        name="source_named_cache",
        bug="a cache hit reports source 'cache' instead of 'semantic_cache'",
        cell="run",
        old='"source": "semantic_cache"',
        new='"source": "cache"',
        loses={"cache_first_namespaced"},
    ),
    Mutant(
        name="usd_only_when_answered",
        bug="usd reported only for an answer: a failure or a partial result says 0.0 although "
            "the calls were billed",
        cell="run",
        old="        trace.text, trace.usd = answer, budget.spent\n",
        new="        usd = budget.spent if stop == \"answered\" else 0.0\n"
            "        trace.text, trace.usd = answer, usd\n",
        patches=(("run", '"usd": budget.spent, "trace": trace}', '"usd": usd, "trace": trace}'),),
        loses={"bounded_partial"},
    ),
    Mutant(
        name="trace_fields_not_set",
        bug="the trace is returned without its text and usd: trace.text stays '' and trace.usd "
            "0.0",
        cell="run",
        old="        trace.text, trace.usd = answer, budget.spent\n",
        new="",
        loses={"goal_decides_end_turn", "bounded_partial"},
    ),
    Mutant(
        name="ok_from_text",
        bug="ok read from the text (any non-empty answer is ok), so a passed predicate on an "
            "empty answer is reported as a failure",
        cell="run",
        old='"ok": stop == "answered"',
        new='"ok": answer != ""',
        loses={"goal_decides_end_turn"},
    ),
    # ---- authorize ----
    Mutant(
        name="deny_list_authorize",
        bug="authorize as a deny-list: a tool on neither list is allowed",
        cell="authorize",
        old="approved(tenant, tool, args) is True\n    return False",
        new="approved(tenant, tool, args) is True\n    return True",
        loses={"authorize_needs_the_console"},
    ),
    Mutant(
        name="read_only_asks_the_console",
        bug="read-only tools also wait for a console confirmation, so a search is denied",
        cell="authorize",
        old="    if tool in world.READ_ONLY:\n        return True\n",
        new="    if tool in world.READ_ONLY:\n"
            "        return approved(tenant, tool, args) is True\n",
        loses={"authorize_needs_the_console", "triage_end_to_end"},
    ),
    Mutant(
        name="write_without_tenant_check",
        bug="a write allowed on the console's word alone, with an empty tenant",
        cell="authorize",
        old="return bool(tenant) and approved(tenant, tool, args) is True",
        new="return approved(tenant, tool, args) is True",
        loses={"authorize_needs_the_console"},
    ),
    Mutant(
        name="approved_truthy",
        bug="any truthy answer from approved(...) taken as a confirmation",
        cell="authorize",
        old="return bool(tenant) and approved(tenant, tool, args) is True",
        new="return bool(tenant) and bool(approved(tenant, tool, args))",
        loses={"authorize_needs_the_console"},
    ),
    # ---- goal_predicate ----
    Mutant(
        name="claim_lines_not_stripped",
        bug="a claim is a line that starts with Claim before stripping, so an indented claim "
            "with no citation is not checked",
        cell="goal_predicate",
        old='if line.strip().startswith("Claim")]',
        new='if line.startswith("Claim")]',
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="label_is_whole_claim",
        bug="the feedback names each failing claim by its whole line, not by its label",
        cell="goal_predicate",
        old='failing.append(claim.split(":", 1)[0].strip())',
        new="failing.append(claim)",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="error_results_resolve",
        bug="a citation resolves against every step's result, is_error ones included",
        cell="goal_predicate",
        old="seen = [step.result for step in trace.steps if not step.is_error]",
        new="seen = [step.result for step in trace.steps]",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="citation_equals_result",
        bug="a citation resolves only when it equals a whole result, not when it occurs in one",
        cell="goal_predicate",
        old="any(c.strip() in r for r in seen)",
        new="any(c.strip() == r for r in seen)",
        loses={"goal_needs_resolvable_claims", "triage_end_to_end"},
    ),
    Mutant(
        name="id_not_stripped",
        bug="the id is looked up with its spaces, so [src: account/acme ] does not resolve",
        cell="goal_predicate",
        old="any(c.strip() in r for r in seen)",
        new="any(c in r for r in seen)",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="any_citation_resolves",
        bug="a claim passes when one of its citations resolves, not all of them",
        cell="goal_predicate",
        old="if not cited or not all(",
        new="if not cited or not any(",
        loses={"goal_needs_resolvable_claims"},
    ),
    Mutant(
        name="uncited_claim_passes",
        bug="a claim with no citation at all passes: all() over its empty list is True",
        cell="goal_predicate",
        old="if not cited or not all(",
        new="if not all(",
        loses={"goal_needs_resolvable_claims", "triage_end_to_end"},
    ),
    # ---- run: cache, setup, bound ----
    Mutant(
        name="falsy_hit_is_a_miss",
        bug="the cache hit tested for truth, so an empty cached answer is a miss",
        cell="run",
        old="    if hit is not None:\n",
        new="    if hit:\n",
        loses={"cache_first_namespaced"},
    ),
    Mutant(
        name="cache_not_namespaced",
        bug="the cache asked without the tenant's namespace, so tenants share answers",
        cell="run",
        old="hit = guards.cache.get(request, namespace=tenant)",
        new="hit = guards.cache.get(request)",
        loses={"cache_first_namespaced"},
    ),
    Mutant(
        name="budget_made_before_cache",
        bug="the budget is set up before the cache lookup: the cache is no longer first",
        cell="run",
        old="    trace = Trace()\n    hit = guards.cache.get(request, namespace=tenant)\n",
        new="    trace = Trace()\n    budget = guards.Budget(limit_usd)\n"
            "    hit = guards.cache.get(request, namespace=tenant)\n",
        patches=(("run", "    agent = guards.agent\n    budget = guards.Budget(limit_usd)\n",
                  "    agent = guards.agent\n"),),
        loses={"cache_first_namespaced"},
    ),
    Mutant(
        name="loop_guard_default_steps",
        bug="the loop guard made with its own default step cap, not the run's max_steps",
        cell="run",
        old="loop_guard = guards.LoopGuard(max_steps=max_steps)",
        new="loop_guard = guards.LoopGuard()",
        loses={"bounded_partial"},
    ),
    Mutant(
        name="budget_made_per_call",
        bug="a new Budget for every model call: the spend never adds up, so the limit is never "
            "reached",
        cell="run",
        old="    for k in range(max_steps):\n",
        new="    for k in range(max_steps):\n        budget = guards.Budget(limit_usd)\n",
        loses={"bounded_partial", "budget_last", "goal_decides_end_turn"},
    ),
    Mutant(
        name="loop_guard_made_per_call",
        bug="a new LoopGuard for every model call: its trips never add up, so a second trip "
            "never stops the run",
        cell="run",
        old="    for k in range(max_steps):\n",
        new="    for k in range(max_steps):\n"
            "        loop_guard = guards.LoopGuard(max_steps=max_steps)\n",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="step_cap_off_by_one",
        bug="range(max_steps + 1): one model call more than max_steps",
        cell="run",
        old="    for k in range(max_steps):\n",
        new="    for k in range(max_steps + 1):\n",
        loses={"bounded_partial"},
    ),
    Mutant(
        name="catches_api_error_only",
        bug="only anthropic.APIError from guards.retry becomes a failure; any other exception "
            "escapes run",
        cell="run",
        old="        except Exception as exc:                  # a 400, or retries used up",
        new="        except anthropic.APIError as exc:         # a 400, or retries used up",
        loses={"api_errors_become_results"},
    ),
    # ---- run: end_turn ----
    Mutant(
        name="end_turn_trusted",
        bug="end_turn taken as done: the goal predicate is never asked",
        cell="run",
        old="            passed, feedback = guards.goal(answer, trace)\n",
        new="            passed, feedback = True, \"\"\n",
        loses={"bounded_partial", "budget_last", "cache_filled_after_the_predicate",
               "goal_decides_end_turn", "triage_end_to_end"},
    ),
    Mutant(
        name="put_not_namespaced",
        bug="a passing answer stored without the tenant's namespace",
        cell="run",
        old="guards.cache.put(request, answer, namespace=tenant)",
        new="guards.cache.put(request, answer)",
        loses={"cache_filled_after_the_predicate", "triage_end_to_end"},
    ),
    Mutant(
        name="rejected_answer_dropped",
        bug="on a goal fail only the feedback is sent: the rejected answer is not kept as an "
            "assistant message",
        cell="run",
        old="            if reply.content:\n"
            "                messages.append({\"role\": \"assistant\", "
            "\"content\": reply.content})\n",
        new="",
        loses={"goal_decides_end_turn", "triage_end_to_end"},
    ),
    Mutant(
        name="empty_answer_appended",
        bug="a rejected reply with empty content is appended anyway: an empty assistant "
            "message, which the API answers with a 400",
        cell="run",
        old="            if reply.content:\n"
            "                messages.append({\"role\": \"assistant\", "
            "\"content\": reply.content})\n",
        new="            messages.append({\"role\": \"assistant\", \"content\": reply.content})\n",
        loses={"goal_decides_end_turn"},
    ),
    # ---- run: one tool turn ----
    Mutant(
        name="denial_text_without_name",
        bug="a denial sent as 'Not permitted' without the tool's name",
        cell="run",
        old='content, is_error = f"Not permitted: {name}", True',
        new='content, is_error = "Not permitted", True',
        loses={"authorize_before_execute"},
    ),
    Mutant(
        name="is_error_sticks_in_turn",
        bug="is_error set once per turn and never reset: after a denial or a failed call, every "
            "later result of the turn is marked as an error",
        cell="run",
        old="            blocks = []\n",
        new="            blocks = []\n            is_error = False\n",
        patches=(("run", "                        content, is_error = guards.offloader.wrap("
                         "name, raw), False\n",
                  "                        content = guards.offloader.wrap(name, raw)\n"),),
        loses={"authorize_before_execute"},
    ),
    Mutant(
        name="denial_sticks_in_turn",
        bug="once one call of a turn is denied, every later call of that turn is denied too",
        cell="run",
        old="                if not guards.authorize(name, args, tenant):\n",
        new="                if denied or not guards.authorize(name, args, tenant):\n"
            "                    denied = True\n",
        patches=(("run", "            blocks = []\n",
                  "            blocks = []\n            denied = False\n"),),
        loses={"authorize_before_execute"},
    ),
    Mutant(
        name="tool_catches_key_error_only",
        bug="only a KeyError from dispatch becomes an 'Error: ...' result; a timeout escapes run",
        cell="run",
        old="                    except Exception as exc:\n"
            "                        content, is_error = f\"Error: {exc}\", True\n",
        new="                    except KeyError as exc:\n"
            "                        content, is_error = f\"Error: {exc}\", True\n",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="error_without_prefix",
        bug="a tool exception sent as its bare message, without 'Error: '",
        cell="run",
        old='content, is_error = f"Error: {exc}", True',
        new="content, is_error = str(exc), True",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="result_not_offloaded",
        bug="a tool's result sent as it came: the offloader is never asked",
        cell="run",
        old="content, is_error = guards.offloader.wrap(name, raw), False",
        new="content, is_error = raw, False",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="offloader_errors_swallowed",
        bug="the offloader called inside the dispatch try: a bug in the offloader comes back as "
            "the tool's 'Error: ...' result instead of leaving run",
        cell="run",
        old="                    except Exception as exc:\n"
            "                        content, is_error = f\"Error: {exc}\", True\n"
            "                    else:\n"
            "                        content, is_error = guards.offloader.wrap(name, raw), False\n",
        new="                        content, is_error = guards.offloader.wrap(name, raw), False\n"
            "                    except Exception as exc:\n"
            "                        content, is_error = f\"Error: {exc}\", True\n",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="loop_guard_before_execute",
        bug="the loop guard asked before the tool runs: it judges a call that has not happened",
        cell="run",
        old="                    try:\n"
            "                        raw = agent.dispatch(name, args, tenant=tenant)\n",
        new="                    nudge = loop_guard.check(name, args, agent.snapshot(),\n"
            "                                             progress=agent.progress())\n"
            "                    try:\n"
            "                        raw = agent.dispatch(name, args, tenant=tenant)\n",
        patches=(("run",
                  "                    nudge = loop_guard.check(name, args, agent.snapshot(),\n"
                         "                                             progress=agent.progress())\n"
                         "                    if nudge:\n",
                  "                    if nudge:\n"),),
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="failed_call_not_checked",
        bug="the loop guard asked only after a successful call, so a tool that keeps failing "
            "is never seen",
        cell="run",
        old="                        content, is_error = guards.offloader.wrap(name, raw), False\n"
            "                    nudge = loop_guard.check(",
        new="                        content, is_error = guards.offloader.wrap(name, raw), False\n"
            "                        nudge = loop_guard.check(",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="denied_call_checked",
        bug="the loop guard asked about denied calls too, which never ran",
        cell="run",
        old="                    nudge = loop_guard.check(name, args, agent.snapshot(),\n"
            "                                             progress=agent.progress())\n"
            "                    if nudge:\n"
            "                        content, is_error = nudge, True\n",
        new="                nudge = loop_guard.check(name, args, agent.snapshot(),\n"
            "                                         progress=agent.progress())\n"
            "                if nudge:\n"
            "                    content, is_error = nudge, True\n",
        loses={"authorize_before_execute"},
    ),
    Mutant(
        name="halt_ignored",
        bug="only a second trip stops the run: a halted loop guard is not read",
        cell="run",
        old="                if nudge and (loop_guard.halted or loop_guard.trips > 1):\n"
            "                    return finish(",
        new="                if nudge and loop_guard.trips > 1:\n"
            "                    return finish(",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="stops_on_first_trip",
        bug="the first nudge already ends the run: the model never gets the nudge",
        cell="run",
        old="                if nudge and (loop_guard.halted or loop_guard.trips > 1):\n"
            "                    return finish(",
        new="                if nudge:\n"
            "                    return finish(",
        loses={"offload_then_loop_guard"},
    ),
    Mutant(
        name="denied_call_not_traced",
        bug="only calls that ran are traced: a denied call leaves no step",
        cell="run",
        old="                trace.steps.append(Step(name, args, content, is_error, batch=k))\n",
        new="                if content != f\"Not permitted: {name}\":\n"
            "                    trace.steps.append(Step(name, args, content, is_error, "
            "batch=k))\n",
        loses={"authorize_before_execute"},
    ),
    Mutant(
        name="batch_counts_tool_turns",
        bug="batch numbered by tool turns only, so a rejected answer does not move it",
        cell="run",
        old="            blocks = []\n",
        new="            tool_turns += 1\n            blocks = []\n",
        patches=(("run", "    for k in range(max_steps):\n",
                  "    tool_turns = -1\n    for k in range(max_steps):\n"),
                 ("run", "batch=k)", "batch=tool_turns)")),
        loses={"bounded_partial"},
    ),
    Mutant(
        name="results_newest_first",
        bug="each tool result put before the earlier ones: the results go back in reverse order",
        cell="run",
        old="                blocks.append({\"type\": \"tool_result\", ",
        new="                blocks.insert(0, {\"type\": \"tool_result\", ",
        loses={"results_in_one_message"},
    ),
    # ---- run: the budget ----
    Mutant(
        name="budget_checked_after_tool_turns_only",
        bug="the version usually drawn: the budget is checked after a tool turn only, so a "
            "model that keeps failing the goal predicate spends on unchecked",
        cell="run",
        old="        try:\n"
            "            note = budget.guard()\n"
            "        except guards.BudgetExceeded as exc:\n"
            "            return finish(\"budget\", f\"budget exhausted: {exc}\", partial=True)\n",
        new="        note = None\n"
            "        if reply.stop_reason == \"tool_use\":\n"
            "            try:\n"
            "                note = budget.guard()\n"
            "            except guards.BudgetExceeded as exc:\n"
            "                return finish(\"budget\", f\"budget exhausted: {exc}\", "
            "partial=True)\n",
        loses={"budget_last"},
    ),
    Mutant(
        name="budget_guard_errors_swallowed",
        bug="every exception from budget.guard() read as the budget stop, so a bug in the "
            "budget is hidden as a partial result",
        cell="run",
        old="        except guards.BudgetExceeded as exc:\n",
        new="        except Exception as exc:\n",
        loses={"budget_last"},
    ),
    Mutant(
        name="note_as_separate_message",
        bug="the budget note sent as a second user message after the results, not at the end "
            "of the turn's one user message",
        cell="run",
        old="        if note:\n"
            "            blocks.append({\"type\": \"text\", \"text\": note})\n"
            "        messages.append({\"role\": \"user\", \"content\": blocks})\n",
        new="        messages.append({\"role\": \"user\", \"content\": blocks})\n"
            "        if note:\n"
            "            messages.append({\"role\": \"user\", \"content\": [{\"type\": \"text\", "
            "\"text\": note}]})\n",
        loses={"results_in_one_message"},
    ),
]
