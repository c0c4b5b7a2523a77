"""A deterministic stand-in for the tokenizer: about four characters per token.

The live API counts with the model's own tokenizer; offline we need a count that
is stable, cheap and close enough for budgets and ledgers to behave realistically.
"""

from __future__ import annotations

import json
import math
from typing import Any

CHARS_PER_TOKEN = 4


def count(value: Any) -> int:
    """Tokens in a string, or in the compact JSON of any other value (at least 1)."""
    if not isinstance(value, str):
        value = json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
    return max(1, math.ceil(len(value) / CHARS_PER_TOKEN))


def _without_thinking(messages: Any) -> Any:
    """``messages`` with thinking blocks left out of every content list."""
    if not isinstance(messages, list):
        return messages
    out = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            m = dict(m, content=[b for b in content if not _is_thinking(b)])
        out.append(m)
    return out


def _is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")


def _shown_thinking(messages: Any) -> int:
    """Tokens of the visible text of the thinking blocks a request sends back."""
    if not isinstance(messages, list):
        return 0
    return sum(count(b["thinking"]) for m in messages if isinstance(m, dict)
               and isinstance(m.get("content"), list) for b in m["content"]
               if _is_thinking(b) and b.get("thinking"))


def request_tokens(body: dict[str, Any]) -> int:
    """Input tokens for a Messages request: system, tools and messages.

    A thinking block sent back counts by its visible text only (none under
    ``display: "omitted"``); its signature is not text the model reads. What the live API
    bills for resent thinking is not modelled: the pages this course cites do not state it.
    """
    messages = body.get("messages")
    parts = [body.get("system"), body.get("tools"), _without_thinking(messages)]
    return sum(count(p) for p in parts if p) + _shown_thinking(messages)


def content_tokens(blocks: list[dict[str, Any]]) -> int:
    """Output tokens for reply content: text as written, tool calls as name plus JSON input,
    thinking blocks by their visible text (the fake bills its hidden reasoning separately:
    ``course.thinking.reasoning_tokens``)."""
    total = 0
    for b in blocks:
        if b.get("type") == "text":
            total += count(b.get("text", ""))
        elif b.get("type") == "tool_use":
            total += count(b.get("name", "")) + count(b.get("input", {}))
        elif _is_thinking(b):
            total += count(b["thinking"]) if b.get("thinking") else 0
        else:
            total += count(b)
    return max(1, total)
