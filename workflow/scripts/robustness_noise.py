"""Sensor and actuation noise of one (task, ny, variant)'s reservoirs (physres.robustness): every
seed at every sigma and draw of each kind, in one stacked rollout (the RON's, one after
another), scored with the nominal readout kept and with the readout refitted on the noisy
training states."""

import jax.numpy as jnp
import numpy as np

from physres.batching import split_activations
from physres.data import read_task
from physres.io import write_json
from physres.jobs import start_job
from physres.names import NOISE_KINDS
from physres.reservoirs import PhysicalEnsemble, physical_reservoirs
from physres.robustness import noise_grid, noise_runs, noise_scales, stack_noise, subsampled
from physres.ron import RONEnsemble, load_ron, ron_rollout
from physres.simulate import stacked_rollout

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
r, simulation = p.robustness, p.simulation
task = subsampled(read_task(snakemake.input.data), r["max_sequences"], r["seed"])
# the noise is relative to each coordinate's RMS over a nominal rollout of the first training
# sequences (a pilot; the same sequences for every variant)
pilot = task.train.u[: r["noise_pilot_sequences"]]
if wc.variant == "ron":  # the digital reference's curve: the same noise on its coupling and readout
    seeds, chunk_size = p.ron_seeds, p.ron_chunk_size
    reservoirs, failed = [load_ron(path) for path in snakemake.input.reservoirs], [False] * len(seeds)
    pilot_states = np.stack([np.asarray(ron_rollout(ron, jnp.asarray(pilot), keep="all")) for ron in reservoirs])
    step = reservoirs[0].dt
    nominal_ensemble = RONEnsemble(seeds, reservoirs)
else:
    seeds, chunk_size = p.seeds, p.chunk_size
    reservoirs, failed = physical_reservoirs(
        wc.variant, list(snakemake.input.reservoirs), seeds, p.architecture, p.unoptimized, wc.task
    )
    nominal_ensemble = PhysicalEnsemble(seeds, reservoirs, failed=failed, **simulation)
    pilot_states, _ = stacked_rollout(
        nominal_ensemble.stacked,
        pilot,
        simulation["reference_dt"],
        simulation["sim_dt"],
        keep="all",
        divergence_bound=simulation["divergence_bound"],
        interpolation=simulation["interpolation"],
    )
    step = simulation["reference_dt"]
q_rms, qdot_rms = noise_scales(np.asarray(pilot_states), step)
log.info("pilot of %d sequences: RMS of the states per seed %s", len(pilot), np.round(q_rms.mean(axis=1), 4))
# sigma = 0: the nominal reservoirs as the benchmark simulates them (its scores, bit for bit)
nominal = split_activations(nominal_ensemble, task, p.washout, chunk_size, "nominal")
grid, noises = noise_grid(r, wc.task, int(wc.ny), seeds, q_rms, qdot_rms)
members = [reservoirs[i] for *_, i in grid]
if wc.variant == "ron":
    noisy = RONEnsemble(list(range(len(grid))), members, noises=noises)
else:
    failures = [failed[i] for *_, i in grid]
    noisy = PhysicalEnsemble(list(range(len(grid))), members, failed=failures, noise=stack_noise(noises), **simulation)
perturbed = split_activations(noisy, task, p.washout, chunk_size, f"{len(grid)} noisy runs")
runs = noise_runs(task, nominal, perturbed, grid, seeds, p.readout)
for kind in NOISE_KINDS:
    for sigma in sorted({run["sigma"] for run in runs if run["perturbation"] == kind}):
        values = [run["nominal"]["value"] for run in runs if (run["perturbation"], run["sigma"]) == (kind, sigma)]
        ok = [v for v in values if v is not None]
        log.info(
            "%s noise %g: nominal readout %s over %d of %d runs",
            kind,
            sigma,
            np.mean(ok) if ok else None,
            len(ok),
            len(values),
        )
write_json(
    snakemake.output.json,
    {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": "noise", "config": r, "runs": runs},
)
