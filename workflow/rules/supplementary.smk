# Stage 10: the paper's supplementary experiments (so far: the digital inference cost).


rule flops:
    output:
        csv="results/tables/flops.csv",
        html=report(
            "results/tables/flops.html",
            caption="../report/flops.rst",
            category="Supplementary",
            subcategory="Digital inference cost",
            labels={"table": "Digital inference FLOPs"},
        ),
        md="results/tables/flops.md",
        tex="results/tables/flops.tex",
        pdf="results/figures/flops.pdf",
        png=report(
            "results/figures/flops.png",
            caption="../report/flops_figure.rst",
            category="Supplementary",
            subcategory="Digital inference cost",
            labels={"figure": "Digital inference FLOPs"},
        ),
    params:
        config={key: config[key] for key in ("tasks", "data")},
        dimensions=DIMS,
    log:
        "logs/flops.log",
    threads: 1
    resources:
        **resources_for("tables"),
    conda:
        "../envs/physres.yaml"
    script:
        "../scripts/flops.py"
