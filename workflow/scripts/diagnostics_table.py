"""results/tables/diagnostics.* and results/figures/memory_capacity.*: the reservoir diagnostics."""

from pathlib import Path

from physres.figures import memory_capacity_figure, save_figure
from physres.io import read_json, setup_logging
from physres.names import TASK_LABEL
from physres.tables.diagnostics import diagnostics_table, memory_capacity_curves, render_diagnostics

log = setup_logging(snakemake.log[0])
records = [read_json(path, rule="diagnostics") for path in snakemake.input.runs]
table = diagnostics_table(records)
render_diagnostics(table, Path(snakemake.output.csv).with_suffix(""), snakemake.params.diagnostics)
log.info("\n%s", table.to_string())
save_figure(
    memory_capacity_figure(memory_capacity_curves(records), TASK_LABEL), snakemake.output.pdf, snakemake.output.png
)
