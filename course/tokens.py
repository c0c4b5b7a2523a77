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


def request_tokens(body: dict[str, Any]) -> int:
    """Input tokens for a Messages request: system, tools and messages."""
    parts = [body.get("system"), body.get("tools"), body.get("messages")]
    return sum(count(p) for p in parts if p)


def content_tokens(blocks: list[dict[str, Any]]) -> int:
    """Output tokens for reply content: text as written, tool calls as name plus JSON input."""
    total = 0
    for b in blocks:
        if b.get("type") == "text":
            total += count(b.get("text", ""))
        elif b.get("type") == "tool_use":
            total += count(b.get("name", "")) + count(b.get("input", {}))
        else:
            total += count(b)
    return max(1, total)
