"""Parameter mismatch of one (task, ny, variant)'s reservoirs (physres.robustness): every seed at
every sigma and draw, scored with the nominal readout kept (deployment without recalibration) and
with the readout refitted on the perturbed robots' training states (recalibration)."""

import numpy as np

from physres.batching import split_activations
from physres.data import read_task
from physres.io import write_json
from physres.jobs import start_job
from physres.reservoirs import PhysicalEnsemble, physical_reservoirs
from physres.robustness import mismatch_z, mismatched, scored_runs, subsampled

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
r = p.robustness
task = subsampled(read_task(snakemake.input.data), r["max_sequences"], r["seed"])
reservoirs, failed = physical_reservoirs(
    wc.variant, list(snakemake.input.reservoirs), p.seeds, p.architecture, p.unoptimized, wc.task
)
simulation = p.simulation
# the nominal reservoirs exactly as the benchmark simulates them (same stack, same chunks): at
# sigma = 0 the scores are the benchmark's, bit for bit
nominal = split_activations(
    PhysicalEnsemble(p.seeds, reservoirs, failed=failed, **simulation), task, p.washout, p.chunk_size, "nominal"
)
sigmas = [s for s in r["mismatch_sigmas"] if s > 0]
grid = [(sigma, draw, i) for sigma in sigmas for draw in range(r["draws"]) for i in range(len(p.seeds))]
members = []
for sigma, draw, i in grid:
    z = mismatch_z(r["seed"], wc.task, int(wc.ny), p.seeds[i], draw, reservoirs[i].robots.raw.shape)
    members.append(mismatched(reservoirs[i], 1.0 + sigma * z))
perturbed = (
    split_activations(
        PhysicalEnsemble(list(range(len(members))), members, failed=[failed[i] for _, _, i in grid], **simulation),
        task,
        p.washout,
        p.chunk_size,
        f"{len(sigmas)} sigmas x {r['draws']} draws x {len(p.seeds)} seeds",
    )
    if members
    else {"train": (None, None), "test": (None, None)}  # sigma = 0 only
)

runs = scored_runs(task, nominal, perturbed, grid, p.seeds, p.readout)
for sigma in [0.0, *sigmas]:
    values = [run["nominal"]["value"] for run in runs if run["sigma"] == sigma]
    ok = [v for v in values if v is not None]
    log.info(
        "sigma %g: nominal readout %s over %d of %d runs", sigma, np.mean(ok) if ok else None, len(ok), len(values)
    )
write_json(
    snakemake.output.json,
    {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": "mismatch", "config": r, "runs": runs},
)
