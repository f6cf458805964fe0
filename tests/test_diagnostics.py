"""The diagnostics study's glue (physres.diagnostics): the common input reaches every channel in
its training range, a reservoir's diagnostics match the closed forms of a delay line, a diverged
reservoir gets none, and the table aggregates seeds as every other table does."""

import numpy as np
import pandas as pd
import pytest
from test_capacity import delay_line

from physres.diagnostics import channel_range, diagnose, diagnostic_inputs, to_channels
from physres.tables.diagnostics import diagnostics_table, memory_capacity_curves, render_diagnostics

SETTINGS = dict(washout=10, max_delay=8, ipc_max_delays=[8, 3, 2], threshold=0.02, rank_rtol=0.01)


def test_the_input_spans_each_channels_training_range():
    u_train = np.stack([np.linspace(0.2, 0.9, 12), np.full(12, 3.0)], axis=-1)[None]  # (1, 12, 2)
    lo, hi = channel_range(u_train)
    np.testing.assert_allclose(lo, [0.2, 2.5])  # a constant channel: a unit-wide range around it
    np.testing.assert_allclose(hi, [0.9, 3.5])
    np.testing.assert_allclose(to_channels(np.array([-1.0, 0.0, 1.0]), lo, hi), [[0.2, 2.5], [0.55, 3.0], [0.9, 3.5]])


def test_inputs_are_seeded_and_the_copies_stay_within_the_noise():
    lo, hi = np.array([0.0]), np.array([1.0])
    a = diagnostic_inputs(np.random.default_rng(3), lo, hi, 50, 6, 7, noise=0.1)
    b = diagnostic_inputs(np.random.default_rng(3), lo, hi, 50, 6, 7, noise=0.1)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a.u.shape == (1, 50, 1) and a.streams.shape == a.copies.shape == (6, 7, 1)
    np.testing.assert_allclose(a.u[0, :, 0], (a.s + 1) / 2)
    copies = 2 * a.copies[..., 0] - 1  # back to s
    assert np.ptp(copies, axis=0).max() <= 0.2 + 1e-12  # each step: one stream +- 0.1
    assert np.ptp(2 * a.streams[..., 0] - 1, axis=0).max() > 0.5  # independent streams differ


def test_a_delay_line_is_diagnosed_by_its_closed_forms():
    """n = 4 units u(t), ..., u(t - 3): memory capacity 4 (delays 0-3), total IPC 4, all of it of
    degree 1; 4 independent streams' final states span 4 dimensions, one stream's noisy copies too
    (each unit sees its own noise)."""
    rng = np.random.default_rng(0)
    s = rng.uniform(-1, 1, 4000)
    streams = rng.uniform(-1, 1, (20, 6))
    result = diagnose(delay_line(s, 4), s, streams[:, -4:][:, ::-1], streams[:, -4:][:, ::-1], **SETTINGS)
    assert not result["diverged"]
    np.testing.assert_allclose(result["memory_capacity"][:4], 1.0, atol=1e-12)
    assert result["memory_capacity_total"] == pytest.approx(4.0, abs=1e-9)
    assert result["ipc"]["1"] == pytest.approx(4.0, abs=1e-9) and result["ipc"]["2"] == result["ipc"]["3"] == 0.0
    assert result["kernel_rank"] == 4


def test_a_diverged_reservoir_has_no_diagnostics():
    s = np.random.default_rng(1).uniform(-1, 1, 200)
    states = delay_line(s, 3)
    states[150, 1] = np.nan
    finals = np.ones((5, 3))
    assert diagnose(states, s, finals, finals, **SETTINGS) == {"diverged": True}


def record(task, ny, values):
    """A diagnostics file's contents: variant -> seed -> (memory capacity total or None = diverged)."""

    def result(mc):
        if mc is None:
            return {"diverged": True}
        return {
            "diverged": False,
            "memory_capacity": [mc / 2, mc / 2],
            "memory_capacity_total": mc,
            "ipc": {"1": mc, "2": 0.5, "3": 0.25},
            "ipc_total": mc + 0.75,
            "kernel_rank": ny,
            "generalisation_rank": 2,
        }

    return {
        "task": task,
        "ny": ny,
        "variants": {v: {str(i): result(x) for i, x in enumerate(xs)} for v, xs in values.items()},
    }


def test_the_table_aggregates_seeds_and_marks_diverged_ones(tmp_path):
    records = [
        record("mackey_glass", 6, {"ron": [4.0, 6.0], "unoptimized": [1.0, None], "pretrained": [3.0, 5.0]}),
        record("smnist", 6, {"ron": [2.0, 2.0], "unoptimized": [None, None], "pretrained": [1.0, 1.0]}),
    ]
    table = diagnostics_table(records)
    assert list(dict.fromkeys(table["task"])) == ["smnist", "mackey_glass"]  # the paper's order
    assert list(dict.fromkeys(table[table["task"] == "mackey_glass"]["variant"])) == [
        "ron",
        "unoptimized",
        "pretrained",
    ]
    mc = table[table["metric"] == "memory_capacity_total"].set_index(["task", "variant"])
    assert mc.loc[("mackey_glass", "ron"), "mean"] == 5.0
    assert mc.loc[("mackey_glass", "ron"), "std"] == pytest.approx(np.sqrt(2.0))
    assert mc.loc[("mackey_glass", "unoptimized"), "mean"] == 1.0  # the diverged seed is not averaged
    assert mc.loc[("mackey_glass", "unoptimized"), "n_diverged"] == 1
    assert np.isnan(mc.loc[("smnist", "unoptimized"), "mean"])
    curves = memory_capacity_curves(records)
    np.testing.assert_allclose(curves[("mackey_glass", 6, "ron")], [2.5, 2.5])
    assert ("smnist", 6, "unoptimized") not in curves
    config = {"max_delay": 1, "ipc_max_delays": [1, 1, 1], "rank_streams": 4}
    render_diagnostics(table, tmp_path / "diagnostics", config)
    md = (tmp_path / "diagnostics.md").read_text()
    assert "5.00 ± 1.41" in md and "1.00 ± -- (*)" in md and "--**" in md
    csv = pd.read_csv(tmp_path / "diagnostics.csv")
    assert set(csv["metric"]) >= {"memory_capacity_total", "ipc_total", "kernel_rank", "generalisation_rank"}
