"""What the fake API knows about each model: the request limits it enforces, with their sources.

One row per model the course sends requests to. :mod:`course.validation` reads it to answer a
request the way the live API would (the 404 for an unknown model, the 400s for ``max_tokens``
above the model's output ceiling, for a prefilled final assistant turn, for sampling
parameters the model no longer takes); the reply side may read it too. Facts not written here
are not enforced: an id the SDK knows but this table does not (``claude-opus-4-8``, say) is
accepted with no per-model check.

Sources, as cited on each field:

* ``docs:models/opus-5`` -- https://platform.claude.com/docs/models/opus-5/overview ("Max
  output 128K tokens"; the comparison table lists Sonnet 5 at 128K and Haiku 4.5 at 64K; "two
  breaking changes for code running on Claude Opus 4.8: thinking is on by default, and
  thinking can be disabled only at effort high or below", so Opus 4.8's request rules carry
  over to Opus 5; the docs do not say Sonnet 5 limits effort with thinking disabled).
* ``docs:opus-5-migration`` -- https://platform.claude.com/docs/zh-CN/models/opus-5/migration-guide
  (the English page was not in the docs corpus; this copy says): Opus 5 is a drop-in
  upgrade of Opus 4.8 with "two breaking changes" for code on Opus 4.8 (thinking on by
  default; disabled thinking only at effort high or below), the same feature set, and 128k
  max output tokens. So Opus 4.8's rules below hold for Opus 5.
* ``docs:migration-guide`` --
  https://platform.claude.com/docs/en/about-claude/models/migration-guide (Opus 4.7: the
  ``temperature``, ``top_p`` and ``top_k`` parameters "are no longer accepted ... Requests that
  include them return a 400 error"; Opus 4.8: "sampling parameters still rejected,
  last-assistant-turn prefills still 400"; Sonnet 5: "Setting temperature, top_p, or top_k to
  a non-default value returns a 400; omitting the parameter, or passing its default, is still
  accepted" and "assistant-turn prefills still return a 400", 128k max output; Opus 4.7 on
  and Sonnet 5: ``thinking: {type: "enabled", budget_tokens: N}`` "is removed -- sending it
  returns 400"). The same text
  is kept in github:anthropics/skills, skills/claude-api/shared/model-migration.md, sections
  "Migrating to Opus 4.8" and "Migrating to Claude Sonnet 5".
* ``docs:models-overview`` -- https://platform.claude.com/docs/en/about-claude/models/overview
  (Haiku 4.5: 64K max output, alias ``claude-haiku-4-5`` of ``claude-haiku-4-5-20251001``);
  Haiku 4.5 predates the 4.6 prefill removal and the 4.7 sampling removal, so it keeps both.
* ``docs:windows`` -- the model pages' "Context window": models/opus-5/overview ("Context window:
  1M tokens"; released July 24, 2026), models/haiku-4-5/overview ("Context window: 200K tokens";
  released October 15, 2025; model id ``claude-haiku-4-5-20251001``). Sonnet 5: a native 1M
  window (docs.oxen.ai's Claude Sonnet 5 reference, "ships with a native 1M-token context
  window"; anthropics/claude-code issue 84310, "its native 1M context window"); no release
  date was found, so its ``created_at`` is the epoch, as the SDK allows (``types/model_info.py``:
  "May be set to an epoch value if the release date is unknown").
* ``docs:adaptive`` -- Amazon Bedrock, claude-messages-adaptive-thinking (the supported models
  are Opus 4.6 and later; "Older models ... do not support adaptive thinking and require
  thinking.type: "enabled" with budget_tokens"); the thinking-troubleshooting per-model table
  (zh-CN copy): Opus 5 and Sonnet 5 adaptive, Haiku 4.5 extended thinking only.
* ``sdk:model_param`` -- anthropic 2.10.0, ``anthropic/types/model_param.py`` lines 9-32: the
  model ids the pinned SDK names; any of them exists online.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from anthropic.types.model_param import ModelParam

#: How a model treats ``temperature``, ``top_p`` and ``top_k``: ``"rejected"`` (present at all
#: is a 400), ``"default_only"`` (a non-default value is a 400) or ``"accepted"``.
Sampling = Literal["rejected", "default_only", "accepted"]


@dataclass(frozen=True)
class Model:
    """The per-model facts the fake enforces. Every field names its source in the table."""

    id: str
    #: The largest ``max_tokens`` the model accepts.
    max_output_tokens: int
    #: Whether a request may end on an assistant turn (prefill).
    prefill: bool
    sampling: Sampling
    #: Where the facts above come from (keys of this module's docstring).
    source: str
    #: Whether ``thinking: {"type": "enabled", "budget_tokens": N}`` (manual thinking) is
    #: accepted; where it is not, only adaptive or disabled thinking is.
    manual_thinking: bool = True
    #: The ``output_config.effort`` values allowed with ``thinking: {"type": "disabled"}``;
    #: ``None`` when the model puts no limit on them.
    effort_when_disabled: tuple[str, ...] | None = None
    #: The context window in tokens: prompt plus response (docs:windows).
    context_window: int = 200_000
    #: Whether ``thinking: {"type": "adaptive"}`` is accepted (docs:adaptive).
    adaptive_thinking: bool = False
    #: What ``GET /v1/models`` shows (docs:windows; SDK ``types/model_info.py``).
    display_name: str = ""
    created_at: str = "1970-01-01T00:00:00Z"
    #: The id this one is an alias of (``claude-haiku-4-5``), or ``None`` for a model id.
    alias_of: str | None = None


MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model("claude-opus-5", max_output_tokens=128_000, prefill=False, sampling="rejected",
              source="docs:models/opus-5, docs:opus-5-migration, docs:migration-guide "
                     "(Opus 4.7, Opus 4.8)",
              manual_thinking=False, effort_when_disabled=("low", "medium", "high"),
              context_window=1_000_000, adaptive_thinking=True, display_name="Claude Opus 5",
              created_at="2026-07-24T00:00:00Z"),
        Model("claude-sonnet-5", max_output_tokens=128_000, prefill=False,
              sampling="default_only", source="docs:models/opus-5, docs:migration-guide "
                                              "(Claude Sonnet 5)", manual_thinking=False,
              context_window=1_000_000, adaptive_thinking=True,
              display_name="Claude Sonnet 5"),
        Model("claude-haiku-4-5", max_output_tokens=64_000, prefill=True, sampling="accepted",
              source="docs:models/opus-5, docs:models-overview", context_window=200_000,
              display_name="Claude Haiku 4.5", created_at="2025-10-15T00:00:00Z",
              alias_of="claude-haiku-4-5-20251001"),
        Model("claude-haiku-4-5-20251001", max_output_tokens=64_000, prefill=True,
              sampling="accepted", source="docs:models-overview (the dated id of Haiku 4.5)",
              context_window=200_000, display_name="Claude Haiku 4.5",
              created_at="2025-10-15T00:00:00Z"),
    )
}

#: Every model id the pinned SDK lists (sdk:model_param): these exist online.
SDK_MODEL_IDS: frozenset[str] = frozenset(get_args(get_args(ModelParam)[0]))


def get(model_id: str) -> Model | None:
    """The facts for ``model_id``, or ``None`` when this table has no row for it."""
    return MODELS.get(model_id)


def listed() -> list[Model]:
    """The models ``GET /v1/models`` lists: every row that is not an alias, the most recently
    released first (docs "List Models": "More recently released models are listed first")."""
    rows = [m for m in MODELS.values() if m.alias_of is None]
    return sorted(rows, key=lambda m: (m.created_at, m.id), reverse=True)


def info(model: Model) -> dict[str, object]:
    """The ``ModelInfo`` object of a model (SDK ``types/model_info.py``): an alias is shown
    as the model it names."""
    target = MODELS[model.alias_of] if model.alias_of else model
    return {"type": "model", "id": target.id, "display_name": target.display_name,
            # "active": the model pages show Opus 5 and Haiku 4.5 as legacy but "still
            # available" (whats-new-opus-5: "Status: Active (legacy)"), which the SDK calls
            # active ("available for use").
            "created_at": target.created_at, "lifecycle": "active",
            "max_input_tokens": target.context_window, "max_tokens": target.max_output_tokens}


def exists(model_id: str) -> bool:
    """Whether the live API serves ``model_id``: a row here, or an id the SDK lists."""
    return model_id in MODELS or model_id in SDK_MODEL_IDS
