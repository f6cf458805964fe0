"""Compare two result trees file by file, for restructuring commits that must change no number:
HDF5 files dataset by dataset (bitwise, NaNs equal), JSON files value by value without the keys
that hold wall-clock seconds, dates or the commit, checkpoints' leaves byte for byte and their
header as JSON, every other file byte for byte. Prints the
files that differ or exist on one side only, then a count; exit status 1 if any differ.

    python tools/compare_trees.py before/results/smoke after/results/smoke
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import h5py
import numpy as np

# what legitimately differs between two runs of the same code: timings and provenance
VOLATILE_KEYS = {"seconds", "wall_seconds", "elapsed", "date", "commit", "device", "started", "finished"}
# measured wall-clock time is a table column there: compared only for presence
VOLATILE_FILES = ("coriolis",)
SKIPPED_SUFFIXES = (".png", ".pdf", ".log")


def h5_items(path: Path) -> dict[str, np.ndarray]:
    items = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: items.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
        for name, value in f.attrs.items():
            items[f"@{name}"] = value
    return items


def same_array(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def strip_volatile(value):
    if isinstance(value, dict):
        return {k: strip_volatile(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


def same_file(a: Path, b: Path) -> bool:
    if a.suffix == ".h5":
        items_a, items_b = h5_items(a), h5_items(b)
        return items_a.keys() == items_b.keys() and all(same_array(items_a[k], items_b[k]) for k in items_a)
    if a.suffix == ".json":
        return strip_volatile(json.loads(a.read_text())) == strip_volatile(json.loads(b.read_text()))
    if a.suffix == ".eqx":  # a checkpoint: a JSON header line (with the commit), then the leaves
        (header_a, leaves_a), (header_b, leaves_b) = (path.read_bytes().split(b"\n", 1) for path in (a, b))
        return leaves_a == leaves_b and strip_volatile(json.loads(header_a)) == strip_volatile(json.loads(header_b))
    return a.read_bytes() == b.read_bytes()


def compare(before: Path, after: Path) -> tuple[int, list[str]]:
    """(files equal, lines naming the files that differ or exist on one side only)."""
    files = lambda root: {
        p.relative_to(root) for p in root.rglob("*") if p.is_file() and p.suffix not in SKIPPED_SUFFIXES
    }
    names_before, names_after = files(before), files(after)
    lines = [f"only in {before}: {n}" for n in sorted(names_before - names_after)]
    lines += [f"only in {after}: {n}" for n in sorted(names_after - names_before)]
    equal = 0
    for name in sorted(names_before & names_after):
        if same_file(before / name, after / name):
            equal += 1
        elif any(word in str(name) for word in VOLATILE_FILES):
            lines.append(f"differs (holds measured seconds): {name}")
        else:
            lines.append(f"differs: {name}")
    return equal, lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    equal, lines = compare(args.before, args.after)
    print("\n".join(lines))
    print(f"{equal} files equal, {len(lines)} not (figures and logs not compared)")
    return int(any(not line.startswith("differs (holds") for line in lines))


if __name__ == "__main__":
    sys.exit(main())
