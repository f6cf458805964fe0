"""The benchmark script runs every part on tiny sizes and prints what the README quotes (the
timings themselves are benchmarks, not tests)."""

import collections
import re

import pytest

from speed import bench

TINY = [
    "--states",
    "8",
    "--samples",
    "64",
    "--batch-size",
    "32",
    "--epochs",
    "1",
    "--starts",
    "2",
    "--sequences",
    "2",
    "--inputs",
    "2",
    "--substeps",
    "5",
    "--seeds",
    "1",
    "--gauss-points",
    "3",
]


@pytest.mark.parametrize(
    "part, expected",
    [
        (
            "pretrain",
            [
                "ratio physres / soromox: forward",
                "pretraining (soromox)",
                "projected paper-scale run",
                "ratio physres / soromox (projected run)",
                "value_and_grad of controllers",
                "value_and_grad of robot dynamics",
                "pretraining step (physres):",
                "% of this core's matmul peak",
            ],
        ),
        (
            "rollout",
            [
                "us per segment-substep",
                "ratio physres / soromox",
                "physres float32",
                "interpolated linearly",
                "rollout substep (physres):",
                "projected sMNIST ny=15 rollout",
            ],
        ),
        ("rollout --no-soromox", ["physres ", "physres float32", "rollout substep (physres):"]),
        ("step", ["seed 0:", "speed-up"]),
        ("quadrature", ["|kappa L| <= 3.14 rad: 2 points"]),
        ("forms", ["physres_compact  gradient compile", "compact / unrolled, gradient: compile", " fusions ("]),
        ("chunks", ["max |difference| from the whole batch, by chunk size: 1:", "unoptimized: each seed alone"]),
    ],
)
def test_every_part_runs_and_reports(capsys, part, expected):
    bench.main(["--part", *part.split(), "--ny", "3", "--n-robots", "1", "--n-pcs", "1", *TINY])
    out = capsys.readouterr().out
    assert "3 Gauss points per segment" in out
    for text in expected:
        assert text in out, (text, out)
    assert not re.search(r"\bnan\b", out)
    if "--no-soromox" in part:  # the kernel alone, as on a GPU without soromox's warp executor
        assert "soromox" not in out, out


def test_entry_fusions_counts_the_programs_calls():
    """Two reductions of one input over different axes cannot share a loop: at least two fusions,
    every one of a named kind; a program of one elementwise op compiles to one loop fusion."""
    import jax
    import jax.numpy as jnp

    x = jnp.ones((8, 16))
    two = bench.entry_fusions(jax.jit(lambda x: (jnp.sin(x).sum(0), jnp.cos(x).sum(1))).lower(x).compile())
    assert sum(two.values()) >= 2 and all(kind.isalpha() for kind in two), two
    one = bench.entry_fusions(jax.jit(lambda x: jnp.sin(x) * 2 + 1).lower(x).compile())
    assert one == collections.Counter({"Loop": 1}), one


def test_compiled_flops_counts_a_matrix_product():
    """XLA's count of an (8 x 16) @ (16 x 4) product is its closed form 2 m k n, and the fraction
    of peak divides achieved by peak GFLOP/s."""
    import jax.numpy as jnp

    a, b = jnp.ones((8, 16)), jnp.ones((16, 4))
    assert bench.compiled_flops(lambda a, b: a @ b, a, b) == 2 * 8 * 16 * 4
    assert "2.00 GFLOP/s, 50.0 % of this core's matmul peak (4.0 GFLOP/s" in bench.fraction_of_peak("x", 2e6, 1e-3, 4.0)
    assert bench.matmul_peak_gflops(n=64) > 0
    # on a CPU the peak is one core's BLAS, as a job runs on one core
    peak, label = bench.device_peak()
    assert peak > 0 and "this core's matmul peak" in label
    assert "of this H200's matmul peak (9.0 GFLOP/s" in bench.fraction_of_peak(
        "x", 2e6, 1e-3, 9.0, "this H200's matmul peak ({peak:.1f} GFLOP/s, jax, 8192^3)"
    )


