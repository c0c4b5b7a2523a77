"""Reject a Messages request the way the live API does, with the API's own status and wording.

The checks cover what an agent loop gets wrong: a malformed body or block, an unknown model,
``max_tokens`` out of range, sampling parameters or a prefill the model no longer takes, bad
tool definitions and ``tool_choice``, empty text, the same ``tool_use`` id twice, text before
the tool results, a ``tool_result`` that answers no ``tool_use`` of the previous assistant
turn, and ``tool_use`` ids left unanswered. Like the API, consecutive turns of the same role
are merged before the conversation checks, which is why splitting tool results over several
user messages is *accepted* (and silently teaches the model to call tools one at a time).

Every rule names its source next to it. ``(wording ours)`` marks a message the sources do
not quote; it is written in the API's style (a dotted field path, then the problem). A rule
the sources state but the fake leaves out is listed at the end of this docstring.

Source keys used below:

* ``docs:tool-calls`` -- https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
  ("Tool result blocks must immediately follow their corresponding tool use blocks"; "the
  tool_result blocks must come FIRST in the content array. Any text must come AFTER all tool
  results", with that very example marked "this will cause a 400 error" and the error named
  "tool_use ids were found without tool_result blocks immediately after"; "Example of empty
  tool result" with no ``content``).
* ``docs:errors`` -- https://platform.claude.com/docs/en/api/errors (404 ``not_found_error``
  "The requested resource was not found"; 400 ``invalid_request_error`` for "the format or
  content of your request").
* ``sdk:create`` -- anthropic 2.10.0, ``anthropic/types/message_create_params.py``: lines
  35-47 (``max_tokens``: "Set to ``0`` to populate the prompt cache without generating a
  response"; "Different models have different maximum values"), lines 64-69 ("On models
  that don't support prefill, creating a message that ends with a partial ``assistant``
  response returns a 400 error"), lines 233-240 (tool ``name``, ``input_schema`` as a JSON
  schema); ``anthropic/types/tool_param.py`` lines 17-20 (``input_schema.type`` is
  ``Literal["object"]``); ``anthropic/types/tool_choice_param.py`` (``auto``, ``any``,
  ``tool`` with a required ``name``, ``none``).
* ``models`` -- :mod:`course.models`, which cites the model pages and migration guide for
  each model's output ceiling, prefill and sampling rules.
* ``live`` -- the message the live API sends, as quoted verbatim in public reports of it:
  "messages.1.content.1: `tool_use` ids must be unique" (github.com/anthropics/claude-code
  issues 21317, 28515); "messages: text content blocks must be non-empty" and "...must
  contain non-whitespace text" (claude-code issues 23440, 23352); "max_tokens: 128001 >
  128000, which is the maximum allowed number of output tokens for claude-opus-4-6"
  (claude-code issue 23923); 404 "model: opus-4" (claude-code issue 6169); "This model does
  not support assistant message prefill. The conversation must end with a user message."
  (jobrunr/JavaClaw issue 36); "`temperature` is deprecated for this model." (Comfy-Org/ComfyUI
  issue 13923, Opus 4.7); "tools.19.custom.name: String should match pattern
  '^[a-zA-Z0-9_-]{1,128}$'" (live 400s of 2026 quoted in github/copilot-cli issue 2581);
  "messages.52.content.0.tool_result: content cannot be empty if `is_error` is true"
  (bytedance/trae-agent issue 230).

* ``docs:caching`` -- https://platform.claude.com/docs/en/build-with-claude/prompt-caching
  ("You can define up to 4 cache breakpoints"; automatic caching "uses one of the available
  breakpoint slots"; mixing TTLs: "a 1-hour cache entry must appear before any 5-minute cache
  entries"; "Thinking blocks cannot be explicitly marked with cache_control"); SDK
  ``types/cache_control_ephemeral_param.py`` lines 9-11 (``type: Required[Literal[
  "ephemeral"]]``, ``ttl: Literal["5m", "1h"]``). The messages are the API's, as quoted in
  public code that logs them (listed beside each).
* ``docs:extended`` -- https://platform.claude.com/docs/en/build-with-claude/extended-thinking
  ("Feature compatibility": "Thinking isn't compatible with temperature or top_k
  modifications as well as forced tool use", quoted in anthropics/claude-code issue 19414;
  thinking with tools: tool_choice ``any`` or ``tool`` "will result in an error", quoted in
  run-llama/llama_index issue 19641, with the live message "Thinking may not be enabled when
  tool_choice forces tool use"); SDK ``types/thinking_config_enabled_param.py`` lines 10-16
  (``budget_tokens`` "Must be ≥1024 and less than `max_tokens`").
* ``docs:windows`` -- the context window of each model (:mod:`course.models`); the live 400
  "prompt is too long: 208310 tokens > 200000 maximum" (anthropics/claude-code issue 12186).
* ``docs:schema`` -- SDK ``types/tool_param.py`` (``input_schema``: "JSON schema for this
  tool's input"); the live 400 "tools.N.custom.input_schema: JSON schema is invalid. It must
  match JSON Schema draft 2020-12" (quoted in public reports, e.g. MCP debugging notes and
  client changelogs). The fake checks the schema with the ``jsonschema`` package's draft
  2020-12 metaschema.
* ``docs:count`` -- https://platform.claude.com/docs/en/api/http/messages/count_tokens and SDK
  ``types/message_count_tokens_params.py`` (the Messages body without ``max_tokens``).

Image and document blocks are checked by :mod:`course.media`, whose docstring names its
sources and what it refuses because the fake leaves it out (URLs, file ids, PDFs).

Left out on purpose (documented, but no loop in this course can reach it, or the fake cannot
know it): the 100,000-message limit (``sdk:create`` line 119), server-tool definitions (only
their names are checked for uniqueness), and the thinking round trip, which
:mod:`course.thinking` checks.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

import jsonschema

from . import media, models, tokens
from .wire import JSON


class InvalidRequest(ValueError):
    """A request the API would answer with 400 ``invalid_request_error``."""

    status: int = 400
    error_type: str = "invalid_request_error"


class ModelNotFound(InvalidRequest):
    """A request for a model the API does not serve: 404 ``not_found_error``."""

    status = 404
    error_type = "not_found_error"


class InvalidCacheControl(InvalidRequest):
    """A request the API refuses with a 400 over its ``cache_control`` fields."""


class TooManyBreakpoints(InvalidCacheControl):
    """More ``cache_control`` blocks than the API accepts in one request."""


# source: live ("tools.N.custom.name: String should match pattern ...").
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
TOOL_CHOICE_TYPES = ("auto", "any", "tool", "none")
# source: docs:schema (draft 2020-12; live wording, word for word).
SCHEMA_VALIDATOR = jsonschema.Draft202012Validator
INVALID_SCHEMA = "JSON schema is invalid. It must match JSON Schema draft 2020-12"
#: The longest schema, as JSON text, whose verdict is kept (:func:`_valid_schema`); with at
#: most 512 kept, they hold at most 8 MiB.
MAX_KEPT_SCHEMA = 16 * 1024
SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
PREFILL_REJECTED = ("This model does not support assistant message prefill. The conversation "
                    "must end with a user message.")


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


def check(body: Any, *, counting: bool = False) -> None:
    """Raise :class:`InvalidRequest` (or :class:`ModelNotFound`) with the API's status and
    message if ``body`` would be rejected. Any JSON value is safe to pass: a malformed one is
    a 400 here, never another exception.

    ``counting`` checks a ``POST /v1/messages/count_tokens`` body: the same rules less those
    of ``max_tokens``, which that endpoint does not take (docs:count), and less the context
    window, which is what a loop counts tokens to find out about (the docs do not say that
    the count endpoint refuses a prompt over the window: the fake counts it)."""
    if not isinstance(body, dict):
        # source: docs:errors (400 for the format of the request); wording ours.
        raise InvalidRequest("Input should be a valid dictionary or object to extract fields "
                             "from")
    _check_fields(body, counting)
    _check_shapes(body)
    facts = models.get(body["model"])
    _raise_if(media.count_error(body, facts.context_window if facts else None))
    _check_model(body, counting)
    _check_tools(body)
    check_cache_control(body)
    # Mid-conversation system messages take no part in the turn structure (source:
    # github:anthropics/skills, skills/claude-api/shared/model-migration.md, "New API
    # feature: mid-session system prompts", Opus 4.8 on; SDK types/system_message_param.py).
    # The docs do not say where they may not go, so the fake accepts them anywhere.
    _check_conversation(merge_turns([m for m in body["messages"] if m["role"] != "system"]))


# -- the body's own fields --------------------------------------------------------------


def _check_fields(body: JSON, counting: bool = False) -> None:
    # source: sdk:create (model, max_tokens, messages Required); docs:count (no max_tokens).
    for name in ("model", "messages") if counting else ("model", "max_tokens", "messages"):
        if name not in body:
            raise InvalidRequest(f"{name}: Field required")
    if not isinstance(body["model"], str):
        raise InvalidRequest("model: Input should be a valid string")  # wording ours
    raw = body["messages"]
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("messages: at least one message is required")
    if counting and "max_tokens" not in body:
        return
    limit = body["max_tokens"]
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidRequest("max_tokens: Input should be a valid integer")  # wording ours
    if limit < 0:
        # source: sdk:create lines 35-47 (0 is allowed, to pre-warm the cache); wording ours.
        raise InvalidRequest("max_tokens: Input should be greater than or equal to 0")


def _empty_text(value: str) -> str | None:
    """The API's complaint about a text block's text, or ``None`` when it has content."""
    # source: live (both messages, word for word).
    if value == "":
        return "messages: text content blocks must be non-empty"
    if not value.strip():
        return "messages: text content blocks must contain non-whitespace text"
    return None


def _check_text_block(b: JSON, where: str) -> None:
    value = b.get("text")
    if not isinstance(value, str):
        raise InvalidRequest(f"{where}.text: Field required" if "text" not in b
                             else f"{where}.text: Input should be a valid string")
    problem = _empty_text(value)
    if problem:
        raise InvalidRequest(problem)


def _check_shapes(body: JSON) -> None:
    """Every message and block well formed, so the later checks can trust the shapes."""
    raw = body["messages"]
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant", "system"):
            raise InvalidRequest(f"messages.{i}.role: Input should be 'user', 'assistant' or "
                                 "'system'")
        content = m.get("content")
        if not isinstance(content, (str, list)):
            raise InvalidRequest(f"messages.{i}.content: Input should be a valid list")
        if m["role"] == "system" and isinstance(content, list) and any(
                not isinstance(b, dict) or b.get("type") != "text" for b in content):
            # source: SDK types/system_message_param.py (content: a string or text blocks).
            raise InvalidRequest(f"messages.{i}.content: a system message holds text blocks "
                                 "only")
        last_assistant = i == len(raw) - 1 and m["role"] == "assistant"
        if not content and not last_assistant:
            raise InvalidRequest(
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        if isinstance(content, str):
            problem = _empty_text(content) if content else None
            if problem:
                raise InvalidRequest(problem)
            continue
        for j, b in enumerate(content):
            _check_block(b, f"messages.{i}.content.{j}")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        raise InvalidRequest("system: Input should be a valid string or a list of text "
                             "blocks")  # wording ours
    if isinstance(system, list):
        for k, b in enumerate(system):
            if not isinstance(b, dict) or b.get("type") != "text":
                raise InvalidRequest(f"system.{k}: Input should be a valid text block")
            _check_text_block(b, f"system.{k}")


def _raise_if(problem: str | None) -> None:
    if problem is not None:
        raise InvalidRequest(problem)


def _check_block(b: Any, where: str) -> None:
    if not isinstance(b, dict) or not isinstance(b.get("type"), str):
        raise InvalidRequest(f"{where}: Input should be a valid block")
    kind = b["type"]
    if kind == "text":
        _check_text_block(b, where)
    elif kind == "tool_use":
        # source: sdk (types/tool_use_block_param.py: id, input, name are Required);
        # wording ours, in the API's field-path style.
        for key in ("id", "name"):
            if not isinstance(b.get(key), str):
                raise InvalidRequest(f"{where}.tool_use.{key}: Field required")
        if not isinstance(b.get("input"), dict):
            raise InvalidRequest(f"{where}.tool_use.input: Input should be a valid dictionary")
    elif kind == "image":
        _raise_if(media.image_error(b, where))          # sources in course/media.py
    elif kind == "document":
        _raise_if(media.document_error(b, where))
        inner = b["source"].get("content")
        for k, nested in enumerate(inner if isinstance(inner, list) else []):
            _check_block(nested, f"{where}.document.source.content.{k}")
    elif kind == "tool_result":
        # source: sdk (types/tool_result_block_param.py: tool_use_id is Required); wording
        # ours. A missing id used to crash the fake with a TypeError the SDK reported as a
        # retryable APIConnectionError.
        if not isinstance(b.get("tool_use_id"), str):
            raise InvalidRequest(f"{where}.tool_result.tool_use_id: Field required")
        inner = b.get("content", "")
        if not isinstance(inner, (str, list)):
            raise InvalidRequest(
                f"{where}.tool_result.content: Input should be a valid string or a list of "
                "content blocks"
            )
        if isinstance(inner, list):
            for k, nested in enumerate(inner):
                _check_block(nested, f"{where}.tool_result.content.{k}")
        elif inner and not inner.strip():
            # A whitespace-only string is a text block of whitespace; "" is an empty result,
            # which docs:tool-calls shows as valid.
            raise InvalidRequest("messages: text content blocks must contain non-whitespace "
                                 "text")
        if b.get("is_error") is True and not inner:
            # source: live (word for word).
            raise InvalidRequest(f"{where}.tool_result: content cannot be empty if `is_error` "
                                 "is true")


# -- the model --------------------------------------------------------------------------


def _check_model(body: JSON, counting: bool = False) -> None:
    name = body["model"]
    # source: docs:errors (404 not_found_error), live ("model: <id>"). Only ids in the Claude
    # namespace are checked: the fake's own tests use placeholder names such as "m", and a
    # typo of a real id ("claude-opus5") still starts with "claude". Looser than the API.
    if name.startswith("claude") and not models.exists(name):
        raise ModelNotFound(f"model: {name}")
    facts = models.get(name)
    if facts is None:
        return
    if counting:
        body = {k: v for k, v in body.items() if k != "max_tokens"}
    elif body["max_tokens"] > facts.max_output_tokens:
        # source: models (ceiling), live (wording).
        raise InvalidRequest(
            f"max_tokens: {body['max_tokens']} > {facts.max_output_tokens}, which is the "
            f"maximum allowed number of output tokens for {name}"
        )
    _check_sampling(body, facts)
    _check_thinking_config(body, facts)
    if not counting:
        _check_window(body, facts)
    last = body["messages"][-1]
    if last.get("role") == "assistant":
        if not facts.prefill:
            raise InvalidRequest(PREFILL_REJECTED)  # source: sdk:create 64-69, models, live
        tail = last["content"] if isinstance(last["content"], str) else "".join(
            b.get("text", "") for b in last["content"] if b.get("type") == "text")
        if tail and tail != tail.rstrip():
            # source: https://platform.claude.com/docs/en/docs/prefill-claudes-response ("The
            # prefill content cannot end with trailing whitespace ... will result in an
            # error"); wording ours.
            raise InvalidRequest("messages: final assistant content cannot end with trailing "
                                 "whitespace")


def _check_sampling(body: JSON, facts: models.Model) -> None:
    given = [p for p in SAMPLING_PARAMS if p in body and body[p] is not None]
    for param in given:
        value = body[param]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
                value):
            raise InvalidRequest(f"{param}: Input should be a valid number")  # wording ours
        if facts.sampling == "rejected":
            raise InvalidRequest(f"`{param}` is deprecated for this model.")  # source: live
        # "default_only": the default of temperature and top_p is 1; top_k has no default
        # value to pass (source: models, Claude Sonnet 5). Wording: live, for Opus 4.7.
        if facts.sampling == "default_only" and (param == "top_k" or value != 1):
            raise InvalidRequest(f"`{param}` is deprecated for this model.")
    if facts.sampling == "accepted" and {"temperature", "top_p"} <= set(given):
        # source: github:anthropics/skills, skills/claude-api/shared/model-migration.md
        # ("Sampling parameters: temperature OR top_p, not both ... passing both 400s on
        # Claude 4+"); wording ours.
        raise InvalidRequest("`temperature` and `top_p` cannot both be specified for this "
                             "model. Please use only one.")


def _check_window(body: JSON, facts: models.Model) -> None:
    """A prompt longer than the model's context window is a 400 (source: docs:windows).

    A prompt that fits, but leaves less room than ``max_tokens``, is answered: the reply
    stops at the window with ``stop_reason: "model_context_window_exceeded"``
    (:func:`course.fakes.cut`; SDK ``types/message.py``, that stop reason: "we exceeded the
    model's context window"). The docs corpus does not state a 400 for input plus
    ``max_tokens`` over the window on these models, so the fake gives none."""
    prompt = tokens.request_tokens(body)
    if prompt > facts.context_window:
        # source: docs:windows (live wording, word for word).
        raise InvalidRequest(f"prompt is too long: {prompt} tokens > {facts.context_window} "
                             "maximum")


# source: docs:extended (live wording, word for word).
FORCED_WITH_THINKING = "Thinking may not be enabled when tool_choice forces tool use."


def _check_thinking_config(body: JSON, facts: models.Model) -> None:
    """The request's ``thinking`` setting against what the model accepts (source: models)."""
    config = body.get("thinking")
    if not isinstance(config, dict):
        return
    if config.get("type") == "enabled" and not facts.manual_thinking:
        # source: models (manual thinking "is removed -- sending it returns 400"); wording
        # ours.
        raise InvalidRequest('thinking.type: "enabled" is not supported for this model. Use '
                             '"adaptive" and output_config.effort to control thinking.')
    if config.get("type") == "adaptive" and not facts.adaptive_thinking:
        # source: docs:adaptive in course/models.py (older models "do not support adaptive
        # thinking"); wording ours.
        raise InvalidRequest('thinking.type: "adaptive" is not supported for this model. Use '
                             '"enabled" with budget_tokens.')
    if config.get("type") == "enabled":
        _check_manual_thinking(body, config)
    effort = (body.get("output_config") or {}).get("effort") if isinstance(
        body.get("output_config"), dict) else None
    allowed = facts.effort_when_disabled
    if config.get("type") == "disabled" and allowed is not None and effort is not None and (
            effort not in allowed):
        # source: models (docs:models/opus-5, "thinking can be disabled only at effort high
        # or below"); wording ours.
        raise InvalidRequest(f"output_config.effort: '{effort}' is not supported when "
                             "thinking is disabled on this model")


def _check_manual_thinking(body: JSON, config: JSON) -> None:
    """``thinking: {"type": "enabled", "budget_tokens": N}`` on a model that takes it."""
    budget = config.get("budget_tokens")
    if isinstance(budget, bool) or not isinstance(budget, int):
        # source: SDK thinking_config_enabled_param.py (budget_tokens Required[int]); wording
        # ours, in the API's field-path style.
        raise InvalidRequest("thinking.enabled.budget_tokens: Field required" if budget is None
                             else "thinking.enabled.budget_tokens: Input should be a valid "
                             "integer")
    if budget < 1024:
        # source: docs:extended (budget_tokens "Must be ≥1024"); wording ours.
        raise InvalidRequest("thinking.enabled.budget_tokens: Input should be greater than or "
                             "equal to 1024")
    limit = body.get("max_tokens")
    if isinstance(limit, int) and budget >= limit:
        # source: docs:extended (budget_tokens "less than `max_tokens`"); wording ours.
        raise InvalidRequest(f"`max_tokens` must be greater than `thinking.budget_tokens`. "
                             f"Got max_tokens={limit}, budget_tokens={budget}.")
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        raise InvalidRequest(FORCED_WITH_THINKING)  # source: docs:extended
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        # source: docs:extended ("not compatible with temperature ... modifications"); the
        # default temperature is 1 (sdk:create); wording ours.
        raise InvalidRequest("`temperature` may only be set to 1 when thinking is enabled.")
    if body.get("top_k") is not None:
        # source: docs:extended ("not compatible with ... top_k modifications"); wording ours.
        raise InvalidRequest("`top_k` may not be set when thinking is enabled.")


# -- cache_control ---------------------------------------------------------------------

#: source: docs:caching (ttl Literal["5m", "1h"], default "5m"; "up to 4 cache breakpoints").
CACHE_TTLS = ("5m", "1h")
DEFAULT_CACHE_TTL = "5m"
MAX_BREAKPOINTS = 4
#: Blocks that may not carry ``cache_control`` (docs:caching, caching with thinking blocks).
NOT_CACHEABLE = frozenset({"thinking", "redacted_thinking"})

# source: docs:caching; the API's words, as quoted in public code that logs its 400s:
# "messages.130.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come
# after a ttl='5m' cache_control block. Note that blocks are processed in the following
# order: `tools`, `system`, `messages`." and "A maximum of 4 blocks with cache_control may be
# provided. Found 5." and "system.0.cache_control.ttl: Input should be '5m' or '1h'".
ORDER_MESSAGE = ("{path}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' "
                 "cache_control block. Note that blocks are processed in the following order: "
                 "`tools`, `system`, `messages`.")
TOO_MANY = "A maximum of {limit} blocks with cache_control may be provided. Found {found}."


def control_error(control: Any, path: str) -> str | None:
    """The API's 400 for a malformed ``cache_control`` object at ``path``, or ``None``."""
    # source: docs:caching (SDK cache_control_ephemeral_param.py lines 9-11).
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        return f"{path}.type: Input should be 'ephemeral'"
    if "ttl" in control and control["ttl"] not in CACHE_TTLS:
        return f"{path}.ttl: Input should be '5m' or '1h'"
    return None


def _ttl(control: JSON) -> str:
    return str(control.get("ttl", DEFAULT_CACHE_TTL))


def _blocks_in_order(body: JSON) -> list[tuple[str, Any, bool]]:
    """Every block that may carry ``cache_control``, in the order the API processes them
    (``tools``, ``system``, ``messages``), as (path, block, top level). A tool_result's own
    content blocks come just before the tool_result that holds them."""
    out: list[tuple[str, Any, bool]] = []
    for i, tool in enumerate(body.get("tools") or []):
        out.append((f"tools.{i}", tool, True))
    system = body.get("system")
    if isinstance(system, list):
        for i, b in enumerate(system):
            out.append((f"system.{i}", b, True))
    for i, m in enumerate(body.get("messages") or []):
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, list):
            continue
        for j, b in enumerate(content):
            inner = b.get("content") if isinstance(b, dict) else None
            if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(inner,
                                                                                     list):
                for k, nested in enumerate(inner):
                    out.append((f"messages.{i}.content.{j}.content.{k}", nested, False))
            out.append((f"messages.{i}.content.{j}", b, True))
    return out


