"""The list prices of the three models the course uses, with the page each one comes from.

Every price table a notebook shows is checked against this one
(``tests/conformance/test_prices.py``), and this one against the figures on the pages cited
below, as the ``search`` tool's docs corpus holds them (read 2026-12-02):

* https://platform.claude.com/docs/en/about-claude/pricing, "Model pricing": one row per
  model, columns base input, 5m cache writes, 1h cache writes, cache hits and refreshes,
  output, in USD per million tokens (MTok).
* https://platform.claude.com/docs/models/opus-5/overview, "Pricing": $5 / $25, 5m cache write
  $6.25, 1h cache write $10, cache read $0.50.
* https://platform.claude.com/docs/models/sonnet-5/overview, "Pricing": $2 / $10, 5m cache
  write $2.50, 1h cache write $4, cache read $0.20. (An increase to $3 / $15 was once
  announced for 2026-09-01; the model page still lists $2 / $10.)
* https://platform.claude.com/docs/models/haiku-4-5/overview: $1 / $5; the pricing page's
  row: 5m cache write $1.25, 1h cache write $2, cache read $0.10.

The cache columns are the multipliers the pricing page states, applied to the input rate:
a 5-minute write is 1.25x, a 1-hour write 2x, a read 0.1x.
"""

from __future__ import annotations

from typing import TypedDict

SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing"
#: The cite line each notebook prints next to its price table.
CITATION = ("Prices: platform.claude.com/docs/en/about-claude/pricing and each model's page "
            "(models/opus-5, models/sonnet-5, models/haiku-4-5), read 2026-12-02.")

#: source: the pricing page: "5-minute cache write tokens are 1.25 times the base input tokens
#: price", "1-hour cache write tokens are 2 times", "Cache read tokens are 0.1 times".
CACHE_WRITE_5M = 1.25
CACHE_WRITE_1H = 2.0
CACHE_READ = 0.10


class Rates(TypedDict):
    """USD per million tokens for one model."""

    input: float
    output: float
    write_5m: float
    write_1h: float
    read: float


PER_MTOK: dict[str, Rates] = {
    "claude-opus-5": {"input": 5.00, "output": 25.00, "write_5m": 6.25, "write_1h": 10.00,
                      "read": 0.50},
    "claude-sonnet-5": {"input": 2.00, "output": 10.00, "write_5m": 2.50, "write_1h": 4.00,
                        "read": 0.20},
    "claude-haiku-4-5": {"input": 1.00, "output": 5.00, "write_5m": 1.25, "write_1h": 2.00,
                         "read": 0.10},
}


def per_token(model: str) -> dict[str, float]:
    """``{"in": USD per input token, "out": USD per output token}``, the shape the labs use.

    An unknown model raises ``KeyError`` naming the models that have prices.
    """
    if model not in PER_MTOK:
        raise KeyError(f"no price for {model!r}; priced models: {', '.join(PER_MTOK)}")
    rates = PER_MTOK[model]
    return {"in": rates["input"] / 1_000_000, "out": rates["output"] / 1_000_000}
