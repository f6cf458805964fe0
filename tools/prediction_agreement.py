"""Does a physical reservoir classify as the RON it was pretrained against, or as any RON?

For each cell of a classification task (ADIAC, sMNIST) of a finished run, every reservoir's test
predictions (the readout's: StandardScaler + LogisticRegression on final states, as rule readout
fits it) beside those of the reference RON its pretraining matched (the selected candidate) and
of the digital column's other RON draws. Agreement is the share of test series on which two
reservoirs predict the same class. A pretrained reservoir that copies its own RON agrees with it
more than with the other draws; one that does not agrees with all of them alike. Beside them, the
standard error of each reservoir's accuracy minus the selected RON's, from the test series alone
(paired: the same series, the share on which only one of the two is right): how far a ratio of a
physical score to its RON's can move by the test set's finite size.

    python tools/prediction_agreement.py paper adiac 6 9 12 --workdir /work/runs/paper
    python tools/prediction_agreement.py paper smnist 9 --variants pretrained --workdir .  # a cell not yet whole

Every reproduced accuracy is checked against the run's scores (scores/<task>/ny<ny>/<variant>.json,
the selection's test score): a readout that differs from the rule's stops the tool. It runs on one
CPU, as the rules do, so that its rollouts and readouts round as theirs. Neither the
run nor its results are touched.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from physres.cpus import claim_cpus

if __name__ == "__main__":  # a command, not an import by the tests: the whole process
    # The rules that made the scores ran with threads: 1, and XLA's and the BLAS's thread counts
    # round differently: on two threads sMNIST ny 15's selected RON scores one test image more.
    claim_cpus(1)

import jax  # noqa: E402  (after claim_cpus: XLA sizes its thread pool when its backend starts)

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64 (checked below)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from physres.batching import split_activations  # noqa: E402
from physres.config import merged_config  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.formats import load_scores, read_activations  # noqa: E402
from physres.io import read_json  # noqa: E402
from physres.readout import classification_predictions  # noqa: E402
from physres.reservoirs import load_ensemble  # noqa: E402

PHYSICAL = ("unoptimized", "partial", "pretrained")


def accuracy(predictions: np.ndarray, labels: np.ndarray) -> float:
    return 100.0 * float(np.mean(predictions == labels))


def agreement(a: np.ndarray, b: np.ndarray) -> float:
    """Share (%) of test series on which two reservoirs predict the same class."""
    return 100.0 * float(np.mean(a == b))


def paired_difference_std(a: np.ndarray, b: np.ndarray, labels: np.ndarray) -> float:
    """Standard error (%) of accuracy(a) - accuracy(b) on the same test series: what the test set's
    size alone leaves uncertain in the difference of two reservoirs' scores (paired proportions)."""
    only_a = np.sum((a == labels) & (b != labels))
    only_b = np.sum((b == labels) & (a != labels))
    n = len(labels)
    return 100.0 * float(np.sqrt((only_a + only_b) - (only_a - only_b) ** 2 / n) / n)


def mean(values: list[float]) -> float:
    """Mean of a list, NaN for none (a run with two RON draws has no pair of other draws)."""
    return float(np.mean(values)) if values else float("nan")


def check_accuracy(found: float, stored: float, what: str) -> None:
    if not np.isclose(found, stored, rtol=0, atol=1e-9):
        raise SystemExit(f"{what}: this readout gives {found:.4f} %, the run's scores {stored:.4f} %")


def stored_scores(results: Path, task: str, ny: int, variant: str) -> dict[int, float]:
    """{seed: score} of the run's readout of one variant; NaN for a diverged seed."""
    scores = load_scores([results / "scores" / task / f"ny{ny}" / f"{variant}.json"])
    return dict(zip(scores["seed"], scores["value"].astype(float)))


