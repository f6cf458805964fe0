"""results/tables/robustness{,_noise}.* and results/figures/robustness_{kind}.*: the robustness
study's table and one figure per perturbation (parameter mismatch; sensor and actuation noise)."""

from pathlib import Path

from physres.figures import robustness_figure, save_figure
from physres.io import read_json, setup_logging
from physres.names import PERTURBATION_LABEL, TASK_LABEL
from physres.tables.robustness import half_advantage, render_robustness, robustness_table

log = setup_logging(snakemake.log[0])
records = [read_json(path, rule=snakemake.params.rule) for path in snakemake.input.runs]
table = robustness_table(records)
halves = half_advantage(table)
render_robustness(table, halves, Path(snakemake.output.csv).with_suffix(""))
log.info("\n%s\n%s", table.to_string(), halves.to_string())
for kind in snakemake.params.perturbations:
    figure = robustness_figure(table[table["perturbation"] == kind], TASK_LABEL, PERTURBATION_LABEL[kind])
    save_figure(figure, snakemake.output[f"{kind}_pdf"], snakemake.output[f"{kind}_png"])
