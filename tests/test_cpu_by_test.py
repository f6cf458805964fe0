"""tools/cpu_by_test.py, the pytest plugin that writes each test's CPU seconds: a test's
subprocess counts for it, and under pytest-xdist each worker writes a file of its own."""

import os
import subprocess
import sys

from conftest import ROOT

BURN = """
import subprocess, sys

def test_burns_cpu_in_a_subprocess():
    subprocess.run([sys.executable, "-c", "x = 0\\nfor i in range(10**7): x += i"], check=True)

def test_sleeps():
    import time
    time.sleep(0.3)
"""


def run_with_plugin(folder, *args):
    (folder / "test_burn.py").write_text(BURN)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tools"), "PHYSRES_CPU_BY_TEST": str(folder / "cpu.tsv")}
    cmd = [sys.executable, "-m", "pytest", "-p", "cpu_by_test", "-p", "no:cacheprovider", "-q", "-o", "addopts="]
    subprocess.run([*cmd, *args, "test_burn.py"], cwd=folder, env=env, check=True, capture_output=True)


def read_rows(path):
    lines = path.read_text().splitlines()
    assert lines[0] == "cpu_s\twall_s\ttest"
    return {test: (float(cpu), float(wall)) for cpu, wall, test in (line.split("\t") for line in lines[1:])}


def test_a_tests_subprocess_counts_for_it_and_sleeping_does_not(tmp_path):
    run_with_plugin(tmp_path)
    rows = read_rows(tmp_path / "cpu.tsv")
    burn, sleep = rows["test_burn.py::test_burns_cpu_in_a_subprocess"], rows["test_burn.py::test_sleeps"]
    assert burn[0] > 0.2 and sleep[0] < 0.1 < sleep[1]
    assert list(rows) == sorted(rows, key=lambda test: -rows[test][0])  # the most CPU first


def test_each_xdist_worker_writes_its_own_file(tmp_path):
    run_with_plugin(tmp_path, "-n", "2", "--dist", "load")
    files = sorted(path.name for path in tmp_path.glob("cpu.*.tsv"))
    assert files == ["cpu.gw0.tsv", "cpu.gw1.tsv"]
    tests = [test for name in files for test in read_rows(tmp_path / name)]
    assert sorted(tests) == ["test_burn.py::test_burns_cpu_in_a_subprocess", "test_burn.py::test_sleeps"]
