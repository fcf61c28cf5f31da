"""Issue #28.9: a value a link can carry is always one the page's widget accepts (scenario bounds = widget
bounds, one definition), so no link makes a page crash for whoever opens it; and viewers never see a traceback."""

from __future__ import annotations

import base64
import json
import tomllib
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.workshop import ScenarioFormatError, decode_link

ROOT = Path(__file__).resolve().parents[2]

#: (page, scenario document) with a value outside the page widget's range; each was accepted by validation and
#: crashed the page (usd_per_eur: every page, through the sidebar).
OUT_OF_WIDGET_RANGE = {
    "usd_per_eur 5": ("app_pages/home.py", {"display": {"usd_per_eur": 5}}),
    "usd_per_eur 0.2": ("app_pages/providers.py", {"display": {"usd_per_eur": 0.2}}),
    "tornado 0.9": ("app_pages/tco.py", {"tco": {"tornado_pct": 0.9}}),
    "tco utilisation 0.01": ("app_pages/tco.py", {"tco": {"inputs": {"utilisation_fraction": 0.01}}}),
    "brief utilisation 0.01": ("app_pages/home.py", {"brief": {"utilisation_fraction": 0.01}}),
    "discount 0.95": ("app_pages/placement.py", {"placement": {"other_provider_discount_fraction": 0.95}}),
    "min memory 5000": ("app_pages/scoring.py", {"scoring": {"scope": {"min_memory_gb_per_gpu": 5000}}}),
    "min memory 0.5": ("app_pages/workload.py", {"workload": {"scope": {"min_memory_gb_per_gpu": 0.5}}}),
    "fit 0.01B": ("app_pages/scoring.py", {"scoring": {"scope": {"fit": {"model_params_b": 0.01}}}}),
}


def _v2_link(document: dict) -> str:
    payload = json.dumps(document, separators=(",", ":")).encode()
    return "v2." + base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


@pytest.mark.parametrize("case", list(OUT_OF_WIDGET_RANGE))
def test_a_link_value_outside_the_widget_range_is_refused_not_crashing(catalog_path, case):
    page, document = OUT_OF_WIDGET_RANGE[case]
    with pytest.raises(ScenarioFormatError):
        decode_link(_v2_link(document))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["s"] = _v2_link(document)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("share link could not be opened" in e.value for e in at.error)
    if page != "app_pages/home.py":
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]


def test_viewers_see_no_traceback():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config.get("client", {}).get("showErrorDetails") in ("none", False)


def test_a_nul_character_in_a_name_gives_a_message_on_every_backend(store):
    """PostgreSQL refuses NUL in text and the page showed a traceback; both backends refuse it with a message."""
    from catalog.errors import CatalogError

    with pytest.raises(CatalogError, match="NUL"):
        store.create_workspace("ACME\x00")
    token = store.create_workspace("ACME")
    with pytest.raises(CatalogError, match="NUL"):
        store.save_scenario("plan\x00", "{}", 2, workspace=token)
    with pytest.raises(CatalogError, match="NUL"):
        store.save_scenario("plan", "{}", 2, workspace=token, client="A\x00")
    code = store.create_group_session(token)
    with pytest.raises(CatalogError, match="NUL"):
        store.submit_vote(code, "Ann\x00", {}, voter="voter-x-0123456789abcdef")
