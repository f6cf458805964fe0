"""The speed CLI: benchmarks printed in one run (targets go in benchmarks, not in tests).
It lives outside the physres package, as diffrax keeps its benchmarks in a folder of their own
(not `benchmarks/`, where Snakemake writes each job's timings): it uses the package, the package
never uses it, and no workflow rule runs it.

    python speed/bench.py --ny 6 --n-robots 1 --n-pcs 2                    # pretraining
    python speed/bench.py --part rollout --ny 15 --n-robots 5 --n-pcs 1     # PRC rollouts
    python speed/bench.py --part step --ny 6 --substeps 60 --inputs 16 --sequences 64  # Euler step
    python speed/bench.py --part quadrature                                 # Gauss points of B(q)
    python speed/bench.py --part forms --gauss-points 3 --states 1024       # the kernel's two forms
    python speed/bench.py --part dag --configfile workflow/configs/reduced.yaml  # a scale's DAG
    python speed/bench.py --part dag --batch-cap 8000   # on a GPU: each task's rollout at its job's real batch
    python speed/bench.py --part divergence --task mackey_glass --configfile workflow/configs/reduced.yaml \
        --sequences 1                                         # why unoptimized runs diverge (after a run)
    python speed/bench.py --part divergence --task lorenz96 --layouts 6 --sequences 8 \
        --thesis-draw                                         # the thesis's own four robots

Every timing runs the fused kernel (robot.dynamics: physres) and soromox's own code path
(robot.dynamics: soromox) back to back in the same run and prints their ratio (--no-soromox: the
kernel alone, e.g. on a GPU, where soromox's path needs its optional warp-lang executor):
1. robot dynamics throughput (no Coriolis, as pretrained), forward and value_and_grad with
   respect to theta_rob, on the same batch of states;
2. pretraining throughput: samples x epochs per second per start, with all starts vmapped;
3. the projected wall time of one paper-scale run (1500 epochs, m = 1e5 split 70 %, 4 starts)
   beside the paper's 50-90 minutes on an RTX 3090, and what one step of it spends where (the
   map, the controllers and the robot dynamics, each differentiated alone);
4. (--part rollout) the cost of a physical rollout per PCS segment and Euler substep, the largest
   difference between the two implementations' states, and the projected time of one reservoir's
   sMNIST ny = 15 rollout (35000 sequences x 784 inputs x 100 substeps).
5. (--part step) what a coarser explicit-Euler step (--coarse-dt, e.g. quick.yaml's 0.5 ms) costs
   in accuracy and gains in speed against the paper's 0.1 ms, on the unoptimized reservoirs of
   the benchmark (robots drawn per seed as the pretraining starts draw them): per seed the
   largest |Q difference| over the run relative to the largest |Q|, and which runs diverge;
6. (--part dag [--configfile overlay ...]) the projected CPU time of the whole DAG of config.yaml
   (with the overlays merged in as Snakemake merges them) with the fused kernel, by rule: per
   robot layout the measured pretraining epoch at the config's batch size and controllers, and
   the rollout cost per segment-substep at each task's batch (seeds x sequences per call), times
   the work the config asks for.
7. (--part divergence --task T [--configfile overlay ...]) why the unoptimized reservoirs of a
   scale diverge: each seed's reservoir (drawn as the workflow draws it) on the first --sequences
   test sequences of results/<run>/data/T.h5 with no divergence bound (Euler step --dt, default
   the config's), the input step where its state turns non-finite, and its most bent robot: its
   bending stiffness E I L, the curvature at which the encoding's largest torque would hold it,
   the curvature it reached and the smallest eigenvalue of B(q) there; with --factors, then each
   seed again with one factor changed (gravity off or across the rod, the drive off or scaled by
   0.1, the shear stiffness by 4/3, the Coriolis terms on). With --thesis-draw (and the default
   benchmark.unoptimized, the thesis's ranges) the reservoirs are the ones the thesis code of
   the paper's first author draws for its own four seeds
   (physres.physical.init_thesis_unoptimized_reservoir); with --radii R ..., each seed's reservoir
   again with every segment's radius set to each R (m): where the drive coils a robot.
8. (--part chunks) whether a rollout job can be split into jobs without changing its activations:
   the same stacked seeds on the same sequences compiled in chunks of each smaller size, and
   each seed alone, against the whole batch (a compiled program's batch shape can change the
   rounding, which a chaotic reservoir amplifies).
9. (--part forms) the fused kernel's two forms, robot.dynamics "physres" (unrolled where it
   applies) and "physres_compact" (the array form): compile and run time of Q'' and its gradient.
"""

from __future__ import annotations

import argparse
import collections
import copy
import dataclasses
import functools
import re
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import yaml
from threadpoolctl import threadpool_limits

from physres import flops, pcs
from physres.batching import activations
from physres.compiled_cost import xla_cost
from physres.config import SCHEMA, rollout_chunk_size, ron_config, task_sequences
from physres.data import read_task
from physres.physical import (
    THESIS_SEEDS,
    init_physical_reservoir,
    init_thesis_unoptimized_reservoir,
    init_unoptimized_reservoir,
    stack_models,
    unstack_model,
)
from physres.pretrain import epoch_keys, init_state, make_optimizer, make_train_step, trainable
from physres.reservoirs import PhysicalEnsemble, load_ensemble
from physres.robot import PARAMETER_NAMES, pcs_template, robots_from_theta, sample_robots
from physres.simulate import INTERPOLATIONS, in_precision, n_substeps, physical_rollout, vector_field
from physres.specs import Schedule, architecture_spec, robot_environment


def implementations(args) -> tuple[str, ...]:
    """The robot dynamics timed side by side: the fused kernel, and soromox's own path unless
    --no-soromox."""
    return ("physres",) if args.no_soromox else ("physres", "soromox")


def best_time(fn, repeats: int) -> float:
    fn()  # compile and warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


@functools.cache  # measure the peak once per run, not once per part
def matmul_peak_gflops(dtype=np.float64, n: int = 1024) -> float:
    """This core's matrix-multiply rate, the practical peak of a float64 CPU core: numpy's BLAS on
    one thread, n x n times n x n (2 n^3 flops), fastest of 5."""
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=(n, n)).astype(dtype) for _ in range(2))
    with threadpool_limits(1):
        seconds = best_time(lambda: a @ b, 5)
    return 2 * n**3 / seconds / 1e9


CORE_PEAK = "this core's matmul peak ({peak:.1f} GFLOP/s, numpy, one thread)"


