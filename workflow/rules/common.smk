from pathlib import Path
from types import SimpleNamespace

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from physres.config import (
    check_config,
    coerce_numbers,
    cross_task_combinations,
    input_dimension,
    pretrain_part_ends,
    rollout_chunk_size,
    rollout_chunks_per_job,
    rollout_parts,
    ron_config,
)
from physres.names import MODES as MODE_NAMES
from physres.names import NOISE_KINDS, PHYSICAL_MODE, ROBUST, PHYSICAL_VARIANTS, TASK_LABEL, TUNED, TUNINGS, VARIANTS
from physres.specs import architecture_spec, cross_task_schedule_spec, schedule_spec, simulation_spec

SCHEMA = "../schemas/config.schema.yaml"

# `--configfile FILE TARGET` reads TARGET as a second config file: a JSON result parses as one
# and would be merged in silently, so anything that is not a YAML file outside results/ is refused
for path in workflow.overwrite_configfiles or []:
    if not str(path).endswith((".yaml", ".yml")) or Path(path).resolve().is_relative_to(Path("results").resolve()):
        raise WorkflowError(
            f"--configfile {path}: not a configuration. Snakemake reads every word after --configfile "
            "as a config file, so targets must come first: snakemake TARGET ... --configfile "
            "workflow/configs/quick.yaml"
        )

# `--config 'dimensions=[6, 9]'` passes list items as strings: numbers where the schema wants them
config.update(coerce_numbers(config))

# snakemake's validator first (fills defaults, the standard check); on failure our own pass
# lists every bad key with the allowed values in one message.
try:
    validate(config, SCHEMA)
except WorkflowError:
    check_config(config)
    raise
check_config(config)

# Every run (config key `run`: paper, quick, reduced, smoke, ...) writes its own trees, so no
# scale overwrites another's results; resources/ (the downloaded data) is shared.
RUN = config["run"]


def results_path(path):
    return f"results/{RUN}/{path}"


def benchmark_path(path):
    return f"benchmarks/{RUN}/{path}"


def log_path(rule_name, pattern=None):
    return f"logs/{RUN}/{rule_name}/{pattern}.log" if pattern else f"logs/{RUN}/{rule_name}.log"


TASKS = config["tasks"]
DIMS = config["dimensions"]
REF_SEEDS = config["reference"]["seeds"]
# the Coriolis ablation: the paper's ny = 6 and 9 where the run has them, else its smallest ny
CORIOLIS = config["supplementary"]["coriolis"]
SIMPLIFIED_TASKS = [task for task in config["supplementary"]["simplified"]["tasks"] if task in TASKS]
CORIOLIS_DIMS = [ny for ny in CORIOLIS["dimensions"] if ny in DIMS] or [min(DIMS)]
# the paper's Fig. 3 shows Mackey-Glass at ny = 6; fall back to what the config runs
FIGURE_TASK = "mackey_glass" if "mackey_glass" in TASKS else TASKS[0]
FIGURE_NY = 6 if 6 in DIMS else DIMS[0]
# cross-task reuse: the paper's ny = 6 where the run has it, else its smallest ny
CROSS_TASK = config["supplementary"]["cross_task"]
CROSS_TASK_NY = CROSS_TASK["ny"] if CROSS_TASK["ny"] in DIMS else min(DIMS)
# the tuned-gain baseline (ours): a fifth variant for the block's tasks
TUNED_TASKS = [task for task in config["benchmark"]["unoptimized_tuned"]["tasks"] if task in TASKS]
BENCHMARKED_PHYSICAL = PHYSICAL_VARIANTS + ([TUNED] if TUNED_TASKS else [])


def benchmark_variants(task):
    """The variants the PRC benchmark scores for a task: the paper's four, and the tuned baseline."""
    return VARIANTS + ([TUNED] if task in TUNED_TASKS else [])


