"""The store: build, round trip, every filter, and clear errors for bad catalog files."""

import datetime as dt
import subprocess
import sys
import textwrap

import duckdb
import pandas as pd
import pytest

from catalog.errors import CatalogCorruptError, CatalogError, CatalogLockedError, SchemaVersionError
from catalog.models import EU_EEA_COUNTRIES
from catalog.seeding import load_seed
from catalog.store import NOT_STATED, CatalogStore, OfferFilter, build_catalog

TODAY = dt.date(2026, 12, 2)
FX = 1.0411


def offers(store, **filters):
    return store.list_offers(OfferFilter(**filters), usd_per_eur=FX, today=TODAY)


def test_round_trip_keeps_every_seed_row(store):
    seed = load_seed()
    assert len(store.table("providers")) == len(seed.providers)
    assert len(store.table("offers")) == len(seed.offers)
    prices = store.table("prices").set_index("price_id")
    for p in seed.prices[:20]:
        row = prices.loc[p.price_id]
        assert row["amount_per_gpu_hour"] == pytest.approx(p.amount_per_gpu_hour)
        assert row["currency"] == p.currency and row["source_url"] == p.source_url
    providers = store.table("providers").set_index("provider_id")
    assert providers.loc["ovhcloud", "certifications"].split(";")[:2] == ["ISO27001", "ISO27017"]


def test_usd_prices_are_converted_and_eur_prices_are_not(store):
    """Every offer's on-demand EUR figure equals its cheapest current public on-demand price, divided by the
    rate if it is in USD and unchanged if it is in EUR (offers priced in one currency only)."""
    df = offers(store).set_index("offer_id")
    prices = store.table("prices")
    od = prices[(prices.price_type == "on-demand") & prices.valid_to.isna() & ~prices.is_private.astype(bool)]
    one_currency = od.groupby("offer_id").currency.nunique() == 1
    od = od[od.offer_id.map(one_currency)]
    checked = set()
    for currency, to_eur in (("USD", 1 / FX), ("EUR", 1.0)):
        mine = od[od.currency == currency]
        assert len(mine) > 0, f"the seed has no {currency} on-demand price to check"
        expected = mine.groupby("offer_id").amount_per_gpu_hour.min() * to_eur
        got = df.loc[expected.index, "on_demand_eur_per_gpu_hour"]
        pd.testing.assert_series_equal(got, expected, check_names=False, rtol=1e-12, atol=0)
        checked |= set(expected.index)
    assert checked == set(od.offer_id)
    # one by hand: a single USD price
    single = od[od.currency == "USD"].groupby("offer_id").filter(lambda g: len(g) == 1).iloc[0]
    assert df.loc[single.offer_id, "on_demand_eur_per_gpu_hour"] == pytest.approx(
        single.amount_per_gpu_hour / 1.0411, rel=1e-12)


def test_reserved_price_never_shows_as_on_demand(store):
    df = offers(store, price_types=("reserved",))
    assert len(df) == store.table("prices").query("price_type == 'reserved'").offer_id.nunique()
    assert df["reserved_eur_per_gpu_hour"].notna().all()
    only_reserved = df[df["price_types"].map(lambda v: list(v) == ["reserved"])]
    assert only_reserved["on_demand_eur_per_gpu_hour"].isna().all()


@pytest.mark.parametrize(
    ("filters", "check"),
    [
        ({"gpu_models": ("H100",)}, lambda d: (d.gpu_model == "H100").all()),
        ({"form_factors": ("SXM",)}, lambda d: (d.form_factor == "SXM").all()),
        ({"form_factors": (NOT_STATED,)}, lambda d: d.form_factor.isna().all()),
        ({"intra_nodes": ("NVLink-NVSwitch",)}, lambda d: (d.intra_node == "NVLink-NVSwitch").all()),
        ({"inter_nodes": ("InfiniBand-NDR", "InfiniBand-HDR")}, lambda d: d.inter_node.str.startswith("InfiniBand").all()),
        ({"memory_types": ("HBM3",)}, lambda d: (d.memory_type == "HBM3").all()),
        ({"eu_datacenter_only": True}, lambda d: d.is_eu_datacenter.astype(bool).all()),
        ({"jurisdictions": ("EU",)}, lambda d: (d.parent_jurisdiction == "EU").all()),
        ({"price_types": ("spot",)}, lambda d: d.spot_eur_per_gpu_hour.notna().all()),
        ({"max_price_eur_per_gpu_hour": 2.0}, lambda d: (d.best_selected_eur_per_gpu_hour <= 2.0).all()),
        ({"provider_ids": ("scaleway", "ovhcloud")}, lambda d: set(d.provider_id) == {"scaleway", "ovhcloud"}),
    ],
)
def test_each_filter_narrows_to_matching_rows(store, filters, check):
    everything = offers(store)
    narrowed = offers(store, **filters)
    assert 0 < len(narrowed) < len(everything)
    assert check(narrowed)


