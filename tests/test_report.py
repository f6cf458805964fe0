"""The report's front page (workflow/report/workflow.rst) describes what the run ran."""

from types import SimpleNamespace

import jinja2
from conftest import ROOT, load_config


def front_page(config) -> str:
    """The report's front page as Snakemake renders it (Jinja2 with the run's config)."""
    template = jinja2.Template((ROOT / "workflow/report/workflow.rst").read_text())
    return template.render(snakemake=SimpleNamespace(config=config))


def test_report_front_page_names_only_what_the_run_ran():
    paper, reduced = front_page(load_config()), front_page(load_config("workflow/configs/reduced.yaml"))
    assert "cross-task reuse" in paper and "cross-task reuse" not in reduced  # reduced has no sources
    assert "Coriolis ablation" in reduced and "simplified controllers" in reduced
    assert "sensor and actuation noise" in reduced
    # the studies beyond the paper are off at paper scale (config.yaml), on in the overlays
    assert "Beyond the paper" not in paper and "Beyond the paper" in reduced
    quiet = load_config("workflow/configs/reduced.yaml")
    quiet["supplementary"]["robustness"].update(sensor_sigmas=[0.0], actuation_sigmas=[0.0])
    assert "parameter mismatch" in front_page(quiet) and "sensor and actuation noise" not in front_page(quiet)
    nothing = load_config()
    nothing["supplementary"]["simplified"]["tasks"] = []
    nothing["supplementary"]["robustness"]["tasks"] = []
    nothing["supplementary"]["diagnostics"]["tasks"] = []
    nothing["benchmark"]["unoptimized_tuned"]["tasks"] = []
    nothing["supplementary"]["coriolis"]["task"] = "none"
    page = front_page(nothing)
    assert "simplified controllers" not in page and "Coriolis" not in page and "Beyond the paper" not in page
