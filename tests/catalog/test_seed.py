"""Seed integrity: the embedded seed validates, references resolve, every row has a source and a date."""

import csv
import datetime as dt

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
                 models.PriceMethod, models.Currency, models.ProviderFactField, models.GpuScope]:
        listed = "(" + ", ".join(f"'{e.value}'" for e in enum) + ")"
        assert listed in sql, f"schema.sql CHECK list for {enum.__name__} differs from the model enum"


def _seed_context(seed):
    from catalog.models import EU_EEA_COUNTRIES
    from catalog.rules import RuleContext

    eu: dict[str, set[str]] = {}
    for o in seed.offers:
        if o.datacenter_country in EU_EEA_COUNTRIES:
            eu.setdefault(o.provider_id, set()).add(o.datacenter_country)
    return RuleContext(
        specs={s.gpu_spec_id: s.model_dump() for s in seed.gpu_specs},
        gpu_models={g.gpu_model for g in seed.gpu_models},
        aliases={a.alias.lower(): a.gpu_model for a in seed.gpu_aliases},
        offer_eu_countries_by_provider=eu,
    )


def test_seed_passes_the_hardware_truth_rules(seed):
    from catalog.rules import check_offer

    ctx = _seed_context(seed)
    errors = [f for o in seed.offers for f in check_offer(o.model_dump(), ctx) if f.level == "error"]
    assert errors == []


def test_seed_passes_the_ownership_rules(seed):
    from catalog.rules import check_provider

    ctx = _seed_context(seed)
    errors = [f for p in seed.providers for f in check_provider(p.model_dump(), ctx, REVISION_DATE)
              if f.level == "error"]
    assert errors == []


REVISION_DATE = dt.date(2026, 12, 3)  # the date this seed revision was checked against (issue #18)


def test_every_eu_parent_names_its_parent_from_a_dated_source(seed):
    # Issue #18: Taiga Cloud was marked EU although its parent is under non-EU control.
    eu = [p for p in seed.providers if p.parent_jurisdiction == "EU"]
    assert len(eu) >= 10
    for p in eu:
        assert p.parent_company and p.parent_company_source_url and p.parent_company_as_of, p.provider_id
    taiga = next(p for p in seed.providers if p.provider_id == "taiga-cloud")
    assert taiga.parent_jurisdiction != "EU" and taiga.eu_data_residency != "yes"
    assert "Rumble" in taiga.parent_company and "Tether" in taiga.parent_company


def test_certification_tokens_and_scope_rows_match(seed):
    # Every held certificate has a scope row (services, countries, GPU compute) and vice versa.
    tokens = {(f.provider_id, t) for f in seed.provider_facts if f.field == "certifications"
              for t in models.certification_tokens(f.value)}
    scoped = {(c.provider_id, c.certification) for c in seed.certification_scopes}
    assert tokens == scoped
    assert len({c.scope_id for c in seed.certification_scopes}) == len(seed.certification_scopes)


def test_certification_scope_corrections_of_issue_18(seed):
    facts = {(f.provider_id, f.field): f for f in seed.provider_facts}
    ovh = models.certification_tokens(facts[("ovhcloud", "certifications")].value)
    assert not {"SOC1", "SOC2", "SOC3"} & set(ovh)  # only OVHcloud US lists them
    scope = {(c.provider_id, c.certification): c for c in seed.certification_scopes}
    snc = scope[("ovhcloud", "SecNumCloud")]
    assert snc.covers_gpu_compute == "no" and snc.scope_countries == ["FR"]
    assert scope[("ovhcloud", "ISO27001")].covers_gpu_compute == "yes"
    # Scaleway's ISO 27001 / HDS rest on a blog sentence, not a certificate page: claimed, not verified.
    assert facts[("scaleway", "certifications")].verification_status == "claimed"
    assert {scope[("scaleway", c)].verification_status for c in ("ISO27001", "HDS")} == {"claimed"}
    # BSI C5 is on record for Azure, AWS and Open Telekom Cloud, each with its scope.
    assert {p for p, c in scope if c == "BSI-C5"} >= {"azure", "aws", "open-telekom-cloud"}


