"""Blind samples for lab01_tool_loop: written from the release notebook alone."""

from course.grading.proofs.blind import Blind


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"blind edit target occurs {found} times, not once: {old!r}")
        source = source.replace(old, new)
    return source


# The obvious solution; every bug below is this cell with ONE deviation edited in.
AGENT = r'''def agent(goal, tools, dispatch, *, client, max_steps=12):
    """Run the tool-calling loop for ``goal`` and return the model's final text."""
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("the reply was cut off at max_tokens; that is not an answer")
        said = "".join(block.text for block in reply.content if block.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + said
        if reply.stop_reason != "tool_use":
            return said
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
            except Exception as err:
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": str(err), "is_error": True})
                continue
            if value is None:
                value = ""
            elif not isinstance(value, str):
                value = str(value)
            results.append({"type": "tool_result", "tool_use_id": block.id, "content": value})
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"the model was still asking for tools after {max_steps} model calls")
'''

# A while loop, a match on stop_reason and one helper per tool call.
AGENT_MATCH = r'''def _as_text(value):
    """A tool's return value as the text a tool_result carries."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _answer(dispatch, call):
    """The tool_result for one tool_use block; a tool that raises becomes an is_error result."""
    try:
        content = _as_text(dispatch(call.name, call.input))
    except Exception as err:  # the model reads the failure and may fix its own call
        return {"type": "tool_result", "tool_use_id": call.id, "content": str(err),
                "is_error": True}
    return {"type": "tool_result", "tool_use_id": call.id, "content": content}


def agent(goal, tools, dispatch, *, client, max_steps=12):
    """Run the tool-calling loop for ``goal`` and return the model's final text."""
    messages = [{"role": "user", "content": goal}]
    made = 0
    while made < max_steps:
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=messages)
        made += 1
        texts = [block.text for block in reply.content if block.type == "text"]
        match reply.stop_reason:
            case "max_tokens":
                raise RuntimeError(f"model call {made} stopped at max_tokens: truncated")
            case "refusal":
                return "refused: " + "".join(texts)
            case "tool_use":
                pass
            case _:
                return "".join(texts)
        asked = [block for block in reply.content if block.type == "tool_use"]
        messages += [
            {"role": "assistant", "content": list(reply.content)},
            {"role": "user", "content": [_answer(dispatch, call) for call in asked]},
        ]
    raise RuntimeError(f"step cap: {made} model calls and the model still wants tools")
'''

# Blocks resent as plain dicts, results keyed by id (insertion order = call order),
# and a for/else for the step cap.
AGENT_DICTS = r'''def agent(goal, tools, dispatch, *, client, max_steps=12):
    """Run the tool-calling loop for ``goal`` and return the model's final text."""
    history = [{"role": "user", "content": goal}]
    for step in range(1, max_steps + 1):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        stop = reply.stop_reason
        if stop == "max_tokens":
            raise RuntimeError(f"call {step} was truncated at max_tokens")
        blocks = [block.model_dump(exclude_none=True) for block in reply.content]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        if stop == "refusal":
            return f"refused: {text}"
        if stop != "tool_use":
            return text
        answers = {}
        for b in blocks:
            if b["type"] != "tool_use":
                continue
            try:
                out = dispatch(b["name"], b["input"])
                answers[b["id"]] = ("" if out is None else out if isinstance(out, str)
                                    else str(out), False)
            except Exception as exc:
                answers[b["id"]] = (str(exc), True)
        results = []
        for tool_id, (content, failed) in answers.items():
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
            if failed:
                result["is_error"] = True
            results.append(result)
        history.append({"role": "assistant", "content": blocks})
        history.append({"role": "user", "content": results})
    else:
        raise RuntimeError(f"gave up after max_steps={max_steps} model calls")
'''

