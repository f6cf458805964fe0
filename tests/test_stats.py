"""Benchmark statistics: the exact rank test and the paper's summary definitions."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from physres.formats import load_scores
from physres.stats import mann_whitney_p, rank_test_values, significance_table, summary
from physres.tables.benchmark import benchmark_cells, benchmark_table

CONFIG = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())
PAPER_TABLE_2 = CONFIG["benchmark"]["paper"]


def brute_force_p(x, y):
    """P(U >= U_observed) under H0 by enumerating every split of the pooled sample."""
    pooled = np.concatenate([x, y])
    u = lambda a, b: sum((ai > bj) + 0.5 * (ai == bj) for ai in a for bj in b)  # noqa: E731
    observed = u(x, y)
    splits = list(itertools.combinations(range(len(pooled)), len(x)))
    hits = sum(u(pooled[list(s)], np.delete(pooled, list(s))) >= observed for s in splits)
    return hits / len(splits)


def test_exact_p_values_against_enumeration():
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, y = rng.normal(size=4), rng.normal(size=4)
        assert mann_whitney_p(x, y, higher_is_better=True) == pytest.approx(brute_force_p(x, y))
        assert mann_whitney_p(x, y, higher_is_better=False) == pytest.approx(brute_force_p(-x, -y))
    assert mann_whitney_p(np.arange(4) + 10.0, np.arange(4.0), True) == pytest.approx(1 / 70)  # the paper's 0.0143
    assert mann_whitney_p(np.arange(4) + 10.0, np.arange(3.0), True) == pytest.approx(1 / 35)
    assert np.isnan(mann_whitney_p(np.arange(4.0), np.array([]), True))


def test_nan_runs_dropped_and_diverged_runs_ranked_worst():
    """A diverged run has no score (NaN) but keeps the worst rank; a NaN run that did not diverge
    is dropped."""
    runs = pd.DataFrame(
        {"metric": "nrmse", "value": [0.5, np.nan, 0.7, 0.9, np.nan], "diverged": [False, True, True, False, False]}
    )
    np.testing.assert_array_equal(rank_test_values(runs), [0.5, np.inf, np.inf, 0.9])
    runs["metric"] = "accuracy"
    np.testing.assert_array_equal(rank_test_values(runs), [0.5, -np.inf, -np.inf, 0.9])


def test_diverged_baseline_run_counts_as_its_worst_rank():
    """Hand-enumerated: pretrained NRMSE 0.50-0.53 against a baseline of 0.60, 0.70, 0.80 and one
    diverged run. Ranked worst, the diverged run completes the perfect separation of 4 against 4,
    whose exact one-sided p is 1 / C(8, 4) = 1 / 70; dropped, it would leave 4 against 3, 1 / 35."""
    rows = [
        {
            "task": "mackey_glass",
            "ny": 6,
            "variant": v,
            "seed": s,
            "metric": "nrmse",
            "value": val,
            "diverged": bool(np.isnan(val)),
        }
        for v, vals in (("pretrained", [0.5, 0.51, 0.52, 0.53]), ("unoptimized", [0.6, 0.7, 0.8, np.nan]))
        for s, val in enumerate(vals)
    ]
    table = significance_table(pd.DataFrame(rows), alpha=0.05).set_index("baseline")
    assert table.loc["unoptimized", "p_value"] == pytest.approx(1 / 70)
    assert table.loc["unoptimized", "n_baseline"] == 4 and table.loc["unoptimized", "n_nan_runs"] == 0
    assert brute_force_p(-np.array([0.5, 0.51, 0.52, 0.53]), -np.array([0.6, 0.7, 0.8, np.inf])) == pytest.approx(
        1 / 70
    )


def test_significance_table_counts_nan_runs():
    rows = [
        {"task": "mackey_glass", "ny": 6, "variant": v, "seed": s, "metric": "nrmse", "value": val, "diverged": False}
        for v, vals in (
            ("pretrained", [0.1, 0.2, 0.15, 0.12]),
            ("unoptimized", [0.5, 0.6, 0.7, 0.8]),
            ("partial", [0.3, np.nan, 0.4, 0.35]),
        )
        for s, val in enumerate(vals)
    ]
    table = significance_table(pd.DataFrame(rows), alpha=0.05).set_index("baseline")
    assert table.loc["unoptimized", "p_value"] == pytest.approx(1 / 70)
    assert table.loc["partial", "p_value"] == pytest.approx(1 / 35)
    assert table.loc["partial", "n_nan_runs"] == 1 and table.loc["partial", "significant"]


def test_the_papers_p_values_count_its_significant_comparisons():
    """config.yaml's copy of the paper's supplementary table agrees with its text: significant
    against unoptimized in 15 of 16 cells, against partial in 11, 26 of 32 in all; the smallest
    one-sided exact p-value at 4 runs each, 1 / C(8, 4), is its most common entry."""
    alpha = CONFIG["benchmark"]["significance_level"]
    p = pd.DataFrame([{b: row["p_value"][b] for b in ("unoptimized", "partial")} for row in PAPER_TABLE_2])
    assert len(p) == 16 and (p < alpha).sum().to_dict() == {"unoptimized": 15, "partial": 11}
    assert int((p < alpha).to_numpy().sum()) == CONFIG["benchmark"]["paper_summary"]["significant"]
    assert (p.round(4) == round(1 / 70, 4)).to_numpy().sum() == 21


def test_significance_table_sets_the_papers_p_value_beside_ours(tmp_path):
    from physres.tables.benchmark import render_significance

    scores = load_scores(
        [
            write_scores(tmp_path, "unoptimized", [10.0, 20.0, 30.0, 40.0]),
            write_scores(tmp_path, "partial", [40.0, 50.0, 45.0, 42.0]),
            write_scores(tmp_path, "pretrained", [55.0, 65.0, 60.0, 62.0]),
        ]
    )
    table = significance_table(scores, alpha=0.05, paper=PAPER_TABLE_2).set_index("baseline")
    # the paper's sMNIST ny 6 row: 0.0143 against both
    assert table["paper_p_value"].to_dict() == {"unoptimized": 0.0143, "partial": 0.0143}
    assert significance_table(scores, alpha=0.05)["paper_p_value"].isna().all()
    render_significance(table.reset_index(), tmp_path / "significance", 0.05)
    assert "**0.0143** (0.0143)" in (tmp_path / "significance.md").read_text()


def test_significance_table_has_its_columns_before_any_baseline_is_scored(tmp_path):
    """A run's pretrained column before either baseline's: no test, the same columns."""
    scores = load_scores([write_scores(tmp_path, "pretrained", [55.0, 65.0, 60.0, 62.0])])
    table = significance_table(scores, alpha=0.05, paper=PAPER_TABLE_2)
    assert table.empty
    assert list(table.columns) == list(
        significance_table(
            load_scores(
                [
                    write_scores(tmp_path, "unoptimized", [10.0, 20.0, 30.0, 40.0]),
                    write_scores(tmp_path, "pretrained", [55.0, 65.0, 60.0, 62.0]),
                ]
            ),
            alpha=0.05,
        ).columns
    )


def paper_cells() -> pd.DataFrame:
    """The paper's Table 2 as summary cells: its RON and the means of its physical variants."""
    return pd.DataFrame(
        [
            {
                "task": r["task"],
                "ny": r["ny"],
                "metric": "accuracy" if r["task"] in ("smnist", "adiac") else "nrmse",
                "ron": r["ron"],
                **{v: r[v][0] for v in ("unoptimized", "partial", "pretrained")},
            }
            for r in PAPER_TABLE_2
        ]
    )


