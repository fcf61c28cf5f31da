"""Cached access to the catalog for every Streamlit session of this server process."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError
from catalog.store import CatalogStore, OfferFilter, resolve_catalog_path


@st.cache_resource(show_spinner="Opening the catalog…")
def _open_for_app(path: str) -> tuple[CatalogStore, str | None]:
    # One connection per process and path; callers take a cursor per query (CatalogStore does).
    return CatalogStore.open_for_app(path)


def _open_store(path: str) -> CatalogStore:
    return _open_for_app(path)[0]


def get_store() -> CatalogStore:
    """The process-wide store; a degraded (read-only) mode shows its notice; on a catalog problem that
    cannot degrade, show the message and stop the page."""
    path = str(resolve_catalog_path())
    try:
        store, notice = _open_for_app(path)
        if notice:
            st.warning(f"**Read-only mode.** {notice}", icon=":material/lock:")
        return store
    except CatalogError as exc:
        st.error(f"**The catalog cannot be opened.** {exc}", icon=":material/error:")
        import logging

        logging.getLogger("gpu_cloud_advisor").error("catalog error: %s", exc)
        st.stop()
        raise  # unreachable: st.stop() raises


@st.cache_data(ttl=600, show_spinner=False)
def offers_frame(path: str, data_version: int, filters: OfferFilter, usd_per_eur: float, today: dt.date,
                 include_private: bool = False) -> pd.DataFrame:
    return _open_store(path).list_offers(filters, usd_per_eur=usd_per_eur, today=today, include_private=include_private)


def offers(filters: OfferFilter | None, usd_per_eur: float) -> pd.DataFrame:
    """Offers with current prices; negotiated private quotes are included only for a signed-in editor."""
    from ui.auth import is_editor

    store = get_store()
    return offers_frame(str(resolve_catalog_path()), store.data_version, filters or OfferFilter(), usd_per_eur,
                        dt.date.today(), is_editor())


@st.cache_data(ttl=600, show_spinner=False)
def _table(path: str, data_version: int, name: str) -> pd.DataFrame:
    return _open_store(path).table(name)


def table(name: str) -> pd.DataFrame:
    store = get_store()
    return _table(str(resolve_catalog_path()), store.data_version, name)


@st.cache_data(ttl=600, show_spinner=False)
def _summary(path: str, data_version: int, today: dt.date) -> dict:
    return _open_store(path).summary(today)


def summary() -> dict:
    store = get_store()
    return _summary(str(resolve_catalog_path()), store.data_version, dt.date.today())


@st.cache_data(ttl=600, show_spinner=False)
def _coverage(path: str, data_version: int) -> pd.DataFrame:
    return _open_store(path).offer_field_coverage()


def coverage() -> pd.DataFrame:
    store = get_store()
    return _coverage(str(resolve_catalog_path()), store.data_version)


@st.cache_data(ttl=600, show_spinner=False)
def _provider_facts(path: str, data_version: int) -> pd.DataFrame:
    return _open_store(path).provider_facts()


def provider_facts() -> pd.DataFrame:
    """The sourced legal-seat and certification facts of every provider."""
    store = get_store()
    return _provider_facts(str(resolve_catalog_path()), store.data_version)


@st.cache_data(ttl=600, show_spinner=False)
def _headline(path: str, data_version: int) -> pd.DataFrame:
    return _open_store(path).headline_coverage()


def headline_coverage() -> pd.DataFrame:
    """Fabric, committed prices, EUR prices, certifications, legal seat: how many rows state them."""
    store = get_store()
    return _headline(str(resolve_catalog_path()), store.data_version)
