# physres: pretraining soft-robot physical reservoirs against digital reference reservoirs.
# Paper scale:  snakemake --cores all
# Quick scale:  snakemake --cores all --configfile workflow/configs/quick.yaml
import os
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

# the physres package of this checkout, for the Snakefile and for every job (also inside the
# conda environment of envs/, which does not install it: with --sdm conda add
# --conda-not-block-search-path-envvars, or Snakemake clears PYTHONPATH in the job)
PHYSRES_PATH = os.path.join(workflow.basedir, "workflow")
sys.path.insert(0, PHYSRES_PATH)
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [PHYSRES_PATH, os.environ.get("PYTHONPATH")])))

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/pretrain.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/supplementary.smk"
include: "workflow/rules/cross_task.smk"
include: "workflow/rules/diagnostics.smk"
include: "workflow/rules/robustness.smk"


rule all:
    default_target: True
    input:
        all_targets(),


# a resources entry for a rule that does not exist would silently fall back to the default
unknown_resources = sorted(set(config["resources"]) - {"default"} - {r.name for r in workflow.rules})
if unknown_resources:
    raise WorkflowError(
        f"config resources: {', '.join(unknown_resources)} is not a rule; allowed: default, "
        + ", ".join(sorted(r.name for r in workflow.rules))
    )
