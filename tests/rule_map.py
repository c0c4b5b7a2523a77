"""For each notebook, every sentence of its API block, and what enforces it.

The API block is the "**You implement**" part of a notebook's first cell, or its "The API
you implement" section: the signatures and the text under them, which the notebook calls
authoritative. Each of its sentences is
either a **rule** (it says what a graded function returns, raises, counts, orders, sends,
or when it stops), listed in :data:`RULES` with the seeded bugs (``tests/mutants/<nb>.py``)
that break it, or **prose** (the inputs, the setting, a freedom the checks allow), listed
in :data:`PROSE` with the reason it states no rule. ``tests/test_rule_map.py`` splits the
released notebook's block into sentences and fails on any sentence in neither map, on a
rule with no mutant, and on a mutant name that does not exist; ``course verify`` (and
``tests/test_integrity.py``) prove each mutant loses exactly the cells it names, which are
judged by hidden tests in the grader.

Notebooks not mapped yet are listed in :data:`NOT_MAPPED` with what stands in the way;
every notebook is in exactly one of :data:`RULES` and :data:`NOT_MAPPED`. Rules written only
as comments inside the block's code (a signature's ``# ...`` notes) are not split out yet.
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
    },
    "lab04_loop_detector": {
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
    },
    "lab04_loop_detector": {
        '| signal | trips when | the message must contain |':
            "the table's header",
        'Words are matched without regard to case.':
            'how the checks read a message: a freedom (any case)',
    },
}

_PENDING = "its API block is not mapped yet"
NOT_MAPPED: dict[str, str] = {
    "capstone_integrated_loop": _PENDING,
    "lab02_retry": _PENDING,
    "lab03_budget": _PENDING,
    "lab05_semantic_cache": _PENDING,
    "lab06_eval_harness": _PENDING,
    "lab07_cache_audit": _PENDING,
    "lab08_offloader": _PENDING,
    "lab09_trajectory": _PENDING,
    "lab10_token_accounting": _PENDING,
    "lab11_context_reduction": _PENDING,
    "lecture04_context_cache": _PENDING,
    "tier2_langgraph": _PENDING,
}
