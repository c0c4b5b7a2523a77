"""The one record of an agent run that the eval harness, the trajectory checker and the
capstone all read: a :class:`Trace` of :class:`Step` objects.

These are containers only. Nothing here scores, counts or checks a run; the functions
that do are what the labs ask you to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Step", "Trace"]


@dataclass
class Step:
    """One tool call the agent made, in the order the harness ran it.

    * ``tool``: the tool's name, as the model asked for it.
    * ``args``: the arguments the model passed (the ``input`` of its ``tool_use`` block).
    * ``result``: what the harness sent back as the tool result (text, possibly cut short).
    * ``is_error``: True when that result was sent with ``is_error`` (the tool failed, or a
      guard refused or nudged the call).
    * ``batch``: which assistant turn asked for the call, counting from 0. Calls the model
      asked for together in one reply share a batch number.
    """

    tool: str
    args: dict[str, Any]
    result: str
    is_error: bool = False
    batch: int = 0


@dataclass
class Trace:
    """A finished run: every tool call in order, the final answer, and what it cost.

    * ``steps``: the :class:`Step` list, oldest first (empty if no tool was called).
    * ``text``: the final answer the agent returned ("" if there was none).
    * ``usd``: the dollars the run was billed, all model calls included.
    """

    steps: list[Step] = field(default_factory=list)
    text: str = ""
    usd: float = 0.0
