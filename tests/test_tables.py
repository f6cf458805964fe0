"""Tables: aggregation over seeds excludes and counts diverged runs."""
import numpy as np
import pandas as pd
import pytest

from physres.tables import aggregate, render_ron_reference, ron_reference_table


def scores_frame():
    rows = []
    for seed, value in enumerate([0.5, 0.7, None, 0.6]):
        rows.append({"task": "mackey_glass", "ny": 6, "variant": "ron", "seed": seed, "metric": "nrmse",
                     "value": value, "diverged": value is None})
    for seed, value in enumerate([60.0, 70.0]):
        rows.append({"task": "smnist", "ny": 6, "variant": "ron", "seed": seed, "metric": "accuracy",
                     "value": value, "diverged": False})
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
    paper = pd.DataFrame([{"task": "mackey_glass", "ny": 6, "paper": 0.513}, {"task": "smnist", "ny": 6, "paper": 65.88}])
    table = ron_reference_table(scores_frame(), paper, pretrain_seed=0)
    assert table.loc[table["task"] == "smnist", "pretrain_seed_value"].item() == 60.0
    render_ron_reference(table, tmp_path / "ron_reference")
    csv = pd.read_csv(tmp_path / "ron_reference.csv")
    assert {"task", "ny", "metric", "n_seeds", "n_diverged", "mean", "std", "paper"} <= set(csv.columns)
    md = (tmp_path / "ron_reference.md").read_text()
    assert "65.00 ± 7.07" in md and "0.600 ± 0.100 (*)" in md
    assert "$0.600_{0.100}^{*}$" in (tmp_path / "ron_reference.tex").read_text()


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
