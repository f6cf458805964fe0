"""Sample the pretraining dataset of one (task, ny) in the box set by the ranges its reference RON
visits."""

from physres.data import read_task
from physres.jobs import start_job
from physres.pretraining_data import sample_dataset, sampling_box, visited_box, write_dataset
from physres.ron import load_ron

log = start_job(snakemake)
p = snakemake.params
ron = load_ron(snakemake.input.ron)
task = read_task(snakemake.input.data)
visited = visited_box(ron, task.train.u, p.chunk_size)
log.info("visited y [%s, %s]", visited["y_low"], visited["y_high"])
box = sampling_box(visited, p.box)
log.info("%s box: y [%s, %s], y' [%s, %s]", p.box, box["y_low"], box["y_high"], box["ydot_low"], box["ydot_high"])
dataset = sample_dataset(ron, box, p.m, p.split, p.seed)
attrs = {
    "task": snakemake.wildcards.task,
    "ny": int(snakemake.wildcards.ny),
    "m": p.m,
    "split": p.split,
    "seed": p.seed,
    "box": p.box,
    "reference": snakemake.input.ron,
    "ron_dt": ron.dt,
}
write_dataset(snakemake.output.h5, dataset, box, attrs)
log.info("wrote %s", {k: len(v["y"]) for k, v in dataset.items()})
