"""A physical variant's activations file from its rollout jobs' parts (physres.formats)."""

from physres.formats import gather_activation_parts, write_activations
from physres.jobs import start_job

log = start_job(snakemake)
attrs, seeds, states, peak = gather_activation_parts(list(snakemake.input.parts), snakemake.params.rollout_rule)
n_train = int(attrs.pop("n_train"))
attrs.pop("n_sequences")
rows = {"train": slice(None, n_train), "test": slice(n_train, None)}
per_split = {split: (states[:, r], peak[:, r]) for split, r in rows.items()}
write_activations(snakemake.output.h5, attrs, seeds, per_split, log)
