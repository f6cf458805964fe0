# Stages 6-8: activations of each reservoir variant on the task inputs, the readouts, statistics.
# A job runs all seeds of a variant: one compiled rollout serves them all. A physical variant's
# sequences are split into jobs of benchmark.chunks_per_job compiled chunks (parts), gathered
# into one activations file equal to the unsplit run's.


rule rollout_ron:
    input:
        reservoirs=reservoir_files,
        data=results_path("data/{task}.h5"),
    output:
        h5=results_path("activations/{task}/ny{ny}/{variant}.h5"),
    log:
        log_path("rollout_ron", "{task}_ny{ny}_{variant}"),
    benchmark:
        benchmark_path("rollout_ron/{task}_ny{ny}_{variant}.tsv")
    wildcard_constraints:
        variant="ron",
    conda:
        "../../envs/physres.yaml"
    threads: 1  # a sequential time loop: XLA keeps it on one core, so jobs run side by side
    resources:
        **resources_for("rollout_ron"),
    params:
        seeds=REF_SEEDS,
        chunk_size=config["reference"]["chunk_size"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/rollout.py"


rule tune_unoptimized:
    input:
        data=results_path("data/{task}.h5"),
    output:
        json=results_path("tuning/{task}/ny{ny}.json"),
    log:
        log_path("tune_unoptimized", "{task}_ny{ny}"),
    benchmark:
        benchmark_path("tune_unoptimized/{task}_ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("tune_unoptimized"),
    params:
        seeds=PRETRAIN_SEEDS,
        gains=config["benchmark"]["unoptimized_tuned"]["gains"],
        architecture=lambda wc: unoptimized_architecture(variant_wildcards(wc, "unoptimized")),
        unoptimized=config["benchmark"]["unoptimized"],
        validation_fraction=config["reference"]["validation_fraction"],
        split_seed=config["reference"]["pretrain_seed"],
        readout=lambda wc: readout_params(wc.task),
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        simulation=simulation_params,
        x64=config["numerics"]["x64"],
    script:
        "../scripts/tune_unoptimized.py"


rule rollout_physical:
    input:
        reservoirs=reservoir_files,
        sidecars=sidecar_files,
        data=results_path("data/{task}.h5"),
    output:
        part=results_path("activations/{task}/ny{ny}/{variant}/part{part}.h5"),
    log:
        log_path("rollout_physical", "{task}_ny{ny}_{variant}_part{part}"),
    benchmark:
        benchmark_path("rollout_physical/{task}_ny{ny}_{variant}_part{part}.tsv")
    wildcard_constraints:
        variant="|".join(BENCHMARKED_PHYSICAL),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("rollout_physical"),
    params:
        seeds=PRETRAIN_SEEDS,
        architecture=unoptimized_architecture,
        unoptimized=unoptimized_encoding,
        simulation=simulation_params,
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        chunks_per_job=lambda wc: rollout_chunks_per_job(config, wc.task),
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/rollout.py"


rule gather_activations:
    input:
        parts=lambda wc: activation_parts(results_path("activations/{task}/ny{ny}/{variant}"), wc),
    output:
        h5=results_path("activations/{task}/ny{ny}/{variant}.h5"),
    log:
        log_path("gather_activations", "{task}_ny{ny}_{variant}"),
    wildcard_constraints:
        variant="|".join(BENCHMARKED_PHYSICAL),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("gather_activations"),
    params:
        rollout_rule="rollout_physical",
    script:
        "../scripts/gather_activations.py"


rule readout:
    input:
        activations=results_path("activations/{task}/ny{ny}/{variant}.h5"),
        data=results_path("data/{task}.h5"),
    output:
        json=results_path("scores/{task}/ny{ny}/{variant}.json"),
    log:
        log_path("readout", "{task}_ny{ny}_{variant}"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("readout"),
    params:
        **config["readout"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        rollout_rule=lambda wc: "rollout_ron" if wc.variant == "ron" else "gather_activations",
    script:
        "../scripts/readout.py"
