"""Reject a Messages request the way the live API does, with the API's own 400 messages.

The checks cover what an agent loop gets wrong: a missing or empty message list,
empty content, a ``tool_result`` that answers no ``tool_use`` of the previous
assistant turn, and ``tool_use`` ids left unanswered. Like the API, consecutive
turns of the same role are merged before the checks, which is why splitting
tool results over several user messages is *accepted* (and silently teaches the
model to call tools one at a time).
"""

from __future__ import annotations

from typing import Any

from .wire import JSON


class InvalidRequest(ValueError):
    """A request the API would answer with 400 ``invalid_request_error``."""


def blocks(content: Any) -> list[JSON]:
    """Content as a list of blocks: a bare string becomes one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def merge_turns(messages: list[JSON]) -> list[JSON]:
    """Merge consecutive same-role messages into one turn, as the API does."""
    merged: list[JSON] = []
    for m in messages:
        content = blocks(m.get("content", []))
        if merged and merged[-1]["role"] == m.get("role"):
            merged[-1]["content"].extend(content)
        else:
            merged.append({"role": m.get("role"), "content": content})
    return merged


def normalize(body: JSON) -> JSON:
    """The request as the API reads it: merged turns, string content as text blocks,
    and string ``tool_result`` content as a list of text blocks."""
    out = dict(body)
    turns = merge_turns(list(body.get("messages") or []))
    for turn in turns:
        fixed = []
        for b in turn["content"]:
            if b.get("type") == "tool_result" and isinstance(b.get("content"), str):
                b = dict(b, content=blocks(b["content"]))
            fixed.append(b)
        turn["content"] = fixed
    out["messages"] = turns
    return out


def _ids(content: list[JSON], kind: str, key: str) -> list[str]:
    return [b.get(key) for b in content if isinstance(b, dict) and b.get("type") == kind]


def check(body: JSON) -> None:
    """Raise :class:`InvalidRequest` with the API's message if ``body`` would be rejected."""
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise InvalidRequest(f"{name}: Field required")
    raw = body["messages"]
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("messages: at least one message is required")
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            raise InvalidRequest(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        content = m.get("content")
        if not isinstance(content, (str, list)):
            raise InvalidRequest(f"messages.{i}.content: Input should be a valid list")
        last_assistant = i == len(raw) - 1 and m["role"] == "assistant"
        if not content and not last_assistant:
            raise InvalidRequest(
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        for j, b in enumerate(blocks(content)):
            if not isinstance(b, dict) or "type" not in b:
                raise InvalidRequest(f"messages.{i}.content.{j}: Input should be a valid block")
            if b["type"] == "tool_result" and not isinstance(b.get("content", ""), (str, list)):
                raise InvalidRequest(
                    f"messages.{i}.content.{j}.tool_result.content: Input should be a valid "
                    "string or a list of content blocks"
                )
    turns = merge_turns(raw)
    if turns[0]["role"] != "user":
        raise InvalidRequest("messages: first message must use the \"user\" role")
    for t, turn in enumerate(turns):
        if turn["role"] != "user":
            continue
        results = _ids(turn["content"], "tool_result", "tool_use_id")
        previous = turns[t - 1]["content"] if t > 0 else []
        asked = _ids(previous, "tool_use", "id")
        if results and not asked:
            raise InvalidRequest(
                f"messages.{t}: tool_result block(s) provided when previous message does "
                "not contain any tool_use blocks"
            )
        unexpected = [r for r in results if r not in asked]
        if unexpected:
            raise InvalidRequest(
                f"messages.{t}.content: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {', '.join(unexpected)}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
    for t, turn in enumerate(turns):
        if turn["role"] != "assistant":
            continue
        asked = _ids(turn["content"], "tool_use", "id")
        if not asked:
            continue
        answered = _ids(turns[t + 1]["content"], "tool_result", "tool_use_id") if t + 1 < len(
            turns) else []
        missing = [a for a in asked if a not in answered]
        if missing:
            raise InvalidRequest(
                f"messages.{t}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
