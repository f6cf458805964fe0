"""Memory capacity, IPC, kernel and generalisation rank of one (task, ny)'s RON and physical
variants, every seed, on one common input (physres.diagnostics)."""

import numpy as np
from tqdm import tqdm

from physres.data import read_task
from physres.diagnostics import channel_range, diagnose, diagnostic_inputs
from physres.io import write_json
from physres.jobs import start_job
from physres.reservoirs import load_ensemble
from physres.seeding import rng_for

log = start_job(snakemake)
wc, p, inputs = snakemake.wildcards, snakemake.params, snakemake.input
d = p.diagnostics
lo, hi = channel_range(read_task(inputs.data).train.u)
signal = diagnostic_inputs(
    rng_for(d["seed"], "diagnostics", wc.task, int(wc.ny)),
    lo,
    hi,
    d["washout"] + d["steps"],
    d["rank_streams"],
    d["rank_steps"],
    d["generalisation_noise"],
)
physical = dict(architecture=p.architecture, unoptimized=p.unoptimized, task=wc.task, **p.simulation)
files = {"ron": inputs.ron, "unoptimized": [], "partial": inputs.partial, "pretrained": inputs.pretrained}
results = {}
for variant in tqdm(p.variants, desc=f"diagnostics {wc.task} ny={wc.ny}", unit="variant"):
    seeds = p.ron_seeds if variant == "ron" else p.seeds
    ensemble = load_ensemble(variant, list(files[variant]), seeds, **({} if variant == "ron" else physical))
    states, _ = ensemble.all_states(signal.u)  # (S, 1, T, ny)
    stream_finals, _ = ensemble.final_states(signal.streams)  # (S, n_streams, ny)
    copy_finals, _ = ensemble.final_states(signal.copies)
    results[variant] = {
        str(seed): diagnose(
            states[i, 0],
            signal.s,
            stream_finals[i],
            copy_finals[i],
            washout=d["washout"],
            max_delay=d["max_delay"],
            ipc_max_delays=d["ipc_max_delays"],
            threshold=d["threshold"],
            rank_rtol=d["rank_rtol"],
        )
        for i, seed in enumerate(seeds)
    }
    diverged = [seed for seed, r in results[variant].items() if r["diverged"]]
    totals = [r["memory_capacity_total"] for r in results[variant].values() if not r["diverged"]]
    log.info(
        "%s: memory capacity %s, diverged seeds %s",
        variant,
        f"{np.mean(totals):.2f} (mean of {len(totals)})" if totals else "none",
        diverged or "none",
    )
write_json(
    snakemake.output.json,
    {"task": wc.task, "ny": int(wc.ny), "config": d, "input_range": [lo, hi], "variants": results},
)
