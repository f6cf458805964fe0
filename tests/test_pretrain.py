"""Multi-start pretraining: the loss falls, constraints hold, rob_fixed freezes theta_rob
bitwise, a killed-and-resumed run ends where an uninterrupted one does, checkpoints roundtrip.

All runs share one schedule and one problem size, so they share one compiled program."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from conftest import WORKFLOW_COMPILER, small_dataset

from physres.checkpoint import load_checkpoint, save_checkpoint
from physres.physical import init_physical_reservoir, stack_models, unstack_model
from physres.pretrain import pretrain_multistart
from physres.specs import Schedule

RANGES = yaml.safe_load(open("config.yaml"))["robot"]["init_ranges"]
SCHEDULE = Schedule(
    epochs=6,
    warmup_epochs=1,
    learning_rate=3e-2,
    final_learning_rate=1e-4,
    batch_size=40,
    clip_norm=1.0,
    keep="best_validation",
)
# The schema's fewest Gauss points and the kernel's compact form, which compile fastest: these tests
# are of pretraining's logic. The kernel's forms are held to soromox in tests/test_pcs.py, and the
# default unrolled form pretrains in test_seeded_pretraining_is_bitwise_repeatable_across_processes.
ARCH = dict(
    ny=6,
    nu=1,
    n_robots=1,
    n_pcs=2,
    init_ranges=RANGES,
    controller="simplified",
    gauss_points=3,
    dynamics="physres_compact",
)


@pytest.fixture(scope="module")
def problem():
    data = small_dataset(m=400)
    models = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **ARCH) for s in (0, 1)])
    return models, data


def run(problem, mode, **kwargs):
    models, data = problem
    return pretrain_multistart(models, data, SCHEDULE, mode, jax.random.PRNGKey(7), **kwargs)


@pytest.fixture(scope="module")
def full_run(problem):
    return run(problem, "full")


def test_keep_final_keeps_the_last_epoch_and_best_validation_the_least_loss(problem, full_run):
    """keep final: the kept model is the last epoch's, leaf for leaf, with that epoch's validation
    loss; keep best_validation: the epoch of least validation loss. The training itself (the
    trained model, the loss curves) is the same under both."""
    import dataclasses

    models, data = problem
    final = pretrain_multistart(
        models, data, dataclasses.replace(SCHEDULE, keep="final"), "full", jax.random.PRNGKey(7)
    )
    leaves = lambda m: jax.tree_util.tree_leaves(eqx.filter(m, eqx.is_array))  # noqa: E731
    for a, b in zip(leaves(final.kept_model), leaves(final.model)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for a, b in zip(leaves(final.model), leaves(full_run.model)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(np.asarray(final.val_loss), np.asarray(full_run.val_loss))
    assert (np.asarray(final.kept_epoch) == SCHEDULE.epochs - 1).all()
    np.testing.assert_array_equal(np.asarray(final.kept_val), np.asarray(final.val_loss)[:, -1])
    val = np.asarray(full_run.val_loss)
    np.testing.assert_array_equal(np.asarray(full_run.kept_epoch), val.argmin(axis=1))
    np.testing.assert_array_equal(np.asarray(full_run.kept_val), val.min(axis=1))


def test_an_unknown_keep_names_the_allowed_ones(problem):
    import dataclasses

    models, data = problem
    with pytest.raises(ValueError, match="unknown pretrain.keep 'last'; allowed: final, best_validation"):
        pretrain_multistart(models, data, dataclasses.replace(SCHEDULE, keep="last"), "full", jax.random.PRNGKey(7))


def test_loss_falls_for_every_start(full_run):
    val = np.asarray(full_run.val_loss)
    assert np.all(np.isfinite(val))
    assert np.all(val[:, -1] < 0.5 * val[:, 0]), val
    assert np.all(full_run.kept_val <= val.min(axis=1) + 1e-12)
    assert int(full_run.epoch) == SCHEDULE.epochs


def test_constraints_hold_after_updates(full_run):
    model = full_run.model
    theta = np.asarray(model.robots.theta())
    assert np.all(theta > np.asarray(model.robots.minimum)), "theta_rob above its minimum"
    s = np.asarray(jax.vmap(lambda m: m.factors()[1])(model.map))
    assert np.all(s > model.map.s_min)


def test_orthogonal_bases_stay_orthogonal_and_free_ones_train(problem, full_run):
    """ARCH's map is the orthogonal kind (init_physical_reservoir's default): its U stays
    orthogonal and its fixed bases U0, V0 are untouched; the free kind trains U and V."""
    models, data = problem
    U = np.asarray(jax.vmap(lambda m: m.factors()[0])(full_run.model.map))
    np.testing.assert_allclose(U[0].T @ U[0], np.eye(6), atol=1e-10)
    np.testing.assert_array_equal(full_run.model.map.U0, models.map.U0)
    free = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **ARCH, map_bases="free") for s in (0, 1)])
    np.testing.assert_allclose(free.map.U, models.map.U0)  # the same initial bases
    trained = pretrain_multistart(free, data, SCHEDULE, "full", jax.random.PRNGKey(7)).model.map
    assert not np.allclose(trained.U, free.map.U) and not np.allclose(trained.V, free.map.V)


def test_full_changes_theta_rob_and_rob_fixed_keeps_it_bitwise(problem, full_run):
    models, _ = problem
    assert not np.array_equal(full_run.model.robots.raw, models.robots.raw)
    fixed = run(problem, "rob_fixed")
    np.testing.assert_array_equal(fixed.model.robots.raw, models.robots.raw)
    np.testing.assert_array_equal(fixed.kept_model.robots.raw, models.robots.raw)
    assert not np.array_equal(fixed.model.map.c, models.map.c)  # the rest did train


def test_rob_fixed_steps_equal_a_run_without_robots_in_the_parameter_tree(problem):
    """theta_rob's gradient does not enter the clipping norm in rob_fixed: one epoch of it moves
    the map and controllers as an epoch whose trainable tree has no robots at all (to rounding:
    the two backward passes compile differently, and Adam's normalised steps amplify their
    last-bit differences to a few 1e-9 on parameters of order 1e-2 with the test suite's compiler,
    tests/conftest.py). Were theta_rob's gradient in the clipping norm, they would differ by their
    own size (relative difference 2.8 when the freeze is removed from the gradient)."""
    from physres.pretrain import make_epoch, make_optimizer, trainable

    models, data = problem
    model = unstack_model(models, 0)
    train = jax.tree_util.tree_map(jnp.asarray, data["train"])
    # a tight clipping norm, so that clipping acts on every step
    optimizer = make_optimizer(Schedule(3, 1, 3e-2, 1e-4, 40, 1e-3, "best_validation"), len(train["y"]) // 40)
    with_robots = trainable(model)
    without_robots = eqx.tree_at(lambda m: m.robots.raw, with_robots, False)
    results = []
    for spec, freeze in ((with_robots, True), (without_robots, False)):
        epoch = eqx.filter_jit(make_epoch(optimizer, spec, 40, len(train["y"])))
        opt_state = optimizer.init(eqx.filter(model, spec))
        results.append(epoch(model, opt_state, jax.random.PRNGKey(3), train, jnp.asarray(freeze))[0])
    fixed, reference = results
    np.testing.assert_array_equal(fixed.robots.raw, model.robots.raw)
    for leaf_fixed, leaf_reference in zip(
        jax.tree_util.tree_leaves(eqx.filter(fixed, eqx.is_array)),
        jax.tree_util.tree_leaves(eqx.filter(reference, eqx.is_array)),
    ):
        np.testing.assert_allclose(leaf_fixed, leaf_reference, rtol=1e-6, atol=1e-7)
    assert not np.array_equal(fixed.map.c, model.map.c)


def test_killed_and_resumed_run_ends_where_uninterrupted_one_does(problem, full_run, tmp_path):
    resume = tmp_path / "resume.eqx"
    first = run(problem, "full", resume_path=resume, checkpoint_every=2, stop_after=3)
    assert int(first.epoch) == 3 and resume.exists()
    resumed = run(problem, "full", resume_path=resume, checkpoint_every=2)
    assert int(resumed.epoch) == SCHEDULE.epochs
    for a, b in zip(
        jax.tree_util.tree_leaves(eqx.filter(resumed, eqx.is_array)),
        jax.tree_util.tree_leaves(eqx.filter(full_run, eqx.is_array)),
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def train_in_parts(problem, tmp_path, ends, part_key=None):
    """The jobs of a training split after each epoch in ``ends`` (rule pretrain_part), then the
    last one (rule pretrain): the paths of its checkpoints and sidecars. ``part_key``: another
    shuffling key for the parts (the workflow's jobs all use the same)."""
    import logging

    from physres.pretrain_job import pretrain_job

    models, data = problem
    previous = None
    paths = [str(tmp_path / f"seed{s}.eqx") for s in (0, 1)]
    for end in [*ends, None]:
        state = None if end is None else str(tmp_path / f"epoch{end}.eqx")
        pretrain_job(
            models,
            data,
            SCHEDULE,
            "full",
            jax.random.PRNGKey(7) if end is None or part_key is None else part_key,
            definition={"run": "seeds 0, 1"},
            sidecar={"architecture": ARCH},
            seeds=[0, 1],
            paths=paths,
            resume_path=str(tmp_path / ("resume.eqx" if end is None else f"epoch{end}.resume.eqx")),
            checkpoint_every=1,
            log=logging.getLogger("test"),
            start_from=previous,
            stop_after=end,
            state_path=state,
        )
        previous = state
    return paths


def test_training_split_into_jobs_ends_where_the_unsplit_one_does(problem, full_run, tmp_path, caplog):
    """A training of 6 epochs as three jobs (parts ending at epochs 2 and 4, each continuing from
    the state the previous one saved, as rules pretrain_part and pretrain run it) writes the
    best models and loss curves of one 6-epoch run, bit for bit."""
    import json

    caplog.set_level("INFO")
    paths = train_in_parts(problem, tmp_path, ends=(2, 4))
    for end in (2, 4):  # each part saved its own epochs, and the next job went on from there
        assert json.loads((tmp_path / f"epoch{end}.eqx").open("rb").readline())["epoch"] == end
    assert f"continuing from {tmp_path / 'epoch2.eqx'} at epoch 2" in caplog.text
    assert f"continuing from {tmp_path / 'epoch4.eqx'} at epoch 4" in caplog.text
    assert not list(tmp_path.glob("*resume*")), "every job removes its resume file when it is done"
    for i, path in enumerate(paths):
        model, sidecar = load_checkpoint(path)
        for a, b in zip(
            jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array)),
            jax.tree_util.tree_leaves(eqx.filter(unstack_model(full_run.kept_model, i), eqx.is_array)),
        ):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_array_equal(sidecar["train_loss"], np.asarray(full_run.train_loss[i]))
        assert sidecar["kept_epoch"] == int(full_run.kept_epoch[i])


