"""physres: pretraining soft-robot physical reservoirs against digital reference reservoirs.

All logic of the Snakemake workflow lives here; the scripts in ``workflow/scripts`` only read
``snakemake.input``/``params`` and call these functions.
"""

__version__ = "0.1.0"
