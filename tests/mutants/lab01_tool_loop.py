"""Lab 1 mutants: the five plumbing failures of seed 001 exercise 1, plus the stop_reason bugs."""

from course.grading.proofs.mutation import Mutant

KEEP_ALL = 'history.append({"role": "assistant", "content": reply.content})'
ONE_MESSAGE = 'history.append({"role": "user", "content": results})'
ANSWER = 'return "".join(b.text for b in reply.content if b.type == "text")'
REFUSAL = 'return "refused: " + "".join(b.text for b in reply.content if b.type == "text")'
SENT = 'content, failed = ("" if out is None else str(out)), False'
CAUGHT = 'content, failed = f"Error: {type(exc).__name__}: {exc}", True'
CALL = "model=MODEL, max_tokens=1024, tools=tools, messages=history)"
BROKEN_HISTORY = {"two_step_trace", "all_blocks_kept", "parallel_results_one_message",
                  "every_id_answered", "tool_error_as_data", "step_cap"}

MUTANTS = [
    Mutant(
        name="split_results",
        bug="seed 001 ex.1 failure 3: each tool result sent in its own user message",
        cell="agent",
        old=ONE_MESSAGE,
        new='history.extend({"role": "user", "content": [r]} for r in results)',
        loses={"parallel_results_one_message"},
    ),
    Mutant(
        name="text_only_history",
        bug="seed 001 ex.1 failure 1: only the reply's text appended to the history",
        cell="agent",
        old=KEEP_ALL,
        new='history.append({"role": "assistant", "content": '
            '"".join(b.text for b in reply.content if b.type == "text")})',
        loses=BROKEN_HISTORY,
    ),
    Mutant(
        name="tool_calls_only_history",
        bug="assistant turn rebuilt from the tool_use blocks only; the thinking block goes "
            "with the text, and the API answers 400",
        cell="agent",
        old=KEEP_ALL,
        new='history.append({"role": "assistant", "content": '
            '[b for b in reply.content if b.type == "tool_use"]})',
        loses=BROKEN_HISTORY,
    ),
    Mutant(
        name="drops_thinking",
        bug="assistant turn resent without its thinking block: the API answers 400 "
            "(Expected `thinking` or `redacted_thinking`)",
        cell="agent",
        old=KEEP_ALL,
        new='history.append({"role": "assistant", "content": '
            '[b for b in reply.content if b.type != "thinking"]})',
        loses=BROKEN_HISTORY,
    ),
    Mutant(
        name="appends_assistant_twice",
        bug="the assistant turn appended twice: the same tool_use ids twice in one turn, a 400",
        cell="agent",
        old=KEEP_ALL,
        new=KEEP_ALL + "\n        " + KEEP_ALL,
        loses=BROKEN_HISTORY,
    ),
    Mutant(
        name="reads_content_0",
        bug="the answer read as reply.content[0].text: the first block is a thinking block",
        cell="agent",
        old='return "".join(b.text for b in reply.content if b.type == "text")',
        new="return reply.content[0].text",
        loses=BROKEN_HISTORY,
    ),
    Mutant(
        name="unanswered_id",
        bug="seed 001 ex.1 failure 2: a tool that returned None gets no tool_result",
        cell="agent",
        old='content, failed = ("" if out is None else str(out)), False',
        new='if out is None:\n                    continue\n'
            '                content, failed = str(out), False',
        loses={"every_id_answered"},
    ),
    Mutant(
        name="tool_exception_escapes",
        bug="seed 001 ex.1 failure 4: a tool exception unwinds the harness",
        cell="agent",
        old="except Exception as exc:",
        new="except ZeroDivisionError as exc:",
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="no_step_cap",
        bug="seed 001 ex.1 failure 5: no cap on the number of iterations",
        cell="agent",
        old="for _step in range(max_steps):",
        new="while True:",
        loses={"step_cap"},
    ),
    Mutant(
        name="max_tokens_is_an_answer",
        bug="seed 001 ex.1: a reply truncated at max_tokens returned as if it were the answer",
        cell="agent",
        old='if reply.stop_reason == "max_tokens":',
        new='if reply.stop_reason == "max_tokens" and not reply.content:',
        loses={"max_tokens_fails_loudly"},
    ),
    Mutant(
        name="refusal_unhandled",
        bug="seed 001 ex.1: no refusal branch, so a refusal is read as an end_turn answer",
        cell="agent",
        old='if reply.stop_reason == "refusal":\n            ' + REFUSAL + "\n        ",
        new="",
        loses={"refusal_handled"},
    ),
    Mutant(
        name="step_cap_off_by_one",
        bug="the step cap allows one model call more than max_steps",
        cell="agent",
        old="for _step in range(max_steps):",
        new="for _step in range(max_steps + 1):",
        loses={"step_cap"},
    ),
]
MUTANTS.append(Mutant(
    name="refusal_constant",
    bug="a refusal answered with a fixed note instead of the refusal's own text",
    cell="agent",
    old=REFUSAL,
    new='return "refused: "',
    loses={"refusal_handled"},
))