def test_the_last_job_goes_on_from_its_part(problem, full_run, tmp_path):
    """Were the last job to train from epoch 0, it would end where one 6-epoch run does whatever
    its part holds. A part trained on other minibatches (another shuffling key) leads it elsewhere."""
    paths = train_in_parts(problem, tmp_path, ends=(4,), part_key=jax.random.PRNGKey(8))
    model, _ = load_checkpoint(paths[0])
    unsplit = unstack_model(full_run.kept_model, 0)
    same = [
        np.array_equal(np.asarray(a), np.asarray(b))
        for a, b in zip(
            jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array)),
            jax.tree_util.tree_leaves(eqx.filter(unsplit, eqx.is_array)),
        )
    ]
    assert not all(same)


def test_checkpoint_roundtrip(full_run, tmp_path):
    model = unstack_model(full_run.kept_model, 1)
    save_checkpoint(tmp_path / "seed1.eqx", model, {"architecture": ARCH, "seed": 1})
    loaded, sidecar = load_checkpoint(tmp_path / "seed1.eqx")
    assert sidecar["seed"] == 1 and loaded.robots.gauss_points == model.robots.gauss_points
    y = jnp.full(6, 0.1)
    np.testing.assert_array_equal(
        loaded.mapped_acceleration(y, y, jnp.ones(1)), model.mapped_acceleration(y, y, jnp.ones(1))
    )


