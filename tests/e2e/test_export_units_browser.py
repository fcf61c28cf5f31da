"""In Debian Chromium (issue #27.1, #27.8): Workload page in Inference mode -> Workshop -> Excel and PDF. The
downloads give the inference results in its units (cost per million tokens at the set load, the brief's 60 %
since #27.3, and at the client's volume, the same figures as the page's headline) and keep the training results the page showed first."""

import io
import re

from playwright.sync_api import Page, expect

from tests.e2e.test_workshop_browser import _build_and_download, _open_export, _pdf_text


def test_inference_exports_in_its_own_units_with_the_pages_figures(page: Page, app_url: str):
    import openpyxl

    page.goto(f"{app_url}/workload")
    expect(page.get_by_role("heading", name="Workload cost")).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stMetric"]').filter(has_text="Cheapest job")).to_be_visible(timeout=60_000)
    page.get_by_role("radio", name="Inference", exact=True).click()
    full = page.locator('[data-testid="stMetric"]').filter(has_text="Per million tokens at 60% load")
    volume = page.locator('[data-testid="stMetric"]').filter(has_text="Per million tokens at your volume")
    expect(volume).to_contain_text(re.compile(r"€\d+\.\d\d"), timeout=60_000)
    at_full = re.search(r"€[\d,]+\.\d\d", full.inner_text()).group(0)
    at_volume = re.search(r"€[\d,]+\.\d\d", volume.inner_text()).group(0)
    assert at_full != at_volume

    _open_export(page)
    wb = openpyxl.load_workbook(io.BytesIO(_build_and_download(page, "xlsx")), read_only=True)
    assert {"Workload results, training", "Workload results, inference"} <= set(wb.sheetnames)
    header = next(wb["Workload results, inference"].iter_rows(values_only=True))
    assert "Cost per million tokens at 60% load (EUR)" in header and "GPUs needed" in header
    assert not [h for h in header if isinstance(h, str) and "job" in h]
    summary = {r[0]: r[1] for r in wb["Summary"].iter_rows(values_only=True)}
    assert summary["Inference: cost per million tokens at the set load"] == f"{at_full}/million tokens"
    assert summary["Inference: cost per million tokens at your volume (paid GPU-hours ÷ tokens served)"] == \
        f"{at_volume}/million tokens"

    text = _pdf_text(_build_and_download(page, "pdf"))
    assert f"Inference: cost per million tokens at the set load {at_full}/million tokens" in text
    assert f"{at_volume} per million tokens at your volume" in text
    assert "Workload cost: a training job" in text and "Workload cost: serving (inference)" in text
    assert "not stated" not in text.split("Inference: cost per million tokens at the set load", 1)[1][:40]
