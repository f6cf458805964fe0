"""results/tables/cross_task*.*: the paper's cross-task table and the degradations its text quotes."""

from pathlib import Path

import pandas as pd

from physres.formats import load_scores
from physres.io import setup_logging
from physres.tables.cross_task import (
    cross_task_degradation,
    cross_task_table,
    render_cross_task,
    render_cross_task_degradation,
)

log = setup_logging(snakemake.log[0])
inputs, p = snakemake.input, snakemake.params
# one score file per (source, target, tuning), in the order of p.combinations; the standard
# cells are the main benchmark's pretrained reservoirs (source = target, tuning none)
runs = [
    load_scores([path]).assign(source=source, target=target, tuning=tuning)
    for (source, target, tuning), path in zip(p.combinations, inputs.scores)
]
standard = load_scores(inputs.standard)
runs.append(standard.assign(source=standard["task"], target=standard["task"], tuning="none"))
table = cross_task_table(pd.concat(runs, ignore_index=True), p.paper)
render_cross_task(table, Path(snakemake.output.csv).with_suffix(""))
degradation = cross_task_degradation(table, p.paper_degradation)
render_cross_task_degradation(degradation, Path(snakemake.output.degradation_csv).with_suffix(""))
log.info("\n%s\n%s", table.to_string(), degradation.to_string())
