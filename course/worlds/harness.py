"""The scenario harness: run a scripted model's moves past a guard's hooks, with no agent loop.

A guard notebook (budget, loop detector, ...) needs a run to guard, but the agent loop that
makes runs is what Lab 1 asks students to write, and this package is readable by every
student. So the harness is deliberately not an agent loop. It never builds an API request,
never reads a ``stop_reason`` and never assembles ``tool_result`` blocks. It asks a
:class:`Scenario` for the model's next :class:`Move`, reports the move to ``on_reply``,
each tool call to ``on_tool_call``, and tells the scenario what came of it: a plain list
of :class:`Told` records, which is the scenario's whole memory. Copying this into Lab 1
would not pass a single Lab 1 test.

The policy for notebooks: a scenario that needs the real protocol (a request log, the API's
400s) runs the student's own loop, passed in as a function; everything else runs here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from anthropic.types import Usage

from .. import tokens
from ..wire import JSON, tool_use


@dataclass(frozen=True)
class Call:
    """One tool call the model asks for."""

    tool: str
    args: JSON


@dataclass(frozen=True)
class Move:
    """What the model does on one model call: ask for tools, or answer with ``text``.

    ``usage`` is the bill for that call as the API reports it; ``model`` the name it billed.
    """

    calls: tuple[Call, ...]
    text: str
    usage: Usage
    model: str


@dataclass(frozen=True)
class Told:
    """What the model was told about one tool call: the output, whether it was an error
    (a guard's nudge comes back as an error), and any note that rode along."""

    call: Call
    output: str
    is_error: bool = False
    note: str = ""


class Scenario(Protocol):
    """A scripted model and its world: the next move given everything told so far."""

    def move(self, told: list[Told]) -> Move: ...

    def run_tool(self, call: Call) -> str: ...


#: ``on_reply(move, number)`` runs after every model call is billed (``number`` counts from 1).
#: It may return a note for the model, or raise to stop the run.
OnReply = Callable[[Move, int], str | None]
#: ``on_tool_call(call, output)`` runs after a tool ran. It returns ``None`` to let the output
#: through, or a :class:`Verdict` to replace it (a nudge) or end the run (a halt).
OnToolCall = Callable[[Call, str], "Verdict | None"]


@dataclass(frozen=True)
class Verdict:
    """A hook's answer to a tool call: ``nudge`` replaces the output with ``message`` as an
    error; ``halt`` ends the run with ``message`` as the reason."""

    action: str  # "nudge" | "halt"
    message: str


@dataclass
class Run:
    """How a driven run ended.

    ``outcome`` is ``"answered"`` (the scenario's model finished), ``"stopped"`` (``on_reply``
    raised one of the ``stop`` exceptions), ``"halted"`` (``on_tool_call`` said halt) or
    ``"out_of_turns"`` (the harness's own cap). ``told`` is everything the model was told.
    """

    outcome: str
    text: str = ""
    moves: list[Move] = field(default_factory=list)
    told: list[Told] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    nudges: list[str] = field(default_factory=list)
    tool_calls: int = 0

    @property
    def model_calls(self) -> int:
        return len(self.moves)

    @property
    def input_tokens(self) -> list[int]:
        """Input tokens billed per model call (uncached, cache-written and cache-read)."""
        return [(m.usage.input_tokens + (m.usage.cache_creation_input_tokens or 0)
                 + (m.usage.cache_read_input_tokens or 0)) for m in self.moves]


def prompt_tokens(first_request: JSON, told: list[Told]) -> int:
    """Input tokens of the next request of a run, counted as the fake API counts them: the
    first request (system, tools, goal), plus, for every call told so far, the call and its
    output with the framing the wire wraps around them."""
    framing = tokens.count([
        {"role": "assistant", "content": [tool_use("", {}, id="toolu_" + "0" * 24)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_" + "0" * 24,
                                      "content": ""}]}])
    return tokens.request_tokens(first_request) + sum(
        framing + tokens.count(t.call.tool) + tokens.count(t.call.args) + tokens.count(t.output)
        for t in told)


def drive(scenario: Scenario, *, on_reply: OnReply | None = None,
          on_tool_call: OnToolCall | None = None,
          stop: tuple[type[BaseException], ...] = (), max_turns: int = 40) -> Run:
    """Run ``scenario`` until its model answers, a hook ends it, or ``max_turns`` moves.

    Only the exceptions in ``stop`` end a run quietly (as ``"stopped"``, with the exception's
    text); anything else a hook raises propagates, so a broken guard is never hidden.
    """
    run = Run("out_of_turns", f"harness cap of {max_turns} model calls reached")
    for number in range(1, max_turns + 1):
        move = scenario.move(list(run.told))
        run.moves.append(move)
        try:
            note = on_reply(move, number) if on_reply else None
        except stop as exc:
            run.outcome, run.text = "stopped", str(exc)
            return run
        if not move.calls:
            run.outcome, run.text = "answered", move.text
            return run
        for i, call in enumerate(move.calls):
            run.tool_calls += 1
            output = scenario.run_tool(call)
            verdict = on_tool_call(call, output) if on_tool_call else None
            if verdict is not None and verdict.action == "halt":
                run.outcome, run.text = "halted", verdict.message
                return run
            is_error = verdict is not None
            if is_error:
                run.nudges.append(verdict.message)
                output = verdict.message
            last = i == len(move.calls) - 1
            run.told.append(Told(call, output, is_error, note if (last and note) else ""))
        if note:
            run.notes.append((number + 1, note))
    return run
