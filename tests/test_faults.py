"""Faults injected on tiny data: each ends in a clear error that names the file and the rule
that remakes it, or in a correct result; none passes silently, and nothing read is lost."""

import copy
import gzip
import pickle
import subprocess
import sys
from pathlib import Path

import equinox as eqx
import jax
import numpy as np
import pytest
import yaml
from test_pretrain import ARCH, SCHEDULE, problem, run  # noqa: F401 - problem is a fixture

from physres import data
from physres.checkpoint import load_checkpoint, save_checkpoint
from physres.config import ConfigError, check_config
from physres.io import InputError
from physres.physical import init_physical_reservoir, stack_models, unstack_model
from physres.pretrain import failed_starts
from physres.pretraining_data import read_dataset, write_dataset
from physres.readout import score_activations
from physres.reservoirs import load_ensemble
from physres.ron import init_ron, load_ron, save_ron
from physres.tables.pretraining import pretraining_scores

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def leaves(tree):
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(eqx.filter(tree, eqx.is_array))]


# --------------------------------------------------------------------------- resume


def test_resume_file_of_another_configuration_is_set_aside(problem, tmp_path):  # noqa: F811
    """Kill a run, change its seeds (a parameter that keeps the compiled program, so the test
    compiles nothing new; the fingerprint covers every parameter alike), rerun: the old state is
    renamed, never resumed, and the result equals a fresh run of the new configuration bitwise."""
    from physres.pretrain import pretrain_multistart

    resume = tmp_path / "resume.eqx"
    run(problem, "full", resume_path=resume, checkpoint_every=2, stop_after=3, fingerprint="seeds 0, 1")
    assert resume.exists()
    _, dataset = problem
    other_seeds = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **ARCH) for s in (2, 3)])
    rerun = pretrain_multistart(
        other_seeds,
        dataset,
        SCHEDULE,
        "full",
        jax.random.PRNGKey(7),
        resume_path=resume,
        checkpoint_every=2,
        fingerprint="seeds 2, 3",
    )
    fresh = pretrain_multistart(other_seeds, dataset, SCHEDULE, "full", jax.random.PRNGKey(7))
    assert (tmp_path / "resume.eqx.stale").exists()
    for a, b in zip(leaves(rerun), leaves(fresh)):
        np.testing.assert_array_equal(a, b)


def test_unreadable_resume_file_is_set_aside(problem, tmp_path):  # noqa: F811
    resume = tmp_path / "resume.eqx"
    resume.write_bytes(b"\x00\x01 written by an older physres, no header")
    state = run(problem, "full", resume_path=resume, checkpoint_every=100, stop_after=1, fingerprint="f")
    assert int(state.epoch) == 1 and (tmp_path / "resume.eqx.stale").exists()


def test_part_of_another_training_is_refused_and_kept(problem, tmp_path):  # noqa: F811
    """A training split into jobs continues only from a state of its own run: a part saved by
    another configuration (here other seeds) is an error that names the file, and the file stays
    where it is (an input of the job, never set aside as a resume file is)."""
    from physres.pretrain import pretrain_multistart, save_state

    first = tmp_path / "epoch2.eqx"
    state = run(problem, "full", stop_after=2, fingerprint="seeds 0, 1")
    save_state(first, state, "seeds 0, 1")
    models, dataset = problem
    with pytest.raises(ValueError, match="cannot continue the training from .*epoch2.eqx.*another configuration"):
        pretrain_multistart(
            models, dataset, SCHEDULE, "full", jax.random.PRNGKey(7), start_from=first, fingerprint="seeds 2, 3"
        )
    assert first.exists()


def test_resume_file_from_before_the_jobs_start_is_set_aside(problem, tmp_path, caplog):  # noqa: F811
    """A part's resume file that holds an epoch before the part's start (left by an unsplit run
    of the same configuration) is set aside, and the job goes on from its part's state, as the
    log says; the result is the split training's."""
    import logging

    from physres.pretrain import save_state

    resume, part = tmp_path / "resume.eqx", tmp_path / "epoch3.eqx"
    run(problem, "full", resume_path=resume, checkpoint_every=1, stop_after=2, fingerprint="f")
    save_state(part, run(problem, "full", stop_after=3, fingerprint="f"), "f")
    caplog.set_level("INFO")
    log = logging.getLogger("test")
    state = run(problem, "full", resume_path=resume, checkpoint_every=100, start_from=part, fingerprint="f", log=log)
    assert (tmp_path / "resume.eqx.stale").exists() and "outside this job's epochs 3-6" in caplog.text
    assert "going on from epoch 3" in caplog.text
    uninterrupted = run(problem, "full", fingerprint="f")
    for a, b in zip(leaves(state), leaves(uninterrupted)):
        np.testing.assert_array_equal(a, b)


