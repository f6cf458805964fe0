# Stage 9: tables, figures and the report.


rule ron_reference_table:
    input:
        scores=expand(results_path("scores/{task}/ny{ny}/ron.json"), task=TASKS, ny=DIMS),
        selections=expand(results_path("reference/{task}/ny{ny}/selection.json"), task=TASKS, ny=DIMS),
    output:
        csv=results_path("tables/ron_reference.csv"),
        html=report(
            results_path("tables/ron_reference.html"),
            caption="../report/ron_reference.rst",
            category="Digital reference",
            subcategory="Tables",
            labels={"table": "RON reference"},
        ),
        md=results_path("tables/ron_reference.md"),
        tex=results_path("tables/ron_reference.tex"),
    log:
        log_path("ron_reference_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("ron_reference_table"),
    params:
        configs=config["reference"]["configs"],
    script:
        "../scripts/ron_reference_table.py"


rule pretraining_table:
    input:
        evaluations=expand(
            results_path("pretrain/{task}/ny{ny}/{mode}/evaluation.json"), task=TASKS, ny=DIMS, mode=MODES
        ),
    output:
        csv=results_path("tables/pretraining.csv"),
        html=report(
            results_path("tables/pretraining.html"),
            caption="../report/pretraining.rst",
            category="Pretraining",
            subcategory="Tables",
            labels={"table": "Pretraining (Table 1)"},
        ),
        md=results_path("tables/pretraining.md"),
        tex=results_path("tables/pretraining.tex"),
        summary=results_path("tables/pretraining_summary.csv"),
        summary_html=report(
            results_path("tables/pretraining_summary.html"),
            caption="../report/pretraining_summary.rst",
            category="Pretraining",
            subcategory="Tables",
            labels={"table": "Pretraining: reductions and divergences"},
        ),
        summary_md=results_path("tables/pretraining_summary.md"),
        summary_tex=results_path("tables/pretraining_summary.tex"),
    log:
        log_path("pretraining_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretraining_table"),
    params:
        layouts=config["robot"]["layouts"],
        paper=config["pretrain"]["paper"],
        paper_summary=config["pretrain"]["paper_summary"],
    script:
        "../scripts/pretraining_table.py"


rule pretraining_figure:
    input:
        trajectories=expand(
            results_path("pretrain/{task}/ny{ny}/{mode}/trajectories.h5"), task=FIGURE_TASK, ny=FIGURE_NY, mode=MODES
        ),
    output:
        pdf=results_path("figures/pretraining_trajectories.pdf"),
        png=report(
            results_path("figures/pretraining_trajectories.png"),
            caption="../report/pretraining_trajectories.rst",
            category="Pretraining",
            subcategory="Figures",
            labels={"figure": "Pretraining trajectories (Fig. 3)"},
        ),
    log:
        log_path("pretraining_figure"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("pretraining_figure"),
    params:
        modes=MODES,
        title=f"{TASK_LABEL[FIGURE_TASK]}, $n_y$ = {FIGURE_NY}",
    script:
        "../scripts/pretraining_figure.py"


rule benchmark_tables:
    input:
        scores=[
            results_path(f"scores/{task}/ny{ny}/{variant}.json")
            for task in TASKS
            for ny in DIMS
            for variant in benchmark_variants(task)
        ],
        selections=expand(results_path("reference/{task}/ny{ny}/selection.json"), task=TASKS, ny=DIMS),
    output:
        benchmark=results_path("tables/benchmark.csv"),
        benchmark_html=report(
            results_path("tables/benchmark.html"),
            caption="../report/benchmark.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "PRC benchmark (Table 2)"},
        ),
        benchmark_md=results_path("tables/benchmark.md"),
        benchmark_tex=results_path("tables/benchmark.tex"),
        significance=results_path("tables/significance.csv"),
        significance_html=report(
            results_path("tables/significance.html"),
            caption="../report/significance.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "Mann-Whitney p-values"},
        ),
        significance_md=results_path("tables/significance.md"),
        significance_tex=results_path("tables/significance.tex"),
        summary=results_path("tables/summary.csv"),
        summary_html=report(
            results_path("tables/summary.html"),
            caption="../report/summary.rst",
            category="PRC benchmark",
            subcategory="Tables",
            labels={"table": "Summary"},
        ),
        summary_md=results_path("tables/summary.md"),
        summary_tex=results_path("tables/summary.tex"),
        figure_pdf=results_path("figures/scalability.pdf"),
        figure_png=report(
            results_path("figures/scalability.png"),
            caption="../report/scalability.rst",
            category="PRC benchmark",
            subcategory="Figures",
            labels={"figure": "Scalability"},
        ),
    log:
        log_path("benchmark_tables"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("benchmark_tables"),
    params:
        alpha=config["benchmark"]["significance_level"],
        paper=config["benchmark"]["paper"],
        paper_summary=config["benchmark"]["paper_summary"],
    script:
        "../scripts/benchmark_tables.py"