# robustness to parameter mismatch (ours): the block's tasks at its dimensions (null: the run's
# smallest and largest ny)
ROBUSTNESS = config["supplementary"]["robustness"]
ROBUSTNESS_CELLS = [
    (task, ny)
    for task in ROBUSTNESS["tasks"]
    if task in TASKS
    for ny in sorted(set(ROBUSTNESS["dimensions"] or [min(DIMS), max(DIMS)]) & set(DIMS))
]
# sensor and actuation noise (ours): in the same cells, when a noise grid has a sigma above 0
ROBUSTNESS_NOISE = any(sigma > 0 for kind in NOISE_KINDS for sigma in ROBUSTNESS[f"{kind}_sigmas"])
# with the RON under the same noise, as the digital reference's curve
NOISE_VARIANTS = ["ron", *ROBUSTNESS["variants"]]
# robust pretraining (ours): its tasks at the study's smallest ny, in the mismatch study
ROBUST_CELLS = [
    (task, min(ny for t, ny in ROBUSTNESS_CELLS if t == task))
    for task in ROBUSTNESS["robust_pretraining"]["tasks"]
    if task in {t for t, _ in ROBUSTNESS_CELLS}
]


def mismatch_variants(task, ny):
    """The variants of a mismatch cell: the block's, and the robust pretraining's in its cells."""
    return ROBUSTNESS["variants"] + ([ROBUST] if (task, int(ny)) in ROBUST_CELLS else [])


def robust_path(path):
    return results_path(f"supplementary/robust_pretraining/{path}")


# reservoir diagnostics (ours): every ny of the run for those of its tasks in the block's list
DIAGNOSTICS = config["supplementary"]["diagnostics"]
DIAGNOSTICS_TASKS = [task for task in DIAGNOSTICS["tasks"] if task in TASKS]


wildcard_constraints:
    task="|".join(TASKS),
    ny=r"\d+",
    seed=r"\d+",
    epoch=r"\d+",
    variant="|".join(VARIANTS + [TUNED, ROBUST]),
    mode="|".join(MODE_NAMES),
    source="|".join(TASKS),
    tuning="|".join(TUNINGS),


def resources_for(rule_name):
    """mem_mb and runtime (minutes) of a rule from config['resources'], else the default."""
    table = config["resources"]
    entry = {**table["default"], **table.get(rule_name, {})}
    return entry


# the RON a (task, ny) is pretrained against: the best of reference.candidates on validation
SELECTED_RON = results_path("reference/{task}/ny{ny}/selected.h5")


def readout_params(task):
    """Keyword arguments of physres.readout's scores for one task."""
    readout = config["readout"]
    return {
        "washout": task_param(task, "washout", 0),
        "lag": task_param(task, "lag", 0),
        "C": readout["logistic_C"],
        "max_iter": readout["logistic_max_iter"],
        "alpha": readout["ridge_alpha"],
    }


