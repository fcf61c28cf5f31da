"""Workspace quotes in the store (issue #29.6), on both backends: validated at the boundary and by the catalog's
hardware-truth rules, all-or-nothing, bounded, and reachable only with the workspace's link."""

import datetime as dt

import pytest

from catalog.errors import CatalogError
from catalog.quotes import MAX_QUOTES_PER_WORKSPACE, Quote
from catalog.storage.quotes import QuoteValidationError

TODAY = dt.date.today()


def quote(**over) -> dict:
    base = {"provider": "Acme GPU", "gpu_model": "H100", "form_factor": "SXM", "gpus_per_node": 8,
            "inter_node": "InfiniBand-NDR", "datacenter_country": "DE", "price_per_gpu_hour": 1.85, "currency": "EUR",
            "term_months": 36, "upfront_pct": 0, "capacity_gpus": 64, "lead_time_days": 90, "uptime_sla_pct": 99.9,
            "support_model": "dedicated-engineer", "is_dedicated": True, "min_commitment": "multi-year",
            "quote_date": TODAY.isoformat(), "valid_until": (TODAY + dt.timedelta(days=30)).isoformat(),
            "contact": "sales@acme.example", "note": "PDF of 2026-11-20"}
    return {**base, **over}


def test_a_quote_round_trips_in_its_workspace_only(store):
    acme, globex = store.create_workspace("ACME"), store.create_workspace("Globex")
    [qid] = store.save_quotes(acme, [quote()])
    [stored] = store.list_quotes(acme)
    assert stored.quote_id == qid and stored.quote.price_per_gpu_hour == 1.85 and stored.quote.capacity_gpus == 64
    assert stored.quote.label == f"Quote from Acme GPU, {TODAY.isoformat()}"
    assert store.list_quotes(globex) == [] and store.list_quotes(None) == []
    assert store.list_quotes("not-a-real-token-123") == []
    with pytest.raises(CatalogError, match="No quote"):
        store.delete_quote(globex, qid)  # knowing the number is not enough
    assert len(store.list_quotes(acme)) == 1
    store.delete_quote(acme, qid)
    assert store.list_quotes(acme) == []


def test_hardware_truth_and_bounds_refuse_the_whole_batch(store):
    ws = store.create_workspace("ACME")
    bad = [quote(), quote(gpu_model="H100", form_factor="OAM"), quote(gpu_model="H999"),
           quote(price_per_gpu_hour=float("inf")), quote(valid_until="2000-01-01"), quote(datacenter_country="Germany"),
           quote(offer_id="no-such-offer", gpu_model=None)]
    with pytest.raises(QuoteValidationError) as err:
        store.save_quotes(ws, bad)
    fields = {(where, field) for where, field, _ in err.value.problems}
    assert ("quote 2", "form_factor") in fields and ("quote 3", "gpu_model") in fields
    assert ("quote 4", "price_per_gpu_hour") in fields and ("quote 6", "datacenter_country") in fields
    assert ("quote 7", "offer_id") in fields and any(w == "quote 5" for w, _ in fields)
    assert store.list_quotes(ws) == []  # the valid first quote was not written either


def test_a_quote_on_a_catalog_offer_may_not_name_another_gpu(store):
    ws = store.create_workspace("ACME")
    offer = store.list_offers(usd_per_eur=1.0).query("gpu_model == 'H100'").iloc[0]
    store.save_quotes(ws, [quote(offer_id=offer.offer_id, gpu_model=None, form_factor=None)])
    with pytest.raises(QuoteValidationError, match="not a A100"):
        store.save_quotes(ws, [quote(offer_id=offer.offer_id, gpu_model="A100-80GB", form_factor=None)])


def test_replace_edits_in_place_and_the_count_is_capped(store):
    ws = store.create_workspace("ACME")
    [qid] = store.save_quotes(ws, [quote()])
    assert store.save_quotes(ws, [quote(price_per_gpu_hour=1.5)], replace={0: qid}) == [qid]
    assert [s.quote.price_per_gpu_hour for s in store.list_quotes(ws)] == [1.5]
    store.save_quotes(ws, [quote()] * (MAX_QUOTES_PER_WORKSPACE - 1))
    with pytest.raises(CatalogError, match=f"at most {MAX_QUOTES_PER_WORKSPACE}"):
        store.save_quotes(ws, [quote()])
    assert len(store.list_quotes(ws)) == MAX_QUOTES_PER_WORKSPACE


def test_quotes_are_never_catalog_data(store):
    ws = store.create_workspace("ACME")
    version = store.data_version
    store.save_quotes(ws, [quote(price_per_gpu_hour=7.4321)])
    assert store.data_version == version
    offers = store.list_offers(usd_per_eur=1.0, include_private=True)
    assert not (offers.select_dtypes("number") == 7.4321).any().any()
    with pytest.raises(CatalogError, match="not valid"):
        store.save_quotes("guessed-token-000000000", [quote()])


def test_the_model_refuses_nul_and_upfront_without_term():
    with pytest.raises(ValueError, match="NUL"):
        Quote.model_validate(quote(provider="A\x00B"))
    with pytest.raises(ValueError, match="upfront"):
        Quote.model_validate(quote(term_months=None, upfront_pct=10))


def test_a_catalog_built_before_quotes_gets_the_table_on_its_first_writable_open(catalog_path, pg_url):
    import duckdb
    import psycopg

    from catalog.storage.postgres import PostgresCatalogStore
    from catalog.store import CatalogStore

    con = duckdb.connect(str(catalog_path))
    con.execute("DROP TABLE workspace_quotes")
    con.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE workspace_quotes")
    for opened in (lambda: CatalogStore(catalog_path), lambda: PostgresCatalogStore(pg_url)):
        with opened() as store:
            ws = store.create_workspace("ACME")
            assert store.list_quotes(ws) == []
            store.save_quotes(ws, [quote()])
            assert len(store.list_quotes(ws)) == 1
