"""The typed specs (physres.specs): the config-to-model mapping the rules, scripts and speed CLI
share, checked against the functions that consume the specs, without Snakemake."""

import dataclasses
import inspect
import math

import pytest
from conftest import load_config

from physres.config import ConfigError
from physres.physical import init_physical_reservoir, init_unoptimized_reservoir
from physres.reservoirs import PhysicalEnsemble, load_ensemble
from physres.specs import (
    UNOPTIMIZED_FIELDS,
    Architecture,
    Schedule,
    Simulation,
    architecture_spec,
    cross_task_schedule_spec,
    schedule_spec,
    simulation_spec,
)


def keywords(function) -> set[str]:
    return set(inspect.signature(function).parameters)


def test_architecture_is_the_init_function_keywords():
    fields = {field.name for field in dataclasses.fields(Architecture)}
    assert fields <= keywords(init_physical_reservoir)
    assert set(UNOPTIMIZED_FIELDS) <= fields
    assert set(UNOPTIMIZED_FIELDS) <= keywords(init_unoptimized_reservoir)


@pytest.mark.parametrize("task, ny, layout", [("mackey_glass", 6, (1, 2)), ("lorenz96", 15, (5, 1))])
def test_architecture_spec_reads_layout_task_and_environment(task, ny, layout):
    config = load_config()
    spec = architecture_spec(config, task, str(ny))  # wildcards arrive as strings
    assert (spec.ny, (spec.n_robots, spec.n_pcs)) == (ny, layout)
    assert 3 * spec.n_robots * spec.n_pcs == spec.ny
    assert spec.nu == (config["data"]["lorenz96"]["n_u"] if task == "lorenz96" else 1)
    assert spec.base_angle == pytest.approx(math.radians(config["robot"]["base_angle_deg"]))
    assert spec.gravity == config["robot"]["gravity"]
    assert spec.controller == config["pretrain"]["controller"]
    assert architecture_spec(config, task, ny, controller="simplified").controller == "simplified"


def test_architecture_params_round_trip_and_unoptimized_subset():
    spec = architecture_spec(load_config(), "adiac", 9)
    assert Architecture(**spec.as_params()) == spec
    assert list(spec.unoptimized()) == list(UNOPTIMIZED_FIELDS)
    assert all(spec.unoptimized()[key] == spec.as_params()[key] for key in UNOPTIMIZED_FIELDS)


def test_unknown_layout_names_the_key():
    with pytest.raises(ConfigError, match="robot.layouts: no layout for ny = 7"):
        architecture_spec(load_config(), "adiac", 7)


def test_schedules_follow_the_config():
    config = load_config("workflow/configs/quick.yaml")
    schedule = schedule_spec(config)
    assert schedule.epochs == config["pretrain"]["epochs"]
    assert schedule.batch_size == config["pretrain"]["batch_size"]
    retune = cross_task_schedule_spec(config)
    cross_task = config["supplementary"]["cross_task"]
    assert (retune.epochs, retune.warmup_epochs) == (cross_task["epochs"], cross_task["warmup_epochs"])
    assert retune.learning_rate == schedule.learning_rate
    assert Schedule(**schedule.as_params()) == schedule


def test_simulation_spec_is_the_ensembles_keywords():
    config = load_config()
    spec = simulation_spec(config, "mackey_glass", 6)
    ron = next(c for c in config["reference"]["configs"] if (c["task"], c["ny"]) == ("mackey_glass", 6))
    assert spec.reference_dt == ron["dt"] and spec.sim_dt == config["simulation"]["dt"]
    fields = set(spec.as_params())
    assert fields <= keywords(PhysicalEnsemble.__init__) and fields <= keywords(load_ensemble)
    assert Simulation(**spec.as_params()) == spec


def test_specs_are_frozen():
    spec = simulation_spec(load_config(), "adiac", 6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.sim_dt = 1.0