def all_targets():
    targets = [results_path(f"tables/ron_reference.{ext}") for ext in ("csv", "md", "tex")]
    targets += expand(results_path("datasets/{task}/ny{ny}.h5"), task=TASKS, ny=DIMS)
    targets += [
        results_path(f"tables/{name}.{ext}")
        for name in ("pretraining", "pretraining_summary")
        for ext in ("csv", "md", "tex")
    ]
    targets += [results_path(f"figures/pretraining_trajectories.{ext}") for ext in ("pdf", "png")]
    targets += [
        results_path(f"tables/{name}.{ext}")
        for name in ("benchmark", "significance", "summary")
        for ext in ("csv", "md", "tex")
    ]
    targets += [results_path(f"figures/scalability.{ext}") for ext in ("pdf", "png")]
    targets += [results_path(f"tables/flops.{ext}") for ext in ("csv", "md", "tex")]
    targets += [results_path(f"figures/flops.{ext}") for ext in ("pdf", "png")]
    if SIMPLIFIED_TASKS:
        targets += [results_path(f"tables/simplified_controllers.{ext}") for ext in ("csv", "md", "tex")]
    if CROSS_TASK_COMBINATIONS:
        targets += [
            results_path(f"tables/{name}.{ext}")
            for name in ("cross_task", "cross_task_degradation")
            for ext in ("csv", "md", "tex")
        ]
    if CORIOLIS["task"] in TASKS:
        targets += [results_path(f"tables/coriolis.{ext}") for ext in ("csv", "md", "tex")]
        targets += [results_path(f"figures/coriolis_strains.{ext}") for ext in ("pdf", "png")]
    if ROBUSTNESS_CELLS:
        targets += [results_path(f"tables/robustness.{ext}") for ext in ("csv", "md", "tex")]
        targets += [results_path(f"figures/robustness_mismatch.{ext}") for ext in ("pdf", "png")]
    if ROBUSTNESS_CELLS and ROBUSTNESS_NOISE:
        targets += [results_path(f"tables/robustness_noise.{ext}") for ext in ("csv", "md", "tex")]
        targets += [results_path(f"figures/robustness_{kind}.{ext}") for kind in NOISE_KINDS for ext in ("pdf", "png")]
    if DIAGNOSTICS_TASKS:
        targets += [results_path(f"tables/diagnostics.{ext}") for ext in ("csv", "md", "tex")]
        targets += [results_path(f"figures/memory_capacity.{ext}") for ext in ("pdf", "png")]
    return targets


# pretraining (rules/pretrain.smk)

PRETRAIN_SEEDS = config["pretrain"]["seeds"]
MODES = config["pretrain"]["modes"]
# every job's specs come from physres.specs (typed, built from the config); a rule hands them to its
# script as plain params
PRETRAIN_SCHEDULE = schedule_spec(config).as_params()
# the epochs after which a training split into jobs saves its state for the next job
PRETRAIN_PART_ENDS = pretrain_part_ends(config)


def pretrain_part_path(epoch="{epoch}", task="{task}", ny="{ny}", mode="{mode}", root=results_path):
    """The state of a (task, ny, mode) training after ``epoch`` epochs (the pretrain_part jobs;
    ``root`` places the supplementary trainings' under their folder)."""
    return root(f"pretrain/{task}/ny{ny}/{mode}/parts/epoch{epoch}.eqx")


def previous_pretrain_part(wc, root=results_path):
    """The state a part of a split training continues from (none for the first part)."""
    epoch = int(wc.epoch)
    if epoch not in PRETRAIN_PART_ENDS:
        raise ValueError(f"no pretraining part ends at epoch {epoch}; the parts end at {PRETRAIN_PART_ENDS}")
    earlier = [e for e in PRETRAIN_PART_ENDS if e < epoch]
    return pretrain_part_path(earlier[-1], wc.task, wc.ny, wc.mode, root) if earlier else []


def last_pretrain_part(wc, root=results_path):
    """The state the last job of a split training continues from (none if it is not split)."""
    return pretrain_part_path(PRETRAIN_PART_ENDS[-1], wc.task, wc.ny, wc.mode, root) if PRETRAIN_PART_ENDS else []


def architecture(wc):
    """Arguments of physres.physical.init_physical_reservoir for one (task, ny)."""
    return architecture_spec(config, wc.task, wc.ny).as_params()


# the params every job of a (task, ny, mode) training shares (rules pretrain_part, pretrain)
PRETRAIN_PARAMS = {
    "architecture": architecture,
    "seeds": PRETRAIN_SEEDS,
    "schedule": PRETRAIN_SCHEDULE,
    "checkpoint_every": config["pretrain"]["checkpoint_every"],
    "x64": config["numerics"]["x64"],
}


def unoptimized_architecture(wc):
    """What an unoptimized rollout draws its robots from; None for the variants read from files,
    so that a change of the baseline reruns only its rollouts (and a change of the pretraining,
    e.g. its controllers, does not rerun the baseline's)."""
    if wc.variant not in ("unoptimized", TUNED):
        return None
    return architecture_spec(config, wc.task, wc.ny).unoptimized()


