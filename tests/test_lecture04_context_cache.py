"""Lecture 4 (context as a cache): the seed's figures, reproduced by running the solution.

The solution functions are taken from the built source notebook (answer cells, markers
stripped) and executed here; every expected value is a literal from seed 000 (or, where
the seed is silent or inconsistent, a figure derived by hand in the comment beside it).
"""

from __future__ import annotations

import json
import random
from functools import partial

import pytest

from course.grading.authoring.scripts import build
from course.grading.proofs.mutation import load_mutants
from course.worlds import context_cache as cc

from . import ROOT, notebook_code

SCRIPT = ROOT / "authoring" / "lecture04_context_cache" / "lecture04_context_cache.py"
MUTANTS = ROOT / "tests" / "mutants" / "lecture04_context_cache.py"


def _answers() -> dict[str, str]:
    return notebook_code.answers("lecture04_context_cache")


def _namespace(edits: list[tuple[str, str, str]] = ()) -> dict:
    return notebook_code.namespace("lecture04_context_cache", edits,
                                   {"json": json, "MODEL": cc.MODEL})


@pytest.fixture(scope="module")
def sol() -> dict:
    return _namespace()


def _policies(ns: dict, W: int = 3_000) -> tuple:
    keep = ns["assemble_keep_until_full"]
    window = partial(ns["assemble_sliding_window_pinned"], W=W)
    compact = partial(ns["assemble_summarize_and_compact"], trigger=3_000, target=500,
                      summarize=cc.summarize)
    return keep, window, compact


SEED = {"preamble": 2_000, "per_turn": 300, "turns": 20}
EX1 = {"preamble": 3_000, "per_turn": 400, "turns": 24}


# -- the world module ---------------------------------------------------------------------

def test_world_constants_are_the_seed_session():
    assert cc.NOTES_SESSION == SEED
    assert (cc.NOTES_W, cc.NOTES_TRIGGER, cc.NOTES_TARGET) == (3_000, 3_000, 500)
    assert cc.EXERCISE1_SESSION == EX1 and cc.EXERCISE1_W == 4_000
    assert cc.EXERCISE1_LIMIT == 16_384
    assert (cc.SPIKE_STEP, cc.SPIKE_TOKENS, cc.OUTPUT_CAP) == (4, 20_000, 2_000)


def test_preamble_and_summary_entries():
    pre = cc.preamble_entries(2_000)
    assert [e["id"] for e in pre] == ["system", "task"]
    assert sum(e["tokens"] for e in pre) == 2_000
    hist = [cc.step_entry(k, 300) for k in range(1, 12)]
    s = cc.summarize(hist, 500)
    assert s["tokens"] == 500 and s["kind"] == "summary"
    assert s["usage"] == {"input_tokens": 3_300, "output_tokens": 500}
    assert s["covers"][0] == "turn-1" and s["covers"][-1] == "turn-11"
    with pytest.raises(ValueError, match="'tokens' size"):
        cc.summarize([{"role": "user", "content": "x" * 40}], 5)  # it counts no text itself
    with pytest.raises(ValueError):
        cc.summarize([], 500)
    counting = cc.CountingSummarizer()
    counting(hist, 500)
    assert counting.calls == [3_300]


def test_report_total_and_closed_form():
    r = cc.LedgerReport(cumulative=71_800, compaction=3_300)
    assert r.total == 75_100
    assert cc.closed_form(2_000, 300, 20) == 97_000
    assert cc.closed_form(3_000, 400, 24) == 182_400


def test_link_reproduces_the_three_timeout_worlds():
    outcomes = {}
    for world in cc.TIMEOUT_WORLDS:
        book = cc.InvoiceBook()
        link = cc.Link(cc.keyless(book.post_invoice), [world], book=book)
        with pytest.raises(cc.ToolTimeout):
            link({"name": "post_invoice", "input": {"customer_id": "c", "amount_cents": 1}})
        before = len(book.rows)
        book.settle()
        outcomes[world] = (before, len(book.rows))
    assert outcomes == {cc.REQUEST_LOST: (0, 0), cc.RESPONSE_LOST: (1, 1),
                        cc.LATE_COMMIT: (0, 1)}
    book = cc.InvoiceBook()
    link = cc.Link(cc.keyless(book.post_invoice), [cc.RESPONSE_LOST])
    call = {"name": "post_invoice", "input": {"customer_id": "c", "amount_cents": 5}}
    with pytest.raises(cc.ToolTimeout):
        link(call)
    link(call)
    assert len(book.rows) == 2 and book.charged("c") == 10  # the keyless double charge


