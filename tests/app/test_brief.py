"""The client brief (issue #14 item 6): set once on Home, applied by every page, overrides shown, part of the
scenario (saved and shared)."""

import pytest
from pydantic import ValidationError

from tests.app.conftest import open_page
from ui.brief import (
    apply_brief,
    placement_differences,
    scoring_differences,
    summary,
    tco_differences,
    workload_differences,
)
from ui.scenario import ClientBrief, Scenario, widget_key
from ui.workshop import decode_link, encode_link


def test_default_scenario_agrees_with_the_default_brief():
    # Placement opens on a built-in example portfolio and says so in its banner (issue #27.3); every other page
    # follows the default brief.
    scenario = Scenario()
    assert apply_brief(scenario, scenario.brief, ("tco", "scoring", "workload", "providers")) == scenario
    for differences in (tco_differences, scoring_differences, workload_differences):
        assert differences(scenario) == [], differences.__name__
    example, gpu_class = placement_differences(scenario)
    assert (example.label, example.page_value) == ("workloads", "the built-in example 'EU fintech'")
    assert (gpu_class.label, gpu_class.page_value) == ("GPU class", "Any GPU")  # the example names its own models
    assert placement_differences(apply_brief(scenario, scenario.brief)) == []


def test_applying_a_brief_sets_every_wired_page():
    brief = ClientBrief(cluster_gpus=64, horizon_months=24, utilisation_fraction=0.8, eu_jurisdiction_only=True,
                        required_certifications=("BSI-C5",))
    scenario = apply_brief(Scenario(), brief)
    inputs = scenario.tco.inputs
    assert (inputs.cluster_gpus, inputs.horizon_months, inputs.utilisation_fraction) == (64, 24, 0.8)
    c = scenario.scoring.constraints
    assert (c.eu_resident_only, c.eu_jurisdiction_only, c.required_certifications) == (True, True, ("BSI-C5",))
    assert scenario.scoring.scope.fit.n_gpus == 64 and scenario.scoring.scope.gpu_models == ("H100", "H100 NVL", "H200")
    assert scenario.workload.training.n_gpus == 64
    for section in (scenario.workload, scenario.placement):
        r = section.residency
        assert (r.eu_resident_only, r.eu_jurisdiction_only, r.required_certifications) == (True, True, ("BSI-C5",))
    assert scenario.workload.scope.gpu_models == ("H100", "H100 NVL", "H200")
    assert scenario.brief == brief


def test_a_page_that_differs_lists_each_difference():
    scenario = Scenario()
    changed = scenario.model_copy(update={"tco": scenario.tco.model_copy(update={
        "inputs": scenario.tco.inputs.model_copy(update={"horizon_months": 60})})})
    (diff,) = tco_differences(changed)
    assert (diff.label, diff.page_value, diff.brief_value) == ("horizon", "60 months", "36 months")


def test_brief_is_part_of_the_share_link():
    scenario = apply_brief(Scenario(), ClientBrief(gpu_class="B200 / B300", cluster_gpus=128))
    back = decode_link(encode_link(scenario))
    assert back.brief == scenario.brief and back.tco.inputs.cluster_gpus == 128


def test_bad_briefs_are_refused():
    with pytest.raises(ValidationError):
        ClientBrief(gpu_class="GPU of the future")
    with pytest.raises(ValidationError):
        ClientBrief(utilisation_fraction=float("inf"))
    with pytest.raises(ValidationError):
        ClientBrief(cluster_gpus=0)


def test_summary_names_what_the_client_asked_for():
    text = summary(ClientBrief(required_certifications=("BSI-C5", "ISO27001")))
    assert text.startswith("H100 / H200 · 70B model · 16 GPUs · 36 months · 60% utilisation · EU data centre")
    assert "BSI-C5 + ISO27001" in text


def test_home_form_applies_the_brief_to_tco_scoring_and_providers(catalog_path):
    at = open_page("app_pages/home.py")
    form_gpus = next(n for n in at.number_input if n.label == "GPUs in the cluster")
    form_gpus.set_value(32)
    next(n for n in at.number_input if n.label == "Horizon (months)").set_value(24)
    next(t for t in at.toggle if t.label == "EU parent company required").set_value(True)
    at.button[0].click()  # the form's submit button
    at.run()
    assert not at.exception
    scenario = at.session_state["scenario"]
    assert (scenario.brief.cluster_gpus, scenario.brief.horizon_months, scenario.brief.eu_jurisdiction_only) == (32, 24, True)
    assert (scenario.tco.inputs.cluster_gpus, scenario.tco.inputs.horizon_months) == (32, 24)
    assert scenario.scoring.constraints.eu_jurisdiction_only

    at.switch_page("app_pages/tco.py").run()
    assert at.number_input(key="_tco_cluster_gpus").value == 32
    assert at.subheader[0].value.startswith("Over 2 years at 60% utilisation")

    at.switch_page("app_pages/workload.py").run()
    assert not at.exception
    assert at.number_input(key=widget_key("wl", "training.n_gpus")).value == 32
    assert at.session_state["scenario"].workload.residency.eu_jurisdiction_only
    assert any("this page follows it" in c.value for c in at.caption)

    at.switch_page("app_pages/providers.py").run()
    assert at.multiselect(key="prov_gpu").value == ["H100", "H100 NVL", "H200"]
    assert at.toggle(key="prov_eu").value is True
    assert at.multiselect(key="prov_jur").value == ["EU"]
    assert any("this page follows it" in c.value for c in at.caption)


def test_a_page_override_is_shown_and_the_brief_can_be_reapplied(catalog_path):
    at = open_page("app_pages/tco.py")
    at.number_input(key="_tco_horizon_months").set_value(60).run()
    banner = " ".join(c.value for c in at.caption if "Client brief" in c.value)
    assert "This page differs:** horizon 60 months (brief: 36 months)" in banner
    assert at.subheader[0].value.startswith("Over 5 years")
    at.button(key="brief_apply_tco").click().run()
    assert at.number_input(key="_tco_horizon_months").value == 36
    assert at.subheader[0].value.startswith("Over 3 years")
    assert any("this page follows it" in c.value for c in at.caption)


def test_the_brief_offers_national_certification_schemes(catalog_path):
    # Issue #18: BSI C5, SecNumCloud, ENS and HDS are selectable even where no provider's scope covers them.
    at = open_page("app_pages/home.py")
    picker = next(m for m in at.multiselect if m.label == "Required certifications")
    assert {"BSI-C5", "SecNumCloud", "ENS", "HDS", "ISO27001"} <= set(picker.options)
