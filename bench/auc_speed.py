"""Single-feature AUC: the rank-based function in PLAYBOOK.md against the per-value loop it replaced.

Run from the repository root::

    python bench/auc_speed.py            # 20k and 1M rows
    python bench/auc_speed.py --rows 20000 200000

Prints seconds per call for the documented ``auc`` (read from PLAYBOOK.md) and, up to
--loop-max rows, for the old loop over distinct values (quadratic in their number). With
scikit-learn importable it also prints the largest difference from ``roc_auc_score``.
Asserts nothing: the number goes into the text of PLAYBOOK.md.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np

PLAYBOOK = Path(__file__).resolve().parent.parent / "PLAYBOOK.md"


def documented_auc():
    """The ``auc`` function of PLAYBOOK.md, executed from its python block."""
    for block in re.findall(r"```python\n(.*?)```", PLAYBOOK.read_text(encoding="utf-8"), re.DOTALL):
        if "def auc(" in block:
            namespace: dict = {}
            exec(block, namespace)  # noqa: S102
            return namespace["auc"]
    raise SystemExit("PLAYBOOK.md has no python block defining auc()")


def loop_auc(score, label):
    """The previous version: average tied ranks with a Python loop over distinct values."""
    score, label = np.asarray(score, float), np.asarray(label, bool)
    keep = ~np.isnan(score)
    score, label = score[keep], label[keep]
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    for v in np.unique(score):
        tie = score == v
        ranks[tie] = ranks[tie].mean()
    n_pos, n_neg = label.sum(), (~label).sum()
    return float((ranks[label].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def seconds(fn, *args, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[20_000, 1_000_000])
    parser.add_argument("--loop-max", type=int, default=20_000, help="largest size to time the old loop at")
    args = parser.parse_args()
    auc = documented_auc()
    rng = np.random.default_rng(0)
    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:
        roc_auc_score = None
    for n in args.rows:
        label = rng.random(n) < 0.3
        score = rng.normal(size=n) + 0.5 * label  # continuous: every value distinct, the loop's worst case
        tied = np.round(score, 2)  # and a copy with many ties, for the agreement check
        line = f"{n:>9,d} rows ({len(np.unique(score)):,d} distinct): auc {seconds(auc, score, label):.4f} s"
        if n <= args.loop_max:
            line += f" | old loop {seconds(loop_auc, score, label, repeat=1):.3f} s"
            assert abs(loop_auc(tied, label) - auc(tied, label)) < 1e-12
        if roc_auc_score is not None:
            worst = max(abs(auc(s, label) - roc_auc_score(label, s)) for s in (score, tied))
            line += f" | |auc - roc_auc_score| {worst:.1e}"
        print(line)


if __name__ == "__main__":
    main()