def automatic_target(body: JSON) -> int | None:
    """Index into the top-level blocks (tools, system, messages; string content counting as
    one block) of the block a top-level ``cache_control`` marks: the last one that may carry
    a breakpoint (docs:caching, automatic caching: "If the last block is not eligible ... the
    system silently walks backwards"); ``None`` when there is none."""
    kinds: list[bool] = []
    kinds += [True for _ in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str) and system:
        kinds.append(True)
    elif isinstance(system, list):
        kinds += [True for _ in system]
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            kinds.append(True)
        elif isinstance(content, list):
            kinds += [not (isinstance(b, dict) and b.get("type") in NOT_CACHEABLE)
                      for b in content]
    return next((i for i in range(len(kinds) - 1, -1, -1) if kinds[i]), None)


def check_cache_control(body: JSON) -> None:
    """Raise :class:`InvalidCacheControl` for the ``cache_control`` fields the API refuses.

    Every fake runs this, whether or not it models cache hits (:mod:`course.promptcache`
    bills them; its breakpoints are these). Breakpoints nested in a tool_result's content
    count toward the 4 and take part in the TTL order."""
    marks: list[tuple[str, str]] = []           # (path of the cache_control, ttl) in order
    top_level = -1
    explicit_at: dict[int, str] = {}            # top-level index -> its ttl
    for path, block, top in _blocks_in_order(body):
        if top:
            top_level += 1
        if not isinstance(block, dict) or block.get("cache_control") is None:
            continue
        if block.get("type") in NOT_CACHEABLE:
            # source: docs:caching ("Thinking blocks cannot be explicitly marked with
            # cache_control"); the words the API uses for a field a block does not take
            # (wording ours).
            raise InvalidCacheControl(f"{path}.cache_control: Extra inputs are not permitted")
        error = control_error(block["cache_control"], f"{path}.cache_control")
        if error:
            raise InvalidCacheControl(error)
        marks.append((f"{path}.cache_control", _ttl(block["cache_control"])))
        if top:
            explicit_at[top_level] = marks[-1][1]
    auto = body.get("cache_control")
    if auto is not None:
        error = control_error(auto, "cache_control")
        if error:
            raise InvalidCacheControl(error)
        target = automatic_target(body)
        if target is not None and target in explicit_at:
            if explicit_at[target] != _ttl(auto):
                # source: docs:caching, automatic caching edge cases ("a different TTL, the
                # API returns a 400 error"); wording ours.
                raise InvalidCacheControl(
                    f"cache_control: the top-level cache_control has ttl='{_ttl(auto)}', but "
                    f"the last cacheable block already has ttl='{explicit_at[target]}'; give "
                    "both the same ttl or remove one")
        elif target is not None:
            marks.append(("cache_control", _ttl(auto)))   # last in the order, as its block
    if len(marks) > MAX_BREAKPOINTS:
        # source: docs:caching ("up to 4"; automatic caching with 4 explicit breakpoints "the
        # API returns a 400 error (no slots left)"); live wording.
        raise TooManyBreakpoints(TOO_MANY.format(limit=MAX_BREAKPOINTS, found=len(marks)))
    seen_5m = False
    for path, ttl in marks:
        # source: docs:caching, mixing TTLs; live wording (ORDER_MESSAGE).
        if ttl == "1h" and seen_5m:
            raise InvalidCacheControl(ORDER_MESSAGE.format(path=path))
        seen_5m = seen_5m or ttl == "5m"


