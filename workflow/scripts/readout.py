"""Train the readout on one variant's activations and score it on the test split."""
import h5py
from threadpoolctl import threadpool_limits

from physres.data import read_task
from physres.io import setup_logging, write_json
from physres.readout import classification_score, forecasting_score

log = setup_logging(snakemake.log[0])
threadpool_limits(snakemake.threads)  # BLAS threads beyond the job's share make sklearn ~10x slower
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
with h5py.File(snakemake.input.activations, "r") as h5:
    train, test = h5["train/states"][...], h5["test/states"][...]
if task.kind == "classification":
    score = classification_score(train, task.train.label, test, task.test.label,
                                 C=p.logistic_C, max_iter=p.logistic_max_iter)
else:
    score = forecasting_score(train, task.train.u, test, task.test.u, p.washout, p.lag, alpha=p.ridge_alpha)
if score.diverged:
    log.warning("diverged: %d sequences have non-finite activations; no score", score.n_nonfinite_sequences)
log.info("%s = %s", score.metric, score.value)
write_json(snakemake.output.json, {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant,
                                   "seed": int(wc.seed), **score.as_dict()})
