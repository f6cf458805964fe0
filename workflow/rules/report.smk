# Stage 9: tables, figures and the report.


rule ron_reference_table:
    input:
        scores=expand("results/scores/{task}/ny{ny}/ron.json", task=TASKS, ny=DIMS),
        selections=expand("results/reference/{task}/ny{ny}/selection.json", task=TASKS, ny=DIMS),
    output:
        csv="results/tables/ron_reference.csv",
        html=report(
            "results/tables/ron_reference.html",
            caption="../report/ron_reference.rst",
            category="Digital reference",
            subcategory="Tables",
            labels={"table": "RON reference"},
        ),
        md="results/tables/ron_reference.md",
        tex="results/tables/ron_reference.tex",
    log:
        "logs/ron_reference_table.log",
    threads: 1
    resources:
        **resources_for("tables"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/ron_reference_table.py"


rule pretraining_table:
    input:
        evaluations=expand("results/pretrain/{task}/ny{ny}/{mode}/evaluation.json", task=TASKS, ny=DIMS, mode=MODES),
    output:
        csv="results/tables/pretraining.csv",
        html=report(
            "results/tables/pretraining.html",
            caption="../report/pretraining.rst",
            category="Pretraining",
            subcategory="Tables",
            labels={"table": "Pretraining (Table 1)"},
        ),
        md="results/tables/pretraining.md",
        tex="results/tables/pretraining.tex",
        summary="results/tables/pretraining_summary.csv",
        summary_html=report(
            "results/tables/pretraining_summary.html",
            caption="../report/pretraining_summary.rst",
            category="Pretraining",
            subcategory="Tables",
            labels={"table": "Pretraining: reductions and divergences"},
        ),
        summary_md="results/tables/pretraining_summary.md",
        summary_tex="results/tables/pretraining_summary.tex",
    params:
        layouts=config["robot"]["layouts"],
    log:
        "logs/pretraining_table.log",
    threads: 1
    resources:
        **resources_for("tables"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/pretraining_table.py"


rule pretraining_figure:
    input:
        trajectories=expand(
            "results/pretrain/{task}/ny{ny}/{mode}/trajectories.h5", task=FIGURE_TASK, ny=FIGURE_NY, mode=MODES
        ),
    output:
        pdf="results/figures/pretraining_trajectories.pdf",
        png=report(
            "results/figures/pretraining_trajectories.png",
            caption="../report/pretraining_trajectories.rst",
            category="Pretraining",
            subcategory="Figures",
            labels={"figure": "Pretraining trajectories (Fig. 3)"},
        ),
    params:
        modes=MODES,
        title=f"{TASK_LABEL[FIGURE_TASK]}, $n_y$ = {FIGURE_NY}",
    log:
        "logs/pretraining_figure.log",
    threads: 1
    resources:
        **resources_for("figures"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/pretraining_figure.py"


rule benchmark_tables:
    input:
        scores=expand("results/scores/{task}/ny{ny}/{variant}.json", task=TASKS, ny=DIMS, variant=VARIANTS),
        selections=expand("results/reference/{task}/ny{ny}/selection.json", task=TASKS, ny=DIMS),
    output:
        benchmark="results/tables/benchmark.csv",
        benchmark_html=report(
            "results/tables/benchmark.html",
            caption="../report/benchmark.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "PRC benchmark (Table 2)"},
        ),
        benchmark_md="results/tables/benchmark.md",
        benchmark_tex="results/tables/benchmark.tex",
        significance="results/tables/significance.csv",
        significance_html=report(
            "results/tables/significance.html",
            caption="../report/significance.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "Mann-Whitney p-values"},
        ),
        significance_md="results/tables/significance.md",
        significance_tex="results/tables/significance.tex",
        summary="results/tables/summary.csv",
        summary_html=report(
            "results/tables/summary.html",
            caption="../report/summary.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "Summary"},
        ),
        summary_md="results/tables/summary.md",
        summary_tex="results/tables/summary.tex",
        figure_pdf="results/figures/scalability.pdf",
        figure_png=report(
            "results/figures/scalability.png",
            caption="../report/scalability.rst",
            category="PRC benchmark",
            subcategory="Figures",
            labels={"figure": "Scalability"},
        ),
    params:
        alpha=config["benchmark"]["significance_level"],
    log:
        "logs/benchmark_tables.log",
    threads: 1
    resources:
        **resources_for("tables"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/benchmark_tables.py"
