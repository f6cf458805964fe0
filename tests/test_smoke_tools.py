"""The analysis tools of tools/ on the finished smoke DAG's outputs. They only read the
Mackey-Glass and ADIAC cells' files, so this file can run on one pytest-xdist worker while
tests/test_workflow_smoke.py, which reruns jobs in the same folder (sMNIST's only), runs on the
other; both wait for the DAG (conftest's smoke_run) and go last (conftest's FILES_LAST)."""

import json

import numpy as np
import pytest
from conftest import ROOT, markdown_cells
from conftest import SMOKE_OVERLAY as SMOKE

pytestmark = pytest.mark.smoke


def test_closed_loop_of_a_pretrained_cell(smoke_run, capsys):
    """tools/closed_loop.py probes each start of a cell along its RON's trajectory: one row per
    start after the RON's, whose own error is 0 and whose rates are decays (the smoke RON is
    damped); a cell without checkpoints names the target that builds them."""
    from tools import closed_loop

    workdir, _ = smoke_run
    results = str(workdir / "results")
    closed_loop.main(["smoke", "mackey_glass", "6", "full", "--results", results, "--every", "50"])
    rows = [row for row in markdown_cells(capsys.readouterr().out) if row[0] != "reservoir"]
    assert [row[0] for row in rows] == ["RON"] + [f"seed {s}" for s in SMOKE["pretrain"]["seeds"]]
    assert rows[0][1] == "0" and float(rows[0][2]) < 0
    assert all(row[1].endswith("%)") for row in rows[1:])
    with pytest.raises(SystemExit):
        closed_loop.main(["smoke", "mackey_glass", "9", "full", "--results", results])
    assert "snakemake results/smoke/pretrain/mackey_glass/ny9/full/evaluation.json" in capsys.readouterr().err


def test_trajectory_inputs_of_a_pretrained_cell(smoke_run, capsys):
    """tools/trajectory_inputs.py reproduces the rule's trajectory NRMSE on the test input and
    reads the same starts under the other inputs, each with its floor."""
    from tools import trajectory_inputs

    workdir, _ = smoke_run
    trajectory_inputs.main(
        [
            "smoke",
            "mackey_glass",
            "6",
            "full",
            "--workdir",
            str(workdir),
            "--configfile",
            str(workdir / "workflow/configs/smoke.yaml"),
        ]
    )
    rows = {row[0]: row for row in markdown_cells(capsys.readouterr().out) if row[0] != "input"}
    assert list(rows) == ["test", "train", "noise", "noise_pm1", "test_thesis_grid"]
    evaluation = json.loads((workdir / "results/smoke/pretrain/mackey_glass/ny6/full/evaluation.json").read_text())
    nrmse = [s["trajectory_nrmse"] for s in evaluation["seeds"] if not s["diverged"]]
    assert float(rows["test"][3].split(" ± ")[0]) == pytest.approx(np.mean(nrmse), abs=5e-5)
    assert 0 < float(rows["test"][7]) < 1 and rows["test_thesis_grid"][7] == "-"


def test_reference_nonlinearity_of_a_cell(smoke_run, capsys):
    """tools/reference_nonlinearity.py draws the selected candidate's dataset as the rule
    pretraining_dataset does, and prints one row per candidate."""
    from physres.config import merged_config
    from physres.data import read_task
    from physres.pretraining_data import read_dataset
    from tools import reference_nonlinearity

    workdir, _ = smoke_run
    run = workdir / "results/smoke"
    overlay = workdir / "workflow/configs/smoke.yaml"
    config = merged_config(workdir / "config.yaml", [overlay])
    selected = json.loads((run / "reference/mackey_glass/ny6/selection.json").read_text())["selected_seed"]
    train_u = read_task(run / "data/mackey_glass.h5").train.u
    drawn = reference_nonlinearity.candidate_dataset(config, "mackey_glass", 6, selected, train_u)
    made = read_dataset(run / "datasets/mackey_glass/ny6.h5")
    for split in made:
        for key in made[split]:
            # to rounding: the job ran on one CPU, this process on all (XLA rounds by the CPUs it has)
            np.testing.assert_allclose(drawn[split][key], made[split][key], rtol=1e-12, atol=1e-14, err_msg=key)
    reference_nonlinearity.main(["smoke", "mackey_glass", "6", "--workdir", str(workdir), "--configfile", str(overlay)])
    cells = markdown_cells(capsys.readouterr().out)
    rows = [row for row in cells if row[0][:1].isdigit()]
    candidates = json.loads((run / "reference/mackey_glass/ny6/selection.json").read_text())["candidates"]
    assert [int(row[0].split()[0]) for row in rows] == [c["seed"] for c in candidates]
    assert [row[0] for row in rows].count(f"{selected} (selected)") == 1
    # the per-coordinate row of the pretrained reservoirs is the mean of the rule's evaluation.json
    evaluation = json.loads((run / "pretrain/mackey_glass/ny6/full/evaluation.json").read_text())
    per_start = [s["test_rmse_per_coordinate"] for s in evaluation["seeds"] if s["test_rmse_per_coordinate"]]
    pretrained = next(row for row in cells if row[0] == "pretrained")
    np.testing.assert_allclose([float(v) for v in pretrained[1:]], np.mean(per_start, axis=0), rtol=5e-3, atol=5e-4)


