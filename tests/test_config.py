"""Configuration: the shipped configs validate; bad configs stop with a message naming the key."""

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import load_config

from physres.config import ConfigError, check_config, merged_config, robot_layout

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "overlays",
    [
        (),
        ("workflow/configs/quick.yaml",),
        ("workflow/configs/reduced.yaml",),
        ("workflow/configs/smoke.yaml",),
        ("workflow/configs/previous/gravity.yaml", "workflow/configs/previous/encoding.yaml"),
        ("workflow/configs/thesis_unoptimized_robots.yaml",),
        ("workflow/configs/quick.yaml", "workflow/configs/previous/table_robots.yaml"),
        ("workflow/configs/quick.yaml", "workflow/configs/paper_step.yaml"),
        ("workflow/configs/quick.yaml", "workflow/configs/coriolis_on.yaml"),
        ("workflow/configs/quick.yaml", "workflow/configs/quick_robustness.yaml"),
        ("workflow/configs/thesis_unoptimized_robots.yaml", "workflow/configs/soromox_dynamics.yaml"),
        ("workflow/configs/reference_candidate.yaml",),
        ("workflow/configs/smnist_layouts/paper.yaml",),
        ("workflow/configs/smnist_layouts/one_segment.yaml",),
    ],
)
def test_shipped_configs_are_valid(overlays):
    check_config(load_config(*overlays))


def test_quick_leaves_the_robustness_studies_to_their_overlay():
    """quick.yaml alone runs no robustness study (they would more than double its job time); with
    quick_robustness.yaml every task's mismatch, noise and robust-pretraining studies run."""
    tasks = ["smnist", "adiac", "mackey_glass", "lorenz96"]
    quick = load_config("workflow/configs/quick.yaml")["supplementary"]
    assert quick["robustness"]["tasks"] == [] and quick["robustness"]["robust_pretraining"]["tasks"] == []
    assert quick["diagnostics"]["tasks"] == tasks
    studies = load_config("workflow/configs/quick.yaml", "workflow/configs/quick_robustness.yaml")
    robustness = studies["supplementary"]["robustness"]
    assert robustness["tasks"] == tasks and robustness["robust_pretraining"]["tasks"] == tasks
    assert studies["run"] == "quick" and len(robustness["sensor_sigmas"]) == 3


def test_paper_config_has_all_16_ron_configurations():
    config = load_config()
    cells = {(c["task"], c["ny"]) for c in config["reference"]["configs"]}
    assert cells == {(t, n) for t in config["tasks"] for n in config["dimensions"]}
    assert len(config["reference"]["configs"]) == 16


def broken(edit):
    config = copy.deepcopy(load_config())
    edit(config)
    with pytest.raises(ConfigError) as info:
        check_config(config)
    return str(info.value)


def test_unknown_task_names_key_and_allowed_values():
    message = broken(lambda c: c.update(tasks=["smnist", "cifar10"]))
    assert "tasks[1]" in message and "cifar10" in message and "mackey_glass" in message


def test_dimension_not_multiple_of_three():
    assert "dimensions[0]: 7 is not a multiple of 3" in broken(lambda c: c.update(dimensions=[7]))


def test_dimension_without_robot_layout():
    message = broken(lambda c: c.update(dimensions=[6, 18]))
    assert "dimensions[1]: ny = 18 has no robot layout" in message


def test_layout_that_does_not_realise_ny():
    message = broken(lambda c: c["robot"]["layouts"][0].update(n_pcs=3))
    assert "robot.layouts[0]" in message and "3 * n_robots * n_pcs = 9" in message


def test_simulation_step_must_divide_every_ron_step():
    # 0.004 divides 0.02 (ADIAC) but not 0.006 (sMNIST ny 6)
    message = broken(lambda c: c["simulation"].update(dt=0.004))
    assert "simulation.dt: 0.004 does not divide the RON step dt = 0.006" in message
    assert "(smnist, ny = 6)" in message and "adiac" not in message


def test_too_few_gauss_points():
    assert "robot.gauss_points: 2 is less than the minimum of 3" in broken(lambda c: c["robot"].update(gauss_points=2))


def test_unknown_robot_dynamics_names_the_allowed_ones():
    message = broken(lambda c: c["robot"].update(dynamics="warp"))
    assert "robot.dynamics: 'warp' is not allowed (allowed: physres, physres_compact, soromox)" in message