def test_dag_projection_of_an_overlay(capsys, monkeypatch):
    """--part dag projects the DAG of config.yaml plus an overlay: the smoke scale's one layout,
    its batch size, and one rollout cost per batch (the timings themselves are exercised by the
    pretrain and rollout parts above; here they are fixed to keep the test fast)."""
    seen = {}
    monkeypatch.setattr(
        bench, "pretraining_epoch_time", lambda a, d, rng: seen.update(batch=a.batch_size) or (1.0, 2.0, 100)
    )
    monkeypatch.setattr(
        bench,
        "segment_substep_cost",
        lambda a, controlled=False, interpolation="linear": (
            seen.setdefault("sequences", []).append((a.sequences, controlled, interpolation))
            or (2e-6 if controlled else 1e-6)
        ),
    )
    smoke = str(bench.SCHEMA.parents[1] / "configs" / "smoke.yaml")
    bench.main(["--part", "dag", "--configfile", smoke, *TINY])
    out = capsys.readouterr().out
    assert "(run smoke)" in out and "ny= 6 (1 x 2)" in out and "ny=15" not in out
    assert seen["batch"] == 64 and (4, False, "linear") in seen["sequences"]  # Mackey-Glass: 2 seeds x 2 series
    assert (4, True, "linear") in seen["sequences"]  # and its MLP-controlled variants, as the config interpolates
    assert len(seen["sequences"]) == len(set(seen["sequences"]))  # one measurement per batch and kind
    assert re.search(r"\(unoptimized / MLP-controlled\) .*1\.000 / 2\.000 at batch 4", out)
    assert re.search(r"total +[0-9.]+ CPU hours", out)


def test_dag_projection_counts_the_papers_work():
    """sMNIST at ny = 6: 35000 images of 784 pixels, 60 substeps of 0.1 ms per RON step of 6 ms;
    Mackey-Glass ny = 15: one train and one test series of 2000 steps, 1500 substeps."""
    config = bench.paper_config()
    assert bench.rollout_work(config, "smnist", 6) == (35000 * 784, 60)
    assert bench.rollout_work(config, "mackey_glass", 15) == (2 * 2000, 1500)
    assert bench.rollout_work(config, "adiac", 9) == (781 * 176, 200)
    assert bench.rollout_work(config, "lorenz96", 12) == (256 * 2225, 1700)


def test_rollout_batch_follows_the_rollout_jobs():
    """Four seeds vmapped over the sequences of one compiled chunk: sMNIST capped at 256,
    Mackey-Glass its train and test series per seed, Lorenz96 at reduced scale 8 + 8 sequences."""
    config = bench.paper_config()
    assert bench.rollout_batch(config, "smnist") == 256
    assert bench.rollout_batch(config, "mackey_glass") == 8  # 4 seeds x (train + test series)
    assert bench.rollout_batch(config, "smnist", cap=10**6) == 4 * 2000  # a GPU's batch: 4 seeds x one chunk
    reduced = bench.dag_config([str(bench.SCHEMA.parents[1] / "configs" / "reduced.yaml")])
    assert reduced["run"] == "reduced" and reduced["pretrain"]["epochs"] == 400
    assert reduced["robot"] == config["robot"]  # merged key by key, the rest kept
    assert bench.rollout_batch(reduced, "lorenz96") == 4 * 16


def test_dag_minutes_by_hand():
    """ny = 6 only, 1 us per segment-substep unoptimized, 3 us MLP-controlled and 1 ms per
    sample-epoch: pretraining 8 jobs x 70000 x 1500 x 1e-3 s; rollouts 4 unoptimized reservoirs at
    1 us and 8 partial and pretrained ones at 3 us, each (sMNIST 35000 x 784 x 60 + ADIAC 781 x 176
    x 200 + Mackey-Glass 4000 x 500 + Lorenz96 256 x 2225 x 500) substeps x 2 segments."""
    config = bench.paper_config()
    minutes = bench.dag_minutes(config, {6: (1e-3, dict.fromkeys(config["tasks"], (1e-6, 3e-6)))})
    assert minutes["pretrain"] == pytest.approx(8 * 70000 * 1500 * 1e-3 / 60)
    substeps = 35000 * 784 * 60 + 781 * 176 * 200 + 4000 * 500 + 256 * 2225 * 500
    assert minutes["rollout"] == pytest.approx((4 * 1e-6 + 8 * 3e-6) * substeps * 2 / 60)


