"""Pretrain one cell's starts for a few epochs under config.yaml with overlays, outside the
workflow, to see how a pretraining choice changes the fit before a long run commits to it: the
pretraining dataset is drawn afresh from a run's selected RON and task data by the configuration's
rules (m, split, seed, box), the starts are the configuration's, and the schedule is the
configuration's, stopped after --epochs (the learning rate follows the full schedule, as the
first epochs of a full training do).

    python tools/pretrain_probe.py paper adiac 6 full --epochs 300 --results /work/runs/paper/results
    python tools/pretrain_probe.py paper adiac 6 full --epochs 300 --results /work/runs/paper/results \\
        --configfile workflow/configs/previous/batch_1024.yaml

Prints the validation MSE of every start every 50 epochs, each start's kept validation MSE, and the test RMSE
of its kept model per coordinate of y'' beside the labels' RMS (a coordinate left unfitted shows
there). Neither the run nor its results are touched.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)  # the workflow's numerics.x64

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from physres.config import merged_config  # noqa: E402
from physres.data import read_task  # noqa: E402
from physres.physical import init_physical_reservoir, stack_models, unstack_model  # noqa: E402
from physres.pretrain import acceleration_rmse_per_coordinate, pretrain_multistart  # noqa: E402
from physres.pretraining_data import sample_dataset, sampling_box, visited_box  # noqa: E402
from physres.ron import load_ron  # noqa: E402
from physres.seeding import label_key  # noqa: E402
from physres.specs import architecture_spec, schedule_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("task")
    parser.add_argument("ny", type=int)
    parser.add_argument("mode", choices=["full", "rob_fixed"])
    parser.add_argument("--epochs", type=int, default=300, help="stop after this many epochs")
    parser.add_argument("--results", type=Path, default=Path("results"), help="the folder holding <run>/")
    parser.add_argument("--configfile", type=Path, nargs="*", default=[], help="overlays on config.yaml")
    args = parser.parse_args(argv)
    run = args.results / args.run
    ron_path, data_path = (
        run / "reference" / args.task / f"ny{args.ny}" / "selected.h5",
        run / "data" / f"{args.task}.h5",
    )
    for path in (ron_path, data_path):
        if not path.exists():
            target = f"results/{args.run}/{path.relative_to(run)}"
            parser.error(f"{path} is missing: build it with snakemake {target}")
    config = merged_config(ROOT / "config.yaml", args.configfile)
    ron = load_ron(ron_path)
    spec = config["pretraining_dataset"]
    box = sampling_box(visited_box(ron, read_task(data_path).train.u, config["reference"]["chunk_size"]), spec["box"])
    data = sample_dataset(ron, box, spec["m"], spec["split"], spec["seed"])
    architecture = architecture_spec(config, args.task, args.ny)
    seeds = config["pretrain"]["seeds"]
    models = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **architecture.as_params()) for s in seeds])
    schedule = schedule_spec(config)
    start = time.perf_counter()
    state = pretrain_multistart(
        models, data, schedule, args.mode, label_key(args.task, args.ny, args.mode), stop_after=args.epochs
    )
    seconds = time.perf_counter() - start
    done = int(state.epoch)
    print(
        f"{args.task} ny {args.ny} {args.mode}: {done} of {schedule.epochs} epochs, batch {schedule.batch_size}, "
        f"box {spec['box']}, map bases {architecture.map_bases}; {seconds:.0f} s ({seconds / done:.2f} s an epoch)\n"
    )
    val = np.asarray(state.val_loss)[:, :done]
    print("| epoch | " + " | ".join(f"seed {s}" for s in seeds) + " |")
    print("|--:|" + "--:|" * len(seeds))
    shown = list(range(50, done + 1, 50)) + ([done] if done % 50 else [])
    for epoch in shown:
        print(f"| {epoch} | " + " | ".join(f"{v:.4g}" for v in val[:, epoch - 1]) + " |")
    print("| kept | " + " | ".join(f"{v:.4g}" for v in np.asarray(state.kept_val)) + " |\n")
    test = {k: jnp.asarray(v) for k, v in data["test"].items()}
    labels = np.sqrt(np.mean(np.asarray(test["yddot"]) ** 2, axis=0))
    print("test RMSE of y'' per coordinate (kept model); last row: the labels' RMS\n")
    print("| start | " + " | ".join(str(i) for i in range(args.ny)) + " |")
    print("|:--|" + "--:|" * args.ny)
    for index, seed in enumerate(seeds):
        rmse = np.asarray(acceleration_rmse_per_coordinate(unstack_model(state.kept_model, index), test))
        print(f"| seed {seed} | " + " | ".join(f"{v:.3f}" for v in rmse) + " |")
    print("| labels | " + " | ".join(f"{v:.3f}" for v in labels) + " |")


if __name__ == "__main__":
    main()
