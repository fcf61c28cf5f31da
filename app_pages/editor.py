"""Catalog editor: validated edits with provenance, history and restore, and the re-verification list."""

import streamlit as st

from catalog.counts import offer_counts, stale_rows_text
from catalog.models import Role
from engine.money import DEFAULT_USD_PER_EUR
from ui import editor_actions as actions
from ui.auth import sign_in_panel
from ui.catalog import editable_rows, get_store, offers, stale_rows
from ui.editor_view import EDITABLE_TABLES, column_config, editable_frame
from ui.labels import TABLE_LABELS

store = get_store()
st.title("Catalog editor")
st.caption("Every save is one transaction, validated row by row and logged with who, when and why. "
           "Prices are never overwritten: a new price closes the old one.")
who = sign_in_panel(store)  # a shared (PostgreSQL) store counts failed sign-ins for every replica
can_edit = actions.can_edit(who, store)
# Private values (negotiated quotes, who edited) reach a signed-in editor only, even on a read-only catalog.
sees_private = who is not None and who.role == Role.EDITOR

tabs = st.tabs([*(TABLE_LABELS[t] for t in EDITABLE_TABLES), "History", "Import / export", "Needs re-verification"])
for tab, table in zip(tabs, EDITABLE_TABLES, strict=False):
    with tab:
        frame = editable_frame(editable_rows(table, sees_private), table)
        if not can_edit:
            st.dataframe(frame, column_config=column_config(table), hide_index=True, width="stretch")
            continue
        st.data_editor(frame, column_config=column_config(table), hide_index=True, width="stretch",
                       num_rows="dynamic", key=f"ed_{table}", disabled=["row_version", "updated_by"])
        c1, c2 = st.columns([4, 1])
        message = c1.text_input("What changed and why (saved in the history)", key=f"ed_msg_{table}",
                                placeholder="e.g. Scaleway list price of 2026-11-30, checked on scaleway.com")
        c2.button("Save changes", key=f"ed_save_{table}", type="primary", on_click=actions.save,
                  args=(store, table, frame, who), width="stretch")
        actions.show_outcome(table)

with tabs[-3]:
    actions.history_view(store, who if can_edit else None, sees_private=sees_private)
with tabs[-2]:
    actions.import_export_view(store, who if can_edit else None, sees_private=sees_private)
with tabs[-1]:
    stale = stale_rows(sees_private)
    # The counts read no price: the offers at the default exchange rate serve every rate (no catalog query when
    # the sidebar's rate changes; #31).
    st.markdown(stale_rows_text(stale, offer_counts(offers(None, DEFAULT_USD_PER_EUR))))
    st.dataframe(stale, hide_index=True, width="stretch",
                 column_config={"source_url": st.column_config.LinkColumn("source", display_text="source ↗")})
