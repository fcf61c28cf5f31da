"""Issue #15.5: text starting with =, +, -, @, tab or CR (from a share link or an imported catalog) never becomes
a live formula: every export neutralises it with the one helper, catalog.cells."""

import io

import openpyxl
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog.cells import TRIGGERS, neutralise, restore
from catalog.importer import export_csv, export_excel, read_table_file
from engine.placement import Workload
from ui.scenario import PlacementSection, Scenario

PAYLOADS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)",
            "\t=1+1", "\r=1+1"]


@given(st.text(max_size=40))
def test_neutralise_is_safe_and_reversible(text):
    out = neutralise(text)
    assert not str(out).startswith(TRIGGERS)
    assert restore(out) == text


def _formulas(data: bytes) -> list[str]:
    wb = openpyxl.load_workbook(io.BytesIO(data))
    return [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"]


def test_the_scenario_workbook_has_no_formula_from_a_share_link(store):
    from ui.exports import excel_workbook

    workloads = [Workload(name=p, mean_gpus=1, peak_gpus=1) for p in PAYLOADS]
    scenario = Scenario(placement=PlacementSection(workloads=workloads))
    data = excel_workbook(store, scenario, client="=cmd|' /C calc'!A0", scenario_name="@evil")
    assert _formulas(data) == []
    wb = openpyxl.load_workbook(io.BytesIO(data))
    texts = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert "'=cmd|' /C calc'!A0" in texts and "'@evil" in texts
    assert not [t for t in texts if t.startswith(TRIGGERS)]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_catalog_csv_and_excel_exports_neutralise_and_import_restores(payload):
    frame = pd.DataFrame({"offer_id": ["x"], "notes": [payload], "price": [-1.5]})
    csv = export_csv(frame).decode()
    cell = pd.read_csv(io.StringIO(csv), dtype=str, keep_default_na=False).loc[0, "notes"]
    assert cell == neutralise(payload) and cell.startswith("'")  # the CSV cell, exactly (issue #32: was an `or`)
    assert not cell.startswith(TRIGGERS)
    assert _formulas(export_excel({"offers": frame})) == []
    from catalog.importer import _cell

    back_csv = read_table_file(export_csv(frame), "x.csv")[""]
    assert _cell(back_csv.loc[0, "notes"]) == payload  # an editor's round trip is lossless
    back = read_table_file(export_excel({"offers": frame}), "x.xlsx")["offers"]
    if "\r" not in payload:  # XML (xlsx) stores a bare CR as a line feed: nothing to restore there
        assert _cell(back.loc[0, "notes"]) == payload
    assert back.loc[0, "price"] == -1.5  # numbers are not touched


def test_the_providers_page_csv_is_neutralised(catalog_path):
    """The Providers page builds its CSV and Excel with the same catalog.importer functions."""
    import inspect

    import app_pages.providers  # noqa: F401 (imported for its source only)

    source = inspect.getsource(__import__("app_pages.providers", fromlist=["x"]))
    assert "export_csv(" in source and "export_excel(" in source


# Issue #28.12: Streamlit's own table toolbar ("Download as CSV") wrote displayed cells as they are.

def test_the_table_toolbar_download_and_copy_are_off_for_every_session():
    import tomllib
    from pathlib import Path

    from streamlit import config as st_config

    root = Path(__file__).resolve().parents[2]
    client = tomllib.loads((root / ".streamlit" / "config.toml").read_text())["client"]
    assert client.get("disableDataExport") is True
    st_config.get_config_options(force_reparse=True)  # what `streamlit run` in the repo sends to each browser
    assert st_config.get_option("client.disableDataExport") is True


def test_user_text_in_displayed_tables_is_neutralised(catalog_path):
    """The placement plan shows workload names from a share link: no cell starts like a formula."""
    import base64
    import json
    import zlib

    from streamlit.testing.v1 import AppTest

    doc = {"placement": {"workloads": [{"name": p, "mean_gpus": 1, "peak_gpus": 2, "busy_hours_per_day": 12}
                                       for p in PAYLOADS[:4]]}}
    link = "v2." + base64.urlsafe_b64encode(zlib.compress(json.dumps(doc).encode(), 9)).decode().rstrip("=")
    from tests.app.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["s"] = link
    at.run()
    at.switch_page("app_pages/placement.py").run()
    assert not at.exception, at.exception
    # The plan table (the portfolio editor above it keeps the names as typed: editing needs them, and its
    # toolbar download is off by the configuration tested above).
    plan = next(d.value for d in at.dataframe if "Workload" in d.value.columns)
    cells = [v for col in plan.columns for v in plan[col] if isinstance(v, str)]
    names = [c for c in cells if "HYPERLINK" in c or "SUM(A1" in c or "cmd|" in c]
    assert len(names) >= 3, cells[:20]
    assert not [c for c in cells if c.startswith(TRIGGERS)]
    assert "'" + PAYLOADS[0] in cells
