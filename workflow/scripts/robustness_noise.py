"""Sensor and actuation noise of one (task, ny, variant)'s reservoirs (physres.robustness): every
seed at every sigma and draw of each kind, in one stacked rollout, scored with the nominal
readout kept and with the readout refitted on the noisy training states."""

import numpy as np

from physres.batching import split_activations
from physres.data import read_task
from physres.io import write_json
from physres.jobs import start_job
from physres.names import NOISE_KINDS
from physres.reservoirs import PhysicalEnsemble, physical_reservoirs
from physres.robustness import noise_scales, rollout_noise, scored_runs, stack_noise, subsampled
from physres.simulate import stacked_rollout

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
r, simulation = p.robustness, p.simulation
task = subsampled(read_task(snakemake.input.data), r["max_sequences"], r["seed"])
reservoirs, failed = physical_reservoirs(
    wc.variant, list(snakemake.input.reservoirs), p.seeds, p.architecture, p.unoptimized, wc.task
)
nominal_ensemble = PhysicalEnsemble(p.seeds, reservoirs, failed=failed, **simulation)
# the noise is relative to each coordinate's RMS over a nominal rollout of the first training
# sequences (a pilot; the same sequences for every variant)
pilot = task.train.u[: r["noise_pilot_sequences"]]
Q, _ = stacked_rollout(
    nominal_ensemble.stacked,
    pilot,
    simulation["reference_dt"],
    simulation["sim_dt"],
    keep="all",
    divergence_bound=simulation["divergence_bound"],
    interpolation=simulation["interpolation"],
)
q_rms, qdot_rms = noise_scales(np.asarray(Q), simulation["reference_dt"])
log.info("pilot of %d sequences: RMS of Q per seed %s", len(pilot), np.round(q_rms.mean(axis=1), 4))
# sigma = 0: the nominal reservoirs as the benchmark simulates them (its scores, bit for bit)
nominal = split_activations(nominal_ensemble, task, p.washout, p.chunk_size, "nominal")
grid, noises = [], []
for kind in NOISE_KINDS:
    for sigma in [s for s in r[f"{kind}_sigmas"] if s > 0]:
        for draw in range(r["draws"]):
            for i, seed in enumerate(p.seeds):
                grid.append((kind, sigma, draw, i))
                noises.append(
                    rollout_noise(r["seed"], kind, wc.task, int(wc.ny), seed, draw, sigma, q_rms[i], qdot_rms[i])
                )
noisy = PhysicalEnsemble(
    list(range(len(grid))),
    [reservoirs[i] for *_, i in grid],
    failed=[failed[i] for *_, i in grid],
    noise=stack_noise(noises),
    **simulation,
)
perturbed = split_activations(noisy, task, p.washout, p.chunk_size, f"{len(grid)} noisy runs")
runs = []
for kind in NOISE_KINDS:
    rows = [m for m, g in enumerate(grid) if g[0] == kind]
    # one stacked rollout for both kinds: each kind's rows of it
    own = {split: (states[rows], None if peak is None else peak[rows]) for split, (states, peak) in perturbed.items()}
    kind_grid = [grid[m][1:] for m in rows]
    runs += scored_runs(task, nominal, own, kind_grid, p.seeds, p.readout, label={"perturbation": kind})
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
