"""A pytest plugin that writes each test's CPU seconds (this process and the subprocesses it
waited for) and wall seconds, slowest first: where the test suite's CPU goes, which decides CI's
time on 2 cores more than any one test's wall time does (docs/performance.md, CI time).

    PYTHONPATH=tools python -m pytest -n 0 -p cpu_by_test tests --deselect tests/test_workflow_smoke.py \
        --deselect tests/test_slurm.py          # writes cpu_by_test.tsv (PHYSRES_CPU_BY_TEST sets the path)

Under pytest-xdist each worker writes its own share, to the path with its name before the suffix
(cpu_by_test.gw0.tsv, ...). A process that a test started and did not wait for counts for the test
during which Python reaps it: the smoke DAG (tests/conftest.py starts it in the background) lands
on one test of the worker that started it.
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

_rows: list[tuple[float, float, str]] = []


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu_seconds(), time.perf_counter()
    yield
    _rows.append((_cpu_seconds() - cpu, time.perf_counter() - wall, item.nodeid))


def pytest_sessionfinish(session):
    path = Path(os.environ.get("PHYSRES_CPU_BY_TEST", "cpu_by_test.tsv"))
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker:  # each worker its own file: the others' rows are not this process's
        path = path.with_name(f"{path.stem}.{worker}{path.suffix}")
    with open(path, "w") as f:
        f.write("cpu_s\twall_s\ttest\n")
        for cpu, wall, nodeid in sorted(_rows, reverse=True):
            f.write(f"{cpu:.1f}\t{wall:.1f}\t{nodeid}\n")