BLIND = [
    Blind(
        name="only_tool_use_blocks_resent",
        bug="the assistant turn is resent with only its tool_use blocks; the thinking and "
            "text blocks before the call are dropped, though the notebook says to repeat ALL "
            "blocks",
        cells={"agent": _patch(AGENT, (
            '{"role": "assistant", "content": reply.content}',
            '{"role": "assistant",\n'
            '                        "content": [b for b in reply.content'
            ' if b.type == "tool_use"]}'))},
    ),
    Blind(
        name="thinking_block_dropped",
        bug="the assistant turn is rebuilt as dicts from the text and tool_use blocks only, "
            "so the thinking block (and its signature) the notebook says to resend unchanged "
            "is lost",
        cells={"agent": _patch(AGENT, (
            '        history.append({"role": "assistant", "content": reply.content})\n',
            '        turn = []\n'
            '        for block in reply.content:\n'
            '            if block.type == "text":\n'
            '                turn.append({"type": "text", "text": block.text})\n'
            '            elif block.type == "tool_use":\n'
            '                turn.append({"type": "tool_use", "id": block.id, '
            '"name": block.name,\n'
            '                             "input": block.input})\n'
            '        history.append({"role": "assistant", "content": turn})\n'))},
    ),
    Blind(
        name="one_user_message_per_result",
        bug="each tool_result goes back in its own user message instead of all results of "
            "the turn in ONE user message",
        cells={"agent": _patch(AGENT, (
            '        history.append({"role": "user", "content": results})\n',
            '        for result in results:\n'
            '            history.append({"role": "user", "content": [result]})\n'))},
    ),
    Blind(
        name="none_result_skipped",
        bug="a tool that returns None gets no tool_result at all (its id is left unanswered) "
            "instead of an empty-string result",
        cells={"agent": _patch(AGENT, (
            '            if value is None:\n                value = ""\n',
            '            if value is None:\n                continue\n'))},
    ),
    Blind(
        name="none_sent_as_word_none",
        bug="every non-string return value goes through str(), so None is sent as the text "
            "'None' instead of \"\"",
        cells={"agent": _patch(AGENT, (
            '            if value is None:\n                value = ""\n'
            '            elif not isinstance(value, str):\n',
            '            if not isinstance(value, str):\n'))},
    ),
    Blind(
        name="non_strings_json_encoded",
        bug="non-string tool values are sent as json.dumps(value) instead of str(value) "
            "(a dict becomes JSON with double quotes, True becomes 'true')",
        cells={"agent": _patch(
            AGENT,
            ("def agent(", "import json\n\n\ndef agent("),
            ("                value = str(value)\n", "                value = json.dumps(value)\n"),
        )},
    ),
    Blind(
        name="only_lookup_errors_caught",
        bug="only KeyError, ValueError and TypeError from a tool become is_error results; any "
            "other exception a tool raises still crashes the loop",
        cells={"agent": _patch(AGENT, (
            "except Exception as err:", "except (KeyError, ValueError, TypeError) as err:"))},
    ),
    Blind(
        name="errors_sent_after_successes",
        bug="failed calls are collected apart and appended after the successful results, so "
            "the tool_results are not in the order of the calls",
        cells={"agent": _patch(
            AGENT,
            ("        results = []\n", "        results, failures = [], []\n"),
            ("                results.append({\"type\": \"tool_result\", \"tool_use_id\": "
             "block.id,\n                                \"content\": str(err)",
             "                failures.append({\"type\": \"tool_result\", \"tool_use_id\": "
             "block.id,\n                                 \"content\": str(err)"),
            ('history.append({"role": "user", "content": results})',
             'history.append({"role": "user", "content": results + failures})'),
        )},
    ),
    Blind(
        name="refusal_reads_first_block",
        bug="a refusal returns 'refused: ' + reply.content[0].text, which crashes with an "
            "IndexError when the refusal carries no blocks at all",
        cells={"agent": _patch(AGENT, (
            'return "refused: " + said', 'return "refused: " + reply.content[0].text'))},
    ),
    Blind(
        name="max_tokens_checked_after_answer",
        bug="stop_reason checks in the wrong order: a reply with no tool_use block is "
            "returned as the answer before max_tokens is looked at, so a truncated text "
            "reply is returned instead of raising RuntimeError",
        cells={"agent": _patch(
            AGENT,
            ('        if reply.stop_reason == "max_tokens":\n'
             '            raise RuntimeError("the reply was cut off at max_tokens; that is '
             'not an answer")\n', ''),
            ('        if reply.stop_reason != "tool_use":\n            return said\n',
             '        if not any(block.type == "tool_use" for block in reply.content):\n'
             '            return said\n'
             '        if reply.stop_reason == "max_tokens":\n'
             '            raise RuntimeError("a tool call was cut off at max_tokens")\n'),
        )},
    ),
    Blind(
        name="text_blocks_joined_by_newline",
        bug="the final answer joins the text blocks with a newline instead of with no "
            "separator",
        cells={"agent": _patch(AGENT, (
            'said = "".join(', 'said = "\\n".join('))},
    ),
    Blind(
        name="extra_call_for_final_answer",
        bug="max_steps is read as the number of tool rounds, with one more call allowed for "
            "the answer, so an endless model gets max_steps + 1 model calls, not exactly "
            "max_steps",
        cells={"agent": _patch(AGENT, (
            "for _ in range(max_steps):", "for _ in range(max_steps + 1):"))},
    ),
    Blind(
        name="history_shared_default",
        bug="the history is a mutable default argument, so a second run in the same kernel "
            "resends the first run's conversation instead of starting from the goal alone",
        cells={"agent": _patch(
            AGENT,
            ("def agent(goal, tools, dispatch, *, client, max_steps=12):",
             "def agent(goal, tools, dispatch, *, client, max_steps=12, history=[]):"),
            ('    history = [{"role": "user", "content": goal}]\n',
             '    history.append({"role": "user", "content": goal})\n'),
        )},
    ),
    Blind(
        name="answers_stripped",
        bug="returned text is .strip()ped, so an empty refusal gives 'refused:' without the "
            "trailing space the notebook requires",
        cells={"agent": _patch(
            AGENT,
            ('return "refused: " + said', 'return ("refused: " + said).strip()'),
            ("            return said\n", "            return said.strip()\n"),
        )},
    ),
    Blind(
        name="while_loop_match_helpers",
        bug="correct: a while loop with an explicit call counter, a match on stop_reason and "
            "a helper that builds each tool_result",
        cells={"agent": AGENT_MATCH},
        correct=True,
    ),
    Blind(
        name="dict_blocks_for_else",
        bug="correct: reply blocks resent as plain dicts (model_dump), results gathered in a "
            "dict keyed by tool_use id, and the step cap raised from a for/else",
        cells={"agent": AGENT_DICTS},
        correct=True,
    ),
]


