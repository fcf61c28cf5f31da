"""Workshop page, "Quotes" tab (issue #29.6): record a provider's quote in the open workspace, see the workspace's
quotes (expired ones flagged), edit one (the negotiation moves a price, a capacity, a validity: saving replaces it),
delete one; the provider questionnaire (ui.questionnaire) and, for editors, promoting
a quote to the public catalog (ui.quote_promotion) sit below. No sign-in: whoever holds the workspace link may, as
they may save scenarios. Text typed by users is shown as plain text."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError
from catalog.models import Currency, FormFactor, InterNode, MinCommitment, SupportModel, TriState
from catalog.quotes import MAX_NOTE_CHARS, StoredQuote
from catalog.storage.quotes import QuoteValidationError
from ui.auth import current_editor
from ui.format import plain

NOT_STATED = "not stated"
_DEDICATED = {NOT_STATED: None, "dedicated (single-tenant) hardware": True, "shared / virtualised": False}


def quotes_frame(quotes: list[StoredQuote], today: dt.date | None = None) -> pd.DataFrame:
    """The workspace's quotes as a table: label, what is quoted, price, term, capacity, lead time, SLA, validity (an
    expired quote says so), contact and note."""
    today = today or dt.date.today()
    rows = []
    for s in quotes:
        q = s.quote
        rows.append({
            "#": s.quote_id, "quote": q.label, "offer": q.offer_id or " · ".join(
                str(v) for v in (q.gpu_model, q.form_factor, f"{q.gpus_per_node} per node" if q.gpus_per_node else None,
                                 q.inter_node, q.datacenter_country) if v),
            "price per GPU-hour": f"{q.price_per_gpu_hour:,.4g} {q.currency}",
            "term": f"{q.term_months} months" if q.term_months else "none (on demand)",
            "upfront": NOT_STATED if q.upfront_pct is None else f"{q.upfront_pct:g} %",
            "capacity (GPUs)": NOT_STATED if q.capacity_gpus is None else f"{q.capacity_gpus:,}",
            "lead time (days)": NOT_STATED if q.lead_time_days is None else f"{q.lead_time_days:,}",
            "uptime SLA": NOT_STATED if q.uptime_sla_pct is None else f"{q.uptime_sla_pct:g} %",
            "support": q.support_model, "dedicated": {None: NOT_STATED, True: "yes", False: "no"}[q.is_dedicated],
            "valid until": q.valid_until.isoformat() + (" ⚠ expired" if q.is_expired(today) else ""),
            "contact": q.contact or "", "note": q.note or "",
        })
    return pd.DataFrame(rows)


def _choice(label: str, options: list, key: str, **kw):
    return st.selectbox(label, [NOT_STATED, *options], key=key, **kw)


def _stated(value):
    return None if value == NOT_STATED else value


#: Session key of the quote being edited (its id); absent = the form records a new quote.
EDITING_KEY = "q_editing"
#: Form widget key per Quote field (the same keys the entry form draws).
_WIDGET = {"provider": "q_provider", "provider_id": "q_provider_id", "offer_id": "q_offer_id", "gpu_model": "q_gpu",
           "gpus_per_node": "q_per_node", "form_factor": "q_form_factor", "inter_node": "q_fabric",
           "datacenter_country": "q_country", "price_per_gpu_hour": "q_price", "currency": "q_currency",
           "term_months": "q_term", "upfront_pct": "q_upfront", "capacity_gpus": "q_capacity",
           "lead_time_days": "q_lead", "uptime_sla_pct": "q_uptime", "performance_sla": "q_perf",
           "support_model": "q_support", "min_commitment": "q_min_commitment", "quote_date": "q_date",
           "valid_until": "q_valid", "contact": "q_contact", "note": "q_note"}
_CHOICES = ("provider_id", "offer_id", "gpu_model", "form_factor", "inter_node")  # drawn with "not stated" first


def start_editing(stored: StoredQuote) -> None:
    """Fill the entry form with a stored quote (a negotiation moved the price, the capacity, the validity...);
    saving then replaces that quote instead of adding one."""
    q = stored.quote
    for field, key in _WIDGET.items():
        value = getattr(q, field)
        if field in _CHOICES:
            value = NOT_STATED if value is None else value
        elif field in ("datacenter_country", "contact", "note", "provider"):
            value = value or ""
        st.session_state[key] = value
    st.session_state["q_dedicated"] = next(k for k, v in _DEDICATED.items() if v is q.is_dedicated)
    st.session_state[EDITING_KEY] = stored.quote_id


def stop_editing() -> None:
    """Back to recording a new quote (the form keeps the last values as a starting point)."""
    st.session_state.pop(EDITING_KEY, None)


def entry_form(store, workspace: str, offers: pd.DataFrame, gpu_models: list[str]) -> None:
    """The form of one new quote, or of the quote being edited; saving validates it (bounds, hardware truth) and
    says what is wrong, and nothing is written then."""
    unique_providers = offers.drop_duplicates("provider_id")
    providers: dict[str, str] = dict(zip(unique_providers["provider_id"], unique_providers["provider_name"],
                                         strict=True))
    editing = st.session_state.get(EDITING_KEY)
    options = {"q_provider_id": set(providers), "q_offer_id": set(offers["offer_id"]), "q_gpu": set(gpu_models)}
    for key, allowed in options.items():  # an edited quote may name what the catalog no longer lists
        if st.session_state.get(key, NOT_STATED) not in allowed | {NOT_STATED}:
            st.session_state[key] = NOT_STATED
    with st.form("q_form", clear_on_submit=False, border=True):
        if editing is None:
            st.markdown("**Record a quote** (stays in this workspace: never in the public catalog, a share link or a "
                        "JSON file)")
        else:
            st.markdown(f"**Editing quote #{int(editing)}**: saving replaces it (it stays in this workspace)")
        a, b, c = st.columns(3)
        provider = a.text_input("Provider (as named on the quote)", key="q_provider", max_chars=200)
        provider_id = b.selectbox("Catalog provider (optional)", [NOT_STATED, *sorted(providers)], key="q_provider_id",
                                  format_func=lambda p: providers.get(p, p))
        offer_ids = sorted(offers["offer_id"])
        offer_id = c.selectbox("Catalog offer (optional; else describe the offer below)", [NOT_STATED, *offer_ids],
                               key="q_offer_id")
        a, b, c, d, e = st.columns(5)
        with a:
            gpu = _choice("GPU model", gpu_models, "q_gpu")
        gpus_per_node = b.number_input("GPUs per node", min_value=1, max_value=1024, value=None, key="q_per_node")
        with c:
            form = _choice("Form factor", [f.value for f in FormFactor], "q_form_factor")
        with d:
            fabric = _choice("Fabric between nodes", [f.value for f in InterNode], "q_fabric")
        country = e.text_input("Data-centre country (ISO, e.g. DE)", key="q_country", max_chars=2)
        a, b, c, d = st.columns(4)
        price = a.number_input("Price per GPU-hour", min_value=0.0, max_value=1000.0, value=None, step=0.01,
                               format="%.4f", key="q_price")
        currency = b.radio("Currency", [c.value for c in Currency], horizontal=True, key="q_currency")
        term = c.number_input("Term (months; empty = no commitment)", min_value=1, max_value=120, value=None,
                              key="q_term")
        upfront = d.number_input("Upfront share (%)", min_value=0.0, max_value=100.0, value=None, key="q_upfront")
        a, b, c, d = st.columns(4)
        capacity = a.number_input("Capacity (GPUs)", min_value=1, max_value=1_000_000, value=None, key="q_capacity")
        lead = b.number_input("Lead time (days)", min_value=0, max_value=3650, value=None, key="q_lead")
        uptime = c.number_input("Uptime SLA (%)", min_value=0.0, max_value=100.0, value=None, key="q_uptime")
        with d:
            perf = st.selectbox("Performance SLA", [t.value for t in TriState], index=2, key="q_perf")
        a, b, c = st.columns(3)
        with a:
            support = st.selectbox("Support model", [s.value for s in SupportModel], index=3, key="q_support")
        dedicated = b.selectbox("Hardware", list(_DEDICATED), key="q_dedicated")
        with c:
            commitment = st.selectbox("Minimum commitment", [m.value for m in MinCommitment], index=4,
                                      key="q_min_commitment")
        a, b, c = st.columns(3)
        quote_date = a.date_input("Quote dated", value=dt.date.today(), key="q_date")
        valid_until = b.date_input("Valid until", value=dt.date.today() + dt.timedelta(days=30), key="q_valid")
        contact = c.text_input("Contact", key="q_contact", max_chars=200)
        note = st.text_area("Note or document reference", key="q_note", max_chars=MAX_NOTE_CHARS)
        submitted = st.form_submit_button("Save the quote" if editing is None else f"Save the changes to #{int(editing)}",
                                          type="primary")
    if editing is not None:
        st.button("Cancel editing", key="q_cancel_edit", on_click=stop_editing, icon=":material/close:")
    if not submitted:
        return
    values = {"provider": provider, "provider_id": _stated(provider_id), "offer_id": _stated(offer_id),
              "gpu_model": _stated(gpu), "gpus_per_node": gpus_per_node, "form_factor": _stated(form),
              "inter_node": _stated(fabric), "datacenter_country": (country or "").strip().upper() or None,
              "price_per_gpu_hour": price, "currency": currency, "term_months": term, "upfront_pct": upfront,
              "capacity_gpus": capacity, "lead_time_days": lead, "uptime_sla_pct": uptime, "performance_sla": perf,
              "support_model": support, "is_dedicated": _DEDICATED[dedicated], "min_commitment": commitment,
              "quote_date": quote_date, "valid_until": valid_until, "contact": contact, "note": note}
    who = current_editor()
    try:
        [qid] = store.save_quotes(workspace, [values], created_by=who.name if who else None, labels=["the quote"],
                                  replace=None if editing is None else {0: int(editing)})
    except QuoteValidationError as exc:
        st.error("**The quote was not saved.**\n\n" + "\n".join(
            f"- {plain(field)}: {plain(reason)}" for _, field, reason in exc.problems), icon=":material/error:")
        return
    except CatalogError as exc:
        st.error(plain(str(exc)), icon=":material/error:")
        return
    if editing is None:
        st.success(f"Saved as quote #{qid}.", icon=":material/check:")
        return
    stop_editing()
    st.session_state["q_saved_note"] = f"Quote #{qid} updated."
    st.rerun()  # the listing above the form shows the new values


def listing(store, workspace: str, quotes: list[StoredQuote]) -> None:
    if not quotes:
        st.caption("No quotes in this workspace yet.")
        return
    frame = quotes_frame(quotes)
    expired = frame["valid until"].str.contains("expired")
    st.dataframe(frame, hide_index=True, width="stretch", key="q_table")
    if expired.any():
        st.warning(f"{int(expired.sum())} quote(s) expired (valid until before today): the pages leave them out. "
                   "Ask the provider for a new quote.", icon=":material/event_busy:")
    note = st.session_state.pop("q_saved_note", None)
    if note:
        st.success(note, icon=":material/check:")
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    names = {s.quote_id: f"#{s.quote_id} · {s.quote.label}" for s in quotes}
    chosen = c1.selectbox("Quote", list(names), format_func=names.__getitem__, key="q_pick")
    by_id = {s.quote_id: s for s in quotes}
    c2.button("Edit this quote", key="q_edit", icon=":material/edit:", on_click=start_editing, args=(by_id[chosen],))
    if c3.button("Delete this quote", key="q_delete", icon=":material/delete:"):
        try:
            store.delete_quote(workspace, chosen)
        except CatalogError as exc:
            st.error(plain(str(exc)))
        else:
            st.session_state.pop("q_pick", None)
            if st.session_state.get(EDITING_KEY) == chosen:
                stop_editing()
            st.rerun()


def quotes_tab(store, workspace: str | None, brief_scenario) -> None:
    """The Workshop's Quotes tab."""
    if workspace is None:
        st.info("Open a client workspace (above) to record providers' quotes. Quotes stay in that workspace.")
        return
    from ui.catalog import offers, table

    catalog = offers(None, brief_scenario.display.usd_per_eur)
    quotes = store.list_quotes(workspace)
    listing(store, workspace, quotes)
    entry_form(store, workspace, catalog, sorted(table("gpu_models")["gpu_model"]))
    from ui import questionnaire_view

    questionnaire_view.section(store, workspace, brief_scenario, catalog, quotes)
    from ui import quote_promotion

    quote_promotion.section(store, workspace, quotes, catalog)
