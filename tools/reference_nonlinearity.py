"""How far the reference RON's y'' = f_ref(y, y', u) is from what the physical reservoir's
controllers can express, for every candidate RON of one (task, ny).

    python tools/reference_nonlinearity.py paper mackey_glass 9 --workdir /work/runs/paper

Two measures over the pretraining box, each the RMS of the norm over test points (the reading of
Table 1's test RMSE):
- beyond affine: the residual of a least-squares fit of y'' on [y, y', u, 1]; the dataset is
  drawn as the rule pretraining_dataset draws it (box from the visited ranges on the training
  inputs, m points, the same split and seed), fitted on its training split, read on its test split;
- beyond additive: the part of y'' that no sum F(y, y') + G(u) holds, the form of the paper's
  feedback plus feedforward control. The box draws y, y' and u independently and uniformly, so
  the best such sum is the ANOVA one, E[y''|y, y'] + E[y''|u] - E[y'']; only the RON's
  tanh(W y + V u + b) has a part beyond it, estimated by Monte Carlo over the box.

For each candidate seed (reference.candidates draws from reference.pretrain_seed, as the rule
select_reference draws them) it prints both beside the labels' RMS of ||y''||, the candidate's
validation score from the run's selection.json and which one was selected. For the selected RON it
also prints both per coordinate beside the pretrained reservoirs' test RMSE per coordinate
(evaluation.json of the full mode), when the run has them. The run's config.yaml and the overlays
it ran with (--configfile) must be given as the run had them: the candidate seeds are checked
against its selection.json. Neither the run nor its results are touched.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64 (checked below)

import numpy as np  # noqa: E402

from physres.config import input_dimension, merged_config, ron_config  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.io import read_json  # noqa: E402
from physres.pretraining_data import sample_dataset, sampling_box, visited_box  # noqa: E402
from physres.ron import RON, ron_from_config  # noqa: E402
from physres.selection import candidate_seeds  # noqa: E402


def linear_features(split: dict) -> np.ndarray:
    """[y, y', u, 1] of a dataset split: (n, 2 ny + n_u + 1)."""
    ones = np.ones((len(split["y"]), 1))
    return np.hstack([split["y"], split["ydot"], split["u"], ones])


def beyond_affine(dataset: dict) -> dict:
    """The part of y'' that no affine function of (y, y', u) explains.

    dataset: {"train"|"test": {"y", "ydot": (n, ny), "u": (n, n_u), "yddot": (n, ny)}}. The affine
    fit is least squares on the training split; returns, on the test split, ``residual`` the RMS
    of ||y'' - y''_lin|| over samples, ``labels`` the RMS of ||y''||, ``per_coordinate`` the
    residual's RMS per coordinate (ny,).
    """
    weights = np.linalg.lstsq(linear_features(dataset["train"]), dataset["train"]["yddot"], rcond=None)[0]
    test = dataset["test"]
    residual = test["yddot"] - linear_features(test) @ weights
    return {
        "residual": float(np.sqrt(np.mean(np.sum(residual**2, axis=1)))),
        "labels": float(np.sqrt(np.mean(np.sum(test["yddot"] ** 2, axis=1)))),
        "per_coordinate": np.sqrt(np.mean(residual**2, axis=0)),
    }


def beyond_additive(ron: RON, box: dict, n: int = 4000, seed: int = 0, block: int = 250) -> dict:
    """The part of y'' beyond the best sum F(y, y') + G(u) over the box, by Monte Carlo.

    y'' = -gamma y - epsilon y' + tanh(a + v) with a = W y + b, v = V u; the box draws y, y', u
    independently and uniformly, so the best sum in L2 is E[.|y, y'] + E[.|u] - E[.] and what is
    left is I = tanh(a + v) - E_u tanh(a + v) - E_y tanh(a + v) + E tanh(a + v). Draws n test points
    and n independent points for the expectations. Returns ``residual`` the RMS of ||I|| and
    ``per_coordinate`` the RMS of I per coordinate (ny,).
    """
    rng = np.random.default_rng(seed)
    W, V, b = (np.asarray(x) for x in (ron.W, ron.V, ron.b))

    def draw():
        y = rng.uniform(box["y_low"], box["y_high"], (n, len(b)))
        u = rng.uniform(box["u_low"], box["u_high"], (n, len(box["u_low"])))
        return y @ W.T + b, u @ V.T

    a, v = draw()
    a_mc, v_mc = draw()
    mean = np.tanh(a_mc + v_mc[rng.permutation(n)]).mean(axis=0)
    parts = []
    for start in range(0, n, block):  # (block, n, ny) at a time
        ab, vb = a[start : start + block], v[start : start + block]
        given_y = np.tanh(ab[:, None, :] + v_mc[None]).mean(axis=1)
        given_u = np.tanh(a_mc[None] + vb[:, None, :]).mean(axis=1)
        parts.append(np.tanh(ab + vb) - given_y - given_u + mean)
    interaction = np.concatenate(parts)
    return {
        "residual": float(np.sqrt(np.mean(np.sum(interaction**2, axis=1)))),
        "per_coordinate": np.sqrt(np.mean(interaction**2, axis=0)),
    }


def candidate_ron(config: dict, task: str, ny: int, seed: int) -> RON:
    """Candidate ``seed``'s RON, drawn as the rule select_reference draws it."""
    return ron_from_config(seed, ny, input_dimension(config, task), ron_config(config, task, ny))


def candidate_box(config: dict, ron: RON, train_u: np.ndarray) -> dict:
    """The box the rule pretraining_dataset draws from had this RON been selected."""
    visited = visited_box(ron, train_u, config["reference"]["chunk_size"])
    return sampling_box(visited, config["pretraining_dataset"]["box"])


def draw_dataset(config: dict, ron: RON, box: dict) -> dict:
    """The rule pretraining_dataset's draw in ``box`` (its m, split and seed)."""
    spec = config["pretraining_dataset"]
    return sample_dataset(ron, box, spec["m"], spec["split"], spec["seed"])


def candidate_dataset(config: dict, task: str, ny: int, seed: int, train_u: np.ndarray) -> dict:
    """The pretraining dataset the rule pretraining_dataset would draw had candidate ``seed`` been
    selected."""
    ron = candidate_ron(config, task, ny, seed)
    return draw_dataset(config, ron, candidate_box(config, ron, train_u))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("task")
    parser.add_argument("ny", type=int)
    parser.add_argument("--workdir", type=Path, default=Path("."), help="the run's folder (results/, config.yaml)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[], help="overlays on config.yaml")
    args = parser.parse_args(argv)
    run = args.workdir / "results" / args.run
    data_path = run / "data" / f"{args.task}.h5"
    if not data_path.exists():
        parser.error(f"{data_path} is missing: build it with snakemake results/{args.run}/data/{args.task}.h5")
    config = merged_config(args.workdir / "config.yaml", args.configfile)
    if not config["numerics"]["x64"]:
        parser.error("numerics.x64 is false in this run's configuration; this tool draws in float64 only")
    seeds = candidate_seeds(config["reference"]["pretrain_seed"], config["reference"]["candidates"])
    selection_path = run / "reference" / args.task / f"ny{args.ny}" / "selection.json"
    selection = read_json(selection_path, rule="select_reference") if selection_path.exists() else None
    validation = {c["seed"]: c["validation"] for c in selection["candidates"]} if selection else {}
    if selection and sorted(validation) != sorted(seeds):
        parser.error(
            f"{selection_path} holds candidate seeds {sorted(validation)}, this configuration draws {seeds}: "
            "give the overlays the run was made with (--configfile)"
        )
    train_u = read_task(data_path).train.u

    print(f"{args.task} ny {args.ny}: the part of y'' beyond an affine fit and beyond F(y, y') + G(u), RMS of norm\n")
    print("| candidate seed | validation score | RMS of norm of y'' | beyond affine | beyond additive |")
    print("|--:|--:|--:|--:|--:|")
    affine, additive = {}, {}
    for seed in seeds:
        ron = candidate_ron(config, args.task, args.ny, seed)
        box = candidate_box(config, ron, train_u)
        affine[seed] = beyond_affine(draw_dataset(config, ron, box))
        additive[seed] = beyond_additive(ron, box)
        chosen = " (selected)" if selection and seed == selection["selected_seed"] else ""
        score = f"{validation[seed]:.4g}" if validation.get(seed) is not None else "--"
        labels = affine[seed]["labels"]
        print(
            f"| {seed}{chosen} | {score} | {labels:.4g} | {affine[seed]['residual']:.3g} "
            f"({100 * affine[seed]['residual'] / labels:.1f} %) | {additive[seed]['residual']:.3g} "
            f"({100 * additive[seed]['residual'] / labels:.1f} %) |"
        )
    evaluation_path = run / "pretrain" / args.task / f"ny{args.ny}" / "full" / "evaluation.json"
    if selection is None or not evaluation_path.exists():
        return
    starts = read_json(evaluation_path, rule="evaluate_pretraining")["seeds"]
    rmse = [s["test_rmse_per_coordinate"] for s in starts if s.get("test_rmse_per_coordinate") is not None]
    if not rmse:
        return
    print(
        "\nselected RON, per coordinate: both parts beside the pretrained (full) test RMSE, "
        f"mean over the {len(rmse)} finite starts\n"
    )
    print("| | " + " | ".join(str(i) for i in range(args.ny)) + " |")
    print("|:--|" + "--:|" * args.ny)
    chosen = selection["selected_seed"]
    print("| beyond affine | " + " | ".join(f"{v:.3g}" for v in affine[chosen]["per_coordinate"]) + " |")
    print("| beyond additive | " + " | ".join(f"{v:.3g}" for v in additive[chosen]["per_coordinate"]) + " |")
    print("| pretrained | " + " | ".join(f"{v:.3g}" for v in np.mean(rmse, axis=0)) + " |")


if __name__ == "__main__":
    main()
