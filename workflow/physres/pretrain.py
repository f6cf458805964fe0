"""Parallel multi-start pretraining (paper, Sec. 3.4 and supplementary E).

All starts of one (task, ny, mode) are one stacked pytree: a single jit-compiled, vmapped epoch
function trains them together. Loss: the acceleration equation error of Eq. (loss_fn),
MSE = mean over the batch of ||y'' - y''_hat||^2. Optimiser: gradient clipping, then Adam with
a linear warm-up and a cosine decay. Mode "rob_fixed" selects the old theta_rob after every
update (jnp.where, so it is bitwise unchanged), and its gradient is zeroed before clipping, so
the map and controllers take the steps they would take without robots in the parameter tree;
the mode is a traced flag, so both modes share one compiled program. The model kept per start
is its last epoch's (``keep`` final: the last with a finite validation loss) or its epoch of least
validation loss (best_validation).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm.auto import tqdm

from physres.affine_map import OrthogonalAffineMap
from physres.io import atomic_path, to_builtin
from physres.names import KEEPS, MODES
from physres.physical import PhysicalReservoir, unstack_model
from physres.specs import Schedule

Batch = dict[str, jax.Array]  # y, ydot, u, yddot: (n, ...)


def make_optimizer(schedule: Schedule, steps_per_epoch: int) -> optax.GradientTransformation:
    """clip -> Adam with warm-up (final_lr -> lr) then cosine decay to final_lr, per step."""
    lr = optax.warmup_cosine_decay_schedule(
        init_value=schedule.final_learning_rate,
        peak_value=schedule.learning_rate,
        warmup_steps=schedule.warmup_epochs * steps_per_epoch,
        decay_steps=schedule.epochs * steps_per_epoch,
        end_value=schedule.final_learning_rate,
    )
    return optax.chain(optax.clip_by_global_norm(schedule.clip_norm), optax.adam(lr))


def trainable(model: PhysicalReservoir):
    """Filter spec: True for the leaves pretraining changes (all of them, but for an orthogonal
    map's fixed bases U0 and V0)."""
    spec = jax.tree_util.tree_map(eqx.is_inexact_array, model)
    if isinstance(model.map, OrthogonalAffineMap):
        spec = eqx.tree_at(lambda m: (m.map.U0, m.map.V0), spec, (False, False))
    return spec


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown pretraining mode {mode!r}; allowed: {', '.join(MODES)}")


def squared_errors(model: PhysicalReservoir, batch: Batch) -> jax.Array:
    """||y'' - y''_hat||^2 per sample, shape (n,)."""
    predicted = model.mapped_accelerations(batch["y"], batch["ydot"], batch["u"])
    return jnp.sum((batch["yddot"] - predicted) ** 2, axis=-1)


def mse_loss(model: PhysicalReservoir, batch: Batch) -> jax.Array:
    return jnp.mean(squared_errors(model, batch))


def acceleration_rmse(model: PhysicalReservoir, batch: Batch) -> jax.Array:
    """RMSE over samples and components of y'' (the paper's test RMSE)."""
    return jnp.sqrt(jnp.mean(squared_errors(model, batch)) / batch["y"].shape[-1])


def acceleration_rmse_per_coordinate(model: PhysicalReservoir, batch: Batch) -> jax.Array:
    """RMSE over samples of each component of y'', shape (ny,): which coordinates a start fits.
    Their mean square is the square of ``acceleration_rmse``."""
    predicted = model.mapped_accelerations(batch["y"], batch["ydot"], batch["u"])
    return jnp.sqrt(jnp.mean((batch["yddot"] - predicted) ** 2, axis=0))


def perturbed_robots(model: PhysicalReservoir, factor: jax.Array) -> PhysicalReservoir:
    """The model with theta_rob multiplied by ``factor`` (N, n_pcs, 8) entry by entry, written
    back through softplus' inverse so that the gradient reaches the nominal theta_rob (robust
    pretraining); a product below theta_min is held just above it."""
    robots = model.robots
    minimum = jnp.asarray(robots.minimum, robots.raw.dtype)
    excess = jnp.maximum(robots.theta() * factor - minimum, 1e-6 * minimum)
    raw = excess + jnp.log(-jnp.expm1(-excess))  # softplus^-1
    return eqx.tree_at(lambda m: m.robots.raw, model, raw)


def make_epoch(
    optimizer: optax.GradientTransformation, spec, batch_size: int, n_train: int, robust_sigma: float = 0.0
) -> Callable:
    """One epoch of one start: a scan over shuffled minibatches (the last partial one dropped).

    ``robust_sigma`` > 0 (robust pretraining, ours): each minibatch's loss is that of the robots
    with theta_rob multiplied by 1 + robust_sigma z, z ~ N(0, 1) per entry, drawn afresh per
    minibatch from the epoch's key, so that the map and controllers learn to work with robots
    near the nominal ones. 0: the paper's pretraining, its program untouched.
    """
    steps = n_train // batch_size

    def epoch(model, opt_state, key, train: Batch, freeze_robots):
        order = jax.random.permutation(key, n_train)[: steps * batch_size].reshape(steps, batch_size)
        params, static = eqx.partition(model, spec)  # only arrays travel through the scan

        def loss_of(params, batch, index):
            model = eqx.combine(params, static)
            if robust_sigma > 0:  # a trace-time branch: the nominal program stays as it was
                z = jax.random.normal(
                    jax.random.fold_in(key, index + 1), model.robots.raw.shape, model.robots.raw.dtype
                )
                model = perturbed_robots(model, 1.0 + robust_sigma * z)
            return mse_loss(model, batch)

        def step(carry, scanned):
            (params, opt_state), (index, idx) = carry, scanned
            batch = jax.tree_util.tree_map(lambda a: a[idx], train)
            loss, grads = jax.value_and_grad(loss_of)(params, batch, index)
            # rob_fixed trains only the map and controllers: theta_rob's gradient must not enter the
            # global norm of the clipping, or it would shrink their steps
            robots_trainable = params.robots.raw is not None  # (a spec may leave them out)
            if robots_trainable:
                grads = eqx.tree_at(lambda m: m.robots.raw, grads, jnp.where(freeze_robots, 0.0, grads.robots.raw))
            updates, opt_state = optimizer.update(grads, opt_state, params)
            new = eqx.apply_updates(params, updates)
            if robots_trainable:
                new = eqx.tree_at(
                    lambda m: m.robots.raw, new, jnp.where(freeze_robots, params.robots.raw, new.robots.raw)
                )
            return (new, opt_state), loss

        (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), (jnp.arange(steps), order))
        return eqx.combine(params, static), opt_state, jnp.mean(losses)

    return epoch


