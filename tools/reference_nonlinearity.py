"""How far the reference RON's y'' = f_ref(y, y', u) is from linear over its pretraining box, for
every candidate RON of one (task, ny): what no physical reservoir that matches the RON's linear
part can get for free.

    python tools/reference_nonlinearity.py paper mackey_glass 9 --workdir /work/runs/paper

For each candidate seed (reference.candidates draws from reference.pretrain_seed, as the rule
select_reference draws them) it draws the pretraining dataset as the rule pretraining_dataset
does (box from the visited ranges on the training inputs, m points, the same split and seed),
fits y'' by least squares on [y, y', u, 1] over the training split, and prints the residual's
RMS of the norm ||y'' - y''_lin|| on the test split beside the labels' RMS of ||y''||, the
candidate's validation score from the run's selection.json and which one was selected. For the
selected RON it also prints the residual per coordinate beside the pretrained reservoirs' test
RMSE per coordinate (evaluation.json of the full mode), when the run has them. The run's
config.yaml and the overlays it ran with (--configfile) must be given as the run had them: the
candidate seeds are checked against its selection.json. Neither the run nor its results are
touched.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64 (checked below)

import numpy as np  # noqa: E402

from physres.config import input_dimension, merged_config, ron_config  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.pretraining_data import sample_dataset, sampling_box, visited_box  # noqa: E402
from physres.ron import ron_from_config  # noqa: E402
from physres.selection import candidate_seeds  # noqa: E402


def linear_features(split: dict) -> np.ndarray:
    """[y, y', u, 1] of a dataset split: (n, 2 ny + n_u + 1)."""
    ones = np.ones((len(split["y"]), 1))
    return np.hstack([split["y"], split["ydot"], split["u"], ones])


def nonlinear_part(dataset: dict) -> dict:
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


def candidate_dataset(config: dict, task: str, ny: int, seed: int, train_u: np.ndarray) -> dict:
    """The pretraining dataset the rule pretraining_dataset would draw had candidate ``seed`` been
    selected."""
    ron = ron_from_config(seed, ny, input_dimension(config, task), ron_config(config, task, ny))
    spec = config["pretraining_dataset"]
    box = sampling_box(visited_box(ron, train_u, config["reference"]["chunk_size"]), spec["box"])
    return sample_dataset(ron, box, spec["m"], spec["split"], spec["seed"])


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
    selection = json.loads(selection_path.read_text()) if selection_path.exists() else None
    validation = {c["seed"]: c["validation"] for c in selection["candidates"]} if selection else {}
    if selection and sorted(validation) != sorted(seeds):
        parser.error(
            f"{selection_path} holds candidate seeds {sorted(validation)}, this configuration draws {seeds}: "
            "give the overlays the run was made with (--configfile)"
        )
    train_u = read_task(data_path).train.u

    print(f"{args.task} ny {args.ny}: y'' beyond an affine fit in (y, y', u), test split\n")
    print("| candidate seed | validation score | RMS of norm of y'' | residual | residual / labels |")
    print("|--:|--:|--:|--:|--:|")
    parts = {}
    for seed in seeds:
        parts[seed] = part = nonlinear_part(candidate_dataset(config, args.task, args.ny, seed, train_u))
        chosen = " (selected)" if selection and seed == selection["selected_seed"] else ""
        score = f"{validation[seed]:.4g}" if validation.get(seed) is not None else "--"
        print(
            f"| {seed}{chosen} | {score} | {part['labels']:.3f} | {part['residual']:.3f} | "
            f"{100 * part['residual'] / part['labels']:.1f} % |"
        )
    evaluation_path = run / "pretrain" / args.task / f"ny{args.ny}" / "full" / "evaluation.json"
    if selection is None or not evaluation_path.exists():
        return
    starts = json.loads(evaluation_path.read_text())["seeds"]
    rmse = [s["test_rmse_per_coordinate"] for s in starts if s.get("test_rmse_per_coordinate") is not None]
    if not rmse:
        return
    print(
        "\nselected RON, per coordinate: the residual beside the pretrained (full) test RMSE, "
        f"mean over the {len(rmse)} finite starts\n"
    )
    print("| | " + " | ".join(str(i) for i in range(args.ny)) + " |")
    print("|:--|" + "--:|" * args.ny)
    print("| residual | " + " | ".join(f"{v:.3f}" for v in parts[selection["selected_seed"]]["per_coordinate"]) + " |")
    print("| pretrained | " + " | ".join(f"{v:.3f}" for v in np.mean(rmse, axis=0)) + " |")


if __name__ == "__main__":
    main()