@functools.cache
def accelerator_matmul_peak_gflops(dtype=np.float64, n: int = 8192) -> float:
    """The accelerator's matrix-multiply rate: JAX's n x n times n x n product on the default
    device (2 n^3 flops), fastest of 5."""
    a, b = (jnp.asarray(np.random.default_rng(i).normal(size=(n, n)).astype(dtype)) for i in range(2))
    product = jax.jit(jnp.matmul)
    seconds = best_time(lambda: product(a, b).block_until_ready(), 5)
    return 2 * n**3 / seconds / 1e9


def device_peak(dtype=np.float64) -> tuple[float, str]:
    """(GFLOP/s, label) of the practical peak where JAX computes: one CPU core's BLAS, since a
    job runs on one core, or the accelerator's own product when JAX runs on one."""
    if jax.default_backend() == "cpu":
        return matmul_peak_gflops(dtype), CORE_PEAK
    kind = jax.devices()[0].device_kind
    return accelerator_matmul_peak_gflops(dtype), f"this {kind}'s matmul peak ({{peak:.1f}} GFLOP/s, jax, 8192^3)"


def compiled_flops(fn, *args) -> float:
    """XLA's count of the floating-point operations of fn(*args) as compiled (transcendentals such
    as sin, cos and tanh are counted apart and left out)."""
    return float(xla_cost(fn, *args)["flops"])


def entry_fusions(compiled) -> collections.Counter:
    """The fusions of a compiled program's entry computation by XLA's kind ("Loop", "Custom": a
    library call such as YNNPACK's reduction, ...). On a CPU each is one call of its own, so at a
    small batch their number, not their arithmetic, sets the run time."""
    text = compiled.as_text()
    entry = text[text.index("\nENTRY") :]
    entry = entry[: entry.index("\n}")]
    return collections.Counter(re.findall(r"\bfusion\(.*?\), kind=k(\w+)", entry))


def fraction_of_peak(what: str, flops: float, seconds: float, peak: float, label: str = CORE_PEAK) -> str:
    """One printed line: achieved GFLOP/s against the device's matmul peak (label names it)."""
    achieved = flops / seconds / 1e9
    return (
        f"  {what}: {flops:.3g} flops (XLA's count) in {1e3 * seconds:.3g} ms = {achieved:.2f} GFLOP/s, "
        f"{100 * achieved / peak:.1f} % of {label.format(peak=peak)}"
    )


def paper_config() -> dict:
    return yaml.safe_load((SCHEMA.parents[2] / "config.yaml").read_text())


def init_ranges() -> dict:
    return paper_config()["robot"]["init_ranges"]


def unoptimized_reservoir(args, seed: int = 0, dynamics: str = "physres"):
    """The benchmarks' reservoir: config.yaml's unoptimized one of --ny (nu = 1), --n-robots x
    --n-pcs segments and --gauss-points, drawn from PRNGKey(seed)."""
    config = paper_config()
    environment = robot_environment(config) | {"gauss_points": args.gauss_points, "dynamics": dynamics}
    return init_unoptimized_reservoir(
        jax.random.PRNGKey(seed),
        args.ny,
        1,
        args.n_robots,
        args.n_pcs,
        config["robot"]["init_ranges"],
        **environment,
        **config["benchmark"]["unoptimized"],
    )


def physical_reservoir(args, seed: int = 0):
    """An untrained PhysicalReservoir of --ny (nu = 1) in config.yaml's robot environment, drawn
    from PRNGKey(seed): random map and MLP controllers, a pretrained reservoir's cost and a
    chaotic system."""
    environment = robot_environment(paper_config()) | {"gauss_points": args.gauss_points}
    return init_physical_reservoir(
        jax.random.PRNGKey(seed),
        args.ny,
        1,
        args.n_robots,
        args.n_pcs,
        init_ranges(),
        map_bases=args.map_bases,
        **environment,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ny", type=int, default=6)
    parser.add_argument("--n-robots", type=int, default=1)
    parser.add_argument("--n-pcs", type=int, default=2)
    parser.add_argument("--states", type=int, default=4096, help="batch for the forward-dynamics comparison")
    parser.add_argument("--samples", type=int, default=7000, help="training samples for the pretraining timing")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--starts", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--controller", default="full", choices=["full", "simplified"])
    parser.add_argument(
        "--map-bases",
        default=paper_config()["pretrain"]["map_bases"],
        choices=["free", "orthogonal"],
        help="the map's U and V (config.yaml's pretrain.map_bases; orthogonal before 2026-11-27 22:10)",
    )
    parser.add_argument("--float32", action="store_true")
    parser.add_argument(
        "--gauss-points",
        type=int,
        default=None,
        help="Gauss points per segment for B(q) (default: config.yaml's robot.gauss_points)",
    )
    parser.add_argument(
        "--part",
        default="pretrain",
        choices=["pretrain", "rollout", "step", "quadrature", "forms", "dag", "divergence", "chunks", "all"],
    )
    parser.add_argument(
        "--sequences",
        type=int,
        default=256,
        help="batch of sequences for the rollout timing; test sequences for --part divergence",
    )
    parser.add_argument("--inputs", type=int, default=20, help="input steps per sequence for the rollout timing")
    parser.add_argument("--substeps", type=int, default=100, help="Euler substeps per input step (RON dt / 0.1 ms)")
    parser.add_argument(
        "--coarse-dt", type=float, default=5e-4, help="the Euler step compared with 0.1 ms (--part step)"
    )
    parser.add_argument("--seeds", type=int, default=4, help="unoptimized reservoirs compared (--part step)")
    parser.add_argument(
        "--configfile",
        nargs="*",
        default=[],
        help="overlays merged into config.yaml for --part dag and divergence, e.g. workflow/configs/reduced.yaml",
    )
    parser.add_argument(
        "--layouts",
        type=int,
        nargs="*",
        default=None,
        help="ny of the layouts measured by --part dag and divergence (default: all of the config's dimensions)",
    )
    parser.add_argument(
        "--no-soromox",
        action="store_true",
        help="time only the fused kernel (on a GPU soromox's own path needs its optional warp-lang executor)",
    )
    parser.add_argument(
        "--batch-cap",
        type=int,
        default=256,
        help="--part dag: the largest rollout batch timed (a CPU core gains nothing past 256; a GPU does)",
    )
    parser.add_argument("--task", default="mackey_glass", help="the task of --part divergence")
    parser.add_argument(
        "--dt", type=float, default=None, help="Euler step of --part divergence (default: the config's)"
    )
    parser.add_argument(
        "--factors",
        action="store_true",
        help="--part divergence: then each seed again with one factor changed (8 more rollouts per ny)",
    )
    parser.add_argument(
        "--thesis-draw",
        action="store_true",
        help="--part divergence: the reservoirs the thesis code draws for its seeds 123, 1234, 12345, 123456 "
        "(needs the default benchmark.unoptimized, the thesis's ranges shared)",
    )
    parser.add_argument(
        "--radii",
        type=float,
        nargs="*",
        default=None,
        help="--part divergence: then each seed's reservoir with every segment's radius set to each of these (m)",
    )
    args = parser.parse_args(argv)
    args.gauss_points_given = args.gauss_points
    if args.gauss_points is None:
        args.gauss_points = paper_config()["robot"]["gauss_points"]
    jax.config.update("jax_enable_x64", not args.float32)
    print(
        f"device: {jax.devices()[0].device_kind} ({jax.default_backend()}), x64={not args.float32}, "
        f"{args.gauss_points} Gauss points per segment"
    )
    if args.part in ("pretrain", "all"):
        pretraining_benchmark(args)
    if args.part in ("rollout", "all"):
        rollout_benchmark(args)
    if args.part in ("step", "all"):
        euler_step_benchmark(args)
    if args.part in ("quadrature", "all"):
        quadrature_benchmark(args)
    if args.part in ("forms", "all"):
        kernel_forms_benchmark(args)
    if args.part in ("dag", "all"):
        paper_dag_projection(args)
    if args.part in ("chunks", "all"):
        chunk_invariance(args)
    if args.part == "divergence":  # needs a workflow run's task data, so not part of "all"
        divergence_diagnosis(args)