def definition_reads(script: Path) -> tuple[set[str], set[str]]:
    """(params and wildcards the script reads, those inside its pretrain_job(definition=...))."""
    import ast

    tree = ast.parse(script.read_text())
    assigned = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }

    def reads(node) -> set[str]:
        found = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in ("p", "wc"):
                if sub.attr != "get":  # p.get("x") is read as p.x below
                    found.add(f"{sub.value.id}.{sub.attr}")
            elif (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "get"
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id in ("p", "wc")
            ):
                found.add(f"{sub.func.value.id}.{sub.args[0].value}")
            elif isinstance(sub, ast.Name) and sub.id in assigned and sub.id not in ("p", "wc", "log"):
                found |= reads(assigned[sub.id])
        return found

    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "pretrain_job")
    definition = next(k.value for k in call.keywords if k.arg == "definition")
    return reads(tree), reads(definition)


@pytest.mark.parametrize(
    "script, outside",
    [
        ("pretrain.py", {"p.resume", "p.checkpoint_every", "p.stop_after"}),
        ("retune_cross_task.py", {"p.resume", "p.checkpoint_every"}),
    ],
)
def test_resume_fingerprint_covers_every_parameter(script, outside):
    """Every param and wildcard a pretraining script reads enters the fingerprint that a resume
    file or an earlier part's state must match, except where to resume, how often, and where a
    part of a split training stops (the dataset and the libraries' versions are added by
    physres.pretrain_job): a run changed in anything else never continues another's state."""
    read, fingerprinted = definition_reads(ROOT / "workflow/scripts" / script)
    assert read - fingerprinted == outside


# --------------------------------------------------------------------------- failed training


def test_training_without_a_finite_loss_is_carried_as_failed(problem, tmp_path, caplog):  # noqa: F811
    """No start ever reaches a finite validation loss (here: a non-finite validation label, so
    the compiled program is the usual one). The job's log warns for each start, the starts are
    marked failed, their rollouts come out non-finite, the readout calls them diverged, the
    tables count them; nothing is scored as if trained."""
    import logging

    from physres.pretrain import pretrain_multistart, start_records

    models, dataset = problem
    poisoned = {**dataset, "val": {**dataset["val"], "yddot": dataset["val"]["yddot"].copy()}}
    poisoned["val"]["yddot"][0, 0] = np.nan
    state = pretrain_multistart(models, poisoned, SCHEDULE, "full", jax.random.PRNGKey(7), stop_after=2)
    assert failed_starts(state).all() and (np.asarray(state.kept_epoch) == -1).all()
    test = jax.tree_util.tree_map(jax.numpy.asarray, dataset["test"])
    with caplog.at_level(logging.WARNING):
        records = start_records(state, models, test, [0, 1], logging.getLogger("pretrain"))
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [f"seed {s}: training never reached a finite validation loss; marked failed" for s in (0, 1)]
    assert all(r["failed"] and r["test_rmse"] is None for r in records)
    paths = []
    for i, seed in enumerate((0, 1)):
        path = tmp_path / f"seed{seed}.eqx"
        save_checkpoint(
            path,
            unstack_model(state.kept_model, i),
            {"architecture": ARCH, "seed": seed, "failed": bool(failed_starts(state)[i])},
        )
        paths.append(str(path))
    ensemble = load_ensemble("pretrained", paths, [0, 1], reference_dt=0.05, sim_dt=0.01, divergence_bound=1e3)
    u = np.random.default_rng(0).uniform(0, 1, size=(3, 4, 1))
    states, peak = ensemble.final_states(u)
    assert np.isnan(states).all() and np.isinf(peak).all()
    task = data.TaskData("smnist", data.Split(u, np.array([0, 1, 0])), data.Split(u, np.array([1, 0, 1])))
    score = score_activations(task, states[0], states[0], [peak[0]])
    assert score.diverged and score.value is None
    frame = pretraining_scores(
        [
            {
                "task": "smnist",
                "ny": 6,
                "mode": "full",
                "seeds": [{"seed": 0, "test_rmse": None, "trajectory_nrmse": None, "diverged": True, "failed": True}],
            }
        ]
    )
    assert frame["diverged"].all() and frame["value"].isna().all()


