"""results/tables/pretraining.{csv,md,tex}: the paper's Table 1."""
from pathlib import Path

from physres.io import read_json, setup_logging
from physres.tables import pretraining_scores, pretraining_table, render_pretraining

log = setup_logging(snakemake.log[0])
scores = pretraining_scores(read_json(p) for p in snakemake.input.evaluations)
table = pretraining_table(scores, snakemake.params.paper, snakemake.params.layouts)
render_pretraining(table, Path(snakemake.output.csv).with_suffix(""))
log.info("\n%s", table.to_string())
