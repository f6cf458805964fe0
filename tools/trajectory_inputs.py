"""How much Table 1's trajectory NRMSE depends on the input, the window and the normalisation
the paper leaves open: each start of a finished pretraining cell simulated against its RON under
several inputs, the NRMSE read four ways.

    python tools/trajectory_inputs.py paper mackey_glass 6 full --workdir /work/runs/paper

Inputs (each as long as the first test sequence cut to ``evaluation.max_steps``, from rest, as
the rule evaluate_pretraining simulates): ``test`` (the first test sequence, the workflow's
choice), ``train`` (the first training sequence), ``noise`` (uniform [0, 1), seed 0: the thesis
code's sMNIST comparison input), ``noise_pm1`` (uniform [-1, 1)), and ``test_thesis_grid``: the
first test sequence compared as the thesis code compares its "Rollout NRMSE" (the paper's
trajectory NRMSE, docs/results.md): over the first 100 s only, the robots' states saved every
0.01 s and the RON's linearly interpolated to the same times.

Readings: ``global`` (the workflow's: RMSE over all steps and coordinates / RMS of y),
``per_coordinate`` (that ratio per coordinate, then the mean), ``centred`` (RMSE / std of y) and
``from_20s`` (the global reading without the first 20 s of the RON's time, the thesis plots' cut).
Each row also gives its input's floor: the global reading of the RON's own continuous equation
y'' = f_ref(y, y', u), integrated as the robots are (explicit Euler at ``simulation.dt``, the
input linearly interpolated), against the discrete RON, which a physical reservoir matching f_ref
exactly would score (not computed on the thesis grid).

Prints markdown: mean ± sample std (as the tables) over the starts that did not diverge, and how
many did.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import diffrax
import jax

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from physres.checkpoint import cell_checkpoints, load_checkpoint, training_failed  # noqa: E402
from physres.config import merged_config  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.reservoirs import PhysicalEnsemble  # noqa: E402
from physres.ron import RON, f_ref, load_ron, ron_rollout  # noqa: E402
from physres.simulate import at_sample_times, diverged  # noqa: E402

CUT_SECONDS = 20.0
THESIS_SECONDS, THESIS_SAVE_DT = 100.0, 0.01  # the thesis code's comparison window and save step


def nrmse_readings(y_ref: np.ndarray, y_hat: np.ndarray, dt: float) -> dict[str, float]:
    """The four readings of NRMSE(y_hat, y) for one trajectory; y_ref, y_hat of shape (K, ny)."""
    error = y_hat - y_ref
    rmse = np.sqrt(np.mean(error**2))
    cut = int(round(CUT_SECONDS / dt))
    late_ref, late_error = y_ref[cut:], error[cut:]
    return {
        "global": rmse / np.sqrt(np.mean(y_ref**2)),
        "per_coordinate": float(np.mean(np.sqrt(np.mean(error**2, 0)) / np.sqrt(np.mean(y_ref**2, 0)))),
        "centred": rmse / np.std(y_ref),
        "from_20s": np.sqrt(np.mean(late_error**2)) / np.sqrt(np.mean(late_ref**2)) if cut < len(y_ref) else np.nan,
    }


def inputs(task_file: Path, max_steps: int | None = None, seed: int = 0) -> dict[str, np.ndarray]:
    """The driving inputs, each of shape (1, K, nu) with K the first test sequence's length, or
    ``max_steps`` where that is shorter (the rule's ``evaluation.max_steps``)."""
    task = read_task(task_file)
    test = np.asarray(task.test.u[:1, :max_steps], dtype=float)
    shape = test.shape
    rng = np.random.default_rng(seed)
    return {
        "test": test,
        "train": np.asarray(task.train.u[:1, : shape[1]], dtype=float),
        "noise": rng.uniform(0.0, 1.0, shape),
        "noise_pm1": rng.uniform(-1.0, 1.0, shape),
    }


def mean_std(values: list[float]) -> str:
    """Mean ± sample std (ddof = 1, as the tables), or "-" where no start gives a finite value."""
    values = [value for value in values if np.isfinite(value)]
    if not values:
        return "-"
    std = np.std(values, ddof=1) if len(values) > 1 else float("nan")
    return f"{np.mean(values):.4f} ± {std:.4f}"


def on_thesis_grid(u: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The first THESIS_SECONDS of u (1, K, nu), sampled dt apart, on a grid about THESIS_SAVE_DT
    apart that holds every sample time, so that its linear interpolation is u's own: the sample
    times kept (K',), the fine grid's input (1, J, nu) and its step."""
    step = dt / max(1, round(dt / THESIS_SAVE_DT))
    coarse = u[:, : int(np.floor(THESIS_SECONDS / dt + 1e-9)) + 1]
    t_coarse = dt * np.arange(coarse.shape[1])
    t_fine = step * np.arange(int(round(t_coarse[-1] / step)) + 1)
    fine = np.stack([np.interp(t_fine, t_coarse, coarse[0, :, i]) for i in range(u.shape[2])], axis=-1)
    return t_coarse, fine[None], step


def continuous_ron(ron: RON, u: np.ndarray, sim_dt: float) -> np.ndarray:
    """The RON's continuous equation y'' = f_ref(y, y', u(t)) from rest, u (K, nu) linearly
    interpolated between samples ron.dt apart, explicit Euler at sim_dt: y at the K sample times."""
    ts = ron.dt * jnp.arange(u.shape[0])
    u_path = diffrax.LinearInterpolation(ts=ts, ys=jnp.asarray(u, dtype=float))

    def field(t, state, args):
        y, ydot = state
        return ydot, f_ref(ron, y, ydot, u_path.evaluate(t))

    zeros = jnp.zeros(ron.ny)
    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(field),
        diffrax.Euler(),
        t0=0.0,
        t1=float(ts[-1]),
        dt0=sim_dt,
        y0=(zeros, zeros),
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.ConstantStepSize(),
        max_steps=None,
    )
    return np.asarray(solution.ys[0])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("task")
    parser.add_argument("ny", type=int)
    parser.add_argument("mode", choices=["full", "rob_fixed"])
    parser.add_argument("--workdir", type=Path, default=Path("."), help="the run's folder (results/, config.yaml)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[], help="the run's overlays on its config.yaml")
    args = parser.parse_args(argv)
    config = merged_config(args.workdir / "config.yaml", args.configfile)
    run = args.workdir / "results" / args.run
    try:
        paths = cell_checkpoints(run, args.task, args.ny, args.mode)
    except FileNotFoundError as missing:
        parser.error(str(missing))
    ron = load_ron(run / "reference" / args.task / f"ny{args.ny}" / "selected.h5")
    models, sidecars = zip(*map(load_checkpoint, paths))
    interpolation = config["simulation"]["input_interpolation"]
    bound = config["evaluation"]["divergence_bound"]

    @functools.cache  # one stacked ensemble per save step, shared by the inputs
    def ensemble(reference_dt: float) -> PhysicalEnsemble:
        seeds, failed = [s["seed"] for s in sidecars], [training_failed(s) for s in sidecars]
        return PhysicalEnsemble(
            seeds, list(models), reference_dt, config["simulation"]["dt"], bound, failed, interpolation=interpolation
        )

    print(f"{args.task} ny {args.ny} {args.mode}: {len(models)} starts, RON dt {ron.dt:g}\n")
    print("| input | steps | RMS of y | global | per coordinate | centred | from 20 s | floor | diverged |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
    driving = inputs(run / "data" / f"{args.task}.h5", config["evaluation"]["max_steps"])
    driving["test_thesis_grid"] = driving["test"]
    for name, u in driving.items():
        y_ref = np.asarray(at_sample_times(ron_rollout(ron, jnp.asarray(u), keep="all"), interpolation))[0]
        floor = "-"
        if name != "test_thesis_grid":
            y_ode = continuous_ron(ron, u[0], config["simulation"]["dt"])
            floor = f"{nrmse_readings(y_ref, y_ode, ron.dt)['global']:.4f}"
        save_dt = ron.dt
        if name == "test_thesis_grid":
            t_coarse, u, save_dt = on_thesis_grid(u, ron.dt)
            t_fine = save_dt * np.arange(u.shape[1])
            y_ref = np.stack([np.interp(t_fine, t_coarse, y_ref[: len(t_coarse), i]) for i in range(ron.ny)], -1)
        y_hats, peaks = ensemble(save_dt).all_states(u)
        kept = [np.asarray(y_hat)[0] for y_hat, peak in zip(y_hats, peaks) if not diverged(peak, bound)]
        readings = [nrmse_readings(y_ref, y_hat, save_dt) for y_hat in kept]
        cells = [mean_std([r[k] for r in readings]) for k in ("global", "per_coordinate", "centred", "from_20s")]
        rms = np.sqrt(np.mean(y_ref**2))
        print(f"| {name} | {u.shape[1]} | {rms:.3g} | {' | '.join(cells)} | {floor} | {len(y_hats) - len(kept)} |")


if __name__ == "__main__":
    main()