def test_the_first_question_h100_sxm_infiniband_in_the_eu(store):
    df = offers(store, gpu_models=("H100",), form_factors=("SXM",), inter_nodes=("InfiniBand-NDR",),
                eu_datacenter_only=True)
    assert len(df) >= 1
    assert set(df.datacenter_country) <= EU_EEA_COUNTRIES
    assert df.on_demand_eur_per_gpu_hour.notna().all()


def test_filters_can_match_nothing(store):
    assert offers(store, gpu_models=("L4",), inter_nodes=("InfiniBand-NDR",)).empty


def test_staleness_is_measured_from_today(store):
    df = offers(store)
    expected = pd.to_datetime(df.as_of_date) < pd.Timestamp(TODAY - dt.timedelta(days=180))
    assert (df.is_stale == expected).all()
    assert store.summary(TODAY)["stale_offers"] == int(expected.sum())


def test_commitment_staleness_is_judged_on_the_price_it_uses(store):
    """#29.4, per price type: the staleness flags of the reserved and on-demand prices follow each price's own
    retrieval date (one rule, catalog.counts), and a commitment is judged on the reserved price when there is one."""
    from catalog.counts import is_stale_age
    from engine.adapters import uncommittable_reasons

    df = offers(store)
    for kind in ("reserved", "on_demand"):
        dated = df[df[f"{kind}_retrieved_at"].notna()]
        assert len(dated) > 0
        ages = (pd.Timestamp(TODAY) - pd.to_datetime(dated[f"{kind}_retrieved_at"].str[:10], format="mixed")).dt.days
        assert dated[f"{kind}_is_stale"].tolist() == [is_stale_age(int(a)) for a in ages]
        assert df.loc[df[f"{kind}_retrieved_at"].isna(), f"{kind}_is_stale"].isna().all()
    # An offer observed long ago whose reserved price is fresh may take a commitment; the reverse may not.
    row = df[df["reserved_eur_per_gpu_hour"].notna() & df["inter_node"].notna() & df["memory_gb"].notna()].iloc[0]
    fresh = row.to_dict() | {"is_stale": True, "reserved_is_stale": False, "on_demand_is_stale": True}
    stale = row.to_dict() | {"is_stale": False, "reserved_is_stale": True, "on_demand_is_stale": False}
    assert uncommittable_reasons([fresh, stale]) == ["", "stale price"]
    no_reserved = fresh | {"reserved_eur_per_gpu_hour": float("nan")}  # priced from on demand: its date counts
    assert uncommittable_reasons([no_reserved]) == ["stale price"]


def test_filter_values_are_parameters_not_sql(store):
    nasty = "H100'); DROP TABLE offers; --"
    assert offers(store, gpu_models=(nasty,)).empty
    assert len(store.table("offers")) == len(load_seed().offers)


def test_build_never_overwrites(catalog_path):
    before = catalog_path.read_bytes()
    with pytest.raises(CatalogError, match="never overwritten"):
        build_catalog(catalog_path)
    assert catalog_path.read_bytes() == before


def test_corrupt_file_gives_a_clear_message_and_is_left_alone(tmp_path):
    bad = tmp_path / "catalog.duckdb"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CatalogCorruptError, match="not a DuckDB catalog"):
        CatalogStore.open_or_build(bad)
    assert bad.read_bytes() == b"this is not a database" * 100


