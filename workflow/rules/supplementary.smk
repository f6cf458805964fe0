# Stage 10: the paper's supplementary experiments: digital inference cost, simplified controllers,
# Coriolis ablation.


rule flops:
    output:
        csv=results_path("tables/flops.csv"),
        html=report(
            results_path("tables/flops.html"),
            caption="../report/flops.rst",
            category="Supplementary",
            subcategory="Digital inference cost",
            labels={"table": "Digital inference FLOPs"},
        ),
        md=results_path("tables/flops.md"),
        tex=results_path("tables/flops.tex"),
        pdf=results_path("figures/flops.pdf"),
        png=report(
            results_path("figures/flops.png"),
            caption="../report/flops_figure.rst",
            category="Supplementary",
            subcategory="Digital inference cost",
            labels={"figure": "Digital inference FLOPs"},
        ),
    log:
        log_path("flops"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("flops"),
    params:
        config={key: config[key] for key in ("tasks", "data")},
        dimensions=DIMS,
        paper=config["supplementary"]["flops"]["paper"],
    script:
        "../scripts/flops.py"


rule coriolis_ablation:
    input:
        models=lambda wc: expand(
            results_path("pretrain/{task}/ny{ny}/full/seed{seed}.eqx"),
            task=CORIOLIS["task"],
            ny=wc.ny,
            seed=PRETRAIN_SEEDS,
        ),
        sidecars=lambda wc: expand(
            results_path("pretrain/{task}/ny{ny}/full/seed{seed}.json"),
            task=CORIOLIS["task"],
            ny=wc.ny,
            seed=PRETRAIN_SEEDS,
        ),
        data=results_path(f"data/{CORIOLIS['task']}.h5"),
    output:
        json=results_path("supplementary/coriolis/ny{ny}.json"),
        strains=results_path("supplementary/coriolis/ny{ny}_strains.h5"),
    log:
        log_path("coriolis_ablation", "ny{ny}"),
    benchmark:
        benchmark_path("coriolis_ablation/ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("coriolis_ablation"),
    params:
        task=CORIOLIS["task"],
        reference_dt=lambda wc: ron_config(config, CORIOLIS["task"], wc.ny)["dt"],
        sim_dt=config["simulation"]["dt"],
        input_interpolation=config["simulation"]["input_interpolation"],
        fine_dt=CORIOLIS["fine_dt"],
        divergence_bound=config["evaluation"]["divergence_bound"],
        washout=task_param(CORIOLIS["task"], "washout", 0),
        lag=task_param(CORIOLIS["task"], "lag", 0),
        alpha=config["readout"]["ridge_alpha"],
        x64=config["numerics"]["x64"],
    script:
        "../scripts/coriolis_ablation.py"


rule coriolis_table:
    input:
        runs=expand(results_path("supplementary/coriolis/ny{ny}.json"), ny=CORIOLIS_DIMS),
        strains=expand(results_path("supplementary/coriolis/ny{ny}_strains.h5"), ny=CORIOLIS_DIMS),
    output:
        csv=results_path("tables/coriolis.csv"),
        html=report(
            results_path("tables/coriolis.html"),
            caption="../report/coriolis.rst",
            category="Supplementary",
            subcategory="Coriolis and centrifugal forces",
            labels={"table": "Coriolis ablation"},
        ),
        md=results_path("tables/coriolis.md"),
        tex=results_path("tables/coriolis.tex"),
        pdf=results_path("figures/coriolis_strains.pdf"),
        png=report(
            results_path("figures/coriolis_strains.png"),
            caption="../report/coriolis_strains.rst",
            category="Supplementary",
            subcategory="Coriolis and centrifugal forces",
            labels={"figure": "Strains with and without Coriolis"},
        ),
    log:
        log_path("coriolis_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("coriolis_table"),
    params:
        title=f"{TASK_LABEL[CORIOLIS['task']]}, $n_y$ = {CORIOLIS_DIMS[0]}",
        paper=CORIOLIS["paper"],
    script:
        "../scripts/coriolis_table.py"


# Simplified controllers: the main runs' pretraining, evaluation, rollout and readout scripts
# on reservoirs with 1 x 16 feedback and linear feedforward controllers, under
# results/<run>/supplementary/simplified/ (full pretraining, the PRC benchmark's pretrained variant).


rule pretrain_simplified_part:
    input:
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        state=lambda wc: previous_pretrain_part(wc, simplified_path),
    output:
        state=pretrain_part_path(root=simplified_path),
    log:
        log_path("pretrain_simplified_part", "{task}_ny{ny}_{mode}_epoch{epoch}"),
    benchmark:
        benchmark_path("pretrain_simplified_part/{task}_ny{ny}_{mode}_epoch{epoch}.tsv")
    wildcard_constraints:
        mode="full",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretrain_simplified_part"),
    params:
        **SIMPLIFIED_PRETRAIN_PARAMS,
        stop_after=lambda wc: int(wc.epoch),
        resume=simplified_path("pretrain/{task}/ny{ny}/{mode}/parts/epoch{epoch}.resume.eqx"),
    script:
        "../scripts/pretrain.py"


rule pretrain_simplified:
    input:
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        state=lambda wc: last_pretrain_part(wc, simplified_path),
    output:
        models=expand(simplified_path("pretrain/{{task}}/ny{{ny}}/{{mode}}/seed{seed}.eqx"), seed=PRETRAIN_SEEDS),
        sidecars=expand(simplified_path("pretrain/{{task}}/ny{{ny}}/{{mode}}/seed{seed}.json"), seed=PRETRAIN_SEEDS),
    log:
        log_path("pretrain_simplified", "{task}_ny{ny}_{mode}"),
    benchmark:
        benchmark_path("pretrain_simplified/{task}_ny{ny}_{mode}.tsv")
    wildcard_constraints:
        mode="full",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretrain_simplified"),
    params:
        **SIMPLIFIED_PRETRAIN_PARAMS,
        resume=simplified_path("pretrain/{task}/ny{ny}/{mode}/resume.eqx"),
    script:
        "../scripts/pretrain.py"


rule evaluate_simplified:
    input:
        models=rules.pretrain_simplified.output.models,
        sidecars=rules.pretrain_simplified.output.sidecars,
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
        ron=SELECTED_RON,
        data=results_path("data/{task}.h5"),
    output:
        json=simplified_path("pretrain/{task}/ny{ny}/{mode}/evaluation.json"),
        trajectories=simplified_path("pretrain/{task}/ny{ny}/{mode}/trajectories.h5"),
    log:
        log_path("evaluate_simplified", "{task}_ny{ny}_{mode}"),
    benchmark:
        benchmark_path("evaluate_simplified/{task}_ny{ny}_{mode}.tsv")
    wildcard_constraints:
        mode="full",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("evaluate_simplified"),
    params:
        **config["evaluation"],
        sim_dt=config["simulation"]["dt"],
        input_interpolation=config["simulation"]["input_interpolation"],
        x64=config["numerics"]["x64"],
    script:
        "../scripts/evaluate_pretraining.py"


rule rollout_simplified:
    input:
        reservoirs=expand(simplified_path("pretrain/{{task}}/ny{{ny}}/full/seed{seed}.eqx"), seed=PRETRAIN_SEEDS),
        sidecars=expand(simplified_path("pretrain/{{task}}/ny{{ny}}/full/seed{seed}.json"), seed=PRETRAIN_SEEDS),
        data=results_path("data/{task}.h5"),
    output:
        part=simplified_path("activations/{task}/ny{ny}/{variant}/part{part}.h5"),
    log:
        log_path("rollout_simplified", "{task}_ny{ny}_{variant}_part{part}"),
    benchmark:
        benchmark_path("rollout_simplified/{task}_ny{ny}_{variant}_part{part}.tsv")
    wildcard_constraints:
        variant="pretrained",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("rollout_simplified"),
    params:
        seeds=PRETRAIN_SEEDS,
        simulation=simulation_params,
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        chunks_per_job=lambda wc: rollout_chunks_per_job(config, wc.task),
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/rollout.py"


use rule gather_activations as gather_simplified with:
    input:
        parts=lambda wc: activation_parts(simplified_path("activations/{task}/ny{ny}/{variant}"), wc),
    output:
        h5=simplified_path("activations/{task}/ny{ny}/{variant}.h5"),
    log:
        log_path("gather_simplified", "{task}_ny{ny}_{variant}"),
    wildcard_constraints:
        variant="pretrained",
    resources:
        **resources_for("gather_simplified"),
    params:
        rollout_rule="rollout_simplified",


rule readout_simplified:
    input:
        activations=rules.gather_simplified.output.h5,
        data=results_path("data/{task}.h5"),
    output:
        json=simplified_path("scores/{task}/ny{ny}/{variant}.json"),
    log:
        log_path("readout_simplified", "{task}_ny{ny}_{variant}"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("readout_simplified"),
    params:
        **config["readout"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        rollout_rule="gather_simplified",
    script:
        "../scripts/readout.py"


rule simplified_table:
    input:
        evaluations=expand(results_path("pretrain/{task}/ny{ny}/full/evaluation.json"), task=SIMPLIFIED_TASKS, ny=DIMS),
        scores=expand(results_path("scores/{task}/ny{ny}/pretrained.json"), task=SIMPLIFIED_TASKS, ny=DIMS),
        simplified_evaluations=expand(
            simplified_path("pretrain/{task}/ny{ny}/full/evaluation.json"), task=SIMPLIFIED_TASKS, ny=DIMS
        ),
        simplified_scores=expand(
            simplified_path("scores/{task}/ny{ny}/pretrained.json"), task=SIMPLIFIED_TASKS, ny=DIMS
        ),
    output:
        csv=results_path("tables/simplified_controllers.csv"),
        html=report(
            results_path("tables/simplified_controllers.html"),
            caption="../report/simplified.rst",
            category="Supplementary",
            subcategory="Simplified controllers",
            labels={"table": "Simplified controllers"},
        ),
        md=results_path("tables/simplified_controllers.md"),
        tex=results_path("tables/simplified_controllers.tex"),
    log:
        log_path("simplified_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("simplified_table"),
    params:
        main_controller=config["pretrain"]["controller"],
        config={key: config[key] for key in ("tasks", "data")},
        paper=config["supplementary"]["simplified"]["paper"],
        flops_paper=config["supplementary"]["flops"]["paper"],
    script:
        "../scripts/simplified_table.py"