def test_divergence_part_reads_the_runs_task_data(capsys, tmp_path, monkeypatch):
    """--part divergence simulates the smoke scale's unoptimized reservoirs on results/smoke/data
    and reports, per seed, bounded or where it turned non-finite, and its most bent robot."""
    from physres.data import mackey_glass, write_task

    smoke = str(bench.SCHEMA.parents[1] / "configs" / "smoke.yaml")
    data = tmp_path / "results" / "smoke" / "data"
    data.mkdir(parents=True)
    write_task(data / "mackey_glass.h5", mackey_glass(n_steps=40, washout=5, lag=3))
    monkeypatch.chdir(tmp_path)
    bench.main(["--part", "divergence", "--task", "mackey_glass", "--configfile", smoke, "--sequences", "1"])
    out = capsys.readouterr().out
    assert "mackey_glass ny=6 (1 x 2), unoptimized (drawn as the workflow draws them), 1 test sequence(s) of" in out
    seeds = re.findall(r"seed (\d): (bounded|non-finite from input \d+) +most bent robot 0: .* E I L \[", out)
    assert [s for s, _ in seeds] == ["0", "1"]  # the smoke scale's two seeds
    assert "torque / E I L" in out and "min eig B there" in out


def test_divergence_part_with_the_thesis_draw_and_radii(capsys, tmp_path, monkeypatch):
    """--thesis-draw simulates the thesis code's reservoirs of its four seeds; --radii repeats each
    with every segment's radius set to each value, and reports E I L of that radius."""
    from physres.data import mackey_glass, write_task

    configs = bench.SCHEMA.parents[1] / "configs"
    data = tmp_path / "results" / "smoke" / "data"
    data.mkdir(parents=True)
    write_task(data / "mackey_glass.h5", mackey_glass(n_steps=40, washout=5, lag=3))
    monkeypatch.chdir(tmp_path)
    overlays = [str(configs / "smoke.yaml")]
    argv = ["--part", "divergence", "--task", "mackey_glass", "--sequences", "1", "--layouts", "6"]
    bench.main(argv + ["--thesis-draw", "--radii", "0.01", "0.05", "--configfile", *overlays])
    out = capsys.readouterr().out
    assert "unoptimized (the thesis code's draws)" in out
    seeds = re.findall(r"seed (\d+): (?:bounded|non-finite from input \d+) +most bent robot", out)
    assert seeds == ["123", "1234", "12345", "123456"]
    radii = re.findall(r"seed (\d+), R +(\d+) mm: E I L ([0-9.e+-]+) N m\^2", out)
    assert [(s, r) for s, r, _ in radii] == [(s, r) for s in seeds for r in ("10", "50")]
    # E I L grows as r^4: a 5 times thicker segment is 625 times stiffer (same E and L)
    for i in range(0, 8, 2):
        assert float(radii[i + 1][2]) / float(radii[i][2]) == pytest.approx(625, rel=0.1)  # printed to 2 digits
    table_robots = str(configs / "previous" / "table_robots.yaml")
    with pytest.raises(ValueError, match="robot_draw 'shared'"):
        bench.main(argv + ["--thesis-draw", "--configfile", overlays[0], table_robots])


def test_divergence_factors_change_one_thing():
    """The factors of --part divergence --factors and --radii each change one quantity of the
    reservoir: the base turned 90 degrees, the shear modulus x 4/3, every radius set."""
    import jax
    import numpy as np
    import yaml

    from physres.physical import init_unoptimized_reservoir
    from physres.robot import PARAMETER_NAMES

    ranges = yaml.safe_load((bench.SCHEMA.parents[2] / "config.yaml").read_text())["robot"]["init_ranges"]
    model = init_unoptimized_reservoir(jax.random.key(0), 6, 1, 1, 2, ranges, gravity=(0.0, 9.81), base_angle=np.pi / 2)
    theta = np.asarray(model.robots.theta())
    across = bench.DIVERGENCE_FACTORS["gravity across the rod"](model)
    assert across.robots.base_angle == pytest.approx(0.0) and across.robots.gravity == (0.0, 9.81)
    np.testing.assert_array_equal(across.robots.raw, model.robots.raw)
    shear = np.asarray(bench.DIVERGENCE_FACTORS["shear stiffness x 4/3"](model).robots.theta())
    thicker = np.asarray(bench.with_radius(model, 0.02).robots.theta())
    for i, name in enumerate(PARAMETER_NAMES):
        np.testing.assert_allclose(shear[..., i], theta[..., i] * (4 / 3 if name == "shear_modulus" else 1), rtol=1e-12)
        np.testing.assert_allclose(thicker[..., i], 0.02 if name == "radius" else theta[..., i], rtol=1e-12)
