"""Issue #15.4: hostile share links and scenario files are refused with a message, cheaply; a saved scenario
that can no longer be computed does not take the comparison down; an editor can delete a saved scenario."""

import base64
import json
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from catalog.errors import CatalogError, CatalogPermissionError
from catalog.models import Editor, Role
from ui.scenario import MAX_WORKLOADS, Scenario
from ui.workshop import MAX_SCENARIO_BYTES, ScenarioFormatError, decode_link, encode_link, from_json, to_json

ROOT = Path(__file__).resolve().parents[2]


def _link(payload: bytes, version: int = 1) -> str:
    return f"v{version}." + base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


@pytest.mark.parametrize("text", [
    '{"tco": {"inputs": {"price_on_demand_eur_per_gpu_hour": 1e999}}}',
    '{"tco": {"inputs": {"server_capex_eur_per_gpu": Infinity}}}',
    '{"display": {"usd_per_eur": NaN}}',
    '{"scoring": {"weight_points": {"price_eur_per_gpu_hour": -Infinity}}}',
    '{"placement": {"capacity_gpus": {"x": 1e400}}}',
    '{"workload": {"tokens_per_day": 1e999}}',
])
def test_non_finite_numbers_are_refused(text):
    with pytest.raises(ScenarioFormatError, match="finite|too large|not a number"):
        from_json(text)
    with pytest.raises(ScenarioFormatError):
        decode_link(_link(text.encode()))


@pytest.mark.parametrize("section, payload", [
    ("tco.inputs", {"price_on_demand_eur_per_gpu_hour": float("inf")}),
    ("workload.training", {"n_params": float("inf"), "training_tokens": 1e9, "n_gpus": 8}),
    ("scoring.constraints", {"max_price_eur_per_gpu_hour": float("nan")}),
    ("placement.workloads", [{"name": "x", "mean_gpus": float("inf"), "peak_gpus": float("inf")}]),
])
def test_every_model_refuses_non_finite_values_even_when_built_in_python(section, payload):
    """allow_inf_nan=False on the scenario models and the engine models they embed (pydantic's default lets
    inf through a bare float field)."""
    top, _, rest = section.partition(".")
    data = {top: {rest.split(".")[0]: payload} if "." not in rest else {rest.split(".")[0]: {rest.split(".")[1]: payload}}}
    with pytest.raises(ValueError, match="finite"):
        Scenario.model_validate(data)


def test_a_small_link_that_inflates_past_the_cap_is_refused_without_inflating():
    bomb = b'{"tco": {"inputs": {}}, "pad": "' + b"A" * 50_000_000 + b'"}'
    code = _link(bomb)
    assert len(code) < 100_000  # ~50 MB of payload in a ~65 kB link
    tracemalloc.start()
    with pytest.raises(ScenarioFormatError, match="more than 1,000 kB"):
        decode_link(code)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 10 * MAX_SCENARIO_BYTES  # it stopped at the cap (the whole payload would be 50 MB)


def test_an_overlong_link_is_refused_before_decoding():
    with pytest.raises(ScenarioFormatError, match="characters long"):
        decode_link("v1." + "A" * 300_000)


@pytest.mark.parametrize("text, message", [
    (b"\xff\xfe{\x00", "not UTF-8"),
    ("[" * 100_000 + "]" * 100_000, "nests deeper"),
    ('{"version": ' + "9" * 5000 + "}", "too large"),
    ('{"tco": ', "not JSON"),
    ("x" * (MAX_SCENARIO_BYTES + 1), "larger than"),
])
def test_malformed_files_give_a_message(text, message):
    with pytest.raises(ScenarioFormatError, match=message):
        from_json(text)


def test_too_many_workloads_are_refused_quickly():
    workloads = [{"name": f"w{i}", "mean_gpus": 1, "peak_gpus": 1} for i in range(2_000)]
    code = _link(json.dumps({"placement": {"workloads": workloads}}).encode())
    start = time.perf_counter()
    with pytest.raises(ScenarioFormatError, match=f"at most {MAX_WORKLOADS}"):
        decode_link(code)
    assert time.perf_counter() - start < 5  # not a benchmark: the old path took 42 s and 1.1 GB on the page


def test_too_many_participants_in_a_scenario_are_refused():
    votes = {f"p{i}": {"price_eur_per_gpu_hour": 50} for i in range(60)}
    with pytest.raises(ScenarioFormatError, match="at most 50 participants"):
        from_json(json.dumps({"scoring": {"group_votes": votes}}))


def test_a_valid_link_still_round_trips():
    scenario = Scenario()
    assert decode_link(encode_link(scenario)) == scenario


def test_an_infinite_link_opened_in_the_app_shows_a_message_and_loads_nothing(catalog_path):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["s"] = _link(b'{"tco": {"inputs": {"price_on_demand_eur_per_gpu_hour": 1e999}}}')
    at.run()
    assert not at.exception
    assert any("share link could not be opened" in e.value for e in at.error)
    assert at.session_state["scenario"] == Scenario()


def _workspace_with(store, scenarios: dict[str, str]) -> tuple[str, dict[str, int]]:
    token = store.create_workspace("ACME")
    ids = {name: store.save_scenario(name, text, 1, workspace=token, client="ACME") for name, text in scenarios.items()}
    return token, ids


def test_a_broken_saved_scenario_is_left_out_of_the_comparison_with_a_message(store):
    """Regression: a scenario saved with price 1e999 (inf) made the comparison raise for every visitor."""
    good = to_json(Scenario())
    broken = good.replace('"price_on_demand_eur_per_gpu_hour": 4.32', '"price_on_demand_eur_per_gpu_hour": 1e999')
    assert broken != good
    token, ids = _workspace_with(store, {"good": good, "good too": good, "broken": broken})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["ws"] = token
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    at.multiselect(key="ws_compare").set_value(list(ids.values())).run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any("Left out of the comparison" in e and "broken" in e for e in errors), errors
    tables = [d.value for d in at.dataframe]
    assert any("good too" in " ".join(map(str, t.columns)) for t in tables)


def test_only_an_editor_deletes_a_saved_scenario(store):
    token, ids = _workspace_with(store, {"a": to_json(Scenario()), "b": to_json(Scenario())})
    with pytest.raises(CatalogPermissionError):
        store.delete_scenario(ids["a"], token, Editor(name="viewer", role=Role.VIEWER))
    other = store.create_workspace("Other client")
    with pytest.raises(CatalogError, match="in this workspace"):
        store.delete_scenario(ids["a"], other, Editor(name="ed", role=Role.EDITOR))
    store.delete_scenario(ids["a"], token, Editor(name="ed", role=Role.EDITOR))
    assert list(store.list_scenarios(token)["name"]) == ["b"]


def test_the_delete_button_is_shown_to_editors_only_and_deletes(store, monkeypatch):
    token, ids = _workspace_with(store, {"old": to_json(Scenario()), "keep": to_json(Scenario())})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["ws"] = token
    monkeypatch.setattr("ui.workshop_view.is_editor", lambda: False)
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not [b for b in at.button if b.key == "ws_delete"]
    monkeypatch.setattr("ui.workshop_view.is_editor", lambda: True)
    monkeypatch.setattr("ui.workshop_view.current_editor", lambda: Editor(name="ed", role=Role.EDITOR))
    at.run()
    at.selectbox(key="ws_pick").set_value(ids["old"]).run()
    at.button(key="ws_delete").click().run()
    assert not at.exception
    assert list(store.list_scenarios(token)["name"]) == ["keep"]