def test_issue_call_puts_the_key_in_the_transcript():
    transcript: list = []
    e = cc.issue_call(transcript, "post_invoice", {"customer_id": "c", "amount_cents": 1},
                      rng=random.Random(0))
    assert transcript == [e] and e["request_key"].startswith("rk-")
    again = cc.issue_call([], "post_invoice", {}, rng=random.Random(0))
    assert again["request_key"] == e["request_key"]  # seeded: deterministic


def test_schema_checklist_separates_weak_from_good():
    assert not any(cc.schema_checklist(cc.WEAK_SEARCH_SCHEMA).values())
    assert all(cc.schema_checklist(cc.SEARCH_DOCS_SCHEMA).values())


def test_docs_tools():
    hits = cc.search_docs("cache")["matches"]
    assert hits and hits[0]["path"] == "docs/caching.md"
    assert cc.CACHE_FACT in cc.read_file("docs/caching.md")["text"]
    with pytest.raises(FileNotFoundError):
        cc.read_file("docs/cache.md")


def test_fanout_critical_path_and_preambles():
    # plan 3.0 + slowest reader (auth, 9.5) + join 4.0 = 16.5 s; preambles 23 turns x 1,500
    assert cc.FANOUT_SECONDS["plan"] + max(
        cc.FANOUT_SECONDS[n] for n in cc.SUBAGENT_TURNS) + cc.FANOUT_SECONDS["join"] == 16.5
    assert sum(cc.SUBAGENT_TURNS.values()) * cc.SUBAGENT_PREAMBLE == 34_500


# -- §4.1 and §4.5, through the solution ---------------------------------------------------