# -- tools and tool_choice --------------------------------------------------------------


def _check_tools(body: JSON) -> None:
    tools = body.get("tools")
    if tools is None:
        tools = []
    if not isinstance(tools, list):
        raise InvalidRequest("tools: Input should be a valid list")  # wording ours
    names: list[str] = []
    for k, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise InvalidRequest(f"tools.{k}: Input should be a valid dictionary")
        custom = tool.get("type") in (None, "custom")
        where = f"tools.{k}.custom" if custom else f"tools.{k}"
        name = tool.get("name")
        if not isinstance(name, str):
            raise InvalidRequest(f"{where}.name: Field required")
        if custom and not TOOL_NAME.match(name):
            # source: live (word for word), sdk:create 233-240.
            raise InvalidRequest(f"{where}.name: String should match pattern "
                                 f"'{TOOL_NAME.pattern}'")
        if custom:
            schema = tool.get("input_schema")
            if schema is None:
                raise InvalidRequest(f"{where}.input_schema: Field required")  # sdk:create
            if not isinstance(schema, dict) or schema.get("type") != "object":
                # source: sdk (types/tool_param.py lines 17-20, type: Literal["object"]);
                # wording ours.
                raise InvalidRequest(f"{where}.input_schema.type: Input should be 'object'")
            if not _valid_schema(schema):
                raise InvalidRequest(f"{where}.input_schema: {INVALID_SCHEMA}")
        names.append(name)
    if len(set(names)) != len(names):
        # source: sdk (types/tool_name_conflict_error_details.py: the API refuses a tool name
        # that another available tool already holds, error_code "tool_name_conflict"); wording
        # ours.
        raise InvalidRequest("tools: Tool names must be unique.")
    _check_tool_choice(body.get("tool_choice"), names)


