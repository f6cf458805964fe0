"""tools/job_times.py sums the benchmark files of a run by rule: CPU and wall hours, the longest job by wall and CPU time."""

import pytest

from tools import job_times

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write_benchmark(folder, name, rows):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{wall}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t50.0\t{cpu}\n" for wall, cpu, rss in rows]
    path.write_text(HEADER + "".join(lines))


def test_hours_by_rule_and_the_longest_job(tmp_path, capsys):
    run = tmp_path / "benchmarks" / "r"
    write_benchmark(run, "pretrain/a_ny6_full.tsv", [(3600.0, 1800.0, 900.0)])
    write_benchmark(run, "pretrain/a_ny6_rob_fixed.tsv", [(7200.0, 3600.0, 1000.0)])
    # the longest in wall time, yet it computed less than a_ny6_rob_fixed (it waited for a core)
    write_benchmark(run, "pretrain/a_ny9_full.tsv", [(9000.0, 600.0, 800.0)])
    # a repeated benchmark: the last repeat counts
    write_benchmark(run, "rollout_physical/a_ny6_pretrained_part0.tsv", [(99.0, 99.0, 1.0), (1800.0, 1800.0, 500.0)])
    write_benchmark(run, "flops.tsv", [(36.0, 18.0, 100.0)])

    table = job_times.times_by_rule(job_times.read_job_times(run))
    assert list(table.index) == ["pretrain", "rollout_physical", "flops", "all"]  # the most CPU first
    assert table.loc["pretrain", "jobs"] == 3
    assert table.loc["pretrain", "cpu_h"] == pytest.approx(1.5 + 600 / 3600)
    assert table.loc["pretrain", "wall_h"] == pytest.approx(3.0 + 2.5)
    assert table.loc["pretrain", "longest_job"] == "pretrain/a_ny9_full"
    assert table.loc["pretrain", "longest_min"] == pytest.approx(150.0)
    assert table.loc["pretrain", "most_cpu_job"] == "pretrain/a_ny6_rob_fixed"
    assert table.loc["pretrain", "most_cpu_min"] == pytest.approx(60.0)
    assert table.loc["rollout_physical", "cpu_h"] == pytest.approx(0.5)
    assert table.loc["flops", "jobs"] == 1
    assert table.loc["all", "jobs"] == 5
    assert table.loc["all", "cpu_h"] == pytest.approx(2.005 + 600 / 3600)
    assert table.loc["all", "max_rss_mb"] == 1000.0
    assert table.loc["all", "longest_job"] == "pretrain/a_ny9_full"
    assert table.loc["all", "most_cpu_job"] == "pretrain/a_ny6_rob_fixed"

    job_times.main(["r", "--benchmarks", str(tmp_path / "benchmarks")])
    out = capsys.readouterr().out
    assert "| pretrain " in out and "pretrain/a_ny6_rob_fixed" in out

    # one row per kind of job: each training and each rollout apart
    kinds = job_times.times_by_rule(job_times.read_job_times(run), by="kind")
    assert kinds.index.name == "kind"
    assert kinds.loc["pretrain/a_ny6_rob_fixed", "cpu_h"] == pytest.approx(1.0)
    assert kinds.loc["rollout_physical/a_ny6_pretrained", "jobs"] == 1
    assert kinds.loc["flops", "jobs"] == 1
    assert kinds.loc["all", "jobs"] == 5


def test_a_run_without_benchmarks_is_an_error(tmp_path):
    with pytest.raises(SystemExit, match="no benchmark files"):
        job_times.main(["missing", "--benchmarks", str(tmp_path)])


DRY_RUN = """
rule pretrain_part:
    output: results/r/pretrain/a/ny6/full/parts/epoch1000.eqx
    benchmark: benchmarks/r/pretrain_part/a_ny6_full_epoch1000.tsv
rule pretrain:
    benchmark: benchmarks/r/pretrain/a_ny6_full.tsv
rule rollout_physical:
    benchmark: benchmarks/r/rollout_physical/a_ny6_pretrained_part1.tsv
rule rollout_physical:
    benchmark: benchmarks/r/rollout_physical/a_ny9_pretrained_part0.tsv
localrule readout:
    output: results/r/scores/a/ny6/pretrained.json
"""