def test_loop_runs_against_the_scripted_fake(sol):
    api = cc.docs_api()
    out = sol["run_loop"](cc.TASK, client=api.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
    assert cc.CACHE_FACT in out
    assert [len(b["messages"]) for b in api.requests] == [1, 3, 5, 7]
    assert cc.result_blocks(api.requests[1])[0]["is_error"] is True
    stuck = cc.restless_api()
    with pytest.raises(RuntimeError):
        sol["run_loop"](cc.TASK, client=stuck.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH,
                        max_steps=4)
    assert len(stuck.requests) == 4


def test_parallel_and_cut_off_replies(sol):
    par = cc.parallel_api()
    out = sol["run_loop"](cc.TASK, client=par.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
    assert out == cc.PARALLEL_WORDS + cc.CACHE_FACT
    assert [len(b["messages"]) for b in par.requests] == [1, 3]
    results = cc.result_blocks(par.requests[1])
    assert [r["is_error"] for r in results] == [False, True]
    assert "unexpected keyword argument 'file'" in results[1]["content"]  # a TypeError
    cut = cc.cut_off_api()
    out = sol["run_loop"](cc.TASK, client=cut.client(), tools=cc.TOOLS, dispatch=cc.DISPATCH)
    assert out == cc.CUT_WORDS and len(cut.requests) == 1


def test_timeout_is_never_retried_without_idempotency(sol):
    retry_allowed = sol["retry_allowed"]
    assert retry_allowed(cc.TIMEOUT, idempotent=False) is False
    assert retry_allowed(cc.TIMEOUT, idempotent=True) is True
    assert retry_allowed(cc.CRASHED_MID_WRITE, idempotent=False) is False
    assert retry_allowed(cc.OK, idempotent=True) is False
    assert retry_allowed(cc.ERROR_AS_DATA, idempotent=True) is False
    with pytest.raises(ValueError):
        retry_allowed(cc.RUNNING, idempotent=True)
    for world in cc.TIMEOUT_WORLDS:
        book = cc.InvoiceBook()
        out = cc.call_with_policy(cc.Link(cc.keyless(book.post_invoice), [world] * 3, book=book),
                                  {"name": "post_invoice",
                                   "input": {"customer_id": "c", "amount_cents": 1}},
                                  retry_allowed=retry_allowed, idempotent=False)
        book.settle()
        assert out["state"] == cc.TIMEOUT and out["attempts"] == 1 and len(book.rows) <= 1


def test_request_key_makes_a_replayed_write_commit_once(sol):
    book, table, transcript = cc.InvoiceBook(), {}, []
    entry = cc.issue_call(transcript, "post_invoice", {"customer_id": "c", "amount_cents": 7},
                          rng=random.Random(1))
    link = cc.Link(sol["with_request_key"](book.post_invoice, table=table), [cc.RESPONSE_LOST])
    with pytest.raises(cc.ToolTimeout):
        link(entry)
    assert link(json.loads(json.dumps(transcript))[-1]) == book.rows[0]
    assert len(book.rows) == 1
    out = cc.call_with_policy(link, entry, retry_allowed=sol["retry_allowed"], idempotent=True)
    assert out["state"] == cc.OK and len(book.rows) == 1


# -- §4.3: every figure of the seed --------------------------------------------------------

def test_the_three_policies(sol):
    keep, window, compact = _policies(sol)
    k, w, c = (sol["ledger"](p, **SEED) for p in (keep, window, compact))
    assert (k.cumulative, w.cumulative, c.cumulative, c.compaction) == (97_000, 83_500,
                                                                        71_800, 3_300)
    assert (k.total, w.total, c.total) == (97_000, 83_500, 75_100)
    assert (k.held, w.held, c.held) == (7_700, 5_000, 4_900)
    assert (k.binds_at, w.binds_at, c.binds_at) == (None, 12, 12)
    assert k.compaction == 0 and w.compaction == 0
    assert round(1 - w.total / k.total, 2) == 0.14       # "about a 14% saving"
    assert round(1 - c.total / k.total, 2) == 0.23       # "about 23% below"
    # "Silently lost by turn 20": the window has dropped turns 1-9 ...
    assert sorted(int(e.entry.split("-")[1]) for e in w.evictions) == list(range(1, 10))
    # ... and compaction folded turns 1-11 into the summary at turn 12.
    assert {e.entry for e in c.evictions if e.turn == 12} == {f"turn-{j}" for j in range(1, 12)}


def test_second_compaction_comes_at_turn_21_not_24(sol):
    _, _, compact = _policies(sol)
    assert sol["ledger"](compact, preamble=2_000, per_turn=300, turns=20).compaction == 3_300
    # after turn 12 the history is 500 + 300 (k - 12): over 3,000 first at k = 21 (3,200)
    assert sol["ledger"](compact, preamble=2_000, per_turn=300, turns=21).compaction == 6_500


def test_closed_form_matches_the_simulation(sol):
    keep = sol["assemble_keep_until_full"]
    for P, a, n in [(2_000, 300, 20), (3_000, 400, 24), (1_500, 250, 37), (0, 50, 1),
                    (7_000, 1_000, 60)]:
        assert sol["ledger"](keep, preamble=P, per_turn=a, turns=n).cumulative == \
            n * P + a * n * (n - 1) // 2


def test_ninety_two_percent_is_a_resent_prefix(sol):
    r = sol["ledger"](sol["assemble_keep_until_full"], **SEED)
    new = r.submitted[0] + 300 * (len(r.submitted) - 1)       # 2,000 + 19 x 300 = 7,700
    assert new == 7_700 and round(1 - new / r.cumulative, 2) == 0.92


def test_seed_exercise_1(sol):
    keep = sol["assemble_keep_until_full"]
    window = partial(sol["assemble_sliding_window_pinned"], W=4_000)
    k, w = sol["ledger"](keep, **EX1), sol["ledger"](window, **EX1)
    assert (k.cumulative, w.cumulative) == (182_400, 146_000)
    assert (k.held, w.held) == (12_200, 7_000)
    assert round(1 - w.cumulative / k.cumulative, 2) == 0.20
    o = sol["ledger"](keep, preamble=3_000, per_turn=400, turns=40, limit=16_384)
    assert o.overflow_at == 35 and o.submitted[-1] == 16_200
    assert [e.turn for e in w.evictions if e.entry == "turn-3"] == [14]


def test_seed_exercise_3_and_the_multiplier(sol):
    keep = sol["assemble_keep_until_full"]
    spiky = dict(SEED, spikes={4: 20_000})
    raw = sol["ledger"](keep, **spiky)
    assert raw.cumulative - 97_000 == 16 * 20_000 == 320_000          # §4.2's multiplier
    assert raw.cumulative == 417_000 and round(320_000 / raw.cumulative, 2) == 0.77
    tool = sol["ledger"](keep, **spiky, cap=2_000, cap_in="tool")
    assert tool.cumulative == 129_000 and round(raw.cumulative / tool.cumulative, 1) == 3.2
    asm = sol["ledger"](keep, **spiky, cap=2_000, cap_in="assemble")
    assert asm.cumulative == 147_000 and asm.cumulative - tool.cumulative == 18_000


def test_window_on_the_spike(sol):
    _, window, _ = _policies(sol)
    w = sol["ledger"](window, **SEED, spikes={4: 20_000})
    spike = [e for e in w.evictions if e.entry == "output-4"]
    assert [(e.turn, e.origin, e.tokens) for e in spike] == [(5, 4, 20_000)]
    assert {e.entry for e in w.evictions if e.turn == 5} == {
        "turn-1", "turn-2", "turn-3", "turn-4", "output-4"}
    # turns 1-4: 9,800; turns 5-15 rebuild from empty: 11 x 2,000 + 300 x 55 = 38,500;
    # turns 16-20 flat at 5,000: 25,000. Total 73,300, and the spike is in no prompt.
    assert w.cumulative == 73_300
    assert max(w.submitted) == 5_000


def test_seed_compaction_on_a_copy_fires_every_turn():
    mutant = {m.name: m for m in load_mutants(MUTANTS)}["compaction_on_a_copy"]
    ns = _namespace(mutant.edits())
    _, _, compact = _policies(ns)
    counting = cc.CountingSummarizer()
    compact = partial(ns["assemble_summarize_and_compact"], trigger=3_000, target=500,
                      summarize=counting)
    r = ns["ledger"](compact, **SEED)
    # turns 12-20 each summarize the whole history: 300 x (11 + ... + 19) = 40,500
    assert len(counting.calls) == 9 and r.compaction == 40_500
    assert r.cumulative == 61_000 and r.total == 101_500 > 97_000


def test_counting_the_own_append_gives_n_n_plus_1():
    mutant = {m.name: m for m in load_mutants(MUTANTS)}["ledger_counts_own_append"]
    ns = _namespace(mutant.edits())
    assert ns["ledger"](ns["assemble_keep_until_full"], **SEED).cumulative == 103_000


def test_every_mutant_applies_once():
    answers = _answers()
    for m in load_mutants(MUTANTS):
        text = answers[m.cell]
        for cell, old, new in m.edits():
            text = answers[cell] if cell != m.cell else text
            assert text.count(old) == 1, (m.name, old)
            text = text.replace(old, new)


# -- the panel ------------------------------------------------------------------------------

def _panel(sol, interactive=True):
    return cc.build_panel(ledger=sol["ledger"], keep=sol["assemble_keep_until_full"],
                          window=sol["assemble_sliding_window_pinned"],
                          compact=sol["assemble_summarize_and_compact"],
                          interactive=interactive)


def _by_policy(rows):
    return {r["policy"]: r for r in rows}


def test_panel_defaults_show_the_three_policy_table(sol):
    panel = _panel(sol)
    assert set(panel.controls) == {"preamble", "per_turn", "turns", "W", "trigger", "target",
                                   "spike", "spike_step", "limit"}
    rows = _by_policy(panel.rows)
    assert [rows[n]["total"] for n in cc.POLICY_NAMES] == [97_000, 83_500, 75_100]
    assert [rows[n]["held"] for n in cc.POLICY_NAMES] == [7_700, 5_000, 4_900]
    assert rows[cc.POLICY_NAMES[2]]["compaction"] == 3_300
    assert rows[cc.POLICY_NAMES[1]]["binds_at"] == 12
    assert panel.png.startswith(b"\x89PNG")
    assert [len(v) for v in panel.series.values()] == [20, 20, 20]


def test_panel_sliders_drive_the_table(sol):
    panel = _panel(sol)
    before = panel.redraws
    panel.controls["preamble"].value = 3_000
    panel.controls["per_turn"].value = 400
    panel.controls["turns"].value = 24
    panel.controls["W"].value = 4_000
    assert panel.redraws == before + 4          # every slider move redraws
    rows = _by_policy(panel.rows)
    assert rows[cc.POLICY_NAMES[0]]["cumulative"] == 182_400
    assert rows[cc.POLICY_NAMES[1]]["cumulative"] == 146_000
    assert (rows[cc.POLICY_NAMES[0]]["held"], rows[cc.POLICY_NAMES[1]]["held"]) == (12_200,
                                                                                    7_000)
    panel.set(turns=40)
    assert _by_policy(panel.rows)[cc.POLICY_NAMES[0]]["overflow_at"] == 35
    assert len(panel.series[cc.POLICY_NAMES[0]]) == 34
    panel.set(preamble=2_000, per_turn=300, turns=20, W=3_000, spike=20_000, spike_step=4,
              limit=65_536)
    rows = _by_policy(panel.rows)
    assert rows[cc.POLICY_NAMES[0]]["cumulative"] == 417_000
    assert rows[cc.POLICY_NAMES[1]]["cumulative"] == 73_300
    panel.set(limit=16_384)
    assert _by_policy(panel.rows)[cc.POLICY_NAMES[0]]["overflow_at"] == 5  # 23,200 at turn 5
    panel.set(spike=0, trigger=2_000, target=300)
    c = _by_policy(panel.rows)[cc.POLICY_NAMES[2]]
    # history 300 x 7 = 2,100 > 2,000 at turn 8 -> a 300-token summary; then 300 + 300 x 6
    # = 2,100 again at turns 14 and 20: three compactions of 2,100
    assert c["compaction"] == 3 * 2_100


def test_panel_falls_back_to_a_static_plot(sol, monkeypatch, capsys):
    monkeypatch.delenv("COURSE_WIDGETS", raising=False)
    assert cc.widgets_frontend() is False       # no kernel, no frontend
    monkeypatch.setenv("COURSE_WIDGETS", "1")
    assert cc.widgets_frontend() is True
    panel = _panel(sol, interactive=False)
    panel.show()
    shown = capsys.readouterr().out
    assert "Image" in shown and "HTML" in shown  # one static plot and the table, no widgets
    assert "HBox" not in shown


def test_instructor_and_manual_cells_are_in_the_source():
    nb = build(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT))
    tagged = [c for c in nb.cells if "instructor" in c.metadata.get("tags", [])]
    assert len(tagged) >= 6
    manual = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "markdown"}
    assert manual == {"post_invoice_policy", "silent_versus_abrupt"}


def test_the_ledger_plot_keeps_its_scale_while_sliders_move():
    """Whole turns on the x axis; the y axis from 0 to just above the limit, the same
    after a slider changes the lines (they stay under the limit here)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def axes(series):
        fig = cc.draw_ledgers(series, limit=cc.EXERCISE1_LIMIT)
        FigureCanvasAgg(fig).draw()
        return fig.axes[0]

    small = axes({"a": [2_000, 2_300, 2_600]})
    large = axes({"a": [2_000, 3_000, 4_000, 5_000, 6_000]})
    assert small.get_ylim() == large.get_ylim() == (0, cc.EXERCISE1_LIMIT * 1.08)
    ticks = [t for t in small.get_xticks() if 1 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks), small.get_xticks()


def test_the_panel_plot_is_shown_at_its_own_width(sol):
    panel = _panel(sol)
    assert panel._image.layout.width == f"{int(cc.FIGSIZE[0] * cc.DPI)}px" == "675px"