def test_summary_of_the_papers_table_2_gives_its_headline_figures():
    cells = paper_cells()
    got = summary(cells).set_index("quantity")["value"].round(1)
    assert got["share of RON performance retained"] == 90.9
    assert got["mean relative improvement over unoptimized"] == 33.7
    # the paper states 19.2 %; its own Table 2 gives 20.9 % with the same definition
    assert got["mean relative improvement over partial"] == 20.9
    assert got["improvement of pretrained from ny = 6 to 15, mean over tasks"] == 17.3
    per_task = {
        t: got[f"improvement of pretrained from ny = 6 to 15: {t}"]
        for t in ("smnist", "adiac", "mackey_glass", "lorenz96")
    }
    assert per_task == {"smnist": 11.4, "adiac": 19.1, "mackey_glass": 19.0, "lorenz96": 19.8}


def test_summary_shows_config_paper_figures_beside_ours():
    """The paper's headline figures come from config.yaml (benchmark.paper_summary) and agree
    with what its own Table 2 gives, except the partial figure the paper states as 19.2 %."""
    cells = paper_cells()
    paper = CONFIG["benchmark"]["paper_summary"]
    significance = pd.DataFrame({"baseline": ["unoptimized", "partial"], "significant": [True, False]})
    table = summary(cells, significance, paper).set_index("quantity")
    ours = table["value"].round(1)
    for quantity in (
        "share of RON performance retained",
        "mean relative improvement over unoptimized",
        "improvement of pretrained from ny = 6 to 15, mean over tasks",
    ):
        assert table.loc[quantity, "paper"] == ours[quantity]
    assert table.loc["mean relative improvement over partial", "paper"] == 19.2
    for task, value in paper["scaling_per_task"].items():
        assert ours[f"improvement of pretrained from ny = 6 to 15: {task}"] == value
    row = table.loc["significant comparisons (p < alpha)"]
    assert (row["value"], row["unit"], row["paper"], row["paper_unit"]) == (1.0, "of 2", 26.0, "of 32")
    assert summary(cells)["paper"].isna().all()


