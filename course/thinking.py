"""Thinking blocks as the API sends them and checks them when they come back.

Which requests think: on ``claude-opus-5`` and ``claude-sonnet-5`` a request with no
``thinking`` field runs with adaptive thinking, and ``thinking.display`` defaults to
``"omitted"``: a reply then begins with ``thinking`` blocks whose ``thinking`` text is empty
and which carry a ``signature``. Thinking tokens are billed as output tokens and count
against ``max_tokens``. :func:`display_for` decides, :func:`make_block` builds a block.

What comes back: in a tool loop the assistant turn sent back must carry its thinking blocks
unchanged, or the API answers 400. The fake remembers, per :class:`~course.fakes.FakeAPI`,
the thinking blocks of every reply that asked for a tool (:func:`remember`), and
:func:`check` rejects the latest assistant turn when it dropped, edited or repeated them.
A signature made here (:func:`sign`) binds the block's visible text, so an edited block
fails verification in any turn.

Sources, as the ``search`` tool's docs corpus returned them:

* models/opus-5/migration-guide, "Breaking changes" 1 (read in the zh-CN copy,
  https://platform.claude.com/docs/zh-CN/models/opus-5/migration-guide): thinking on by
  default on Opus 5; ``max_tokens`` caps thinking plus text; thinking tokens billed as output
  even when the text is not returned; ``thinking: {type: "disabled"}`` keeps the old
  behaviour; replies may begin with one or more thinking blocks, empty text, a signature.
* build-with-claude/thinking-troubleshooting, the per-model table
  (https://platform.claude.com/docs/zh-CN/build-with-claude/thinking-troubleshooting):
  Opus 5 and Sonnet 5 adaptive, on by default; Haiku 4.5 extended only, off by default.
* build-with-claude/thinking-tool-workflows
  (https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows): pass
  thinking blocks back complete and unmodified; echo the assistant message exactly as
  received, or a 400; where forced tool use is accepted, thinking is skipped (ja copy).
* The SDK: ``anthropic/types/thinking_config_adaptive_param.py`` (``display`` is
  ``"summarized"`` or ``"omitted"``, its default depends on the model) and
  ``anthropic/types/output_tokens_details.py`` (``thinking_tokens``, part of
  ``output_tokens``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import weakref
from dataclasses import dataclass
from typing import Any

from . import tokens
from .validation import InvalidRequest, merge_turns
from .wire import JSON


@dataclass(frozen=True)
class ThinkingDefaults:
    """What a model does with a request that has no ``thinking`` field."""

    on_by_default: bool
    display: str          # the default of ``thinking.display`` when it thinks


#: Per model (sources in the module docstring). Sonnet 5's default ``display`` is not stated
#: on the pages found; the fake uses Opus 5's, ``"omitted"``.
DEFAULTS: dict[str, ThinkingDefaults] = {
    "claude-opus-5": ThinkingDefaults(True, "omitted"),
    "claude-sonnet-5": ThinkingDefaults(True, "omitted"),
    "claude-haiku-4-5": ThinkingDefaults(False, "summarized"),
}
_OFF = ThinkingDefaults(False, "summarized")

#: The reasoning the fake "does" before each reply. With ``display: "summarized"`` it is the
#: block's text; with ``"omitted"`` only its token count shows, in ``usage``.
REASONING = "Read the request and the results so far, then decide the next step."

_KEY = b"course-fake-thinking-v1"      # the fake's signing key: it verifies its own blocks
_VERSION = 1
_NONCE = 9
_MAC = 18


def display_for(body: JSON) -> str | None:
    """How the fake thinks for this request: ``"omitted"``, ``"summarized"``, or ``None``
    when it does not think (thinking disabled, off by default, or forced tool use)."""
    facts = DEFAULTS.get(str(body.get("model", "")), _OFF)
    config = body.get("thinking")
    if config is None:
        if not facts.on_by_default:
            return None
        display = facts.display
    elif isinstance(config, dict) and config.get("type") in ("adaptive", "enabled"):
        display = str(config.get("display") or facts.display)
    else:
        return None                      # {"type": "disabled"} and anything else
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        return None                      # thinking-tool-workflows: forced tool use skips it
    return display


def sign(visible: str, reasoning_tokens: int, salt: str) -> str:
    """A signature for a block showing ``visible``, billed ``reasoning_tokens``.

    40 base64 characters: a version byte, the token count, a nonce from ``salt``, and an
    HMAC over those and the visible text, so any edit to the text fails :func:`verify`.
    """
    raw = (bytes([_VERSION]) + min(reasoning_tokens, 0xFFFF).to_bytes(2, "big")
           + hashlib.sha256(salt.encode()).digest()[:_NONCE])
    mac = hmac.new(_KEY, raw + visible.encode(), hashlib.sha256).digest()[:_MAC]
    return base64.b64encode(raw + mac).decode()


def _unpack(signature: Any) -> tuple[bytes, bytes] | None:
    if not isinstance(signature, str):
        return None
    try:
        data = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(data) != 3 + _NONCE + _MAC or data[0] != _VERSION:
        return None
    return data[:-_MAC], data[-_MAC:]


def verify(block: JSON) -> bool | None:
    """``True`` if this fake signed the block as it is, ``False`` if it signed it and the
    block was edited, ``None`` if the signature is not one of this fake's (a recorded live
    signature, which the fake cannot check and therefore accepts)."""
    parts = _unpack(block.get("signature"))
    if parts is None:
        return None
    raw, mac = parts
    want = hmac.new(_KEY, raw + str(block.get("thinking", "")).encode(),
                    hashlib.sha256).digest()[:_MAC]
    return hmac.compare_digest(mac, want)


def reasoning_tokens(block: JSON) -> int:
    """Output tokens a thinking block was billed: the count its signature carries, or the
    tokens of its visible text for a block this fake did not sign."""
    parts = _unpack(block.get("signature"))
    if parts is not None:
        return int.from_bytes(parts[0][1:3], "big")
    shown = str(block.get("thinking", ""))
    return tokens.count(shown) if shown else 0


def make_block(display: str, salt: str, reasoning: str = REASONING) -> JSON:
    """One thinking block as the API returns it under ``display``."""
    visible = reasoning if display == "summarized" else ""
    return {"type": "thinking", "thinking": visible,
            "signature": sign(visible, tokens.count(reasoning), salt)}


def is_thinking(block: Any) -> bool:
    """Whether ``block`` is a ``thinking`` or ``redacted_thinking`` block."""
    return isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")


# -- the round trip --------------------------------------------------------------------------

_sent: weakref.WeakKeyDictionary[Any, dict[str, tuple[str, list[JSON]]]] = (
    weakref.WeakKeyDictionary())


def _essence(block: JSON) -> JSON:
    """The fields of a thinking block the API compares (not cache_control or the like)."""
    keep = ("type", "thinking", "signature", "data")
    return {k: block.get(k) for k in keep if k in block}


def remember(api: Any, msg: JSON) -> None:
    """Note the thinking blocks of a reply that asks for tools, under each tool_use id."""
    content = msg.get("content") or []
    shown = [_essence(b) for b in content if is_thinking(b)]
    if not shown:
        return
    book = _sent.setdefault(api, {})
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id"):
            book[str(b["id"])] = (str(msg.get("id", "")), shown)


# The API's wording, as recorded in anthropics/claude-cookbooks,
# extended_thinking/extended_thinking_with_tool_use.ipynb (the 400 in its output).
DROPPED = (
    "messages.{turn}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")
# The API's wording, as quoted in microsoft/vscode#318076 and cortexkit/magic-context#8.
MODIFIED = (
    "messages.{turn}.content.{block}: `thinking` or `redacted_thinking` blocks in the latest "
    "assistant message cannot be modified. These blocks must remain as they were in the "
    "original response.")
# The first sentence of the API's signature error, as quoted in the preserved-thinking
# fix pages (build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation).
BAD_SIGNATURE = "messages.{turn}.content.{block}: Invalid `signature` in `thinking` block."


def check(body: JSON, api: Any) -> None:
    """Raise :class:`~course.validation.InvalidRequest` if the request breaks the round trip.

    * the latest assistant turn, when its tool calls are being answered and the fake sent
      thinking blocks with those calls: they must all be there, first, unchanged and once;
    * any other thinking block this fake signed whose text was edited: invalid signature.

    Earlier assistant turns may drop their thinking blocks (the API allows omitting thinking
    from previous turns), and a turn the fake did not send is compared only by signature.
    """
    turns = merge_turns([m for m in body.get("messages") or [] if isinstance(m, dict)])
    latest = max((t for t, turn in enumerate(turns) if turn["role"] == "assistant"),
                 default=None)
    compared = latest is not None and _check_latest(turns, latest, _sent.get(api) or {})
    for t, turn in enumerate(turns):
        if turn["role"] != "assistant" or (compared and t == latest):
            continue
        for j, block in enumerate(turn["content"]):
            if isinstance(block, dict) and block.get("type") == "thinking":
                if verify(block) is False:
                    raise InvalidRequest(BAD_SIGNATURE.format(turn=t, block=j))


def _check_latest(turns: list[JSON], latest: int, book: dict[str, tuple[str, list[JSON]]]
                  ) -> bool:
    """Compare the latest assistant turn with what the fake sent; ``False`` when there is
    nothing to compare (no tool call of this fake's being answered)."""
    content = [b for b in turns[latest]["content"] if isinstance(b, dict)]
    expected: list[JSON] = []
    seen_replies: set[str] = set()
    for b in content:
        if b.get("type") == "tool_use" and str(b.get("id")) in book:
            reply_id, shown = book[str(b.get("id"))]
            if reply_id not in seen_replies:
                seen_replies.add(reply_id)
                expected += shown
    answered = latest + 1 < len(turns) and any(
        isinstance(b, dict) and b.get("type") == "tool_result"
        for b in turns[latest + 1]["content"])
    if not expected or not answered:
        return False
    if not is_thinking(content[0]):
        raise InvalidRequest(DROPPED.format(turn=latest, found=content[0].get("type")))
    got = [(j, _essence(b)) for j, b in enumerate(content) if is_thinking(b)]
    for k, (j, block) in enumerate(got):
        if k >= len(expected) or block != expected[k]:
            raise InvalidRequest(MODIFIED.format(turn=latest, block=j))
    if len(got) < len(expected):
        raise InvalidRequest(MODIFIED.format(turn=latest, block=got[-1][0]))
    return True
