"""Hardware-truth and ownership rules of issue #18: each rule catches the class of error the audit found."""

import datetime as dt

from catalog.rules import RuleContext, check_offer, check_provider, needs_recheck_mark

SPECS = {
    "RTX PRO 6000 Blackwell": {"gpu_spec_id": "RTX PRO 6000 Blackwell", "gpu_model": "RTX PRO 6000 Blackwell",
                               "form_factor": "PCIe", "memory_gb": 96.0, "memory_type": "GDDR7", "mig_max_instances": 4},
    "RTX PRO 6000 Blackwell Max-Q": {"gpu_spec_id": "RTX PRO 6000 Blackwell Max-Q",
                                     "gpu_model": "RTX PRO 6000 Blackwell Max-Q", "form_factor": "PCIe",
                                     "memory_gb": 96.0, "memory_type": "GDDR7", "mig_max_instances": None},
    "L40S": {"gpu_spec_id": "L40S", "gpu_model": "L40S", "form_factor": "PCIe", "memory_gb": 48.0,
             "memory_type": "GDDR6", "mig_max_instances": 0},
}
CTX = RuleContext(specs=SPECS, gpu_models={s["gpu_model"] for s in SPECS.values()})
TODAY = dt.date(2026, 12, 3)


def offer(**kw):
    row = {"offer_id": "x-offer", "gpu_model": "RTX PRO 6000 Blackwell", "gpu_spec_id": "RTX PRO 6000 Blackwell",
           "form_factor": "PCIe", "memory_gb": 96.0, "memory_type": "GDDR7", "mig_supported": True, "region": "r"}
    return {**row, **kw}


def provider(**kw):
    row = {"provider_id": "p", "hq_country": "DE", "parent_jurisdiction": "EU", "eu_data_residency": "yes",
           "eu_regions": "Frankfurt (DE)", "parent_company": "P GmbH", "parent_company_source_url": "https://p.example/imprint",
           "parent_company_as_of": "2026-10"}
    return {**row, **kw}


def errors(findings):
    return [(f.column, f.level) for f in findings if f.level == "error"]


def test_mig_flag_must_agree_with_the_spec_sheet():
    assert errors(check_offer(offer(), CTX)) == []
    # the Hyperstack RTX PRO 6000 row said "no" although the card supports MIG
    assert errors(check_offer(offer(mig_supported=False), CTX)) == [("mig_supported", "error")]
    # a card without MIG (L40S: 0 instances) must not claim it
    l40s = offer(gpu_model="L40S", gpu_spec_id="L40S", memory_gb=48.0, memory_type="GDDR6", mig_supported=True)
    assert errors(check_offer(l40s, CTX)) == [("mig_supported", "error")]
    # a spec without a count decides nothing
    maxq = offer(gpu_model="RTX PRO 6000 Blackwell Max-Q", gpu_spec_id="RTX PRO 6000 Blackwell Max-Q", mig_supported=False)
    assert errors(check_offer(maxq, CTX)) == []


def test_a_max_q_card_must_not_be_joined_to_the_600_w_spec():
    hetzner = offer(offer_id="hetzner-rtx-pro-6000-blackwell-max-q-gex63-eur-monthly", mig_supported=None)
    assert errors(check_offer(hetzner, CTX)) == [("gpu_model", "error")]
    fixed = {**hetzner, "gpu_model": "RTX PRO 6000 Blackwell Max-Q", "gpu_spec_id": "RTX PRO 6000 Blackwell Max-Q"}
    assert errors(check_offer(fixed, CTX)) == []


def test_an_eu_parent_needs_a_named_sourced_dated_parent_company():
    assert errors(check_provider(provider(), CTX, TODAY)) == []
    missing = check_provider(provider(parent_company=None, parent_company_source_url=None), CTX, TODAY)
    assert errors(missing) == [("parent_company", "error"), ("parent_company_source_url", "error")]
    # a non-EU parent (Taiga Cloud after the correction) needs no EU parent record
    assert errors(check_provider(provider(parent_jurisdiction="other", eu_data_residency=None, parent_company=None),
                                 CTX, TODAY)) == []


def test_eu_residency_yes_needs_an_eu_parent_and_a_location():
    # Taiga Cloud was "yes" under a non-EU controlling shareholder
    assert errors(check_provider(provider(parent_jurisdiction="other"), CTX, TODAY)) == [("eu_data_residency", "error")]
    assert errors(check_provider(provider(eu_regions=None), CTX, TODAY)) == [("eu_regions", "error")]


def test_eu_offers_need_the_providers_eu_regions():
    # AWS had offers in eu-central-1 and eu-west-1 while its eu_regions was empty
    ctx = RuleContext(offer_eu_countries_by_provider={"aws": {"DE", "IE"}})
    aws = provider(provider_id="aws", hq_country="US", parent_jurisdiction="US", eu_data_residency="partial",
                   eu_regions=None, parent_company=None)
    reasons = [f.reason for f in check_provider(aws, ctx, TODAY) if f.column == "eu_regions"]
    assert len(reasons) == 2 and "DE, IE" in reasons[1]
    assert errors(check_provider({**aws, "eu_regions": "eu-central-1 (DE);eu-west-1 (IE)"}, ctx, TODAY)) == []


def test_an_old_ownership_source_is_a_warning_not_an_error():
    found = check_provider(provider(parent_company_as_of="2023-02"), CTX, TODAY)
    assert [(f.column, f.level) for f in found] == [("parent_company_as_of", "warning")]


def test_verified_rows_older_than_90_days_need_the_mark():
    old = dt.date(2026, 7, 30)
    assert needs_recheck_mark("verified", old, "read on the page", TODAY)
    assert not needs_recheck_mark("verified", old, "... not re-checked since.", TODAY)
    assert not needs_recheck_mark("claimed", old, "", TODAY)
    assert not needs_recheck_mark("verified", dt.date(2026, 10, 1), "", TODAY)  # 63 days: fresh enough


def test_an_h100_sxm_row_claiming_94_gb_or_hbm2e_is_refused():
    """Issue #38.5: the memory check compares both memory_gb and memory_type with the spec sheet (an H100 SXM has
    80 GB HBM3; 94 GB is the H100 NVL's, HBM2e the PCIe card's)."""
    specs = {"H100 SXM": {"gpu_spec_id": "H100 SXM", "gpu_model": "H100", "form_factor": "SXM", "memory_gb": 80.0,
                          "memory_type": "HBM3", "mig_max_instances": 7}}
    ctx = RuleContext(specs=specs, gpu_models={"H100"})
    row = offer(offer_id="h100-sxm", gpu_model="H100", gpu_spec_id="H100 SXM", form_factor="SXM", memory_gb=80.0,
                memory_type="HBM3", mig_supported=True)
    assert errors(check_offer(row, ctx)) == []
    assert errors(check_offer({**row, "memory_gb": 94.0}, ctx)) == [("memory_gb", "error")]
    assert errors(check_offer({**row, "memory_type": "HBM2e"}, ctx)) == [("memory_type", "error")]
    message = next(f.reason for f in check_offer({**row, "memory_gb": 94.0}, ctx) if f.column == "memory_gb")
    assert "80 GB HBM3" in message and "94" in message
