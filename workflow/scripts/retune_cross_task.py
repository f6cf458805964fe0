"""Re-tune the digital parts of a source task's pretrained reservoirs against a target task's
reference RON (cross-task reuse); the robots stay the source's. One checkpoint per start."""

import zlib
from pathlib import Path

import jax

from physres.checkpoint import load_checkpoint, save_checkpoint, training_failed
from physres.cross_task import retune_spec, reuse_reservoir
from physres.jobs import device_description, project_commit, start_job
from physres.physical import stack_models, unstack_model
from physres.pretrain import (
    Schedule,
    dataset_digest,
    library_versions,
    pretrain_multistart,
    run_fingerprint,
    start_records,
)
from physres.pretraining_data import read_dataset
from physres.seeding import jax_key_for

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
data = read_dataset(snakemake.input.dataset)
target_nu = data["train"]["u"].shape[-1]
sources = [load_checkpoint(path) for path in snakemake.input.models]
reused = [
    reuse_reservoir(model, sidecar["architecture"], target_nu, jax_key_for(seed, "cross_task", wc.source, wc.task))
    for seed, (model, sidecar) in zip(p.seeds, sources)
]
models = stack_models([model for model, _ in reused])
architecture = reused[0][1]
log.info(
    "source %s -> target %s, re-tuned: %s (n_u %d -> %d)",
    wc.source,
    wc.task,
    wc.tuning,
    sources[0][1]["architecture"]["nu"],
    target_nu,
)
schedule = Schedule(**p.schedule)
fingerprint = run_fingerprint(
    {
        "source": wc.source,
        "task": wc.task,
        "ny": int(wc.ny),
        "tuning": wc.tuning,
        "seeds": p.seeds,
        "sources": [sidecar["fingerprint"] for _, sidecar in sources],
        "schedule": p.schedule,
        "x64": p.x64,
        "dataset": dataset_digest(data),
        "versions": library_versions(),
    }
)
state = pretrain_multistart(
    models,
    data,
    schedule,
    "full",
    jax.random.PRNGKey(zlib.crc32(f"{wc.source}/{wc.task}/{wc.ny}/{wc.tuning}".encode())),
    resume_path=p.resume,
    checkpoint_every=p.checkpoint_every,
    log=log,
    fingerprint=fingerprint,
    spec=retune_spec(models, wc.tuning),
)
common = {
    "task": wc.task,
    "source": wc.source,
    "ny": int(wc.ny),
    "tuning": wc.tuning,
    "architecture": architecture,
    "schedule": p.schedule,
    "versions": library_versions(),
    "device": device_description(),
    "commit": project_commit(),
    "fingerprint": fingerprint,
}
test = jax.tree_util.tree_map(jax.numpy.asarray, data["test"])
records = start_records(state, models, test, p.seeds, log)
for i, (record, path, (_, source_sidecar)) in enumerate(zip(records, snakemake.output.models, sources)):
    # a start whose source pretraining failed stays failed: its robots were never trained
    failed = record["failed"] or training_failed(source_sidecar)
    save_checkpoint(path, unstack_model(state.best_model, i), {**common, **record, "failed": failed})
Path(p.resume).unlink(missing_ok=True)
