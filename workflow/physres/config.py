"""Configuration: JSON-schema validation with messages that name the key, plus the checks a
schema cannot express (every ny has a robot layout with 3 * N * n_pcs = ny, every (task, ny)
has a RON configuration)."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import yaml

from physres.names import TUNINGS

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "config.schema.yaml"


class ConfigError(ValueError):
    """A configuration that cannot run; the message names the key and what is allowed."""


def whole_substeps(reference_dt: float, sim_dt: float) -> int | None:
    """Euler steps of sim_dt per input interval of reference_dt, or None unless sim_dt divides it."""
    steps = round(reference_dt / sim_dt)
    return steps if steps >= 1 and abs(steps * sim_dt - reference_dt) <= 1e-9 * reference_dt else None


@functools.cache
def load_schema(schema_path: str | Path = SCHEMA) -> dict:
    """The config's JSON schema (read once per process)."""
    return yaml.safe_load(Path(schema_path).read_text())


def _key_path(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def schema_errors(config: dict, schema_path: str | Path = SCHEMA) -> list[str]:
    """All schema violations, one line each: 'key.path: message'."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    validator = Draft202012Validator(load_schema(schema_path))
    lines = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        if error.validator == "oneOf":  # "null or a table": name what is wrong in the branch of its type
            deeper = [e for e in error.context if e.validator != "type" or e.relative_path]
            error = best_match(deeper) if deeper else error
        if error.validator == "additionalProperties":
            allowed = ", ".join(sorted(error.schema.get("properties", {}))) or "none"
            lines.append(f"{_key_path(error.absolute_path)}: {error.message} (allowed keys: {allowed})")
        elif error.validator == "enum":
            allowed = ", ".join(map(str, error.validator_value))
            lines.append(f"{_key_path(error.absolute_path)}: {error.instance!r} is not allowed (allowed: {allowed})")
        else:
            lines.append(f"{_key_path(error.absolute_path)}: {error.message}")
    return lines


def nonfinite_errors(value: Any, path: tuple = ()) -> list[str]:
    """Every NaN or infinite number in the config (YAML's .nan / .inf pass a schema's 'number')."""
    if isinstance(value, dict):
        return [line for k, v in value.items() for line in nonfinite_errors(v, path + (k,))]
    if isinstance(value, list):
        return [line for i, v in enumerate(value) for line in nonfinite_errors(v, path + (i,))]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{_key_path(path)}: {value} is not a finite number"]
    return []


def walk_schema(schema: dict, value: Any, visit, path: tuple = ()) -> Any:
    """Rebuild ``value`` bottom-up along ``schema``: visit(node, ref, value, path) -> new value is
    called on every value with the schema node that describes it ($ref resolved; ``ref`` is the
    $defs name or None)."""
    defs = schema.get("$defs", {})

    def walk(node: dict, value: Any, path: tuple) -> Any:
        if value is not None and "oneOf" in node:  # "null or X": walk X
            node = next((branch for branch in node["oneOf"] if branch.get("type") != "null"), node)
        ref = node["$ref"].split("/")[-1] if "$ref" in node else None
        if ref is not None:
            node = defs.get(ref, {})
        if isinstance(value, dict):
            children = {}
            for key, item in value.items():
                child = node.get("properties", {}).get(key, node.get("additionalProperties"))
                children[key] = walk(child, item, path + (key,)) if isinstance(child, dict) else item
            value = children
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            value = [walk(node["items"], item, path + (i,)) for i, item in enumerate(value)]
        return visit(node, ref, value, path)

    return walk(schema, value, path)


def reversed_range_errors(config: dict, schema: dict) -> list[str]:
    """Every value the schema types as a range ([low, high]) whose low exceeds its high."""
    lines = []

    def visit(node, ref, value, path):
        if ref and ref.endswith("range") and isinstance(value, list) and len(value) == 2 and value[0] > value[1]:
            lines.append(f"{_key_path(path)}: range {value} is reversed (write [low, high])")
        return value

    walk_schema(schema, config, visit)
    return lines


def coerce_numbers(config: dict, schema_path: str | Path = SCHEMA) -> dict:
    """A copy of ``config`` in which strings that the schema wants as numbers are numbers:
    ``--config 'dimensions=[6, 9]'`` hands the list's items over as strings."""

    def visit(node, ref, value, path):
        types = node.get("type", [])
        types = [types] if isinstance(types, str) else types
        if isinstance(value, str):
            casts = ([int] if "integer" in types else []) + ([int, float] if "number" in types else [])
            for cast in casts:
                try:
                    return cast(value)
                except ValueError:
                    pass
        return value

    return walk_schema(load_schema(schema_path), config, visit)


def semantic_errors(config: dict, schema_path: str | Path = SCHEMA) -> list[str]:
    lines = nonfinite_errors(config) + reversed_range_errors(config, load_schema(schema_path))
    pretrain = config["pretrain"]
    if pretrain["warmup_epochs"] >= pretrain["epochs"]:
        lines.append(
            f"pretrain.warmup_epochs: {pretrain['warmup_epochs']} must be below pretrain.epochs ({pretrain['epochs']})"
        )
    cross_task = config["supplementary"]["cross_task"]
    if cross_task["warmup_epochs"] >= cross_task["epochs"]:
        lines.append(
            f"supplementary.cross_task.warmup_epochs: {cross_task['warmup_epochs']} must be below "
            f"supplementary.cross_task.epochs ({cross_task['epochs']})"
        )
    dataset = config["pretraining_dataset"]
    n_train = int(round(dataset["split"][0] * dataset["m"]))
    if pretrain["batch_size"] > n_train:
        lines.append(
            f"pretrain.batch_size: {pretrain['batch_size']} exceeds the {n_train} training points "
            f"(pretraining_dataset.m * split[0]); lower it or raise m"
        )
    layouts = {entry["ny"]: entry for entry in config["robot"]["layouts"]}
    for i, entry in enumerate(config["robot"]["layouts"]):
        if 3 * entry["n_robots"] * entry["n_pcs"] != entry["ny"]:
            lines.append(
                f"robot.layouts[{i}]: 3 * n_robots * n_pcs = {3 * entry['n_robots'] * entry['n_pcs']} "
                f"but ny = {entry['ny']} (each PCS segment has 3 strains)"
            )
    for i, ny in enumerate(config["dimensions"]):
        if ny not in layouts:
            lines.append(
                f"dimensions[{i}]: ny = {ny} has no robot layout; add it to robot.layouts "
                f"(available: {', '.join(map(str, sorted(layouts)))})"
            )
    known = {(c["task"], c["ny"]) for c in config["reference"]["configs"]}
    for task in config["tasks"]:
        for ny in config["dimensions"]:
            if (task, ny) not in known:
                lines.append(f"reference.configs: no RON configuration for task {task!r}, ny = {ny}")
    sim_dt = config["simulation"]["dt"]
    for i, entry in enumerate(config["reference"]["configs"]):
        used = entry["task"] in config["tasks"] and entry["ny"] in config["dimensions"]
        # each input interval (the RON's dt) must be a whole number of Euler steps
        if used and whole_substeps(entry["dt"], sim_dt) is None:
            lines.append(
                f"simulation.dt: {sim_dt} does not divide the RON step dt = {entry['dt']} of "
                f"reference.configs[{i}] ({entry['task']}, ny = {entry['ny']})"
            )
    split = config["pretraining_dataset"]["split"]
    if abs(sum(split) - 1.0) > 1e-9:
        lines.append(f"pretraining_dataset.split: fractions {split} must sum to 1")
    for task in ("smnist", "adiac"):
        entry = config["data"][task]
        if task in config["tasks"] and entry["source"] == "path" and not entry["path"]:
            lines.append(f"data.{task}.path: required when data.{task}.source is 'path'")
    for name in ("mackey_glass", "lorenz96"):
        entry = config["data"][name]
        if entry["washout"] + entry["lag"] >= entry["n_steps"]:
            lines.append(f"data.{name}: washout + lag must be below n_steps")
    return lines


def check_config(config: dict, schema_path: str | Path = SCHEMA) -> None:
    """Raise ConfigError listing every problem, or return silently."""
    lines = schema_errors(config, schema_path)
    if not lines:
        lines = semantic_errors(config, schema_path)
    if lines:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))