def test_unoptimized_robots_default_to_the_thesis_draw_and_the_table_is_an_overlay():
    """config.yaml draws the baseline's robots as the thesis code does (the pinning overlay changes
    nothing); previous/table_robots.yaml gives back the initialisation table per segment."""
    default = load_config()["benchmark"]["unoptimized"]
    assert default == load_config("workflow/configs/thesis_unoptimized_robots.yaml")["benchmark"]["unoptimized"]
    assert default["robot_draw"] == "shared" and default["robot_ranges"]["radius"] == [0.007, 0.05]
    table = load_config("workflow/configs/previous/table_robots.yaml")["benchmark"]["unoptimized"]
    assert (table["robot_ranges"], table["robot_draw"]) == (None, "per_segment")
    assert {k: v for k, v in table.items() if not k.startswith("robot_")} == {
        k: v for k, v in default.items() if not k.startswith("robot_")
    }


def test_smnist_layout_overlays_change_the_layouts_alone():
    """The layout test of sMNIST ny 12's baseline: paper.yaml keeps config.yaml's layouts,
    one_segment.yaml changes robot.layouts (and the run's name) and nothing else."""
    configs = {name: load_config(f"workflow/configs/smnist_layouts/{name}.yaml") for name in ("paper", "one_segment")}
    layouts = {name: {ny: robot_layout(c, ny) for ny in (6, 9, 12, 15)} for name, c in configs.items()}
    assert layouts["paper"] == {ny: robot_layout(load_config(), ny) for ny in (6, 9, 12, 15)}
    assert (layouts["paper"][6], layouts["paper"][12]) == ((1, 2), (2, 2))
    assert (layouts["one_segment"][6], layouts["one_segment"][12]) == ((2, 1), (4, 1))
    assert [c["run"] for c in configs.values()] == [f"smnist_layouts_{name}" for name in configs]

    def without_layouts(c):
        return {k: v for k, v in c.items() if k != "run"} | {"robot": c["robot"] | {"layouts": None}}

    assert without_layouts(configs["one_segment"]) == without_layouts(configs["paper"])


def test_pretraining_box_defaults_to_the_thesis_ranges_and_names_its_allowed_values():
    """config.yaml draws the datasets in one symmetric range per quantity (the thesis code's);
    previous/box_per_coordinate.yaml gives back each coordinate's interval, nothing else."""
    default = load_config()["pretraining_dataset"]
    assert default["box"] == "shared"
    previous = load_config("workflow/configs/previous/box_per_coordinate.yaml")["pretraining_dataset"]
    assert previous == default | {"box": "per_coordinate"}
    message = broken(lambda c: c["pretraining_dataset"].update(box="visited"))
    assert "pretraining_dataset.box: 'visited' is not allowed (allowed: shared, per_coordinate)" in message


def test_pretraining_batch_is_the_thesis_codes_and_the_former_one_an_overlay():
    """config.yaml trains on minibatches of 64 (the thesis code's 2**6), in jobs short enough for
    it; previous/batch_1024.yaml gives back our former batch and job length, nothing else."""
    default = load_config()["pretrain"]
    assert (default["batch_size"], default["epochs_per_job"]) == (64, 150)
    previous = load_config("workflow/configs/previous/batch_1024.yaml")["pretrain"]
    assert previous == default | {"batch_size": 1024, "epochs_per_job": 500}


def test_pretraining_keeps_the_final_model_and_the_best_on_validation_is_an_overlay():
    """config.yaml keeps each start's last model (the thesis code's); previous/keep_best_validation.yaml
    gives back the model of least validation loss, nothing else; another value names the allowed ones."""
    default = load_config()["pretrain"]
    assert default["keep"] == "final"
    previous = load_config("workflow/configs/previous/keep_best_validation.yaml")["pretrain"]
    assert previous == default | {"keep": "best_validation"}
    message = broken(lambda c: c["pretrain"].update(keep="last"))
    assert "pretrain.keep: 'last' is not allowed (allowed: final, best_validation)" in message


def test_map_bases_are_free_and_the_orthogonal_ones_an_overlay():
    default = load_config()["pretrain"]
    assert default["map_bases"] == "free"
    previous = load_config("workflow/configs/previous/orthogonal_map.yaml")["pretrain"]
    assert previous == default | {"map_bases": "orthogonal"}
    message = broken(lambda c: c["pretrain"].update(map_bases="polar"))
    assert "pretrain.map_bases: 'polar' is not allowed (allowed: free, orthogonal)" in message


def test_controller_init_scale_is_the_thesis_codes_and_plain_glorot_an_overlay():
    default = load_config()["pretrain"]
    assert default["controller_init_scale"] == 0.001
    previous = load_config("workflow/configs/previous/controller_glorot.yaml")["pretrain"]
    assert previous == default | {"controller_init_scale": 1.0, "linear_controller_init_scale": 1.0}
    assert "pretrain.controller_init_scale: 0 is less than or equal to the minimum of 0" in broken(
        lambda c: c["pretrain"].update(controller_init_scale=0)
    )