def test_unknown_mode_is_refused(problem):
    with pytest.raises(ValueError, match="allowed: full, rob_fixed"):
        run(problem, "robots_only")


def test_training_state_keeps_its_types_across_epochs(problem, full_run):
    """Every leaf of the state after training has the shape, dtype and weak type it started with:
    any difference makes the jitted epoch retrace and recompile on its second call (a weakly typed
    s_raw cost each pretraining job ~20 s)."""
    from physres.pretrain import init_state, make_optimizer, trainable

    models, data = problem
    spec = trainable(models)
    start = init_state(models, make_optimizer(SCHEDULE, 7), spec, SCHEDULE.epochs)

    def types(state):
        return [
            (x.shape, x.dtype, x.aval.weak_type) for x in jax.tree_util.tree_leaves(eqx.filter(state, eqx.is_array))
        ]

    assert types(full_run) == types(start)


def test_seeded_pretraining_is_bitwise_repeatable_across_processes(tmp_path):
    """Two fresh processes on this machine train the same seeded starts to byte-identical models
    (no dependence on thread timing or the compilation cache; across CPUs with other vector
    instruction sets XLA may round differently, see docs/performance.md)."""
    import os
    import subprocess
    import sys

    script = """
import jax, numpy as np, yaml, equinox as eqx
jax.config.update("jax_enable_x64", True)
from physres.physical import init_physical_reservoir, stack_models
from physres.pretrain import pretrain_multistart
from physres.specs import Schedule
ranges = yaml.safe_load(open("config.yaml"))["robot"]["init_ranges"]
rng = np.random.default_rng(0)
data = {s: {"y": rng.normal(size=(n, 3)) * 0.2, "ydot": rng.normal(size=(n, 3)), "u": rng.uniform(size=(n, 1)),
             "yddot": rng.normal(size=(n, 3))} for s, n in (("train", 120), ("val", 40))}
models = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), 3, 1, 1, 1, ranges, controller="simplified",
                                               gauss_points=3)
                       for s in (0, 1)])
state = pretrain_multistart(models, data, Schedule(3, 1, 1e-2, 1e-4, 40, 1.0, "best_validation"), "full", jax.random.PRNGKey(7))
eqx.tree_serialise_leaves(__import__("sys").argv[1], state.model)
"""
    env = dict(os.environ, **WORKFLOW_COMPILER)
    outputs = []
    for run in range(2):
        path = tmp_path / f"run{run}.eqx"
        subprocess.run([sys.executable, "-c", script, str(path)], check=True, capture_output=True, timeout=300, env=env)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_perturbed_robots_multiply_theta_rob_and_carry_the_gradient(problem):
    """Robust pretraining's perturbation: theta_rob x factor, written back through softplus'
    inverse (factor 1 gives theta_rob to rounding), differentiable with respect to theta_rob."""
    from physres.pretrain import mse_loss, perturbed_robots

    model = unstack_model(problem[0], 0)
    theta = np.asarray(model.robots.theta())
    factor = 1.0 + 0.1 * np.random.default_rng(0).standard_normal(theta.shape)
    np.testing.assert_allclose(perturbed_robots(model, factor).robots.theta(), theta * factor, rtol=1e-12)
    np.testing.assert_allclose(perturbed_robots(model, np.ones_like(theta)).robots.theta(), theta, rtol=1e-12)
    batch = jax.tree_util.tree_map(lambda a: jnp.asarray(a[:40]), problem[1]["train"])
    grad = eqx.filter_jit(eqx.filter_grad(lambda m: mse_loss(perturbed_robots(m, factor), batch)))(model)
    assert np.all(np.isfinite(grad.robots.raw)) and np.any(grad.robots.raw != 0)


