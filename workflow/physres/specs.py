"""Typed specs of one job, built from the validated config by plain functions: what a reservoir is
made of (Architecture), how it is pretrained (Schedule) and how a physical reservoir is simulated
(Simulation). Rules, scripts, the speed CLI and tests build them here, so the config-to-model
mapping is written once and testable without Snakemake. No JAX: the Snakefile imports this.

A rule passes a spec to its script as plain params (``as_params``, a dict of builtins), so
Snakemake's params trigger and its metadata see values, and a script rebuilds the spec with
``Spec(**params)``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from physres.config import input_dimension, robot_layout, ron_config

# the architecture's entries an unoptimized reservoir is drawn from (no map, no controllers)
UNOPTIMIZED_FIELDS = (
    "ny",
    "nu",
    "n_robots",
    "n_pcs",
    "init_ranges",
    "gravity",
    "coriolis",
    "minimum_fraction",
    "gauss_points",
    "dynamics",
    "base_angle",
)


class Spec:
    """A frozen dataclass handed to a job as plain params."""

    def as_params(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Architecture(Spec):
    """The keyword arguments of physres.physical.init_physical_reservoir for one (task, ny):
    N = n_robots robots of n_pcs PCS segments (3 * N * n_pcs = ny strains), the task's n_u, the
    initial theta_rob ranges and draw, the controllers' architecture and initial scales, the map's
    initial sigma, s_min and bases, and the robots' model and surroundings (gravity in the world
    frame, base angle in rad, Coriolis terms, theta_min's fraction, Gauss points, implementation)."""

    ny: int
    nu: int
    n_robots: int
    n_pcs: int
    init_ranges: dict
    controller: str
    sigma: float
    s_min: float
    map_bases: str
    controller_init_scale: float
    linear_controller_init_scale: float
    robot_draw: str
    gravity: list
    base_angle: float
    coriolis: bool
    minimum_fraction: float
    gauss_points: int
    dynamics: str

    def unoptimized(self) -> dict[str, Any]:
        """What an unoptimized reservoir is drawn from: the robots' entries, no map or controllers."""
        params = self.as_params()
        return {key: params[key] for key in UNOPTIMIZED_FIELDS}


@dataclass(frozen=True)
class Schedule(Spec):
    """Adam with warm-up and cosine decay (paper, supplementary E): epochs, warm-up epochs, peak
    and final learning rates, batch size, global-norm clip; and which model of each start is
    kept (physres.names.KEEPS: the final one, or the best on validation)."""

    epochs: int
    warmup_epochs: int
    learning_rate: float
    final_learning_rate: float
    batch_size: int
    clip_norm: float
    keep: str


@dataclass(frozen=True)
class Simulation(Spec):
    """How a physical reservoir is run on a task's inputs: the RON's input interval reference_dt,
    the Euler step sim_dt (dividing it), the input between samples ("hold" or "linear"), the
    floating-point precision, and the |Q| bound past which a run counts as diverged. The fields
    are physres.physical.PhysicalEnsemble's keywords."""

    reference_dt: float
    sim_dt: float
    interpolation: str
    precision: str
    divergence_bound: float


def robot_environment(config: dict) -> dict[str, Any]:
    """The robots' model and surroundings from ``robot``, as physres.physical's init functions
    take them: one place, so pretraining and every rollout build the same robots (gravity in the
    world frame, the bases' angle in rad, Coriolis terms, theta_min, quadrature, implementation)."""
    robot = config["robot"]
    return {
        "gravity": robot["gravity"],
        "base_angle": math.radians(robot["base_angle_deg"]),
        "coriolis": robot["coriolis"],
        "minimum_fraction": robot["minimum_fraction"],
        "gauss_points": robot["gauss_points"],
        "dynamics": robot["dynamics"],
    }


def architecture_spec(config: dict, task: str, ny: int | str, controller: str | None = None) -> Architecture:
    """The physical reservoir of (task, ny): its layout from ``robot.layouts``, n_u from the task,
    the controllers from ``pretrain.controller`` (or ``controller``, e.g. "simplified")."""
    n_robots, n_pcs = robot_layout(config, ny)
    pretrain = config["pretrain"]
    return Architecture(
        ny=int(ny),
        nu=input_dimension(config, task),
        n_robots=n_robots,
        n_pcs=n_pcs,
        init_ranges=config["robot"]["init_ranges"],
        controller=controller or pretrain["controller"],
        sigma=pretrain["map_sigma_init"],
        s_min=pretrain["map_s_min"],
        map_bases=pretrain["map_bases"],
        controller_init_scale=pretrain["controller_init_scale"],
        linear_controller_init_scale=pretrain["linear_controller_init_scale"],
        robot_draw=config["robot"]["init_draw"],
        **robot_environment(config),
    )


def schedule_spec(config: dict) -> Schedule:
    """The main pretraining's schedule (``pretrain``)."""
    return Schedule(**{field.name: config["pretrain"][field.name] for field in dataclasses.fields(Schedule)})


def cross_task_schedule_spec(config: dict) -> Schedule:
    """The cross-task re-tuning's schedule: the main one with the block's own epochs and warm-up."""
    cross_task = config["supplementary"]["cross_task"]
    return dataclasses.replace(
        schedule_spec(config), epochs=cross_task["epochs"], warmup_epochs=cross_task["warmup_epochs"]
    )


def simulation_spec(config: dict, task: str, ny: int | str) -> Simulation:
    """A physical rollout of (task, ny) at its RON's Delta t."""
    simulation = config["simulation"]
    return Simulation(
        reference_dt=ron_config(config, task, ny)["dt"],
        sim_dt=simulation["dt"],
        interpolation=simulation["input_interpolation"],
        precision=simulation["precision"],
        divergence_bound=config["evaluation"]["divergence_bound"],
    )