# The behaviours the "You implement" block states, one plausible slip each.
MUTANTS += [
    Mutant(
        name="answer_first_text_block",
        bug="the answer is the first text block of the last reply, not all of them joined",
        cell="agent",
        old=ANSWER,
        new='return next(b.text for b in reply.content if b.type == "text")',
        loses={"two_step_trace"},
    ),
    Mutant(
        name="answer_last_text_block",
        bug="the answer is the last text block of the last reply",
        cell="agent",
        old=ANSWER,
        new='return [b.text for b in reply.content if b.type == "text"][-1]',
        loses={"two_step_trace"},
    ),
    Mutant(
        name="answer_second_block",
        bug="the thinking block skipped by position: the answer read as reply.content[1].text",
        cell="agent",
        old=ANSWER,
        new="return reply.content[1].text",
        loses={"two_step_trace"},
    ),
    Mutant(
        name="answer_joined_with_space",
        bug="the text blocks of the answer joined with a space",
        cell="agent",
        old=ANSWER,
        new='return " ".join(b.text for b in reply.content if b.type == "text")',
        loses={"two_step_trace"},
    ),
    Mutant(
        name="answer_joined_with_newline",
        bug="the text blocks of the answer joined with a newline",
        cell="agent",
        old=ANSWER,
        new='return "\\n".join(b.text for b in reply.content if b.type == "text")',
        loses={"two_step_trace"},
    ),
    Mutant(
        name="end_turn_only_answers",
        bug="only stop_reason end_turn ends the loop; a stop_sequence reply is treated as a "
            "tool turn",
        cell="agent",
        old='if reply.stop_reason != "tool_use":',
        new='if reply.stop_reason == "end_turn":',
        loses={"two_step_trace"},
    ),
    Mutant(
        name="dispatch_called_twice",
        bug="each tool run twice: once to test for None, once for the value",
        cell="agent",
        old="out = dispatch(block.name, block.input)\n                " + SENT,
        new='content = ("" if dispatch(block.name, block.input) is None\n'
            "                           else str(dispatch(block.name, block.input)))\n"
            "                failed = False",
        loses={"two_step_trace"},
    ),
    Mutant(
        name="bigger_max_tokens",
        bug="max_tokens raised to 4096 instead of the 1024 the spec gives",
        cell="agent",
        old=CALL,
        new=CALL.replace("1024", "4096"),
        loses={"two_step_trace"},
    ),
    Mutant(
        name="tools_not_sent",
        bug="the tool definitions left out of the model call",
        cell="agent",
        old=CALL,
        new="model=MODEL, max_tokens=1024, messages=history)",
        loses={"two_step_trace"},
    ),
    Mutant(
        name="none_sent_as_text_none",
        bug="a tool's None sent as str(None), the text 'None'",
        cell="agent",
        old=SENT,
        new="content, failed = str(out), False",
        loses={"every_id_answered"},
    ),
    Mutant(
        name="values_sent_as_json",
        bug="non-string tool values sent as JSON (json.dumps) instead of str(value)",
        cell="agent",
        old=SENT,
        new='content = "" if out is None else out if isinstance(out, str) else json.dumps(out)\n'
            "                failed = False",
        patches=(("agent", "history = [", "import json\n    history = ["),),
        loses={"every_id_answered"},
    ),
    Mutant(
        name="falsy_value_sent_empty",
        bug="every falsy tool value sent as \"\" (`str(out) if out else ''`), so 0 goes as ''",
        cell="agent",
        old=SENT,
        new='content, failed = (str(out) if out else ""), False',
        loses={"every_id_answered"},
    ),
    Mutant(
        name="results_newest_first",
        bug="tool results collected newest first, not in the order of the calls (every "
            "cell that replays the three-city batch pins the order of its ids)",
        cell="agent",
        old='results.append({"type": "tool_result"',
        new='results.insert(0, {"type": "tool_result"',
        loses={"parallel_results_one_message", "every_id_answered", "tool_error_as_data"},
    ),
    Mutant(
        name="is_error_leaks",
        bug="the is_error flag set once per run, so after one failure every result is an error",
        cell="agent",
        old=SENT,
        new='content = "" if out is None else str(out)',
        patches=(("agent", "for _step in range(max_steps):",
                  "failed = False\n    for _step in range(max_steps):"),),
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="error_text_dropped",
        bug="a failed tool answered with a fixed note; the error's own text never reaches "
            "the model",
        cell="agent",
        old=CAUGHT,
        new='content, failed = "Error: the tool failed", True',
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="catches_key_error_only",
        bug="only KeyError caught around dispatch, the error the notebook demonstrates",
        cell="agent",
        old="except Exception as exc:",
        new="except KeyError as exc:",
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="returns_on_tool_error",
        bug="a tool error ends the run: the error text returned as the answer",
        cell="agent",
        old=CAUGHT,
        new='return f"Error: {type(exc).__name__}: {exc}"',
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="tools_run_before_max_tokens_check",
        bug="tool turns found by their tool_use blocks, and max_tokens checked only for "
            "replies without one: a cut-off tool call is run",
        cell="agent",
        old='if reply.stop_reason == "max_tokens":',
        new='if reply.stop_reason == "max_tokens" and not any(\n'
            '                b.type == "tool_use" for b in reply.content):',
        patches=(("agent", 'if reply.stop_reason != "tool_use":',
                  'if not any(b.type == "tool_use" for b in reply.content):'),),
        loses={"max_tokens_fails_loudly"},
    ),
    Mutant(
        name="max_tokens_raises_value_error",
        bug="a reply cut at max_tokens raises ValueError, not the RuntimeError the spec names",
        cell="agent",
        old='raise RuntimeError("reply cut off at max_tokens',
        new='raise ValueError("reply cut off at max_tokens',
        loses={"max_tokens_fails_loudly"},
    ),
    Mutant(
        name="refusal_first_text_only",
        bug="a refusal answered with its first text block only",
        cell="agent",
        old=REFUSAL,
        new='return "refused: " + next((b.text for b in reply.content if b.type == "text"), "")',
        loses={"refusal_handled"},
    ),
    Mutant(
        name="cap_checked_before_answer",
        bug="the step cap raised on the last allowed call even when that reply is the answer",
        cell="agent",
        old=CALL + "\n",
        new=CALL + "\n        if _step == max_steps - 1:\n"
                   '            raise RuntimeError("step cap reached")\n',
        loses={"step_cap"},
    ),
    Mutant(
        name="cap_returns_text",
        bug="the step cap returns a note instead of raising RuntimeError",
        cell="agent",
        old='raise RuntimeError(f"step cap:',
        new='return (f"step cap:',
        loses={"step_cap"},
    ),
]

