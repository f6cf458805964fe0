# Stages 6-8: activations of each reservoir variant on the task inputs, the readouts, statistics.
# One job per (task, ny, variant) runs all its seeds: one compiled rollout serves them all.

PHYSICAL_MODE = {"pretrained": "full", "partial": "rob_fixed"}


def variant_seeds(variant):
    """Digital RONs use the reference seeds; the physical variants the pretraining starts."""
    return REF_SEEDS if variant == "ron" else config["pretrain"]["seeds"]


def reservoir_files(wc):
    """The files that define a variant's reservoirs (unoptimized ones are drawn in the job)."""
    if wc.variant == "ron":
        return expand("results/reference/{task}/ny{ny}/seed{seed}.h5", task=wc.task, ny=wc.ny, seed=REF_SEEDS)
    if wc.variant in PHYSICAL_MODE:
        return expand("results/pretrain/{task}/ny{ny}/{mode}/seed{seed}.eqx", task=wc.task, ny=wc.ny,
                      mode=PHYSICAL_MODE[wc.variant], seed=config["pretrain"]["seeds"])
    return []


def sidecar_files(wc):
    return [path.removesuffix(".eqx") + ".json" for path in reservoir_files(wc) if path.endswith(".eqx")]


def task_param(task, key, default=None):
    return config["data"].get(task, {}).get(key, default)


rule rollout:
    input:
        reservoirs=reservoir_files,
        sidecars=sidecar_files,
        data="results/data/{task}.h5",
    output:
        h5="results/activations/{task}/ny{ny}/{variant}.h5",
    params:
        seeds=lambda wc: variant_seeds(wc.variant),
        architecture=architecture,
        unoptimized=config["benchmark"]["unoptimized"],
        reference_dt=lambda wc: ron_config(config, wc.task, wc.ny)["dt"],
        sim_dt=config["simulation"]["dt"],
        divergence_bound=config["evaluation"]["divergence_bound"],
        chunk_size=lambda wc: config["reference"]["chunk_size"] if wc.variant == "ron" else config["benchmark"]["chunk_size"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    log:
        log_path("rollout", "{task}_ny{ny}_{variant}"),
    benchmark:
        "benchmarks/rollout/{task}_ny{ny}_{variant}.tsv"
    threads: 1  # a sequential time loop: XLA keeps it on one core, so jobs run side by side
    resources:
        **resources_for("rollout"),
    script:
        "../scripts/rollout.py"


rule readout:
    input:
        activations=rules.rollout.output.h5,
        data="results/data/{task}.h5",
    output:
        json="results/scores/{task}/ny{ny}/{variant}.json",
    params:
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        **config["readout"],
    log:
        log_path("readout", "{task}_ny{ny}_{variant}"),
    threads: 1
    resources:
        **resources_for("readout"),
    script:
        "../scripts/readout.py"
