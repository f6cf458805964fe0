"""results/tables/flops.{csv,md,tex} and results/figures/flops.{pdf,png}: digital inference cost."""

from pathlib import Path

from physres import flops
from physres.figures import flops_figure, save_figure
from physres.io import setup_logging
from physres.names import TASK_LABEL
from physres.tables.flops import flops_table, render_flops

log = setup_logging(snakemake.log[0])
config = snakemake.params.config
table = flops_table(config, snakemake.params.dimensions, snakemake.params.paper)
render_flops(table, Path(snakemake.output.csv).with_suffix(""))
save_figure(flops_figure(config, TASK_LABEL), snakemake.output.pdf, snakemake.output.png)
for controller in flops.CONTROLLER_PIPELINES:
    log.info(
        "PRC controllers (%s) cheaper than the RON update from ny = %d (nu = 1)",
        controller,
        flops.crossover_ny(1, controller),
    )
log.info("\n%s", table.to_string())
