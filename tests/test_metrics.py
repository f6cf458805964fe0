"""The metrics of the paper's Table 1: the test RMSE of y'' and the trajectory NRMSE, against
closed forms and an independent implementation (scikit-learn's)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from conftest import ROOT
from sklearn.metrics import root_mean_squared_error

from physres.physical import init_physical_reservoir
from physres.pretrain import acceleration_rmse, acceleration_rmse_per_coordinate
from physres.simulate import trajectory_nrmse

RANGES = yaml.safe_load((ROOT / "config.yaml").read_text())["robot"]["init_ranges"]


def test_trajectory_nrmse_closed_form():
    """y_hat = (1 + e) y gives NRMSE = |e| for any y; y_hat = y gives 0."""
    y = np.random.default_rng(0).normal(size=(3, 40, 6))
    assert trajectory_nrmse(y, 1.25 * y) == pytest.approx(0.25, rel=1e-12)
    assert trajectory_nrmse(y, 0.9 * y) == pytest.approx(0.1, rel=1e-12)
    assert trajectory_nrmse(y, y) == 0.0


def test_trajectory_nrmse_is_rmse_over_rms_over_all_steps_and_coordinates():
    rng = np.random.default_rng(1)
    y, y_hat = rng.normal(size=(2, 30, 9)), rng.normal(size=(2, 30, 9))
    expected = root_mean_squared_error(y.ravel(), y_hat.ravel()) / np.sqrt(np.mean(y**2))
    assert trajectory_nrmse(y, y_hat) == pytest.approx(expected, rel=1e-12)
    # a normalised error: the same for y and y_hat scaled together
    assert trajectory_nrmse(7.0 * y, 7.0 * y_hat) == pytest.approx(expected, rel=1e-12)


OFFSET = np.array([0.1, -0.2, 0.3, 0.0, 0.5, -1.0])


def offset_labels(rng, n: int):
    """A ny = 6 reservoir, n random (y, y', u) and labels y'' = y''_hat + OFFSET; and y''_hat."""
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3)
    y, ydot, u = (jnp.asarray(rng.uniform(-0.1, 0.1, size=(n, k))) for k in (6, 6, 1))
    predicted = np.asarray(model.mapped_accelerations(y, ydot, u))
    return model, {"y": y, "ydot": ydot, "u": u, "yddot": jnp.asarray(predicted + OFFSET)}, predicted


def test_acceleration_rmse_over_samples_and_components():
    """Labels y'' = y''_hat + an offset: the RMSE is the offset's RMS over components (closed
    form), and scikit-learn's RMSE of the flattened arrays (independent)."""
    rng = np.random.default_rng(2)
    model, batch, predicted = offset_labels(rng, 50)
    assert float(acceleration_rmse(model, batch)) == pytest.approx(np.sqrt(np.mean(OFFSET**2)), rel=1e-9)

    noisy = predicted + rng.normal(size=predicted.shape)
    batch["yddot"] = jnp.asarray(noisy)
    expected = root_mean_squared_error(noisy.ravel(), predicted.ravel())
    assert float(acceleration_rmse(model, batch)) == pytest.approx(expected, rel=1e-9)


def test_acceleration_rmse_per_coordinate():
    """A constant offset per component is that component's RMSE (closed form); with noise, each
    is scikit-learn's RMSE of that column (independent), and their mean square is the overall
    RMSE's square."""
    rng = np.random.default_rng(3)
    model, batch, predicted = offset_labels(rng, 40)
    # (y'' + offset) - y'' loses the digits of the large accelerations beside the offset
    np.testing.assert_allclose(acceleration_rmse_per_coordinate(model, batch), np.abs(OFFSET), rtol=1e-7, atol=1e-9)

    noisy = predicted + rng.normal(size=predicted.shape) * np.arange(1, 7)
    batch["yddot"] = jnp.asarray(noisy)
    per_coordinate = np.asarray(acceleration_rmse_per_coordinate(model, batch))
    expected = [root_mean_squared_error(noisy[:, i], predicted[:, i]) for i in range(6)]
    np.testing.assert_allclose(per_coordinate, expected, rtol=1e-9)
    assert np.mean(per_coordinate**2) == pytest.approx(float(acceleration_rmse(model, batch)) ** 2, rel=1e-9)