def test_mig_and_variant_corrections_of_issue_18(seed):
    specs = {s.gpu_spec_id: s for s in seed.gpu_specs}
    assert specs["RTX PRO 6000 Blackwell"].mig_max_instances == 4
    assert specs["B200"].mig_max_instances == 7
    assert specs["B300 SXM"].memory_gb == 288 and specs["B300 SXM"].gpu_model == "B300"
    assert specs["A100 PCIe 80GB"].nvlink_bandwidth_gb_per_s_bidirectional == 600
    assert specs["RTX PRO 6000 Blackwell Max-Q"].tdp_watts == 300
    for o in seed.offers:
        if o.gpu_model == "RTX PRO 6000 Blackwell":
            assert o.mig_supported is True, o.offer_id
        if o.gpu_model == "B300":
            assert o.gpu_spec_id == "B300 SXM", o.offer_id
    hetzner = next(o for o in seed.offers if o.provider_id == "hetzner")
    assert hetzner.gpu_spec_id == "RTX PRO 6000 Blackwell Max-Q"


def test_a_newer_price_supersedes_the_older_one_and_history_is_kept(seed):
    prices = [p for p in seed.prices if p.offer_id == "scaleway-h100-sxm-h100-sxm-8-80g-fr-par-2-eur"]
    current = [p for p in prices if p.valid_to is None]
    closed = [p for p in prices if p.valid_to is not None]
    assert [p.amount_per_gpu_hour for p in current] == [pytest.approx(25.3308 / 8)]
    assert [(p.amount_per_gpu_hour, p.valid_to) for p in closed] == [(pytest.approx(2.8785), dt.date(2026, 7, 30))]
    for offer_id in ("digitalocean-h100-cg-unspecified", "digitalocean-h100-gpu-droplet-8x"):
        now = [p.amount_per_gpu_hour for p in seed.prices if p.offer_id == offer_id and p.valid_to is None]
        assert now == [4.41], offer_id
    # one current price per offer, type, term and upfront share
    keys = [(p.offer_id, p.price_type, p.term_months, p.upfront_pct) for p in seed.prices if p.valid_to is None]
    assert len(keys) == len(set(keys))


def test_no_marketplace_price_is_an_artefact_far_below_the_providers_own_tier(seed):
    # Issue #18: RunPod Community MI300X at USD 0.50 (21 % of RunPod's Secure Cloud price) was a collector
    # artefact. A marketplace (Community) price under 40 % of the same provider's Secure price is rejected.
    prices = {p.offer_id: p.amount_per_gpu_hour for p in seed.prices if p.valid_to is None and p.price_type == "on-demand"}
    offers = {o.offer_id: o for o in seed.offers}
    secure = {(o.provider_id, o.gpu_model, o.form_factor): prices[o.offer_id] for o in offers.values()
              if "secure" in o.offer_id and o.offer_id in prices}
    for o in offers.values():
        ref = secure.get((o.provider_id, o.gpu_model, o.form_factor))
        if "community" in o.offer_id and o.offer_id in prices and ref:
            assert prices[o.offer_id] >= 0.4 * ref, (o.offer_id, prices[o.offer_id], ref)


def test_verified_rows_older_than_90_days_say_they_were_not_rechecked(seed):
    from catalog.models import as_of_lower_bound
    from catalog.rules import needs_recheck_mark

    rows = [(r.verification_status, as_of_lower_bound(r.as_of), r.notes)
            for r in [*seed.offers, *seed.provider_facts, *seed.certification_scopes]]
    rows += [(p.verification_status, p.valid_from, p.notes) for p in seed.prices]
    unmarked = [r for r in rows if needs_recheck_mark(r[0], r[1], r[2], REVISION_DATE)]
    assert unmarked == []
    assert sum(r[0] == "verified" for r in rows) > 50  # the check has rows to look at


def test_sources_md_describes_this_revision():
    # Issue #18: SOURCES.md still described an earlier revision. Its file table must match the files.
    text = (SEED_DIR / "SOURCES.md").read_text()
    for name in ("offers.csv", "providers.csv", "gpu_specs.csv", "provider_facts.csv", "certification_scopes.csv"):
        rows = sum(1 for _ in csv.DictReader((SEED_DIR / name).open()))
        assert f"| `{name}` | {rows} |" in text, f"SOURCES.md does not state the {rows} rows of {name}"


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


def test_certifications_are_certificates_not_laws_or_plans(seed):
    # Issue #18 follow-up: third-party "trust centre" catalogues list GDPR, CCPA and HIPAA next to SOC 2 and
    # ISO 27001. Those are laws a provider says it complies with, not certificates or attestations anyone
    # holds, so they must never become certification tokens (they would be selectable as "required
    # certifications" in scoring and pass for every provider claiming compliance). Certificates announced
    # as "in progress" are not held either.
    laws = {"GDPR", "CCPA", "HIPAA", "DSGVO", "DATAACT"}
    for fact in seed.provider_facts:
        if fact.field != "certifications":
            continue
        tokens = {t.upper().replace("-", "").replace(" ", "") for t in models.certification_tokens(fact.value)}
        assert not tokens & laws, (fact.provider_id, tokens & laws)
        assert "progress" not in fact.value.lower(), fact.provider_id
    crusoe = next(f for f in seed.provider_facts if (f.provider_id, f.field) == ("crusoe", "certifications"))
    assert models.certification_tokens(crusoe.value) == ["SOC2", "ISO27001", "ISO42001"]
    assert crusoe.verification_status == "claimed"  # a third-party copy, not Crusoe's own page


