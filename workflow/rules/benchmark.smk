# Stages 6-8: activations of each reservoir variant on the task inputs, the readouts, statistics.
# One job per (task, ny, variant) runs all its seeds: one compiled rollout serves them all.


rule rollout:
    input:
        reservoirs=reservoir_files,
        sidecars=sidecar_files,
        data=results_path("data/{task}.h5"),
    output:
        h5=results_path("activations/{task}/ny{ny}/{variant}.h5"),
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
        benchmark_path("rollout/{task}_ny{ny}_{variant}.tsv")
    threads: 1  # a sequential time loop: XLA keeps it on one core, so jobs run side by side
    resources:
        **resources_for("rollout"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/rollout.py"


rule readout:
    input:
        activations=rules.rollout.output.h5,
        data=results_path("data/{task}.h5"),
    output:
        json=results_path("scores/{task}/ny{ny}/{variant}.json"),
    params:
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        **config["readout"],
    log:
        log_path("readout", "{task}_ny{ny}_{variant}"),
    threads: 1
    resources:
        **resources_for("readout"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/readout.py"
