"""Re-tune the digital parts of a source task's pretrained reservoirs against a target task's
reference RON (cross-task reuse); the robots stay the source's. One checkpoint per start."""

from physres.checkpoint import load_checkpoint, training_failed
from physres.cross_task import retune_spec, reuse_reservoir
from physres.jobs import start_job
from physres.physical import stack_models
from physres.pretrain_job import pretrain_job
from physres.pretraining_data import read_dataset
from physres.seeding import jax_key_for, label_key
from physres.specs import Schedule

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
log.info(
    "source %s -> target %s, re-tuned: %s (n_u %d -> %d)",
    wc.source,
    wc.task,
    wc.tuning,
    sources[0][1]["architecture"]["nu"],
    target_nu,
)
job = {"task": wc.task, "source": wc.source, "ny": int(wc.ny), "tuning": wc.tuning}
pretrain_job(
    models,
    data,
    Schedule(**p.schedule),
    "full",
    label_key(wc.source, wc.task, wc.ny, wc.tuning),
    definition={
        **job,
        "seeds": p.seeds,
        "sources": [sidecar["fingerprint"] for _, sidecar in sources],
        "schedule": p.schedule,
        "x64": p.x64,
    },
    sidecar={**job, "architecture": reused[0][1], "schedule": p.schedule},
    seeds=p.seeds,
    paths=snakemake.output.models,
    resume_path=p.resume,
    checkpoint_every=p.checkpoint_every,
    log=log,
    spec=retune_spec(models, wc.tuning),
    # a start whose source pretraining failed stays failed: its robots were never trained
    failed_before=[training_failed(sidecar) for _, sidecar in sources],
)
