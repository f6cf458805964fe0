"""The robustness study (physres.robustness, physres.tables.robustness): the mismatch multiplies
theta_rob and nothing else, its draws are seeded per (seed, draw) whatever runs before them and
have the configured statistics, and the half-advantage sigma has its closed forms."""

import jax
import numpy as np
import pytest
import yaml
from conftest import ROOT, small_ron

from physres.physical import init_physical_reservoir, init_unoptimized_reservoir
from physres.robustness import mismatch_z, mismatched
from physres.tables.robustness import (
    half_advantage,
    half_advantage_sigma,
    render_robustness,
    robustness_table,
    sigma_text,
)

RANGES = yaml.safe_load((ROOT / "config.yaml").read_text())["robot"]["init_ranges"]


@pytest.mark.parametrize("init", [init_physical_reservoir, init_unoptimized_reservoir])
def test_mismatch_multiplies_theta_rob_and_leaves_the_rest(init):
    model = init(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3)
    factor = 1.0 + 0.1 * np.random.default_rng(0).standard_normal(model.robots.raw.shape)
    built = mismatched(model, factor)
    np.testing.assert_allclose(built.robots.theta(), np.asarray(model.robots.theta()) * factor, rtol=1e-12)
    changed = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool(np.any(a != b)), model, built))
    assert sum(changed) == 1  # only robots.raw
    floor = np.asarray(model.robots.minimum)
    np.testing.assert_allclose(mismatched(model, np.zeros_like(factor)).robots.theta()[0, 0], floor * (1 + 1e-6))


def test_draws_are_keyed_by_seed_and_draw_only_and_standard_normal():
    shape = (1, 2, 8)
    first = mismatch_z(0, "adiac", 6, 2, 1, shape)
    for other in [(0, "adiac", 6, 0, 0), (0, "smnist", 6, 2, 1)]:
        mismatch_z(*other, shape)  # whatever ran before
    np.testing.assert_array_equal(mismatch_z(0, "adiac", 6, 2, 1, shape), first)
    assert not np.array_equal(mismatch_z(0, "adiac", 6, 2, 0, shape), first)
    assert not np.array_equal(mismatch_z(0, "adiac", 6, 3, 1, shape), first)
    z = np.concatenate([mismatch_z(0, "adiac", 6, s, d, shape).ravel() for s in range(25) for d in range(25)])
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03  # 10000 draws: 3 standard errors


def test_half_advantage_sigma_closed_forms():
    sigmas = np.array([0.0, 0.1, 0.2])
    # accuracy 80 -> 70 -> 60 against a baseline at 60: half of the 20 lost at 0.1 exactly
    assert half_advantage_sigma(sigmas, [80.0, 70.0, 60.0], 60.0, True) == pytest.approx(0.1)
    assert half_advantage_sigma(sigmas, [80.0, 75.0, 60.0], 60.0, True) == pytest.approx(0.1 + 0.1 / 3)  # 70 there
    assert half_advantage_sigma(sigmas, [0.4, 0.45, 0.5], 0.6, False) == pytest.approx(0.2)  # NRMSE: lower is better
    assert half_advantage_sigma(sigmas, [80.0, 79.0, 78.0], 60.0, True) == np.inf
    assert np.isnan(half_advantage_sigma(sigmas, [50.0, 40.0, 30.0], 60.0, True))
    assert half_advantage_sigma(sigmas, [80.0, np.nan, 78.0], 60.0, True) == 0.1  # diverged: lost


def record(variant, values):
    """A robustness file: sigma -> per-seed accuracies (None: diverged), one draw."""
    runs = []
    for sigma, seeds in values.items():
        for seed, value in enumerate(seeds):
            score = {"metric": "accuracy", "value": value, "diverged": value is None}
            runs.append({"seed": seed, "sigma": sigma, "draw": 0, "nominal": score, "refit": score})
    return {"task": "adiac", "ny": 6, "variant": variant, "runs": runs}


def test_the_table_and_its_half_advantage(tmp_path):
    records = [
        record("pretrained", {0.0: [80.0, 80.0], 0.1: [70.0, 70.0], 0.2: [60.0, None]}),
        record("unoptimized", {0.0: [60.0, 60.0], 0.1: [58.0, 62.0], 0.2: [None, None]}),
    ]
    table = robustness_table(records)
    assert list(dict.fromkeys(table["variant"])) == ["unoptimized", "pretrained"]
    row = table[(table.variant == "pretrained") & (table.sigma == 0.2) & (table.protocol == "nominal")].iloc[0]
    assert row["mean"] == 60.0 and row["n_diverged"] == 1
    halves = half_advantage(table)
    assert set(halves["protocol"]) == {"nominal", "refit"}
    assert halves["half_advantage_sigma"].tolist() == pytest.approx([0.1, 0.1])
    render_robustness(table, halves, tmp_path / "robustness")
    md = (tmp_path / "robustness.md").read_text()
    assert "10.0 %" in md and "60.00 ± -- (*)" in md and "--" in md


