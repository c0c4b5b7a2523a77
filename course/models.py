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


MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model("claude-opus-5", max_output_tokens=128_000, prefill=False, sampling="rejected",
              source="docs:models/opus-5, docs:opus-5-migration, docs:migration-guide "
                     "(Opus 4.7, Opus 4.8)",
              manual_thinking=False, effort_when_disabled=("low", "medium", "high")),
        Model("claude-sonnet-5", max_output_tokens=128_000, prefill=False,
              sampling="default_only", source="docs:models/opus-5, docs:migration-guide "
                                              "(Claude Sonnet 5)", manual_thinking=False),
        Model("claude-haiku-4-5", max_output_tokens=64_000, prefill=True, sampling="accepted",
              source="docs:models/opus-5, docs:models-overview"),
        Model("claude-haiku-4-5-20251001", max_output_tokens=64_000, prefill=True,
              sampling="accepted", source="docs:models-overview (the dated id of Haiku 4.5)"),
    )
}

#: Every model id the pinned SDK lists (sdk:model_param): these exist online.
SDK_MODEL_IDS: frozenset[str] = frozenset(get_args(get_args(ModelParam)[0]))


def get(model_id: str) -> Model | None:
    """The facts for ``model_id``, or ``None`` when this table has no row for it."""
    return MODELS.get(model_id)


def exists(model_id: str) -> bool:
    """Whether the live API serves ``model_id``: a row here, or an id the SDK lists."""
    return model_id in MODELS or model_id in SDK_MODEL_IDS
