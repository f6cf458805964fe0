"""The PRC benchmark's tables (Table 2, significance, summary) and the scalability figure."""

from pathlib import Path

from physres.figures import save_figure, scalability_figure
from physres.formats import load_scores
from physres.io import setup_logging
from physres.names import TASK_LABEL
from physres.stats import significance_table, summary
from physres.tables.benchmark import (
    benchmark_cells,
    benchmark_table,
    render_benchmark,
    render_significance,
    render_summary,
)
from physres.tables.reference import load_selections

log = setup_logging(snakemake.log[0])
p, out = snakemake.params, snakemake.output
scores = load_scores(snakemake.input.scores)
table = benchmark_table(scores, load_selections(snakemake.input.selections), p.paper)
render_benchmark(table, Path(out.benchmark).with_suffix(""))
significance = significance_table(scores, p.alpha, p.paper)
render_significance(significance, Path(out.significance).with_suffix(""), p.alpha)
headline = summary(benchmark_cells(table), significance, p.paper_summary)
render_summary(headline, Path(out.summary).with_suffix(""))
save_figure(scalability_figure(table, TASK_LABEL), out.figure_pdf, out.figure_png)
log.info("\n%s\n%s\n%s", table.to_string(), significance.to_string(), headline.to_string())
