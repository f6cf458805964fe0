"""Sample the reference RONs of one (task, ny), one per seed, from its configuration."""
from physres.jobs import start_job
from physres.reservoirs import save_ron
from physres.ron import init_ron, spectral_radius

log = start_job(snakemake)
cfg = snakemake.params.ron
for seed, path in zip(snakemake.params.seeds, snakemake.output.h5, strict=True):
    ron = init_ron(
        seed=seed,
        ny=int(snakemake.wildcards.ny),
        nu=snakemake.params.n_u,
        dt=cfg["dt"],
        spectral_radius_target=cfg["spectral_radius"],
        input_scaling=cfg["input_scaling"],
        gamma_range=cfg["gamma"],
        epsilon_range=cfg["epsilon"],
    )
    log.info("seed %d: spectral radius of W %.6f (target %s)", seed, spectral_radius(ron.W), cfg["spectral_radius"])
    save_ron(path, ron, {"task": snakemake.wildcards.task, "seed": seed, "config": cfg})
