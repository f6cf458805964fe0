"""tools/partial_tables.py's grid of Table 2: a row per (task, ny), a column per variant."""

import pandas as pd

from tools.partial_tables import benchmark_grid


def test_the_grid_holds_every_cell_once_in_the_papers_order():
    long = pd.DataFrame(
        {
            "task": ["mackey_glass"] * 3 + ["adiac"] * 2,
            "ny": [6, 6, 6, 9, 9],
            "variant": ["pretrained", "unoptimized_tuned", "ron", "unoptimized", "ron"],
            "metric": ["nrmse"] * 3 + ["accuracy"] * 2,
            "ours": ["0.5", "0.6", "0.4", "30.1 ± 2*", "50.2"],
            "paper": ["0.52 ± 0.003", "-", "0.51", "38.57 ± 3.2", "53.2"],
        }
    )
    grid = benchmark_grid(long)
    assert list(grid.columns) == ["task", "ny", "ron", "unoptimized", "pretrained", "unoptimized_tuned"]
    assert list(zip(grid["task"], grid["ny"])) == [("mackey_glass", 6), ("adiac", 9)]  # the rows' order kept
    first, second = grid.iloc[0], grid.iloc[1]
    assert first["ron"] == "0.4 (0.51)" and first["pretrained"] == "0.5 (0.52 ± 0.003)"
    assert first["unoptimized"] == "" and first["unoptimized_tuned"] == "0.6 (-)"
    assert second["unoptimized"] == "30.1 ± 2* (38.57 ± 3.2)" and second["pretrained"] == ""
    assert benchmark_grid(None) is None
