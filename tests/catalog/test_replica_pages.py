"""The app on the PostgreSQL backend (issue #21): the page caches follow the shared catalog version, and a
database that cannot be reached gives a clear message instead of a traceback."""

from __future__ import annotations

from catalog.models import ChangeSet, Editor, RowChange
from catalog.storage.postgres import PostgresCatalogStore
from catalog.store import DATABASE_URL_ENV
from tests.app.conftest import open_page

ALICE = Editor(name="alice@example.com", role="editor")


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_a_save_by_another_replica_shows_on_the_first_rerun_after_the_hold(pg_url, monkeypatch):
    """Each process holds the catalog version for ui.catalog.DATA_VERSION_HOLD_SECONDS (issue #31): another
    replica's save shows on the first rerun after that bound."""
    import time

    from ui.catalog import DATA_VERSION_HOLD_SECONDS

    monkeypatch.setenv(DATABASE_URL_ENV, pg_url)
    at = open_page("app_pages/home.py")
    offers = int(_metric(at, "Offers"))
    with PostgresCatalogStore(pg_url) as other_replica:  # another process's store on the same database
        offer = other_replica.editable_rows("offers").offer_id.iloc[0]
        prices = other_replica.list_prices([offer], current_only=False, include_private=True)
        changes = [RowChange(table="prices", action="delete", key=p.price_id, expected_version=int(p.row_version))
                   for p in other_replica.editable_rows("prices", current_only=False, include_private=True)
                   .query("offer_id == @offer").itertuples()]
        assert len(changes) == len(prices) > 0
        changes.append(RowChange(table="offers", action="delete", key=offer,
                                 expected_version=int(other_replica.row("offers", offer)["row_version"])))
        other_replica.apply_changes(ChangeSet(changes=changes, message="withdrawn"), ALICE)
    time.sleep(DATA_VERSION_HOLD_SECONDS + 0.1)
    at.run()
    assert not at.exception
    assert int(_metric(at, "Offers")) == offers - 1


def test_an_unreachable_database_says_catalog_unavailable_retrying(monkeypatch):
    from bench.pg_local import free_port

    monkeypatch.setenv(DATABASE_URL_ENV, f"postgresql://postgres@127.0.0.1:{free_port()}/nothing")
    at = open_page("app_pages/home.py")
    text = " ".join(e.value for e in at.error)
    assert "Catalog unavailable, retrying" in text and "catalog database is unavailable" in text
    assert "127.0.0.1" not in text and "nothing" not in text  # no connection detail on a page (issue #28.3)
    assert not at.metric  # the page stopped: no half-drawn catalog
