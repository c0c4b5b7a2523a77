"""Benchmark: what a process that reads a notebook pays at import, with and without
``course.lazyiri``'s deferred IRI grammar, side by side in one run.

Each round starts fresh interpreters, alternated: ``import nbformat, jsonschema``
(jsonschema's formats are where rfc3987-syntax builds its grammars), then the same after
``import course``. Prints the median wall time of each and their ratio.

    python bench/import_time.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

PLAIN = "import nbformat, jsonschema._format"
DEFERRED = "import course; " + PLAIN


def _once(code: str) -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    plain, deferred = [], []
    for _ in range(args.rounds):
        plain.append(_once(PLAIN))
        deferred.append(_once(DEFERRED))
    a, b = statistics.median(plain), statistics.median(deferred)
    print(f"import nbformat + jsonschema formats: {a:.2f} s; after `import course`: {b:.2f} s "
          f"(median of {args.rounds}); {a / b:.1f}x faster")


if __name__ == "__main__":
    main()
