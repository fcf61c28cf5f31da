"""Issue #28.5: a table import applies exactly the preview the editor saw, never a recomputed one.

Editor A previews a "complete table" ``provider_facts.csv`` (1 changed, 0 removed); editor B then saves a new
fact; A's Apply must be refused (the catalog moved since the preview) and B's row must survive. Before the fix
the page recomputed the preview on A's click and deleted B's row. Run on both catalog backends.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from catalog.importer import export_csv
from catalog.models import ChangeSet, Editor, RowChange
from catalog.store import open_catalog


def _import_page(location: str, data: bytes) -> None:
    import streamlit as st

    from catalog.models import Editor
    from catalog.store import open_catalog
    from ui.editor_actions import table_import_view

    @st.cache_resource
    def store():
        return open_catalog(location)

    table_import_view(store(), Editor(name="alice", role="editor"), data, "provider_facts.csv")


def _new_fact(store) -> RowChange:
    facts = store.editable_rows("provider_facts", include_private=True)
    have = set(facts.fact_id)
    provider = next(p for p in store.table("providers").provider_id if f"{p}:legal_seat_address" not in have)
    return RowChange(table="provider_facts", action="insert", key=f"{provider}:legal_seat_address",
                     values={"fact_id": f"{provider}:legal_seat_address", "provider_id": provider,
                             "field": "legal_seat_address", "value": "1 Example Street, Paris",
                             "source_url": "https://example.com/legal-notice", "as_of": "2026-12-01",
                             "verification_status": "verified"})


@pytest.fixture(params=["duckdb", "postgresql"])
def location(request, catalog_path):
    if request.param == "duckdb":
        return str(catalog_path)
    return request.getfixturevalue("pg_url")


def test_a_complete_table_import_is_refused_after_another_editors_save(location):
    store_b = open_catalog(location)
    facts = store_b.editable_rows("provider_facts", include_private=True)
    facts.loc[0, "value"] = facts.loc[0, "value"] + ";ISO27701"  # one changed fact
    data = export_csv(facts)

    at = AppTest.from_function(_import_page, args=(location, data), default_timeout=60)
    at.run()
    at.checkbox(key="io_complete").check().run()
    assert not at.exception, at.exception
    shown = at.dataframe[0].value
    assert shown[["added", "changed", "removed"]].iloc[0].tolist() == [0, 1, 0]

    new = _new_fact(store_b)  # editor B saves a new fact while A looks at the preview
    store_b.apply_changes(ChangeSet(changes=[new], message="B adds an address"), Editor(name="bob", role="editor"))
    after_b = store_b.content_checksum()

    at.text_input(key="io_message").set_value("A's import").run()
    assert any("changed after this preview" in w.value for w in at.warning)  # said before the click too
    at.button(key="io_apply").click().run()
    assert not at.success, [s.value for s in at.success]
    assert any("Nothing was saved" in w.value for w in at.warning), [w.value for w in at.warning]
    reopened = open_catalog(location)
    assert reopened.row("provider_facts", new.key) is not None  # B's row survives
    assert reopened.content_checksum() == after_b


def test_an_unchanged_catalog_applies_exactly_the_previewed_change_set(location):
    store = open_catalog(location)
    facts = store.editable_rows("provider_facts", include_private=True)
    facts.loc[0, "value"] = facts.loc[0, "value"] + ";ISO27701"
    at = AppTest.from_function(_import_page, args=(location, export_csv(facts)), default_timeout=60)
    at.run()
    at.checkbox(key="io_complete").check().run()
    at.text_input(key="io_message").set_value("A's import").run()
    at.button(key="io_apply").click().run()
    assert any("1 row change(s)" in s.value for s in at.success), [e.value for e in at.error]
    assert open_catalog(location).row("provider_facts", facts.loc[0, "fact_id"])["value"].endswith(";ISO27701")
