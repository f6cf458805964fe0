"""results/tables/simplified_controllers.*: the paper's simplified-controller tables."""

from pathlib import Path

from physres.formats import load_scores
from physres.io import read_json, setup_logging
from physres.tables.simplified import render_simplified, simplified_table

log = setup_logging(snakemake.log[0])
inputs, p = snakemake.input, snakemake.params
runs = {
    p.main_controller: (
        [read_json(path, rule="evaluate_pretraining") for path in inputs.evaluations],
        load_scores(inputs.scores),
    ),
    "simplified": (
        [read_json(path, rule="evaluate_simplified") for path in inputs.simplified_evaluations],
        load_scores(inputs.simplified_scores),
    ),
}
table = simplified_table(runs, p.config, p.paper)
render_simplified(table, Path(snakemake.output.csv).with_suffix(""), p.flops_paper)
log.info("\n%s", table.to_string())
