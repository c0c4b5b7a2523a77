"""The semantic-cache lab's world: labelled question pairs and their recorded embeddings.

Lab 5's notebook and its tests take every text from here, and every vector from a file of
embeddings recorded once from a real model (``course/data/lab05_semantic_cache__embeddings.json``,
which names the model and the package version it came from). ``embed`` is a lookup in that
file, so nothing here needs the model, a network or a key. The module also holds the
measuring tools the notebook shows: the threshold sweep, its table and plot, and a counter
of how many lines of Python a call runs.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

DATA_FILE = (Path(__file__).resolve().parent.parent / "data"
             / "lab05_semantic_cache__embeddings.json")

Pair = tuple[str, str]

# 25 genuine rewordings: a cached answer to the first is the right answer to the second.
# The first pair is the chapter's own example (Code Lab 14, exercise 5).
PARAPHRASES: tuple[Pair, ...] = (
    ("how do I rotate an API key", "what's the process for changing my API key"),
    ("How do I reset my password?", "I forgot my password, how can I change it?"),
    ("How can I cancel my subscription?", "What are the steps to end my subscription?"),
    ("Where can I download my invoices?", "How do I get a copy of my invoices?"),
    ("How do I add a teammate to my workspace?",
     "How can I invite a colleague to join my workspace?"),
    ("What payment methods do you accept?", "Which ways can I pay you?"),
    ("How do I export my data to CSV?", "Can I download my data as a CSV file?"),
    ("How do I enable two-factor authentication?", "How can I turn on 2FA for my account?"),
    ("Why was my card declined?", "What causes a payment card to be rejected?"),
    ("How do I change the email address on my account?",
     "Can I update the email I log in with?"),
    ("What is your refund policy?", "Under what conditions do you give refunds?"),
    ("How do I upgrade to a higher plan?", "What do I do to move up to a bigger plan?"),
    ("How do I delete my account?", "How can I permanently close my account?"),
    ("What are the API rate limits?", "How many API requests am I allowed to make?"),
    ("How do I connect the Slack integration?", "How can I link Slack to my workspace?"),
    ("Is my data encrypted at rest?", "Do you encrypt stored data?"),
    ("How do I set up single sign-on?", "How can I configure SSO for my organisation?"),
    ("Where do I find my API usage?", "How can I see how much of the API I have used?"),
    ("How do I change my billing address?", "How can I update the address on my invoices?"),
    ("Can I get a discount for annual billing?", "Is yearly billing cheaper than monthly?"),
    ("How do I restore a deleted file?", "Can I recover a file I removed?"),
    ("What happens when my trial ends?", "What happens after the free trial is over?"),
    ("How do I contact support?", "What is the best way to reach your help desk?"),
    ("How do I change the language of the interface?",
     "Can I switch the app to another language?"),
    ("Why am I getting a 429 error?", "What does it mean when the API says too many requests?"),
)

# 25 near misses: one date, amount or name swapped, so the right answers differ.
# The first pair is the chapter's worst case.
NEAR_MISSES: tuple[Pair, ...] = (
    ("charge for March", "charge for May"),
    ("Show the invoice for January 2024", "Show the invoice for January 2025"),
    ("Cancel the meeting on Monday", "Cancel the meeting on Tuesday"),
    ("What was my bill on 3 March?", "What was my bill on 13 March?"),
    ("Renew the plan on 1 June", "Renew the plan on 1 July"),
    ("Schedule the export for Friday at 9am", "Schedule the export for Friday at 9pm"),
    ("Refund the order placed on 12 April", "Refund the order placed on 21 April"),
    ("How much did we spend in Q1?", "How much did we spend in Q2?"),
    ("Refund $40 to my card", "Refund $400 to my card"),
    ("Set my monthly budget to 500 dollars", "Set my monthly budget to 50 dollars"),
    ("Transfer 100 euros to savings", "Transfer 1000 euros to savings"),
    ("Raise the seat count to 10", "Raise the seat count to 100"),
    ("Charge the customer $19.99", "Charge the customer $199.90"),
    ("Add 5 GB of storage", "Add 50 GB of storage"),
    ("Limit the API to 60 requests per minute", "Limit the API to 600 requests per minute"),
    ("Split the payment into 3 instalments", "Split the payment into 12 instalments"),
    ("Move my account to the Pro plan", "Move my account to the Team plan"),
    ("Ship the order to the Berlin office", "Ship the order to the Munich office"),
    ("What is the VAT rate in France?", "What is the VAT rate in Spain?"),
    ("Export the marketing workspace", "Export the finance workspace"),
    ("Connect the GitHub integration", "Connect the GitLab integration"),
    ("Pay the invoice in dollars", "Pay the invoice in pounds"),
    ("Open a ticket for the London team", "Open a ticket for the Paris team"),
    ("Deploy to the staging cluster", "Deploy to the production cluster"),
    ("Give admin rights to the sales group", "Give admin rights to the support group"),
)
# What was swapped in each near miss, in the same order.
NEAR_MISS_KINDS: tuple[str, ...] = (
    ("date",) * 8 + ("amount",) * 8 + ("name",) * 9
)

# The chapter's table of dangerous pairs, with the cosines it reports. Those came from
# voyage-3-large, a different model that cannot be called offline; they are quoted,
# never used as measurements.
CHAPTER_TABLE: tuple[tuple[str, str, float], ...] = (
    ("cancel my order", "cancel my subscription", 0.94),
    ("reset my password", "reset my API key", 0.93),
    ("charge for March", "charge for May", 0.97),
)
CHAPTER_MODEL = "voyage-3-large"

# The same question typed differently: what a cache still catches at a very high threshold.
TRIVIAL_VARIANTS: tuple[Pair, ...] = (
    ("What is your refund policy?", "what is your refund policy"),
    ("How do I reset my password?", "how do i reset my password"),
    ("How do I export my data to CSV?", "How do I export my data to CSV"),
    ("What are the API rate limits?", "what are the api rate limits?"),
    ("How do I contact support?", "How do I contact support??"),
)

# The answers the notebook's demos store: one per tenant for the same generic question.
TENANT_ANSWERS: dict[str, str] = {
    "acme": "Acme admins rotate keys under Settings > API > Rotate; old keys die after 24 h.",
    "globex": "Globex keys are managed by your SSO admin; open a request in the IT portal.",
}

# Thresholds to sweep: the chapter's ten, plus a lower range (this model's cosines run lower)
# and two higher notches so "one notch above the first zero" always has somewhere to go.
THRESHOLDS: tuple[float, ...] = (
    0.50, 0.60, 0.70, 0.75, 0.80, 0.85,
    0.88, 0.90, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995,
    0.998, 0.999,
)


def all_texts() -> list[str]:
    """Every text the lab embeds, each once, in a stable order (what gets recorded)."""
    seen: dict[str, None] = {}
    groups: Iterable[Iterable[str]] = (
        (t for pair in PARAPHRASES for t in pair),
        (t for pair in NEAR_MISSES for t in pair),
        (t for a, b, _ in CHAPTER_TABLE for t in (a, b)),
        (t for pair in TRIVIAL_VARIANTS for t in pair),
    )
    for group in groups:
        for t in group:
            seen.setdefault(t, None)
    return list(seen)


@dataclass(frozen=True)
class Recording:
    """The recorded embeddings and where they came from."""

    model: str
    package: str
    package_version: str
    dim: int
    vectors: dict[str, np.ndarray]
    pooled_norms: dict[str, float]
    meta: dict[str, Any]


@lru_cache(maxsize=1)
def recording() -> Recording:
    """Load the data file once."""
    raw = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    vectors = {t: np.asarray(e["vector"], dtype=np.float64) for t, e in raw["texts"].items()}
    for arr in vectors.values():
        arr.setflags(write=False)
    norms = {t: float(e["pooled_norm"]) for t, e in raw["texts"].items()}
    meta = {k: v for k, v in raw.items() if k != "texts"}
    return Recording(model=raw["model"], package=raw["package"],
                     package_version=raw["package_version"], dim=int(raw["dim"]),
                     vectors=vectors, pooled_norms=norms, meta=meta)


def _lookup(text: str) -> np.ndarray:
    rec = recording()
    if text not in rec.vectors:
        raise KeyError(
            f"no recorded embedding for {text!r}: this course ships vectors, not the model. "
            f"Use a text from course.worlds.semantic_cache, or re-record with "
            f"scripts/record_embeddings.py ({len(rec.vectors)} texts recorded)")
    return rec.vectors[text]


def embed(text: str) -> np.ndarray:
    """The recorded embedding of ``text`` (384 numbers), as the model returned it.

    all-MiniLM-L6-v2 ends in a normalising layer, so these have length 1 up to the
    6-decimal rounding of the file. Raises ``KeyError`` naming the text if it was never
    recorded.
    """
    return _lookup(text).copy()


def embed_unnormalised(text: str) -> np.ndarray:
    """The same direction at the length the model had *before* its normalising layer.

    Some providers return vectors like this (mean-pooled token vectors, length 4.8 to 7.9
    here). Same direction, so the same cosines, but a raw dot product is no longer one.
    """
    return _lookup(text) * recording().pooled_norms[text]


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """cos(a, b) = a.b / (|a| |b|), computed in full (no unit-length shortcut)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(x @ y) / float(np.sqrt(x @ x) * np.sqrt(y @ y))


