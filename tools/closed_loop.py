"""Why a pretrained reservoir's trajectory drifts from its RON's: along the RON's trajectory on
one test sequence, each start's acceleration error there, the local decay rates of its closed
loop (physres.linearisation) against the RON's, and its damping df/dy' per coordinate.

    python tools/closed_loop.py paper adiac 12 full --results /work/runs/paper/results

Prints markdown on stdout: one row per start. "slowest rate" is the largest real part of the
closed loop's eigenvalues, the median over the states probed; "neutral" counts the eigenvalues
with |real part| < 0.05 there (directions with neither stiffness nor damping, where an
acceleration error integrates into a drift); "damping ratio" is the smallest over coordinates of
the model's df_i/dy'_i over the RON's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from physres.checkpoint import cell_checkpoints, load_checkpoint  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.linearisation import acceleration_jacobians, decay_rates, trajectory_states  # noqa: E402
from physres.ron import f_ref, load_ron, ron_step  # noqa: E402

NEUTRAL = 0.05


def probe(f, ys, ydots, us, every: int) -> dict:
    """Decay rates and damping diagonals of ``f`` at every ``every``-th state of a trajectory."""
    picks = range(0, len(us), every)
    rates = np.stack([np.asarray(decay_rates(f, ys[k], ydots[k], us[k])) for k in picks])
    damping = np.stack([np.diag(np.asarray(acceleration_jacobians(f, ys[k], ydots[k], us[k])[1])) for k in picks])
    return {
        "slowest": np.median(rates[:, 0]),
        "neutral": np.median((np.abs(rates) < NEUTRAL).sum(1)),
        "damping": damping,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("task")
    parser.add_argument("ny", type=int)
    parser.add_argument("mode", choices=["full", "rob_fixed"])
    parser.add_argument("--results", type=Path, default=Path("results"), help="the folder holding <run>/")
    parser.add_argument("--sequence", type=int, default=0, help="the test sequence driving the RON")
    parser.add_argument("--every", type=int, default=25, help="probe every this many states")
    args = parser.parse_args(argv)
    run = args.results / args.run
    try:
        models = cell_checkpoints(run, args.task, args.ny, args.mode)
    except FileNotFoundError as missing:
        parser.error(str(missing))
    ron = load_ron(run / "reference" / args.task / f"ny{args.ny}" / "selected.h5")
    u = jnp.asarray(read_task(run / "data" / f"{args.task}.h5").test.u[args.sequence], dtype=float)
    zeros = jnp.zeros(ron.ny)
    ys, ydots = trajectory_states(lambda y, ydot, u_k: ron_step(ron, y, ydot, u_k), zeros, zeros, u)
    reference = jax.vmap(lambda y, ydot, u_k: f_ref(ron, y, ydot, u_k))(ys, ydots, u)
    ron_probe = probe(lambda y, ydot, u_k: f_ref(ron, y, ydot, u_k), ys, ydots, u, args.every)
    scale = float(jnp.sqrt(jnp.mean(reference**2)))
    print(
        f"{args.task} ny {args.ny} {args.mode}, test sequence {args.sequence} ({len(u)} steps), RMS of the RON's y'' {scale:.3g}\n"
    )
    print("| reservoir | y'' RMSE on the trajectory | slowest rate | neutral | damping ratio (coordinate) |")
    print("|:--|--:|--:|--:|--:|")
    print(f"| RON | 0 | {ron_probe['slowest']:.3f} | {ron_probe['neutral']:.0f} | 1 |")
    for path in models:
        model, sidecar = load_checkpoint(path)
        f = model.mapped_acceleration
        error = float(jnp.sqrt(jnp.mean((jax.vmap(f)(ys, ydots, u) - reference) ** 2)))
        found = probe(f, ys, ydots, u, args.every)
        ratio = (found["damping"] / ron_probe["damping"]).mean(0)
        worst = int(np.argmin(ratio))
        print(
            f"| seed {sidecar['seed']} | {error:.3g} ({error / scale:.0%}) | {found['slowest']:.3f} "
            f"| {found['neutral']:.0f} | {ratio[worst]:.2f} ({worst}) |"
        )


if __name__ == "__main__":
    main()
