# Stages 6-7: activations of each reservoir variant on the task inputs, then the readout.


def reservoir_file(wc):
    """The file that defines a reservoir variant (physical variants add their entries here)."""
    if wc.variant == "ron":
        return f"results/reference/{wc.task}/ny{wc.ny}/seed{wc.seed}.h5"
    raise ValueError(f"variant {wc.variant!r} is not available yet")


def task_param(task, key, default=None):
    return config["data"].get(task, {}).get(key, default)


rule rollout:
    input:
        reservoir=reservoir_file,
        data="results/data/{task}.h5",
    output:
        h5="results/activations/{task}/ny{ny}/{variant}/seed{seed}.h5",
    params:
        chunk_size=config["reference"]["chunk_size"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    log:
        log_path("rollout", "{task}_ny{ny}_{variant}_seed{seed}"),
    benchmark:
        "benchmarks/rollout/{task}_ny{ny}_{variant}_seed{seed}.tsv"
    threads: 2
    resources:
        **resources_for("rollout"),
    script:
        "../scripts/rollout.py"


rule readout:
    input:
        activations=rules.rollout.output.h5,
        data="results/data/{task}.h5",
    output:
        json="results/scores/{task}/ny{ny}/{variant}/seed{seed}.json",
    params:
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        **config["readout"],
    log:
        log_path("readout", "{task}_ny{ny}_{variant}_seed{seed}"),
    threads: 1
    resources:
        **resources_for("readout"),
    script:
        "../scripts/readout.py"