class TrainState(eqx.Module):
    """Everything a resumed run needs; all arrays carry a leading start axis."""

    model: PhysicalReservoir
    opt_state: optax.OptState
    kept_model: PhysicalReservoir  # per start, the model kept (Schedule.keep), and its epoch's
    kept_val: jax.Array  # (S,) validation loss (inf until one is finite)
    kept_epoch: jax.Array  # (S,) and epoch (-1: none)
    train_loss: jax.Array  # (S, epochs)
    val_loss: jax.Array  # (S, epochs)
    epoch: jax.Array  # () epochs done


def init_state(models: PhysicalReservoir, optimizer, spec, epochs: int) -> TrainState:
    starts = jax.tree_util.tree_leaves(models)[0].shape[0]
    dtype = models.map.c.dtype
    opt_state = eqx.filter_vmap(lambda m: optimizer.init(eqx.filter(m, spec)))(models)
    # explicit (strong) dtypes, as train_step returns them: otherwise the second call recompiles
    nan = jnp.full((starts, epochs), jnp.nan, dtype=dtype)
    return TrainState(
        models,
        opt_state,
        models,
        jnp.full(starts, jnp.inf, dtype=dtype),
        jnp.full(starts, -1, dtype=jnp.int32),
        nan,
        nan,
        jnp.asarray(0, dtype=jnp.int32),
    )


def make_train_step(optimizer, spec, schedule: Schedule, n_train: int, robust_sigma: float = 0.0) -> Callable:
    """jit(vmap over starts) of one epoch plus validation and the kept model's bookkeeping
    (validation on the nominal robots, also in robust pretraining): an epoch's model replaces the
    kept one if its validation loss is finite and, with ``schedule.keep`` best_validation, lower."""
    if schedule.keep not in KEEPS:
        raise ValueError(f"unknown pretrain.keep {schedule.keep!r}; allowed: {', '.join(KEEPS)}")
    keep_final = schedule.keep == "final"
    epoch_fn = eqx.filter_vmap(
        make_epoch(optimizer, spec, schedule.batch_size, n_train, robust_sigma),
        in_axes=(eqx.if_array(0), eqx.if_array(0), 0, None, None),
    )
    val_fn = eqx.filter_vmap(mse_loss, in_axes=(eqx.if_array(0), None))

    @eqx.filter_jit
    def train_step(state: TrainState, keys, train: Batch, val: Batch, freeze_robots) -> TrainState:
        model, opt_state, train_loss = epoch_fn(state.model, state.opt_state, keys, train, freeze_robots)
        val_loss = val_fn(model, val)
        replace = jnp.isfinite(val_loss) & (keep_final | (val_loss < state.kept_val))
        pick = lambda new, old: jnp.where(replace.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)  # noqa: E731
        kept = jax.tree_util.tree_map(pick, eqx.filter(model, eqx.is_array), eqx.filter(state.kept_model, eqx.is_array))
        kept_model = eqx.combine(kept, eqx.filter(state.kept_model, eqx.is_array, inverse=True))
        e = state.epoch
        return TrainState(
            model,
            opt_state,
            kept_model,
            jnp.where(replace, val_loss, state.kept_val),
            jnp.where(replace, e, state.kept_epoch),
            state.train_loss.at[:, e].set(train_loss),
            state.val_loss.at[:, e].set(val_loss),
            e + 1,
        )

    return train_step


