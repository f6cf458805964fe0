"""One pretraining job, as rules pretrain, pretrain_part, pretrain_simplified and retune_cross_task
run it: every start of one stacked model trained together (physres.pretrain.pretrain_multistart),
resumable from its resume file, then one checkpoint and sidecar per start; or, for a training split
into jobs (rule pretrain_part), its state after this job's part."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp

from physres.checkpoint import save_checkpoint
from physres.jobs import device_description, project_commit
from physres.physical import PhysicalReservoir, unstack_model
from physres.pretrain import (
    Batch,
    dataset_digest,
    library_versions,
    pretrain_multistart,
    run_fingerprint,
    save_state,
    start_records,
)
from physres.specs import Schedule


def pretrain_job(
    models: PhysicalReservoir,
    data: dict[str, Batch],
    schedule: Schedule,
    mode: str,
    shuffle_key: jax.Array,
    *,
    definition: dict,
    sidecar: dict,
    seeds: list[int],
    paths: list[str] | None,
    resume_path: str,
    checkpoint_every: int,
    log,
    spec=None,
    failed_before: list[bool] | None = None,
    robust_sigma: float = 0.0,
    start_from: str | None = None,
    stop_after: int | None = None,
    state_path: str | None = None,
) -> None:
    """Pretrain the stacked ``models`` (S starts, one per seed) and save start i to ``paths[i]``
    (or, for a part of a split training, the state to ``state_path``).

    **Arguments:**

    - `definition`: what the job's numbers depend on besides the dataset and the libraries (task,
      ny, mode, seeds, architecture, schedule, ...): with those two it makes the fingerprint that
      a resume file must carry to be resumed.
    - `sidecar`: the job's entries of every start's sidecar (task, ny, architecture, schedule, ...);
      the libraries' versions, the device, the commit, the fingerprint and the start's own record
      (physres.pretrain.start_records) are added.
    - `spec`: a filter spec of the trainable leaves (None: physres.pretrain.trainable).
    - `failed_before`: per start, whether it had failed before this job (a re-tuned start whose
      source pretraining failed stays failed).
    - `robust_sigma`: > 0 for robust pretraining (physres.pretrain.make_epoch); it must then be
      in `definition` too.
    - `start_from`, `stop_after`, `state_path`: a training split into jobs (rule pretrain_part)
      continues from the state the previous part saved (None: epoch 0), stops after
      `stop_after` epochs in total, and saves its state to `state_path` instead of the
      checkpoints (None: the last part, which writes them). Where the split falls changes no bit.
    """
    fingerprint = run_fingerprint({**definition, "dataset": dataset_digest(data), "versions": library_versions()})
    commit = project_commit()  # the code the job started with (the checkout may move on meanwhile)
    state = pretrain_multistart(
        models,
        data,
        schedule,
        mode,
        shuffle_key,
        resume_path=resume_path,
        checkpoint_every=checkpoint_every,
        log=log,
        fingerprint=fingerprint,
        spec=spec,
        robust_sigma=robust_sigma,
        start_from=start_from,
        stop_after=stop_after,
    )
    if state_path is not None:
        save_state(state_path, state, fingerprint)
        log.info("saved the state at epoch %d to %s", int(state.epoch), state_path)
        Path(resume_path).unlink(missing_ok=True)
        return
    common = {
        **sidecar,
        "versions": library_versions(),
        "device": device_description(),
        "commit": commit,
        "fingerprint": fingerprint,
    }
    test = jax.tree_util.tree_map(jnp.asarray, data["test"])
    failed_before = failed_before or [False] * len(seeds)
    for i, (record, path) in enumerate(zip(start_records(state, models, test, seeds, log), paths)):
        failed = record["failed"] or failed_before[i]
        save_checkpoint(path, unstack_model(state.kept_model, i), {**common, **record, "failed": failed})
    Path(resume_path).unlink(missing_ok=True)
