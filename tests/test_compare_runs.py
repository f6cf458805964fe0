"""tools/compare_runs.py reads finished runs' tables: divergence counts, wins, summary, scores."""

import pandas as pd
import pytest

from tools import compare_runs


def benchmark_row(task, variant, metric, mean, n_diverged, paper_mean):
    return dict(task=task, ny=6, variant=variant, metric=metric, n_seeds=4, n_diverged=n_diverged, mean=mean,
                std=0.01, target=None, paper_mean=paper_mean, paper_std=0.1)  # fmt: skip


def write_run(tables, unoptimized_nrmse, unoptimized_diverged):
    tables.mkdir(parents=True)
    rows = [
        benchmark_row("mackey_glass", "ron", "nrmse", 0.5, 0, 0.6),
        benchmark_row("mackey_glass", "unoptimized", "nrmse", unoptimized_nrmse, unoptimized_diverged, 0.6),
        benchmark_row("mackey_glass", "partial", "nrmse", 0.7, 1, 0.6),
        benchmark_row("mackey_glass", "pretrained", "nrmse", 0.55, 0, 0.6),
        benchmark_row("adiac", "unoptimized", "accuracy", 40.0, 0, 30.5),
        benchmark_row("adiac", "pretrained", "accuracy", 39.0, 0, 44.6),
    ]
    pd.DataFrame(rows).to_csv(tables / "benchmark.csv", index=False)
    pd.DataFrame(
        [
            dict(task="mackey_glass", ny=6, mode=mode, metric="trajectory_nrmse", n_seeds=4, n_diverged=n)
            for mode, n in (("rob_fixed", 2), ("full", 0))
        ]
    ).to_csv(tables / "pretraining.csv", index=False)
    pd.DataFrame(
        [
            dict(quantity="share of RON performance retained", value=90.0, n_cells=2),
            dict(quantity="mean relative improvement over unoptimized", value=12.5, n_cells=2),
            dict(quantity="significant comparisons (p < alpha)", value=3, n_cells=4),
        ]
    ).to_csv(tables / "summary.csv", index=False)


def test_compare_runs_counts_and_wins(tmp_path, capsys):
    write_run(tmp_path / "a" / "tables", 0.8, 1)
    write_run(tmp_path / "b" / "tables", float("nan"), 4)  # every unoptimized run diverged
    row = compare_runs.run_row(tmp_path / "a" / "tables")
    assert row["unoptimized diverged"] == "1 of 8" and row["partial diverged"] == "1 of 4"
    assert row["rob_fixed trajectories diverged"] == "2 of 4" and row["full trajectories diverged"] == "0 of 4"
    # Mackey-Glass: 0.55 < 0.8 wins; ADIAC: 39 < 40 loses
    assert row["pretrained beats unoptimized"] == "1 of 2 cells"
    assert row["retained"] == "90.0 %" and row["over partial"] == "--" and row["significant"] == "3 of 4"
    # a cell whose unoptimized runs all diverged counts as a win
    assert compare_runs.run_row(tmp_path / "b" / "tables")["pretrained beats unoptimized"] == "1 of 2 cells"
    compare_runs.main(["a", "b", "--results", str(tmp_path)])
    out = capsys.readouterr().out
    assert "| ('mackey_glass', 6, 'unoptimized') | 0.8 (1*) | -- (4*) |" in out.replace("  ", " ").replace("  ", " ")


def test_a_run_without_its_tables_is_named_with_the_target_to_build(tmp_path, capsys):
    write_run(tmp_path / "a" / "tables", 0.8, 1)
    (tmp_path / "a" / "tables" / "pretraining.csv").unlink()
    with pytest.raises(SystemExit):
        compare_runs.main(["a", "--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert f"missing tables (or compare one variant with --variant):\n  {tmp_path}/a/tables/pretraining.csv" in err
    assert "benchmark.csv" not in err and "snakemake" in err


def test_compare_one_variant_from_score_files(tmp_path, capsys):
    import json

    cell = tmp_path / "r" / "scores" / "lorenz96" / "ny6"
    cell.mkdir(parents=True)
    seeds = [
        dict(seed=0, diverged=False, value=0.5),
        dict(seed=1, diverged=True, value=None),
        dict(seed=2, diverged=False, value=0.7),
    ]
    (cell / "unoptimized.json").write_text(json.dumps(dict(task="lorenz96", ny=6, seeds=seeds)))
    assert compare_runs.variant_scores(tmp_path / "r" / "scores", "unoptimized")[("lorenz96", 6)] == "0.6 (1*)"
    assert compare_runs.diverged_count(tmp_path / "r" / "scores", "unoptimized") == "1 of 3"
    compare_runs.main(["r", "--results", str(tmp_path), "--variant", "unoptimized"])
    assert "1 of 3" in capsys.readouterr().out


def test_compare_diverged_sequences_of_rollout_parts(tmp_path, capsys):
    """--sequences counts, per part and seed, the sequences whose peak left the bound or is not
    finite, for the parts both runs have (a run under way has fewer)."""
    import numpy as np

    from physres.formats import write_activation_part

    peaks = {
        "a": np.array([[1.0, 2e3, np.nan], [5.0, 6.0, 7.0]]),  # seed 0 loses 2 of 3, seed 1 none
        "b": np.array([[1.0, 2.0, 3.0], [np.inf, 999.0, 1e3]]),  # the bound itself is still inside
    }
    for run, peak in peaks.items():
        for part in (0, 1) if run == "a" else (1,):
            path = tmp_path / run / "activations" / "lorenz96" / "ny6" / "unoptimized" / f"part{part}.h5"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_activation_part(path, {"task": "lorenz96"}, [0, 1], slice(0, 3), np.zeros((2, 3, 4, 6)), peak)
    table = compare_runs.sequences_table(tmp_path, ["a", "b"], "unoptimized", 1e3)
    assert table.to_dict("index") == {("lorenz96", 6, 1): {"a": "2, 0 of 3", "b": "0, 1 of 3"}}
    compare_runs.main(["a", "b", "--results", str(tmp_path), "--sequences", "unoptimized", "--bound", "1e3"])
    assert "2, 0 of 3" in capsys.readouterr().out
