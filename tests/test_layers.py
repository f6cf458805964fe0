"""The package's layers: physres imports form no cycle and stay shallow, imports sit at the top of
each module, and the rule scripts leave file formats to physres (docs/architecture.md).
`python tests/test_layers.py` prints the import graph and its layers."""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workflow/physres"
#: the longest import chain, counted in modules (pcs <- robot <- physical <- ... )
MAX_DEPTH = 5
#: no module longer than this (lines)
MAX_LINES = 500


def module_name(path: Path) -> str:
    """physres/simulate.py -> simulate; physres/tables/common.py -> tables.common."""
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def package_modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path.stem != "__init__")


def physres_imports(path: Path, top_level_only: bool) -> set[str]:
    """The physres modules a file imports (at module level only, or anywhere)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "physres":
            module = node.module.removeprefix("physres").removeprefix(".")
            found |= {module} if module else {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("physres.") for a in node.names if a.name.startswith("physres.")}
    return found - {module_name(path)}


def import_graph() -> dict[str, set[str]]:
    return {module_name(path): physres_imports(path, top_level_only=False) for path in package_modules()}


def depth(graph: dict[str, set[str]]) -> dict[str, int]:
    """1 for a module that imports no physres module, else 1 + the deepest it imports."""

    @cache
    def of(module: str) -> int:
        return 1 + max((of(dep) for dep in graph[module]), default=0)

    return {module: of(module) for module in graph}


def test_no_cycles_and_shallow():
    graph = import_graph()
    seen, stack = set(), []

    def visit(module):
        assert module not in stack, f"import cycle: {' -> '.join(stack + [module])}"
        if module in seen:
            return
        stack.append(module)
        for dep in graph[module]:
            visit(dep)
        stack.pop()
        seen.add(module)

    for module in graph:
        visit(module)
    deepest = max(depth(graph).items(), key=lambda item: item[1])
    assert deepest[1] <= MAX_DEPTH, f"{deepest[0]} sits {deepest[1]} modules deep"


def test_modules_stay_small():
    for path in package_modules():
        lines = len(path.read_text().splitlines())
        assert lines <= MAX_LINES, f"{module_name(path)} has {lines} lines"


def test_table_modules_import_no_jax():
    """A table job starts without JAX; only the FLOP table, which compiles the controllers to
    count what XLA counts, needs it."""
    for path in package_modules():
        module = module_name(path)
        if module.startswith("tables.") and module != "tables.flops":
            code = f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); import physres.{module}; print('jax' in sys.modules)"
            assert (
                subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
                == "False"
            ), module


def test_imports_at_the_top():
    for path in package_modules():
        lazy = physres_imports(path, top_level_only=False) - physres_imports(path, top_level_only=True)
        assert not lazy, f"{path.name} imports {sorted(lazy)} inside a function"


def test_scripts_leave_file_formats_to_physres():
    """No rule script opens HDF5 itself: each format's writer and reader live in one module."""
    for path in sorted((ROOT / "workflow/scripts").glob("*.py")):
        text = path.read_text()
        for call in ("h5py", "create_dataset", "atomic_h5", "read_h5("):
            assert call not in text, f"{path.name} uses {call}"


def test_scripts_read_their_params_not_the_config():
    """A script reads what its rule hands it (params), never the whole config: so Snakemake's
    params trigger sees every value a job depends on, and a rule can be run with its params alone."""
    for path in sorted((ROOT / "workflow/scripts").glob("*.py")):
        assert "snakemake.config" not in path.read_text(), f"{path.name} reads snakemake.config"


if __name__ == "__main__":
    graph, depths = import_graph(), depth(import_graph())
    for layer in range(1, max(depths.values()) + 1):
        modules = sorted(m for m, d in depths.items() if d == layer)
        print(f"layer {layer}: " + ", ".join(f"{m} ({', '.join(sorted(graph[m])) or '-'})" for m in modules))
