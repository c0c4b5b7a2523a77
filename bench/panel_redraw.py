"""Benchmark: seconds per redraw of the Lecture 4 policy panel (plot + table), by session size.

A slider move reruns the three policies through the ledger and redraws the figure. The
lecture promises this stays well under a second; this measures it at the default session
and at larger ones, with the solution's policies.

    python bench/panel_redraw.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course.worlds import context_cache as cc  # noqa: E402
from tests import notebook_code  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sol = notebook_code.namespace("lecture04_context_cache", preamble={"MODEL": cc.MODEL})
    panel = cc.build_panel(ledger=sol["ledger"], keep=sol["assemble_keep_until_full"],
                           window=sol["assemble_sliding_window_pinned"],
                           compact=sol["assemble_summarize_and_compact"], interactive=True)
    for turns in (20, 60, 120):
        times = []
        for i in range(args.repeat):
            panel.set(turns=turns + (i % 2))  # a real change each time, so it redraws
            start = time.perf_counter()
            panel.refresh()
            times.append(time.perf_counter() - start)
        print(f"turns={turns:>3}: median {statistics.median(times) * 1000:6.1f} ms per redraw "
              f"(max {max(times) * 1000:.1f} ms over {args.repeat})")


if __name__ == "__main__":
    main()
