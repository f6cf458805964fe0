"""How far apart the two rules of ``pretrain.keep`` lie in a finished run: per start, from the
validation-loss curve its checkpoint's sidecar records (results/<run>/pretrain/*/ny*/*/seed*.json),
the epoch each rule keeps (best_validation: the least finite validation loss; final: the last
finite one) and the validation loss there. Whichever rule the run kept, both are read off the
same curve; the models themselves are not, so this says how far apart the kept models score on
validation, not what they would score in the benchmark.

    python tools/keep_rules.py quick --results /work/runs/quick_new/results
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd


def kept_epochs(val_loss) -> tuple[int, int]:
    """(best_validation's epoch, final's epoch) of one start's validation-loss curve; (-1, -1)
    where no epoch has a finite loss (a failed start)."""
    val = np.asarray(val_loss, dtype=float)
    finite = np.flatnonzero(np.isfinite(val))
    if not len(finite):
        return -1, -1
    return int(finite[np.argmin(val[finite])]), int(finite[-1])


def keep_rules_table(results: Path) -> pd.DataFrame:
    """One row per start: task, ny, mode, seed, both rules' epochs and validation losses, and
    final's loss over best_validation's (1 where they keep the same epoch)."""
    rows = []
    for path in sorted(results.glob("pretrain/*/ny*/*/seed*.json")):
        mode, cell, task = path.parent.name, path.parent.parent.name, path.parent.parent.parent.name
        val = json.loads(path.read_text())["val_loss"]
        best, final = kept_epochs(val)
        val = np.asarray(val, dtype=float)
        best_val, final_val = (val[e] if e >= 0 else np.nan for e in (best, final))
        rows.append(
            {
                "task": task,
                "ny": int(cell.removeprefix("ny")),
                "mode": mode,
                "seed": int(path.stem.removeprefix("seed")),
                "best_epoch": best,
                "final_epoch": final,
                "best_val": best_val,
                "final_val": final_val,
                "final_over_best": final_val / best_val,
            }
        )
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> str:
    """Starts, in how many the rules keep the same epoch, and the quantiles of final over best."""
    ratio = table["final_over_best"].dropna()
    same = int((table["best_epoch"] == table["final_epoch"]).sum())
    return (
        f"{len(table)} starts ({len(table) - len(ratio)} failed); the same epoch kept in {same}; "
        f"final / best validation loss: median {ratio.median():.4f}, 90 % {ratio.quantile(0.9):.4f}, "
        f"max {ratio.max():.4f}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's name (config key run:), e.g. quick")
    parser.add_argument("--results", type=Path, default=Path("results"), help="the results folder")
    args = parser.parse_args(argv)
    table = keep_rules_table(args.results / args.run)
    if table.empty:
        raise SystemExit(f"no pretraining sidecars under {args.results / args.run}/pretrain")
    print(summary(table) + "\n")
    print(table.groupby("mode")["final_over_best"].describe().to_markdown() + "\n")
    print(table.to_markdown(index=False, floatfmt=".4g"))


if __name__ == "__main__":
    main()
