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
            "                    try:\n"
            "                        if isinstance(raw, Exception):\n"
            "                            raise raw\n"
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
        loses={"authorize_before_execute", "budget_last", "cache_filled_after_the_predicate",
               "cache_first_namespaced", "cache_put_respects_cacheable",
               "every_attempt_charged_first", "goal_decides_end_turn", "offload_then_loop_guard",
               "results_in_one_message", "tenant_injected_at_dispatch", "triage_end_to_end"},
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
]
