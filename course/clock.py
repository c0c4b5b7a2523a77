"""Fake time: a clock you advance by hand and a ``sleep`` that records instead of waiting.

Retries, TTLs and latency ledgers all depend on time. Injecting these keeps every
notebook and test deterministic and instant.
"""

from __future__ import annotations


class FakeClock:
    """A callable clock (like ``time.time``) that only moves when told to."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("time does not run backwards; advance by a non-negative amount")
        self.now += seconds
        return self.now


class FakeSleep:
    """A drop-in for ``time.sleep`` that records each requested wait.

    Pass a :class:`FakeClock` to have sleeping advance it, so code that sleeps and
    then reads the clock sees time pass.
    """

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.calls: list[float] = []
        self.clock = clock

    def __call__(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"sleep length must be non-negative, got {seconds}")
        self.calls.append(float(seconds))
        if self.clock is not None:
            self.clock.advance(seconds)

    @property
    def total(self) -> float:
        return sum(self.calls)
