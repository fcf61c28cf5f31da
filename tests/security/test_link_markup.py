"""Issue #28.4: no value from a share link renders as markup. Markdown and HTML put into every text field of a
scenario (the brief's certifications, every scope's GPU models and certifications, the scoring constraints,
placement workload names and GPU models, offer ids, presets, participant names) show as the characters typed
on every page: no image is fetched, no link is clickable, no HTML is parsed."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.security.conftest import PAGES, _walk
from ui.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "![x](http://evil.example/x.png)"
LINK = "[Log in again](http://evil.example)"
HTML = "<img src=x onerror=alert(1)>"
HOSTILE = (IMAGE, LINK, HTML)
_SCOPE = {"gpu_models": list(HOSTILE)}
_RESIDENCY = {"required_certifications": list(HOSTILE)}
DOCUMENT = {
    "brief": {"required_certifications": list(HOSTILE)},
    "tco": {"on_demand_offer_id": IMAGE, "reserved_price_id": LINK, "gpu_spec_id": HTML},
    "workload": {"preset": LINK, "scope": _SCOPE, "residency": _RESIDENCY},
    "scoring": {"scope": _SCOPE, "constraints": {"required_certifications": list(HOSTILE),
                                                 "gpu_models": list(HOSTILE)},
                "group_votes": {LINK: {"price_eur_per_gpu_hour": 50}}},
    "placement": {"example": IMAGE, "scope": _SCOPE, "residency": _RESIDENCY, "workloads": [
        {"name": IMAGE, "gpu_model": LINK, "mean_gpus": 2, "peak_gpus": 4, "busy_hours_per_day": 12},
        {"name": LINK, "gpu_model": HTML, "mean_gpus": 1, "peak_gpus": 1, "may_leave_eu": False},
        {"name": HTML, "gpu_model": IMAGE, "mean_gpus": 1, "peak_gpus": 2, "busy_hours_per_day": 12}]},
}
#: The same names where every page has a result to show (plan, ranking, prices): the branches that draw results
#: name the workloads and the scope too.
PLANNABLE = {
    "brief": {"required_certifications": list(HOSTILE)},
    "workload": {"preset": LINK},
    "scoring": {"group_votes": {LINK: {"price_eur_per_gpu_hour": 50}}},
    "placement": {"example": IMAGE, "workloads": [
        {"name": IMAGE, "mean_gpus": 2, "peak_gpus": 4, "busy_hours_per_day": 12},
        {"name": LINK, "mean_gpus": 1, "peak_gpus": 1, "may_leave_eu": False},
        {"name": HTML, "mean_gpus": 0.1, "peak_gpus": 2, "busy_hours_per_day": 1}]},
}
DOCUMENTS = {"every field": DOCUMENT, "with results": PLANNABLE}
#: Markup that would be live in Markdown: an image, a link, raw HTML, a bare URL (GitHub-flavoured autolink).
_LIVE = [re.compile(r"(?<!\\)!\[[^\]]*\]\("), re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\("),
         re.compile(r"(?<!\\)<img", re.I), re.compile(r"https?://evil", re.I)]


def _v2_link(document: dict) -> str:
    payload = json.dumps(document, separators=(",", ":")).encode()
    return "v2." + base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


def _rendered_markdown(at: AppTest) -> list[str]:
    """Every string the browser renders as Markdown: markdown/caption/alert bodies, headings, and the labels and
    help texts of widgets, metrics, expanders and tabs (Streamlit renders those as Markdown too)."""
    out = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        for field in ("body", "label", "help", "title", "caption"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value:
                out.append(value)
    return out


@pytest.mark.parametrize("document", list(DOCUMENTS))
def test_the_hostile_scenarios_are_valid(document):
    Scenario.model_validate(DOCUMENTS[document])  # otherwise the link would be refused and nothing would be tested


@pytest.mark.parametrize("document", list(DOCUMENTS))
@pytest.mark.parametrize("page_path", [p for p in PAGES if not p.endswith("editor.py")])
def test_no_value_from_a_link_renders_as_markup(catalog_path, page_path, document):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["s"] = _v2_link(DOCUMENTS[document])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["scenario"] == Scenario.model_validate(DOCUMENTS[document]), [e.value for e in at.error]
    if page_path != "app_pages/home.py":
        at.switch_page(page_path).run()
        assert not at.exception, [e.value for e in at.exception]
    texts = _rendered_markdown(at)
    assert any("evil" in t for t in texts) or page_path.endswith(("providers.py", "workshop.py")), texts
    live = [t for t in texts if any(p.search(t) for p in _LIVE)]
    assert not live, live
