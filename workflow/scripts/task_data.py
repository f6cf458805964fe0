"""Build results/data/{task}.h5 for one task (the rule's name says which)."""

from physres import data
from physres.io import setup_logging

log = setup_logging(snakemake.log[0])
task = snakemake.rule.removeprefix("task_data_")
p = dict(snakemake.params)
if task == "smnist":
    result = data.smnist(snakemake.input.npz, **p)
elif task == "adiac":
    result = data.adiac(snakemake.input.train, snakemake.input.test, **p)
elif task == "mackey_glass":
    result = data.mackey_glass(**p)
elif task == "lorenz96":
    result = data.lorenz96(**p)
else:
    raise ValueError(f"unknown task {task!r}")
log.info("%s: train u %s, test u %s", task, result.train.u.shape, result.test.u.shape)
data.write_task(snakemake.output.h5, result)
