"""results/tables/coriolis.* and results/figures/coriolis_strains.*: the paper's Coriolis table and figure."""

from pathlib import Path

import numpy as np

from physres.figures import first_bounded_start, save_figure, strain_figure
from physres.formats import read_strains
from physres.io import read_json, setup_logging
from physres.tables.coriolis import coriolis_table, render_coriolis

log = setup_logging(snakemake.log[0])
paper = snakemake.params.paper
table = coriolis_table([read_json(path, rule="coriolis_ablation") for path in snakemake.input.runs], paper)
render_coriolis(table, Path(snakemake.output.csv).with_suffix(""), paper)
log.info("\n%s", table.to_string())
pairs, dt = read_strains(snakemake.input.strains[0])  # the first ny: its first start with both rollouts bounded
start = first_bounded_start(np.stack([np.concatenate(pair, axis=-1) for pair in pairs])) if pairs else None
save_figure(
    strain_figure(None if start is None else pairs[start], dt, snakemake.params.title),
    snakemake.output.pdf,
    snakemake.output.png,
)
