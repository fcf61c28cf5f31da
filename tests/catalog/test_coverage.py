"""The EU-sovereignty numbers of the data report (issue #18), measured on the seed catalog."""

import datetime as dt

import pandas as pd

from catalog import coverage
from catalog.cli import _sovereignty_report, main
from catalog.store import OfferFilter

TODAY = dt.date(2026, 12, 3)


def test_the_sovereign_filter_returns_eu_parent_h100_sxm_infiniband_offers_in_eu_data_centres(store):
    found = store.list_offers(OfferFilter(**coverage.SOVEREIGN_FILTER), usd_per_eur=1.1, today=TODAY)
    assert len(found) >= 1  # issue #18: it returned nothing before
    assert set(found["parent_jurisdiction"]) == {"EU"}
    assert found["is_eu_datacenter"].all()
    assert set(found["inter_node"]) <= {"InfiniBand-NDR", "InfiniBand-HDR"}
    assert set(found["form_factor"]) == {"SXM"} and set(found["gpu_model"]) == {"H100"}


def test_the_shortlist_keeps_only_offers_with_fabric_country_and_a_fresh_price(store):
    offers = store.list_offers(None, usd_per_eur=1.1, today=TODAY)
    short = coverage.sovereign_shortlist(offers, TODAY)
    assert not short.empty
    assert set(short["parent_jurisdiction"]) == {"EU"}
    assert short["inter_node"].isin(coverage.FABRICS).all() and short["datacenter_country"].notna().all()
    assert short["gpu_model"].isin(coverage.SHORTLIST_GPUS).all()
    # a year later the same prices are no longer "observed within 12 months"
    assert coverage.sovereign_shortlist(offers, TODAY + dt.timedelta(days=800)).empty


def test_certification_scope_decides_which_offers_a_certificate_counts_for(store):
    offers = store.list_offers(None, usd_per_eur=1.1, today=TODAY).set_index("offer_id")
    ovh = offers[offers["provider_id"] == "ovhcloud"]
    in_scope = {t for v in ovh["certifications_in_scope"].dropna() for t in v.split(";")}
    assert "ISO27001" in in_scope and "SecNumCloud" not in in_scope  # SecNumCloud: named offers only
    assert "SecNumCloud" in ovh["certifications"].iloc[0].split(";")  # held, just not for these offers
    do = offers[offers["provider_id"] == "digitalocean"]
    assert set(do["certifications_in_scope"].dropna()) == {"SOC2"}  # GPU Droplets are in the SOC 2 scope
    azure = offers[offers["provider_id"] == "azure"]
    assert azure["certifications_in_scope"].isna().all()  # held, but the GPU VM scope is not stated


def test_the_report_measures_the_targets_and_prints_them(store, capsys):
    numbers = _sovereignty_report(store, TODAY)
    out = capsys.readouterr().out
    assert "EU sovereignty targets (issue #18)" in out
    assert numbers["rule_errors"] == 0
    assert numbers["unmarked_verified"] == 0
    assert numbers["sovereign_filter_offers"] >= 1
    assert "nebius" in numbers["shortlist_providers"]
    assert len(numbers["scoped_providers"]) >= 12


def test_the_report_counts_a_rule_error_when_a_row_breaks_a_rule(store, capsys):
    # The same report on a catalog where an EU-parent provider lost its ownership source.
    store.cursor().execute("UPDATE providers SET parent_company = NULL WHERE provider_id = 'nebius'")
    numbers = _sovereignty_report(store, TODAY)
    assert numbers["rule_errors"] == 1
    assert "parent_company" in capsys.readouterr().out


def test_make_data_report_runs_on_a_catalog_file(catalog_path, capsys):
    assert main(["report", "--path", str(catalog_path)]) == 0
    out = capsys.readouterr().out
    assert "rows failing the hardware-truth and ownership rules" in out


def test_certification_options_offer_the_national_schemes():
    providers = pd.DataFrame({"certifications": ["ISO27001;SOC2", "", None]})
    options = coverage.certification_options(providers)
    assert {"BSI-C5", "SecNumCloud", "ENS", "HDS", "ISO27001", "SOC2"} <= set(options)
    assert options == sorted(options)


def test_the_scoring_constraint_respects_certification_scope(store):
    # Issue #18: a certificate held for other products (OVHcloud SecNumCloud: Private Cloud / Bare Metal Pod only)
    # must not qualify a GPU offer; one whose scope covers the GPU service (OVHcloud ISO 27001) must.
    from engine.adapters import build_decision_matrix
    from engine.scoring import Constraints, apply_constraints

    offers = store.list_offers(None, usd_per_eur=1.1, today=TODAY)
    dm = build_decision_matrix(offers, reference_date=TODAY)
    ovh = [i for i, pid in enumerate(offers["provider_id"]) if pid == "ovhcloud"]
    assert ovh
    keep, why = apply_constraints(dm, Constraints(required_certifications=("SecNumCloud",)))
    assert not keep[ovh].any()
    assert all("SecNumCloud not on record" in " ".join(why[i]) for i in ovh)
    keep, _ = apply_constraints(dm, Constraints(required_certifications=("ISO27001",)))
    assert keep[ovh].all()
    # BSI C5 is held by Azure, AWS and Open Telekom Cloud, but no source puts their GPU services in its scope
    keep, _ = apply_constraints(dm, Constraints(required_certifications=("BSI-C5",)))
    assert not keep.any()


def test_issue_30_data_targets_are_measured_and_printed(store, capsys):
    offers = store.table("offers")
    t = coverage.data_targets(offers, store.list_prices(), store.list_offers(None, usd_per_eur=1.0, today=TODAY), TODAY)
    assert t["offers"] == len(offers) and 0 < t["offers_with_country"] < t["offers"]
    assert t["offers_with_country_pct"] == round(100 * t["offers_with_country"] / t["offers"], 1)
    assert 0 < t["prices_within_180d"] <= t["prices"] and t["providers_with_offers"] == offers["provider_id"].nunique()
    own = t["own_material_by_provider"].set_index("provider_id")
    assert own.loc["scaleway", "own_material_pct"] > 50 and own.loc["vastai", "own_material_pct"] == 0
    assert own["prices"].sum() == t["prices"]
    # B300 counts for the shortlist now (issue #30), and the Verda/OVHcloud/Gcore rows of 2026-10-06 are in
    assert "B300" in coverage.SHORTLIST_GPUS and {"nebius", "scaleway"} <= set(t["shortlist_providers"])
    assert {"verda", "ovhcloud", "gcore"} <= set(offers.loc[offers["as_of"] == "2026-10-06", "provider_id"])
    # a later "today" ages every price out of the 180-day window
    later = coverage.data_targets(offers, store.list_prices(), offers.iloc[0:0], TODAY + dt.timedelta(days=2000))
    assert later["prices_within_180d"] == 0 and later["shortlist_providers"] == []
    _sovereignty_report(store, TODAY)
    out = capsys.readouterr().out
    assert "Data targets (issue #30" in out and "offers with a data-centre country (%)" in out
    assert "own_material_pct" in out