def test_a_half_advantage_within_the_first_step_keeps_its_digits():
    # Mackey-Glass at reduced scale loses half its advantage at 0.038 %: not "0.0 %"
    assert sigma_text(0.000384) == "0.038 %"
    assert sigma_text(0.003) == "0.3 %" and sigma_text(0.133) == "13.3 %" and sigma_text(0.0) == "0.0 %"
    assert sigma_text(float("inf")) == "beyond the grid"
    assert sigma_text(0.1, unoptimized_mean=float("nan")) == "unoptimized diverged"


def test_the_subset_is_seeded_shared_and_keeps_labels_with_their_sequences():
    from physres.data import Split, TaskData
    from physres.robustness import subsampled

    u = np.arange(20.0).reshape(20, 1, 1)
    task = TaskData("adiac", Split(u, np.arange(20)), Split(u[:5], np.arange(5)))
    small = subsampled(task, {"train": 6, "test": None}, seed=0)
    assert len(small.train.u) == 6 and len(small.test.u) == 5
    np.testing.assert_array_equal(small.train.u[:, 0, 0], small.train.label)  # pairs kept
    np.testing.assert_array_equal(subsampled(task, {"train": 6, "test": None}, seed=0).train.label, small.train.label)
    assert subsampled(task, {"train": None, "test": None}, seed=0) == task


# -------------------------------------------------------------------- sensor and actuation noise


def test_noise_draws_have_the_configured_statistics_and_keys():
    """RolloutNoise: dQ, dQ' of std sigma times the scales, gain 1 + sigma z, per interval; the
    same key and interval give the same draw, another interval another; the key ignores sigma."""
    from physres.robustness import rollout_noise

    q_rms, qdot_rms = np.array([1.0, 2.0, 0.5]), np.array([3.0, 0.1, 1.0])
    sensor = rollout_noise(0, "sensor", "adiac", 6, 2, 0, 0.1, q_rms, qdot_rms)
    (dQ, dQdot, gain), measured = sensor.draw(7, 20000, np.float64)
    np.testing.assert_allclose(np.std(dQ, axis=0), 0.1 * q_rms, rtol=0.03)  # 20000 draws: ~3 standard errors
    np.testing.assert_allclose(np.std(dQdot, axis=0), 0.1 * qdot_rms, rtol=0.03)
    np.testing.assert_allclose(np.std(measured, axis=0), 0.1 * q_rms, rtol=0.03)
    assert np.all(np.asarray(gain) == 1.0) and abs(np.corrcoef(dQ[:, 0], measured[:, 0])[0, 1]) < 0.03
    np.testing.assert_array_equal(sensor.draw(7, 5, np.float64)[1], measured[:5])
    assert not np.array_equal(sensor.draw(8, 5, np.float64)[1], measured[:5])
    larger = rollout_noise(0, "sensor", "adiac", 6, 2, 0, 0.2, q_rms, qdot_rms).draw(7, 5, np.float64)[1]
    np.testing.assert_allclose(larger, 2 * measured[:5], rtol=1e-12)  # the same z, scaled
    other_seed = rollout_noise(0, "sensor", "adiac", 6, 3, 0, 0.1, q_rms, qdot_rms).draw(7, 5, np.float64)[1]
    assert not np.array_equal(other_seed, measured[:5])
    actuation = rollout_noise(0, "actuation", "adiac", 6, 2, 0, 0.05, q_rms, qdot_rms)
    (dQ, dQdot, gain), measured = actuation.draw(7, 20000, np.float64)
    assert not np.any(dQ) and not np.any(dQdot) and not np.any(measured)
    assert abs(np.mean(gain) - 1) < 0.002 and abs(np.std(gain) - 0.05) < 0.002
    with pytest.raises(ValueError, match="allowed: sensor, actuation"):
        rollout_noise(0, "thermal", "adiac", 6, 2, 0, 0.1, q_rms, qdot_rms)


def test_noise_scales_are_the_rms_of_q_and_of_its_differences():
    from physres.robustness import noise_scales

    h, omega = 0.01, np.pi  # 10 whole periods in 2000 samples
    t = np.arange(2001) * h
    Q = np.stack([2.0 * np.sin(omega * t), np.full_like(t, 0.5)], axis=-1)[None, None]  # (1, 1, K, 2)
    Q = np.concatenate([Q, np.full_like(Q, np.nan)])  # a second, diverged reservoir
    q_rms, qdot_rms = noise_scales(Q, h)
    np.testing.assert_allclose(q_rms[0], [2.0 / np.sqrt(2), 0.5], rtol=1e-3)
    # differences of a sine: a sine of amplitude 2 a sin(omega h / 2) / h
    np.testing.assert_allclose(qdot_rms[0], [4.0 * np.sin(omega * h / 2) / h / np.sqrt(2), 0.0], rtol=1e-9, atol=1e-12)
    assert np.all(q_rms[1] == 0) and np.all(qdot_rms[1] == 0)


