# Stage 10 (supplementary): cross-task reuse. A source task's fully pretrained reservoirs at
# ny = CROSS_TASK_NY serve a target task, their robots unchanged: reused as they are (tuning
# none), or with the feedforward controller (ff) or both controllers and the map (ff_fb_map)
# re-tuned against the target's RON; then the main rollout and readout scripts on the target's
# data, under results/<run>/supplementary/cross_task/{source}/{tuning}/.


rule retune_cross_task:
    input:
        models=lambda wc: source_checkpoints(wc.source),
        sidecars=lambda wc: [path.removesuffix(".eqx") + ".json" for path in source_checkpoints(wc.source)],
        dataset=results_path("datasets/{task}/ny{ny}.h5"),
    output:
        models=expand(
            cross_task_path("{{source}}/{{tuning}}/pretrain/{{task}}/ny{{ny}}/seed{seed}.eqx"), seed=PRETRAIN_SEEDS
        ),
        sidecars=expand(
            cross_task_path("{{source}}/{{tuning}}/pretrain/{{task}}/ny{{ny}}/seed{seed}.json"), seed=PRETRAIN_SEEDS
        ),
    log:
        log_path("retune_cross_task", "{source}_to_{task}_ny{ny}_{tuning}"),
    benchmark:
        benchmark_path("retune_cross_task/{source}_to_{task}_ny{ny}_{tuning}.tsv")
    wildcard_constraints:
        tuning="ff|ff_fb_map",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("retune_cross_task"),
    params:
        seeds=PRETRAIN_SEEDS,
        schedule=CROSS_TASK_SCHEDULE,
        checkpoint_every=config["pretrain"]["checkpoint_every"],
        resume=cross_task_path("{source}/{tuning}/pretrain/{task}/ny{ny}/resume.eqx"),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/retune_cross_task.py"


rule rollout_cross_task:
    input:
        reservoirs=cross_task_reservoirs,
        sidecars=lambda wc: [path.removesuffix(".eqx") + ".json" for path in cross_task_reservoirs(wc)],
        data=results_path("data/{task}.h5"),
    output:
        part=cross_task_path("{source}/{tuning}/activations/{task}/ny{ny}/{variant}/part{part}.h5"),
    log:
        log_path("rollout_cross_task", "{source}_to_{task}_ny{ny}_{tuning}_{variant}_part{part}"),
    benchmark:
        benchmark_path("rollout_cross_task/{source}_to_{task}_ny{ny}_{tuning}_{variant}_part{part}.tsv")
    wildcard_constraints:
        variant="pretrained",
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("rollout_cross_task"),
    params:
        seeds=PRETRAIN_SEEDS,
        # the target task's input, its samples the target RON's Delta t apart (paper)
        simulation=simulation_params,
        chunk_size=lambda wc: rollout_chunk_size(config, wc.task),
        chunks_per_job=lambda wc: rollout_chunks_per_job(config, wc.task),
        washout=lambda wc: task_param(wc.task, "washout", 0),
        x64=config["numerics"]["x64"],
    script:
        "../scripts/rollout.py"


use rule gather_activations as gather_cross_task with:
    input:
        parts=lambda wc: activation_parts(cross_task_path("{source}/{tuning}/activations/{task}/ny{ny}/{variant}"), wc),
    output:
        h5=cross_task_path("{source}/{tuning}/activations/{task}/ny{ny}/{variant}.h5"),
    log:
        log_path("gather_cross_task", "{source}_to_{task}_ny{ny}_{tuning}_{variant}"),
    wildcard_constraints:
        variant="pretrained",
    resources:
        **resources_for("gather_cross_task"),
    params:
        rollout_rule="rollout_cross_task",


rule readout_cross_task:
    input:
        activations=rules.gather_cross_task.output.h5,
        data=results_path("data/{task}.h5"),
    output:
        json=cross_task_path("{source}/{tuning}/scores/{task}/ny{ny}/{variant}.json"),
    log:
        log_path("readout_cross_task", "{source}_to_{task}_ny{ny}_{tuning}_{variant}"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("readout_cross_task"),
    params:
        **config["readout"],
        washout=lambda wc: task_param(wc.task, "washout", 0),
        lag=lambda wc: task_param(wc.task, "lag", 0),
        rollout_rule="gather_cross_task",
    script:
        "../scripts/readout.py"


rule cross_task_table:
    input:
        scores=[
            cross_task_path(f"{source}/{tuning}/scores/{target}/ny{CROSS_TASK_NY}/pretrained.json")
            for source, target, tuning in CROSS_TASK_COMBINATIONS
        ],
        standard=expand(
            results_path("scores/{task}/ny{ny}/pretrained.json"),
            task=sorted({target for _, target, _ in CROSS_TASK_COMBINATIONS}),
            ny=CROSS_TASK_NY,
        ),
    output:
        csv=results_path("tables/cross_task.csv"),
        html=report(
            results_path("tables/cross_task.html"),
            caption="../report/cross_task.rst",
            category="Supplementary",
            subcategory="Cross-task reuse",
            labels={"table": "Cross-task reuse"},
        ),
        md=results_path("tables/cross_task.md"),
        tex=results_path("tables/cross_task.tex"),
        degradation_csv=results_path("tables/cross_task_degradation.csv"),
        degradation_html=report(
            results_path("tables/cross_task_degradation.html"),
            caption="../report/cross_task_degradation.rst",
            category="Supplementary",
            subcategory="Cross-task reuse",
            labels={"table": "Cross-task degradation"},
        ),
        degradation_md=results_path("tables/cross_task_degradation.md"),
        degradation_tex=results_path("tables/cross_task_degradation.tex"),
    log:
        log_path("cross_task_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("cross_task_table"),
    params:
        combinations=CROSS_TASK_COMBINATIONS,
        paper=CROSS_TASK["paper"],
        paper_degradation=CROSS_TASK["paper_degradation"],
    script:
        "../scripts/cross_task_table.py"
