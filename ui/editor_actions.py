"""Editor page actions: save a table's edits, show the outcome, browse history and restore."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError, ChangeValidationError, ConflictError
from catalog.models import ChangeSet, Editor, Role
from catalog.store import CatalogStore
from ui.auth import require_editor
from ui.editor_view import MissingProvenanceError, changes_from_editor, diff_table
from ui.labels import TABLE_LABELS
from ui.scenario import get_scenario


def can_edit(who: Editor | None, store: CatalogStore) -> bool:
    if store.read_only:
        st.warning("The catalog file is read-only on this server: browsing works, saving does not.")
        return False
    return who is not None and who.role == Role.EDITOR


def _outcome_key(table: str) -> str:
    return f"ed_outcome_{table}"


def save(store: CatalogStore, table: str, original: pd.DataFrame, who: Editor | None) -> None:
    """on_click of "Save changes": validate and write the table's edits as one change set.

    ``who`` was bound when the button was drawn; the role is read again now, so an editor demoted (or signed
    out) since then saves nothing.
    """
    who = require_editor()
    if who is None:
        st.session_state[_outcome_key(table)] = ("error", "You are no longer signed in as an editor: nothing was "
                                                          "saved.", None)
        return
    state = st.session_state.get(f"ed_{table}") or {}
    message = (st.session_state.get(f"ed_msg_{table}") or "").strip()
    all_ids = (set(store.editable_rows(table, current_only=False, include_private=True).iloc[:, 0])
               if table == "prices" else None)
    try:
        changes = changes_from_editor(table, original, state, taken_ids=all_ids)
    except MissingProvenanceError as exc:
        st.session_state[_outcome_key(table)] = ("error", f"Nothing was saved: {exc}", None)
        return
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


def history_view(store: CatalogStore, editor: Editor | None, *, sees_private: bool = False) -> None:
    """The change sets and the diff of one; private prices and editors' names only with ``sees_private``."""
    sets = store.change_sets(include_private=sees_private)
    st.dataframe(sets, hide_index=True, width="stretch", height=240,
                 column_config={"created_at": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm"),
                                "change_set_id": st.column_config.NumberColumn("#", format="%d")})
    ids = sets["change_set_id"].tolist()
    chosen = st.selectbox("Change set", ids, key="hist_set",
                          format_func=lambda i: f"#{i} · {sets.set_index('change_set_id').loc[i, 'message'][:70]}")
    if chosen is None:
        return
    diff = diff_table(store.change_log(int(chosen), include_private=sees_private))
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
        if st.button("Restore this row", key="hist_restore_row", disabled=row is None) and row is not None:
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


def _catalog_workbook(store: CatalogStore, include_private: bool) -> bytes:
    """The whole catalog as Excel: built when the button is clicked (Streamlit's deferred download), never on a
    rerun (issue #31: after every save it took about 6 % of a loaded server's script time)."""
    from catalog.importer import export_excel
    from ui.editor_view import EDITABLE_TABLES

    return export_excel({t: store.editable_rows(t, include_private=include_private) for t in EDITABLE_TABLES})


