"""Pretrain all starts of one (task, ny, mode) together; one checkpoint + sidecar per start (rule
pretrain), or one part of that training, its state saved (rule pretrain_part)."""

import jax

from physres.jobs import start_job
from physres.physical import init_physical_reservoir, stack_models
from physres.pretrain_job import pretrain_job
from physres.pretraining_data import read_dataset
from physres.seeding import label_key
from physres.specs import Architecture, Schedule

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
architecture = Architecture(**p.architecture)
# the same seed gives the same initial robots, map and controllers in both modes
models = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **architecture.as_params()) for s in p.seeds])
# rule pretrain_robust (ours): robust pretraining, mode full; rule pretrain: the wildcard's mode
mode = wc.get("mode", "full")
robust_sigma = p.get("robust_sigma", 0.0)
robust = {"robust_sigma": robust_sigma} if robust_sigma else {}
job = {"task": wc.task, "ny": int(wc.ny), "mode": mode, **robust}
pretrain_job(
    models,
    read_dataset(snakemake.input.dataset),
    Schedule(**p.schedule),
    mode,
    label_key(wc.task, wc.ny, mode),
    # everything the run's numbers depend on: a resume file of any other run is set aside
    definition={**job, "seeds": p.seeds, "architecture": p.architecture, "schedule": p.schedule, "x64": p.x64},
    sidecar={**job, "architecture": p.architecture, "schedule": p.schedule},
    seeds=p.seeds,
    paths=snakemake.output.get("models"),  # none for a part: it saves its state instead
    resume_path=p.resume,
    checkpoint_every=p.checkpoint_every,
    log=log,
    robust_sigma=robust_sigma,
    # a training split into jobs: where this part starts and ends, which changes none of its numbers
    start_from=snakemake.input.get("state") or None,
    stop_after=p.get("stop_after"),
    state_path=snakemake.output.get("state"),
)
