"""Record mode: forward requests to the live API and write what came back as a cassette.

Recording spends real money and needs a real key, so it happens only when both are
given explicitly: an ``api_key`` (or ``ANTHROPIC_API_KEY``) *and* ``COURSE_RECORD=1``.
Secrets and volatile headers are stripped before anything is written.

    rec = Recorder("weather_two_step", description="…")
    client = rec.client()
    ...                                  # drive the scenario
    rec.save("course/cassettes/weather_two_step.json")
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anthropic
import httpx2

from ..cassette import Cassette, Interaction
from ..fakes import BASE_URL
from ..validation import normalize
from ..wire import JSON, Reply

# Headers worth keeping: they change how a client must behave.
KEEP_HEADERS = frozenset({"content-type", "retry-after", "retry-after-ms", "x-should-retry"})
SECRET_FIELDS = frozenset({"api_key", "x-api-key", "authorization"})


class RecordingDisabled(RuntimeError):
    """Record mode was asked for without a key or without the explicit opt-in."""


def scrub_headers(headers: dict[str, str]) -> dict[str, str]:
    """Keep only the headers that affect client behaviour; drop ids, dates, cookies, keys."""
    return {k.lower(): v for k, v in headers.items() if k.lower() in KEEP_HEADERS}


def matcher_for(body: JSON) -> JSON:
    """The request part stored in a cassette: the normalised conversation only."""
    seen = normalize(body)
    return {"messages": seen["messages"]}


class Recorder:
    """A transport handler that forwards to the live API and keeps each exchange."""

    def __init__(
        self,
        scenario: str,
        *,
        description: str = "",
        api_key: str | None = None,
        upstream: httpx2.BaseTransport | None = None,
        environ: dict[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        key = api_key or env.get("ANTHROPIC_API_KEY")
        if env.get("COURSE_RECORD") != "1":
            raise RecordingDisabled(
                "record mode forwards to the live API and costs money; set COURSE_RECORD=1 "
                "to opt in explicitly"
            )
        if not key:
            raise RecordingDisabled("record mode needs a key: pass api_key or set "
                                    "ANTHROPIC_API_KEY")
        self.scenario = scenario
        self.description = description
        self._key = key
        self._upstream = httpx2.Client(transport=upstream) if upstream else httpx2.Client()
        self.interactions: list[Interaction] = []

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(
            api_key=self._key, base_url=BASE_URL, max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
        )

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        live = self._upstream.send(request)
        live.read()
        body = json.loads(request.content or b"{}")
        content_type = live.headers.get("content-type", "")
        if "text/event-stream" in content_type:
            events = []
            for chunk in live.text.split("\n\n"):
                fields = dict(
                    line.split(": ", 1) for line in chunk.splitlines() if ": " in line
                )
                if "event" in fields and "data" in fields:
                    events.append((fields["event"], json.loads(fields["data"])))
            reply = Reply(live.status_code, scrub_headers(dict(live.headers)), events=events)
        else:
            reply = Reply(live.status_code, scrub_headers(dict(live.headers)), body=live.json())
        name = f"request {len(self.interactions) + 1}"
        self.interactions.append(Interaction(name, matcher_for(body), reply))
        # The body was already decoded; pass it on without the encoding headers.
        passed = {k: v for k, v in live.headers.items()
                  if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")}
        return httpx2.Response(live.status_code, headers=passed, content=live.content)

    def cassette(self) -> Cassette:
        return Cassette(self.scenario, self.description, tuple(self.interactions))

    def save(self, path: str) -> None:
        self.cassette().save(path)


def record_scenario(root: Path, scenario: str, script: Path, *,
                    description: str = "") -> tuple[Path, int]:
    """Run ``script`` (a Python file that drives the scenario with the ``client`` it is
    given) against the live API and save ``course/cassettes/<scenario>.json``.

    Returns the cassette's path and how many interactions it holds.
    """
    if not script.is_file():
        raise RecordingDisabled(f"no script at {script}; it should drive the scenario with "
                                "`client`")
    rec = Recorder(scenario, description=description)
    code = compile(script.read_text(encoding="utf-8"), str(script), "exec")
    exec(code, {"client": rec.client(), "__name__": "__record__"})  # noqa: S102 - instructor's
    target = root / "course" / "cassettes" / f"{scenario}.json"
    rec.save(str(target))
    return target, len(rec.interactions)
