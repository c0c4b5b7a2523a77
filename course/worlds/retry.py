"""The retry lab's world: fake wires that fail on cue, and a herd of clients on fake clocks.

Lab 2's notebook and its tests build every failure here, so the errors a student's
``call_with_retry`` sees are the SDK's own (``RateLimitError`` with its ``retry-after``
header, ``InternalServerError``, ``APIConnectionError``, ``BadRequestError``), raised by
the real ``anthropic`` client from bytes on a fake wire. Time is fake too: nothing in
this module sleeps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import anthropic
from anthropic.types import Message

from ..clock import FakeClock, FakeSleep
from ..fakes import FakeAPI, Scripted
from ..wire import JSON, Reply, message, text

MODEL = "claude-opus-5"
QUESTION = "Summarise ticket #4417 in one line."
ANSWER = "Customer was double-charged in March; refund issued."


class RunawayRetry(BaseException):
    """Raised by a :class:`Wire` asked for more calls than its ``limit``.

    It derives from ``BaseException`` (like ``KeyboardInterrupt``) so that retry code
    catching ``Exception`` cannot swallow it: a retry loop with no bound stops here
    instead of spinning until the grader's timeout.
    """


class Retry(Protocol):
    """The shape of ``call_with_retry``: a retry policy wrapped around ``fn``."""

    def __call__(self, fn: Callable[[], Any], max_attempts: int = ..., base: float = ...,
                 cap: float = ..., *, sleep: Callable[[float], None] = ...) -> Any: ...


def ask(client: anthropic.Anthropic) -> Message:
    """The one model call every scenario makes (what ``fn`` wraps)."""
    return client.messages.create(
        model=MODEL, max_tokens=64, messages=[{"role": "user", "content": QUESTION}])


def answer() -> JSON:
    """The successful reply, as the API puts it on the wire."""
    return message([text(ANSWER)])


@dataclass
class Wire:
    """A fake Messages API behind a real SDK client, plus the zero-argument ``call``.

    ``reply_for(n)`` chooses the reply to the n-th request (1-based). ``times`` holds
    the clock reading at each request when a clock is given. After ``limit`` calls,
    ``call`` raises :class:`RunawayRetry` without touching the wire.
    """

    reply_for: Callable[[int], Reply | JSON]
    clock: Callable[[], float] | None = None
    limit: int = 100
    times: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.api = FakeAPI(Scripted(self._respond))
        self.client = self.api.client()

    def _respond(self, body: JSON) -> Reply | JSON:
        if self.clock is not None:
            self.times.append(self.clock())
        return self.reply_for(len(self.api.requests))

    def call(self) -> Message:
        """One model call: raises the SDK's error for a failure, returns the Message on success."""
        if self.calls >= self.limit:
            raise RunawayRetry(
                f"{self.calls} calls already made and the caller is still retrying; "
                "a retry loop must stop after max_attempts")
        return ask(self.client)

    @property
    def calls(self) -> int:
        """How many requests reached the wire."""
        return len(self.api.requests)


def flaky(*failures: Reply, clock: Callable[[], float] | None = None,
          limit: int = 100) -> Wire:
    """A wire that fails with ``failures`` in order, then answers every later call."""
    queued = list(failures)

    def reply_for(n: int) -> Reply | JSON:
        return queued[n - 1] if n <= len(queued) else answer()

    return Wire(reply_for, clock=clock, limit=limit)


def broken(reply_for: Callable[[int], Reply], *, limit: int = 100) -> Wire:
    """A wire that never succeeds: request n gets ``reply_for(n)``."""
    return Wire(reply_for, limit=limit)


def rate_window(reset_at: float, clock: Callable[[], float], *, limit: int = 100) -> Wire:
    """A server whose rate-limit window resets at ``reset_at`` on ``clock``.

    Every request before then gets a 429 whose ``retry-after`` is the time left, rounded
    up to whole seconds, as the live API sends it; from ``reset_at`` on, requests succeed.
    """

    def reply_for(n: int) -> Reply | JSON:
        left = reset_at - clock()
        return rate_limited(math.ceil(left), n) if left > 0 else answer()

    return Wire(reply_for, clock=clock, limit=limit)


def answered(retry: Retry, wire: Wire, **kwargs: Any) -> Any:
    """Run a student's ``retry`` on ``wire`` for a graded test that expects an answer.

    An SDK error that reaches the caller becomes a one-line ``AssertionError`` naming the
    error, its status and the number of calls made, instead of an SDK traceback.
    """
    try:
        return retry(wire.call, **kwargs)
    except anthropic.APIError as err:
        status = getattr(err, "status_code", None) or "no response"
        raise AssertionError(
            f"{type(err).__name__} ({status}) reached the caller after {wire.calls} call(s); "
            "it is the service's problem: retry it") from None


