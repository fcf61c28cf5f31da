"""Provider questionnaire (issue #29.8): one sheet per provider with what the catalog does not state (or states
stale), pre-filled with what is known and its source; a filled-in copy comes back as quotes with a per-cell diff and
per-cell validation errors, and nothing is written before the user confirms."""

from __future__ import annotations

import datetime as dt
import io

import openpyxl
import pandas as pd
import pytest

from ui import questionnaire as q
from ui.quotes import with_quotes
from ui.scenario import ClientBrief

TODAY = dt.date.today()


def _catalog(store) -> pd.DataFrame:
    return with_quotes(store.list_offers(usd_per_eur=1.0), [], False)


def _answer(data: bytes, answers: dict[tuple[str, str], object]) -> bytes:
    """Fill 'your answer' for (offer id or '*', field) keys in every provider sheet."""
    book = openpyxl.load_workbook(io.BytesIO(data))
    for sheet in book.worksheets[1:]:
        for row in sheet.iter_rows(min_row=2):
            _, offer, name = str(row[0].value).split("|")
            if (offer, name) in answers:
                row[5].value = answers[(offer, name)]
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.fixture
def two_offers(store):
    catalog = _catalog(store)
    offers = catalog[catalog["provider_id"] == "nebius"].head(2)
    assert len(offers) == 2
    return catalog, list(offers["offer_id"])


def test_the_sheet_asks_what_the_catalog_does_not_state_with_what_it_knows(store):
    catalog = _catalog(store)
    brief = ClientBrief(cluster_gpus=24, horizon_months=36)
    sheets = q.questionnaires(q.offers_in_scope(catalog, catalog.iloc[0:0], ["nebius", "scaleway"]), brief)
    assert set(sheets) == {"nebius", "scaleway"}
    frame = sheets["nebius"][1]
    fields = {k.split("|")[2] for k in frame["key"]}
    assert {"quote_date", "valid_until", "price_per_gpu_hour", "capacity_gpus", "lead_time_days"} <= fields
    price = frame[frame["key"].str.endswith("|price_per_gpu_hour")].iloc[0]
    assert "24 GPUs over 36 months" in price["question"]
    assert (frame[frame["key"].str.endswith("|term_months")]["your answer"] == 36).all()  # the brief's horizon
    for r in catalog[catalog["provider_id"] == "nebius"].to_dict("records"):  # a stated, fresh fabric is not asked
        asked = f"nebius|{r['offer_id']}|inter_node" in set(frame["key"])
        assert asked == (pd.isna(r["inter_node"]) or bool(r["is_stale"]))


def test_the_workbook_holds_no_live_formula(store):
    catalog = _catalog(store)
    mine = catalog["provider_id"] == "nebius"
    catalog.loc[mine, "inter_node"] = '=HYPERLINK("http://evil.example","x")'  # a hostile value the sheet shows
    catalog.loc[mine, "is_stale"] = True
    sheets = q.questionnaires(catalog[mine], ClientBrief())
    book = openpyxl.load_workbook(io.BytesIO(q.workbook(sheets)))
    cells = [c for ws in book.worksheets for row in ws.iter_rows() for c in row if c.value is not None]
    assert not [c.coordinate for c in cells if c.data_type == "f"]
    assert any(str(c.value).startswith("'=HYPERLINK") for c in cells)  # shown as the text it is


