"""Random Oscillators Network (RON), the digital reference reservoir.

Continuous dynamics (paper, Eq. RON_equation)::

    y'' = f_ref(y, y', u) = -gamma * y - epsilon * y' + tanh(W y + V u + b)

and the paper's discrete update (Eq. RON_discrete): explicit Euler for the velocity, then the
position with the *new* velocity (IMEX Euler), one step of size dt per input sample.
Parameters are generated as the RON authors do: W uniform in [-2, 2] rescaled to spectral
radius rho, V uniform in [0, nu], b uniform in [-nu, nu], gamma and epsilon uniform per unit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from physres.io import InputError, atomic_h5, check_array, read_h5, write_h5_attrs
from physres.noise import RolloutNoise
from physres.seeding import rng_for


class RON(eqx.Module):
    """Parameters of one RON of dimension n_y with input dimension n_u."""

    W: Float[Array, "ny ny"]
    V: Float[Array, "ny nu"]
    b: Float[Array, " ny"]
    gamma: Float[Array, " ny"]
    epsilon: Float[Array, " ny"]
    dt: float = eqx.field(static=True)

    @property
    def ny(self) -> int:
        return self.W.shape[0]

    @property
    def nu(self) -> int:
        return self.V.shape[1]


def spectral_radius(matrix: np.ndarray) -> float:
    return float(np.max(np.abs(np.linalg.eigvals(matrix))))


def init_ron(
    seed: int,
    ny: int,
    nu: int,
    dt: float,
    spectral_radius_target: float,
    input_scaling: float,
    gamma_range: tuple[float, float],
    epsilon_range: tuple[float, float],
) -> RON:
    """Sample a RON as the RON authors do; the same seed always gives the same RON."""
    rng = rng_for(seed, "ron", ny, nu)
    W = rng.uniform(-2.0, 2.0, size=(ny, ny))
    W *= spectral_radius_target / spectral_radius(W)
    V = rng.uniform(0.0, input_scaling, size=(ny, nu))
    b = rng.uniform(-input_scaling, input_scaling, size=ny)
    gamma = rng.uniform(*gamma_range, size=ny)
    epsilon = rng.uniform(*epsilon_range, size=ny)
    return RON(*(jnp.asarray(a) for a in (W, V, b, gamma, epsilon)), dt=float(dt))


def ron_from_config(seed: int, ny: int, nu: int, config: dict) -> RON:
    """init_ron with one entry of config.yaml's reference.configs (dt, spectral_radius,
    input_scaling, gamma, epsilon)."""
    return init_ron(
        seed=seed,
        ny=ny,
        nu=nu,
        dt=config["dt"],
        spectral_radius_target=config["spectral_radius"],
        input_scaling=config["input_scaling"],
        gamma_range=config["gamma"],
        epsilon_range=config["epsilon"],
    )


def f_ref(ron: RON, y: Float[Array, " ny"], ydot: Float[Array, " ny"], u: Float[Array, " nu"]) -> Float[Array, " ny"]:
    """Continuous RON acceleration y'' (unbatched; vmap for batches)."""
    return -ron.gamma * y - ron.epsilon * ydot + jnp.tanh(ron.W @ y + ron.V @ u + ron.b)


def ron_step(
    ron: RON,
    y: Float[Array, "*batch ny"],
    ydot: Float[Array, "*batch ny"],
    u: Float[Array, "*batch nu"],
    perturbation: tuple | None = None,
) -> tuple[Float[Array, "*batch ny"], Float[Array, "*batch ny"]]:
    """One IMEX-Euler step of size ron.dt; works on any leading batch shape. ``perturbation``
    (dy, dy', gain) is a RolloutNoise's draw: the coupling reads y + dy, the forcing is scaled
    by gain (dy' unused: the coupling does not read y')."""
    if perturbation is None:  # the nominal arithmetic, untouched
        forcing = jnp.tanh(y @ ron.W.T + u @ ron.V.T + ron.b)
    else:
        dy, _, gain = perturbation
        forcing = jnp.tanh((y + dy) @ ron.W.T + u @ ron.V.T + ron.b) * gain
    ydot_next = ydot + ron.dt * (-ron.gamma * y - ron.epsilon * ydot + forcing)
    y_next = y + ron.dt * ydot_next
    return y_next, ydot_next


# what a RON rollout returns: simulate.Keep's two and the running bounds of (y, y')
RONKeep = Literal["final", "all", "bounds"]


@eqx.filter_jit
def ron_rollout(ron: RON, u: Float[Array, "batch time nu"], keep: RONKeep = "final", noise: RolloutNoise | None = None):
    """Run the RON from rest over input sequences.

    keep="final":  y at the last step, shape (batch, ny)
    keep="all":    y at every step, shape (batch, time, ny)
    keep="bounds": elementwise (min, max) over batch and time of y and y', each shape (ny,)

    ``noise`` (keep "final" or "all"): sensor and actuation noise on the RON's coupling, drawn per
    step (physres.noise.RolloutNoise); the y returned are then the readout's noisy readings.
    """
    if noise is not None:
        return _noisy_ron_rollout(ron, u, keep, noise)
    u = u.astype(ron.W.dtype)  # inputs are stored as float32; compute in the RON's precision
    batch = u.shape[0]
    zeros = jnp.zeros((batch, ron.ny), dtype=u.dtype)
    u_time_major = jnp.swapaxes(u, 0, 1)

    if keep == "bounds":
        inf = jnp.full((2, ron.ny), jnp.inf, dtype=u.dtype)

        def step_bounds(carry, u_k):
            y, ydot, low, high = carry
            y, ydot = ron_step(ron, y, ydot, u_k)
            z = jnp.stack([y.min(0), ydot.min(0)])
            zmax = jnp.stack([y.max(0), ydot.max(0)])
            return (y, ydot, jnp.minimum(low, z), jnp.maximum(high, zmax)), None

        (_, _, low, high), _ = jax.lax.scan(step_bounds, (zeros, zeros, inf, -inf), u_time_major)
        return low, high

    def step(carry, u_k):
        y, ydot = ron_step(ron, *carry, u_k)
        return (y, ydot), (y if keep == "all" else None)

    (y_final, _), ys = jax.lax.scan(step, (zeros, zeros), u_time_major)
    if keep == "final":
        return y_final
    return jnp.swapaxes(ys, 0, 1)


def ron_to_arrays(ron: RON) -> dict[str, np.ndarray]:
    return {name: np.asarray(getattr(ron, name)) for name in ("W", "V", "b", "gamma", "epsilon")}


def ron_from_arrays(arrays: dict[str, np.ndarray], dt: float) -> RON:
    return RON(*(jnp.asarray(arrays[k]) for k in ("W", "V", "b", "gamma", "epsilon")), dt=float(dt))


# --------------------------------------------------------------------------- files and ensembles


def save_ron(path: str | Path, ron: RON, attrs: dict) -> None:
    with atomic_h5(path) as h5:
        for name, array in ron_to_arrays(ron).items():
            h5.create_dataset(name, data=array)
        write_h5_attrs(h5, {"dt": ron.dt, **attrs})


def load_ron(path: str | Path) -> RON:
    """A RON file written by save_ron: finite W, V, b, gamma, epsilon and a positive dt."""
    rule = "reference_ron"
    with read_h5(path, rule) as h5:
        arrays = {k: check_array(path, k, h5[k][...], rule) for k in ("W", "V", "b", "gamma", "epsilon")}
        dt = float(h5.attrs["dt"])
    if not (np.isfinite(dt) and dt > 0):
        raise InputError(path, f"attribute dt = {dt} is not a positive step", rule)
    return ron_from_arrays(arrays, dt)


class RONEnsemble:
    """Digital RONs: each is a few matrix products per step, so they simply run one after another
    (``noises``: a RolloutNoise per RON, or None)."""

    def __init__(self, seeds: list[int], rons: list[RON], noises: list[RolloutNoise] | None = None):
        self.seeds, self.rons = list(seeds), rons
        self.noises = [None] * len(rons) if noises is None else list(noises)

    def _run(self, u, keep):
        u = jnp.asarray(u)  # one transfer for all seeds
        runs = [ron_rollout(ron, u, keep=keep, noise=noise) for ron, noise in zip(self.rons, self.noises)]
        return np.stack([np.asarray(y) for y in runs]), None

    def final_states(self, u):
        return self._run(u, "final")

    def all_states(self, u):
        return self._run(u, "all")


def _noisy_ron_rollout(ron: RON, u, keep: RONKeep, noise: RolloutNoise):
    if keep not in ("final", "all"):
        raise ValueError(f"keep {keep!r} with noise; allowed: final, all")
    u = u.astype(ron.W.dtype)
    batch = u.shape[0]
    zeros = jnp.zeros((batch, ron.ny), dtype=u.dtype)

    def step(carry, interval):
        k, u_k = interval
        perturbation, measured = noise.draw(k, batch, u.dtype)
        y, ydot = ron_step(ron, *carry, u_k, perturbation)
        return (y, ydot), y + measured

    _, seen = jax.lax.scan(step, (zeros, zeros), (jnp.arange(u.shape[1]), jnp.swapaxes(u, 0, 1)))
    return seen[-1] if keep == "final" else jnp.swapaxes(seen, 0, 1)