def test_other_schema_version_is_refused_with_the_fix(catalog_path):
    con = duckdb.connect(str(catalog_path))
    con.execute("UPDATE catalog_meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    before = catalog_path.read_bytes()
    from catalog.store import SCHEMA_VERSION

    with pytest.raises(SchemaVersionError, match=f"version 99.*reads version {SCHEMA_VERSION}.*move it aside"):
        CatalogStore(catalog_path)
    assert catalog_path.read_bytes() == before


def test_foreign_keys_are_enforced(store):
    # Schema 2 has no SQL FOREIGN KEYs (DuckDB cannot delete a parent and its children in one
    # transaction); the store checks every reference inside the write's transaction instead.
    from catalog.errors import ChangeValidationError
    from catalog.models import ChangeSet, Editor, RowChange

    checksum = store.content_checksum()
    price = {"price_id": "x", "offer_id": "no-such-offer", "price_type": "on-demand", "amount_per_gpu_hour": 1,
             "currency": "EUR", "valid_from": "2026-01-01", "source_url": "https://e.com/p", "retrieved_at": "2026",
             "method": "page"}
    with pytest.raises(ChangeValidationError, match="offers 'no-such-offer' does not exist .foreign-key constraint"):
        store.apply_changes(ChangeSet(changes=[RowChange(table="prices", action="insert", key="x", values=price)],
                                      message="dangling"), Editor(name="a", role="editor"))
    assert store.content_checksum() == checksum


def test_commitment_price_filed_as_on_demand_is_refused_by_the_schema(store):
    with pytest.raises(store._constraint_errors):  # duckdb.ConstraintException / psycopg IntegrityError
        store.cursor().execute(
            "INSERT INTO prices (price_id, offer_id, price_type, term_months, amount_per_gpu_hour, currency, "
            "valid_from, source_url, retrieved_at, method, verification_status) "
            "SELECT 'y', offer_id, 'on-demand', 12, 1, 'EUR', DATE '2026-01-01', 'https://e.com', '2026', 'page', "
            "'claimed' FROM offers LIMIT 1"
        )


def test_locked_file_names_the_holder(catalog_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import duckdb, sys, time
            con = duckdb.connect({str(catalog_path)!r})
            print("locked", flush=True)
            time.sleep(30)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(CatalogLockedError, match=rf"process {holder.pid}"):
            CatalogStore(catalog_path)
    finally:
        holder.kill()
        holder.wait()


def test_unwritable_file_opens_read_only(catalog_path, monkeypatch):
    # Root can write any file, so the permission check itself is simulated: the store asks os.access.
    monkeypatch.setattr("catalog.store.os.access", lambda path, mode: False)
    with CatalogStore(catalog_path) as s:
        assert s.read_only and len(s.table("offers")) == len(load_seed().offers)
        with pytest.raises(duckdb.Error, match="read-only"):
            s.cursor().execute("DELETE FROM prices")


def test_field_coverage_counts_missing_values(store):
    cov = store.offer_field_coverage().set_index("field")
    df = store.table("offers")
    assert cov.loc["inter node", "offers_missing"] == df.inter_node.isna().sum()
    assert cov.loc["form factor", "offers_missing"] == df.form_factor.isna().sum()


def test_data_report_prints_every_section(catalog_path, capsys):
    from catalog.cli import main

    assert main(["report", "--path", str(catalog_path)]) == 0
    out = capsys.readouterr().out
    for heading in ("Offers missing each field", "Per provider", "Age of current prices", "rows to re-verify (observed more than 180 days ago)",
                    "with a stale price"):
        assert heading in out


def test_provider_coverage_adds_up_to_the_offers(store):
    cov = store.provider_coverage()
    offers = store.table("offers")
    assert cov.offers.sum() == len(offers)
    assert cov.missing_fabric.sum() == offers.inter_node.isna().sum()
    assert store.price_age_histogram(TODAY).prices.sum() == len(store.list_prices())


def test_headline_coverage_counts_match_the_seed_rows(store):
    seed = load_seed()
    head = store.headline_coverage().set_index("fact")
    offer_provider = {o.offer_id: o.provider_id for o in seed.offers}
    committed = {offer_provider[p.offer_id] for p in seed.prices if p.price_type == "reserved" and p.term_months in (12, 36)}
    assert head.loc["providers with a 1-year or 3-year committed price", "have"] == len(committed) >= 5
    eur = {offer_provider[p.offer_id] for p in seed.prices if p.currency == "EUR"}
    assert head.loc["providers with EUR list prices", "have"] == len(eur)
    assert head.loc["providers with certifications on record", "have"] == sum(1 for p in seed.providers if p.certifications)
    assert head.loc["providers with a legal seat on record", "have"] == sum(1 for p in seed.providers if p.legal_seat_country)
    # current committed prices only (a seed row closed by a newer one has valid_to: Hyperstack's undated
    # reservation prices were dated by a 2026-10-06 copy, issue #30)
    upfront = [p for p in seed.prices if p.price_type == "reserved" and p.valid_to is None]
    assert head.loc["committed prices stating their upfront share", "have"] == sum(p.upfront_pct is not None for p in upfront)
    assert head.loc["committed prices stating their upfront share", "of"] == len(upfront)
    assert (head["have"] <= head["of"]).all()


def test_one_year_and_three_year_columns_hold_only_their_own_term(store):
    df = offers(store).set_index("offer_id")
    prices = store.table("prices")
    cur = prices[prices.valid_to.isna() & (prices.price_type == "reserved")]
    for offer_id, group in cur.groupby("offer_id"):
        for term, col in ((12, "reserved_1y_eur_per_gpu_hour"), (36, "reserved_3y_eur_per_gpu_hour")):
            own = group[group.term_months == term]
            if own.empty:
                assert pd.isna(df.loc[offer_id, col])
            else:
                eur = [a if c == "EUR" else a / FX for a, c in zip(own.amount_per_gpu_hour, own.currency, strict=True)]
                assert df.loc[offer_id, col] == pytest.approx(min(eur))


def test_provider_facts_round_trip_and_feed_the_provider_columns(store):
    seed = load_seed()
    facts = store.provider_facts()
    assert len(facts) == len(seed.provider_facts) > 0
    providers = store.table("providers").set_index("provider_id")
    for f in facts.itertuples():
        if f.field == "legal_seat_country":
            assert providers.loc[f.provider_id, "legal_seat_country"] == f.value
        if f.field == "certifications":
            assert set(providers.loc[f.provider_id, "certifications"].split(";")) == set(f.value.split(";"))
    assert set(store.provider_facts(["nebius"]).provider_id) <= {"nebius"}


def test_a_catalog_built_before_provider_facts_gets_the_table_on_a_writable_open(tmp_path):
    path = tmp_path / "old.duckdb"
    build_catalog(path)
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE provider_facts")  # what a catalog built by the first schema-1 release looks like
    con.close()
    with CatalogStore(path, read_only=True) as old:
        assert old.provider_facts().empty  # read-only: left as it is, reads show no facts
        assert "provider_facts" not in set(old.stale_rows(TODAY).table_name)
    with CatalogStore(path) as upgraded:
        assert upgraded.provider_facts().empty
        assert len(upgraded.table("offers")) == len(load_seed().offers)  # nothing else touched
    with CatalogStore(path, read_only=True) as again:
        assert again._has_table("provider_facts")


def test_the_vectorised_stale_mask_is_the_per_row_rule(store):
    """catalog.counts.stale_price_mask runs on every page's rerun, vectorised (#31); it must say exactly what the
    per-row definition (price_date: the price's retrieval date, else the offer's as_of_date, else as_of; then
    is_stale_age) says, on the seed at three dates and on edge rows."""
    import numpy as np

    from catalog.counts import is_stale_age, price_age_days, stale_price_mask

    edge = pd.DataFrame({"price_retrieved_at": ["2026", "2026-05", None, "not a date", None, "2020-01-31T10:00"],
                         "as_of_date": [None, None, pd.Timestamp("2021-03-01"), None, None, None],
                         "as_of": [None, None, None, "2019-07", None, None]})
    for frame in (offers(store), edge):
        for day in (TODAY, dt.date(2025, 6, 1), dt.date(2027, 3, 1)):
            per_row = np.asarray([is_stale_age(price_age_days(r, day)) for r in frame.to_dict("records")])
            assert stale_price_mask(frame, day).tolist() == per_row.tolist()
    assert stale_price_mask(edge, TODAY).tolist() == [True, True, True, True, False, True]
