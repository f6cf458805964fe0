"""results/tables/ron_reference.{csv,md,tex}: the digital RON column beside the paper's values."""

from pathlib import Path

import pandas as pd

from physres.formats import load_scores
from physres.io import setup_logging
from physres.tables.reference import load_selections, render_ron_reference, ron_reference_table

log = setup_logging(snakemake.log[0])
scores = load_scores(snakemake.input.scores)
paper = pd.DataFrame([{"task": c["task"], "ny": c["ny"], "paper": c["paper"]} for c in snakemake.params.configs])
table = ron_reference_table(scores, paper, load_selections(snakemake.input.selections))
render_ron_reference(table, Path(snakemake.output.csv).with_suffix(""))
log.info("\n%s", table.to_string())
