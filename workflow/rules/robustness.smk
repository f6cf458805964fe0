# Stage 12 (ours, not the paper's): does a pretrained reservoir survive being built? Parameter
# mismatch of the robots, with the nominal readout kept and with the readout refitted; sensor and
# actuation noise; and robust pretraining, whose reservoirs join the mismatch study.


rule pretrain_robust:
    input:
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
    output:
        models=expand(robust_path("pretrain/{{task}}/ny{{ny}}/seed{seed}.eqx"), seed=PRETRAIN_SEEDS),
        sidecars=expand(robust_path("pretrain/{{task}}/ny{{ny}}/seed{seed}.json"), seed=PRETRAIN_SEEDS),
    log:
        log_path("pretrain_robust", "{task}_ny{ny}"),
    benchmark:
        benchmark_path("pretrain_robust/{task}_ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretrain_robust"),
    params:
        architecture=architecture,
        seeds=PRETRAIN_SEEDS,
        schedule=PRETRAIN_SCHEDULE,
        robust_sigma=ROBUSTNESS["robust_pretraining"]["sigma"],
        checkpoint_every=config["pretrain"]["checkpoint_every"],
        resume=robust_path("pretrain/{task}/ny{ny}/resume.eqx"),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/pretrain.py"


rule robustness:
    input:
        data=results_path("data/{task}.h5"),
        reservoirs=reservoir_files,
        sidecars=sidecar_files,
    output:
        json=results_path("supplementary/robustness/{task}/ny{ny}/{variant}.json"),
    log:
        log_path("robustness", "{task}_ny{ny}_{variant}"),
    benchmark:
        benchmark_path("robustness/{task}_ny{ny}_{variant}.tsv")
    wildcard_constraints:
        variant="|".join(ROBUSTNESS["variants"] + [ROBUST]),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("robustness"),
    params:
        robustness=ROBUSTNESS,
        seeds=PRETRAIN_SEEDS,
        architecture=unoptimized_architecture,
        unoptimized=unoptimized_encoding,
        simulation=simulation_params,
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        washout=lambda wc: task_param(wc.task, "washout", 0),
        readout=lambda wc: readout_params(wc.task),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/robustness.py"


rule robustness_table:
    input:
        runs=[
            results_path(f"supplementary/robustness/{task}/ny{ny}/{variant}.json")
            for task, ny in ROBUSTNESS_CELLS
            for variant in mismatch_variants(task, ny)
        ],
    output:
        csv=results_path("tables/robustness.csv"),
        html=report(
            results_path("tables/robustness.html"),
            caption="../report/robustness.rst",
            category="Beyond the paper",
            subcategory="Robustness of a built reservoir",
            labels={"table": "Parameter mismatch"},
        ),
        md=results_path("tables/robustness.md"),
        tex=results_path("tables/robustness.tex"),
        mismatch_pdf=results_path("figures/robustness_mismatch.pdf"),
        mismatch_png=report(
            results_path("figures/robustness_mismatch.png"),
            caption="../report/robustness_mismatch.rst",
            category="Beyond the paper",
            subcategory="Robustness of a built reservoir",
            labels={"figure": "Score against parameter mismatch"},
        ),
    log:
        log_path("robustness_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("robustness_table"),
    params:
        rule="robustness",
        perturbations=["mismatch"],
    script:
        "../scripts/robustness_table.py"


rule robustness_noise:
    input:
        data=results_path("data/{task}.h5"),
        reservoirs=reservoir_files,
        sidecars=sidecar_files,
    output:
        json=results_path("supplementary/robustness_noise/{task}/ny{ny}/{variant}.json"),
    log:
        log_path("robustness_noise", "{task}_ny{ny}_{variant}"),
    benchmark:
        benchmark_path("robustness_noise/{task}_ny{ny}_{variant}.tsv")
    wildcard_constraints:
        variant="|".join(NOISE_VARIANTS),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("robustness_noise"),
    params:
        robustness=ROBUSTNESS,
        seeds=PRETRAIN_SEEDS,
        ron_seeds=REF_SEEDS,
        architecture=unoptimized_architecture,
        unoptimized=unoptimized_encoding,
        simulation=simulation_params,
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        ron_chunk_size=config["reference"]["chunk_size"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        readout=lambda wc: readout_params(wc.task),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/robustness_noise.py"


rule robustness_noise_table:
    input:
        runs=[
            results_path(f"supplementary/robustness_noise/{task}/ny{ny}/{variant}.json")
            for task, ny in ROBUSTNESS_CELLS
            for variant in NOISE_VARIANTS
        ],
    output:
        csv=results_path("tables/robustness_noise.csv"),
        html=report(
            results_path("tables/robustness_noise.html"),
            caption="../report/robustness_noise.rst",
            category="Beyond the paper",
            subcategory="Robustness of a built reservoir",
            labels={"table": "Sensor and actuation noise"},
        ),
        md=results_path("tables/robustness_noise.md"),
        tex=results_path("tables/robustness_noise.tex"),
        sensor_pdf=results_path("figures/robustness_sensor.pdf"),
        sensor_png=report(
            results_path("figures/robustness_sensor.png"),
            caption="../report/robustness_noise_figure.rst",
            category="Beyond the paper",
            subcategory="Robustness of a built reservoir",
            labels={"figure": "Score against sensor noise"},
        ),
        actuation_pdf=results_path("figures/robustness_actuation.pdf"),
        actuation_png=report(
            results_path("figures/robustness_actuation.png"),
            caption="../report/robustness_noise_figure.rst",
            category="Beyond the paper",
            subcategory="Robustness of a built reservoir",
            labels={"figure": "Score against actuation noise"},
        ),
    log:
        log_path("robustness_noise_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("robustness_noise_table"),
    params:
        rule="robustness_noise",
        perturbations=list(NOISE_KINDS),
    script:
        "../scripts/robustness_table.py"
