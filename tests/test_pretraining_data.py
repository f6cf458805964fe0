"""Pretraining datasets: box sampling, labels from f_ref, the split."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import small_ron

from physres.pretraining_data import read_dataset, sample_dataset, sampling_box, shared_box, visited_box, write_dataset
from physres.ron import f_ref, ron_rollout


def test_box_covers_the_rollout(rng):
    ron = small_ron()
    u = rng.uniform(-0.5, 0.3, size=(5, 200, 1))
    box = visited_box(ron, u, chunk_size=2)  # chunking with a padded last chunk
    y = np.asarray(ron_rollout(ron, jnp.asarray(u), keep="all"))
    np.testing.assert_allclose(box["y_low"], y.min(axis=(0, 1)))
    np.testing.assert_allclose(box["y_high"], y.max(axis=(0, 1)))
    assert box["u_low"][0] == u.min() and box["u_high"][0] == u.max()


def test_shared_box_is_one_symmetric_range_that_covers_the_visited_one():
    visited = {
        "y_low": np.array([-0.35, 0.0, -0.1]),
        "y_high": np.array([0.2, 0.28, 0.0]),
        "ydot_low": np.array([-0.29, -0.05, 0.0]),
        "ydot_high": np.array([0.25, 0.1, 0.3]),
        "u_low": np.array([-1.0, -2.0]),
        "u_high": np.array([2.6, 0.5]),
    }
    box = shared_box(visited)
    np.testing.assert_array_equal(box["y_low"], [-0.35] * 3)
    np.testing.assert_array_equal(box["y_high"], [0.35] * 3)
    np.testing.assert_array_equal(box["ydot_low"], [-0.3] * 3)
    np.testing.assert_array_equal(box["ydot_high"], [0.3] * 3)
    np.testing.assert_array_equal(box["u_low"], [-2.0, -2.0])
    np.testing.assert_array_equal(box["u_high"], [2.6, 2.6])
    for name in ("y", "ydot", "u"):  # never narrower than what the RON visits
        assert np.all(box[f"{name}_low"] <= visited[f"{name}_low"])
        assert np.all(box[f"{name}_high"] >= visited[f"{name}_high"])
    assert sampling_box(visited, "per_coordinate") is visited
    with pytest.raises(ValueError, match=r"pretraining_dataset.box 'wide'; allowed: shared, per_coordinate"):
        sampling_box(visited, "wide")


def test_samples_labels_and_split(rng, tmp_path):
    ron = small_ron()
    box = visited_box(ron, rng.uniform(-0.5, 0.3, size=(3, 100, 1)), chunk_size=3)
    dataset = sample_dataset(ron, box, m=1000, fractions=[0.7, 0.1, 0.2], seed=0)
    assert [len(dataset[s]["y"]) for s in ("train", "val", "test")] == [700, 100, 200]
    for split in dataset.values():
        for name in ("y", "ydot", "u"):
            assert np.all(split[name] >= box[f"{name}_low"]) and np.all(split[name] <= box[f"{name}_high"])
        expected = jax.vmap(f_ref, in_axes=(None, 0, 0, 0))(ron, split["y"], split["ydot"], split["u"])
        np.testing.assert_allclose(split["yddot"], expected, rtol=1e-10, atol=1e-14)
    # no point appears in two splits
    all_y = np.concatenate([dataset[s]["y"] for s in ("train", "val", "test")])
    assert len(np.unique(all_y, axis=0)) == 1000
    write_dataset(tmp_path / "d.h5", dataset, box, {"seed": 0})
    back = read_dataset(tmp_path / "d.h5")
    np.testing.assert_array_equal(back["val"]["yddot"], dataset["val"]["yddot"])
    again = sample_dataset(ron, box, m=1000, fractions=[0.7, 0.1, 0.2], seed=0)
    np.testing.assert_array_equal(again["test"]["y"], dataset["test"]["y"])
