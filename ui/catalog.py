"""Cached access to the catalog for every Streamlit session of this server process."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from catalog.errors import CatalogError, CatalogUnavailableError
from catalog.store import CatalogBackend, OfferFilter, open_catalog_for_app, resolve_catalog_location
from engine.adapters import price_outlier_columns
from ui.scenario import get_scenario

#: Seconds between retries while the catalog database is unavailable (PostgreSQL backend, issue #21).
RETRY_SECONDS = 3
#: How long this process holds the catalog's ``data_version`` in memory before asking the database again (issue
#: #31): a page rerun read it on every cached read (one query each, about 4 % of a loaded server's script time).
#: A save made through this process clears the hold at once (the editor clears every cached read after a
#: write); a save by another process (the cluster's other replicas, the CLI) is seen within this bound.
DATA_VERSION_HOLD_SECONDS = 2.0
#: Offer frames of distinct filters kept per process (shared by every session; keyed by catalog version).
OFFER_FRAMES_KEPT = 64


@st.cache_resource(show_spinner="Opening the catalog…")
def _open_for_app(path: str) -> tuple[CatalogBackend, str | None]:
    # One store per process and location (a DuckDB file or a postgresql:// URL); callers take a cursor per
    # query (the store does).
    return open_catalog_for_app(path)


def _open_store(path: str) -> CatalogBackend:
    return _open_for_app(path)[0]


def catalog_location() -> str:
    """``$GPU_ADVISOR_DATABASE_URL`` when set, else the DuckDB file path (cache keys and the opened store)."""
    return resolve_catalog_location()


@st.fragment(run_every=RETRY_SECONDS)
def _retry_until_available(path: str) -> None:
    """Re-checks the database every few seconds from the browser (a fragment rerun, not a blocked server thread)
    and reloads the page once it answers: the app recovers from a PostgreSQL restart without its own restart."""
    try:
        _open_for_app(path)[0].data_version  # noqa: B018
    except CatalogUnavailableError:
        st.caption(f"Still unavailable at {dt.datetime.now():%H:%M:%S}.")
        return
    st.rerun(scope="app")


@st.cache_data(ttl=DATA_VERSION_HOLD_SECONDS, show_spinner=False, max_entries=8)
def _held_data_version(path: str) -> int:
    """The catalog's data version, held for :data:`DATA_VERSION_HOLD_SECONDS` (``st.cache_data.clear()``, called
    after every save through the UI, drops it); an unavailable database raises and nothing is held."""
    return _open_for_app(path)[0].data_version


def data_version() -> int:
    """The catalog version that read caches key on (held in memory for a short bound, see above)."""
    return _held_data_version(catalog_location())


def get_store() -> CatalogBackend:
    """The process-wide store; a degraded (read-only) mode shows its notice; a database that cannot be reached
    shows "catalog unavailable, retrying" and reruns the page until it answers; on a catalog problem that
    cannot degrade, show the message and stop the page."""
    path = catalog_location()
    try:
        store, notice = _open_for_app(path)
        _held_data_version(path)  # reaches the database (at most every few seconds): a lost PostgreSQL is reported here
        if notice:
            st.warning(f"**Read-only mode.** {notice}", icon=":material/lock:")
        return store
    except CatalogUnavailableError as exc:
        import logging

        logging.getLogger("gpu_cloud_advisor").warning("catalog unavailable: %s", exc)
        st.error(f"**Catalog unavailable, retrying every {RETRY_SECONDS} s.** {exc}", icon=":material/sync:")
        _retry_until_available(path)
        st.stop()
        raise  # unreachable: st.stop() raises
    except CatalogError as exc:
        st.error(f"**The catalog cannot be opened.** {exc}", icon=":material/error:")
        import logging

        logging.getLogger("gpu_cloud_advisor").error("catalog error: %s", exc)
        st.stop()
        raise  # unreachable: st.stop() raises


def sees_private() -> bool:
    """May this session see private values (negotiated quotes, who edited)? Only a signed-in editor, checked
    again on every rerun. Every cached result derived from the catalog carries this in its key."""
    from ui.auth import is_editor

    return is_editor()


def uses_private_prices() -> bool:
    """Do this session's prices include private negotiated ones? Only for a signed-in editor who switched on
    "Include private prices in this scenario and its exports" (issue #28.2, :mod:`ui.private_prices`): by
    default editors' pages, scenarios and exports use public prices, as everyone else's."""
    from ui.auth import is_editor

    return bool(get_scenario().private_prices) and is_editor()


@st.cache_resource(ttl=600, show_spinner=False, max_entries=OFFER_FRAMES_KEPT)
def _shared_offers(path: str, data_version: int, filters: OfferFilter, usd_per_eur: float, today: dt.date,
                   include_private: bool = False) -> pd.DataFrame:
    """One frame per process for every session asking the same (issue #31): ``st.cache_data`` unpickled a copy on
    every read. Callers get :func:`offers_frame`'s shallow copy; with pandas' copy-on-write (always on since
    pandas 3) a caller's change to it never reaches this frame."""
    store = _open_store(path)
    # Price outliers are judged on the whole catalog, then the rows are narrowed: a filter never changes a flag.
    whole = (None if filters == OfferFilter() else
             _shared_offers(path, data_version, OfferFilter(), usd_per_eur, today, include_private))
    frame = store.list_offers(filters, usd_per_eur=usd_per_eur, today=today, include_private=include_private)
    if whole is None:
        return pd.concat([frame, price_outlier_columns(frame).set_axis(frame.index)], axis=1)
    flags = whole.set_index("offer_id")[[c for c in whole.columns if c not in frame.columns]].reindex(frame["offer_id"])
    return pd.concat([frame, flags.set_axis(frame.index)], axis=1)


def offers_frame(path: str, data_version: int, filters: OfferFilter, usd_per_eur: float, today: dt.date,
                 include_private: bool = False) -> pd.DataFrame:
    """The offers of ``filters`` with their price-outlier flags (judged on the whole catalog)."""
    return _shared_offers(path, data_version, filters, usd_per_eur, today, include_private).copy(deep=False)


def offers(filters: OfferFilter | None, usd_per_eur: float) -> pd.DataFrame:
    """Offers with current prices; negotiated private quotes are included only for a signed-in editor who
    included private prices in the scenario (:func:`uses_private_prices`)."""
    get_store()
    return offers_frame(catalog_location(), data_version(), filters or OfferFilter(), usd_per_eur,
                        dt.date.today(), uses_private_prices())


@st.cache_data(ttl=600, show_spinner=False)
def _table(path: str, data_version: int, name: str, include_private: bool) -> pd.DataFrame:
    return _open_store(path).table(name, include_private=include_private)


def table(name: str) -> pd.DataFrame:
    get_store()
    return _table(catalog_location(), data_version(), name, sees_private())


@st.cache_data(ttl=600, show_spinner=False)
def _editable_rows(path: str, data_version: int, name: str, include_private: bool) -> pd.DataFrame:
    return _open_store(path).editable_rows(name, include_private=include_private)


def editable_rows(name: str, include_private: bool) -> pd.DataFrame:
    """The Catalog editor's current rows of ``name``, read once per catalog version (issue #31: the editor queried
    every table on each rerun); a save through the UI clears every cached read, so the grid shows it at once."""
    get_store()
    return _editable_rows(catalog_location(), data_version(), name, include_private)


@st.cache_data(ttl=600, show_spinner=False)
def _stale_rows(path: str, data_version: int, today: dt.date, include_private: bool) -> pd.DataFrame:
    return _open_store(path).stale_rows(today, include_private=include_private)


def stale_rows(include_private: bool) -> pd.DataFrame:
    """Rows whose source is older than the staleness limit, read once per catalog version and day."""
    get_store()
    return _stale_rows(catalog_location(), data_version(), dt.date.today(), include_private)


@st.cache_data(ttl=600, show_spinner=False)
def _summary(path: str, data_version: int, today: dt.date) -> dict:
    return _open_store(path).summary(today)


def summary() -> dict:
    get_store()
    return _summary(catalog_location(), data_version(), dt.date.today())


@st.cache_data(ttl=600, show_spinner=False)
def _store_frame(path: str, data_version: int, method: str) -> pd.DataFrame:
    """A store read that takes no arguments, cached per catalog version (``method`` names a CatalogStore method)."""
    return getattr(_open_store(path), method)()


def _frame(method: str) -> pd.DataFrame:
    get_store()
    return _store_frame(catalog_location(), data_version(), method)


def coverage() -> pd.DataFrame:
    """For each offer field decisions rest on: how many offers lack it."""
    return _frame("offer_field_coverage")


def provider_facts() -> pd.DataFrame:
    """The sourced legal-seat and certification facts of every provider."""
    return _frame("provider_facts")


def headline_coverage() -> pd.DataFrame:
    """Fabric, committed prices, EUR prices, certifications, legal seat: how many rows state them."""
    return _frame("headline_coverage")


@st.cache_data(ttl=600, show_spinner=False, max_entries=256)
def _public_prices(path: str, data_version: int, offer_id: str) -> pd.DataFrame:
    prices = _open_store(path).list_prices([offer_id])
    return prices[~prices["is_private"].astype(bool)].reset_index(drop=True)


def offer_prices(offer_id: str | None) -> pd.DataFrame:
    """Current public price rows of one offer (native currency; private quotes never included)."""
    store = get_store()
    if not offer_id:
        return store.list_prices([]).iloc[0:0]
    return _public_prices(catalog_location(), data_version(), offer_id)