def merged_config(base: str | Path, overlays: list[str | Path] = (), check: bool = True) -> dict:
    """``base`` (a config.yaml) with ``overlays`` merged on it in order, as Snakemake's
    --configfile merges them, checked (ConfigError) unless ``check`` is False."""
    from snakemake.utils import update_config  # the merge Snakemake itself applies

    config = yaml.safe_load(Path(base).read_text())
    for overlay in overlays:
        update_config(config, yaml.safe_load(Path(overlay).read_text()))
    if check:
        check_config(config)
    return config


def ron_config(config: dict, task: str, ny: int) -> dict[str, Any]:
    for entry in config["reference"]["configs"]:
        if entry["task"] == task and entry["ny"] == int(ny):
            return entry
    raise ConfigError(f"reference.configs: no RON configuration for task {task!r}, ny = {ny}")


def robot_layout(config: dict, ny: int) -> tuple[int, int]:
    for entry in config["robot"]["layouts"]:
        if entry["ny"] == int(ny):
            return entry["n_robots"], entry["n_pcs"]
    raise ConfigError(f"robot.layouts: no layout for ny = {ny}")


def task_sequences(config: dict, task: str) -> int:
    """Train plus test sequences of a task at the config's scale (ADIAC's n_train/n_test null:
    the whole UCR split, 390 + 391; Mackey-Glass: one series each)."""
    data = config["data"][task]
    if task == "mackey_glass":
        return 2
    if task == "adiac":
        return (data["n_train"] or 390) + (data["n_test"] or 391)
    return data["n_train"] + data["n_test"]