def test_robust_pretraining_is_seeded_and_trains_on_perturbed_robots(problem, full_run):
    """robust_sigma > 0 draws theta_rob's perturbation per minibatch from the epoch's key: two runs
    agree bit for bit, and they differ from the standard pretraining of the same starts."""
    first = run(problem, "full", robust_sigma=0.05, stop_after=1)
    again = run(problem, "full", robust_sigma=0.05, stop_after=1)
    np.testing.assert_array_equal(first.train_loss[:, 0], again.train_loss[:, 0])
    assert np.all(np.isfinite(first.train_loss[:, 0]))
    assert not np.array_equal(first.train_loss[:, 0], full_run.train_loss[:, 0])


def test_cell_checkpoints_in_seed_order_or_the_target_that_builds_them(tmp_path):
    from physres.checkpoint import cell_checkpoints

    run = tmp_path / "results" / "quick"
    cell = run / "pretrain" / "adiac" / "ny6" / "full"
    with pytest.raises(FileNotFoundError, match="snakemake results/quick/pretrain/adiac/ny6/full/evaluation.json"):
        cell_checkpoints(run, "adiac", 6, "full")
    cell.mkdir(parents=True)
    for seed in (10, 2, 0):
        (cell / f"seed{seed}.eqx").touch()
    (cell / "seed2.json").touch()
    assert [path.name for path in cell_checkpoints(run, "adiac", 6, "full")] == ["seed0.eqx", "seed2.eqx", "seed10.eqx"]