# A flag of one result of a batch must not stick to the rest (issue 32).
RESULT = ('results.append({"type": "tool_result", "tool_use_id": block.id,\n'
          '                            "content": content, "is_error": failed})')
MUTANTS += [
    Mutant(
        name="is_error_sticks_in_turn",
        bug="issue 32: once one tool of a turn raises, every later result of that turn goes "
            "back with is_error=True",
        cell="agent",
        old=SENT,
        new='content = "" if out is None else str(out)',
        patches=(("agent", "results = []", "results, failed = [], False"),),
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="whole_turn_marked_on_error",
        bug="a turn where any tool raised has all its results marked is_error=True",
        cell="agent",
        old=ONE_MESSAGE,
        new='if any(r["is_error"] for r in results):\n'
            '            results = [dict(r, is_error=True) for r in results]\n'
            "        " + ONE_MESSAGE,
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="error_ends_the_batch",
        bug="the first tool that raises ends the turn's dispatch loop, so the calls after it "
            "get no tool_result and the API answers 400",
        cell="agent",
        old=RESULT,
        new=RESULT + "\n            if failed:\n                break",
        loses={"tool_error_as_data"},
    ),
    Mutant(
        name="goal_reworded",
        bug="the first message is not the goal itself: the loop wraps it in an instruction",
        cell="agent",
        old='history = [{"role": "user", "content": goal}]',
        new='history = [{"role": "user", "content": "Task: " + goal}]',
        loses=BROKEN_HISTORY,  # the recorded replies answer the goal as the spec states it
    ),
    Mutant(
        name="refusal_joined_with_space",
        bug="a refusal's text blocks joined with a space, not with no separator as the answer",
        cell="agent",
        old=REFUSAL,
        new='return "refused: " + " ".join(b.text for b in reply.content if b.type == "text")',
        loses={"refusal_handled"},
    ),
    Mutant(
        name="refusal_reads_first_block",
        bug="a refusal's text read as reply.content[0].text: a refusal with no blocks crashes "
            "the loop with IndexError",
        cell="agent",
        old=REFUSAL,
        new='return "refused: " + reply.content[0].text',
        loses={"refusal_handled"},
    ),
    Mutant(
        name="refusal_raises",
        bug="a refusal raised as an error, where the spec says never to raise on one",
        cell="agent",
        old=REFUSAL,
        new='raise RuntimeError("refused: " + "".join(b.text for b in reply.content '
            'if b.type == "text"))',
        loses={"refusal_handled"},
    ),
]

# The order of the stop_reason checks in "Implement `agent`" (issue 32): both checks come
# before "anything that is not tool_use is an answer". A reply has one stop_reason, so the
# order of the max_tokens and refusal checks between themselves decides nothing.
MUTANTS.append(Mutant(
    name="answer_checked_first",
    bug="'anything that is not tool_use is an answer' tested before max_tokens and refusal: "
        "a cut-off reply is returned as the answer and a refusal loses its marker",
    cell="agent",
    old='if reply.stop_reason == "max_tokens":',
    new='if reply.stop_reason != "tool_use":\n            ' + ANSWER
        + '\n        if reply.stop_reason == "max_tokens":',
    loses={"max_tokens_fails_loudly", "refusal_handled"},
))