@pytest.fixture(scope="module")
def unoptimized_rollouts():
    """An unoptimized reservoir (no feedback) rolled out without noise, with zero noise, with
    sensor noise and with actuation noise, on the same inputs."""
    from physres.robustness import rollout_noise, stack_noise
    from physres.simulate import stacked_rollout

    jax.config.update("jax_enable_x64", True)
    from physres.physical import stack_models

    model = init_unoptimized_reservoir(jax.random.PRNGKey(1), 6, 1, 1, 2, RANGES, gauss_points=3)
    models = stack_models([model] * 4)
    u = np.random.default_rng(0).uniform(-1, 1, size=(3, 12, 1))
    q_rms, qdot_rms = np.full(6, 0.1), np.full(6, 1.0)
    noises = [rollout_noise(0, "sensor", "mackey_glass", 6, 0, 0, sigma, q_rms, qdot_rms) for sigma in (0.0, 0.2)] + [
        rollout_noise(0, "actuation", "mackey_glass", 6, 0, 0, sigma, q_rms, qdot_rms) for sigma in (0.0, 0.2)
    ]
    rollout = lambda **kw: stacked_rollout(models, u, 0.05, 0.005, keep="all", **kw)  # noqa: E731
    return rollout(), rollout(noise=stack_noise(noises)), q_rms


def test_zero_noise_is_the_nominal_rollout_bit_for_bit(unoptimized_rollouts):
    (Q, peak), (noisy, noisy_peak), _ = unoptimized_rollouts
    for member in (0, 2):  # sensor and actuation at sigma 0
        np.testing.assert_array_equal(noisy[member], Q[member])
        np.testing.assert_array_equal(noisy_peak[member], peak[member])


def test_sensor_noise_without_feedback_only_adds_the_measurement_noise(unoptimized_rollouts):
    """No feedback controller: the states are the nominal ones, the readout sees them plus
    sigma * q_rms * z per sample (the first, initial state of a linear rollout is not measured);
    actuation noise changes the states themselves."""
    (Q, peak), (noisy, noisy_peak), q_rms = unoptimized_rollouts
    z = (np.asarray(noisy[1]) - np.asarray(Q[1]))[:, 1:] / (0.2 * q_rms)
    assert abs(z.mean()) < 0.2 and abs(z.std() - 1) < 0.15  # 3 x 11 x 6 draws
    np.testing.assert_array_equal(noisy_peak[1], peak[1])
    assert not np.allclose(noisy[3], Q[3], rtol=1e-6, atol=0)


def test_a_diverged_baseline_is_named_not_called_no_advantage(tmp_path):
    records = [
        record("pretrained", {0.0: [80.0, 80.0], 0.1: [70.0, 70.0]}),
        record("unoptimized", {0.0: [None, None], 0.1: [None, None]}),
    ]
    table = robustness_table(records)
    render_robustness(table, half_advantage(table), tmp_path / "robustness")
    md = (tmp_path / "robustness.md").read_text()
    assert "unoptimized diverged" in md and "no advantage" not in md


def test_the_ron_under_the_same_noise():
    """The RON's curve: zero noise is its nominal rollout (to rounding; the study's sigma = 0 runs
    are the nominal rollout itself); sensor noise on a RON
    whose coupling W is zero only adds the readout's measurement noise; the forcing's gain
    (actuation) changes the states themselves."""
    from physres.robustness import rollout_noise
    from physres.ron import ron_rollout

    jax.config.update("jax_enable_x64", True)
    ron = small_ron()
    u = jax.numpy.asarray(np.random.default_rng(0).uniform(-1, 1, size=(3, 30, 1)))
    scale = np.full(6, 0.1)
    noise = lambda kind, sigma: rollout_noise(0, kind, "adiac", 6, 0, 0, sigma, scale, scale)  # noqa: E731
    nominal = np.asarray(ron_rollout(ron, u, keep="all"))
    for kind in ("sensor", "actuation"):  # to rounding: XLA fuses the noisy step's matmul differently
        zero = np.asarray(ron_rollout(ron, u, keep="all", noise=noise(kind, 0.0)))
        np.testing.assert_allclose(zero, nominal, rtol=1e-13, atol=1e-16)
    uncoupled = ron.__class__(ron.W * 0, ron.V, ron.b, ron.gamma, ron.epsilon, dt=ron.dt)
    quiet = np.asarray(ron_rollout(uncoupled, u, keep="all"))
    z = (np.asarray(ron_rollout(uncoupled, u, keep="all", noise=noise("sensor", 0.5))) - quiet) / (0.5 * scale)
    assert abs(z.mean()) < 0.15 and abs(z.std() - 1) < 0.1  # 3 x 30 x 6 draws
    final = np.asarray(ron_rollout(ron, u, keep="final", noise=noise("actuation", 0.5)))
    assert not np.allclose(final, nominal[:, -1], rtol=1e-6, atol=0)