def test_round_trip_diff_errors_per_cell_then_confirmed_save(store, two_offers):
    catalog, (first, second) = two_offers
    workspace = store.create_workspace("ACME")
    sheets = q.questionnaires(catalog[catalog["offer_id"].isin([first, second])], ClientBrief())
    filled = _answer(q.workbook(sheets), {
        ("*", "quote_date"): TODAY.isoformat(), ("*", "valid_until"): (TODAY + dt.timedelta(days=45)).isoformat(),
        ("*", "contact"): "sales@nebius.example", (first, "price_per_gpu_hour"): 2.05, (first, "capacity_gpus"): 64,
        (first, "lead_time_days"): 60, (first, "is_dedicated"): "yes",
        (second, "price_per_gpu_hour"): 2.4, (second, "capacity_gpus"): "lots"})

    def validate(quotes, labels):
        return store.validate_quotes(quotes, labels=labels)

    preview = q.preview(q.read_answers(filled), catalog, validate)
    assert len(preview.quotes) == 2 and not preview.ok
    bad = preview.diff[preview.diff["answer"] == "lots"]
    assert len(bad) == 1 and bad.iloc[0]["check"].startswith("error:")
    assert any("capacity_gpus" in e for e in preview.errors)
    assert store.list_quotes(workspace) == []  # nothing written by a preview

    fixed = _answer(filled, {(second, "capacity_gpus"): 16})
    preview = q.preview(q.read_answers(fixed), catalog, validate)
    assert preview.ok, preview.errors
    assert set(preview.diff["check"]) <= {"new", "same as the catalog", "differs from the catalog"}
    store.save_quotes(workspace, preview.quotes, labels=preview.labels)
    saved = {s.quote.offer_id: s.quote for s in store.list_quotes(workspace)}
    assert saved[first].price_per_gpu_hour == 2.05 and saved[first].capacity_gpus == 64
    assert saved[first].is_dedicated is True and saved[first].lead_time_days == 60
    assert saved[first].term_months == 36 and saved[second].capacity_gpus == 16
    assert saved[first].contact == saved[second].contact == "sales@nebius.example"  # quote-wide answers


def test_a_file_that_is_not_a_questionnaire_is_refused():
    with pytest.raises(q.QuestionnaireFormatError, match="not an Excel"):
        q.read_answers(b"PK\x03\x04 not really a zip")
    buf = io.BytesIO()
    pd.DataFrame({"a": [1]}).to_excel(buf, sheet_name="x", index=False)
    with pytest.raises(q.QuestionnaireFormatError, match="not a questionnaire sheet"):
        q.read_answers(buf.getvalue())


def test_the_pdf_has_one_page_per_provider(store):
    import shutil

    if not shutil.which("chromium"):
        pytest.skip("chromium not installed")
    from ui.exports import html_to_pdf

    catalog = _catalog(store)
    sheets = q.questionnaires(q.offers_in_scope(catalog, catalog.iloc[0:0], ["nebius", "scaleway"]), ClientBrief())
    pdf = html_to_pdf(q.questionnaire_html(sheets))
    from pypdf import PdfReader

    pages = [p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages]
    assert [i for i, t in enumerate(pages) if "Questionnaire for" in t] and pdf.startswith(b"%PDF")
    assert sum("Questionnaire for" in t for t in pages) == 2


def test_the_sheet_shows_the_hardware_the_catalog_states_with_its_source(store):
    """#29 item 2: the dedicated-hardware question carries what the offer's source states (OCI bare metal: yes, with
    the Compute Shapes crawl and its date) and 'not stated' where nothing does; the provider still confirms it."""
    catalog = _catalog(store)
    sheets = q.questionnaires(q.offers_in_scope(catalog, catalog.iloc[0:0], ["oracle", "nebius"]),
                              ClientBrief(cluster_gpus=8, horizon_months=12))
    oci = sheets["oracle"][1].set_index("key")
    bm = oci.loc["oracle|oracle-h100-sxm-bm-gpu-h100-8-all-commercial-regions|is_dedicated"]
    assert bm["catalog states"] == "yes" and "oci_doc_crawler" in bm["source and date"]
    assert bm["source and date"].endswith("2025-02-13")
    nebius = sheets["nebius"][1]
    asked = nebius[nebius["key"].str.endswith("|is_dedicated")]
    assert len(asked) and (asked["catalog states"] == "not stated").all() and (asked["source and date"] == "").all()
