"""What XLA counts for a compiled program (its cost analysis), as a check of the paper's FLOP
formulas (physres.flops) and for the speed CLI's distance to the machine's peak."""

from __future__ import annotations

import functools

import equinox as eqx
import jax
import jax.numpy as jnp

from physres.physical import CONTROLLERS, glorot_mlp


def cost_analysis(lowered) -> dict[str, float]:
    """XLA's cost analysis of a lowered program once compiled: "flops" (transcendentals such as
    sin, cos and tanh counted apart, under "transcendentals"), bytes accessed, ..."""
    compiled = lowered.compile()
    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    cost = compiled.cost_analysis()
    return dict(cost[0] if isinstance(cost, (list, tuple)) else cost)


def xla_cost(fn, *args) -> dict[str, float]:
    """``cost_analysis`` of fn(*args) compiled with eqx.filter_jit (modules as arguments)."""
    return cost_analysis(eqx.filter_jit(fn).lower(*args))


@functools.cache  # one compilation per (ny, nu, controller)
def counted_controller_flops(ny: int, nu: int, controller: str) -> int:
    """FLOPs plus transcendentals that XLA counts for one step T_ff(u) + T_fb(Q, Q') of the
    pipeline's actual controllers."""
    (ff_width, ff_depth), (fb_width, fb_depth) = CONTROLLERS[controller]
    feedforward = glorot_mlp(jax.random.PRNGKey(0), nu, ny, ff_width, ff_depth)
    feedback = glorot_mlp(jax.random.PRNGKey(1), 2 * ny, ny, fb_width, fb_depth)
    step = jax.jit(lambda u, Z: feedforward(u) + feedback(Z))
    cost = cost_analysis(step.lower(jnp.ones(nu), jnp.ones(2 * ny)))
    return int(cost.get("flops", 0) + cost.get("transcendentals", 0))
