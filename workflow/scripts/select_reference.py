"""Draw the candidate RONs of one (task, ny), keep the best on a validation part of the
training split: the RON the physical reservoirs are pretrained against."""

from physres.data import read_task
from physres.io import write_json
from physres.jobs import start_job
from physres.ron import ron_from_config, save_ron
from physres.selection import candidate_seeds, select_ron

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
seeds = candidate_seeds(p.first_seed, p.candidates)
rons = {seed: ron_from_config(seed, int(wc.ny), p.n_u, p.ron) for seed in seeds}
selection = select_ron(task, rons, p.validation_fraction, p.split_seed, p.chunk_size, p.readout)
for seed, value in selection.validation.items():
    log.info(
        "candidate %d: validation %s = %s%s",
        seed,
        selection.metric,
        value,
        " (selected)" if seed == selection.seed else "",
    )
log.info("selected seed %d: test %s = %s", selection.seed, selection.metric, selection.test)
save_ron(snakemake.output.h5, rons[selection.seed], {"task": wc.task, "seed": selection.seed, "config": p.ron})
write_json(
    snakemake.output.json,
    {
        "task": wc.task,
        "ny": int(wc.ny),
        "metric": selection.metric,
        "selected_seed": selection.seed,
        "validation_fraction": p.validation_fraction,
        "test": selection.test,
        "candidates": [{"seed": s, "validation": v} for s, v in selection.validation.items()],
    },
)
