"""Lab 1 mutants: the five plumbing failures of seed 001 exercise 1, plus the stop_reason bugs."""

from course.grading.mutation import Mutant

KEEP_ALL = 'history.append({"role": "assistant", "content": reply.content})'
ONE_MESSAGE = 'history.append({"role": "user", "content": results})'
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
        loses={"two_step_trace", "all_blocks_kept", "parallel_results_one_message",
               "every_id_answered", "tool_error_as_data"},
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
        bug="seed 001 ex.1: a refusal with empty content read as an end_turn answer",
        cell="agent",
        old='return "".join(b.text for b in reply.content if b.type == "text")',
        new='return next(b.text for b in reply.content if b.type == "text")',
        patches=(("agent", 'if reply.stop_reason == "refusal":', 'if False:'),),
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
    old='return "refused: " + "".join(b.text for b in reply.content if b.type == "text")',
    new='return "refused: "',
    loses={"refusal_handled"},
))
