"""Tidy result tables (one row per cell) and their Markdown, HTML and LaTeX renderings: one
module per study (reference, pretraining, benchmark, flops, simplified, coriolis, cross_task),
the shared aggregation and writer in ``common``. Computation takes and returns data frames; files
are read and written only by the ``render_*`` functions and the scripts. No module imports JAX at
import time.
"""
