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
