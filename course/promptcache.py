"""A prompt cache for the fake API that bills the way the Messages API does.

Wrap any responder in :class:`PromptCache` and every successful reply gets its input-side
usage computed the way the live API computes it:

    cache = PromptCache(Scripted(answer), clock=clock)
    api = FakeAPI(cache)

* The request is rendered in the API's order: ``tools``, then ``system``, then ``messages``,
  block by block. A block carrying ``cache_control`` is a breakpoint; the prefix up to and
  including it is what can be cached. A top-level ``cache_control`` (automatic caching) puts
  one more breakpoint on the last block that can carry one.
* Entries are keyed by the model and the exact bytes of the prefix (``cache_control`` itself
  excluded), so any changed byte, a reordered dict, or another model is a different entry.
  The messages part of a key also carries ``tool_choice``, the thinking setting, the effort
  and the number of images, because the API invalidates the messages cache when they change.
* An entry is written only at a breakpoint. A breakpoint reads the newest entry found among
  the 20 block boundaries ending at it (the lookback); the longest prefix read is **read**,
  everything from there to the last breakpoint is **written**, the rest is uncached input.
  So ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` is the whole
  prompt, and ``usage.cache_creation`` splits the write into its 5-minute and 1-hour parts.
* A prefix shorter than the model's minimum cacheable length is never cached, and nothing
  says so: the call simply reports ``cache_creation_input_tokens: 0``.
* An entry lives ``ttl`` seconds on the injected clock (5 minutes, or 1 hour for
  ``cache_control: {"type": "ephemeral", "ttl": "1h"}``) and each read renews it.
* The request errors the API answers with a 400 come back as a 400 before the model runs:
  a ``cache_control`` that is not ``{"type": "ephemeral", "ttl": "5m" | "1h"}``, more than 4
  breakpoints (nested ones included), a 1-hour breakpoint after a 5-minute one, an automatic
  breakpoint whose TTL disagrees with an explicit one on the same block. Those rules live in
  :func:`course.validation.check_cache_control`, so the plain ``FakeAPI`` enforces them too.

Not modelled (the fake is permissive there): concurrent requests (live, an entry is readable
only once the response that writes it has begun), cache writes and reads at a
``cache_control`` nested inside a ``tool_result``'s content (it counts toward the 4 and the
TTL order, but the cache neither writes nor reads there), the web search, citations and
speed toggles, the stripping of earlier thinking blocks on models that strip them, and
per-workspace isolation.

The counts land in ``usage`` exactly where the API puts them, so the SDK parses them into
``Usage.cache_creation_input_tokens``, ``Usage.cache_read_input_tokens`` and
``Usage.cache_creation``; on a streamed call they arrive in ``message_start``, as live.
Token counts come from :mod:`course.tokens`.

Sources (the ``search`` tool's docs corpus and the pinned SDK, anthropic 2.10.0):
``PROMPT_CACHING`` below is the docs page every rule cites by section.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import tokens
from .clock import FakeClock
from .validation import DEFAULT_CACHE_TTL, check_cache_control
from .validation import InvalidCacheControl as InvalidCacheControl  # re-exported
from .validation import TooManyBreakpoints as TooManyBreakpoints  # re-exported
from .wire import Reply

JSON = dict[str, Any]
Responder = Callable[[JSON], "Reply | JSON"]

PROMPT_CACHING = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"

#: Minimum cacheable prefix, in tokens, per model (unknown models get ``DEFAULT_MIN_TOKENS``).
#: source: PROMPT_CACHING, "Cache limitations": 512 tokens for Claude Opus 5; 1,024 for
#: Claude Sonnet 5; 4,096 for Claude Haiku 4.5. Also models/opus-5/overview, "Good to know":
#: "The minimum cacheable prompt length is 512 tokens."
MIN_TOKENS: dict[str, int] = {
    "claude-opus-5": 512,
    "claude-sonnet-5": 1024,
    "claude-haiku-4-5": 4096,
    "claude-haiku-4-5-20251001": 4096,   # the dated id of Haiku 4.5
}
DEFAULT_MIN_TOKENS = 1024   # the docs list no other model the course uses; ours
#: source: SDK types/cache_control_ephemeral_param.py:11, ``ttl: Literal["5m", "1h"]``,
#: "Defaults to `5m`"; PROMPT_CACHING: "By default, the cache has a 5-minute lifetime".
TTL_SECONDS: dict[str, float] = {"5m": 300.0, "1h": 3600.0}
DEFAULT_TTL = DEFAULT_CACHE_TTL
#: MAX_BREAKPOINTS (4) and the 400s over ``cache_control`` live in :mod:`course.validation`
#: (``check_cache_control``), which every fake runs; this module bills what it allows.
#: source: PROMPT_CACHING: "The lookback window is 20 blocks. The system checks at most 20
#: positions per breakpoint, counting the breakpoint itself as the first."
LOOKBACK_BLOCKS = 20
#: source: models/opus-5/overview and models/sonnet-5/overview, "Default effort: high";
#: PROMPT_CACHING, cache invalidation: "Setting effort explicitly to the model's default is
#: equivalent to omitting it and does not invalidate".
DEFAULT_EFFORT: dict[str, str] = {"claude-opus-5": "high", "claude-sonnet-5": "high"}
#: Blocks that cannot be a breakpoint: the automatic one walks back past them.
#: source: PROMPT_CACHING, caching with thinking blocks: thinking blocks cannot be marked
#: with cache_control; "If the last block is not eligible as an automatic cache breakpoint
#: target, the system silently walks backwards to find the nearest eligible block".
NOT_ELIGIBLE = frozenset({"thinking", "redacted_thinking"})

@dataclass(frozen=True)
class Segment:
    """One rendered block of a request: where it sits, its bytes and its token count."""

    where: str          # e.g. "tools[0]", "system[1]", "messages[2].content[0]"
    data: bytes         # what the cache key sees (cache_control removed, key order kept)
    tokens: int
    ttl: float | None   # set when the block carries cache_control (a breakpoint)
    path: str = ""      # the API's name for the block in a 400, e.g. "messages.2.content.0"
    section: str = ""   # "tools", "system" or "messages"
    ttl_name: str | None = None   # "5m" or "1h" when the block is a breakpoint
    eligible: bool = True         # may carry a breakpoint (thinking blocks may not)


@dataclass(frozen=True)
class Billing:
    """The input side of one call's usage, as the cache decided it."""

    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