class Watched:
    """``call`` wrapped so that every exception it raises is also kept in ``raised``.

    A test passes a ``Watched`` as ``fn`` and then asks whether the error that reached
    it is the very object ``fn`` raised last (``err is fn.raised[-1]``), not a new one
    wrapping it and not an earlier one.
    """

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call
        self.raised: list[Exception] = []

    def __call__(self) -> Any:
        try:
            return self.call()
        except Exception as exc:
            self.raised.append(exc)
            raise


def result_or_error(retry: Retry, fn: Callable[[], Any],
                    **kwargs: Any) -> tuple[Any, Exception | None]:
    """Run ``retry(fn, **kwargs)``: ``(its result, None)``, or ``(None, the exception)``.

    ``NotImplementedError`` (the untouched stub) and :class:`RunawayRetry` pass through.
    """
    try:
        return retry(fn, **kwargs), None
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - what came out is what the test looks at
        return None, exc


def rate_limited(retry_after: float | None = None, n: int = 0) -> Reply:
    """A 429 (optionally with ``retry-after``); ``n`` numbers its message."""
    return Reply.error(429, f"rate limited #{n}", retry_after=retry_after)


# -- the thundering herd ----------------------------------------------------------------


def herd(retry: Retry, *, clients: int = 20, failures: int = 2, base: float = 1.0,
         max_attempts: int = 5, retry_after: float | None = None) -> list[list[float]]:
    """Run ``clients`` callers that all hit a 429 at t=0, each on its own fake clock.

    Every client's wire answers 429 (with ``retry-after: retry_after`` when it is given,
    else without the header) to its first ``failures`` requests and succeeds after that.
    Each client runs ``retry(fn, max_attempts, base, sleep=...)`` with a :class:`FakeSleep`
    that advances its clock, so the returned lists hold, per client, the time of every
    request it made: ``[0.0, first wake, ...]``. Randomness is whatever ``retry`` uses;
    seed it before calling for a repeatable run.
    """
    out = []
    for _ in range(clients):
        clock = FakeClock(start=0.0)
        wire = flaky(*(rate_limited(retry_after, n=k + 1) for k in range(failures)),
                     clock=clock,
                     limit=failures + 10)
        retry(wire.call, max_attempts, base, sleep=FakeSleep(clock))
        out.append(list(wire.times))
    return out


def waits_by_round(times: Sequence[Sequence[float]]) -> list[list[float]]:
    """Per retry round k, every client's wait before its (k+1)-th request."""
    rounds = min(len(t) for t in times) - 1
    return [[t[k + 1] - t[k] for t in times] for k in range(rounds)]


def arrivals(times: Sequence[Sequence[float]], ndigits: int = 3) -> list[tuple[float, int]]:
    """How many requests landed at each instant (rounded to ``ndigits``), in time order."""
    counts: dict[float, int] = {}
    for client in times:
        for t in client:
            key = round(t, ndigits)
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items())


def peak_load(times: Sequence[Sequence[float]], window: float = 0.1) -> int:
    """The most requests that land inside any ``window`` seconds, ignoring the t=0 burst."""
    stamps = sorted(t for client in times for t in client if t > 0)
    best, lo = 0, 0
    for hi, t in enumerate(stamps):
        while t - stamps[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def uniform_stdev(width: float) -> float:
    """Standard deviation of a uniform draw on an interval of this width: width / sqrt(12)."""
    return width / math.sqrt(12)


def plot_herd(runs: dict[str, Sequence[Sequence[float]]], window: float = 0.1) -> Any:
    """One panel per run: each dot is a request, one row per client. Returns the Figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 2.6 * len(runs)), sharex=True,
                             squeeze=False)
    for ax, (label, times) in zip(axes[:, 0], runs.items(), strict=True):
        for row, client in enumerate(times):
            ax.scatter(client, [row] * len(client), s=12, c=range(len(client)), cmap="viridis",
                       vmin=0, vmax=max(len(c) for c in times) - 1)
        ax.set_ylabel("client")
        ax.set_title(f"{label}: at most {peak_load(times, window)} requests in any "
                     f"{window * 1000:.0f} ms after t=0", fontsize=10)
        ax.set_ylim(-1, len(times))
    axes[-1, 0].set_xlabel("time of each request (s, fake clock)")
    fig.tight_layout()
    return fig
