"""Task data: generators, the restricted MNIST unpickler, checksums, storage."""

import gzip
import hashlib
import pickle

import numpy as np
import pytest

from physres import data


def test_lorenz96_rhs_matches_definition(rng):
    x = rng.normal(size=5)
    expected = np.array([(x[(i + 1) % 5] - x[i - 2]) * x[i - 1] - x[i] + 8.0 for i in range(5)])
    np.testing.assert_allclose(data.lorenz96_rhs(x, 0.0, 8.0), expected, rtol=1e-14)


def test_lorenz96_task_shapes_and_seeding():
    a = data.lorenz96(n_train=3, n_test=2, n_u=5, n_steps=300, dt=0.01, forcing=8.0, washout=200, lag=25, seed=0)
    b = data.lorenz96(n_train=3, n_test=2, n_u=5, n_steps=300, dt=0.01, forcing=8.0, washout=200, lag=25, seed=0)
    assert a.train.u.shape == (3, 300, 5) and a.test.u.shape == (2, 300, 5)
    np.testing.assert_array_equal(a.train.u, b.train.u)
    assert np.all(np.abs(a.train.u[:, 0] - 8.0) <= 0.5)  # x0 uniform in [F - 0.5, F + 0.5]
    assert not np.allclose(a.train.u[:2, 0], a.test.u[:, 0])  # separate batches


def test_mackey_glass_fixed_point_and_chaos():
    # the delay equation has the fixed point u* = theta (beta/gamma - 1)^(1/n) = 1 for (0.2, 0.1)
    constant = data.mackey_glass_series(50, initial_value=1.0, transient=10.0)
    np.testing.assert_allclose(constant, 1.0, atol=1e-12)
    series = data.mackey_glass_series(1000)
    assert 0.2 < series.min() and series.max() < 1.5 and series.std() > 0.1  # the chaotic regime


def test_mackey_glass_task_is_two_consecutive_sequences():
    task = data.mackey_glass(n_steps=300, washout=50, lag=10, transient=100.0)
    assert task.train.u.shape == (1, 300, 1) and task.test.u.shape == (1, 300, 1)
    full = np.tanh(data.mackey_glass_series(600, transient=100.0) - 1.0)
    np.testing.assert_allclose(task.test.u[0, :, 0], full[300:], rtol=1e-6)
    assert np.all(np.abs(task.train.u) < 1)


def fake_mnist_pickle(path, n=(6, 3, 4)):
    rng = np.random.default_rng(0)
    parts = []
    for count in n:
        pixels = rng.integers(0, 256, size=(count, 784)).astype(np.float32) / 256
        parts.append((pixels, rng.integers(0, 10, size=count).astype(np.int64)))
    with gzip.open(path, "wb") as handle:
        pickle.dump(tuple(parts), handle, protocol=2)
    return parts


def test_mnist_conversion_and_smnist_draw(tmp_path):
    parts = fake_mnist_pickle(tmp_path / "m.pkl.gz")
    data.mnist_pickle_to_npz(tmp_path / "m.pkl.gz", tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as arrays:
        assert arrays["x_train"].shape == (9, 784) and arrays["x_test"].shape == (4, 784)
        np.testing.assert_array_equal(arrays["x_train"][:6], np.rint(parts[0][0] * 256).astype(np.uint8))
        np.testing.assert_array_equal(arrays["y_train"][6:], parts[1][1])
    task = data.smnist(tmp_path / "m.npz", n_train=5, n_test=2, seed=0)
    assert task.train.u.shape == (5, 784, 1) and task.test.label.shape == (2,)
    assert task.train.u.min() >= 0.0 and task.train.u.max() <= 1.0


class Evil:
    def __reduce__(self):
        return (print, ("owned",))


def test_unpickler_refuses_anything_but_arrays(tmp_path):
    with gzip.open(tmp_path / "evil.pkl.gz", "wb") as handle:
        pickle.dump(((Evil(), 1), (2, 3), (4, 5)), handle, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        data.mnist_pickle_to_npz(tmp_path / "evil.pkl.gz", tmp_path / "out.npz")
    assert not (tmp_path / "out.npz").exists()


def test_checksum(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    good = hashlib.sha256(b"abc").hexdigest()
    assert data.check_sha256(path, good) == good
    assert data.check_sha256(path, None) == good
    with pytest.raises(data.ChecksumError, match="expected"):
        data.check_sha256(path, "0" * 64)


def test_adiac_reader_relabels(tmp_path):
    rows = ["3\t0.1\t0.2\t0.3", "1\t1.0\t2.0\t3.0"]
    (tmp_path / "tr.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "te.tsv").write_text("2\t0\t0\t0\n")
    task = data.adiac(tmp_path / "tr.tsv", tmp_path / "te.tsv")
    assert task.train.u.shape == (2, 3, 1)
    np.testing.assert_array_equal(task.train.label, [2, 0])
    np.testing.assert_array_equal(task.test.label, [1])
    assert task.attrs["n_classes"] == 3


def test_write_read_roundtrip_and_nonfinite_rejected(tmp_path):
    task = data.mackey_glass(n_steps=100, washout=10, lag=5, transient=10.0)
    data.write_task(tmp_path / "mg.h5", task)
    back = data.read_task(tmp_path / "mg.h5")
    assert back.kind == "forecasting" and back.attrs["lag"] == 5
    np.testing.assert_array_equal(back.train.u, task.train.u)
    task.train.u[0, 3, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        data.write_task(tmp_path / "bad.h5", task)
    assert not (tmp_path / "bad.h5").exists()


def test_average_pool_matches_a_loop():
    from physres.data import average_pool

    x = np.arange(2 * 4 * 6, dtype=float).reshape(2, 4, 6)
    pooled = average_pool(x, 2, (1, 2))
    expected = np.array(
        [[[x[b, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2].mean() for j in range(3)] for i in range(2)] for b in range(2)]
    )
    np.testing.assert_array_equal(pooled, expected)
    np.testing.assert_array_equal(average_pool(x, 1, (1,)), x)
    with pytest.raises(ValueError, match="does not divide"):
        average_pool(x, 4, (2,))


def test_adiac_subset_keeps_the_class_count_of_the_full_splits(tmp_path):
    rng = np.random.default_rng(0)
    for split, labels in (("TRAIN", [1, 2, 3, 3]), ("TEST", [3, 4, 1, 2])):
        rows = np.column_stack([labels, rng.normal(size=(4, 8))])
        np.savetxt(tmp_path / f"Adiac_{split}.tsv", rows, delimiter="\t")
    task = data.adiac(tmp_path / "Adiac_TRAIN.tsv", tmp_path / "Adiac_TEST.tsv", pool=4, n_train=2, n_test=1)
    assert task.attrs["n_classes"] == 4
    assert task.train.u.shape == (2, 2, 1) and task.test.u.shape == (1, 2, 1)
    np.testing.assert_array_equal(task.train.label, [0, 1])
    np.testing.assert_array_equal(task.test.label, [2])
