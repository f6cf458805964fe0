"""Cross-task reuse of pretrained physical reservoirs (paper, supplementary "Cross-Task Physical
Reservoir Computing Experiments").

A source task's fully pretrained reservoir (theta_rob, theta_map, theta_contr) serves a target
task. The robots are never changed; the digital parts are either reused as they are (tuning
"none", possible only where source and target inputs u have the same n_u), or re-tuned by a
brief auxiliary pretraining against the target task's reference RON: the feedforward controller
alone ("ff") or both controllers and the map ("ff_fb_map"). The input samples are the target
RON's Delta t apart.
"""

from __future__ import annotations

import equinox as eqx
import jax

from physres.names import TUNINGS
from physres.physical import CONTROLLERS, PhysicalReservoir, controller_scale, glorot_mlp
from physres.pretrain import trainable


def reuse_reservoir(
    source: PhysicalReservoir, architecture: dict, target_nu: int, key: jax.Array
) -> tuple[PhysicalReservoir, dict]:
    """The source reservoir set up for a target input of dimension ``target_nu``, and its
    architecture (the arguments of init_physical_reservoir; ``architecture`` is the source's).
    The source's own feedforward controller where it takes that input, else a fresh Glorot one
    of the same controller architecture drawn from ``key``."""
    if architecture["nu"] == target_nu:
        return source, architecture
    (width, depth), _ = CONTROLLERS[architecture["controller"]]
    scale = controller_scale(  # checkpoints before the keys: plain Glorot, one scale
        depth, architecture.get("controller_init_scale", 1.0), architecture.get("linear_controller_init_scale")
    )
    feedforward = glorot_mlp(key, target_nu, architecture["ny"], width, depth, scale)
    return eqx.tree_at(lambda m: m.feedforward, source, feedforward), {**architecture, "nu": target_nu}


def retune_spec(model: PhysicalReservoir, tuning: str):
    """Filter spec of the leaves a tuning re-trains: the feedforward controller ("ff"), or both
    controllers and the map ("ff_fb_map"; an orthogonal map's fixed bases U0, V0 stay fixed as
    in pretraining). theta_rob is never trained."""
    if tuning not in TUNINGS[1:]:
        raise ValueError(f"tuning {tuning!r} re-trains nothing; allowed: {', '.join(TUNINGS[1:])}")
    spec = trainable(model)
    frozen = (
        (lambda m: m.robots,) if tuning == "ff_fb_map" else (lambda m: m.robots, lambda m: m.map, lambda m: m.feedback)
    )
    for where in frozen:
        spec = eqx.tree_at(where, spec, jax.tree_util.tree_map(lambda _: False, where(spec)))
    return spec
