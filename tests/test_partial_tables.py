"""tools/partial_tables.py: Table 2's grid (a row per (task, ny), a column per variant), the cells
beyond the paper's std, and the summaries beside the paper's over the same cells."""

from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy.stats import ttest_ind_from_stats

from physres.stats import summary
from physres.tables.benchmark import benchmark_cells
from tools.partial_tables import (
    benchmark_grid,
    beyond_paper_std,
    paper_summary_on_cells,
    partial_pretraining_summary,
    partial_summary,
    partial_tests,
    per_seed_scores,
    pretrained_cells,
    scaled_by_ron,
    summary_per_cell,
)

ROOT = Path(__file__).resolve().parents[1]
nan = float("nan")


def test_the_grid_holds_every_cell_once_in_the_papers_order():
    long = pd.DataFrame(
        {
            "task": ["mackey_glass"] * 3 + ["adiac"] * 2,
            "ny": [6, 6, 6, 9, 9],
            "variant": ["pretrained", "unoptimized_tuned", "ron", "unoptimized", "ron"],
            "metric": ["nrmse"] * 3 + ["accuracy"] * 2,
            "ours": ["0.5", "0.6", "0.4", "30.1 ± 2*", "50.2"],
            "paper": ["0.52 ± 0.003", "-", "0.51", "38.57 ± 3.2", "53.2"],
        }
    )
    grid = benchmark_grid(long)
    assert list(grid.columns) == ["task", "ny", "ron", "unoptimized", "pretrained", "unoptimized_tuned"]
    assert list(zip(grid["task"], grid["ny"])) == [("mackey_glass", 6), ("adiac", 9)]  # the rows' order kept
    first, second = grid.iloc[0], grid.iloc[1]
    assert first["ron"] == "0.4 (0.51)" and first["pretrained"] == "0.5 (0.52 ± 0.003)"
    assert first["unoptimized"] == "" and first["unoptimized_tuned"] == "0.6 (-)"
    assert second["unoptimized"] == "30.1 ± 2* (38.57 ± 3.2)" and second["pretrained"] == ""
    assert benchmark_grid(None) is None


def test_beyond_the_papers_std_keeps_the_cells_farther_than_it_and_says_which_way():
    table = pd.DataFrame(
        {
            "task": ["adiac", "adiac", "adiac", "mackey_glass", "mackey_glass"],
            "ny": [6, 6, 6, 9, 9],
            "variant": ["ron", "unoptimized", "pretrained", "partial", "pretrained"],
            "metric": ["accuracy"] * 3 + ["nrmse"] * 2,
            "mean": [43.7, 32.5, 41.1, 0.532, 0.497],
            "std": [float("nan"), 6.3, 2.0, 0.029, 0.041],
            "n_seeds": [1, 4, 4, 4, 4],
            "n_diverged": [0, 0, 0, 1, 0],
            "paper_mean": [46.8, 30.54, 44.58, 0.582, 0.505],
            "paper_std": [float("nan"), 3.2, 1.0, 0.028, 0.016],
        }
    )
    beyond = beyond_paper_std(table, "variant")
    assert "of_ron" not in beyond  # Table 1's frame, or a Table 2 without its RON's scores
    table["target"] = [43.0, None, None, None, None]
    beyond = beyond_paper_std(table, "variant")
    assert beyond["of_ron"].iloc[0] == f"{41.1 / 43.0:.3f} ({44.58 / 46.8:.3f})"
    assert beyond["of_ron"].iloc[1] == "nan (nan)"  # Mackey-Glass ny 9's RON not scored
    # the digital column has no std; 32.5 is within 3.2 of 30.54, 0.497 within 0.016 of 0.505
    assert list(zip(beyond["task"], beyond["variant"])) == [("adiac", "pretrained"), ("mackey_glass", "partial")]
    assert list(beyond["in_paper_std"]) == [-3.5, -1.8]  # -3.48 / 1; -0.05 / 0.028
    assert list(beyond["in_combined_std"]) == [-1.6, -1.2]  # -3.48 / hypot(2, 1); -0.05 / hypot(0.029, 0.028)
    # Welch's t-test, over 4 and 4 runs, and over 3 (one diverged) and 4
    first = ttest_ind_from_stats(41.1, 2.0, 4, 44.58, 1.0, 4, equal_var=False).pvalue
    second = ttest_ind_from_stats(0.532, 0.029, 3, 0.582, 0.028, 4, equal_var=False).pvalue
    assert list(beyond["welch_p"]) == [round(first, 3), round(second, 3)]
    assert 0.01 < beyond.loc[0, "welch_p"] < 0.1 and 0.05 < beyond.loc[1, "welch_p"] < 0.2
    assert list(beyond["ours_better"]) == [False, True]  # lower accuracy is worse, lower NRMSE better
    assert beyond.loc[1, "ours"] == "0.532 ± 0.029*"
    assert beyond_paper_std(table.iloc[:2], "variant") is None and beyond_paper_std(None, "mode") is None


