"""`make load`'s edit plan (bench/load/plan.py::plan_edits) does not depend on the date or on the seed's order.

On 2026-12-03 the old plan (Prices grid rows 0..4, whatever they held) stopped `make load` before any browser
started ("the first Prices grid rows would move after a save"): the rows were chosen by grid position, and a
save renames a price row with the save's date. The plan now picks rows by a stable key and predicts where the
grid shows each one when its save starts; these tests run it with a frozen clock over more than a year of
dates on the current seed, and replay it through the real store and the Editor page's own change builder."""

from __future__ import annotations

import datetime as dt
import shutil

import pandas as pd
import pytest

from bench.load.config import FILTER_EUR
from bench.load.plan import PricesSnapshot, plan_edits, providers_page_default_filter
from catalog.models import ChangeSet, Editor
from catalog.store import CatalogStore, OfferFilter
from engine.money import DEFAULT_USD_PER_EUR
from ui.editor_view import changes_from_editor, editable_frame

N_EDITS = 5  # make load's default
EDITOR = Editor(name="load-test@example.com", role="editor")


def _seed(seed_catalog_file):
    with CatalogStore(seed_catalog_file, read_only=True) as store:
        current = store.editable_rows("prices")
        every_id = set(store.editable_rows("prices", current_only=False)["price_id"])
    return current, every_id


def _date_range(current: pd.DataFrame) -> list[dt.date]:
    """From the newest seed price date (a save on that day collides with a seed id) for at least 450 days,
    and at least 60 days past the real today."""
    start = pd.to_datetime(current["valid_from"]).max().date()
    end = max(start + dt.timedelta(days=450), dt.date.today() + dt.timedelta(days=60))
    return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]


def test_the_plan_is_the_same_rows_on_every_day_and_predicts_where_the_grid_shows_them(seed_catalog_file):
    current, every_id = _seed(seed_catalog_file)
    days = _date_range(current)
    assert len(days) >= 400 and dt.date.today() in days
    snapshot = PricesSnapshot.read(seed_catalog_file)  # the catalog read once; planning is per day
    reference, _ = plan_edits(seed_catalog_file, N_EDITS, today=days[-1])
    by_id = current.set_index("price_id")
    for day in days:
        plan, n_providers = plan_edits(snapshot, N_EDITS, today=day)
        # The same rows every day: distinct offers, public on-demand prices, new amounts below the filter.
        assert [e.price_id for e in plan] == [e.price_id for e in reference], day
        assert len({e.offer_id for e in plan}) == N_EDITS
        assert n_providers == len({snapshot.provider_of[e.offer_id] for e in plan})
        for e in plan:
            row = by_id.loc[e.price_id]
            assert row["price_type"] == "on-demand" and not row["is_private"] and row["offer_id"] == e.offer_id
            assert e.offer_id in snapshot.on_providers_page
            assert e.old_amount == pytest.approx(float(row["amount_per_gpu_hour"]))
            # A new amount comes with its own provenance, read that day (the Editor refuses it otherwise).
            assert (e.old_source_url, e.old_retrieved_at) == (row["source_url"], row["retrieved_at"])
            assert e.source_url.startswith("https://") and e.source_url != e.old_source_url
            assert e.retrieved_at == day.isoformat()
            assert 0 < e.amount / (DEFAULT_USD_PER_EUR if row["currency"] == "USD" else 1.0) <= FILTER_EUR
        # Replay on a plain sorted list of ids: the new id is offer:type::day (":2" if a seed row has it), and
        # the predicted row is where the id sits after the earlier saves.
        ids, taken = sorted(current["price_id"]), set(every_id)
        for e in plan:
            base = f"{e.offer_id}:on-demand::{day.isoformat()}"
            expected_new = base if base not in taken else f"{base}:2"
            assert e.new_price_id == expected_new, day
            assert ids.index(e.price_id) == e.grid_row, (day, e)
            taken.add(expected_new)
            ids = sorted([i for i in ids if i != e.price_id] + [expected_new])


@pytest.mark.parametrize("offset_days", [0, 54, 419])  # the seed-id collision day, 2026-12-03, a year later
def test_replaying_the_plan_through_the_store_finds_each_row_where_predicted(seed_catalog_file, tmp_path, offset_days):
    """The editor's saves, done by the store and the page's own change builder on a copy of the seed: before
    each save the store's grid order (what the Editor page shows) has the row at ``grid_row``; afterwards
    the Providers filter of the final check finds exactly the edited offers."""
    current, _ = _seed(seed_catalog_file)
    day = pd.to_datetime(current["valid_from"]).max().date() + dt.timedelta(days=offset_days)
    plan, n_providers = plan_edits(seed_catalog_file, N_EDITS, today=day)
    path = tmp_path / "catalog.duckdb"
    shutil.copyfile(seed_catalog_file, path)
    with CatalogStore(path) as store:
        for k, e in enumerate(plan, start=1):
            grid = editable_frame(store.editable_rows("prices"), "prices")
            assert grid["price_id"].iloc[e.grid_row] == e.price_id, (day, k)
            every = set(store.editable_rows("prices", current_only=False)["price_id"])
            changes = changes_from_editor("prices", grid, {"edited_rows": {e.grid_row: e.edited_row()}},
                                          today=day, taken_ids=every)
            assert [c.key for c in changes if c.action == "insert"] == [e.new_price_id]
            store.apply_changes(ChangeSet(changes=changes, message=f"load test: save {k}"), EDITOR,
                                usd_per_eur=DEFAULT_USD_PER_EUR)
        # What the final check sees: the Providers page's default filter (the client brief's) plus the max price.
        shown = providers_page_default_filter().model_copy(update={"max_price_eur_per_gpu_hour": FILTER_EUR})
        seen = store.list_offers(shown, usd_per_eur=DEFAULT_USD_PER_EUR)
        anywhere = store.list_offers(OfferFilter(max_price_eur_per_gpu_hour=FILTER_EUR), usd_per_eur=DEFAULT_USD_PER_EUR)
    assert sorted(anywhere["offer_id"]) == sorted(e.offer_id for e in plan)  # no other offer is that cheap
    assert sorted(seen["offer_id"]) == sorted(e.offer_id for e in plan)
    with CatalogStore(path, read_only=True) as store:
        new_rows = store.table("prices").set_index("price_id").loc[[e.new_price_id for e in plan]]
    assert new_rows["source_url"].tolist() == [e.source_url for e in plan]
    assert (new_rows["retrieved_at"] == day.isoformat()).all() and new_rows["valid_to"].isna().all()
    assert seen["provider_id"].nunique() == n_providers


def test_too_many_or_too_few_edits_are_refused(seed_catalog_file):
    for n in (0, 10):
        with pytest.raises(SystemExit, match="between 1 and 9"):
            plan_edits(seed_catalog_file, n)
