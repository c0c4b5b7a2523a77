"""Lab 8 (offloader): the world module, the seed's numbers, and the escapes, on real files.

The solution is taken from the authoring script (markers dropped) and executed. Expected
values are literals from seed 001 exercise 8 (38,059 chars over 346 lines, the 6.5x and
5.6x growth of its table, a pointer more than 24x smaller) or derived by hand in the
comments. Every file is written under pytest's ``tmp_path``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from course.worlds import offload

from . import notebook_code
from .mutants.lab08_offloader import MUTANTS


@pytest.fixture(scope="module")
def Offloader():
    return notebook_code.namespace("lab08_offloader")["Offloader"]


def escapes(tmp_path):
    """The four escapes of the seed, built on disk: name -> path handed to read()."""
    root = tmp_path / "agent-artifacts"
    root.mkdir()
    sibling = tmp_path / "agent-artifacts-evil"
    sibling.mkdir()
    (sibling / "secret.txt").write_text("tenant-b api key\n")
    os.symlink(sibling / "secret.txt", root / "innocent.txt")
    return str(root), {
        "absolute": "/etc/passwd",
        "sibling": str(sibling / "secret.txt"),
        "symlink": str(root / "innocent.txt"),
        "traversal": os.path.join(str(root), "..", "..", "etc", "passwd"),
    }


# -- the seed's numbers ----------------------------------------------------------------


def test_search_dump_is_38059_chars_over_346_lines():
    dump = offload.search_dump()
    assert len(dump) == 38_059
    assert len(dump.splitlines()) == 346


def test_seed_table_growth_is_6_5x_then_5_6x():
    (_, a, _, s5), (_, b, _, s15), (_, c, _, s30) = offload.CONTEXT_TABLE
    assert round(b / a, 1) == 6.5     # 74,200 / 11,400 = 6.509
    assert round(c / b, 1) == 5.6     # 412,000 / 74,200 = 5.553
    assert (s5, s15, s30) == (0.93, 0.90, 0.58)


def test_pointer_at_the_pinned_root_is_1555_chars_and_24x_smaller(Offloader, tmp_path):
    off = Offloader(str(tmp_path / "agent-artifacts"))
    dump = offload.search_dump()
    pointer = off.wrap("search_docs", dump)
    assert pointer.count(off.root) == 2          # the root appears twice: the figure needs it
    quoted = pointer.replace(off.root, offload.PINNED_ROOT)
    # 12 preview lines of 109 chars (1,308) + 13 newlines + framing with the path twice
    assert len(quoted) == 1_555
    assert len(dump) / len(quoted) > 24          # the seed's "24x" (its format: 1,573)
    # each character of root adds two to the pointer
    assert len(pointer) == 1_555 + 2 * (len(off.root) - len(offload.PINNED_ROOT))
    assert off.saved_chars == 38_059


def test_the_commonly_quoted_framing_gives_1573_on_the_same_dump():
    """The other framing (one header line with '/' and '->', '--- first/last N lines ---'
    rulers, a 'Use read_artifact(...)' footer) on the same dump and a same-length file name:
    the 18 characters between the two figures are wording, not content."""
    dump = offload.search_dump()
    lines = dump.splitlines()
    path = f"{offload.PINNED_ROOT}/search_docs-{'0' * 8}.txt"
    framed = "\n".join([
        f"[offloaded] search_docs returned {len(lines)} lines / {len(dump)} chars -> {path}",
        "--- first 8 lines ---", *lines[:8], "--- last 4 lines ---", *lines[-4:],
        f"Use read_artifact(path='{path}', offset=N, limit=M) for the rest.",
    ])
    assert len(framed) == 1_573
    assert round(len(dump) / len(framed), 1) == 24.2


# -- containment -----------------------------------------------------------------------


def test_four_escapes_refused_and_a_legitimate_read_served(Offloader, tmp_path):
    root, attempts = escapes(tmp_path)
    off = Offloader(root)
    for name, path in attempts.items():
        assert off._contained(path) is False, name
        assert off.read(path).startswith("Error:"), name
    off.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
    (artifact,) = [p for p in os.listdir(root) if p.startswith("dump-")]
    assert off.read(os.path.join(root, artifact), 0, 2) == "[lines 0-2 of 400]\nrow 0\nrow 1"


def test_the_string_check_admits_exactly_sibling_and_symlink(tmp_path):
    root, attempts = escapes(tmp_path)

    def string_contained(path):
        return os.path.abspath(path).startswith(os.path.abspath(root))

    admitted = {name for name, path in attempts.items() if string_contained(path)}
    assert admitted == {"sibling", "symlink"}


def test_offset_and_limit_are_validated(Offloader, tmp_path):
    off = Offloader(str(tmp_path / "a"))
    off.wrap("dump", "\n".join(f"row {i}" for i in range(30)) + "x" * 2000)
    path = str(tmp_path / "a" / os.listdir(tmp_path / "a")[0])
    for kw in ({"offset": -1}, {"limit": 0}, {"limit": 501}, {"offset": True}, {"offset": "3"}):
        assert off.read(path, **kw).startswith("Error:"), kw
    assert off.read(path, 29, 500).startswith("[lines 29-30 of 30]")


def test_tail_appears_only_above_twelve_lines(Offloader, tmp_path):
    for n, shown in ((10, 8), (12, 8), (13, 12)):
        rows = [f"r{n}-{i:02d}" + "." * 300 for i in range(n)]
        ptr = Offloader(str(tmp_path / f"n{n}")).wrap("t", "\n".join(rows))
        assert sum(ptr.count(r) for r in rows) == shown, n


# -- the live runs -----------------------------------------------------------------------


def test_offloading_flattens_the_growth_of_the_30_turn_task(Offloader, tmp_path):
    plain = offload.run_task(offload.planned)
    wrapped = offload.run_task(offload.planned, wrap=Offloader(str(tmp_path / "task")).wrap)
    assert len(plain.input_tokens) == len(wrapped.input_tokens) == 31
    turns = np.arange(1, 32)
    slope_plain = np.polyfit(turns, plain.input_tokens, 1)[0]
    slope_wrapped = np.polyfit(turns, wrapped.input_tokens, 1)[0]
    # 170,000 chars of dumps inline is about 42,500 tokens on the later requests
    assert plain.input_tokens[-1] - wrapped.input_tokens[-1] > 40_000
    assert slope_plain / slope_wrapped > 9      # 1,893 against 189 tokens per turn
    # small results (400 chars) passed through unchanged
    assert sum(r.startswith("[offloaded]") for r in wrapped.results) == 3


def test_obedient_model_reads_the_secret_through_the_string_check_only(Offloader, tmp_path):
    root, attempts = escapes(tmp_path)
    link = attempts["symlink"]

    def tools(reader):
        def run(name, args):
            if name == "read_artifact":
                return reader(args["path"])
            return offload.POISONED_RESULT.format(path=link)
        return run

    def string_read(path):
        if not os.path.abspath(path).startswith(os.path.abspath(root)):
            return "Error: outside"
        return open(path).read()

    leaked = offload.run_task(offload.obedient, tool=tools(string_read))
    assert "tenant-b api key" in leaked.answer
    safe = offload.run_task(offload.obedient, tool=tools(Offloader(root).read))
    assert "tenant-b" not in safe.answer and "Error:" in safe.answer


def test_every_seed_bug_has_a_mutant():
    names = {m.name for m in MUTANTS}
    assert names >= {"startswith_containment", "abspath_not_realpath", "no_containment",
                     "refuse_everything", "thin_pointer", "offload_small_results",
                     "duplicated_tail"}
    assert len(names) == len(MUTANTS), "two mutants share a name"


def test_the_rules_the_text_settles(Offloader, tmp_path):
    """Past-end header, root itself, a '/' in the tool name, one long line offloaded."""
    root = str(tmp_path / "art")
    off = Offloader(root)
    off.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
    (path,) = (os.path.join(root, n) for n in os.listdir(root))
    assert off.read(path, 500) == "[lines 500-500 of 400]\n"
    assert off._contained(root) is True
    assert off.read(root).startswith("Error:")
    pointer = off.wrap("mcp/search", "z" * 2500)
    names = sorted(os.listdir(root))
    assert len(names) == 2 and names[1].startswith("mcp_search-") and names[1].endswith(".txt")
    # "row i" is 5, 6 or 7 chars for 10, 90 and 300 rows, plus 399 newlines: 3,089
    assert "mcp/search" in pointer and len(pointer) > 2500 and off.saved_chars == 3089 + 2500
