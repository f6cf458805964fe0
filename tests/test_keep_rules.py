"""tools/keep_rules.py reads, per start, the epoch each rule of pretrain.keep keeps off its
validation-loss curve, and the validation loss there."""

import json

import numpy as np
import pytest

from tools import keep_rules


def test_each_rule_reads_its_epoch_off_the_curve():
    assert keep_rules.kept_epochs([3.0, 1.0, 2.0, 1.5]) == (1, 3)
    assert keep_rules.kept_epochs([3.0, 1.0, float("nan"), float("nan")]) == (1, 1)  # blew up: the last finite
    assert keep_rules.kept_epochs([float("nan")] * 3) == (-1, -1)  # failed start


def test_table_of_a_run(tmp_path, capsys):
    curves = {("adiac", 6, "full", 0): [2.0, 1.0, 1.1], ("adiac", 6, "rob_fixed", 1): [4.0, 3.0, 2.0]}
    for (task, ny, mode, seed), val in curves.items():
        folder = tmp_path / "r/pretrain" / task / f"ny{ny}" / mode
        folder.mkdir(parents=True)
        (folder / f"seed{seed}.json").write_text(json.dumps({"val_loss": val, "seed": seed}))
    table = keep_rules.keep_rules_table(tmp_path / "r").set_index(["mode", "seed"])
    assert table.loc[("full", 0), ["best_epoch", "final_epoch"]].tolist() == [1, 2]
    assert table.loc[("full", 0), "final_over_best"] == pytest.approx(1.1)
    assert table.loc[("rob_fixed", 1), "final_over_best"] == 1.0
    keep_rules.main(["r", "--results", str(tmp_path)])
    assert "2 starts (0 failed); the same epoch kept in 1" in capsys.readouterr().out
    assert np.isnan(keep_rules.keep_rules_table(tmp_path / "none").get("final_over_best", [np.nan])).all()
