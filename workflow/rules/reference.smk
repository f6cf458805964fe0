# Stages 2-3: the digital RON references and the pretraining datasets (supplementary C).


rule reference_ron:
    output:
        h5=expand(results_path("reference/{{task}}/ny{{ny}}/seed{seed}.h5"), seed=REF_SEEDS),
    log:
        log_path("reference_ron", "{task}_ny{ny}"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("reference_ron"),
    params:
        seeds=REF_SEEDS,
        ron=lambda wc: ron_config(config, wc.task, wc.ny),
        n_u=lambda wc: input_dimension(config, wc.task),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/reference_ron.py"


rule select_reference:
    input:
        data=results_path("data/{task}.h5"),
    output:
        h5=results_path("reference/{task}/ny{ny}/selected.h5"),
        json=results_path("reference/{task}/ny{ny}/selection.json"),
    log:
        log_path("select_reference", "{task}_ny{ny}"),
    benchmark:
        benchmark_path("select_reference/{task}_ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("select_reference"),
    params:
        ron=lambda wc: ron_config(config, wc.task, wc.ny),
        n_u=lambda wc: input_dimension(config, wc.task),
        first_seed=config["reference"]["pretrain_seed"],
        candidates=config["reference"]["candidates"],
        validation_fraction=config["reference"]["validation_fraction"],
        split_seed=config["reference"]["pretrain_seed"],
        chunk_size=config["reference"]["chunk_size"],
        readout=lambda wc: readout_params(wc.task),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/select_reference.py"


rule pretraining_dataset:
    input:
        ron=SELECTED_RON,
        data=results_path("data/{task}.h5"),
    output:
        h5=results_path("datasets/{task}/ny{ny}.h5"),
    log:
        log_path("pretraining_dataset", "{task}_ny{ny}"),
    benchmark:
        benchmark_path("pretraining_dataset/{task}_ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretraining_dataset"),
    params:
        **config["pretraining_dataset"],
        chunk_size=config["reference"]["chunk_size"],
        x64=config["numerics"]["x64"],
    script:
        "../scripts/pretraining_dataset.py"