def mackey_glass_table_2(ours: dict[int, tuple]) -> pd.DataFrame:
    """scores_so_far's Table 2 for Mackey-Glass ny 6, 9 and 15 with the paper's values; ours per
    ny as (ron, unoptimized, partial, pretrained), NaN where ``ours`` has no ny."""
    paper = {6: (0.513, 0.717, 0.597, 0.525), 9: (0.432, 0.744, 0.582, 0.505), 15: (0.309, 0.73, 0.485, 0.425)}
    return pd.DataFrame(
        [
            {
                "task": "mackey_glass",
                "ny": ny,
                "variant": variant,
                "metric": "nrmse",
                "mean": nan if variant == "ron" else ours.get(ny, (nan,) * 4)[i],
                "target": ours.get(ny, (nan,) * 4)[i] if variant == "ron" else nan,
                "paper_mean": value,
            }
            for ny, values in paper.items()
            for i, (variant, value) in enumerate(zip(("ron", "unoptimized", "partial", "pretrained"), values))
        ]
    )


def test_the_papers_summary_on_our_cells_uses_only_the_cells_we_have():
    """Ours at ny 6 and 15; ny 9 has no score of ours."""
    table = mackey_glass_table_2({6: (0.5, 1.0, 1.0, 1.0), 15: (0.5, 1.0, 1.0, 1.0)})
    got = paper_summary_on_cells(table).set_index("quantity")["value"]
    # NRMSE: performance is 1 / NRMSE, improvement the NRMSE's reduction, over ny 6 and 15 only
    share = (0.513 / 0.525 + 0.309 / 0.425) / 2
    over_unoptimized = ((0.717 - 0.525) / 0.717 + (0.73 - 0.425) / 0.73) / 2
    assert got["share of RON performance retained"] == pytest.approx(100 * share)
    assert got["mean relative improvement over unoptimized"] == pytest.approx(100 * over_unoptimized)
    assert got["improvement of pretrained from ny = 6 to 15: mackey_glass"] == pytest.approx(100 * 0.1 / 0.525)


def test_the_summary_so_far_scales_over_the_cells_with_a_pretrained_score():
    """Ny 9 has its RON and unoptimized scores, its partial and pretrained columns are still to
    come (no rows, as scores_so_far gives them); at ny 15 every pretrained seed diverged (a row
    without a mean), which the rule counts as a cell."""
    table = mackey_glass_table_2({6: (0.54, 0.75, 0.55, 0.54), 9: (0.4, 0.8, nan, nan), 15: (0.34, 0.7, 0.54, 0.48)})
    table = table[~((table["ny"] == 9) & table["variant"].isin(["partial", "pretrained"]))]
    assert sorted(set(pretrained_cells(table)["ny"])) == [6, 15]
    diverged = table.assign(mean=table["mean"].where((table["ny"] != 15) | (table["variant"] != "pretrained")))
    assert sorted(set(pretrained_cells(diverged)["ny"])) == [6, 15]
    got = summary(benchmark_cells(pretrained_cells(table))).set_index("quantity")["value"]
    assert got["improvement of pretrained from ny = 6 to 15: mackey_glass"] == pytest.approx(100 * 0.06 / 0.54)
    without_15 = table[table["ny"] != 15]
    assert "improvement of pretrained from ny = 6 to 9: mackey_glass" in set(
        summary(benchmark_cells(without_15))["quantity"]
    )
    assert not any("from ny" in q for q in summary(benchmark_cells(pretrained_cells(without_15)))["quantity"])


