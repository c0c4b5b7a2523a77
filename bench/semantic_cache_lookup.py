"""Benchmark (not a test): Lab 5's SemanticCache.get over 100,000 rows, vectorised vs a loop.

Both caches hold the same 100,000 rows and answer the same queries in the same run. The
vectorised one is the notebook's solution (taken from the authoring script, markers
dropped); the loop is the seed's shape: a list of row dicts, expired rows dropped with a
list comprehension and every row scored with its own ``np.dot`` in a Python ``for``.

The rows are random unit vectors of the model's width (384), from a seeded generator: the
recorded file holds only the lab's ~100 texts, and the cost of a lookup depends on the
number of rows and their width, not on what the rows say.

    python bench/semantic_cache_lookup.py [--rows 100000] [--queries 10]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from course.clock import FakeClock
from course.grading.authoring import scripts
from course.grading.authoring.markers import answer_text

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "authoring" / "lab05_semantic_cache" / "lab05_semantic_cache.py"
DIM = 384


def solution_class() -> type:
    """The notebook's SemanticCache, as a student who wrote the solution would have it."""
    cells = scripts.parse(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT))
    (cell,) = [c for c in cells if c.id == "semantic_cache"]
    namespace: dict = {}
    exec(compile(answer_text("\n".join(cell.lines)), str(SCRIPT), "exec"), namespace)
    return namespace["SemanticCache"]


class LoopCache:
    """The seed's tier-3 lookup: legible, and one Python iteration per stored row."""

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock):
        self.threshold, self.ttl, self.embed, self.clock = threshold, ttl, embed, clock
        self.rows: list[dict] = []
        self.hits = self.misses = 0

    def put(self, q, a, namespace="default"):
        v = np.asarray(self.embed(q), dtype=np.float64)
        self.rows.append({"v": v / np.linalg.norm(v), "a": a, "ns": namespace,
                          "t": self.clock()})

    def get(self, q, namespace="default"):
        v = np.asarray(self.embed(q), dtype=np.float64)
        v = v / np.linalg.norm(v)
        now = self.clock()
        self.rows = [r for r in self.rows if now - r["t"] < self.ttl]
        best, score = None, -2.0
        for r in self.rows:
            if r["ns"] != namespace:
                continue
            s = float(np.dot(v, r["v"]))
            if s > score:
                best, score = r, s
        if best is not None and score >= self.threshold:
            self.hits += 1
            return best["a"]
        self.misses += 1
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=10)
    args = parser.parse_args()

    rng = np.random.default_rng(5)
    table = rng.standard_normal((args.rows, DIM))
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    vectors = {f"row {i}": table[i] for i in range(args.rows)}
    # Half the queries were stored (hits), half are new random vectors (misses).
    picks = rng.choice(args.rows, size=args.queries - args.queries // 2, replace=False)
    queries = [f"row {i}" for i in picks]
    for j in range(args.queries // 2):
        vectors[f"new {j}"] = rng.standard_normal(DIM)
        queries.append(f"new {j}")

    results = {}
    for name, cls in (("vectorised", solution_class()), ("python loop", LoopCache)):
        cache = cls(embed=vectors.__getitem__, clock=FakeClock())
        start = time.perf_counter()
        for i in range(args.rows):
            cache.put(f"row {i}", f"answer {i}")
        fill = time.perf_counter() - start
        answers, start = [], time.perf_counter()
        for q in queries:
            answers.append(cache.get(q))
        per_get = (time.perf_counter() - start) / len(queries)
        results[name] = (fill, per_get, answers)
        print(f"{name:<12} fill {args.rows:,} rows: {fill:6.2f} s   "
              f"get: {per_get * 1e3:9.2f} ms per lookup ({len(queries)} lookups)")

    (_, fast, a1), (_, slow, a2) = results["vectorised"], results["python loop"]
    if a1 != a2:
        raise SystemExit("the two caches disagree on an answer; the comparison is void")
    hits = sum(a is not None for a in a1)
    print(f"same answers from both ({hits} hits, {len(a1) - hits} misses)")
    print(f"ratio: the Python loop takes {slow / fast:.0f}x as long per get() "
          f"over {args.rows:,} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