def pretraining_benchmark(args) -> None:
    """Parts 1-3 for the fused kernel and for soromox's path, in the same run."""
    rng = np.random.default_rng(0)
    Q, Qd, T = (
        jnp.asarray(rng.normal(size=(args.starts, args.batch_size, args.ny)) * scale) for scale in (0.1, 1.0, 1e-4)
    )
    print(
        f"robot dynamics, {args.starts} x {args.batch_size} states of ny={args.ny} "
        f"({args.n_robots} x {args.n_pcs} segments), no Coriolis, states/s:"
    )
    rates = {}
    for dynamics in implementations(args):
        robots = stacked_models(args, dynamics).robots
        forward = eqx.filter_jit(eqx.filter_vmap(lambda r, q, qd, t: r.accelerations(q, qd, t)))
        value_and_grad = eqx.filter_jit(
            eqx.filter_vmap(eqx.filter_value_and_grad(lambda r, q, qd, t: jnp.sum(r.accelerations(q, qd, t) ** 2)))
        )
        n = args.starts * args.batch_size
        rates[dynamics] = (
            n / best_time(lambda: jax.block_until_ready(forward(robots, Q, Qd, T)), 5),
            n / best_time(lambda: jax.block_until_ready(value_and_grad(robots, Q, Qd, T)), 5),
        )
        print(
            f"  {dynamics:8s} forward {rates[dynamics][0]:12.0f}   value_and_grad (theta_rob) {rates[dynamics][1]:12.0f}"
        )
    if "soromox" in rates:
        print(
            f"  ratio physres / soromox: forward {rates['physres'][0] / rates['soromox'][0]:.2f}, "
            f"value_and_grad {rates['physres'][1] / rates['soromox'][1]:.2f}"
        )

    paper, epoch = {}, {}
    for dynamics in implementations(args):
        per_epoch, first, trained = pretraining_epoch_time(args, dynamics, rng)
        epoch[dynamics] = per_epoch, trained
        rate = trained / per_epoch  # samples x epochs per second, per start (all starts run together)
        paper[dynamics] = 1500 * 70000 / rate
        print(
            f"pretraining ({dynamics}), {args.starts} starts vmapped, {trained} samples/epoch, batch {args.batch_size}:"
        )
        print(f"  first epoch incl. compile:    {first:12.1f} s")
        print(f"  one epoch (fastest of {args.epochs}):      {per_epoch:12.2f} s")
        print(f"  samples x epochs / s / start: {rate:12.0f}")
        print(
            f"  projected paper-scale run (1500 epochs, 70000 samples, {args.starts} starts): "
            f"{paper[dynamics] / 60:.1f} min (paper: 50-90 min on an RTX 3090)"
        )
    if "soromox" in paper:
        print(f"  ratio physres / soromox (projected run): {paper['soromox'] / paper['physres']:.2f}")
    per_epoch, trained = epoch["physres"]
    step_seconds = per_epoch / (trained // args.batch_size)
    step_breakdown(args, step_seconds)
    # the step's arithmetic: value_and_grad of the loss over one batch of all starts (Adam and the
    # clipping add O(parameters), which is small beside it)
    models = stacked_models(args, "physres")
    y, ydot, yddot = (jnp.asarray(rng.normal(size=(args.starts, args.batch_size, args.ny))) for _ in range(3))
    u = jnp.asarray(rng.uniform(size=(args.starts, args.batch_size, 1)))
    loss = lambda m, y, yd, u, ydd: jnp.mean(jnp.sum((m.mapped_accelerations(y, yd, u) - ydd) ** 2, axis=-1))  # noqa: E731
    grad = eqx.filter_vmap(eqx.filter_value_and_grad(loss))
    peak, label = device_peak(np.float32 if args.float32 else np.float64)
    print(
        fraction_of_peak(
            "pretraining step (physres)", compiled_flops(grad, models, y, ydot, u, yddot), step_seconds, peak, label
        )
    )


def step_breakdown(args, step_seconds: float) -> None:
    """What one pretraining step (all starts, one batch) spends where, with the fused kernel:
    value_and_grad of each piece of y''_hat alone, with respect to its parameters and its inputs
    (as the loss's backward pass needs), on the training batch, against the whole step (which
    adds the loss, the shuffle, clipping and Adam)."""
    models = stacked_models(args, "physres")
    rng = np.random.default_rng(1)
    y, ydot = (jnp.asarray(rng.normal(size=(args.starts, args.batch_size, args.ny)) * s) for s in (0.2, 1.0))
    u = jnp.asarray(rng.uniform(size=(args.starts, args.batch_size, 1)))
    squared = lambda x: jnp.sum(x**2)  # noqa: E731
    pieces = {  # each of (model, y, y', u), all differentiated
        "map: A, A^-1": lambda m, y, yd, u: sum(squared(M) for M in m.map.matrices()),
        "controllers: T_ff(u) + T_fb(Q, Q')": lambda m, y, yd, u: squared(jax.vmap(m.actuation)(y, yd, u)),
        "robot dynamics: Q''(theta_rob, Q, Q', T)": lambda m, y, yd, u: squared(
            m.robots.accelerations(y, yd, jnp.broadcast_to(1e-4 * u, y.shape))
        ),
        "all of y''_hat": lambda m, y, yd, u: squared(m.mapped_accelerations(y, yd, u)),
    }
    print(
        f"one pretraining step (physres), {args.starts} starts x batch {args.batch_size}: {1e3 * step_seconds:.2f} ms"
    )
    for name, piece in pieces.items():
        grad = eqx.filter_jit(eqx.filter_vmap(eqx.filter_value_and_grad(lambda inputs, piece=piece: piece(*inputs))))
        seconds = best_time(lambda: jax.block_until_ready(grad((models, y, ydot, u))), 10)
        print(
            f"  value_and_grad of {name:42s} {1e3 * seconds:8.2f} ms  ({100 * seconds / step_seconds:3.0f} % of the step)"
        )


def stacked_models(args, dynamics: str):
    """The benchmark's starts (seeds 0..starts-1), stacked."""

    return stack_models(
        [
            init_physical_reservoir(
                jax.random.PRNGKey(s),
                args.ny,
                1,
                args.n_robots,
                args.n_pcs,
                init_ranges(),
                controller=args.controller,
                gauss_points=args.gauss_points,
                dynamics=dynamics,
                map_bases=args.map_bases,
            )
            for s in range(args.starts)
        ]
    )


def pretraining_epoch_time(args, dynamics: str, rng) -> tuple[float, float, int]:
    """(fastest epoch of args.epochs in s, first epoch with compilation in s, samples per epoch)
    of the multi-start pretraining on random data."""

    m, ny = args.samples, args.ny
    split = lambda size: {
        "y": rng.normal(size=(size, ny)) * 0.2,
        "ydot": rng.normal(size=(size, ny)),  # noqa: E731
        "u": rng.uniform(size=(size, 1)),
        "yddot": rng.normal(size=(size, ny)),
    }
    train, val = (jax.tree_util.tree_map(jnp.asarray, split(size)) for size in (m, max(1, m // 7)))
    models = stacked_models(args, dynamics)
    schedule = Schedule(1 + args.epochs, 1, 1e-3, 1e-6, args.batch_size, 1.0, "final")
    spec = trainable(models)
    optimizer = make_optimizer(schedule, m // args.batch_size)
    state = init_state(models, optimizer, spec, schedule.epochs)
    step = make_train_step(optimizer, spec, schedule, m)
    freeze = jnp.asarray(False)

    def epoch(state, e):
        state = step(state, epoch_keys(jax.random.PRNGKey(0), e, args.starts), train, val, freeze)
        jax.block_until_ready(state.kept_val)
        return state

    start = time.perf_counter()
    state = epoch(state, 0)
    first = time.perf_counter() - start
    times = []
    for e in range(1, 1 + args.epochs):
        start = time.perf_counter()
        state = epoch(state, e)
        times.append(time.perf_counter() - start)
    # the least disturbed epoch, as best_time takes the least disturbed call
    return min(times), first, (m // args.batch_size) * args.batch_size


def interpolation_cost(args) -> None:
    """The input between samples (simulation.input_interpolation) on a pretrained-like reservoir,
    whose T_ff is a 2 x 64 tanh MLP: computed once per input when held, at every substep when
    interpolated linearly. Prints both costs and their ratio."""
    cost = {i: segment_substep_cost(args, controlled=True, interpolation=i) for i in INTERPOLATIONS}
    print(
        f"  pretrained-like reservoir (MLP controllers), input held {1e6 * cost['held']:.3f}, interpolated "
        f"linearly {1e6 * cost['linear']:.3f} us per segment-substep: linear costs {cost['linear'] / cost['held']:.2f}x"
    )


def rollout_benchmark(args) -> None:
    """The same rollout (--sequences x --inputs x --substeps of 0.1 ms) through the fused kernel
    and through soromox: cost per PCS segment and Euler substep, and the largest difference. The
    reservoir is the benchmark's unoptimized one of seed 0 (an untrained PhysicalReservoir's
    random feedback MLP makes a chaotic system, where rounding differences grow to O(1))."""

    u = jnp.asarray(np.random.default_rng(0).uniform(size=(args.sequences, args.inputs, 1)))
    sim_dt = 1e-4
    reference_dt = args.substeps * sim_dt
    segment_substeps = args.sequences * args.inputs * args.substeps * args.n_robots * args.n_pcs
    print(
        f"rollout, ny={args.ny} ({args.n_robots} x {args.n_pcs} segments), {args.sequences} sequences x "
        f"{args.inputs} inputs x {args.substeps} substeps:"
    )
    cost, states = {}, {}
    for dynamics in implementations(args):
        model = unoptimized_reservoir(args, dynamics=dynamics)
        run = lambda: physical_rollout(model, u, reference_dt, sim_dt, keep="final")[0].block_until_ready()  # noqa: E731
        cost[dynamics] = best_time(run, 3) / segment_substeps
        states[dynamics] = run()
        print(f"  {dynamics:8s} {1e6 * cost[dynamics]:8.3f} us per segment-substep")
    if "soromox" in cost:
        difference = float(
            jnp.max(jnp.abs(states["physres"] - states["soromox"])) / jnp.max(jnp.abs(states["soromox"]))
        )
        print(
            f"  ratio physres / soromox: {cost['soromox'] / cost['physres']:.2f}   "
            f"(max |Q difference| / max |Q|: {difference:.1e})"
        )
    # the option simulation.precision: float32 (same reservoir, same inputs, same kernel)
    model = in_precision(unoptimized_reservoir(args), "float32")
    u32 = u.astype(jnp.float32)
    run = lambda: physical_rollout(model, u32, reference_dt, sim_dt, keep="final")[0].block_until_ready()  # noqa: E731
    cost32 = best_time(run, 3) / segment_substeps
    states32 = run()
    error = float(jnp.max(jnp.abs(states32 - states["physres"])) / jnp.max(jnp.abs(states["physres"])))
    against_soromox = f"{cost['soromox'] / cost32:.2f}x soromox " if "soromox" in cost else ""
    print(
        f"  physres float32 {1e6 * cost32:8.3f} us per segment-substep: {cost['physres'] / cost32:.2f}x float64, "
        f"{against_soromox}(max |Q float32 - Q float64| / max |Q|: {error:.1e})"
    )
    interpolation_cost(args)
    # one Euler substep's arithmetic (controllers and robot dynamics over the batch) against its time
    model = unoptimized_reservoir(args)
    Q = jnp.zeros((args.sequences, args.ny))
    T_ff = jax.vmap(model.feedforward_torque)(u[:, 0])
    substep = lambda m, Q, Qd, T_ff: vector_field(0.0, (Q, Qd), (m, m.robots.build(), T_ff))  # noqa: E731
    flops = compiled_flops(substep, model, Q, Q, T_ff)
    substep_seconds = cost["physres"] * args.sequences * args.n_robots * args.n_pcs
    print(fraction_of_peak("rollout substep (physres)", flops, substep_seconds, *device_peak()))
    smnist = 35000 * 784 * 100 * 15 / 3  # sMNIST ny = 15: 5 robots of 1 segment
    print(
        f"  projected sMNIST ny=15 rollout of one reservoir (35000 x 784 x 100 substeps, 5 segments) at this "
        f"cost: {smnist * cost['physres'] / 60:.1f} min"
    )


def euler_step_benchmark(args) -> None:

    bound = paper_config()["evaluation"]["divergence_bound"]
    fine_dt = 1e-4
    reference_dt = args.substeps * fine_dt
    u = jnp.asarray(np.random.default_rng(0).uniform(size=(args.sequences, args.inputs, 1)))
    print(
        f"Euler step {args.coarse_dt:g} s against {fine_dt:g} s, unoptimized ny={args.ny} ({args.n_robots} x "
        f"{args.n_pcs} segments), {args.sequences} sequences x {args.inputs} inputs of {reference_dt:g} s:"
    )
    for seed in range(args.seeds):
        model = unoptimized_reservoir(args, seed=seed)

        def timed_states(dt):
            """The states (first call, compiles) and the time of a second call."""
            run = lambda: physical_rollout(model, u, reference_dt, dt, keep="all", divergence_bound=bound)[0]  # noqa: E731
            states = np.asarray(run())
            start = time.perf_counter()
            run().block_until_ready()
            return time.perf_counter() - start, states

        (t_fine, fine), (t_coarse, coarse) = timed_states(fine_dt), timed_states(args.coarse_dt)
        bounded = np.isfinite(fine).all(axis=(1, 2)) & np.isfinite(coarse).all(axis=(1, 2))
        if bounded.any():
            difference = np.max(np.abs(coarse[bounded] - fine[bounded])) / np.max(np.abs(fine[bounded]))
            text = f"max |Q difference| / max |Q| {difference:.1e}"
        else:
            text = "no sequence bounded at both steps"
        print(
            f"  seed {seed}: {text}; diverged sequences {int((~np.isfinite(fine).all(axis=(1, 2))).sum())} at "
            f"{fine_dt:g} s, {int((~np.isfinite(coarse).all(axis=(1, 2))).sum())} at {args.coarse_dt:g} s; "
            f"speed-up {t_fine / t_coarse:.1f}x"
        )


def quadrature_benchmark(args) -> None:

    reference_points, rng = 12, np.random.default_rng(0)
    length = float(pcs_template(args.n_pcs).L[0])  # the template robot: L = 0.1 m, r = 0.02 m per segment

    def batched_inertia(robot):
        return jax.jit(jax.vmap(lambda q: robot.dynamics_terms(q, jnp.zeros_like(q))[0]))

    inertia = {n: batched_inertia(pcs_template(args.n_pcs, n)) for n in (2, 3, 4, 5, reference_points)}

    print(
        f"inertia B(q) of a {args.n_pcs}-segment robot (L = {length} m per segment), {args.states} random "
        f"strains, axial and shear |strain| <= 0.3: max |B_n - B_{reference_points}| / max |B_{reference_points}| "
        f"per state, largest over states"
    )
    for bend in (0.1, 0.5, 1.0, 2.0, np.pi):
        scale = np.tile([bend / length, 0.3, 0.3], args.n_pcs)
        q = jnp.asarray(rng.uniform(-1.0, 1.0, size=(args.states, 3 * args.n_pcs)) * scale)
        reference = inertia[reference_points](q)
        norm = jnp.max(jnp.abs(reference), axis=(1, 2), keepdims=True)
        errors = [float(jnp.max(jnp.abs(inertia[n](q) - reference) / norm)) for n in (2, 3, 4, 5)]
        print(
            f"  |kappa L| <= {bend:4.2f} rad: " + "  ".join(f"{n} points {e:.1e}" for n, e in zip((2, 3, 4, 5), errors))
        )


def kernel_forms_benchmark(args) -> None:
    """The fused kernel's two forms (robot.dynamics "physres", unrolled where it applies, and
    "physres_compact", the array form): compile time and run time of Q'' and of its gradient with
    respect to (theta_rob, Q, Q'), what a pretraining step differentiates, and how many fusions
    (calls) XLA compiled each into."""
    rng = np.random.default_rng(0)
    theta = sample_robots(jax.random.PRNGKey(0), args.n_robots, args.n_pcs, init_ranges()).theta()
    Q, Qd, T, weights = (jnp.asarray(rng.normal(size=(args.states, args.ny)) * s) for s in (0.1, 1.0, 1e-4, 1.0))
    gravity = tuple(paper_config()["robot"]["gravity"])
    print(
        f"kernel forms, {args.states} states of ny={args.ny} ({args.n_robots} x {args.n_pcs} segments), "
        f"gravity {gravity}, no Coriolis: compile (s) and run (us per state)"
    )
    measured = {}
    for form, unrolled in (("physres", True), ("physres_compact", False)):
        forward = functools.partial(
            pcs.accelerations, T=T, gravity=gravity, gauss_points=args.gauss_points, unrolled=unrolled
        )
        gradient = jax.grad(lambda *a: jnp.sum(weights * forward(*a)), argnums=(0, 1, 2))
        for what, fn in (("forward", forward), ("gradient", gradient)):
            start = time.perf_counter()
            compiled = jax.jit(fn).lower(theta, Q, Qd).compile()
            compile_s = time.perf_counter() - start
            run_s = best_time(lambda: jax.block_until_ready(compiled(theta, Q, Qd)), 5)
            measured[form, what] = compile_s, run_s
            fusions = entry_fusions(compiled)
            kinds = ", ".join(f"{count} {kind.lower()}" for kind, count in sorted(fusions.items()))
            print(
                f"  {form:16s} {what:8s} compile {compile_s:7.2f} s   run {run_s / args.states * 1e6:9.3f} us"
                f"   {sum(fusions.values())} fusions ({kinds})"
            )
    for what in ("forward", "gradient"):
        (c_u, r_u), (c_c, r_c) = measured["physres", what], measured["physres_compact", what]
        print(f"  compact / unrolled, {what}: compile {c_c / c_u:.2f}x, run {r_c / r_u:.2f}x")


def rollout_work(config: dict, task: str, ny: int) -> tuple[int, int]:
    """(sequences x input steps, Euler substeps per input step) of one reservoir's rollout of a
    task's train and test inputs at config's scale."""

    dt = next(c["dt"] for c in config["reference"]["configs"] if c["task"] == task and c["ny"] == ny)
    return task_sequences(config, task) * flops.task_size(config, task).K, n_substeps(dt, config["simulation"]["dt"])


def dag_config(overlays: list[str]) -> dict:
    """config.yaml with the overlays merged in key by key, as Snakemake's --configfile does."""

    config = copy.deepcopy(paper_config())
    if overlays:  # imported only here: the other parts run where snakemake is not installed (a GPU box)
        from snakemake.utils import update_config

        for overlay in overlays:
            update_config(config, yaml.safe_load(Path(overlay).read_text()))
    return config


def paper_dag_projection(args) -> None:
    """Part 6: measured costs per layout times the work of config.yaml (and --configfile
    overlays), as CPU hours by rule. Each task's rollout cost is measured at the batch its rollout
    job advances together (seeds x sequences): small batches (Mackey-Glass: one series per seed)
    pay the per-substep overhead that a batch of 256 spreads."""
    config = dag_config(args.configfile)
    gauss_points = args.gauss_points_given or config["robot"]["gauss_points"]
    rng = np.random.default_rng(0)
    measured = {}
    name = " + ".join(["config.yaml", *args.configfile])
    print(
        f"DAG of {name} (run {config.get('run', 'paper')}), fused kernel, {gauss_points} Gauss points; measured per layout:"
    )
    for layout in config["robot"]["layouts"]:
        ny, n_robots, n_pcs = layout["ny"], layout["n_robots"], layout["n_pcs"]
        if ny not in config["dimensions"] or (args.layouts is not None and ny not in args.layouts):
            continue
        sizes = argparse.Namespace(
            **{
                **vars(args),
                "ny": ny,
                "n_robots": n_robots,
                "n_pcs": n_pcs,
                "gauss_points": gauss_points,
                "starts": len(config["pretrain"]["seeds"]),
                "batch_size": config["pretrain"]["batch_size"],
                "samples": max(args.samples, 2 * config["pretrain"]["batch_size"]),
                "controller": config["pretrain"]["controller"],
            }
        )
        per_epoch, _, trained = pretraining_epoch_time(sizes, "physres", rng)
        by_batch = {}
        interpolation = config["simulation"]["input_interpolation"]
        for task in config["tasks"]:
            batch = rollout_batch(config, task, args.batch_cap)
            if batch not in by_batch:
                at_batch = argparse.Namespace(**{**vars(sizes), "sequences": batch})
                by_batch[batch] = (
                    segment_substep_cost(at_batch),
                    segment_substep_cost(at_batch, controlled=True, interpolation=interpolation),
                )
        costs = {task: by_batch[rollout_batch(config, task, args.batch_cap)] for task in config["tasks"]}
        measured[ny] = (per_epoch / trained, costs)
        rollout_costs = ", ".join(
            f"{1e6 * u:.3f} / {1e6 * c:.3f} at batch {b}" for b, (u, c) in sorted(by_batch.items())
        )
        print(
            f"  ny={ny:2d} ({n_robots} x {n_pcs}): pretraining job {dag_pretraining_minutes(config, measured[ny][0]):6.1f} "
            f"min, rollout us per segment-substep (unoptimized / MLP-controlled) {rollout_costs}"
        )
    minutes = dag_minutes(config, measured)
    total = sum(minutes.values())
    unit = "CPU" if jax.default_backend() == "cpu" else jax.default_backend().upper()
    for rule, value in minutes.items():
        print(f"  {rule:22s} {value / 60:8.1f} {unit} hours")
    wall = (
        f"~{total / 60 / 2:.1f} h wall with 2 one-core jobs side by side"
        if unit == "CPU"
        else "jobs one after another on the one device"
    )
    print(
        f"  total                  {total / 60:8.1f} {unit} hours; {wall} (the RON stages and the supplementary "
        f"experiments not included)"
    )


def dag_pretraining_minutes(config: dict, seconds_per_sample_epoch: float) -> float:
    """One pretraining job (all starts together) at config's m, split and epochs."""
    train_samples = int(config["pretraining_dataset"]["m"] * config["pretraining_dataset"]["split"][0])
    return seconds_per_sample_epoch * train_samples * config["pretrain"]["epochs"] / 60


def dag_minutes(config: dict, measured: dict[int, tuple[float, dict]]) -> dict[str, float]:
    """CPU minutes by rule of config's DAG for the layouts in ``measured``: {ny: (seconds per
    training sample and epoch of a pretraining job, {task: (seconds per segment-substep of its
    unoptimized rollout, of its MLP-controlled one)})}. The partial and pretrained reservoirs, and
    the pretraining evaluation, run MLP controllers."""
    seeds, modes = len(config["pretrain"]["seeds"]), len(config["pretrain"]["modes"])
    minutes = {"pretrain": 0.0, "rollout": 0.0, "evaluate_pretraining": 0.0}
    for layout in config["robot"]["layouts"]:
        if layout["ny"] not in measured:
            continue
        per_sample_epoch, costs = measured[layout["ny"]]
        for task in config["tasks"]:
            unoptimized_cost, controlled_cost = costs[task]
            minutes["pretrain"] += modes * dag_pretraining_minutes(config, per_sample_epoch)
            steps, substeps = rollout_work(config, task, layout["ny"])
            segment_substeps = steps * substeps * layout["n_robots"] * layout["n_pcs"]  # one reservoir, all sequences
            one = segment_substeps * controlled_cost / 60
            minutes["rollout"] += seeds * (segment_substeps * unoptimized_cost / 60 + 2 * one)  # + partial, pretrained
            # whole test sequences (max_steps: null), n_sequences of them per start and mode
            per_sequence = one / task_sequences(config, task)
            minutes["evaluate_pretraining"] += modes * seeds * config["evaluation"]["n_sequences"] * per_sequence
    return minutes


def rollout_batch(config: dict, task: str, cap: int = 256) -> int:
    """Sequences one rollout job advances together: its seeds times one compiled chunk
    (physres.config.rollout_chunk_size; Mackey-Glass: its train and test series), at most ``cap``
    (on a CPU core the cost per sequence no longer falls beyond 256)."""
    return min(cap, len(config["pretrain"]["seeds"]) * rollout_chunk_size(config, task))


def segment_substep_cost(args, controlled: bool = False, interpolation: str = "linear") -> float:
    """Seconds per PCS segment and Euler substep of a rollout with the fused kernel (--sequences x
    --inputs x --substeps): of an unoptimized reservoir, or (controlled) of a pretrained-like one,
    whose MLP controllers cost more, at every substep with the input interpolated linearly."""

    model = physical_reservoir(args) if controlled else unoptimized_reservoir(args)
    u = jnp.asarray(np.random.default_rng(0).uniform(size=(args.sequences, args.inputs, 1)))
    run = lambda: physical_rollout(  # noqa: E731
        model, u, args.substeps * 1e-4, 1e-4, keep="final", interpolation=interpolation
    )[0].block_until_ready()
    return best_time(run, 3) / (args.sequences * args.inputs * args.substeps * args.n_robots * args.n_pcs)


def chunk_invariance(args) -> None:
    """Part 8: whether a rollout job can be split without changing its activations. The same
    --seeds stacked reservoirs (untrained PhysicalReservoirs, whose random feedback makes them
    chaotic, and unoptimized ones) on the same --sequences x --inputs, compiled in chunks of every
    size from --sequences down to 1, and each seed alone: the largest difference from the whole
    batch of all seeds."""
    rng = np.random.default_rng(0)
    u = rng.uniform(size=(args.sequences, args.inputs, 1))
    kinds = {
        "chaotic (untrained map and controllers)": lambda seed: physical_reservoir(args, seed=seed),
        "unoptimized": lambda seed: unoptimized_reservoir(args, seed=seed),
    }
    reference_dt, sim_dt = args.substeps * 1e-4, 1e-4
    print(f"chunked rollouts, ny={args.ny}, {args.seeds} seeds x {args.sequences} sequences x {args.inputs} inputs:")
    for kind, init in kinds.items():
        members = [init(seed) for seed in range(args.seeds)]
        ensemble = PhysicalEnsemble(list(range(args.seeds)), members, reference_dt, sim_dt, 1e3)
        whole, _ = activations(ensemble, u, "forecasting", 0, args.sequences, "whole")
        differences = []
        for chunk in range(args.sequences - 1, 0, -1):
            split, _ = activations(ensemble, u, "forecasting", 0, chunk, f"chunk {chunk}")
            differences.append(f"{chunk}: {np.nanmax(np.abs(split - whole)):.1e}")
        alone = [
            activations(
                PhysicalEnsemble([s], [m], reference_dt, sim_dt, 1e3), u, "forecasting", 0, args.sequences, "alone"
            )[0]
            for s, m in enumerate(members)
        ]
        print(f"  {kind}: max |difference| from the whole batch, by chunk size: {', '.join(differences)}")
        print(f"  {kind}: each seed alone: {np.nanmax(np.abs(np.concatenate(alone) - whole)):.1e}")


def divergence_diagnosis(args) -> None:
    """Part 7: the unoptimized reservoirs of --task at the scale of config.yaml + --configfile,
    one per seed as the workflow's rollout draws them, simulated without a divergence bound."""
    config = dag_config(args.configfile)
    robot, dt = config["robot"], args.dt or config["simulation"]["dt"]
    path = Path("results") / config.get("run", "paper") / "data" / f"{args.task}.h5"
    u = read_task(path).test.u[: args.sequences]
    seeds = config["pretrain"]["seeds"]
    for ny in args.layouts or config["dimensions"]:
        architecture = architecture_spec(config, args.task, ny)  # as rule rollout_physical
        n_robots, n_pcs = architecture.n_robots, architecture.n_pcs
        reference_dt = ron_config(config, args.task, ny)["dt"]
        if args.thesis_draw:
            kwargs = architecture.unoptimized() | config["benchmark"]["unoptimized"]
            seeds = list(THESIS_SEEDS)
            models = [init_thesis_unoptimized_reservoir(seed, **kwargs) for seed in seeds]
            ensemble = PhysicalEnsemble(seeds, models, reference_dt, dt, float("inf"))
        else:
            ensemble = load_ensemble(
                "unoptimized",
                [],
                seeds,
                architecture=architecture.unoptimized(),
                unoptimized=config["benchmark"]["unoptimized"],
                reference_dt=reference_dt,
                sim_dt=dt,
                task=args.task,
            )
        Q, _ = ensemble.all_states(u)  # (seeds, sequences, K, ny): the unoptimized activations are Q
        draw = "the thesis code's draws" if args.thesis_draw else "drawn as the workflow draws them"
        print(
            f"{args.task} ny={ny} ({n_robots} x {n_pcs}), unoptimized ({draw}), {len(u)} test sequence(s) of "
            f"{u.shape[1]} inputs, Euler step {dt:g} s, no divergence bound:"
        )
        for i, seed in enumerate(seeds):
            finite = np.isfinite(Q[i]).all(axis=(0, 2))
            blown = np.flatnonzero(~finite)
            reservoir = unstack_model(ensemble.stacked, i)
            theta = reservoir.robots.theta()
            # the encoding's largest bending torque over the inputs' range:
            # torque_scale tanh(sum_j |V_ij| max |u_j| + |d_i|) over the bending rows i
            encoding = reservoir.encoding
            u_max = np.abs(u).max(axis=(0, 1))
            reach = np.abs(np.asarray(encoding.V)) @ u_max + np.abs(np.asarray(encoding.d))
            torque = encoding.torque_scale * np.tanh(reach[0::3]).max()
            # the most bent robot: its most bent state, and its curvature at equilibrium under that
            # torque, torque / (E I L)
            bends = [np.abs(Q[i][:, finite, 3 * n_pcs * r : 3 * n_pcs * (r + 1) : 3]).max() for r in range(n_robots)]
            r = int(np.argmax(bends))
            coordinates = Q[i][:, finite, 3 * n_pcs * r : 3 * n_pcs * (r + 1)].reshape(-1, n_pcs, 3)
            q = coordinates[np.argmax(np.abs(coordinates[..., 0]).max(axis=1))]
            B, _ = pcs.inertia_and_forces(
                theta[r], jnp.asarray(q)[..., None], jnp.zeros((n_pcs, 3, 1)), (0.0, 0.0), robot["gauss_points"], False
            )
            smallest = np.linalg.eigvalsh(np.asarray(B)[..., 0]).min()
            length, radius = (np.asarray(theta[r, :, k]) for k in (0, 1))
            bending = np.asarray(pcs.segment_constants(theta[r])[3])[:, 0, 0]  # K's E I L per segment
            status = f"non-finite from input {blown[0]}" if len(blown) else "bounded"
            print(
                f"  seed {seed}: {status:26s} most bent robot {r}: L {np.array2string(length, precision=3)} m, "
                f"r {np.array2string(radius, precision=4)} m, E I L [{', '.join(f'{x:.1e}' for x in bending)}] N m^2, "
                f"torque / E I L [{', '.join(f'{torque / x:.2g}' for x in bending)}] rad/m; reached |kappa| "
                f"{bends[r]:.3g} rad/m (|kappa L| {np.abs(q[:, 0] * length).max():.3g} rad), min eig B there {smallest:.1e}"
            )
        if args.factors:
            divergence_factors(ensemble, u, dt)
        if args.radii:
            divergence_by_radius(ensemble, u, dt, args.radii)


# one factor of the unoptimized reservoirs changed at a time (Coriolis on: the model's missing
# 1/2 q' B'(q) q' restored, see pcs.mechanical_energy)
def _robots_with(model, **changes):
    return eqx.tree_at(lambda m: m.robots, model, dataclasses.replace(model.robots, **changes))


def _theta_changed(model, name, change):
    """The reservoir with one parameter of theta_rob (PARAMETER_NAMES) replaced by change(it)."""
    i, robots = PARAMETER_NAMES.index(name), model.robots
    theta = robots.theta()
    theta = theta.at[..., i].set(change(theta[..., i]))
    rebuilt = robots_from_theta(
        theta, robots.minimum, robots.gravity, robots.coriolis, robots.gauss_points, robots.dynamics, robots.base_angle
    )
    return eqx.tree_at(lambda m: m.robots, model, rebuilt)


def _drive_scaled(model, factor):
    encoding = model.encoding
    return eqx.tree_at(
        lambda m: m.encoding, model, dataclasses.replace(encoding, torque_scale=factor * encoding.torque_scale)
    )


DIVERGENCE_FACTORS = {
    "as configured": lambda m: m,
    "gravity off": lambda m: _robots_with(m, gravity=(0.0, 0.0)),
    # the robot turned 90 degrees: gravity across its rest direction instead of along it
    "gravity across the rod": lambda m: _robots_with(m, base_angle=m.robots.base_angle - np.pi / 2),
    # an earlier soromox's PlanarPCS stiffness l diag(E I, 4/3 G A, E A): shear stiffer by 4/3
    "shear stiffness x 4/3": lambda m: _theta_changed(m, "shear_modulus", lambda G: 4.0 / 3.0 * G),
    "drive off (T = 0)": lambda m: _drive_scaled(m, 0.0),
    "drive x 0.1": lambda m: _drive_scaled(m, 0.1),
    "Coriolis terms on": lambda m: _robots_with(m, coriolis=True),
    "Coriolis on, drive off": lambda m: _drive_scaled(_robots_with(m, coriolis=True), 0.0),
}


def divergence_factors(ensemble, u, dt) -> None:
    """Each seed's reservoir with one factor changed: the input step at which it turns
    non-finite (no bound), or its largest |Q|."""
    models = [unstack_model(ensemble.stacked, i) for i in range(len(ensemble.seeds))]
    print("  what each factor does (per seed: first non-finite input, or the largest |Q| reached):")
    for name, change in DIVERGENCE_FACTORS.items():
        changed = PhysicalEnsemble(
            ensemble.seeds,
            [change(m) for m in models],
            ensemble.reference_dt,
            dt,
            float("inf"),
            interpolation=ensemble.interpolation,
        )
        Q = np.asarray(changed.all_states(u)[0])
        outcomes = []
        for i, seed in enumerate(ensemble.seeds):
            blown = np.flatnonzero(~np.isfinite(Q[i]).all(axis=(0, 2)))
            outcomes.append(
                f"{seed}: " + (f"non-finite at {blown[0]}" if len(blown) else f"max |Q| {np.abs(Q[i]).max():.3g}")
            )
        print(f"    {name:24s} " + "; ".join(outcomes))


def with_radius(model, radius: float):
    """The reservoir with every segment's radius set to ``radius`` (m), all else as drawn."""
    return _theta_changed(model, "radius", lambda r: jnp.full_like(r, radius))


def divergence_by_radius(ensemble, u, dt, radii) -> None:
    """Each seed's reservoir at each radius: its sequences that stay finite, the largest |Q|, and
    the curvature the encoding's mean bending drive would hold in its first segment, |tanh(|V| mean
    |u| + d)| / (E I L), the scale of how far the drive coils it."""
    models = [unstack_model(ensemble.stacked, i) for i in range(len(ensemble.seeds))]
    cases = [(seed, radius, with_radius(m, radius)) for seed, m in zip(ensemble.seeds, models) for radius in radii]
    changed = PhysicalEnsemble(
        list(range(len(cases))),
        [m for _, _, m in cases],
        ensemble.reference_dt,
        dt,
        float("inf"),
        interpolation=ensemble.interpolation,
    )
    Q = np.asarray(changed.all_states(u)[0])
    mean_u = np.abs(u).mean(axis=(0, 1))
    print("  each seed's reservoir with every segment's radius set to R:")
    for i, (seed, radius, model) in enumerate(cases):
        finite = np.isfinite(Q[i]).all(axis=(1, 2))
        drive = np.abs(np.tanh(np.abs(np.asarray(model.encoding.V)) @ mean_u + np.asarray(model.encoding.d)))[0]
        bending = float(np.asarray(pcs.segment_constants(model.robots.theta()[0])[3])[0, 0, 0])  # E I L of segment 0
        largest = f"{np.abs(Q[i][finite]).max():.3g}" if finite.any() else "-"
        print(
            f"    seed {seed}, R {1e3 * radius:4.0f} mm: E I L {bending:.1e} N m^2, mean bending drive / E I L "
            f"{drive * model.encoding.torque_scale / bending:8.1f} rad/m; {finite.sum()} of {len(finite)} "
            f"sequences finite, largest |Q| {largest}"
        )


if __name__ == "__main__":
    main()
