"""Workshop "Quotes" tab: the provider questionnaire (issue #29.8) — export per provider (Excel, PDF), import a
filled-in one as quotes after a per-cell preview; nothing is written until the user confirms."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError
from catalog.storage.quotes import QuoteValidationError
from ui import questionnaire as q
from ui.brief_scope import offers_meeting_brief
from ui.format import plain

PREVIEW_KEY = "qn_preview"


def section(store, workspace: str, scenario, catalog: pd.DataFrame, quotes) -> None:
    st.markdown("**Provider questionnaire** — what the catalog does not state (or states only stale) for the offers "
                "in scope, one sheet and one PDF page per provider, pre-filled with what is known and its source.")
    shortlist = offers_meeting_brief(catalog, scenario.brief)
    names = {str(k): str(v) for k, v in
             catalog.drop_duplicates("provider_id").set_index("provider_id")["provider_name"].items()}
    chosen = st.multiselect("Providers (empty: every provider on the brief's shortlist)", sorted(names),
                            format_func=names.__getitem__, key="qn_providers", max_selections=q.MAX_PROVIDERS)
    scope = q.offers_in_scope(catalog, shortlist, chosen)
    sheets = q.questionnaires(scope, scenario.brief)
    st.caption(f"{len(scope)} offer(s) of {len(sheets)} provider(s) in scope "
               f"({'chosen providers' if chosen else 'offers meeting the brief'}).")
    if sheets:
        c1, c2 = st.columns(2)
        c1.download_button("Download the questionnaire (Excel)", q.workbook(sheets), key="qn_xlsx",
                           file_name="provider-questionnaire.xlsx", on_click="ignore",
                           mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        if c2.button("Build the questionnaire PDF", key="qn_build_pdf"):
            from ui.exports import html_to_pdf

            try:
                st.session_state["qn_pdf"] = html_to_pdf(q.questionnaire_html(sheets))
            except RuntimeError as exc:
                c2.error(str(exc))
        if st.session_state.get("qn_pdf"):
            c2.download_button("Download the questionnaire (PDF)", st.session_state["qn_pdf"], key="qn_dl_pdf",
                               file_name="provider-questionnaire.pdf", mime="application/pdf", on_click="ignore")
    upload = st.file_uploader("Import a filled-in questionnaire", type=["xlsx"], key="qn_upload",
                              max_upload_size=max(1, q.MAX_QUESTIONNAIRE_BYTES // 2**20))
    if upload is not None and st.button("Check the answers", key="qn_check"):
        try:
            answers = q.read_answers(upload.getvalue())
        except q.QuestionnaireFormatError as exc:
            st.session_state.pop(PREVIEW_KEY, None)
            st.error(plain(str(exc)), icon=":material/error:")
        else:
            st.session_state[PREVIEW_KEY] = q.preview(
                answers, catalog, lambda quotes, labels: store.validate_quotes(
                    quotes, usd_per_eur=scenario.display.usd_per_eur, labels=labels))
    _draw_preview(store, workspace, scenario)


def _draw_preview(store, workspace: str, scenario) -> None:
    preview: q.ImportPreview | None = st.session_state.get(PREVIEW_KEY)
    if preview is None:
        return
    st.markdown(f"**Answers read: {len(preview.diff)} cell(s), {len(preview.quotes)} quote(s) to add.** Nothing is "
                "saved until you confirm.")
    if len(preview.diff):
        st.dataframe(preview.diff, hide_index=True, width="stretch", key="qn_diff")
    for message in preview.errors:
        st.error(plain(message), icon=":material/error:")
    for message in preview.warnings:
        st.warning(plain(message), icon=":material/warning:")
    c1, c2 = st.columns(2)
    if c1.button("Add these quotes to the workspace", key="qn_confirm", type="primary", disabled=not preview.ok):
        try:
            ids = store.save_quotes(workspace, preview.quotes, labels=preview.labels,
                                    usd_per_eur=scenario.display.usd_per_eur)
        except (QuoteValidationError, CatalogError) as exc:
            st.error(plain(str(exc)), icon=":material/error:")
        else:
            st.session_state.pop(PREVIEW_KEY, None)
            st.session_state["qn_done"] = f"Added {len(ids)} quote(s) from the questionnaire."
            st.rerun()
    if c2.button("Discard", key="qn_discard"):
        st.session_state.pop(PREVIEW_KEY, None)
        st.rerun()
