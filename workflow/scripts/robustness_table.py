"""results/tables/robustness.* and results/figures/robustness_mismatch.*: the robustness study."""

from pathlib import Path

from physres.figures import robustness_figure, save_figure
from physres.io import read_json, setup_logging
from physres.names import TASK_LABEL
from physres.tables.robustness import half_advantage, render_robustness, robustness_table

log = setup_logging(snakemake.log[0])
records = [read_json(path, rule="robustness") for path in snakemake.input.runs]
table = robustness_table(records)
halves = half_advantage(table)
render_robustness(table, halves, Path(snakemake.output.csv).with_suffix(""))
log.info("\n%s\n%s", table.to_string(), halves.to_string())
save_figure(robustness_figure(table, TASK_LABEL), snakemake.output.pdf, snakemake.output.png)