def test_the_summary_so_far_waits_for_a_pretrained_score_and_tests_for_a_baseline():
    """A run's first columns: with only the RON's scores no summary and no test (not an error);
    with the pretrained column beside it the share retained, still no test."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    table = mackey_glass_table_2({6: (0.54, nan, nan, 0.6)})
    table = table[(table["ny"] == 6) & table["variant"].isin(["ron", "pretrained"])]
    scores = pd.DataFrame(
        [
            {"task": "mackey_glass", "ny": 6, "variant": variant, "seed": seed, "metric": "nrmse"}
            | {"value": value, "diverged": False}
            for variant, value in (("ron", 0.54), ("pretrained", 0.6))
            for seed in range(4)
        ]
    )
    only_ron = (scores[scores["variant"] == "ron"], table[table["variant"] == "ron"])
    assert partial_summary(only_ron, config) is None
    assert partial_tests(only_ron, config) is None
    got = partial_summary((scores, table), config).set_index("quantity")
    assert got.loc["share of RON performance retained", "value"] == f"{100 * 0.54 / 0.6:.1f} %"
    assert partial_tests((scores, table), config) is None


def test_the_summarys_terms_per_cell_are_ours_beside_the_papers():
    """Ny 9 without a pretrained score of ours is left out; the terms' mean is the summary's."""
    table = mackey_glass_table_2({6: (0.54, 0.75, 0.55, 0.54), 9: (0.4, 0.8, 0.5, nan), 15: (0.34, 0.7, 0.54, 0.48)})
    per_cell = summary_per_cell(table)
    assert list(per_cell["ny"]) == [6, 15]
    assert per_cell.loc[0, "retained"] == f"{100 * 0.54 / 0.54:.1f} ({100 * 0.513 / 0.525:.1f})"
    assert per_cell.loc[0, "partial retained"] == f"{100 * 0.54 / 0.55:.1f} ({100 * 0.513 / 0.597:.1f})"
    assert per_cell.loc[0, "over partial"] == f"{100 * 0.01 / 0.55:.1f} ({100 * 0.072 / 0.597:.1f})"
    assert per_cell.loc[1, "over unoptimized"] == f"{100 * 0.22 / 0.7:.1f} ({100 * 0.305 / 0.73:.1f})"
    assert summary_per_cell(mackey_glass_table_2({9: (0.4, 0.8, 0.5, nan)})) is None


def test_the_pretraining_summary_sets_the_papers_table_1_on_the_same_cells_beside_its_text():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    table = pd.DataFrame(
        [
            {
                "task": "mackey_glass",
                "ny": 6,
                "mode": mode,
                "metric": metric,
                "mean": mean,
                "n_seeds": 4,
                "n_diverged": 0,
            }
            for mode, rmse in (("full", 0.004), ("rob_fixed", 0.04))
            for metric, mean in (("test_rmse", rmse), ("trajectory_nrmse", 0.1))
        ]
    )
    got = partial_pretraining_summary(table, config).set_index("quantity")
    row = got.loc["test RMSE reduction of full over theta_rob fixed: mackey_glass"]
    paper = {
        (p["ny"], p["mode"]): p["test_rmse"][0] for p in config["pretrain"]["paper"] if p["task"] == "mackey_glass"
    }
    assert row["value"] == "90.0 %" and row["cells"] == 1
    # the paper's Table 1 at ny 6 alone, and its text over all four ny
    assert row["paper, same cells"] == f"{100 * (1 - paper[6, 'full'] / paper[6, 'rob_fixed']):.1f}"
    assert row["paper (text, all cells)"] == "77.1"
    diverged = got.loc["diverged theta_rob-fixed trajectories"]
    assert (diverged["value"], diverged["paper, same cells"], diverged["paper (text, all cells)"]) == (
        "0 of 4",
        "0",
        "7",
    )
    assert partial_pretraining_summary(None, config) is None


def test_the_cells_to_come_are_the_papers_ratio_to_its_ron_times_ours():
    """Mackey-Glass ny 6 has a pretrained score (left out); ny 9 waits; ny 12 has no paper row."""
    selections = pd.DataFrame(
        {
            "task": ["mackey_glass"] * 3,
            "ny": [9, 6, 12],
            "selected_seed": [2, 3, 1],
            "selected_value": [0.4, 0.54, 0.37],
        }
    )
    table = mackey_glass_table_2({6: (0.54, 0.75, 0.55, 0.54)})
    paper = [
        {"task": "mackey_glass", "ny": 6, "ron": 0.513, "partial": [0.597, 0.13], "pretrained": [0.525, 0.003]},
        {"task": "mackey_glass", "ny": 9, "ron": 0.432, "partial": [0.582, 0.028], "pretrained": [0.505, 0.016]},
    ]
    got = scaled_by_ron(selections, table, paper)
    assert list(zip(got["task"], got["ny"])) == [("mackey_glass", 9)]
    assert got.loc[0, "pretrained"] == f"{0.505 / 0.432 * 0.4:.4g} (0.505)"
    assert got.loc[0, "partial"] == f"{0.582 / 0.432 * 0.4:.4g} (0.582)"
    assert len(scaled_by_ron(selections, None, paper)) == 2  # nothing scored yet: ny 6 waits too
    assert scaled_by_ron(selections.iloc[1:2], table, paper) is None


def test_the_tests_so_far_set_ours_beside_the_papers_and_compare_the_decisions():
    """ADIAC ny 6 (the paper: 0.0143 against unoptimized, 0.1000 against partial): ours beats
    every unoptimized seed (p = 1/70, the same decision) and only the diverged partial seed, which
    keeps the worst rank (not significant, as the paper's); Lorenz96 ny 9 has no pretrained score: no test."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    values = {
        ("adiac", 6, "unoptimized"): [10.0, 20.0, 30.0, 40.0],
        ("adiac", 6, "partial"): [70.0, 80.0, 75.0, None],
        ("adiac", 6, "pretrained"): [50.0, 55.0, 60.0, 65.0],
        ("lorenz96", 9, "unoptimized"): [0.6, 0.7, 0.8, 0.9],
    }
    scores = pd.DataFrame(
        [
            {
                "task": task,
                "ny": ny,
                "variant": variant,
                "seed": seed,
                "metric": "nrmse" if task == "lorenz96" else "accuracy",
                "value": nan if value is None else value,
                "diverged": value is None,
            }
            for (task, ny, variant), runs in values.items()
            for seed, value in enumerate(runs)
        ]
    )
    tests = partial_tests((scores, None), config)
    assert list(zip(tests["ny"], tests["baseline"])) == [(6, "unoptimized"), (6, "partial")]
    # against partial ours beats only the diverged seed: U = 4, P(U >= 4) = 63 / 70 (4 + 4 runs)
    assert list(tests["p"]) == [f"{1 / 70:.4f}", f"{63 / 70:.4f}"]
    assert list(tests["paper p"]) == ["0.0143", "0.1000"]
    assert list(tests["same decision"]) == ["yes", "yes"]
    assert partial_tests(None, config) is None


def test_per_seed_scores_give_each_run_of_a_cell_and_mark_the_diverged():
    scores = pd.DataFrame(
        [
            {
                "task": "lorenz96",
                "ny": 6,
                "variant": "unoptimized",
                "seed": seed,
                "value": value,
                "diverged": value != value,
            }
            for seed, value in enumerate([nan, nan, nan, 0.61034])
        ]
    )
    table = per_seed_scores((scores, None))
    assert list(table.columns) == ["task", "ny", "variant", "seed 0", "seed 1", "seed 2", "seed 3"]
    assert list(table.iloc[0, 3:]) == ["diverged", "diverged", "diverged", "0.6103"]
    assert per_seed_scores(None) is None
