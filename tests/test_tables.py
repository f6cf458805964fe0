"""Tables: aggregation over seeds excludes and counts diverged runs."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from physres.tables.common import aggregate
from physres.tables.reference import render_ron_reference, ron_reference_table


def scores_frame():
    rows = []
    for seed, value in enumerate([0.5, 0.7, None, 0.6]):
        rows.append(
            {
                "task": "mackey_glass",
                "ny": 6,
                "variant": "ron",
                "seed": seed,
                "metric": "nrmse",
                "value": value,
                "diverged": value is None,
            }
        )
    for seed, value in enumerate([60.0, 70.0]):
        rows.append(
            {
                "task": "smnist",
                "ny": 6,
                "variant": "ron",
                "seed": seed,
                "metric": "accuracy",
                "value": value,
                "diverged": False,
            }
        )
    frame = pd.DataFrame(rows)
    frame["value"] = frame["value"].astype(float)
    return frame


def test_aggregate_excludes_and_counts_diverged():
    table = aggregate(scores_frame(), ["task", "ny"])
    assert list(table["task"]) == ["smnist", "mackey_glass"]  # the paper's task order
    mg = table[table["task"] == "mackey_glass"].iloc[0]
    assert mg["n_seeds"] == 4 and mg["n_diverged"] == 1
    assert mg["mean"] == pytest.approx(0.6) and mg["std"] == pytest.approx(np.std([0.5, 0.7, 0.6], ddof=1))


def test_ron_reference_table_files(tmp_path):
    paper = pd.DataFrame(
        [{"task": "mackey_glass", "ny": 6, "paper": 0.513}, {"task": "smnist", "ny": 6, "paper": 65.88}]
    )
    selections = pd.DataFrame(
        [{"task": "smnist", "ny": 6, "selected_seed": 5, "selected_value": 61.5, "candidates": 8}]
    )
    table = ron_reference_table(scores_frame(), paper, selections)
    assert table.loc[table["task"] == "smnist", "selected_value"].item() == 61.5
    assert np.isnan(table.loc[table["task"] == "mackey_glass", "selected_value"].item())
    render_ron_reference(table, tmp_path / "ron_reference")
    csv = pd.read_csv(tmp_path / "ron_reference.csv")
    assert {"task", "ny", "metric", "n_seeds", "n_diverged", "mean", "std", "paper"} <= set(csv.columns)
    md = (tmp_path / "ron_reference.md").read_text()
    assert "65.00 ± 7.07" in md and "61.50" in md and "0.600 ± 0.100 (*)" in md
    assert "$0.600_{0.100}^{*}$" in (tmp_path / "ron_reference.tex").read_text()
    page = (tmp_path / "ron_reference.html").read_text()
    assert "<table" in page and "65.00 ± 7.07" in page and "Digital RON reference" in page


def test_trajectory_figure_draws_the_first_start_that_did_not_diverge(tmp_path):
    from physres.figures import first_bounded_start, save_figure, trajectory_figure

    y_hat = np.zeros((3, 5, 6))
    y_hat[0, 2:] = np.nan  # start 0 diverged after two steps
    assert first_bounded_start(y_hat) == 1
    y_hat[1:, -1, 0] = np.inf
    assert first_bounded_start(y_hat) is None
    fig = trajectory_figure({"full": (np.zeros((5, 6)), np.ones((5, 6))), "rob_fixed": (np.zeros((5, 6)), None)}, 0.1)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts == ["every start diverged"]
    assert [len(ax.lines) for ax in fig.axes] == [4, 2]  # y_hat and y for y1, y3; only y where all diverged
    save_figure(fig, tmp_path / "f.pdf", tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 0


def test_scalability_figure_cuts_the_std_band_at_zero():
    """A blown-up baseline (Lorenz96 ny 12 at paper scale: 8.5 +- 11) must not draw a band below 0."""
    from physres.figures import scalability_figure

    table = pd.DataFrame(
        {
            "task": ["lorenz96"] * 4,
            "ny": [6, 12, 6, 12],
            "variant": ["ron", "ron", "unoptimized", "unoptimized"],
            "metric": ["nrmse"] * 4,
            "mean": [np.nan, np.nan, 0.61, 8.5],
            "std": [np.nan, np.nan, np.nan, 11.0],
            "target": [0.56, 0.46, np.nan, np.nan],
            "n_diverged": [0, 0, 3, 2],
        }
    )
    fig = scalability_figure(table, {})
    (band,) = fig.axes[0].collections
    lower = min(vertices[:, 1].min() for vertices in (path.vertices for path in band.get_paths()))
    assert lower == 0.0  # 8.5 - 11 cut at 0; the single run at ny 6 has no band
    assert max(v[:, 1].max() for v in (path.vertices for path in band.get_paths())) == 19.5


def test_pretraining_summary_reproduces_the_papers_stated_figures(tmp_path):
    """Applied to the paper's own Table 1 (as evaluation JSONs), the summary gives the numbers its
    text states: 90.2, 61.6, 77.1, 86.4 % and 7 of 64 diverged; the second RMSE reading is
    sqrt(ny) times the first."""
    from pathlib import Path

    import yaml

    from physres.tables.pretraining import (
        pretraining_scores,
        pretraining_summary,
        pretraining_table,
        render_pretraining_summary,
    )

    config = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())
    paper = config["pretrain"]["paper"]
    evaluations = []
    for p in paper:  # mean +- std as two seeds, and the paper's diverged trajectories as extra seeds
        mean, std = p["test_rmse"]
        nrmse = p["trajectory_nrmse"][0]
        seeds = [
            {"seed": s, "test_rmse": mean + sign * std, "trajectory_nrmse": nrmse, "diverged": False}
            for s, sign in enumerate((-1, 1))
        ]
        seeds += [
            {"seed": 2 + k, "test_rmse": mean, "trajectory_nrmse": None, "diverged": True}
            for k in range(p["n_diverged"])
        ]
        evaluations.append({"task": p["task"], "ny": p["ny"], "mode": p["mode"], "seeds": seeds})
    scores = pretraining_scores(evaluations)
    both = scores.pivot_table(index=["task", "ny", "mode", "seed"], columns="metric", values="value")
    np.testing.assert_allclose(
        both["test_rmse_norm"], both["test_rmse"] * np.sqrt(both.index.get_level_values("ny")), rtol=1e-12
    )
    table = pretraining_table(scores, paper, config["robot"]["layouts"])
    summary = pretraining_summary(table, paper, config["pretrain"]["paper_summary"]).set_index("quantity")
    for task, stated in {"smnist": 90.2, "adiac": 61.6, "mackey_glass": 77.1, "lorenz96": 86.4}.items():
        row = summary.loc[f"test RMSE reduction of full over theta_rob fixed: {task}"]
        assert row["value"] == pytest.approx(stated, abs=0.05)
        assert row["paper_computed"] == pytest.approx(stated, abs=0.05)
    assert summary.loc["diverged theta_rob-fixed trajectories", "value"] == 7
    render_pretraining_summary(summary.reset_index(), tmp_path / "summary")
    assert "90.2 %" in (tmp_path / "summary.md").read_text()


def test_simplified_controllers_table_beside_the_paper(tmp_path):
    """Both controllers' pretraining and PRC rows for a classification and a forecasting task;
    diverged starts counted and left out; FLOPs from the paper's formulas; paper values merged."""
    import yaml

    from physres import flops
    from physres.tables.simplified import render_simplified, simplified_table

    config = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())
    supplementary = config["supplementary"]

    def evaluation(task, rmses, nrmses):
        return {
            "task": task,
            "ny": 6,
            "mode": "full",
            "seeds": [
                {"seed": s, "test_rmse": r, "trajectory_nrmse": n, "diverged": n is None}
                for s, (r, n) in enumerate(zip(rmses, nrmses))
            ],
        }

    def scores(task, metric, values):
        frame = pd.DataFrame(
            [
                {
                    "task": task,
                    "ny": 6,
                    "variant": "pretrained",
                    "seed": s,
                    "metric": metric,
                    "value": v,
                    "diverged": v is None,
                }
                for s, v in enumerate(values)
            ]
        )
        frame["value"] = frame["value"].astype(float)
        return frame

    runs = {
        "full": (
            [evaluation("smnist", [0.1, 0.3], [0.01, 0.03]), evaluation("mackey_glass", [0.02, 0.04], [0.05, None])],
            pd.concat([scores("smnist", "accuracy", [60.0, 64.0]), scores("mackey_glass", "nrmse", [0.5, 0.6])]),
        ),
        "simplified": (
            [evaluation("smnist", [0.2, 0.2], [0.06, 0.06]), evaluation("mackey_glass", [0.03, 0.05], [0.05, 0.07])],
            pd.concat([scores("smnist", "accuracy", [58.0, None]), scores("mackey_glass", "nrmse", [0.55, 0.65])]),
        ),
    }
    table = simplified_table(runs, config, supplementary["simplified"]["paper"])
    assert len(table) == 2 * 2 * 3  # tasks x controllers x (test RMSE, trajectory NRMSE, PRC)
    assert list(table["task"].unique()) == ["smnist", "mackey_glass"]
    cell = table.set_index(["task", "controller", "quantity"])
    assert cell.loc[("smnist", "full", "test_rmse"), "mean"] == pytest.approx(0.2)
    assert cell.loc[("mackey_glass", "full", "trajectory_nrmse"), "n_diverged"] == 1
    assert cell.loc[("mackey_glass", "full", "trajectory_nrmse"), "mean"] == pytest.approx(0.05)
    assert cell.loc[("smnist", "simplified", "prc"), ["mean", "n_diverged"]].tolist() == [58.0, 1]
    assert cell.loc[("smnist", "simplified", "prc"), "paper_mean"] == 61.20
    assert cell.loc[("mackey_glass", "full", "prc"), "paper_std"] == 0.003
    size = flops.task_size(config, "mackey_glass")
    assert (
        cell.loc[("mackey_glass", "simplified", "prc"), "flops"]
        == flops.pipeline_flops(6, size)["prc_simplified"]["total"]
    )
    render_simplified(table, tmp_path / "simplified", supplementary["flops"]["paper"])
    md = (tmp_path / "simplified.md").read_text()
    assert "58.00 ± -- (*) (paper 61.20 ± 1.62)" in md and "(paper 1.23e+06)" in md
    assert {"csv", "md", "tex", "html"} == {p.suffix[1:] for p in tmp_path.iterdir()}
