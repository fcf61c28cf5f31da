"""AppTest of the Catalog editor: sign-in gates editing, edits save as validated change sets, history restores."""

from pathlib import Path

import bcrypt
import pytest
from streamlit.testing.v1 import AppTest

from catalog.store import CatalogStore

ROOT = Path(__file__).resolve().parents[2]
PRICE_ID = "scaleway-h100-pcie-h100-1-80g-fr-par-2-eur:on-demand::2026-09-27"
HASH = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()
NEW_SOURCE = {"source_url": "https://www.scaleway.com/en/pricing/gpu/", "retrieved_at": "2026-12-01"}


def editor_page(secrets: dict | None = None, user: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in (secrets or {}).items():
        at.secrets[k] = v
    if user is not None:
        at.user = user
    at.run()
    at.switch_page("app_pages/editor.py").run()
    return at


def sign_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input[0].set_value(name)
    at.text_input[1].set_value(password)
    at.button[0].click().run()
    return at


def test_without_sign_in_the_catalog_is_read_only(catalog_path):
    at = editor_page()
    assert not at.exception
    assert any("Read-only" in i.value for i in at.info)
    assert not [b for b in at.button if b.label == "Save changes"]


def test_password_sign_in_gates_editing(catalog_path):
    at = editor_page({"local_users": {"alice": {"password_hash": HASH, "role": "editor"}}})
    assert not [b for b in at.button if b.label == "Save changes"]
    sign_in(at, "alice", "wrong")
    assert any("wrong password" in e.value for e in at.error)
    sign_in(at, "alice", "s3cret")
    assert any("Signed in as **alice** (editor)" in c.value for c in at.caption)
    assert [b for b in at.button if b.label == "Save changes"]


def test_oidc_non_editor_sees_read_only(catalog_path):
    secrets = {"auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 20,
                        "client_id": "c", "client_secret": "s",
                        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"},
               "editors": {"emails": ["ed@example.com"]}}
    viewer = editor_page(secrets, {"is_logged_in": True, "email": "bob@example.com"})
    assert any("is a viewer" in i.value for i in viewer.info)
    assert not [b for b in viewer.button if b.label == "Save changes"]
    editor = editor_page(secrets, {"is_logged_in": True, "email": "ed@example.com", "email_verified": True})
    assert [b for b in editor.button if b.label == "Save changes"]


@pytest.fixture
def signed_in(catalog_path):
    return sign_in(editor_page({"local_users": {"alice": {"password_hash": HASH, "role": "editor"}}}), "alice", "s3cret")


def _row_index(catalog_path, table, key):
    table_key = {"prices": "price_id", "providers": "provider_id", "provider_facts": "fact_id"}[table]
    with CatalogStore(catalog_path) as s:
        return int(s.editable_rows(table).reset_index(drop=True).query(f"{table_key} == @key").index[0])


def test_a_price_edit_saves_as_a_new_price_and_keeps_the_old(signed_in, catalog_path):
    at = signed_in
    idx = _row_index(catalog_path, "prices", PRICE_ID)
    at.session_state["ed_prices"] = {"edited_rows": {idx: {"amount_per_gpu_hour": 2.55, **NEW_SOURCE}}, "added_rows": [],
                                     "deleted_rows": []}
    at.text_input(key="ed_msg_prices").set_value("Scaleway list price checked 2026-12-01")
    at.button(key="ed_save_prices").click().run()
    assert any("Saved change set #1" in s.value for s in at.success), [e.value for e in at.error]
    with CatalogStore(catalog_path) as s:
        prices = s.list_prices(current_only=False).query("offer_id == 'scaleway-h100-pcie-h100-1-80g-fr-par-2-eur'")
        assert sorted(prices.amount_per_gpu_hour) == [2.55, 2.87]
        old = prices[prices.amount_per_gpu_hour == 2.87].iloc[0]
        assert old.valid_to is not None and not (old.valid_to != old.valid_to)  # closed, not deleted
        assert s.change_sets(include_private=True).iloc[0]["editor"] == "alice"


def test_an_invalid_cell_blocks_the_save_with_row_column_reason(signed_in, catalog_path):
    at = signed_in
    idx = _row_index(catalog_path, "prices", PRICE_ID)
    at.session_state["ed_prices"] = {"edited_rows": {idx: {"currency": "GBP", **NEW_SOURCE}}, "added_rows": [], "deleted_rows": []}
    at.text_input(key="ed_msg_prices").set_value("typo")
    at.button(key="ed_save_prices").click().run()
    assert any("Nothing was saved" in e.value for e in at.error)
    problems = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert "currency" in set(problems["column"]) and problems["reason"].str.contains("EUR").any()


def test_save_needs_a_message(signed_in, catalog_path):
    at = signed_in
    idx = _row_index(catalog_path, "prices", PRICE_ID)
    at.session_state["ed_prices"] = {"edited_rows": {idx: {"amount_per_gpu_hour": 2.5, **NEW_SOURCE}}, "added_rows": [],
                                     "deleted_rows": []}
    at.button(key="ed_save_prices").click().run()
    assert any("Say what changed and why" in e.value for e in at.error)


def test_a_new_amount_without_its_own_source_and_date_is_refused(signed_in, catalog_path):
    """#15.8: a changed (or zero) price kept the old row's source URL and date (false provenance)."""
    at = signed_in
    with CatalogStore(catalog_path) as s:
        checksum = s.content_checksum()
    idx = _row_index(catalog_path, "prices", PRICE_ID)
    at.session_state["ed_prices"] = {"edited_rows": {idx: {"amount_per_gpu_hour": 1.99}}, "added_rows": [],
                                     "deleted_rows": []}
    at.text_input(key="ed_msg_prices").set_value("cheaper")
    at.button(key="ed_save_prices").click().run()
    assert any("needs its own source" in e.value for e in at.error)
    at.session_state["ed_prices"] = {"edited_rows": {idx: {"amount_per_gpu_hour": 0, **NEW_SOURCE}}, "added_rows": [],
                                     "deleted_rows": []}
    at.button(key="ed_save_prices").click().run()
    problems = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert "amount_per_gpu_hour" in set(problems["column"])
    with CatalogStore(catalog_path) as s:
        assert s.content_checksum() == checksum


def test_three_price_edits_of_one_row_on_one_day_all_save(catalog_path):
    import datetime as dt

    from catalog.models import ChangeSet, Editor
    from ui.editor_view import changes_from_editor

    alice = Editor(name="alice", role="editor")
    with CatalogStore(catalog_path) as s:
        for i, amount in enumerate([2.5, 2.4, 2.3]):
            current = s.editable_rows("prices").reset_index(drop=True)
            idx = int(current.query("offer_id == 'scaleway-h100-pcie-h100-1-80g-fr-par-2-eur'").index[0])
            taken = set(s.editable_rows("prices", current_only=False).price_id)
            changes = changes_from_editor("prices", current, {"edited_rows": {idx: {"amount_per_gpu_hour": amount,
                                                                                     **NEW_SOURCE}}},
                                          today=dt.date(2026, 12, 2), taken_ids=taken)
            s.apply_changes(ChangeSet(changes=changes, message=f"edit {i}"), alice)
        history = s.list_prices(current_only=False).query("offer_id == 'scaleway-h100-pcie-h100-1-80g-fr-par-2-eur'")
        assert sorted(history.amount_per_gpu_hour) == [2.3, 2.4, 2.5, 2.87]


def test_a_certification_fact_edit_in_the_editor_updates_the_provider(signed_in, catalog_path):
    at = signed_in
    idx = _row_index(catalog_path, "provider_facts", "ionos:certifications")
    at.session_state["ed_provider_facts"] = {"edited_rows": {idx: {"value": "ISO27001;BSI-C5"}}, "added_rows": [],
                                             "deleted_rows": []}
    at.text_input(key="ed_msg_provider_facts").set_value("IONOS C5 attestation, checked 2026-12-01")
    at.button(key="ed_save_provider_facts").click().run()
    assert any("Saved change set #1" in s.value for s in at.success), [e.value for e in at.error]
    with CatalogStore(catalog_path) as s:
        assert s.row("providers", "ionos")["certifications"] == "ISO27001;BSI-C5"
        assert s.row("provider_facts", "ionos:certifications")["updated_by"] == "alice"


DATA = ROOT / "tests" / "catalog" / "data"


def _refresh_page(catalog: str, data_file: str, filename: str) -> None:
    import streamlit as st

    from catalog.models import Editor
    from catalog.store import CatalogStore
    from ui.editor_actions import refresh_view

    @st.cache_resource
    def open_store():
        return CatalogStore(catalog)

    with open(data_file, "rb") as fh:
        data = fh.read()
    refresh_view(open_store(), Editor(name="alice", role="editor"), data, filename)


def _fill_refresh(at: AppTest, provider: str, as_of: str, skip_unknown: bool = False) -> AppTest:
    at.selectbox(key="rf_provider").select(provider).run()
    at.text_input(key="rf_url").set_value("https://github.com/skypilot-org/skypilot-catalog").run()
    at.text_input(key="rf_asof").set_value(as_of).run()
    if skip_unknown:
        at.checkbox(key="rf_skip_unknown").check().run()
    at.button(key="rf_preview_button").click().run()
    return at


def test_refresh_previews_the_diff_then_applies_exactly_that(catalog_path):
    at = AppTest.from_function(_refresh_page, args=(str(catalog_path), str(DATA / "skypilot_v8_nebius_vms.csv"),
                                                    "vms.csv"), default_timeout=60)
    at.run()
    assert any("provenance is never made up" in i.value for i in at.info)
    _fill_refresh(at, "nebius", "2026-11-01")
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["New offers"] == "18" and metrics["Changed"] == "3"  # 3 curated offers refreshed in place
    diff = next(d.value for d in at.dataframe if "on-demand_move_pct" in d.value.columns)
    assert len(diff) == 21 and set(diff.status) == {"new", "changed"}
    at.button(key="rf_apply").click().run()
    assert any("Refreshed as change set #1" in s.value for s in at.success), [e.value for e in at.error]
    with CatalogStore(catalog_path) as s:
        assert s.change_sets().iloc[0]["kind"] == "import"
        assert s.row("offers", "nebius-h100-gpu-h100-sxm-1gpu-16vcpu-200gb-eu-north1")["datacenter_country"] == "FI"


def test_refresh_lists_unknown_gpus_and_blocks_until_skipped(catalog_path):
    at = AppTest.from_function(_refresh_page, args=(str(catalog_path), str(DATA / "anycloud_lambda_vms.csv"),
                                                    "vms.csv"), default_timeout=60)
    at.run()
    _fill_refresh(at, "lambda", "2026-05-20")
    assert any("Unknown GPU names: A10 (17 rows), A6000 (51 rows)" in w.value for w in at.warning)
    assert any("Nothing will be imported" in e.value for e in at.error)
    assert not [b for b in at.button if b.key == "rf_apply"]
    problems = next(d.value for d in at.dataframe if list(d.value.columns) == ["line", "column", "reason"])
    assert problems.reason.str.contains("choose to skip unknown GPUs").all() and len(problems) == 136
    at.checkbox(key="rf_skip_unknown").check().run()
    at.button(key="rf_preview_button").click().run()
    assert not at.error and [b for b in at.button if b.key == "rf_apply"]
    assert {m.label: m.value for m in at.metric}["Skipped rows"] == "136"


def test_refresh_applied_after_another_save_is_refused_with_a_message(catalog_path):
    at = AppTest.from_function(_refresh_page, args=(str(catalog_path), str(DATA / "skypilot_v8_nebius_vms.csv"),
                                                    "vms.csv"), default_timeout=60)
    at.run()
    _fill_refresh(at, "nebius", "2026-11-01")
    from catalog.models import ChangeSet, Editor, RowChange

    with CatalogStore(catalog_path) as s:
        row = s.row("gpu_aliases", "H100-SXM5")
        s.apply_changes(ChangeSet(changes=[RowChange(table="gpu_aliases", action="delete", key="H100-SXM5",
                                                     expected_version=row["row_version"])], message="meanwhile"),
                        Editor(name="bob", role="editor"))
        checksum = s.content_checksum()
    at.button(key="rf_apply").click().run()
    assert any("changed after this preview" in w.value for w in at.warning)
    with CatalogStore(catalog_path) as s:
        assert s.content_checksum() == checksum
