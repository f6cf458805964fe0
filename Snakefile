# physres: pretraining soft-robot physical reservoirs against digital reference reservoirs.
# Paper scale:  snakemake --cores all
# Quick scale:  snakemake --cores all --configfile workflow/configs/quick.yaml
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/pretrain.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/supplementary.smk"


rule all:
    input:
        all_targets(),
    default_target: True
