"""Sample the reference RONs of one (task, ny), one per seed, from its configuration."""

from physres.jobs import start_job
from physres.ron import ron_from_config, save_ron, spectral_radius

log = start_job(snakemake)
cfg = snakemake.params.ron
for seed, path in zip(snakemake.params.seeds, snakemake.output.h5, strict=True):
    ron = ron_from_config(seed, int(snakemake.wildcards.ny), snakemake.params.n_u, cfg)
    log.info("seed %d: spectral radius of W %.6f (target %s)", seed, spectral_radius(ron.W), cfg["spectral_radius"])
    save_ron(path, ron, {"task": snakemake.wildcards.task, "seed": seed, "config": cfg})
