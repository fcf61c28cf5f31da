"""Seed integrity: the embedded seed validates, references resolve, every row has a source and a date."""

import csv

import pytest

from catalog import models
from catalog.seeding import SEED_DIR, load_seed, offer_key
from catalog.store import SCHEMA_SQL


@pytest.fixture(scope="module")
def seed():
    return load_seed()


def test_seed_sizes_match_the_files(seed):
    offer_rows = list(csv.DictReader((SEED_DIR / "offers.csv").open()))
    provider_rows = list(csv.DictReader((SEED_DIR / "providers.csv").open()))
    assert len(seed.providers) == len(provider_rows) >= 29
    # one price per offers.csv row that states an hourly price; offers are those rows minus price-model duplicates
    assert len(seed.prices) == sum(1 for r in offer_rows if r["price_per_gpu_hour"].strip())
    offer_keys = {offer_key(r["offer_id"], r["price_model"]) for r in offer_rows}
    assert len(seed.offers) == len(offer_keys) >= 130


def test_every_offer_references_a_known_provider_and_gpu_model(seed):
    providers = {p.provider_id for p in seed.providers}
    gpu_models = {g.gpu_model for g in seed.gpu_models}
    specs = {s.gpu_spec_id: s for s in seed.gpu_specs}
    for offer in seed.offers:
        assert offer.provider_id in providers, offer.offer_id
        assert offer.gpu_model in gpu_models, offer.offer_id
        if offer.gpu_spec_id is not None:
            assert specs[offer.gpu_spec_id].gpu_model == offer.gpu_model
            if offer.form_factor is not None:
                assert specs[offer.gpu_spec_id].form_factor == offer.form_factor


def test_every_price_references_an_offer(seed):
    offers = {o.offer_id for o in seed.offers}
    assert all(p.offer_id in offers for p in seed.prices)
    assert len({p.price_id for p in seed.prices}) == len(seed.prices)


def test_every_row_has_a_source_and_a_date(seed):
    for row in [*seed.providers, *seed.offers, *seed.provider_facts]:
        assert row.source_url.startswith("http") and row.as_of
    for price in seed.prices:
        assert price.source_url.startswith("http") and price.retrieved_at and price.valid_from
    for spec in seed.gpu_specs:
        assert spec.source_url.startswith("http")  # spec sheets carry no observation date in the dataset


def test_h100_without_form_factor_is_not_guessed(seed):
    unlinked = [o for o in seed.offers if o.gpu_model == "H100" and o.form_factor is None]
    assert unlinked and all(o.gpu_spec_id is None for o in unlinked)


def test_reserved_rows_keep_their_term_as_the_source_states_it(seed):
    # No term in the source stays no term (never inferred); reserved-1y/-3y rows imply 12/36 months.
    for r in csv.DictReader((SEED_DIR / "offers.csv").open()):
        if r["price_model"].startswith("reserved") and r["price_per_gpu_hour"].strip():
            offer_id = offer_key(r["offer_id"], r["price_model"])
            expected = int(r["term_months"]) if r["term_months"] else {"reserved-1y": 12, "reserved-3y": 36}.get(r["price_model"])
            terms = [p.term_months for p in seed.prices if p.offer_id == offer_id and p.price_type == "reserved"]
            assert expected in terms, (offer_id, expected, terms)


def test_schema_checks_list_exactly_the_model_enums():
    sql = SCHEMA_SQL.read_text()
    for enum in [models.FormFactor, models.MemoryType, models.IntraNode, models.InterNode, models.Jurisdiction,
                 models.SupportModel, models.MinCommitment, models.Verification, models.PriceType,
                 models.PriceMethod, models.Currency, models.ProviderFactField]:
        listed = "(" + ", ".join(f"'{e.value}'" for e in enum) + ")"
        assert listed in sql, f"schema.sql CHECK list for {enum.__name__} differs from the model enum"


def test_seed_passes_the_hardware_truth_rules(seed):
    from catalog.rules import RuleContext, check_offer

    ctx = RuleContext(
        specs={s.gpu_spec_id: s.model_dump() for s in seed.gpu_specs},
        gpu_models={g.gpu_model for g in seed.gpu_models},
        aliases={a.alias.lower(): a.gpu_model for a in seed.gpu_aliases},
    )
    errors = [f for o in seed.offers for f in check_offer(o.model_dump(), ctx) if f.level == "error"]
    assert errors == []


def test_sovereignty_facts_have_one_home_and_clean_tokens(seed):
    # providers.csv leaves seat and certifications to provider_facts.csv, so the two can never disagree.
    for r in csv.DictReader((SEED_DIR / "providers.csv").open()):
        assert not r["legal_seat_country"] and not r["certifications"], r["provider_id"]
    keys = [(f.provider_id, f.field) for f in seed.provider_facts]
    assert len(keys) == len(set(keys))
    for fact in seed.provider_facts:
        if fact.field == "certifications":
            for token in fact.value.split(";"):
                assert token and " " not in token and token == token.strip(), (fact.fact_id, token)
        assert fact.as_of and fact.source_url.startswith("http")


def test_commitment_rows_carry_their_terms_and_upfront_only_where_stated(seed):
    rows = list(csv.DictReader((SEED_DIR / "offers.csv").open()))
    for r in rows:
        if r["upfront_pct"]:
            assert r["price_model"].startswith("reserved"), r["offer_id"]
            assert 0 <= float(r["upfront_pct"]) <= 100
    by_id = {p.price_id: p for p in seed.prices}
    upfront = [p for p in by_id.values() if p.upfront_pct is not None]
    assert upfront and all(p.price_type == "reserved" and p.term_months for p in upfront)
