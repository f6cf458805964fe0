"""Train the readout on each seed's activations of one variant and score it on the test split."""

from threadpoolctl import threadpool_limits

from physres.data import read_task
from physres.formats import read_activations, write_scores
from physres.io import setup_logging
from physres.readout import score_activations

log = setup_logging(snakemake.log[0])
threadpool_limits(snakemake.threads)  # BLAS threads beyond the job's share make sklearn ~10x slower
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
seeds = []
for seed, train, test, peaks in read_activations(snakemake.input.activations, p.rollout_rule):
    score = score_activations(
        task,
        train,
        test,
        peaks,
        washout=p.washout,
        lag=p.lag,
        C=p.logistic_C,
        max_iter=p.logistic_max_iter,
        alpha=p.ridge_alpha,
    )
    if score.diverged:
        log.warning(
            "seed %d diverged (%d non-finite sequences, peak %s)", seed, score.n_nonfinite_sequences, score.peak
        )
    log.info("seed %d: %s = %s", seed, score.metric, score.value)
    seeds.append({"seed": seed, **score.as_dict()})
write_scores(snakemake.output.json, wc.task, wc.ny, wc.variant, seeds)
