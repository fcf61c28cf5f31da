"""Promote a workspace quote to the catalog (issue #29.9): an editor turns a quote into a sourced catalog row
through the normal change set (validated, logged with the editor and a message, restorable in History).

A quote on a catalog offer becomes a new price row of that offer; a quote on a new offer becomes an offer row and
its price. The editor must give the source URL (the quote document or the provider's page) — the catalog takes no
value without a source and date. The price is public unless the editor keeps it private (negotiated: editors only,
until the quote's "valid until")."""

from __future__ import annotations

import re

import streamlit as st

from catalog.errors import CatalogError, ChangeValidationError
from catalog.models import ChangeSet, RowChange
from catalog.quotes import StoredQuote
from ui.auth import is_editor, require_editor
from ui.format import plain


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "offer"


def promotion_changes(stored: StoredQuote, source_url: str, *, private: bool, taken: set[str],
                      provider_id: str | None = None, template: dict | None = None) -> list[RowChange]:
    """The rows a quote becomes: a price row of its catalog offer, or an offer row and its price."""
    q = stored.quote
    date = q.quote_date.isoformat()
    changes: list[RowChange] = []
    offer_id = q.offer_id
    if offer_id is None:
        pid = q.provider_id or provider_id
        if not pid:
            raise ValueError("the quote names no catalog provider: record the provider in the quote first")
        base = _slug(f"{pid}-{q.gpu_model}-{q.form_factor or ''}-{q.gpus_per_node or ''}x-{q.datacenter_country or ''}"
                     f"-quote-{stored.quote_id}")
        offer_id = base
        t = template or {}
        changes.append(RowChange(table="offers", action="insert", key=offer_id, values={
            "offer_id": offer_id, "provider_id": pid, "gpu_model": q.gpu_model, "gpu_spec_id": t.get("gpu_spec_id"),
            "form_factor": q.form_factor or t.get("form_factor"), "gpus_per_node": q.gpus_per_node,
            "inter_node": q.inter_node, "region": q.datacenter_country or "not stated",
            "datacenter_country": q.datacenter_country, "source_url": source_url, "as_of": date,
            "verification_status": "claimed", "notes": f"From {q.label} (workspace quote #{stored.quote_id})."}))
    n = 1
    while f"{offer_id}:quote:{date}:{n}" in taken:
        n += 1
    price_id = f"{offer_id}:quote:{date}:{n}"
    changes.append(RowChange(table="prices", action="insert", key=price_id, values={
        "price_id": price_id, "offer_id": offer_id, "price_type": "reserved" if q.term_months else "on-demand",
        "term_months": q.term_months, "upfront_pct": q.upfront_pct if q.term_months else None,
        "amount_per_gpu_hour": q.price_per_gpu_hour, "currency": q.currency, "valid_from": q.quote_date,
        "source_url": source_url, "retrieved_at": date, "method": "quote", "verification_status": "claimed",
        "notes": f"{q.label}; valid until {q.valid_until.isoformat()}.", "is_private": private,
        "expires_on": q.valid_until if private else None}))
    return changes


def section(store, workspace: str, quotes: list[StoredQuote], catalog) -> None:
    """Editors only: pick a quote, give its source, write it to the catalog as one change set."""
    if not is_editor() or not quotes:
        return
    with st.expander("Promote a quote to the catalog (editors)"):
        names = {s.quote_id: f"#{s.quote_id} · {s.quote.label}" for s in quotes}
        chosen = st.selectbox("Quote", list(names), format_func=names.__getitem__, key="qp_pick")
        url = st.text_input("Source URL (the quote document or the provider's page)", key="qp_url", max_chars=2000)
        private = st.checkbox("Keep the price private (negotiated: editors only, until valid-until)", key="qp_private")
        message = st.text_input("Why (goes into the history)", key="qp_message", max_chars=500,
                                value="Promoted from a workspace quote")
        if st.button("Write to the catalog", key="qp_go", type="primary", disabled=not (url or "").strip()):
            who = require_editor()
            if who is None:
                st.error("You are no longer signed in as an editor: nothing was written.")
                return
            stored = next(s for s in quotes if s.quote_id == chosen)
            spec = catalog[catalog["gpu_model"] == stored.quote.gpu_model].head(1).to_dict("records")
            taken = set(store.editable_rows("prices", current_only=False, include_private=True)["price_id"])
            try:
                changes = promotion_changes(stored, url.strip(), private=private, taken=taken,
                                            template=spec[0] if spec else None)
                result = store.apply_changes(ChangeSet(changes=changes, message=message.strip() or "quote"), who)
            except ChangeValidationError as exc:
                st.error("Nothing was written: " + "; ".join(plain(f"{c}: {r}") for _, c, r in exc.problems[:6]))
            except (ValueError, CatalogError) as exc:
                st.error(f"Nothing was written: {plain(str(exc))}")
            else:
                st.success(f"Written as change set #{result.change_set_id} ({result.rows} row(s)); see History on the "
                           "Catalog editor page to review or restore.")