def simulation_params(wc):
    """How a physical rollout of (task, ny) is simulated: PhysicalEnsemble's keywords."""
    return simulation_spec(config, wc.task, wc.ny).as_params()


def unoptimized_encoding(wc):
    """benchmark.unoptimized for an unoptimized (or tuned) rollout; None for the other variants."""
    return config["benchmark"]["unoptimized"] if wc.variant in ("unoptimized", TUNED) else None


# simplified controllers (rules/supplementary.smk)


def simplified_path(path):
    return results_path(f"supplementary/simplified/{path}")


def simplified_architecture(wc):
    return architecture_spec(config, wc.task, wc.ny, controller="simplified").as_params()


# the same training with the simplified controllers (rules pretrain_simplified_part, pretrain_simplified)
SIMPLIFIED_PRETRAIN_PARAMS = PRETRAIN_PARAMS | {"architecture": simplified_architecture}


# cross-task reuse (rules/cross_task.smk)


def cross_task_path(path):
    return results_path(f"supplementary/cross_task/{path}")


CROSS_TASK_COMBINATIONS = cross_task_combinations(config)
CROSS_TASK_SCHEDULE = cross_task_schedule_spec(config).as_params()


def source_checkpoints(source):
    return expand(
        results_path("pretrain/{source}/ny{ny}/full/seed{seed}.eqx"),
        source=source,
        ny=CROSS_TASK_NY,
        seed=PRETRAIN_SEEDS,
    )


def cross_task_reservoirs(wc):
    """The reservoirs a cross-task rollout runs: the source's own (tuning none) or re-tuned ones."""
    if wc.tuning == "none":
        return source_checkpoints(wc.source)
    return expand(
        cross_task_path("{source}/{tuning}/pretrain/{task}/ny{ny}/seed{seed}.eqx"),
        source=wc.source,
        tuning=wc.tuning,
        task=wc.task,
        ny=wc.ny,
        seed=PRETRAIN_SEEDS,
    )


# benchmark (rules/benchmark.smk)


def reservoir_files(wc):
    """The files that define a variant's reservoirs (unoptimized ones are drawn in the job)."""
    if wc.variant == "ron":
        return expand(results_path("reference/{task}/ny{ny}/seed{seed}.h5"), task=wc.task, ny=wc.ny, seed=REF_SEEDS)
    if wc.variant == TUNED:
        return [results_path(f"tuning/{wc.task}/ny{wc.ny}.json")]
    if wc.variant == ROBUST:
        return expand(robust_path("pretrain/{task}/ny{ny}/seed{seed}.eqx"), task=wc.task, ny=wc.ny, seed=PRETRAIN_SEEDS)
    if wc.variant in PHYSICAL_MODE:
        return expand(
            results_path("pretrain/{task}/ny{ny}/{mode}/seed{seed}.eqx"),
            task=wc.task,
            ny=wc.ny,
            mode=PHYSICAL_MODE[wc.variant],
            seed=config["pretrain"]["seeds"],
        )
    return []


def activation_parts(stem, wc):
    """The part files of a physical variant's rollout jobs (stem: the activations path without
    .h5, with wildcards), one per job: physres.config.rollout_parts."""
    return expand(f"{stem}/part{{part}}.h5", part=range(rollout_parts(config, wc.task)), **dict(wc.items()))


def variant_wildcards(wc, variant):
    """The wildcards of (task, ny) with a variant's, for the per-variant input functions."""
    return SimpleNamespace(task=wc.task, ny=wc.ny, variant=variant)


def sidecar_files(wc):
    return [path.removesuffix(".eqx") + ".json" for path in reservoir_files(wc) if path.endswith(".eqx")]


def task_param(task, key, default=None):
    return config["data"].get(task, {}).get(key, default)
