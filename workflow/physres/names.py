"""The names of tasks, reservoir variants and pretraining modes, and their labels, defined once
(the rules, the tables and the figures use these). No heavy imports: the Snakefile reads it."""

#: the paper's tasks, in its order
TASK_ORDER = ["smnist", "adiac", "mackey_glass", "lorenz96"]
TASK_LABEL = {"smnist": "sMNIST", "adiac": "ADIAC", "mackey_glass": "Mackey-Glass", "lorenz96": "Lorenz96"}
CLASSIFICATION_TASKS = ("smnist", "adiac")
FORECASTING_TASKS = ("mackey_glass", "lorenz96")
TASKS = CLASSIFICATION_TASKS + FORECASTING_TASKS


def task_kind(task: str) -> str:
    """classification (sMNIST, ADIAC: the final state, accuracy) or forecasting (Mackey-Glass,
    Lorenz96: every post-washout state, NRMSE)."""
    if task in CLASSIFICATION_TASKS:
        return "classification"
    if task in FORECASTING_TASKS:
        return "forecasting"
    raise ValueError(f"unknown task {task!r}; allowed: {', '.join(TASKS)}")


#: pretraining modes: full (theta_rob trained) and rob_fixed (theta_rob kept at its sampled value)
MODES = ("full", "rob_fixed")

#: which model of a start pretraining keeps: its last epoch's, or its epoch of least validation loss
KEEPS = ("final", "best_validation")

#: the PRC benchmark's variants: the digital RON and three physical reservoirs
PHYSICAL_VARIANTS = ["unoptimized", "partial", "pretrained"]
VARIANTS = ["ron", *PHYSICAL_VARIANTS]
#: a fifth variant, ours (not the paper's): the unoptimized draws with their drive gain tuned on
#: validation data (config benchmark.unoptimized_tuned); benchmarked for that block's tasks only
TUNED = "unoptimized_tuned"
#: robust pretraining (ours, not the paper's): theta_rob perturbed per minibatch while pretraining
#: (config supplementary.robustness.robust_pretraining); only the robustness study uses it
ROBUST = "pretrained_robust"
VARIANT_LABEL = {
    "ron": "Digital RON (target)",
    "unoptimized": "Unoptimized",
    "partial": "Partially pretrained",
    "pretrained": "Pretrained (ours)",
    TUNED: "Unoptimized, gain tuned (ours)",
    ROBUST: "Pretrained robustly (ours)",
}
#: the pretraining mode whose checkpoints a physical variant uses (unoptimized: none)
PHYSICAL_MODE = {"pretrained": "full", "partial": "rob_fixed"}

#: cross-task reuse: which digital parts are re-tuned against the target task's RON (the robots,
#: theta_rob, never are): none, the feedforward controller, or both controllers and the map
TUNINGS = ["none", "ff", "ff_fb_map"]
# the robustness study's perturbations (ours): the robots' parameters, and noise in the rollout
NOISE_KINDS = ("sensor", "actuation")
PERTURBATION_LABEL = {
    "mismatch": "parameter mismatch",
    "sensor": "sensor noise",
    "actuation": "actuation noise",
}
TUNING_LABEL = {"none": "None", "ff": "FF only", "ff_fb_map": "FF + FB + map"}