def test_stackit_gpu_rows_come_from_its_dated_price_api_and_sit_in_germany(seed):
    # Issue #30: STACKIT had no GPU offer. Its price API (stored copy, lastUpdatedAt 2026-06-09) lists GPU Server
    # flavors in eu01 (Germany); the per-GPU price is the instance price divided by the GPUs, never rounded away.
    stackit = {o.offer_id: o for o in seed.offers if o.provider_id == "stackit"}
    assert {o.instance_type for o in stackit.values()} >= {"n1.14d.g1", "n2.14d.g1", "n3.14d.g1", "n3.104d.g8"}
    assert all(o.datacenter_country == "DE" and o.as_of == "2026-06-09" for o in stackit.values())
    prices = {p.offer_id: p for p in seed.prices if p.offer_id in stackit}
    assert set(prices) == set(stackit) and all(p.currency == "EUR" for p in prices.values())
    h100x8 = next(k for k, o in stackit.items() if o.instance_type == "n3.104d.g8")
    assert prices[h100x8].amount_per_gpu_hour == pytest.approx(64.33080555556 / 8, abs=1e-6)


def test_b300_mig_is_marked_from_a_source_but_its_instance_count_is_not_guessed(seed):
    # Issue #30: a collector lists a rentable 'B300 SXM6 AC MIG 1g.34gb' slice, so B300 offers support MIG; no source
    # states how many instances, so the spec keeps that cell empty instead of borrowing B200's 7.
    b300 = [o for o in seed.offers if o.gpu_model == "B300"]
    assert b300 and all(o.mig_supported is True for o in b300)
    spec = next(s for s in seed.gpu_specs if s.gpu_spec_id == "B300 SXM")
    assert spec.mig_max_instances is None and "1g.34gb" in spec.notes


def test_dedicated_hardware_is_stated_only_with_a_source_and_a_date(seed):
    """#29: OCI bare-metal GPU shapes of the dated Compute Shapes crawl and Hetzner's GEX dedicated server are
    dedicated, Gcore's Virtual GPU offers shared; the BM.GPU.B200.8 (absent from that crawl) and every offer no
    source describes stay not stated."""
    crawl = ("https://github.com/jacklty/oci_doc_crawler/blob/8e7bbd7231f6e299bbc206ba0ae0590e3568e185/iaas/Content/"
             "Compute/References/computeshapes.md")
    by_id = {o.offer_id: o for o in seed.offers}
    stated = {o.offer_id: o for o in seed.offers if o.is_dedicated_hardware is not None}
    for o in stated.values():
        assert o.dedicated_source_url and o.dedicated_as_of, o.offer_id
        models.as_of_lower_bound(o.dedicated_as_of)
    oci = [o for i, o in by_id.items() if i.startswith("oracle-") and "-bm-gpu-" in i and "b200" not in i]
    assert len(oci) == 5
    for o in oci:
        assert o.is_dedicated_hardware is True and o.dedicated_source_url == crawl and o.dedicated_as_of == "2025-02-13"
        assert "oracle-livelabs/developer/blob/e98c3d862cd06743a5c068c8f57db45963dff7f3" in (o.notes or ""), o.offer_id
    assert by_id["oracle-b200-sxm-bm-gpu-b200-8-all-commercial-regions"].is_dedicated_hardware is None
    gex = [o for i, o in by_id.items() if i.startswith("hetzner-") and "-gex" in i]
    assert gex and all(o.is_dedicated_hardware is True and o.dedicated_source_url == o.source_url for o in gex)
    shared = sorted(i for i, o in stated.items() if o.is_dedicated_hardware is False)
    assert shared == ["gcore-h100-virtual-1x-eur", "gcore-h100-virtual-8x-eur"]
    assert set(stated) == {o.offer_id for o in [*oci, *gex]} | set(shared)  # nothing else claims either way
    # every price row of a stated offer carries the same flag and source (the first row is the offer's)
    rows = [r for r in csv.DictReader((SEED_DIR / "offers.csv").open())
            if offer_key(r["offer_id"], r["price_model"]) in stated]
    assert rows and all(r["is_dedicated_hardware"] in ("yes", "no") and r["dedicated_source_url"] for r in rows)
