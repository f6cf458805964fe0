# Snippet to merge into tests/conftest.py (kept as a separate file on purpose: I do not
# own conftest.py / pyproject.toml). It registers the `slurm` marker without touching
# any existing marker configuration: pytest_configure hooks from several plugins and
# conftest files all run, and addinivalue_line *appends* to the `markers` ini value,
# so this cannot conflict with markers declared in pyproject.toml.
#
# Equivalent pyproject.toml form (use ONE of the two, not both):
#   [tool.pytest.ini_options]
#   markers = [
#       "slurm: starts a real single-node SLURM cluster (root, Debian, apt); slow, ~1 min",
#   ]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slurm: starts a real single-node SLURM cluster (needs root and apt on "
        "Debian/Ubuntu; ~1 min). Select with `-m slurm`, exclude with `-m 'not slurm'`.",
    )