# --------------------------------------------------------------------------- inputs


def task_file(tmp_path, u_train):
    path = tmp_path / "results/data/mackey_glass.h5"
    split = data.Split(np.asarray(u_train, np.float32))
    task = data.TaskData("mackey_glass", split, data.Split(np.zeros((1, 5, 1), np.float32)), {"washout": 1, "lag": 1})
    data.write_task(path, task)
    return path


def test_task_file_with_nonfinite_inputs_names_the_file_and_rule(tmp_path):
    import h5py

    path = task_file(tmp_path, np.zeros((2, 5, 1)))
    with h5py.File(path, "r+") as h5:
        h5["train/u"][0, 2, 0] = np.nan
    with pytest.raises(
        InputError, match=r"mackey_glass\.h5: /train/u holds 1 non-finite values.*task_data_mackey_glass"
    ):
        data.read_task(path)
    assert path.exists()  # the error destroys nothing


def test_truncated_task_file_is_refused(tmp_path):
    path = task_file(tmp_path, np.zeros((2, 5, 1)))
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(InputError, match="not a readable HDF5 file.*task_data_mackey_glass"):
        data.read_task(path)


def fake_mnist_npz(tmp_path):
    rng = np.random.default_rng(0)
    parts = [(rng.integers(0, 256, size=(n, 784)).astype(np.float32) / 256, rng.integers(0, 10, n)) for n in (6, 3, 4)]
    with gzip.open(tmp_path / "m.pkl.gz", "wb") as handle:
        pickle.dump(tuple(parts), handle, protocol=2)
    data.mnist_pickle_to_npz(tmp_path / "m.pkl.gz", tmp_path / "mnist.npz")
    return tmp_path / "mnist.npz"


def test_truncated_or_changed_mnist_archive_says_refetch(tmp_path):
    npz = fake_mnist_npz(tmp_path)
    assert data.smnist(npz, n_train=2, n_test=2, seed=0).train.u.shape == (2, 784, 1)
    npz.write_bytes(npz.read_bytes()[:-100])
    with pytest.raises(InputError, match=r"mnist\.npz: not the MNIST archive.*fetch_mnist"):
        data.smnist(npz, n_train=2, n_test=2, seed=0)
    (tmp_path / "mnist.npz.sha256").unlink()
    with pytest.raises(InputError, match="checksum record .* is missing"):
        data.smnist(npz, n_train=2, n_test=2, seed=0)


def test_adiac_file_changed_after_download_is_refused(tmp_path):
    rows = "\n".join("\t".join(["1"] + [f"{v:.3f}" for v in np.linspace(-1, 1, 8)]) for _ in range(3))
    for split in ("TRAIN", "TEST"):
        (tmp_path / f"Adiac_{split}.tsv").write_text(rows + "\n")
    sha = {s.lower(): data.sha256_of(tmp_path / f"Adiac_{s}.tsv") for s in ("TRAIN", "TEST")}
    data.adiac(tmp_path / "Adiac_TRAIN.tsv", tmp_path / "Adiac_TEST.tsv", sha256=sha)
    (tmp_path / "Adiac_TEST.tsv").write_text(rows.replace("0.143", "0.144", 1) + "\n")  # one digit
    with pytest.raises(InputError, match=r"Adiac_TEST\.tsv: not the ADIAC file.*sha256.*fetch_adiac"):
        data.adiac(tmp_path / "Adiac_TRAIN.tsv", tmp_path / "Adiac_TEST.tsv", sha256=sha)


def test_pretraining_dataset_with_nonfinite_labels_is_refused(tmp_path):
    split = {k: np.zeros((4, 3)) for k in ("y", "ydot", "yddot")} | {"u": np.zeros((4, 1))}
    bad = copy.deepcopy(split)
    bad["yddot"][1, 1] = np.inf
    path = tmp_path / "ny3.h5"
    write_dataset(path, {"train": split, "val": split, "test": bad}, {"y_low": np.zeros(3)}, {"seed": 0})
    with pytest.raises(InputError, match=r"/test/yddot holds 1 non-finite.*pretraining_dataset"):
        read_dataset(path)


