"""Train the readout on each seed's activations of one variant and score it on the test split."""
from threadpoolctl import threadpool_limits

from physres.data import read_task
from physres.io import read_h5, setup_logging, write_json
from physres.readout import score_activations

log = setup_logging(snakemake.log[0])
threadpool_limits(snakemake.threads)  # BLAS threads beyond the job's share make sklearn ~10x slower
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
seeds = []
with read_h5(snakemake.input.activations, snakemake.params.rollout_rule) as h5:
    for seed in h5["seeds"][...]:
        group = h5[f"seed{seed}"]
        peaks = [group[f"{s}/peak"][...] for s in ("train", "test") if "peak" in group[s]]
        score = score_activations(task, group["train/states"][...], group["test/states"][...], peaks,
                                  washout=p.washout, lag=p.lag, C=p.logistic_C,
                                  max_iter=p.logistic_max_iter, alpha=p.ridge_alpha)
        if score.diverged:
            log.warning("seed %d diverged (%d non-finite sequences, peak %s)", seed,
                        score.n_nonfinite_sequences, score.peak)
        log.info("seed %d: %s = %s", seed, score.metric, score.value)
        seeds.append({"seed": int(seed), **score.as_dict()})
write_json(snakemake.output.json, {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "seeds": seeds})
