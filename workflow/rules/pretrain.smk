# Stages 4-5: multi-start pretraining of the physical reservoir and its evaluation.
# A training of more than pretrain.epochs_per_job epochs runs as a chain of jobs: pretrain_part
# saves the state after each part, and pretrain continues from the last one and writes the
# checkpoints. A training continued from its parts ends bit for bit where an unsplit one does.


rule pretrain_part:
    input:
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        state=previous_pretrain_part,
    output:
        state=pretrain_part_path(),
    log:
        log_path("pretrain_part", "{task}_ny{ny}_{mode}_epoch{epoch}"),
    benchmark:
        benchmark_path("pretrain_part/{task}_ny{ny}_{mode}_epoch{epoch}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1  # XLA runs these small batched steps on one core; two jobs share 2 cores
    resources:
        **resources_for("pretrain_part"),
    params:
        **PRETRAIN_PARAMS,
        stop_after=lambda wc: int(wc.epoch),
        resume=results_path("pretrain/{task}/ny{ny}/{mode}/parts/epoch{epoch}.resume.eqx"),
    script:
        "../scripts/pretrain.py"


rule pretrain:
    input:
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        state=last_pretrain_part,
    output:
        models=expand(results_path("pretrain/{{task}}/ny{{ny}}/{{mode}}/seed{seed}.eqx"), seed=PRETRAIN_SEEDS),
        sidecars=expand(results_path("pretrain/{{task}}/ny{{ny}}/{{mode}}/seed{seed}.json"), seed=PRETRAIN_SEEDS),
    log:
        log_path("pretrain", "{task}_ny{ny}_{mode}"),
    benchmark:
        benchmark_path("pretrain/{task}_ny{ny}_{mode}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1  # XLA runs these small batched steps on one core; two jobs share 2 cores
    resources:
        **resources_for("pretrain"),
    params:
        **PRETRAIN_PARAMS,
        resume=results_path("pretrain/{task}/ny{ny}/{mode}/resume.eqx"),
    script:
        "../scripts/pretrain.py"


rule evaluate_pretraining:
    input:
        models=rules.pretrain.output.models,
        sidecars=rules.pretrain.output.sidecars,
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        ron=SELECTED_RON,
        data=results_path("data/{task}.h5"),
    output:
        json=results_path("pretrain/{task}/ny{ny}/{mode}/evaluation.json"),
        trajectories=results_path("pretrain/{task}/ny{ny}/{mode}/trajectories.h5"),
    log:
        log_path("evaluate_pretraining", "{task}_ny{ny}_{mode}"),
    benchmark:
        benchmark_path("evaluate_pretraining/{task}_ny{ny}_{mode}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1  # a sequential time loop: XLA keeps it on one core, so jobs run side by side
    resources:
        **resources_for("evaluate_pretraining"),
    params:
        **config["evaluation"],
        sim_dt=config["simulation"]["dt"],
        input_interpolation=config["simulation"]["input_interpolation"],
        x64=config["numerics"]["x64"],
    script:
        "../scripts/evaluate_pretraining.py"