def test_prediction_agreement_of_a_classification_cell(smoke_run, capsys):
    """tools/prediction_agreement.py refits the readout on a run's stored activations (and the
    selected RON's, rolled out again), reproduces every score of the run, and prints one row per
    variant beside the RON draws."""
    from tools import prediction_agreement

    workdir, _ = smoke_run
    overlay = workdir / "workflow/configs/smoke.yaml"
    prediction_agreement.main(["smoke", "adiac", "6", "--workdir", str(workdir), "--configfile", str(overlay)])
    rows = {row[1]: row for row in markdown_cells(capsys.readouterr().out) if row[0] == "6"}
    assert list(rows) == ["RON draws (not the selected)", "unoptimized", "partial", "pretrained"]
    scores = workdir / "results/smoke/scores/adiac/ny6"
    for variant in ("unoptimized", "partial", "pretrained"):
        values = [s["value"] for s in json.loads((scores / f"{variant}.json").read_text())["seeds"]]
        finite = [v for v in values if v is not None]
        assert int(rows[variant][2]) == len(finite)
        assert float(rows[variant][3]) == pytest.approx(np.mean(finite), abs=0.05)
        assert all(0 <= float(v) <= 100 for v in rows[variant][4:])
    assert rows["RON draws (not the selected)"][5] == "nan"  # two RON draws: no pair of other draws
    # --variants compares only those, for a cell whose other variants are not scored yet
    prediction_agreement.main(
        ["smoke", "adiac", "6", "--workdir", str(workdir), "--configfile", str(overlay), "--variants", "pretrained"]
    )
    only = {row[1]: row for row in markdown_cells(capsys.readouterr().out) if row[0] == "6"}
    assert list(only) == ["RON draws (not the selected)", "pretrained"]
    assert only["pretrained"] == rows["pretrained"]


def test_pretrain_probe_of_a_cell(smoke_run, capsys):
    """tools/pretrain_probe.py trains a cell's starts for a few epochs from a run's RON and data,
    under overlays: the validation curve and each start's per-coordinate test RMSE."""
    from tools import pretrain_probe

    workdir, _ = smoke_run
    overlays = [
        "--configfile",
        *(str(ROOT / "workflow/configs" / f) for f in ("smoke.yaml", "previous/orthogonal_map.yaml")),
    ]
    pretrain_probe.main(
        ["smoke", "mackey_glass", "6", "full", "--epochs", "2", "--results", str(workdir / "results"), *overlays]
    )
    out = capsys.readouterr().out
    batch = SMOKE["pretrain"]["batch_size"]
    assert f"2 of {SMOKE['pretrain']['epochs']} epochs, batch {batch}, box shared, map bases orthogonal" in out
    rows = {row[0]: row[1:] for row in markdown_cells(out) if row[0] not in ("epoch", "start")}
    assert set(rows) == {"2", "kept", "labels"} | {f"seed {s}" for s in SMOKE["pretrain"]["seeds"]}
    assert len(rows["labels"]) == 6 and all(float(v) > 0 for v in rows["labels"])
