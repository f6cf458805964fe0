"""Digital inference cost of the RON and PRC pipelines (paper, supplementary G).

The paper's formulas, per input sequence of K steps (tanh and softmax count one FLOP per element;
the physical robots cost no digital FLOPs; the affine map is absorbed into the readout):

    RON reservoir:             K (2 ny^2 + 9 ny + 2 ny nu)
    PRC reservoir, full:       K (385 ny + 128 nu + 16640)     (2 x 64 tanh feedforward and feedback)
    PRC reservoir, simplified: K (96 ny + 2 ny nu + 17)        (1 x 16 feedback, linear feedforward)
    readout, classification:   2 ny nc + 3 nc
    readout, forecasting:      (K - lag) 2 ny nu

Closed forms only, free of JAX (every table job imports them); physres.compiled_cost counts what
XLA compiles for the actual controllers, as a check of these formulas.
"""

from __future__ import annotations

from dataclasses import dataclass

from physres.config import input_dimension

CONTROLLER_PIPELINES = ("full", "simplified")


@dataclass(frozen=True)
class TaskSize:
    """What the FLOP counts depend on: K input steps, nu inputs, nc classes or the lag."""

    kind: str  # classification | forecasting
    K: int
    nu: int
    n_classes: int = 0
    lag: int = 0


def task_size(config: dict, task: str) -> TaskSize:
    """The task's sizes at the config's scale (at paper scale: sMNIST 784 steps, 10 classes;
    ADIAC 176 steps, 37 classes; Mackey-Glass 2000 steps, lag 84; Lorenz96 2225 steps of 5
    inputs, lag 25)."""
    data = config["data"][task]
    if task == "smnist":
        return TaskSize("classification", 784 // data["pool"] ** 2, 1, n_classes=10)
    if task == "adiac":
        return TaskSize("classification", 176 // data["pool"], 1, n_classes=37)
    return TaskSize("forecasting", data["n_steps"], input_dimension(config, task), lag=data["lag"])


def ron_reservoir(ny: int, size: TaskSize) -> int:
    return size.K * (2 * ny**2 + 9 * ny + 2 * ny * size.nu)


def prc_reservoir(ny: int, size: TaskSize, controller: str) -> int:
    if controller == "full":
        return size.K * (385 * ny + 128 * size.nu + 16640)
    if controller == "simplified":
        return size.K * (96 * ny + 2 * ny * size.nu + 17)
    raise ValueError(f"unknown controller {controller!r}; allowed: {', '.join(CONTROLLER_PIPELINES)}")


def readout(ny: int, size: TaskSize) -> int:
    """The same for both pipelines once the affine map is absorbed into the readout."""
    if size.kind == "classification":
        return 2 * ny * size.n_classes + 3 * size.n_classes
    return (size.K - size.lag) * 2 * ny * size.nu


def pipeline_flops(ny: int, size: TaskSize) -> dict[str, dict[str, int]]:
    """{pipeline: {reservoir, readout, total}} for ron, prc_full and prc_simplified."""
    reservoirs = {
        "ron": ron_reservoir(ny, size),
        **{f"prc_{c}": prc_reservoir(ny, size, c) for c in CONTROLLER_PIPELINES},
    }
    return {
        name: {"reservoir": r, "readout": readout(ny, size), "total": r + readout(ny, size)}
        for name, r in reservoirs.items()
    }


def crossover_ny(nu: int, controller: str, largest: int = 10_000) -> int:
    """The smallest ny from which the PRC controllers cost fewer FLOPs per step than the RON's
    update (paper: ~220 for the full controllers, ~40 for the simplified ones, at nu = 1)."""
    one_step = TaskSize("forecasting", 1, nu)
    for ny in range(1, largest):
        if prc_reservoir(ny, one_step, controller) < ron_reservoir(ny, one_step):
            return ny
    raise ValueError(f"no crossover below ny = {largest}")