def variant_predictions(results: Path, task, name: str, ny: int, variant: str, readout: dict) -> dict[int, np.ndarray]:
    """{seed: test predictions} of one variant's stored activations, each checked against its
    score; a seed the run marks diverged (no score) is left out, as the tables leave it out."""
    path = results / "activations" / name / f"ny{ny}" / f"{variant}.h5"
    rule = "rollout_ron" if variant == "ron" else "gather_activations"
    stored = stored_scores(results, name, ny, variant)
    predictions = {}
    for seed, train, test, _ in read_activations(path, rule):
        if np.isnan(stored[seed]):
            continue
        predictions[seed] = classification_predictions(
            train, task.train.label, test, readout["logistic_C"], readout["logistic_max_iter"]
        )
        check_accuracy(
            accuracy(predictions[seed], task.test.label), stored[seed], f"{name} ny {ny} {variant} seed {seed}"
        )
    return predictions


def selected_ron_predictions(results: Path, task, name: str, ny: int, config: dict) -> tuple[int, np.ndarray]:
    """The selected reference RON's seed and test predictions, rolled out again from its file."""
    folder = results / "reference" / name / f"ny{ny}"
    selection = read_json(folder / "selection.json", rule="select_reference")
    seed = selection["selected_seed"]
    ensemble = load_ensemble("ron", [str(folder / "selected.h5")], [seed])
    states = split_activations(ensemble, task, 0, config["reference"]["chunk_size"], "selected RON")
    readout = config["readout"]
    predictions = classification_predictions(
        states["train"][0][0],
        task.train.label,
        states["test"][0][0],
        readout["logistic_C"],
        readout["logistic_max_iter"],
    )
    check_accuracy(accuracy(predictions, task.test.label), selection["test"], f"{name} ny {ny} selected RON")
    return seed, predictions


def agreement_row(ny: int, reservoirs: str, predictions: list, selected: np.ndarray, others: list, labels) -> dict:
    """Means over ``predictions`` (each (n_test,)): accuracy, agreement with the selected RON and
    with the other RON draws (never a reservoir with itself), and the standard error of the
    accuracy's difference to the selected RON's that the test set's size leaves."""
    return {
        "ny": ny,
        "reservoirs": reservoirs,
        "n": len(predictions),
        "accuracy": mean([accuracy(p, labels) for p in predictions]),
        "with_selected_ron": mean([agreement(p, selected) for p in predictions]),
        "with_other_ron_draws": mean([agreement(p, q) for p in predictions for q in others if q is not p]),
        "difference_std": mean([paired_difference_std(p, selected, labels) for p in predictions]),
    }


def cell_agreement(results: Path, name: str, ny: int, config: dict, variants=PHYSICAL) -> list[dict]:
    """One agreement_row per physical variant of ``variants``, after one for the digital column's
    RON draws but the selected one."""
    task = read_task(results / "data" / f"{name}.h5")
    if task.kind != "classification":
        raise SystemExit(f"{name} is a {task.kind} task: agreement of predicted classes needs a classification task")
    selected_seed, selected = selected_ron_predictions(results, task, name, ny, config)
    draws = variant_predictions(results, task, name, ny, "ron", config["readout"])
    others = [p for seed, p in draws.items() if seed != selected_seed]
    labels = task.test.label
    rows = [agreement_row(ny, "RON draws (not the selected)", others, selected, others, labels)]
    for variant in variants:
        seeds = variant_predictions(results, task, name, ny, variant, config["readout"])
        rows.append(agreement_row(ny, variant, list(seeds.values()), selected, others, labels))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("task")
    parser.add_argument("ny", type=int, nargs="+")
    parser.add_argument("--workdir", type=Path, default=Path("."), help="the run's folder (results/, config.yaml)")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[], help="overlays on config.yaml")
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=PHYSICAL,
        default=list(PHYSICAL),
        help="the physical variants to compare (default: all three; fewer for a cell whose other scores are not made yet)",
    )
    args = parser.parse_args(argv)
    config = merged_config(args.workdir / "config.yaml", args.configfile)
    if not config["numerics"]["x64"]:
        parser.error("numerics.x64 is false in this run's configuration; this tool rolls out in float64 only")
    results = args.workdir / "results" / args.run
    rows = [row for ny in args.ny for row in cell_agreement(results, args.task, ny, config, args.variants)]
    print(f"## Test predictions of {args.task}: accuracy and agreement (%), means over seeds\n")
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".1f"))


if __name__ == "__main__":
    main()
