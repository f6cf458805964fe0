"""A pytest plugin that writes each test's CPU seconds (this process and the subprocesses it
waited for) and wall seconds, slowest first: where the test suite's CPU goes, which decides CI's
time on 2 cores more than any one test's wall time does (docs/performance.md, CI time).

    PYTHONPATH=tools python -m pytest -n 0 -p cpu_by_test tests --deselect tests/test_workflow_smoke.py \
        --deselect tests/test_slurm.py          # writes cpu_by_test.tsv (PHYSRES_CPU_BY_TEST sets the path)

Run it with -n 0: under pytest-xdist each worker would write its own share over the others'.
"""

from __future__ import annotations

import os
import resource
import time

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
    path = os.environ.get("PHYSRES_CPU_BY_TEST", "cpu_by_test.tsv")
    with open(path, "w") as f:
        f.write("cpu_s\twall_s\ttest\n")
        for cpu, wall, nodeid in sorted(_rows, reverse=True):
            f.write(f"{cpu:.1f}\t{wall:.1f}\t{nodeid}\n")