def run_fingerprint(definition: dict) -> str:
    """sha256 of everything that defines a run (JSON with sorted keys): the resume file carries
    it, so a resume from another configuration is recognised."""
    return hashlib.sha256(json.dumps(to_builtin(definition), sort_keys=True).encode()).hexdigest()


def dataset_digest(data: dict[str, Batch]) -> str:
    """sha256 of a pretraining dataset's arrays (their bytes, in a fixed order)."""
    digest = hashlib.sha256()
    for split in sorted(data):
        for name in sorted(data[split]):
            array = np.ascontiguousarray(data[split][name])
            digest.update(f"{split}/{name}{array.shape}{array.dtype}".encode())
            digest.update(array.tobytes())
    return digest.hexdigest()


def save_state(path: str | Path, state: TrainState, fingerprint: str) -> None:
    """One file: a JSON header line (the run's fingerprint, epochs done), then the leaves."""
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write((json.dumps({"fingerprint": fingerprint, "epoch": int(state.epoch)}) + "\n").encode())
        eqx.tree_serialise_leaves(handle, state)


class StaleState(ValueError):
    """A saved TrainState that is not this run's: another fingerprint, or unreadable."""


def read_state(path: str | Path, like: TrainState, fingerprint: str) -> TrainState:
    """The state saved at ``path`` (save_state), shaped as ``like``; StaleState if it was not
    written by the run with this ``fingerprint`` or cannot be read as its state."""
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
            if header.get("fingerprint") == fingerprint:
                return eqx.tree_deserialise_leaves(handle, like)
        reason = "it was written by a run of another configuration, data or library versions"
    except (ValueError, OSError, RuntimeError, AttributeError) as error:  # no header, truncated, other shapes
        reason = f"it cannot be read as this run's state ({type(error).__name__}: {error})"
    raise StaleState(reason)


