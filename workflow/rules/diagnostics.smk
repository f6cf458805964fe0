# Stage 11 (ours, not the paper's): task-independent diagnostics of every variant's reservoirs,
# memory capacity, IPC, kernel and generalisation rank, on one common i.i.d. input per (task, ny).


rule diagnostics:
    input:
        data=results_path("data/{task}.h5"),
        ron=lambda wc: reservoir_files(variant_wildcards(wc, "ron")),
        pretrained=lambda wc: reservoir_files(variant_wildcards(wc, "pretrained")),
        pretrained_sidecars=lambda wc: sidecar_files(variant_wildcards(wc, "pretrained")),
        partial=lambda wc: reservoir_files(variant_wildcards(wc, "partial")),
        partial_sidecars=lambda wc: sidecar_files(variant_wildcards(wc, "partial")),
    output:
        json=results_path("supplementary/diagnostics/{task}/ny{ny}.json"),
    log:
        log_path("diagnostics", "{task}_ny{ny}"),
    benchmark:
        benchmark_path("diagnostics/{task}_ny{ny}.tsv")
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("diagnostics"),
    params:
        diagnostics=DIAGNOSTICS,
        variants=VARIANTS,
        seeds=PRETRAIN_SEEDS,
        ron_seeds=REF_SEEDS,
        architecture=lambda wc: unoptimized_architecture(variant_wildcards(wc, "unoptimized")),
        unoptimized=config["benchmark"]["unoptimized"],
        simulation=simulation_params,
        x64=config["numerics"]["x64"],
    script:
        "../scripts/diagnostics.py"


rule diagnostics_table:
    input:
        runs=expand(results_path("supplementary/diagnostics/{task}/ny{ny}.json"), task=DIAGNOSTICS_TASKS, ny=DIMS),
    output:
        csv=results_path("tables/diagnostics.csv"),
        html=report(
            results_path("tables/diagnostics.html"),
            caption="../report/diagnostics.rst",
            category="Beyond the paper",
            subcategory="Reservoir diagnostics",
            labels={"table": "Memory capacity, IPC and ranks"},
        ),
        md=results_path("tables/diagnostics.md"),
        tex=results_path("tables/diagnostics.tex"),
        pdf=results_path("figures/memory_capacity.pdf"),
        png=report(
            results_path("figures/memory_capacity.png"),
            caption="../report/memory_capacity.rst",
            category="Beyond the paper",
            subcategory="Reservoir diagnostics",
            labels={"figure": "Memory capacity against delay"},
        ),
    log:
        log_path("diagnostics_table"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("diagnostics_table"),
    params:
        diagnostics=DIAGNOSTICS,
    script:
        "../scripts/diagnostics_table.py"
