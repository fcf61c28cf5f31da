"""Issue #27.14: every number in the PDF and the workbook equals the page's number for the same scenario.

One scenario is built through the pages as a consultant would (the brief's 16 GPUs, 36 months, 60 %; Rent or own on
an EU H100 offer with a typed reserved quote; Workload cost in training, then inference; Placement on the brief's
workload), each page is rendered (AppTest), then both exports are built from the session's scenario: the workbook
read back with openpyxl, the PDF's text with pypdf. Each key figure is compared with its unit.
"""

from __future__ import annotations

import io
import re

import pytest

from tests.app.conftest import open_page
from ui.scenario import widget_key

OFFER = "scaleway-h100-sxm-h100-sxm-8-80g-fr-par-2-eur"


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _metric(at, start: str) -> str:
    return next(v for k, v in _metrics(at).items() if k.startswith(start))


def _texts(at) -> str:
    return " ".join(x.value for x in [*at.markdown, *at.caption, *at.subheader]).replace("**", "")


@pytest.fixture
def built(catalog_path):
    """The pages' figures and the scenario they were built from."""
    page: dict[str, str] = {}
    at = open_page("app_pages/tco.py")
    at.selectbox(key="tco_on_demand_offer").set_value(OFFER).run()
    at.radio(key="tco_committed").set_value("quote").run()
    at.number_input(key="tco_quote_price").set_value(2.2).run()
    at.number_input(key="tco_quote_term").set_value(36).run()
    assert not at.exception
    per_hour = [re.match(r"(€[\d.,]+) per useful GPU-hour", c.value) for c in at.caption]
    per_hour = [m.group(1) for m in per_hour if m]
    assert len(per_hour) == 3, per_hour  # under each of the three totals, in their order
    for option, hourly in zip(("Rent on demand", "Rent reserved", "Own"), per_hour, strict=True):
        page[f"tco {option}"] = _metric(at, f"{option}, total over 3 years")
        page[f"tco {option} per hour"] = hourly

    at.switch_page("app_pages/workload.py").run()
    page["training cost"] = _metric(at, "Cheapest job")
    cheapest = re.search(r"Cheapest: .*? at (€[\d,]+) per job, ([\d.]+ days)", _texts(at))
    assert cheapest and cheapest.group(1) == page["training cost"]
    page["training time"] = cheapest.group(2)
    at.segmented_control(key=widget_key("wl", "mode")).set_value("inference").run()
    assert not at.exception
    page["inference at load"] = _metric(at, "Per million tokens at 60% load")
    page["inference at volume"] = _metric(at, "Per million tokens at your volume")
    page["inference per day"] = _metric(at, "Serving cost per day")

    at.switch_page("app_pages/placement.py").run()
    at.button(key="brief_apply_placement").click().run()  # plan the brief's workload, not the example
    assert not at.exception
    page["plan per month"] = _metric(at, "Plan cost per month")
    page["committed"] = _metric(at, "Committed GPUs")

    at.switch_page("app_pages/scoring.py").run()
    assert not at.exception
    ranking = next(d.value for d in at.dataframe if {"Rank", "Provider", "Region"} <= set(d.value.columns))
    page["scoring #1"] = f"{ranking.iloc[0]['Provider']} · {ranking.iloc[0]['Region']}"
    scenario = at.session_state["scenario"]
    assert scenario.tco.reserved_origin == "quote" and len(scenario.placement.workloads) == 1
    return page, scenario


def test_the_workbook_and_the_pdf_state_the_pages_figures(built, catalog_path):
    import openpyxl
    from pypdf import PdfReader

    from catalog.store import CatalogStore
    from ui.exports import excel_workbook, pdf_report

    page, scenario = built
    with CatalogStore(catalog_path) as store:
        workbook = openpyxl.load_workbook(io.BytesIO(excel_workbook(store, scenario)), read_only=True)
        pdf = pdf_report(store, scenario)
    summary = {r[0]: r[1] for r in workbook["Summary"].iter_rows(values_only=True)}
    # the workbook's summary: the page's figure and its unit
    expected = {
        "Rent on demand: total over the horizon": page["tco Rent on demand"],
        "Rent reserved: total over the horizon": page["tco Rent reserved"],
        "Own: total over the horizon (resale value credited)": page["tco Own"],
        "Rent on demand: cost per useful GPU-hour": page["tco Rent on demand per hour"] + "/GPU-h",
        "Rent reserved: cost per useful GPU-hour": page["tco Rent reserved per hour"] + "/GPU-h",
        "Own: cost per useful GPU-hour": page["tco Own per hour"] + "/GPU-h",
        "Training: cost of the job": page["training cost"] + "/job",
        "Training: time of the job": page["training time"],
        "Inference: cost per million tokens at the set load": page["inference at load"] + "/million tokens",
        "Inference: cost per million tokens at your volume (paid GPU-hours ÷ tokens served)":
            page["inference at volume"] + "/million tokens",
        "Inference: cost per day": page["inference per day"] + "/day",
        "Placement: plan cost": page["plan per month"] + "/month",
        "Placement: committed GPUs": f"{page['committed']} GPUs",
    }
    assert {k: summary.get(k) for k in expected} == expected
    top = summary["Scoring: top-ranked offer"]
    provider, _, region = top.partition(" · ")[0], None, top.rsplit(" · ", 1)[-1].split(" (")[0]
    assert provider in page["scoring #1"] and region in page["scoring #1"], (top, page["scoring #1"])

    # the workbook's numeric sheets: the same numbers, unrounded
    def first_row(sheet: str) -> dict:
        rows = list(workbook[sheet].iter_rows(values_only=True))
        return dict(zip(rows[0], rows[1], strict=True))

    def euros(text: str) -> float:
        return float(re.sub(r"[^\d.]", "", text))

    training = first_row("Workload results, training")
    assert training["Cost per job (EUR)"] == pytest.approx(euros(page["training cost"]), abs=0.5)
    inference = first_row("Workload results, inference")
    at_load = next(v for k, v in inference.items() if str(k).startswith("Cost per million tokens at 60% load"))
    assert at_load == pytest.approx(euros(page["inference at load"]), abs=0.005)
    assert inference["Cost per day (EUR)"] == pytest.approx(euros(page["inference per day"]), abs=0.5)

    # the PDF: each key result after its label, with its unit; the board summary on page 1
    pages = [re.sub(r"(\w)- (\w)", r"\1-\2", " ".join((p.extract_text() or "").split()))  # "GPU-<br>hour"
             for p in PdfReader(io.BytesIO(pdf)).pages]
    text = " ".join(pages)
    for label, value in expected.items():
        assert f"{label.split()[-1]} {value}" in text, (label, value)
    board = pages[0]
    assert f"{page['training cost']}, {page['training time']}" in board
    assert f"{page['inference at load']} at 60% load, {page['inference at volume']} at your volume" in board
    assert f"{page['plan per month']} a month" in board and f"commit {page['committed']} GPUs" in board
    assert f"{page['tco Own']}" in text and f"{page['tco Rent on demand']}" in text
