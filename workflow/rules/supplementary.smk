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
        **resources_for("tables"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/flops.py"
