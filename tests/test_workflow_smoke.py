"""The whole DAG at smoke scale through snakemake, in a scratch copy of the workflow."""

import json
import re
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, markdown_cells
from conftest import SMOKE_OVERLAY as SMOKE
from conftest import run_smoke_snakemake as snakemake


@pytest.mark.smoke
def test_smoke_dag_builds_every_target(smoke_run):
    workdir, _ = smoke_run
    table = pd.read_csv(workdir / "results/smoke/tables/ron_reference.csv")
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    assert len(table) == len(config["tasks"]) * len(SMOKE["dimensions"])
    assert (table["n_seeds"] == len(SMOKE["reference"]["seeds"])).all()
    assert table["mean"].notna().all() and (table["n_diverged"] == 0).all()
    acc = table[table["metric"] == "accuracy"].set_index("task")["mean"]
    chance = {"smnist": 100 / 10, "adiac": 100 / 37}  # each task above its own chance level
    assert all(acc[task] > level for task, level in chance.items()) and (acc <= 100).all(), acc
    nrmse = table[table["metric"] == "nrmse"]["mean"]
    assert (nrmse > 0).all() and (nrmse < 1.5).all()
    for ext in ("md", "tex"):
        assert (workdir / f"results/smoke/tables/ron_reference.{ext}").stat().st_size > 100


