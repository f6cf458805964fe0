# Stage 10: the paper's supplementary experiments (so far: the digital inference cost).


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
    params:
        config={key: config[key] for key in ("tasks", "data")},
        dimensions=DIMS,
    log:
        log_path("flops"),
    threads: 1
    resources:
        **resources_for("flops"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/flops.py"


rule coriolis_ablation:
    input:
        models=lambda wc: expand(results_path("pretrain/{task}/ny{ny}/full/seed{seed}.eqx"), task=CORIOLIS["task"],
                                 ny=wc.ny, seed=PRETRAIN_SEEDS),
        sidecars=lambda wc: expand(results_path("pretrain/{task}/ny{ny}/full/seed{seed}.json"), task=CORIOLIS["task"],
                                   ny=wc.ny, seed=PRETRAIN_SEEDS),
        data=results_path(f"data/{CORIOLIS['task']}.h5"),
    output:
        json=results_path("supplementary/coriolis/ny{ny}.json"),
        strains=results_path("supplementary/coriolis/ny{ny}_strains.h5"),
    params:
        task=CORIOLIS["task"],
        reference_dt=lambda wc: ron_config(config, CORIOLIS["task"], wc.ny)["dt"],
        sim_dt=config["simulation"]["dt"],
        fine_dt=CORIOLIS["fine_dt"],
        divergence_bound=config["evaluation"]["divergence_bound"],
        washout=task_param(CORIOLIS["task"], "washout", 0),
        lag=task_param(CORIOLIS["task"], "lag", 0),
        alpha=config["readout"]["ridge_alpha"],
        x64=config["numerics"]["x64"],
    log:
        log_path("coriolis_ablation", "ny{ny}"),
    benchmark:
        benchmark_path("coriolis_ablation/ny{ny}.tsv")
    threads: 1
    resources:
        **resources_for("coriolis_ablation"),
    conda:
        "../envs/physres.yaml"
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
    params:
        title=f"{TASK_LABEL[CORIOLIS['task']]}, $n_y$ = {CORIOLIS_DIMS[0]}",
    log:
        log_path("coriolis_table"),
    threads: 1
    resources:
        **resources_for("coriolis_table"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/coriolis_table.py"