# Round three: written from the release notebook of 2026-12-06 alone, told to write the
# mistakes a student would make, not edits of an answer.
BLIND += [
    Blind(
        "r3_truthy_none_check",
        (
            'converts results with `str(value) if value else ""`, so a tool returning 0 (or any '
            'falsy value) is sent as "" instead of "0".'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        text = "".join(b.text for b in (reply.content or []) if b.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + text
        if reply.stop_reason != "tool_use":
            return text
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
            except Exception as err:
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": str(err), "is_error": True})
                continue
            # None (or an empty result) becomes ""
            content = str(value) if value else ""
            results.append({"type": "tool_result", "tool_use_id": block.id,
                            "content": content})
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"model still asking for tools after {max_steps} calls")
"""
        },
    ),
    Blind(
        "r3_error_flag_sticks",
        (
            'keeps one `failed` flag per turn, so once a tool in a parallel batch raises every '
            'later result of that turn is also sent with is_error=True.'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        text = "".join(b.text for b in (reply.content or []) if b.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + text
        if reply.stop_reason != "tool_use":
            return text
        history.append({"role": "assistant", "content": reply.content})
        results = []
        failed = False
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
                content = "" if value is None else value if isinstance(value, str) else str(value)
            except Exception as err:
                failed = True
                content = str(err)
            result = {"type": "tool_result", "tool_use_id": block.id, "content": content}
            if failed:
                result["is_error"] = True
            results.append(result)
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"model still asking for tools after {max_steps} calls")
"""
        },
    ),
    Blind(
        "r3_tools_before_max_tokens",
        (
            'decides whether to run tools by looking for tool_use blocks first and only checks '
            'max_tokens when there are none, so a reply cut off inside a tool_use block gets its '
            'incomplete tool run instead of raising.'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        blocks = reply.content or []
        tool_calls = [b for b in blocks if b.type == "tool_use"]
        if tool_calls:
            history.append({"role": "assistant", "content": reply.content})
            results = []
            for call in tool_calls:
                try:
                    value = dispatch(call.name, call.input)
                    results.append({"type": "tool_result", "tool_use_id": call.id,
                                    "content": "" if value is None else str(value)})
                except Exception as err:
                    results.append({"type": "tool_result", "tool_use_id": call.id,
                                    "content": str(err), "is_error": True})
            history.append({"role": "user", "content": results})
            continue
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        text = "".join(b.text for b in blocks if b.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + text
        return text
    raise RuntimeError(f"model still asking for tools after {max_steps} calls")
"""
        },
    ),
    Blind(
        "r3_cap_checked_before_answer",
        (
            'counts calls and raises as soon as call number max_steps has been made, before '
            'looking at the reply, so a run that answers exactly on call max_steps raises instead'
            ' of returning the answer.'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    calls = 0
    while True:
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        calls += 1
        if calls >= max_steps:
            raise RuntimeError(f"step cap of {max_steps} model calls reached")
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        text = "".join(b.text for b in (reply.content or []) if b.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + text
        if reply.stop_reason != "tool_use":
            return text
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": "" if value is None else str(value)})
            except Exception as err:
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": str(err), "is_error": True})
        history.append({"role": "user", "content": results})
"""
        },
    ),
    Blind(
        "r3_refusal_first_text_only",
        (
            'on a refusal returns only the first text block after the marker (next(...) instead '
            'of joining every text block), so a refusal worded over several blocks loses the '
            'rest.'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        if reply.stop_reason == "refusal":
            # a refusal may have no blocks at all
            reason = next((b.text for b in (reply.content or []) if b.type == "text"), "")
            return "refused: " + reason
        if reply.stop_reason != "tool_use":
            return "".join(b.text for b in reply.content if b.type == "text")
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": "" if value is None else str(value)})
            except Exception as err:
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": str(err), "is_error": True})
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"model still asking for tools after {max_steps} calls")
"""
        },
    ),
    Blind(
        "r3_catches_listed_errors",
        (
            'catches only the exception types the student thought of (KeyError, ValueError, '
            'TypeError) instead of every Exception, so a tool raising e.g. TimeoutError or '
            'RuntimeError crashes the loop.'
        ),
        {
            "agent": r"""def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": goal}]
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        if reply.stop_reason == "max_tokens":
            raise RuntimeError("reply was cut off at max_tokens")
        text = "".join(b.text for b in (reply.content or []) if b.type == "text")
        if reply.stop_reason == "refusal":
            return "refused: " + text
        if reply.stop_reason != "tool_use":
            return text
        history.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                value = dispatch(block.name, block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": "" if value is None else str(value)})
            except (KeyError, ValueError, TypeError) as err:  # bad args / unknown city
                results.append({"type": "tool_result", "tool_use_id": block.id,
                                "content": str(err), "is_error": True})
        history.append({"role": "user", "content": results})
    raise RuntimeError(f"model still asking for tools after {max_steps} calls")
"""
        },
    ),
    Blind(
        "r3_correct_match_helpers",
        (
            'splits the loop into small helper functions, dispatches on stop_reason with a match '
            'statement, sends the goal as a one-text-block list and counts calls with a while '
            'loop instead of for/range.'
        ),
        {
            "agent": r'''def _text_of(blocks):
    """Every text block's text, joined with no separator; thinking/tool_use ignored."""
    return "".join(getattr(b, "text", "") for b in (blocks or []) if b.type == "text")


def _as_wire_text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _run_one(dispatch, call):
    result = {"type": "tool_result", "tool_use_id": call.id}
    try:
        result["content"] = _as_wire_text(dispatch(call.name, call.input))
    except Exception as exc:  # any tool failure goes back to the model as data
        result["content"] = str(exc) or type(exc).__name__
        result["is_error"] = True
    return result


def agent(goal, tools, dispatch, *, client, max_steps=12):
    history = [{"role": "user", "content": [{"type": "text", "text": goal}]}]
    made = 0
    while made < max_steps:
        reply = client.messages.create(model=MODEL, max_tokens=1024, tools=tools,
                                       messages=history)
        made += 1
        match reply.stop_reason:
            case "max_tokens":
                raise RuntimeError(f"call {made} stopped at max_tokens: not an answer")
            case "refusal":
                return "refused: " + _text_of(reply.content)
            case "tool_use":
                pass
            case _:
                return _text_of(reply.content)
        history.append({"role": "assistant", "content": reply.content})
        history.append({"role": "user",
                        "content": [_run_one(dispatch, b) for b in reply.content
                                    if b.type == "tool_use"]})
    raise RuntimeError(f"still asking for tools after max_steps={max_steps} model calls")
'''
        },
        correct=True,
    ),
]