def import_export_view(store: CatalogStore, editor: Editor | None, *, sees_private: bool = False) -> None:
    """Export any table (CSV) or the whole catalog (Excel); import with a preview diff and a report."""
    from catalog.importer import export_csv
    from ui.editor_view import EDITABLE_TABLES

    st.markdown("**Export**")
    c1, c2, c3 = st.columns(3)
    table = c1.selectbox("Table", list(EDITABLE_TABLES), format_func=TABLE_LABELS.__getitem__, key="io_table")
    # Private quotes and editors' names are in the export for signed-in editors only. Both files are built on the
    # click (a callable: Streamlit's deferred download), not on every rerun of the page.
    c2.download_button("Download table (CSV)", lambda: export_csv(store.editable_rows(table, include_private=sees_private)),
                       file_name=f"{table}.csv", mime="text/csv", key="io_csv")
    c3.download_button("Download whole catalog (Excel)", lambda: _catalog_workbook(store, sees_private),
                       file_name="gpu-cloud-catalog.xlsx",
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", key="io_xlsx")
    if editor is None:
        st.info("Sign in as an editor to import.")
        return
    st.markdown("**Import** — our own export (CSV per table or the Excel workbook), or a price refresh from a "
                "SkyPilot `vms.csv` or dstack gpuhunt catalog (also `.csv.gz`)")
    upload = st.file_uploader("CSV, CSV.GZ or Excel file", type=["csv", "gz", "xlsx"], key="io_upload")
    if upload is None:
        return
    data = upload.getvalue()
    if _is_public_catalog(data, upload.name):
        refresh_view(store, editor, data, upload.name)
        return
    table_import_view(store, editor, data, upload.name)


def _plan_table_import(store: CatalogStore, data: bytes, filename: str, complete: bool) -> dict:
    """The import as previewed: its change set, problems and counts, and the catalog version they were made at."""
    from catalog.importer import ImportFormatError, detect_format, preview_table_import, read_table_file
    from ui.editor_view import EDITABLE_TABLES

    data_version = store.data_version  # read first: a save after this makes the apply refuse, never slip through
    try:
        frames = read_table_file(data, filename)
    except ImportFormatError as exc:
        return {"error": str(exc)}
    changes, problems, summary = [], [], []
    for sheet, frame in frames.items():
        fmt = sheet if sheet in EDITABLE_TABLES else detect_format(frame)
        if fmt in EDITABLE_TABLES:
            p = preview_table_import(frame, fmt, store.editable_rows(fmt, include_private=True), complete=complete)
            changes += p.changes
            problems += [(f"{fmt} {r}", c, m) for r, c, m in p.problems]
            summary.append({"table": fmt, "added": p.added, "changed": p.changed, "removed": p.removed, "unchanged": p.unchanged})
        else:
            problems.append((sheet or filename, "columns", "not a catalog table, SkyPilot or gpuhunt file"))
    return {"changes": changes, "problems": problems, "summary": summary, "data_version": data_version}


def table_import_view(store: CatalogStore, editor: Editor, data: bytes, filename: str) -> None:
    """Preview an import of our own table export and apply exactly that preview (issue #28.5).

    The preview (its change set) is frozen in the session for this file and choice; Apply writes it with the
    catalog version it was made at, so a save by anyone in between refuses the import with a message instead
    of recomputing it against the new catalog (a "complete table" would otherwise delete the other save's rows).
    """
    import hashlib

    from catalog.errors import StaleChangeSetError

    complete = st.checkbox("The file is the complete table: remove catalog rows missing from it", key="io_complete")
    params = (hashlib.sha256(data).hexdigest(), filename, complete)
    frozen = st.session_state.get("io_preview")
    if frozen is None or frozen[0] != params:
        st.session_state["io_preview"] = frozen = (params, _plan_table_import(store, data, filename, complete))
    plan = frozen[1]
    if "error" in plan:
        st.error(plan["error"])
        return
    changes, problems = plan["changes"], plan["problems"]
    st.dataframe(pd.DataFrame(plan["summary"]), hide_index=True)
    if problems:
        st.error(f"Nothing will be imported until these {len(problems)} problem(s) are fixed in the file.")
        st.dataframe(pd.DataFrame(problems, columns=["row", "column", "reason"]), hide_index=True, width="stretch")
        return
    if not changes:
        st.info("The file matches the catalog: nothing to import.")
        return
    st.dataframe(pd.DataFrame([{"table": c.table, "action": c.action, "key": c.key} for c in changes[:500]]),
                 hide_index=True, width="stretch", height=220)
    st.caption(f"Applying writes exactly this preview ({len(changes)} row changes, made at catalog version "
               f"{plan['data_version']}); if anyone saves meanwhile, it is refused and you preview again.")
    if store.data_version != plan["data_version"]:
        st.warning("The catalog changed after this preview was made: applying it would be refused.")
        if st.button("Preview the file again", key="io_repreview"):
            st.session_state.pop("io_preview", None)
            st.rerun()
    message = st.text_input("What this import is (saved in the history)", key="io_message")
    if st.button("Apply import", type="primary", key="io_apply", disabled=not message.strip()):
        try:
            result = store.apply_changes(ChangeSet(changes=changes, message=message, kind="import"), editor,
                                         usd_per_eur=get_scenario().display.usd_per_eur,
                                         expected_data_version=plan["data_version"])
        except StaleChangeSetError as exc:
            st.session_state.pop("io_preview", None)
            st.warning(str(exc))
            return
        except ChangeValidationError as exc:
            st.error(str(exc))
            st.dataframe(pd.DataFrame(exc.problems, columns=["row", "column", "reason"]), hide_index=True)
            return
        except CatalogError as exc:
            st.error(str(exc))
            return
        st.session_state.pop("io_preview", None)
        st.cache_data.clear()
        st.success(f"Imported as change set #{result.change_set_id}: {result.rows} row change(s).")


def _is_public_catalog(data: bytes, filename: str) -> bool:
    """A SkyPilot or gpuhunt catalog (by its header line), not one of our own table exports."""
    from catalog.refresh import GPUHUNT_REQUIRED, SKYPILOT_REQUIRED

    if filename.lower().endswith(".xlsx"):
        return False
    head = data[:65536]
    if head[:2] == b"\x1f\x8b":
        import gzip
        import zlib

        try:
            head = zlib.decompressobj(31).decompress(data[:65536], 65536)
        except (zlib.error, gzip.BadGzipFile):
            return True  # let the refresh reader report the broken gzip
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    cols = {c.strip() for c in first.split(",")}
    return set(SKYPILOT_REQUIRED) <= cols or set(GPUHUNT_REQUIRED) <= cols


def _progress_bar(text: str):
    bar = st.progress(0.0, text=text)
    return bar, (lambda fraction, step: bar.progress(min(max(fraction, 0.0), 1.0), text=f"{text}: {step}"))


def refresh_view(store: CatalogStore, editor: Editor, data: bytes, filename: str) -> None:
    """Preview a SkyPilot/gpuhunt refresh (diff, skipped rows, price moves) and apply exactly that preview."""
    import hashlib

    from catalog.errors import StaleChangeSetError
    from catalog.refresh import RefreshInputError, apply_refresh, plan_refresh

    providers = store.table("providers").provider_id.tolist()
    a, b, c = st.columns(3)
    provider = a.selectbox("Provider of this file", providers, index=None, key="rf_provider")
    url = b.text_input("Where the file comes from (URL)", key="rf_url")
    as_of = c.text_input("Date of the file (YYYY-MM-DD, or YYYY-MM)", key="rf_asof")
    skip_unknown = st.checkbox("Skip rows with unknown GPUs (they are listed; add aliases to import them later)",
                               key="rf_skip_unknown")
    if not (provider and url and as_of):
        st.info("Name the provider, the file's source URL and its date: provenance is never made up.")
        return
    params = (hashlib.sha256(data).hexdigest(), provider, url.strip(), as_of.strip(), skip_unknown)
    frozen = st.session_state.get("rf_preview")
    if frozen is None or frozen[0] != params:
        if st.button("Preview the refresh", key="rf_preview_button", type="primary"):
            bar, progress = _progress_bar("Previewing")
            try:
                preview = plan_refresh(store, data, filename, provider_id=provider, source_url=url.strip(),
                                       as_of=as_of.strip(), skip_unknown_gpus=skip_unknown, progress=progress)
            except RefreshInputError as exc:
                bar.empty()
                st.error(f"Nothing can be imported: {exc}")
                return
            bar.empty()
            st.session_state["rf_preview"] = frozen = (params, preview)
        else:
            return
    preview = frozen[1]
    _show_refresh_preview(preview)
    if preview.problems:
        st.error(f"Nothing will be imported until these {len(preview.problems)} problem(s) are fixed in the file"
                 + (" or unknown GPUs are skipped" if preview.unknown_gpus and not skip_unknown else "") + ".")
        st.dataframe(pd.DataFrame(preview.problems, columns=["line", "column", "reason"]), hide_index=True,
                     width="stretch", key="rf_problems")
        return
    if not preview.changes:
        st.info("Nothing to apply: the catalog already holds these prices (or newer ones).")
        return
    st.caption(f"Applying writes exactly this preview ({len(preview.changes)} row changes, made at catalog "
               f"version {preview.data_version}); if anyone saves meanwhile, it is refused and you preview again.")
    message = st.text_input("What this refresh is (saved in the history)", key="rf_message",
                            value=f"{provider} prices from {filename} ({as_of})")
    if st.button("Apply refresh", type="primary", key="rf_apply", disabled=not message.strip()):
        bar, progress = _progress_bar("Applying")
        try:
            result = apply_refresh(store, preview, editor, message.strip(), progress=progress)
        except StaleChangeSetError as exc:
            bar.empty()
            st.session_state.pop("rf_preview", None)
            st.warning(str(exc))
            return
        except ChangeValidationError as exc:
            bar.empty()
            st.error(str(exc))
            st.dataframe(pd.DataFrame(exc.problems, columns=["row", "column", "reason"]), hide_index=True)
            return
        except CatalogError as exc:
            bar.empty()
            st.error(str(exc))
            return
        bar.empty()
        st.session_state.pop("rf_preview", None)
        st.cache_data.clear()
        st.success(f"Refreshed as change set #{result.change_set_id}: {result.rows} row change(s). "
                   "Restore it from the History tab if needed.")


def _show_refresh_preview(preview) -> None:
    counts = preview.counts
    cols = st.columns(6)
    for col, (label, key) in zip(cols, [("New offers", "new"), ("Changed", "changed"), ("Unchanged", "unchanged"),
                                        ("Older in file", "older"), ("Disappeared", "disappeared"),
                                        ("Skipped rows", "skipped rows")], strict=True):
        col.metric(label, counts.get(key, 0))
    st.caption(f"{preview.rows_read:,} data lines read as a {preview.fmt} file; prices are USD per GPU-hour "
               "(instance price / GPUs); spot is the lowest zone price of the region.")
    if preview.unknown_gpus:
        names = ", ".join(f"{n} ({c} rows)" for n, c in sorted(preview.unknown_gpus.items()))
        st.warning(f"Unknown GPU names: {names}.")
    if len(preview.diff):
        st.dataframe(preview.diff, hide_index=True, width="stretch", height=320, key="rf_diff",
                     column_config={
                         "on-demand_move_pct": st.column_config.NumberColumn("on-demand move", format="%+.1f %%"),
                         "spot_move_pct": st.column_config.NumberColumn("spot move", format="%+.1f %%"),
                         "on-demand_old": st.column_config.NumberColumn("on-demand before", format="%.4f"),
                         "on-demand_new": st.column_config.NumberColumn("on-demand file", format="%.4f"),
                         "spot_old": st.column_config.NumberColumn("spot before", format="%.4f"),
                         "spot_new": st.column_config.NumberColumn("spot file", format="%.4f")})
    if preview.skipped:
        reasons = pd.Series([r for _, _, r in preview.skipped]).str.replace(r" in [a-z0-9-]+ \(", " (", regex=True)
        with st.expander(f"{len(preview.skipped)} skipped rows, and why"):
            st.dataframe(reasons.value_counts().rename_axis("reason").reset_index(name="rows"), hide_index=True,
                         key="rf_skip_summary")
            st.dataframe(pd.DataFrame(preview.skipped, columns=["line", "instance", "reason"]), hide_index=True,
                         width="stretch", key="rf_skipped")
    if len(preview.disappeared):
        with st.expander(f"{len(preview.disappeared)} offers of this provider are not in the file (left as they are)"):
            st.dataframe(preview.disappeared, hide_index=True, width="stretch", key="rf_gone")