@pytest.mark.smoke
def test_smoke_task_data_and_checksummed_sources(smoke_run):
    workdir, _ = smoke_run
    with np.load(workdir / "resources/mnist/mnist.npz") as mnist:
        assert mnist["x_train"].shape == (60000, 784) and mnist["x_test"].shape == (10000, 784)
        assert set(np.unique(mnist["y_test"])) == set(range(10))
    with h5py.File(workdir / "results/smoke/data/smnist.h5") as h5:
        steps = (28 // SMOKE["data"]["smnist"]["pool"]) ** 2
        assert h5["train/u"].shape == (SMOKE["data"]["smnist"]["n_train"], steps, 1)
        assert 0.0 <= h5["test/u"][...].min() and h5["test/u"][...].max() <= 1.0
    with h5py.File(workdir / "results/smoke/data/adiac.h5") as h5:
        adiac, steps = SMOKE["data"]["adiac"], 176 // SMOKE["data"]["adiac"]["pool"]
        assert h5["train/u"].shape == (adiac["n_train"], steps, 1) and h5["test/u"].shape == (adiac["n_test"], steps, 1)
        assert h5.attrs["n_classes"] == 37  # from both full splits, whatever the subset
    with h5py.File(workdir / "results/smoke/data/lorenz96.h5") as h5:
        lorenz = SMOKE["data"]["lorenz96"]
        assert h5["test/u"].shape == (lorenz["n_test"], lorenz["n_steps"], 5)
    with h5py.File(workdir / "results/smoke/datasets/mackey_glass/ny6.h5") as h5:
        m = SMOKE["pretraining_dataset"]["m"]
        assert [len(h5[s]["y"]) for s in ("train", "val", "test")] == [int(0.7 * m), int(0.1 * m), int(0.2 * m)]
        assert h5["train/yddot"].shape[1] == 6 and h5.attrs["seed"] == 0


@pytest.mark.smoke
def test_smoke_logs_and_rerun_is_noop(smoke_run):
    workdir, _ = smoke_run
    assert (workdir / "logs/smoke/rollout_physical/adiac_ny6_pretrained_part0.log").read_text().strip()
    assert (workdir / "benchmarks/smoke/rollout_physical/adiac_ny6_pretrained_part0.tsv").exists()
    assert "Nothing to be done" in snakemake(workdir, "-n")


def planned_jobs(dry_run: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of every job in ``snakemake -n`` output."""
    jobs = []
    for block in re.split(r"^(?=(?:local)?rule \w+:$)", dry_run, flags=re.M)[1:]:
        rule = re.match(r"(?:local)?rule (\w+):", block).group(1)
        wildcards = re.search(r"^    wildcards: (.*)$", block, re.M)
        jobs.append((rule, wildcards.group(1) if wildcards else ""))
    return jobs


@pytest.mark.smoke
def test_a_new_unoptimized_encoding_reruns_only_the_baseline(smoke_run, tmp_path):
    """Changing benchmark.unoptimized plans the unoptimized rollouts and what follows from them
    (the tuned baseline, which tunes those draws, and the studies that include the unoptimized
    reservoirs): no pretraining, no evaluation, no rollout of another variant."""
    workdir, _ = smoke_run
    overlay = tmp_path / "encoding.yaml"
    overlay.write_text("benchmark:\n  unoptimized:\n    torque_scale: 0.5\n")
    jobs = planned_jobs(snakemake(workdir, "-n", overlays=[str(overlay)]))
    rollouts = [wildcards for rule, wildcards in jobs if rule in ("rollout_physical", "gather_activations", "readout")]
    assert rollouts and all("variant=unoptimized" in wildcards for wildcards in rollouts), rollouts
    robustness = [wildcards for rule, wildcards in jobs if rule in ("robustness", "robustness_noise")]
    assert robustness and all(wildcards.endswith("variant=unoptimized") for wildcards in robustness), robustness
    planned_rules = {rule for rule, _ in jobs}
    follows = {"tune_unoptimized", "diagnostics", "diagnostics_table", "robustness", "robustness_table"}
    follows |= {"robustness_noise", "robustness_noise_table"}
    assert planned_rules <= {"rollout_physical", "gather_activations", "readout", "benchmark_tables", "all"} | follows


@pytest.mark.smoke
def test_a_failing_job_loses_nothing_already_computed(smoke_run, tmp_path):
    """A job that meets a damaged input stops, naming the file and the rule that remakes it;
    every other result is still there, byte for byte, and nothing half-written is left behind
    (outside SLURM: Snakemake on this machine, --keep-going)."""
    import shutil
    import subprocess
    import sys

    workdir, _ = smoke_run
    scratch = shutil.copytree(workdir, tmp_path / "run", symlinks=True)
    results = scratch / "results/smoke"
    damaged = results / "activations/mackey_glass/ny6/ron.h5"
    target = results / "scores/mackey_glass/ny6/ron.json"
    before = {path: path.read_bytes() for path in results.rglob("*") if path.is_file()}
    damaged.write_bytes(b"not an HDF5 file")
    cmd = [sys.executable, "-m", "snakemake", str(target.relative_to(scratch)), "--forcerun", "readout"]
    cmd += ["--keep-going", "--cores", "1", "--configfile", "workflow/configs/smoke.yaml"]
    result = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0
    log = (scratch / "logs/smoke/readout/mackey_glass_ny6_ron.log").read_text()
    assert "ron.h5: not a readable HDF5 file" in log and "'rollout_ron'" in log, log[-2000:]
    after = {path for path in results.rglob("*") if path.is_file()}
    assert not [path for path in after if path.name.endswith(".tmp")]
    for path, content in before.items():
        if path not in (damaged, target):  # Snakemake removes a job's old outputs before it runs
            assert path in after and path.read_bytes() == content, path


@pytest.mark.smoke
def test_smoke_rerun_is_bitwise_identical(smoke_run):
    """sMNIST's RON and unoptimized rollouts (two jobs) rerun in fresh processes: the same
    activations and scores, bit for bit. The pretrained reservoir's rerun is tests/test_slurm.py's
    (Mackey-Glass on SLURM against the local run)."""
    workdir, _ = smoke_run
    scores = [workdir / f"results/smoke/scores/smnist/ny6/{v}.json" for v in ("ron", "unoptimized")]
    targets = [str(s.relative_to(workdir)).replace("scores", "activations").replace(".json", ".h5") for s in scores]
    before = []
    for target in targets:
        with h5py.File(workdir / target) as h5:
            before.append(h5["seed1/test/states"][...])
    scores_before = [json.loads(s.read_text()) for s in scores]
    snakemake(workdir, *(str(s.relative_to(workdir)) for s in scores), "--forcerun", "rollout_ron", "rollout_physical")
    for target, states in zip(targets, before):
        with h5py.File(workdir / target) as h5:
            np.testing.assert_array_equal(h5["seed1/test/states"][...], states)
    assert [json.loads(s.read_text()) for s in scores] == scores_before


@pytest.mark.smoke
def test_smoke_rollout_parts_gather_to_the_unsplit_rollout(smoke_run):
    """sMNIST's physical rollouts ran as two jobs (smoke.yaml: chunks of 16, two a job); their
    gathered activations equal one rollout of all 60 sequences in the same chunks, bit for bit."""
    from physres.batching import activations
    from physres.data import read_task
    from physres.formats import read_activations
    from physres.reservoirs import load_ensemble

    workdir, _ = smoke_run
    folder = workdir / "results/smoke/activations/smnist/ny6/pretrained"
    assert sorted(p.name for p in folder.iterdir()) == ["part0.h5", "part1.h5"]
    task = read_task(workdir / "results/smoke/data/smnist.h5")
    seeds = SMOKE["pretrain"]["seeds"]
    checkpoints = [workdir / f"results/smoke/pretrain/smnist/ny6/full/seed{s}.eqx" for s in seeds]
    dt = next(c["dt"] for c in yaml.safe_load((ROOT / "config.yaml").read_text())["reference"]["configs"]
              if c["task"] == "smnist" and c["ny"] == 6)  # fmt: skip
    ensemble = load_ensemble("pretrained", checkpoints, seeds, reference_dt=dt, sim_dt=SMOKE["simulation"]["dt"],
                             divergence_bound=1e3)  # fmt: skip
    u = np.concatenate([task.train.u, task.test.u])
    unsplit, _ = activations(ensemble, u, "classification", 0, 16, "unsplit")
    gathered = list(read_activations(workdir / "results/smoke/activations/smnist/ny6/pretrained.h5", "test"))
    for i, record in enumerate(gathered):
        np.testing.assert_array_equal(np.concatenate([record.train, record.test]), unsplit[i])


@pytest.mark.smoke
def test_smoke_pretraining_outputs(smoke_run):
    workdir, _ = smoke_run
    table = pd.read_csv(workdir / "results/smoke/tables/pretraining.csv")
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    n_cells = len(config["tasks"]) * len(SMOKE["dimensions"])
    assert len(table) == n_cells * 2 * 3  # modes x metrics
    assert set(table["metric"]) == {"test_rmse", "test_rmse_norm", "trajectory_nrmse"}
    summary = pd.read_csv(workdir / "results/smoke/tables/pretraining_summary.csv")
    assert len(summary) == len(config["tasks"]) + 1  # a reduction per task and the diverged count
    assert summary["paper"].notna().all()
    assert (table["n_seeds"] == len(SMOKE["pretrain"]["seeds"])).all()
    assert table["paper_mean"].notna().all()
    for ext in ("pdf", "png"):
        assert (workdir / f"results/smoke/figures/pretraining_trajectories.{ext}").stat().st_size > 5000
        assert (workdir / f"results/smoke/figures/flops.{ext}").stat().st_size > 5000
    flops = pd.read_csv(workdir / "results/smoke/tables/flops.csv")
    assert len(flops) == len(config["tasks"]) * len(SMOKE["dimensions"]) * 3 * 3  # pipelines x parts
    # every training ran as two jobs: the part's state, then the last job went on from it
    ends = [SMOKE["pretrain"]["epochs_per_job"]]
    for mode in ("full", "rob_fixed"):
        part = f"results/smoke/pretrain/adiac/ny6/{mode}/parts/epoch{ends[0]}.eqx"
        assert (workdir / part).stat().st_size > 0
        log = (workdir / f"logs/smoke/pretrain/adiac_ny6_{mode}.log").read_text()
        assert f"continuing from {part} at epoch {ends[0]}" in log
    for mode, frozen in (("rob_fixed", True), ("full", False)):
        sidecar = json.loads((workdir / f"results/smoke/pretrain/adiac/ny6/{mode}/seed1.json").read_text())
        assert sidecar["seed"] == 1 and sidecar["mode"] == mode and "soromox" in sidecar["versions"]
        assert len(sidecar["train_loss"]) == SMOKE["pretrain"]["epochs"]
        same = np.array_equal(np.array(sidecar["theta_rob_initial"]), np.array(sidecar["theta_rob"]))
        assert same == frozen
    evaluation = json.loads((workdir / "results/smoke/pretrain/mackey_glass/ny6/full/evaluation.json").read_text())
    assert evaluation["n_steps"] == SMOKE["evaluation"]["max_steps"]
    assert [s["seed"] for s in evaluation["seeds"]] == SMOKE["pretrain"]["seeds"]
    # the per-coordinate RMSEs square-average to the overall one
    scored = [s for s in evaluation["seeds"] if s["test_rmse"] is not None]
    assert scored
    for start in scored:
        assert len(start["test_rmse_per_coordinate"]) == 6
        assert np.mean(np.square(start["test_rmse_per_coordinate"])) == pytest.approx(start["test_rmse"] ** 2, rel=1e-9)
    with h5py.File(workdir / "results/smoke/pretrain/mackey_glass/ny6/full/trajectories.h5") as h5:
        assert h5["y_hat"].shape == (2, 1, SMOKE["evaluation"]["max_steps"], 6)


@pytest.mark.smoke
def test_smoke_benchmark_tables_and_figure(smoke_run):
    workdir, _ = smoke_run
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    n_cells = len(config["tasks"]) * len(SMOKE["dimensions"])
    tuned_cells = len(SMOKE["benchmark"]["unoptimized_tuned"]["tasks"]) * len(SMOKE["dimensions"])
    benchmark = pd.read_csv(workdir / "results/smoke/tables/benchmark.csv")
    assert len(benchmark) == n_cells * 4 + tuned_cells
    assert set(benchmark["variant"]) == {"ron", "unoptimized", "partial", "pretrained", "unoptimized_tuned"}
    tuned = benchmark[benchmark["variant"] == "unoptimized_tuned"]
    assert (
        set(tuned["task"]) == set(SMOKE["benchmark"]["unoptimized_tuned"]["tasks"]) and tuned["paper_mean"].isna().all()
    )
    assert (benchmark["n_seeds"] == 2).all()
    assert benchmark.loc[benchmark.variant == "ron", "target"].notna().all()
    significance = pd.read_csv(workdir / "results/smoke/tables/significance.csv")
    assert len(significance) == n_cells * 2 + tuned_cells
    # two seeds per group: the smallest one-sided exact p-value is 1 / C(4, 2)
    assert (significance["p_value"].dropna() >= 1 / 6 - 1e-12).all()
    summary = pd.read_csv(workdir / "results/smoke/tables/summary.csv")
    assert summary["quantity"].str.contains("share of RON performance retained").any()
    for name in ("benchmark", "significance", "summary"):
        for ext in ("md", "tex"):
            assert (workdir / f"results/smoke/tables/{name}.{ext}").stat().st_size > 100
    for ext in ("pdf", "png"):
        assert (workdir / f"results/smoke/figures/scalability.{ext}").stat().st_size > 5000
    with h5py.File(workdir / "results/smoke/activations/mackey_glass/ny6/unoptimized.h5") as h5:
        assert list(h5["seeds"][...]) == SMOKE["pretrain"]["seeds"]
        states, peak = h5["seed0/train/states"][...], h5["seed0/train/peak"][...]
        assert states.shape[-1] == 6 and peak.shape == (1,)


@pytest.mark.smoke
def test_partial_tables_of_a_run_under_way(smoke_run, tmp_path, capsys):
    """tools/partial_tables.py reads the cells a run has so far: given only Mackey-Glass's files,
    it prints Mackey-Glass's rows alone, with the complete tables' numbers beside the paper's."""
    from tools import partial_tables

    workdir, _ = smoke_run
    done, under_way = workdir / "results/smoke", tmp_path / "results/smoke"
    copy_results(
        done,
        under_way,
        ["pretrain/mackey_glass/*/*/evaluation.json", "scores/mackey_glass/*/*.json", "reference/*/*/selection.json"],
    )
    partial_tables.main(["smoke", "--results", str(tmp_path / "results")])
    tables = capsys.readouterr().out.split("## Summary")[0]
    cells = {tuple(row[:4]): row[4:] for row in markdown_cells(tables)}  # (task, ny, mode or variant, metric)
    assert len(cells) == 2 * 3 + 5  # modes x metrics; ron, unoptimized, partial, pretrained, tuned
    assert {key[0] for key in cells} == {"mackey_glass"}
    pretraining = pd.read_csv(done / "tables/pretraining.csv").set_index(["task", "mode", "metric"])
    for metric in ("test_rmse", "test_rmse_norm"):  # the paper's test RMSE, both readings
        full = pretraining.loc[("mackey_glass", "full", metric)]
        assert cells[("mackey_glass", "6", "full", metric)] == [
            f"{full['mean']:.4g} ± {full['std']:.2g}",
            f"{full['paper_mean']:.4g} ± {full['paper_std']:.2g}",
        ]
    benchmark = pd.read_csv(done / "tables/benchmark.csv").set_index(["task", "variant"])
    ron = benchmark.loc[("mackey_glass", "ron")]
    assert cells[("mackey_glass", "6", "ron", "nrmse")] == [f"{ron['target']:.4g}", f"{ron['paper_mean']:.4g}"]


@pytest.mark.smoke
def test_partial_tables_leave_out_what_snakemake_would_remake(smoke_run, tmp_path, capsys):
    """Given the run's working directory, tools/partial_tables.py leaves out the scores that
    Snakemake would remake: after a change of the unoptimized encoding, exactly the scores of the
    unoptimized draws (and of the tuned baseline, which tunes them), each named with its reason;
    with nothing changed, nothing."""
    from tools import partial_tables

    workdir, _ = smoke_run
    smoke = ["--configfile", str(ROOT / "workflow/configs/smoke.yaml")]
    partial_tables.main(["smoke", "--workdir", str(workdir), *smoke])
    assert "Left out" not in capsys.readouterr().out

    overlay = tmp_path / "encoding.yaml"
    overlay.write_text("benchmark:\n  unoptimized:\n    torque_scale: 0.5\n")
    partial_tables.main(["smoke", "--workdir", str(workdir), *smoke, str(overlay)])
    out = capsys.readouterr().out
    left_out = re.findall(r"^- (\S+): (.+)$", out, flags=re.M)
    scores = sorted(p.relative_to(workdir / "results/smoke") for p in workdir.glob("results/smoke/scores/*/*/*.json"))
    unoptimized = [str(path) for path in scores if path.name.startswith("unoptimized")]
    assert sorted(path for path, _ in left_out) == unoptimized and unoptimized
    assert all(reason == "an input is to be remade" for _, reason in left_out), left_out
    table2 = out.split("## Table 2")[1].split("## Summary")[0]
    variants = {row[2] for row in markdown_cells(table2)}
    assert "unoptimized" not in variants and "pretrained" in variants


@pytest.mark.smoke
def test_job_times_count_only_the_current_dags_jobs(smoke_run, tmp_path, capsys):
    """Given the run's folder, tools/job_times.py counts only the jobs Snakemake would not remake:
    in a finished run every benchmarked job (each benchmark file is named as its job's log);
    after a change of the unoptimized encoding all but exactly the benchmarked jobs that a dry
    run plans."""
    from physres.run_status import current_jobs
    from tools import job_times

    workdir, _ = smoke_run
    smoke = [ROOT / "workflow/configs/smoke.yaml"]
    benchmarked = set(job_times.read_job_times(workdir / "benchmarks/smoke")["job"])
    assert benchmarked <= current_jobs(workdir, "smoke", smoke)

    overlay = tmp_path / "encoding.yaml"
    overlay.write_text("benchmark:\n  unoptimized:\n    torque_scale: 0.5\n")
    planned = set(job_times.jobs_left(snakemake(workdir, "-n", overlays=[str(overlay)]), "smoke")["job"])
    remade = benchmarked - current_jobs(workdir, "smoke", [*smoke, overlay])
    assert remade == planned & benchmarked and any(job.startswith("rollout_physical/") for job in remade)
    job_times.main(["smoke", "--workdir", str(workdir), "--configfile", *map(str, [*smoke, overlay])])
    assert f"{len(remade)} of {len(benchmarked)} benchmark files left out" in capsys.readouterr().out


def copy_results(done: Path, under_way: Path, patterns: list[str]) -> None:
    """Copy the files of a finished run's results that match some glob patterns into another
    results folder, as a run under way would have them so far."""
    import shutil

    for pattern in patterns:
        for path in done.glob(pattern):
            (under_way / path.relative_to(done)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, under_way / path.relative_to(done))


@pytest.mark.smoke
def test_partial_summary_of_a_run_under_way(smoke_run, tmp_path, capsys):
    """The summary of the cells done so far is the rule's own when every cell is there, and with one
    task's scores alone it averages that task's cells only (checked by hand from Table 2)."""
    from tools import partial_tables

    workdir, _ = smoke_run
    done = workdir / "results/smoke"
    benchmark = pd.read_csv(done / "tables/benchmark.csv")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())

    def summary_of(task_pattern):
        under_way = tmp_path / task_pattern.strip("*") / "smoke"
        copy_results(done, under_way, [f"scores/{task_pattern}/*/*.json", "reference/*/*/selection.json"])
        return partial_tables.partial_summary(partial_tables.scores_so_far(under_way, config), config)

    everything = summary_of("*")
    # the rule's columns; "paper, same cells" is the tool's own (tests/test_partial_tables.py)
    assert markdown_cells(everything.drop(columns="paper, same cells").to_markdown(index=False)) == markdown_cells(
        (done / "tables/summary.md").read_text()
    )

    # one task whose pretrained and RON scores exist: the share retained is its cells' alone
    wide = benchmark.assign(value=benchmark["mean"].where(benchmark["variant"] != "ron", benchmark["target"]))
    wide = wide.pivot_table(index=["task", "ny", "metric"], columns="variant", values="value").dropna(
        subset=["pretrained", "ron"]
    )
    task = wide.index[0][0]
    cells = wide.loc[task]
    share = [
        p / r if metric == "accuracy" else r / p
        for (_, metric), p, r in zip(cells.index, cells["pretrained"], cells["ron"])
    ]
    alone = summary_of(task).set_index("quantity").loc["share of RON performance retained"]
    assert alone["cells"] == len(cells)
    assert alone["value"] == f"{100 * sum(share) / len(share):.1f} %"


@pytest.mark.smoke
def test_smoke_report_has_a_front_page_and_every_table(smoke_run):
    workdir, _ = smoke_run
    snakemake(workdir, "--report", "report.html")
    page = (workdir / "report.html").read_text()
    assert "How to read the results" in page  # workflow/report/workflow.rst, the front page
    for label in (
        "RON reference",
        "Pretraining (Table 1)",
        "PRC benchmark (Table 2)",
        "Mann-Whitney p-values",
        "Digital inference FLOPs",
        "Scalability",
        "Cross-task reuse",
        "Cross-task degradation",
        "Parameter mismatch",
        "Sensor and actuation noise",
    ):
        assert label in page, label
    # captions read the run's config (the smoke overlay's 2 seeds, config.yaml's encoding)
    assert "With 2 seeds per group the smallest attainable p-value is 1/6" in page
    assert "T = 1.0 tanh(V u + d) with V = s U[0.0, 1.0]" in page and "s = [0.001, 0.1, 0.01]" in page
    table = (workdir / "results/smoke/tables/benchmark.html").read_text()
    # markdown bold (the best variant of a cell) became <b>; a bare * is a diverged run
    assert table.startswith("<!DOCTYPE html>") and "<table" in table and not re.search(r"\*\*[\d-]", table)


@pytest.mark.smoke
def test_smoke_coriolis_ablation(smoke_run):
    workdir, _ = smoke_run
    table = pd.read_csv(workdir / "results/smoke/tables/coriolis.csv")
    assert list(table["ny"]) == [6] * len(SMOKE["pretrain"]["seeds"]) and table["paper_nrmse_with"].notna().all()
    bounded = table[~table["diverged"].astype(bool)]
    assert (bounded["strain_nrmse"] >= 0).all() and (bounded["seconds_with"] > 0).all()
    assert "paper 1.63 %" in (workdir / "results/smoke/tables/coriolis.md").read_text()
    assert (workdir / "results/smoke/figures/coriolis_strains.png").stat().st_size > 5000


@pytest.mark.smoke
@pytest.mark.parametrize(
    "study, table, kinds",
    [("robustness", "robustness", ["mismatch"]), ("robustness_noise", "robustness_noise", ["sensor", "actuation"])],
)
def test_smoke_robustness_at_sigma_zero_is_the_benchmark(smoke_run, study, table, kinds):
    """The robustness studies' unperturbed runs score what the benchmark's readout scored, bit for
    bit (the same rollout, the same readout); every (perturbation, sigma > 0, draw, seed) has its
    two readouts, for every variant, the RON's noise curve and the robustly pretrained
    reservoirs included; one figure per perturbation."""
    workdir, _ = smoke_run
    r = SMOKE["supplementary"]["robustness"]
    # the noise study adds the RON under the same noise, the digital reference's curve; the
    # mismatch study the robustly pretrained reservoirs (no benchmark score to compare with)
    extra = {"robustness_noise": ["ron"], "robustness": ["pretrained_robust"]}[study]
    variants = r["variants"] + extra
    for variant in variants:
        seeds = SMOKE["reference"]["seeds"] if variant == "ron" else SMOKE["pretrain"]["seeds"]
        result = json.loads(
            (workdir / f"results/smoke/supplementary/{study}/mackey_glass/ny6/{variant}.json").read_text()
        )
        scores = workdir / f"results/smoke/scores/mackey_glass/ny6/{variant}.json"
        expected = {s["seed"]: s["value"] for s in json.loads(scores.read_text())["seeds"]} if scores.exists() else None
        for kind in kinds:
            runs = [run for run in result["runs"] if run.get("perturbation", "mismatch") == kind]
            nominal = {run["seed"]: run["nominal"]["value"] for run in runs if run["sigma"] == 0.0}
            assert nominal == expected or (expected is None and set(nominal) == set(seeds)), (variant, kind)
            perturbed = [run for run in runs if run["sigma"] > 0]
            assert len(perturbed) == len(seeds) * r["draws"] * sum(s > 0 for s in r[f"{kind}_sigmas"])
            assert all(set(run) >= {"nominal", "refit"} for run in perturbed)
    frame = pd.read_csv(workdir / f"results/smoke/tables/{table}.csv")
    assert set(frame["protocol"]) == {"nominal", "refit"} and set(frame["variant"]) == set(variants)
    assert set(frame["perturbation"]) == set(kinds)
    for kind in kinds:
        assert (workdir / f"results/smoke/figures/robustness_{kind}.png").stat().st_size > 5000


@pytest.mark.smoke
def test_smoke_reservoir_diagnostics(smoke_run):
    """Every variant and seed of the diagnosed cell has diagnostics or is marked diverged; the
    RON's capacities are within their bound n = ny, its ranks at most ny; table and figure made."""
    workdir, _ = smoke_run
    result = json.loads((workdir / "results/smoke/supplementary/diagnostics/mackey_glass/ny6.json").read_text())
    ny, d = result["ny"], SMOKE["supplementary"]["diagnostics"]
    assert set(result["variants"]) == {"ron", "unoptimized", "partial", "pretrained"}
    assert set(result["variants"]["ron"]) == {str(s) for s in SMOKE["reference"]["seeds"]}
    assert set(result["variants"]["pretrained"]) == {str(s) for s in SMOKE["pretrain"]["seeds"]}
    for seed in result["variants"]["ron"].values():
        assert not seed["diverged"] and len(seed["memory_capacity"]) == d["max_delay"] + 1
        assert 0 <= seed["memory_capacity_total"] <= seed["ipc_total"] + 1e-9 <= ny + 1e-9
        assert 1 <= seed["kernel_rank"] <= ny and 1 <= seed["generalisation_rank"] <= ny
    table = pd.read_csv(workdir / "results/smoke/tables/diagnostics.csv")
    n_diverged = sum(r["diverged"] for v in result["variants"].values() for r in v.values())
    assert table[table["metric"] == "ipc_total"]["n_diverged"].sum() == n_diverged
    assert (workdir / "results/smoke/figures/memory_capacity.png").stat().st_size > 5000


@pytest.mark.smoke
def test_smoke_simplified_controllers(smoke_run):
    """The simplified-controller study ran its own pretraining and rollouts: its checkpoints hold
    the 1 x 16 feedback controller, and its table stands beside the main runs' controllers."""
    from physres.checkpoint import load_checkpoint

    workdir, _ = smoke_run
    tasks = SMOKE["supplementary"]["simplified"]["tasks"]
    table = pd.read_csv(workdir / "results/smoke/tables/simplified_controllers.csv")
    assert set(table["task"]) == set(tasks) and set(table["controller"]) == {"full", "simplified"}
    assert set(table["quantity"]) == {"test_rmse", "trajectory_nrmse", "prc"}
    simplified = table[table["controller"] == "simplified"].set_index("quantity")
    full = table[table["controller"] == "full"].set_index("quantity")
    assert simplified.loc["prc", "flops"] < full.loc["prc", "flops"] / 10  # the paper: 1-2 orders of magnitude
    _, sidecar = load_checkpoint(
        workdir / f"results/smoke/supplementary/simplified/pretrain/{tasks[0]}/ny6/full/seed0.eqx"
    )
    assert sidecar["architecture"]["controller"] == "simplified"
    assert "(paper" in (workdir / "results/smoke/tables/simplified_controllers.md").read_text()


@pytest.mark.smoke
def test_smoke_cross_task_reuse(smoke_run):
    """The source's robots serve the target unchanged in every tuning; tuning none runs the
    source's own checkpoints; the table has every combination beside the target's own reservoir."""
    from physres.checkpoint import load_checkpoint

    workdir, _ = smoke_run
    cross = SMOKE["supplementary"]["cross_task"]
    (source,), (target,) = cross["sources"], cross["targets"]
    table = pd.read_csv(workdir / "results/smoke/tables/cross_task.csv")
    cells = set(zip(table["source"], table["target"], table["tuning"]))
    assert cells == {(source, target, t) for t in ("none", "ff", "ff_fb_map")} | {(target, target, "none")}
    assert table["n_seeds"].eq(len(SMOKE["pretrain"]["seeds"])).all() and table["paper_mean"].notna().all()
    source_model, _ = load_checkpoint(workdir / f"results/smoke/pretrain/{source}/ny6/full/seed0.eqx")
    for tuning in ("ff", "ff_fb_map"):
        path = f"results/smoke/supplementary/cross_task/{source}/{tuning}/pretrain/{target}/ny6/seed0.eqx"
        model, sidecar = load_checkpoint(workdir / path)
        assert sidecar["source"] == source and sidecar["task"] == target and sidecar["tuning"] == tuning
        np.testing.assert_array_equal(model.robots.raw, source_model.robots.raw)
        np.testing.assert_array_equal(sidecar["theta_rob"], sidecar["theta_rob_initial"])
    degradation = pd.read_csv(workdir / "results/smoke/tables/cross_task_degradation.csv")
    assert set(degradation["tuning"]) == {"none", "ff", "ff_fb_map"} and degradation["paper_text"].notna().all()
    assert "†" in (workdir / "results/smoke/tables/cross_task.md").read_text()
