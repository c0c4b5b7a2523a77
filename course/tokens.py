"""A deterministic stand-in for the tokenizer: about four characters per token.

The live API counts with the model's own tokenizer; offline we need a count that
is stable, cheap and close enough for budgets and ledgers to behave realistically.
Images bill by their size, as the vision page estimates it (:func:`course.media.image_tokens`),
and a plain-text document by its text, not by the JSON that carries them.
"""

from __future__ import annotations

import json
import math
from typing import Any

from . import media

CHARS_PER_TOKEN = 4


def count(value: Any) -> int:
    """Tokens in a string, or in the compact JSON of any other value (at least 1)."""
    if not isinstance(value, str):
        value = _compact(value)
    return max(1, math.ceil(len(value) / CHARS_PER_TOKEN))


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


#: Every image or document block holds one of these in its compact JSON; inside a string
#: the quotes would be escaped, so a value whose JSON holds neither has no such block.
_MEDIA_MARKS = ('"type":"image"', '"type":"document"')


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


def media_tokens(block: Any) -> int | None:
    """Input tokens of an image or document block the fake can read, else ``None``.

    An image bills ``width * height / 750`` after the vision page's scaling
    (:func:`course.media.image_tokens`); a document with a text or content source bills its
    text, title and context, and the images of a content source as images. Anything else
    (an unreadable image, a PDF, which validation refuses) is counted as its JSON, as before.
    """
    if not isinstance(block, dict):
        return None
    if block.get("type") == "image":
        return media.block_image_tokens(block)
    source = block.get("source")
    if block.get("type") != "document" or not isinstance(source, dict):
        return None
    extra = sum(count(block[k]) for k in ("title", "context") if isinstance(block.get(k), str))
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        return count(source["data"]) + extra
    inner = source.get("content")
    if source.get("type") != "content" or not isinstance(inner, (str, list)):
        return None
    if isinstance(inner, str):
        return count(inner) + extra
    total = extra
    for b in inner:
        image = media_tokens(b)
        total += image if image is not None else count(b.get("text", "") if isinstance(
            b, dict) else b)
    return total


def _split_media(value: Any) -> tuple[Any, int]:
    """``value`` with every image and document block the fake can read taken out, and the
    tokens those blocks bill. Without such blocks ``value`` comes back equal, billing 0."""
    if isinstance(value, list):
        kept, billed = [], 0
        for item in value:
            own = media_tokens(item)
            if own is not None:
                billed += own
                continue
            item, inner = _split_media(item)
            kept.append(item)
            billed += inner
        return kept, billed
    if isinstance(value, dict):
        out, billed = {}, 0
        for key, item in value.items():
            out[key], inner = _split_media(item)
            billed += inner
        return out, billed
    return value, 0


def block_tokens(block: Any) -> int:
    """Input tokens of one block (or string) of a request: its compact JSON, less the images
    and documents in it, which bill as :func:`media_tokens` says."""
    own = media_tokens(block)
    if own is not None:
        return own
    rest, billed = _split_media(block)
    return count(rest) + billed


def request_tokens(body: dict[str, Any]) -> int:
    """Input tokens for a Messages request: system, tools and messages.

    A thinking block sent back counts by its visible text only (none under
    ``display: "omitted"``); its signature is not text the model reads. What the live API
    bills for resent thinking is not modelled: the pages this course cites do not state it.
    Images and documents bill as :func:`media_tokens` says.
    """
    messages = body.get("messages")
    plain, billed = _without_thinking(messages), 0
    if plain:
        text = _compact(plain)
        if any(mark in text for mark in _MEDIA_MARKS):
            plain, billed = _split_media(plain)
        else:  # no image or document to take out: the JSON already made is the count's
            plain = text
    parts = [body.get("system"), body.get("tools"), plain]
    return sum(count(p) for p in parts if p) + _shown_thinking(messages) + billed


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
