"""Coriolis ablation of one ny: every fully pretrained start simulated with and without C q'."""

from physres.checkpoint import load_checkpoint, training_failed
from physres.coriolis import ablate
from physres.data import read_task
from physres.formats import write_strains
from physres.io import write_json
from physres.jobs import start_job

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
rows, strains = [], {}
for path in snakemake.input.models:
    model, sidecar = load_checkpoint(path)
    seed = sidecar["seed"]
    if training_failed(sidecar):
        log.warning("seed %d: pretraining failed; no ablation", seed)
        rows.append({"seed": seed, "diverged": True, "failed": True})
        continue
    row, q_nc, q_c = ablate(
        model,
        task,
        p.reference_dt,
        p.sim_dt,
        p.fine_dt,
        p.divergence_bound,
        p.washout,
        p.lag,
        p.alpha,
        p.input_interpolation,
    )
    log.info("seed %d: %s", seed, row)
    rows.append({"seed": seed, **row})
    strains[seed] = (q_nc[0], q_c[0])  # first test sequence: (K, ny)
write_strains(snakemake.output.strains, p.reference_dt, strains, [r["seed"] for r in rows])
write_json(
    snakemake.output.json, {"task": p.task, "ny": int(wc.ny), "sim_dt": p.sim_dt, "fine_dt": p.fine_dt, "runs": rows}
)