def test_ron_file_with_nonfinite_weights_is_refused(tmp_path):
    import h5py

    ron = init_ron(
        0,
        ny=3,
        nu=1,
        dt=0.05,
        spectral_radius_target=0.9,
        input_scaling=1.0,
        gamma_range=(1.0, 2.0),
        epsilon_range=(1.0, 2.0),
    )
    path = tmp_path / "seed0.h5"
    save_ron(path, ron, {"task": "mackey_glass"})
    assert load_ron(path).ny == 3
    with h5py.File(path, "r+") as h5:
        h5["W"][0, 0] = np.nan
    with pytest.raises(InputError, match=r"seed0\.h5: W holds 1 non-finite values.*reference_ron"):
        load_ron(path)


def test_damaged_checkpoint_names_the_pretrain_rule(problem, tmp_path):  # noqa: F811
    models, _ = problem
    path = tmp_path / "seed0.eqx"
    save_checkpoint(path, unstack_model(models, 0), {"architecture": ARCH, "seed": 0})
    path.with_suffix(".json").unlink()  # the .eqx alone rebuilds the model
    assert load_checkpoint(path)[1]["seed"] == 0
    path.write_bytes(path.read_bytes()[:-64])
    with pytest.raises(InputError, match=r"seed0\.eqx: cannot be rebuilt.*'pretrain'"):
        load_checkpoint(path)
    eqx.tree_serialise_leaves(path, unstack_model(models, 0))  # leaves without the header
    with pytest.raises(InputError, match=r"seed0\.eqx: cannot be rebuilt .*no 'physres checkpoint 1' header"):
        load_checkpoint(path)


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda c: c["pretrain"].update(learning_rate=float("nan")),
            "pretrain.learning_rate: nan is not a finite number",
        ),
        (
            lambda c: c["evaluation"].update(divergence_bound=float("inf")),
            "evaluation.divergence_bound: inf is not a finite",
        ),
        (
            lambda c: c["robot"]["init_ranges"].update(length=[0.8, 0.01]),
            r"robot.init_ranges.length: range \[0.8, 0.01\] is reversed",
        ),
        (
            lambda c: c["pretrain"].update(warmup_epochs=c["pretrain"]["epochs"]),
            "pretrain.warmup_epochs: .* must be below pretrain.epochs",
        ),
        (
            lambda c: c["pretrain"].update(batch_size=10**6),
            r"pretrain.batch_size: 1000000 exceeds the 70000 training points",
        ),
    ],
)
def test_config_refuses_values_that_cannot_run(edit, message):
    config = copy.deepcopy(CONFIG)
    edit(config)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


def test_a_target_after_configfile_is_refused_with_the_fix(tmp_path):
    result_json = tmp_path / "evaluation.json"
    result_json.write_text('{"task": "smnist", "ny": 6}')  # parses as a config: merged silently before
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", "workflow/configs/quick.yaml", str(result_json)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert "targets must come first" in out.stdout + out.stderr


def test_unwritable_results_folder_names_the_folder(tmp_path, monkeypatch):
    """(Simulated: the tests run as root, who may write anywhere.)"""
    import tempfile

    from physres.io import write_json

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError, match=r"cannot write .*scores\.json: no permission .*results.*chmod u\+w"):
        write_json(tmp_path / "results" / "scores.json", {"a": 1})


def test_damaged_activations_and_scores_name_the_rule_that_remakes_them(tmp_path):
    from physres.formats import load_scores
    from physres.io import read_h5

    activations = tmp_path / "ron.h5"
    activations.write_bytes(b"not an HDF5 file")
    with pytest.raises(InputError, match=r"ron\.h5: not a readable HDF5 file.*'rollout_ron'"):
        with read_h5(activations, "rollout_ron"):
            pass
    scores = tmp_path / "ron.json"
    scores.write_text('{"task": "smnist", "ny"')
    with pytest.raises(InputError, match=r"ron\.json: not a readable JSON file.*'readout'"):
        load_scores([scores])