def _valid_schema(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` is a valid draft 2020-12 schema. An agent loop sends the same tools
    with every call, and checking a schema against the metaschema takes about a
    millisecond; the answer is kept per schema, by its JSON text (what the API would
    receive)."""
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON at all: checked as it is
        return _schema_ok(schema)
    if len(text) > MAX_KEPT_SCHEMA:  # a grader's hub keeps no kernel's megabytes
        return _schema_ok(schema)
    return _valid_schema_text(text)


@functools.lru_cache(maxsize=512)
def _valid_schema_text(text: str) -> bool:
    return _schema_ok(json.loads(text))


def _schema_ok(schema: Any) -> bool:
    try:
        SCHEMA_VALIDATOR.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


def _check_tool_choice(choice: Any, names: list[str]) -> None:
    if choice is None:
        return
    # source: sdk:create (tool_choice_param.py: auto, any, tool with a Required name, none);
    # wording ours.
    if not isinstance(choice, dict) or choice.get("type") not in TOOL_CHOICE_TYPES:
        raise InvalidRequest("tool_choice.type: Input should be 'auto', 'any', 'tool' or "
                             "'none'")
    kind = choice["type"]
    if kind in ("any", "tool") and not names:
        raise InvalidRequest(f"tool_choice.type: '{kind}' may only be specified while "
                             "providing tools")
    if kind == "tool":
        wanted = choice.get("name")
        if not isinstance(wanted, str):
            raise InvalidRequest("tool_choice.tool.name: Field required")
        if wanted not in names:
            raise InvalidRequest(f"tool_choice.tool.name: tool '{wanted}' is not among the "
                                 f"request's tools ({', '.join(names)})")


# -- the conversation -------------------------------------------------------------------


def _check_conversation(turns: list[JSON]) -> None:
    if not turns or turns[0]["role"] != "user":
        raise InvalidRequest("messages: first message must use the \"user\" role")
    seen: set[str] = set()
    for t, turn in enumerate(turns):
        for j, b in enumerate(turn["content"]):
            if b.get("type") != "tool_use":
                continue
            if b["id"] in seen:
                # source: live ("messages.1.content.1: ..." is the second copy of an id, by
                # merged turn and block): the assistant turn appended twice.
                raise InvalidRequest(f"messages.{t}.content.{j}: `tool_use` ids must be unique")
            seen.add(b["id"])
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
        late = _results_after_other_blocks(turn["content"])
        if asked and late:
            # source: docs:tool-calls (text before tool_result "will cause a 400 error", and
            # the error it names); wording: the API's unanswered-ids message, below.
            raise InvalidRequest(_unanswered(t - 1, late))
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
            raise InvalidRequest(_unanswered(t, missing))


def _results_after_other_blocks(content: list[JSON]) -> list[str]:
    """The ``tool_use_id`` of every tool_result that comes after a block of another type."""
    first_other = next((j for j, b in enumerate(content) if b.get("type") != "tool_result"),
                       len(content))
    return _ids(content[first_other:], "tool_result", "tool_use_id")


def _unanswered(t: int, ids: list[str]) -> str:
    return (f"messages.{t}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(ids)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message.")
