"""physres: pretraining soft-robot physical reservoirs against digital reference reservoirs.

All logic of the Snakemake workflow lives here; the scripts in ``workflow/scripts`` only read
``snakemake.input``/``params`` and call these functions.
"""

import sys

__version__ = "0.1.0"

# A Snakemake job (its script's preamble defines `snakemake`) takes its declared threads' worth of
# CPUs now, before soromox's import starts JAX's backend and XLA sizes its thread pool by them.
_job = getattr(sys.modules.get("__main__"), "snakemake", None)
if isinstance(getattr(_job, "threads", None), int):
    from physres.cpus import claim_cpus

    claim_cpus(_job.threads)
del _job