def test_linear_controller_init_scale_is_the_thesis_codes_and_the_mlps_an_overlay():
    default = load_config()["pretrain"]
    assert default["linear_controller_init_scale"] == 1e-5
    previous = load_config("workflow/configs/previous/linear_controller_scale.yaml")["pretrain"]
    assert previous == default | {"linear_controller_init_scale": 0.001}
    assert "pretrain.linear_controller_init_scale: -1 is less than or equal to the minimum of 0" in broken(
        lambda c: c["pretrain"].update(linear_controller_init_scale=-1)
    )


def test_pretraining_robots_drawn_shared_and_per_segment_an_overlay():
    default = load_config()["robot"]
    assert default["init_draw"] == "shared"
    previous = load_config("workflow/configs/previous/robot_init_per_segment.yaml")["robot"]
    assert previous == default | {"init_draw": "per_segment"}
    message = broken(lambda c: c["robot"].update(init_draw="per_robot"))
    assert "robot.init_draw: 'per_robot' is not allowed (allowed: per_segment, shared)" in message


def test_unoptimized_robot_draw_and_ranges_name_key_and_allowed_values():
    message = broken(lambda c: c["benchmark"]["unoptimized"].update(robot_draw="per_robot"))
    assert "benchmark.unoptimized.robot_draw: 'per_robot' is not allowed (allowed: per_segment, shared)" in message
    thesis = yaml.safe_load((ROOT / "workflow/configs/thesis_unoptimized_robots.yaml").read_text())
    reversed_length = thesis["benchmark"]["unoptimized"]["robot_ranges"] | {"length": [0.3, 0.07]}
    message = broken(lambda c: c["benchmark"]["unoptimized"].update(robot_ranges=reversed_length))
    assert "benchmark.unoptimized.robot_ranges.length: range [0.3, 0.07] is reversed" in message
    message = broken(lambda c: c["benchmark"]["unoptimized"].update(robot_ranges={"length": [0.07, 0.3]}))
    assert "benchmark.unoptimized.robot_ranges: 'damping_bending' is a required property" in message
    message = broken(lambda c: c["benchmark"]["unoptimized"].update(strain_scales=[1e-3, 0.1]))
    assert "benchmark.unoptimized.strain_scales" in message
    assert "robot.base_angle_deg: 270 is greater than the maximum of 180" in broken(
        lambda c: c["robot"].update(base_angle_deg=270)
    )


def test_negative_size():
    assert "data.smnist.n_train: -3 is less than the minimum of 1" in broken(
        lambda c: c["data"]["smnist"].update(n_train=-3)
    )


def test_missing_key():
    assert "reference: 'seeds' is a required property" in broken(lambda c: c["reference"].pop("seeds"))


def test_unknown_key_lists_allowed_keys():
    message = broken(lambda c: c["pretrain"].update(epoch=10))
    assert "pretrain" in message and "'epoch' was unexpected" in message and "epochs" in message


def dry_run_with(tmp_path, overlay: str) -> subprocess.CompletedProcess:
    """`snakemake -n` with one overlay config file of the given text."""
    path = tmp_path / "overlay.yaml"
    path.write_text(overlay)
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_snakemake_stops_before_any_job(tmp_path):
    result = dry_run_with(tmp_path, "dimensions: [6, 10]\n")
    assert result.returncode != 0
    assert "dimensions[1]: 10 is not a multiple of 3" in result.stdout + result.stderr
    assert "rule " not in result.stdout  # no job was even planned


def test_resources_for_an_unknown_rule_names_the_rules(tmp_path):
    """A resources entry under a name that is no rule would silently fall back to the default."""
    result = dry_run_with(tmp_path, "resources:\n  rollout: {mem_mb: 9000}\n")
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "config resources: rollout is not a rule; allowed: default, " in out and "rollout_physical" in out


def test_command_line_lists_of_numbers_are_numbers():
    """`--config 'dimensions=[6, 9]'` hands list items over as strings; the schema says ints."""
    from physres.config import coerce_numbers

    config = load_config()
    config["dimensions"] = ["6", "9"]
    config["pretrain"]["learning_rate"] = "1e-3"
    config["tasks"] = ["smnist"]
    coerced = coerce_numbers(config)
    assert coerced["dimensions"] == [6, 9] and coerced["pretrain"]["learning_rate"] == 1e-3
    assert coerced["tasks"] == ["smnist"] and coerced["data"]["smnist"]["sha256"] == config["data"]["smnist"]["sha256"]
    check_config(coerced)
    config["dimensions"] = ["six"]
    with pytest.raises(ConfigError, match="dimensions\\[0\\]: 'six' is not of type 'integer'"):
        check_config(coerce_numbers(config))


def planned_outputs(*args):
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", *args], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {
        path.strip()
        for line in out.stdout.splitlines()
        if line.strip().startswith("output:")
        for path in line.split(":", 1)[1].split(",")
    }


