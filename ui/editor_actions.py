"""Editor page actions: save a table's edits, show the outcome, browse history and restore."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError, ChangeValidationError, ConflictError
from catalog.models import ChangeSet, Editor, Role
from catalog.store import CatalogStore
from ui.editor_view import changes_from_editor, diff_table
from ui.scenario import get_scenario


def can_edit(who: Editor | None, store: CatalogStore) -> bool:
    if store.read_only:
        st.warning("The catalog file is read-only on this server: browsing works, saving does not.")
        return False
    return who is not None and who.role == Role.EDITOR


def _outcome_key(table: str) -> str:
    return f"ed_outcome_{table}"


def save(store: CatalogStore, table: str, original: pd.DataFrame, who: Editor) -> None:
    """on_click of "Save changes": validate and write the table's edits as one change set."""
    state = st.session_state.get(f"ed_{table}") or {}
    message = (st.session_state.get(f"ed_msg_{table}") or "").strip()
    changes = changes_from_editor(table, original, state)
    if not changes:
        st.session_state[_outcome_key(table)] = ("info", "Nothing to save: no cell was changed.", None)
        return
    if not message:
        st.session_state[_outcome_key(table)] = ("error", "Say what changed and why before saving (it goes into the history).", None)
        return
    try:
        result = store.apply_changes(ChangeSet(changes=changes, message=message), who,
                                     usd_per_eur=get_scenario().display.usd_per_eur)
    except ChangeValidationError as exc:
        problems = pd.DataFrame(exc.problems, columns=["row", "column", "reason"])
        st.session_state[_outcome_key(table)] = ("error", f"Nothing was saved: {len(problems)} problem(s).", problems)
        return
    except ConflictError as exc:
        rows = [{"row": f"{c['table']}:{c['key']}", "field": f, "theirs (saved meanwhile)": (c["theirs"] or {}).get(f),
                 "yours": (c["yours"] or {}).get(f)}
                for c in exc.conflicts for f in sorted(set(c["theirs"] or {}) | set(c["yours"] or {}))
                if (c["theirs"] or {}).get(f) != (c["yours"] or {}).get(f)]
        st.session_state[_outcome_key(table)] = ("conflict", str(exc), pd.DataFrame(rows))
        return
    except CatalogError as exc:
        st.session_state[_outcome_key(table)] = ("error", str(exc), None)
        return
    st.session_state.pop(f"ed_{table}", None)
    st.session_state[f"ed_msg_{table}"] = ""
    st.cache_data.clear()
    warnings = pd.DataFrame([(w.row, w.column, w.reason) for w in result.warnings], columns=["row", "column", "warning"])
    st.session_state[_outcome_key(table)] = (
        "success", f"Saved change set #{result.change_set_id}: {result.rows} row change(s).", warnings if len(warnings) else None)


def show_outcome(table: str) -> None:
    outcome = st.session_state.get(_outcome_key(table))
    if not outcome:
        return
    kind, text, detail = outcome
    {"success": st.success, "error": st.error, "conflict": st.warning, "info": st.info}[kind](text)
    if detail is not None and len(detail):
        st.dataframe(detail, hide_index=True, width="stretch")


def history_view(store: CatalogStore, editor: Editor | None) -> None:
    sets = store.change_sets()
    st.dataframe(sets, hide_index=True, width="stretch", height=240,
                 column_config={"created_at": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm"),
                                "change_set_id": st.column_config.NumberColumn("#", format="%d")})
    ids = sets["change_set_id"].tolist()
    chosen = st.selectbox("Change set", ids, key="hist_set",
                          format_func=lambda i: f"#{i} · {sets.set_index('change_set_id').loc[i, 'message'][:70]}")
    if chosen is None:
        return
    diff = diff_table(store.change_log(int(chosen)))
    if diff.empty:
        st.caption("This change set changed no rows (the seed build).")
    else:
        st.dataframe(diff, hide_index=True, width="stretch")
    if editor is None:
        return
    c1, c2 = st.columns(2)
    with c1:
        confirm = st.checkbox(f"Yes, bring the whole catalog back to its state after #{chosen}", key="hist_confirm")
        if st.button("Restore the catalog", key="hist_restore_all", disabled=not confirm):
            _restore(store, editor, int(chosen))
    with c2:
        keys = sorted({f"{t}:{k}" for t, k in zip(diff["table"], diff["key"], strict=True)}) if not diff.empty else []
        row = st.selectbox("…or one row", keys, key="hist_row", index=None, placeholder="pick a row")
        if st.button("Restore this row", key="hist_restore_row", disabled=row is None):
            table, key = row.split(":", 1)
            _restore(store, editor, int(chosen), table=table, key=key)


def _restore(store: CatalogStore, editor: Editor, change_set_id: int, **scope) -> None:
    try:
        result = store.restore(change_set_id, editor, **scope)
    except CatalogError as exc:
        st.error(str(exc))
        return
    st.cache_data.clear()
    if result is None:
        st.info("Nothing to restore: already in that state.")
    else:
        st.success(f"Restored (logged as change set #{result.change_set_id}).")