@dataclass(frozen=True)
class Breakpoint:
    """One breakpoint of a request: which rendered block, its TTL, and its name in a 400."""

    index: int          # into render(body)
    ttl_name: str
    path: str           # "<block path>.cache_control", or "cache_control" for the automatic one


def _strip(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _ttl_name(block: Any) -> str | None:
    if not isinstance(block, dict) or block.get("cache_control") is None:
        return None
    control = block["cache_control"]
    ttl = control.get("ttl", DEFAULT_TTL) if isinstance(control, dict) else DEFAULT_TTL
    return ttl if ttl in TTL_SECONDS else DEFAULT_TTL


def _block_tokens(block: Any) -> int:
    if isinstance(block, str):
        return tokens.count(block)
    if isinstance(block, dict) and block.get("type") == "text":
        return tokens.count(block.get("text", ""))
    if isinstance(block, dict) and block.get("type") in NOT_ELIGIBLE:
        # as course.tokens.request_tokens counts them: the visible text only, no signature
        return tokens.count(block["thinking"]) if block.get("thinking") else 0
    # images and documents as course.tokens bills them (by size, by text), not as JSON
    return tokens.block_tokens(block)


def render(body: JSON) -> list[Segment]:
    """The request as the cache sees it: tools, then system, then messages, block by block."""
    out: list[Segment] = []

    def add(where: str, path: str, section: str, block: Any, role: str | None = None) -> None:
        shown = _strip(block)
        payload = shown if role is None else {"role": role, "block": shown}
        data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        name = _ttl_name(block)
        eligible = not (isinstance(block, dict) and block.get("type") in NOT_ELIGIBLE)
        out.append(Segment(where, data, _block_tokens(shown),
                           TTL_SECONDS[name] if name else None, path, section, name, eligible))

    for i, tool in enumerate(body.get("tools") or []):
        add(f"tools[{i}]", f"tools.{i}", "tools", tool)
    system = body.get("system")
    if isinstance(system, str) and system:
        add("system", "system", "system", system)
    elif isinstance(system, list):
        for i, block in enumerate(system):
            add(f"system[{i}]", f"system.{i}", "system", block)
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content")
        if isinstance(content, str):
            add(f"messages[{i}]", f"messages.{i}.content", "messages", content, msg.get("role"))
        else:
            for j, block in enumerate(content or []):
                add(f"messages[{i}].content[{j}]", f"messages.{i}.content.{j}", "messages",
                    block, msg.get("role"))
    return out


def _images(value: Any) -> int:
    if isinstance(value, dict):
        return int(value.get("type") == "image") + sum(_images(v) for v in value.values())
    if isinstance(value, list):
        return sum(_images(v) for v in value)
    return 0


def _messages_context(body: JSON) -> bytes:
    """What the messages cache depends on besides the blocks themselves.

    source: PROMPT_CACHING, the table of what invalidates the cache: tool choice, images
    ("Adding/removing images anywhere in the prompt affects message blocks") and thinking
    parameters each keep the tools and system caches valid and invalidate the messages
    cache; so does output_config.effort, unless set to the model's default. Whether an
    explicit thinking setting equal to the model's default counts as a change, the docs do
    not say: the fake compares the field as sent.
    """
    model = str(body.get("model", ""))
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and effort == DEFAULT_EFFORT.get(model):
        effort = None
    context = {"tool_choice": body.get("tool_choice"), "thinking": body.get("thinking"),
               "effort": effort, "images": _images(body.get("messages") or [])}
    return json.dumps(context, sort_keys=True, separators=(",", ":")).encode()


def _keys(model: str, segments: list[Segment], context: bytes) -> list[tuple[int, str]]:
    """(tokens up to and including the block, cache key of that prefix) for every block."""
    digest = hashlib.sha256(model.encode() + b"\0")
    total, out, entered = 0, [], False
    for seg in segments:
        if seg.section == "messages" and not entered:
            digest.update(b"\0messages\0" + context)
            entered = True
        digest.update(len(seg.data).to_bytes(8, "big") + seg.data)
        total += seg.tokens
        out.append((total, digest.hexdigest()))
    return out


def breakpoints(body: JSON, segments: list[Segment] | None = None) -> list[Breakpoint]:
    """Every top-level breakpoint of the request in render order, automatic one included.

    Raises :class:`InvalidCacheControl` with the API's message for a request it refuses
    (:func:`course.validation.check_cache_control`, the one copy of those rules). Breakpoints
    nested in a tool_result's content count there toward the 4, but the cache here neither
    writes nor reads at them (not modelled).
    """
    check_cache_control(body)
    segments = render(body) if segments is None else segments
    marks = [Breakpoint(i, seg.ttl_name, f"{seg.path}.cache_control")
             for i, seg in enumerate(segments) if seg.ttl_name is not None and seg.eligible]
    auto = body.get("cache_control")
    if auto is not None:
        marks = _with_automatic(marks, segments, auto.get("ttl", DEFAULT_TTL))
    return marks


def _with_automatic(marks: list[Breakpoint], segments: list[Segment],
                    ttl: str) -> list[Breakpoint]:
    """Add the top-level ``cache_control``'s breakpoint on the last eligible block.

    source: PROMPT_CACHING, automatic caching: "applies the cache breakpoint to the last
    cacheable block"; edge cases: the same TTL on an explicit breakpoint there is a no-op, an
    ineligible last block is walked back from, none found means no caching (a different TTL
    there is a 400 of :func:`course.validation.check_cache_control`).
    """
    target = next((i for i in range(len(segments) - 1, -1, -1) if segments[i].eligible), None)
    if target is None:
        return marks
    if any(m.index == target for m in marks):
        return marks
    return sorted([*marks, Breakpoint(target, ttl, "cache_control")], key=lambda m: m.index)


class PromptCache:
    """A responder wrapper: the inner responder writes the reply, this bills its input.

    ``clock`` is any callable returning seconds (a :class:`course.clock.FakeClock` by
    default, so nothing expires until you advance it). ``min_tokens`` overrides the
    per-model minimum for every model. ``log`` keeps one :class:`Billing` per billed call.
    """

    def __init__(self, responder: Responder, *, clock: Callable[[], float] | None = None,
                 min_tokens: int | None = None) -> None:
        self.responder = responder
        self.clock = clock if clock is not None else FakeClock()
        self.min_tokens = min_tokens
        self.entries: dict[str, tuple[float, float]] = {}   # cache key -> (expiry, ttl seconds)
        self.log: list[Billing] = []

    def minimum(self, model: str) -> int:
        """The shortest prefix, in tokens, this cache will store for ``model``."""
        if self.min_tokens is not None:
            return self.min_tokens
        return MIN_TOKENS.get(model, DEFAULT_MIN_TOKENS)

    def _alive(self, key: str, now: float) -> bool:
        entry = self.entries.get(key)
        return entry is not None and entry[0] > now

    def bill(self, body: JSON) -> Billing:
        """Look the request up, store what it writes, and return its input-side counts.

        Raises :class:`InvalidCacheControl` for a request the API refuses.
        """
        model = str(body.get("model", ""))
        segments = render(body)
        marks = breakpoints(body, segments)
        keys = _keys(model, segments, _messages_context(body))
        total = keys[-1][0] if keys else 0
        now = self.clock()
        hit = -1
        for mark in marks:
            # source: PROMPT_CACHING, lookback: "If the system finds no matching entry in that
            # window, checking stops"; it "only finds entries that earlier requests wrote at
            # their own breakpoints".
            for j in range(mark.index, max(mark.index - LOOKBACK_BLOCKS, -1), -1):
                if self._alive(keys[j][1], now):
                    hit = max(hit, j)
                    break
        read = keys[hit][0] if hit >= 0 else 0
        if hit >= 0:
            ttl = self.entries[keys[hit][1]][1]
            self.entries[keys[hit][1]] = (now + ttl, ttl)   # a read renews the entry's lifetime
        # source: PROMPT_CACHING, mixing TTLs: A = the highest cache hit, B = the highest 1-hour
        # breakpoint after A, C = the last breakpoint; A is read, B - A is billed as a 1-hour
        # write and C - B as a 5-minute write. Breakpoints below the minimum write nothing
        # (source: "Cache limitations": shorter prompts "will be processed without caching").
        written_1h = written_to = read
        for mark in marks:
            upto, key = keys[mark.index]
            if mark.index <= hit or upto < self.minimum(model):
                continue
            seconds = TTL_SECONDS[mark.ttl_name]
            self.entries[key] = (now + seconds, seconds)
            written_to = max(written_to, upto)
            if mark.ttl_name == "1h":
                written_1h = max(written_1h, upto)
        w1h, w5m = written_1h - read, written_to - written_1h
        billing = Billing(total - written_to, w1h + w5m, read, w5m, w1h)
        self.log.append(billing)
        return billing

    def __call__(self, body: JSON) -> Reply | JSON:
        try:
            breakpoints(body)
        except InvalidCacheControl as exc:
            return Reply.error(400, str(exc))
        reply = self.responder(body)
        as_reply = reply if isinstance(reply, Reply) else Reply.ok(reply)
        msg = as_reply.body
        if as_reply.status != 200 or not isinstance(msg, dict) or msg.get("type") != "message":
            return reply                            # an error bills nothing and caches nothing
        billing = self.bill(body)
        given = dict(msg.get("usage") or {})
        out_tokens = given.get("output_tokens")
        if out_tokens is None:
            out_tokens = tokens.content_tokens(msg["content"])
        # source: PROMPT_CACHING, tracking cache performance: cache_creation breaks the write
        # into ephemeral_5m_input_tokens and ephemeral_1h_input_tokens (SDK
        # types/cache_creation.py); cache_creation_input_tokens is their sum.
        usage = dict(given, input_tokens=billing.input_tokens, output_tokens=out_tokens,
                     cache_creation_input_tokens=billing.cache_creation_input_tokens,
                     cache_read_input_tokens=billing.cache_read_input_tokens,
                     cache_creation={
                         "ephemeral_5m_input_tokens": billing.ephemeral_5m_input_tokens,
                         "ephemeral_1h_input_tokens": billing.ephemeral_1h_input_tokens})
        return Reply(as_reply.status, dict(as_reply.headers), body=dict(msg, usage=usage))