def test_each_scale_writes_its_own_tree():
    """A run without --configfile after a quick run plans nothing under the quick run's trees:
    every output is in results/paper/ (or the shared downloads in resources/)."""
    paper = planned_outputs()
    quick = planned_outputs("--configfile", "workflow/configs/quick.yaml")
    outside = lambda outputs, run: {p for p in outputs if not p.startswith((f"results/{run}/", "resources/"))}  # noqa: E731
    assert paper and quick and outside(paper, "paper") == set() and outside(quick, "quick") == set()
    assert {p for p in paper & quick if not p.startswith("resources/")} == set()


def test_rollout_parts_follow_chunk_size_and_chunks_per_job():
    from physres.config import rollout_chunk_size, rollout_parts, task_sequences

    paper = load_config()
    assert task_sequences(paper, "smnist") == 35000 and task_sequences(paper, "adiac") == 781
    assert task_sequences(paper, "mackey_glass") == 2 and task_sequences(paper, "lorenz96") == 256
    # paper: 18 chunks of 2000 sMNIST sequences, 1 a job; 8 chunks of 32 Lorenz96 ones, 1 a job; the rest one job
    assert (rollout_chunk_size(paper, "smnist"), rollout_parts(paper, "smnist")) == (2000, 18)
    assert (rollout_chunk_size(paper, "lorenz96"), rollout_parts(paper, "lorenz96")) == (32, 8)
    assert (rollout_chunk_size(paper, "mackey_glass"), rollout_parts(paper, "mackey_glass")) == (2, 1)
    assert rollout_parts(paper, "adiac") == 1
    # the smaller scales keep one job a variant, except smoke's sMNIST (60 sequences, 16 a chunk)
    for overlay in ("quick", "reduced"):
        config = load_config(f"workflow/configs/{overlay}.yaml")
        assert all(rollout_parts(config, task) == 1 for task in config["tasks"]), overlay
    assert rollout_parts(load_config("workflow/configs/smoke.yaml"), "smnist") == 2
    whole = load_config() | {"benchmark": load_config()["benchmark"] | {"chunk_size": 500, "chunks_per_job": None}}
    assert rollout_chunk_size(whole, "mackey_glass") == 2 and rollout_parts(whole, "smnist") == 1
    # one number for every task, or a task left out of the mapping: one job for all its chunks
    assert rollout_parts(paper | {"benchmark": paper["benchmark"] | {"chunks_per_job": 2}}, "smnist") == 9
    assert rollout_parts(paper | {"benchmark": paper["benchmark"] | {"chunks_per_job": {"adiac": 1}}}, "smnist") == 1
    message = broken(lambda c: c["benchmark"].update(chunks_per_job={"smnist": 0}))
    assert "benchmark.chunks_per_job" in message and "smnist" in message
    message = broken(lambda c: c["benchmark"].update(chunk_size={"smnist": 0}))
    assert "benchmark.chunk_size.smnist: 0 is less than the minimum of 1" in message


def test_pretraining_parts_follow_epochs_per_job():
    from physres.config import pretrain_part_ends

    paper = load_config()
    assert pretrain_part_ends(paper) == list(range(150, 1500, 150))  # 1500 epochs as ten jobs
    assert pretrain_part_ends(load_config("workflow/configs/smoke.yaml")) == [2]  # 3 epochs as two
    assert pretrain_part_ends(load_config("workflow/configs/quick.yaml")) == []  # 100 epochs: one job
    assert pretrain_part_ends(load_config("workflow/configs/reduced.yaml")) == [150, 300]  # 400: three
    unsplit = paper | {"pretrain": paper["pretrain"] | {"epochs_per_job": None}}
    assert pretrain_part_ends(unsplit) == []
    uneven = paper | {"pretrain": paper["pretrain"] | {"epochs_per_job": 400}}
    assert pretrain_part_ends(uneven) == [400, 800, 1200]  # the last job runs the remaining 300
    assert "pretrain.epochs_per_job: 0 is less than the minimum of 1" in broken(
        lambda c: c["pretrain"].update(epochs_per_job=0)
    )


def test_merged_config_merges_overlays_in_order_and_checks(tmp_path):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text("pretrain: {epochs: 700}\ndimensions: [6]\n")
    second.write_text("pretrain: {epochs: 900}\n")
    config = merged_config(ROOT / "config.yaml", [first, second])
    # nested keys merge (the rest of pretrain stays), lists are replaced, the last overlay wins
    assert config["pretrain"]["epochs"] == 900 and "controller" in config["pretrain"]
    assert config["dimensions"] == [6]
    (tmp_path / "bad.yaml").write_text("tasks: [cifar]\n")
    with pytest.raises(ConfigError, match="cifar"):
        merged_config(ROOT / "config.yaml", [tmp_path / "bad.yaml"])
    assert merged_config(ROOT / "config.yaml", [tmp_path / "bad.yaml"], check=False)["tasks"] == ["cifar"]