def pair_cosines(pairs: Iterable[Pair], *,
                 embed: Callable[[str], Any] = embed) -> list[float]:
    """The cosine of each pair, in order."""
    return [cosine(embed(a), embed(b)) for a, b in pairs]


@dataclass(frozen=True)
class SweepRow:
    """One threshold of a sweep: how many pairs of each kind would be served from cache."""

    threshold: float
    hits: int
    false_hits: int
    hit_rate: float
    false_hit_rate: float


def sweep(paraphrases: Sequence[Pair], near_misses: Sequence[Pair],
          thresholds: Iterable[float] = THRESHOLDS, *,
          embed: Callable[[str], Any] = embed) -> list[SweepRow]:
    """For each threshold: the share of paraphrases caught and of near misses wrongly served.

    Each text is embedded once, and the rates divide by the number of pairs given (never
    by a typed-in 25, which would report rates above 1 the day a 26th pair is added).
    """
    good = pair_cosines(paraphrases, embed=embed)
    bad = pair_cosines(near_misses, embed=embed)
    rows = []
    for th in sorted(thresholds):
        tp = sum(c >= th for c in good)
        fp = sum(c >= th for c in bad)
        rows.append(SweepRow(th, tp, fp, tp / len(good), fp / len(bad)))
    return rows


