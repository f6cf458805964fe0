"""results/tables/pretraining.{csv,md,tex}: the paper's Table 1; pretraining_summary: the
figures its text states about it."""

from pathlib import Path

from physres.io import read_json, setup_logging
from physres.tables.pretraining import (
    pretraining_scores,
    pretraining_summary,
    pretraining_table,
    render_pretraining,
    render_pretraining_summary,
)

log = setup_logging(snakemake.log[0])
scores = pretraining_scores(read_json(p, rule="evaluate_pretraining") for p in snakemake.input.evaluations)
p = snakemake.params
table = pretraining_table(scores, p.paper, p.layouts)
render_pretraining(table, Path(snakemake.output.csv).with_suffix(""))
summary = pretraining_summary(table, p.paper, p.paper_summary)
render_pretraining_summary(summary, Path(snakemake.output.summary).with_suffix(""))
log.info("\n%s\n%s", table.to_string(), summary.to_string())
