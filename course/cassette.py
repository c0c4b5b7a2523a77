"""Cassettes: recorded API interactions, stored as versioned human-readable JSON, and replayed.

A cassette file looks like this::

    {
      "version": 1,
      "scenario": "weather_two_step",
      "description": "…",
      "interactions": [
        {"name": "asks for the capital",
         "request": {"messages": [{"role": "user", "content": [{"type": "text", "text": "…"}]}]},
         "response": {"status": 200, "headers": {}, "body": {…message…}}}
      ]
    }

``request`` is a *matcher*: a JSON subset of the request body after
:func:`course.validation.normalize` (merged turns, text as blocks). Dicts match
when every listed key matches; lists must have the same length and match item by
item; scalars must be equal. Fields the student may legitimately choose (the
system prompt, ``max_tokens``, ``is_error: false``) are simply left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .validation import normalize
from .wire import JSON, Reply

FORMAT_VERSION = 1


class CassetteError(ValueError):
    """A cassette file that cannot be used: unreadable, malformed, or of the wrong version."""


class ReplayMiss(BaseException):  # noqa: N818 - named for what happened, like vcrpy's misses
    """The request matches no recorded interaction.

    It derives from ``BaseException`` for the same reason as pytest's ``Failed``: the
    SDK (and many student loops) wrap every ``Exception`` raised under a request into a
    generic connection error, and a replay miss must reach the person reading the
    traceback with its explanation intact.
    """


def diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` fails to match the matcher ``expected``, one line per difference."""
    here = path or "<body>"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{here}: expected an object, got {type(actual).__name__}"]
        out: list[str] = []
        for key, want in expected.items():
            sub = f"{path}.{key}" if path else key
            if key not in actual:
                out.append(f"{sub}: missing (expected {_short(want)})")
            else:
                out.extend(diff(want, actual[key], sub))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{here}: expected a list, got {type(actual).__name__}"]
        if len(expected) != len(actual):
            return [f"{here}: expected {len(expected)} items, got {len(actual)}"]
        out = []
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            out.extend(diff(want, got, f"{path}.{i}" if path else str(i)))
        return out
    if expected != actual:
        return [f"{here}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Interaction:
    """One recorded request matcher and the reply to send for it."""

    name: str
    request: JSON
    response: Reply


@dataclass(frozen=True)
class Cassette:
    """A named, ordered list of interactions."""

    scenario: str
    description: str
    interactions: tuple[Interaction, ...]

    @classmethod
    def from_json(cls, data: Any, source: str = "<cassette>") -> Cassette:
        if not isinstance(data, dict):
            raise CassetteError(f"{source}: a cassette is a JSON object, got {type(data).__name__}")
        if data.get("version") != FORMAT_VERSION:
            raise CassetteError(
                f"{source}: cassette version {data.get('version')!r} is not supported "
                f"(this course reads version {FORMAT_VERSION})"
            )
        items = data.get("interactions")
        if not isinstance(items, list) or not items:
            raise CassetteError(f"{source}: 'interactions' must be a non-empty list")
        parsed = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or "response" not in item:
                raise CassetteError(f"{source}: interaction {i} needs 'request' and 'response'")
            request = item.get("request", {})
            response = item["response"]
            if not isinstance(request, dict) or not isinstance(response, dict):
                raise CassetteError(f"{source}: interaction {i}: request/response must be objects")
            if not any(k in response for k in ("body", "events", "drop")):
                raise CassetteError(
                    f"{source}: interaction {i}: response needs one of body, events or drop")
            parsed.append(
                Interaction(str(item.get("name", f"#{i}")), request, Reply.from_json(response))
            )
        return cls(str(data.get("scenario", source)), str(data.get("description", "")),
                   tuple(parsed))

    @classmethod
    def load(cls, name_or_path: str | Path) -> Cassette:
        """Load a packaged cassette by scenario name, or any cassette file by path."""
        path = Path(name_or_path)
        if path.suffix != ".json":
            ref = resources.files("course") / "cassettes" / f"{name_or_path}.json"
            if not ref.is_file():
                known = ", ".join(sorted(available()))
                raise CassetteError(f"no cassette named {name_or_path!r}; known: {known}")
            text, source = ref.read_text(encoding="utf-8"), f"cassettes/{name_or_path}.json"
        else:
            try:
                text, source = path.read_text(encoding="utf-8"), str(path)
            except OSError as exc:
                raise CassetteError(f"cannot read cassette {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CassetteError(
                f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        return cls.from_json(data, source)

    def to_json(self) -> JSON:
        return {
            "version": FORMAT_VERSION,
            "scenario": self.scenario,
            "description": self.description,
            "interactions": [
                {"name": i.name, "request": i.request, "response": i.response.to_json()}
                for i in self.interactions
            ],
        }

    def save(self, path: str | Path) -> None:
        """Write the cassette as indented JSON (written whole, then renamed into place)."""
        path = Path(path)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)


def available() -> list[str]:
    """Scenario names of the cassettes shipped with the course."""
    folder = resources.files("course") / "cassettes"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


class Replay:
    """Responder that answers requests from a cassette, in order.

    The n-th request must match the n-th interaction. On a miss, :class:`ReplayMiss`
    names the interaction that was expected, what differed, and the nearest recorded
    request if another one fits better.
    """

    def __init__(self, cassette: Cassette | str | Path) -> None:
        self.cassette = cassette if isinstance(cassette, Cassette) else Cassette.load(cassette)
        self.position = 0

    @property
    def remaining(self) -> int:
        return len(self.cassette.interactions) - self.position

    def __call__(self, body: JSON) -> Reply:
        seen = normalize(body)
        items = self.cassette.interactions
        scenario = self.cassette.scenario
        if self.position >= len(items):
            raise ReplayMiss(
                f"cassette {scenario!r} has {len(items)} interactions and all were used; "
                f"request {self.position + 1} was not recorded (is the loop calling the model "
                "again after it should have stopped?)"
            )
        expected = items[self.position]
        problems = diff(expected.request, seen)
        if not problems:
            self.position += 1
            return expected.response
        ranked = sorted(
            ((len(diff(i.request, seen)), n, i) for n, i in enumerate(items)),
            key=lambda t: (t[0], abs(t[1] - self.position)),
        )
        lines = [
            f"request {self.position + 1} does not match cassette {scenario!r}, "
            f"interaction {self.position + 1} ({expected.name!r}):",
            *[f"  - {p}" for p in problems[:8]],
        ]
        if len(problems) > 8:
            lines.append(f"  … and {len(problems) - 8} more differences")
        best_count, best_index, best = ranked[0]
        if best_index != self.position:
            lines.append(
                f"nearest recorded request: interaction {best_index + 1} ({best.name!r}), "
                f"{best_count} difference(s)"
            )
        raise ReplayMiss("\n".join(lines))