def sweep_table(rows: Iterable[SweepRow]) -> str:
    """The sweep as a fixed-width text table."""
    lines = ["threshold   hits  hit_rate   false_hits  false_hit_rate"]
    for r in rows:
        lines.append(f"{r.threshold:9.3f}  {r.hits:5d}  {r.hit_rate:8.2f}   "
                     f"{r.false_hits:10d}  {r.false_hit_rate:14.2f}")
    return "\n".join(lines)


def plot_sweep(rows: Sequence[SweepRow], chosen: float | None = None, *,
               default: float = 0.98):
    """Hit rate against false-hit rate, one point per threshold. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = [r.false_hit_rate for r in rows]
    ys = [r.hit_rate for r in rows]
    ax.plot(xs, ys, "o-", color="tab:blue", label="threshold sweep")
    for r in rows:
        if r.threshold in (0.5, 0.7, 0.8, 0.88, 0.9, 0.95):
            ax.annotate(f"{r.threshold:g}", (r.false_hit_rate, r.hit_rate),
                        textcoords="offset points", xytext=(-4, 7), fontsize=8)
    marks = [(default, "tab:orange", f"default {default:g}")]
    if chosen is not None:
        marks.append((chosen, "tab:green", f"picked {chosen:g}"))
    for th, colour, label in marks:
        for r in rows:
            if r.threshold == th:
                ax.plot([r.false_hit_rate], [r.hit_rate], "s", ms=10, mfc="none",
                        color=colour, label=label)
    ax.set_title(f"threshold sweep on {recording().model.split('/')[-1]}", fontsize=10)
    ax.set_xlabel("false-hit rate (near misses served a wrong answer)")
    ax.set_ylabel("hit rate (paraphrases served from cache)")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _library_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix,
             str(Path(__file__).resolve().parent.parent)}
    return tuple(os.path.realpath(r) + os.sep for r in roots)


def python_lines_run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """Call ``fn`` and count the lines of *your* Python it executed on the way.

    Library code (numpy, the standard library, this course package) is not counted, so
    a lookup done as one matrix product counts a few dozen lines whatever the table
    size, while a ``for`` loop over the rows counts at least one line per row.
    Returns ``(fn's result, line count)``.
    """
    roots = _library_roots()
    counted: dict[str, bool] = {}
    lines = 0

    def mine(filename: str) -> bool:
        if filename not in counted:
            real = os.path.realpath(filename)
            counted[filename] = not (filename.startswith("<frozen")
                                     or real.startswith(roots))
        return counted[filename]

    def on_line(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return on_line

    def on_call(frame, event, arg):
        return on_line if mine(frame.f_code.co_filename) else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.settrace(previous)
    return result, lines