def write_scores(tmp_path, variant, values, diverged=None):
    """A scores file (rule readout) of smnist at ny = 6."""
    import json

    seeds = [
        {
            "seed": s,
            "metric": "accuracy",
            "value": v,
            "diverged": bool(diverged and diverged[s]),
            "n_nonfinite_sequences": 0,
            "peak": None,
        }
        for s, v in enumerate(values)
    ]
    path = tmp_path / f"{variant}.json"
    path.write_text(json.dumps({"task": "smnist", "ny": 6, "variant": variant, "seeds": seeds}))
    return path


SELECTIONS = pd.DataFrame([{"task": "smnist", "ny": 6, "selected_seed": 3, "selected_value": 70.0, "candidates": 4}])


def test_the_tuned_baseline_joins_the_tables_as_ours(tmp_path):
    """The fifth variant gets its column (no paper value), its p-values and its improvement, while
    the paper's significance count stays over the paper's two baselines."""
    from physres.tables.benchmark import render_benchmark, render_significance

    paths = [
        write_scores(tmp_path, "ron", [60.0, 70.0]),
        write_scores(tmp_path, "unoptimized", [10.0, 20.0, 30.0, 40.0]),
        write_scores(tmp_path, "partial", [40.0, 50.0, 45.0, 42.0]),
        write_scores(tmp_path, "pretrained", [55.0, 65.0, 60.0, 62.0]),
        write_scores(tmp_path, "unoptimized_tuned", [48.0, 52.0, 50.0, 46.0]),
    ]
    scores = load_scores(paths)
    table = benchmark_table(scores, SELECTIONS, PAPER_TABLE_2)
    assert np.isnan(table.set_index("variant").loc["unoptimized_tuned", "paper_mean"])
    render_benchmark(table, tmp_path / "benchmark")
    md = (tmp_path / "benchmark.md").read_text()
    header, row = md.splitlines()[2], md.splitlines()[4]
    assert header.rstrip(" |").endswith("Unoptimized, gain tuned (ours)")
    assert row.rstrip(" |").endswith("49.00 ± 2.58")  # no paper value beside it
    significance = significance_table(scores, alpha=0.05)
    assert list(significance["baseline"]) == ["unoptimized", "partial", "unoptimized_tuned"]
    assert significance.set_index("baseline").loc["unoptimized_tuned", "p_value"] == pytest.approx(1 / 70)
    render_significance(significance, tmp_path / "significance", 0.05)
    assert "p vs unoptimized_tuned" in (tmp_path / "significance.md").read_text()
    headline = summary(benchmark_cells(table), significance).set_index("quantity")
    assert headline.loc["mean relative improvement over unoptimized_tuned (ours)", "value"] == pytest.approx(
        100 * (60.5 - 49.0) / 49.0
    )
    assert headline.loc["significant comparisons (p < alpha)", "unit"] == "of 2"
    assert headline.loc["significant comparisons against unoptimized_tuned (ours)", "unit"] == "of 1"


def test_benchmark_table_uses_the_target_ron_and_excludes_diverged(tmp_path):
    def write(variant, values, diverged=None):
        return write_scores(tmp_path, variant, values, diverged)

    paths = [
        write("ron", [60.0, 70.0]),
        write("unoptimized", [10.0, 20.0, 30.0]),
        write("partial", [40.0, 50.0, 99.0], diverged=[False, False, True]),
        write("pretrained", [55.0, 65.0, 60.0]),
    ]
    table = benchmark_table(load_scores(paths), SELECTIONS, paper=[])
    cells = benchmark_cells(table).iloc[0]
    assert cells["ron"] == 70.0 and cells["unoptimized"] == 20.0 and cells["partial"] == 45.0
    row = table.set_index("variant").loc["partial"]
    assert row["n_diverged"] == 1 and row["n_seeds"] == 3
