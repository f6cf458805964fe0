# Stage 9: tables, figures and the report.


rule ron_reference_table:
    input:
        scores=expand(
            "results/scores/{task}/ny{ny}/ron/seed{seed}.json", task=TASKS, ny=DIMS, seed=REF_SEEDS
        ),
    output:
        csv=report(
            "results/tables/ron_reference.csv",
            caption="../report/ron_reference.rst",
            category="Tables",
            labels={"table": "RON reference"},
        ),
        md="results/tables/ron_reference.md",
        tex="results/tables/ron_reference.tex",
    params:
        paper=[{"task": c["task"], "ny": c["ny"], "paper": c["paper"]} for c in config["reference"]["configs"]],
        pretrain_seed=config["reference"]["pretrain_seed"],
    log:
        "logs/ron_reference_table.log",
    threads: 1
    resources:
        **resources_for("tables"),
    script:
        "../scripts/ron_reference_table.py"