def resume_state(
    path: str | Path, like: TrainState, fingerprint: str, log=None, epochs: tuple[int, int] | None = None
) -> TrainState | None:
    """The saved state at ``path`` if it belongs to this run (and, given ``epochs`` = (first,
    last), holds an epoch count between them); otherwise None, and the file is set aside (renamed
    to ``<name>.stale``) so that the run starts fresh and never mixes two runs."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = read_state(path, like, fingerprint)
        if epochs is None or epochs[0] <= int(state.epoch) <= epochs[1]:
            return state
        reason = f"it holds epoch {int(state.epoch)}, outside this job's epochs {epochs[0]}-{epochs[1]}"
    except StaleState as error:
        reason = str(error)
    aside = path.with_name(path.name + ".stale")
    os.replace(path, aside)
    if log:
        going_on = "starting fresh" if epochs is None or epochs[0] == 0 else f"going on from epoch {epochs[0]}"
        log.warning("not resuming from %s: %s; set aside as %s, %s", path, reason, aside, going_on)
    return None


def epoch_keys(base_key: jax.Array, epoch: int, starts: int) -> jax.Array:
    """Shuffling keys of one epoch, one per start: a pure function of (key, epoch), so a resumed
    run draws exactly the minibatches an uninterrupted one would."""
    return jax.random.split(jax.random.fold_in(base_key, epoch), starts)


def pretrain_multistart(
    models: PhysicalReservoir,
    data: dict[str, Batch],
    schedule: Schedule,
    mode: str,
    key: jax.Array,
    resume_path: str | Path | None = None,
    checkpoint_every: int = 50,
    log=None,
    stop_after: int | None = None,
    fingerprint: str = "",
    spec=None,
    robust_sigma: float = 0.0,
    start_from: str | Path | None = None,
) -> TrainState:
    """Train all starts (stacked ``models``) together; resume from ``resume_path`` if it holds
    a state of the run with this ``fingerprint`` (see run_fingerprint), else start fresh, or from
    ``start_from``, the state an earlier part of the same run ended with (rule pretrain_part's
    output; a state of another run there is an error, never a fresh start).

    ``stop_after`` ends the run after that many epochs in total (a part of a training split into
    jobs, or to test resuming): a run in parts ends bit for bit where an unsplit one does. ``spec``, an
    equinox filter spec, trains only the leaves it marks (default ``trainable(models)``; a spec
    without theta_rob leaves the robots out whatever the mode, as cross-task re-tuning does).
    ``robust_sigma`` > 0: robust pretraining (see make_epoch).
    """
    check_mode(mode)
    spec = trainable(models) if spec is None else spec
    freeze_robots = jnp.asarray(mode == "rob_fixed")
    train, val = (jax.tree_util.tree_map(jnp.asarray, data[s]) for s in ("train", "val"))
    n_train = len(train["y"])
    if n_train < schedule.batch_size:
        raise ValueError(f"batch_size {schedule.batch_size} exceeds the {n_train} training samples")
    optimizer = make_optimizer(schedule, n_train // schedule.batch_size)
    state = init_state(models, optimizer, spec, schedule.epochs)
    last = schedule.epochs if stop_after is None else min(schedule.epochs, stop_after)
    if start_from is not None:
        try:
            state = read_state(start_from, state, fingerprint)
        except StaleState as error:
            raise ValueError(f"cannot continue the training from {start_from}: {error}") from None
        if log:
            log.info("continuing from %s at epoch %d", start_from, int(state.epoch))
    first = int(state.epoch)
    if first > last:
        raise ValueError(f"the training in {start_from} is at epoch {first}, past this job's end at epoch {last}")
    resumed = None if resume_path is None else resume_state(resume_path, state, fingerprint, log, (first, last))
    if resumed is not None:
        state = resumed
        if log:
            log.info("resumed from %s at epoch %d", resume_path, int(state.epoch))
    step = make_train_step(optimizer, spec, schedule, n_train, robust_sigma)
    starts = len(state.kept_val)
    bar = tqdm(range(int(state.epoch), last), desc=f"pretrain {mode}", unit="epoch", mininterval=10.0)
    for epoch in bar:
        state = step(state, epoch_keys(key, epoch, starts), train, val, freeze_robots)
        if epoch % 10 == 0 or epoch == last - 1:
            bar.set_postfix(val=np.array2string(np.asarray(state.val_loss[:, epoch]), precision=3))
        if resume_path is not None and ((epoch + 1) % checkpoint_every == 0 or epoch + 1 == last):
            save_state(resume_path, state, fingerprint)
    return state


def failed_starts(state: TrainState) -> np.ndarray:
    """(S,) True where a start never reached a finite validation loss: its kept model is still
    the untrained start, which must be carried as failed, never scored as if trained."""
    return ~np.isfinite(np.asarray(state.kept_val))


def start_records(state: TrainState, initial: PhysicalReservoir, test: Batch, seeds: list[int], log=None) -> list[dict]:
    """Per start, what its checkpoint's sidecar records of the training: the kept model's epoch
    and validation MSE, its test RMSE (None for a failed start, see failed_starts), ``failed``, the
    loss curves and theta_rob before (``initial``, the stacked starting models) and after."""
    failed = failed_starts(state)
    initial_theta = np.asarray(initial.robots.theta())
    records = []
    for i, seed in enumerate(seeds):
        kept = unstack_model(state.kept_model, i)
        rmse = float(acceleration_rmse(kept, test))
        if log:
            log.info(
                "seed %d: kept epoch %d, val MSE %.4g, test RMSE %.4g",
                seed,
                int(state.kept_epoch[i]),
                float(state.kept_val[i]),
                rmse,
            )
            if failed[i]:  # its checkpoint is the untrained start: carried as failed, never scored
                log.warning("seed %d: training never reached a finite validation loss; marked failed", seed)
        records.append(
            {
                "seed": seed,
                "kept_epoch": int(state.kept_epoch[i]),
                "kept_val_mse": float(state.kept_val[i]),
                "test_rmse": None if failed[i] else rmse,
                "failed": bool(failed[i]),
                "train_loss": np.asarray(state.train_loss[i]),
                "val_loss": np.asarray(state.val_loss[i]),
                "theta_rob_initial": initial_theta[i],
                "theta_rob": np.asarray(kept.robots.theta()),
            }
        )
    return records


def library_versions() -> dict[str, str]:
    import importlib.metadata as md

    return {name: md.version(name) for name in ("jax", "jaxlib", "equinox", "optax", "diffrax", "soromox", "numpy")}