def rollout_chunk_size(config: dict, task: str) -> int:
    """Sequences per compiled physical rollout call of a task: ``benchmark.chunk_size``, one
    number or one per task, never more than the task has."""
    chunk_size = config["benchmark"]["chunk_size"]
    chunk_size = chunk_size[task] if isinstance(chunk_size, dict) else chunk_size
    return min(int(chunk_size), task_sequences(config, task))


def rollout_chunks_per_job(config: dict, task: str) -> int | None:
    """Compiled chunks one physical rollout job of a task runs: ``benchmark.chunks_per_job``, one
    number or one per task (null, or a task the mapping leaves out: all of them, one job)."""
    per_job = config["benchmark"]["chunks_per_job"]
    return per_job.get(task) if isinstance(per_job, dict) else per_job


def rollout_parts(config: dict, task: str) -> int:
    """Jobs a physical rollout of the task is split into: rollout_chunks_per_job compiled chunks
    each (null: one job for all)."""
    per_job = rollout_chunks_per_job(config, task)
    if per_job is None:
        return 1
    chunks = -(-task_sequences(config, task) // rollout_chunk_size(config, task))
    return -(-chunks // per_job)


def pretrain_part_ends(config: dict) -> list[int]:
    """The epochs after which a training split into jobs saves its state for the next job (rule
    pretrain_part): every `pretrain.epochs_per_job` epochs before the last; none when that is null
    or not below `pretrain.epochs` (one job)."""
    epochs, per_job = config["pretrain"]["epochs"], config["pretrain"]["epochs_per_job"]
    return list(range(per_job, epochs, per_job)) if per_job else []


def input_dimension(config: dict, task: str) -> int:
    """n_u of a task's inputs: Lorenz96 takes `data.lorenz96.n_u` of its variables, the others 1."""
    return config["data"]["lorenz96"]["n_u"] if task == "lorenz96" else 1


def cross_task_combinations(config: dict) -> list[tuple[str, str, str]]:
    """(source, target, tuning) of every cross-task experiment among the run's tasks: source !=
    target, and tuning "none" only where the source's feedforward controller takes the target's
    input (same n_u); the others re-tune it (paper, supplementary on cross-task reuse)."""
    cross_task, tasks = config["supplementary"]["cross_task"], config["tasks"]
    sources = [task for task in cross_task["sources"] if task in tasks]
    targets = [task for task in cross_task["targets"] if task in tasks]
    return [
        (source, target, tuning)
        for source in sources
        for target in targets
        if source != target
        for tuning in TUNINGS
        if tuning != "none" or input_dimension(config, source) == input_dimension(config, target)
    ]
