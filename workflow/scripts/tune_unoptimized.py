"""The tuned baseline's gain per seed of one (task, ny): every gain of the grid on a validation
part of the training split (physres.tuning); the test split takes no part."""

from physres.batching import activations
from physres.data import read_task
from physres.io import write_json
from physres.jobs import start_job
from physres.reservoirs import PhysicalEnsemble, unoptimized_reservoirs
from physres.tuning import choose_gains, gain_grid

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
members = gain_grid(unoptimized_reservoirs(p.seeds, p.architecture, p.unoptimized, wc.task), p.gains)
ensemble = PhysicalEnsemble(list(range(len(members))), members, **p.simulation)
chunk_size = min(p.chunk_size, len(task.train.u))
desc = f"{len(p.gains)} gains x {len(p.seeds)} seeds"
states, _ = activations(ensemble, task.train.u, task.kind, p.readout["washout"], chunk_size, desc=desc)
tuning = choose_gains(
    task, states, p.seeds, p.gains, fraction=p.validation_fraction, split_seed=p.split_seed, readout=p.readout
)
for seed, scores in tuning["validation"].items():
    log.info("seed %s: validation %s per gain %s, chosen %s", seed, tuning["metric"], scores, tuning["chosen"][seed])
if tuning["untuned"]:
    log.warning("seeds %s diverged at every gain: kept at gain 1 (the unoptimized reservoir)", tuning["untuned"])
write_json(snakemake.output.json, {"task": wc.task, "ny": int(wc.ny), **tuning})