def test_the_jobs_left_are_priced_by_their_own_kind_only(tmp_path, capsys):
    run = tmp_path / "benchmarks" / "r"
    # two parts of one training done (600 and 1200 CPU-s): its later parts and last job at their mean
    write_benchmark(run, "pretrain_part/a_ny6_full_epoch500.tsv", [(700.0, 600.0, 1.0)])
    write_benchmark(run, "pretrain_part/a_ny6_full_epoch0.tsv", [(1300.0, 1200.0, 1.0)])
    # another training's part: not the same kind
    write_benchmark(run, "pretrain_part/a_ny9_full_epoch500.tsv", [(1.0, 9999.0, 1.0)])
    write_benchmark(run, "rollout_physical/a_ny6_pretrained_part0.tsv", [(400.0, 360.0, 1.0)])
    done = job_times.read_job_times(run)
    assert job_times.job_kind("pretrain_part/a_ny6_full_epoch500") == "pretrain/a_ny6_full"
    assert job_times.job_kind("rollout_physical/a_ny6_pretrained_part12") == "rollout_physical/a_ny6_pretrained"

    table = job_times.left_by_rule(done, job_times.jobs_left(DRY_RUN, "r"))
    assert table.loc["pretrain_part", "jobs_left"] == 1
    assert table.loc["pretrain_part", "cpu_h_left"] == pytest.approx(900 / 3600)
    assert table.loc["pretrain", "cpu_h_left"] == pytest.approx(900 / 3600)
    # ny 9's pretrained rollout has no measured job of its kind: counted apart, not priced
    assert table.loc["rollout_physical", "jobs_left"] == 2
    assert table.loc["rollout_physical", "unmeasured"] == 1
    assert table.loc["rollout_physical", "cpu_h_left"] == pytest.approx(0.1)
    assert table.loc["all", "jobs_left"] == 4
    assert table.loc["all", "cpu_h_left"] == pytest.approx(0.6)
    # projected: ny 9's pretrained rollout at ny 9's other variants' mean, none here; so unmeasured
    assert table.loc["rollout_physical", "like_kind"] == 0
    assert table.loc["rollout_physical", "cpu_h_projected"] == pytest.approx(0.1)

    dry = tmp_path / "dry.txt"
    dry.write_text(DRY_RUN)
    job_times.main(["r", "--benchmarks", str(tmp_path / "benchmarks"), "--left", str(dry)])
    assert "Left to run" in capsys.readouterr().out


def test_the_jobs_left_are_projected_at_a_like_kind(tmp_path):
    """A training without a measured job of its own kind is projected at the mean of the same ny
    and mode on other tasks, a rollout at the same task and ny in other variants; nothing else."""
    run = tmp_path / "benchmarks" / "r"
    write_benchmark(run, "pretrain_part/a_ny9_full_epoch500.tsv", [(1.0, 1000.0, 1.0)])
    write_benchmark(run, "pretrain_part/c_ny9_full_epoch500.tsv", [(1.0, 2000.0, 1.0)])
    write_benchmark(run, "pretrain_part/a_ny9_rob_fixed_epoch500.tsv", [(1.0, 9999.0, 1.0)])  # another mode
    write_benchmark(run, "rollout_physical/a_ny9_unoptimized_part0.tsv", [(1.0, 720.0, 1.0)])
    write_benchmark(run, "rollout_physical/b_ny9_unoptimized_part0.tsv", [(1.0, 9999.0, 1.0)])  # another task
    assert job_times.like_kind("pretrain/b_ny9_full") == "pretrain/*_ny9_full"
    assert job_times.like_kind("rollout_physical/a_ny9_pretrained") == "rollout_physical/a_ny9_*"
    assert job_times.like_kind("readout/a_ny9_pretrained") is None
    left = job_times.jobs_left(
        "benchmark: benchmarks/r/pretrain_part/b_ny9_full_epoch500.tsv\n"
        "benchmark: benchmarks/r/rollout_physical/a_ny9_pretrained_part0.tsv\n"
        "benchmark: benchmarks/r/rollout_physical/d_ny9_pretrained_part0.tsv\n",
        "r",
    )
    table = job_times.left_by_rule(job_times.read_job_times(run), left)
    assert table.loc["pretrain_part", "cpu_h_left"] == 0 and table.loc["pretrain_part", "like_kind"] == 1
    assert table.loc["pretrain_part", "cpu_h_projected"] == pytest.approx(1500 / 3600)
    assert table.loc["rollout_physical", "like_kind"] == 1 and table.loc["rollout_physical", "unmeasured"] == 1
    assert table.loc["rollout_physical", "cpu_h_projected"] == pytest.approx(0.2)
