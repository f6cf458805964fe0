"""Sample one reference RON (task, ny, seed) from its configuration."""
from physres.jobs import start_job
from physres.reservoirs import save_ron
from physres.ron import init_ron, spectral_radius

log = start_job(snakemake)
cfg = snakemake.params.ron
ron = init_ron(
    seed=int(snakemake.wildcards.seed),
    ny=int(snakemake.wildcards.ny),
    nu=snakemake.params.n_u,
    dt=cfg["dt"],
    spectral_radius_target=cfg["spectral_radius"],
    input_scaling=cfg["input_scaling"],
    gamma_range=cfg["gamma"],
    epsilon_range=cfg["epsilon"],
)
log.info("spectral radius of W: %.6f (target %s)", spectral_radius(ron.W), cfg["spectral_radius"])
save_ron(snakemake.output.h5, ron, {"task": snakemake.wildcards.task, "seed": int(snakemake.wildcards.seed), "config": cfg})
