"""Pydantic validation of catalog rows: good rows pass, bad rows fail with a reason naming the field."""

import datetime as dt

import pytest
from pydantic import ValidationError

from catalog.models import Offer, Price, Provider, as_of_lower_bound

GOOD_PROVIDER = {
    "provider_id": "example-cloud", "name": "Example Cloud", "hq_country": "DE", "parent_jurisdiction": "EU",
    "eu_data_residency": "yes", "certifications": "ISO27001;BSI-C5", "source_url": "https://example.com/about",
    "as_of": "2026-10",
}
GOOD_OFFER = {
    "offer_id": "example-h100-sxm-fra", "provider_id": "example-cloud", "gpu_model": "H100", "form_factor": "SXM",
    "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch", "inter_node": "InfiniBand-NDR",
    "inter_node_bandwidth_gbps_per_gpu": 400, "region": "fra1 (DE)", "datacenter_country": "DE",
    "source_url": "https://example.com/pricing", "as_of": "2026-10-10",
}
GOOD_PRICE = {
    "price_id": "p1", "offer_id": "example-h100-sxm-fra", "price_type": "on-demand", "amount_per_gpu_hour": 2.5,
    "currency": "EUR", "valid_from": "2026-10-10", "source_url": "https://example.com/pricing",
    "retrieved_at": "2026-10-10", "method": "page",
}


def test_good_rows_validate_and_split_lists():
    provider = Provider.model_validate(GOOD_PROVIDER)
    assert provider.certifications == ["ISO27001", "BSI-C5"]
    assert provider.verification_status == "claimed"  # default trust level until an editor verifies
    assert Offer.model_validate(GOOD_OFFER).inter_node == "InfiniBand-NDR"
    assert Price.model_validate(GOOD_PRICE).valid_from == dt.date(2026, 10, 10)


def test_empty_cells_become_missing_not_zero():
    offer = Offer.model_validate({**GOOD_OFFER, "inter_node_bandwidth_gbps_per_gpu": "", "gpus_per_node": float("nan")})
    assert offer.inter_node_bandwidth_gbps_per_gpu is None
    assert offer.gpus_per_node is None


@pytest.mark.parametrize(
    ("model", "base", "field", "value"),
    [
        (Offer, GOOD_OFFER, "form_factor", "SXM6"),
        (Offer, GOOD_OFFER, "inter_node", "Infiniband"),
        (Offer, GOOD_OFFER, "inter_node_bandwidth_gbps_per_gpu", -1),
        (Offer, GOOD_OFFER, "source_url", "not a url"),
        (Offer, GOOD_OFFER, "as_of", "10/10/2026"),
        (Offer, GOOD_OFFER, "datacenter_country", "Germany"),
        (Provider, GOOD_PROVIDER, "parent_jurisdiction", "Mars"),
        (Provider, GOOD_PROVIDER, "uptime_sla_pct", 101),
        (Price, GOOD_PRICE, "amount_per_gpu_hour", -0.01),
        (Price, GOOD_PRICE, "currency", "GBP"),
        (Price, GOOD_PRICE, "price_type", "reserved-forever"),
    ],
)
def test_bad_value_is_rejected_naming_the_field(model, base, field, value):
    with pytest.raises(ValidationError) as info:
        model.model_validate({**base, field: value})
    assert field in {str(loc) for e in info.value.errors() for loc in e["loc"]}


def test_unknown_column_is_rejected():
    with pytest.raises(ValidationError, match="extra"):
        Offer.model_validate({**GOOD_OFFER, "price": 3})


def test_commitment_price_cannot_pass_as_on_demand():
    with pytest.raises(ValidationError, match="commitment term"):
        Price.model_validate({**GOOD_PRICE, "term_months": 12})
    reserved = Price.model_validate({**GOOD_PRICE, "price_type": "reserved", "term_months": 12, "upfront_pct": 0})
    assert reserved.term_months == 12


def test_nvswitch_on_pcie_is_inconsistent():
    with pytest.raises(ValidationError, match="NVSwitch"):
        Offer.model_validate({**GOOD_OFFER, "form_factor": "PCIe"})


def test_partial_dates_count_from_their_first_day():
    assert as_of_lower_bound("2026") == dt.date(2026, 1, 1)
    assert as_of_lower_bound("2025-12") == dt.date(2025, 12, 1)
    with pytest.raises(ValueError):
        as_of_lower_bound("2026-13")


@pytest.mark.parametrize("value", [True, False])
def test_dedicated_hardware_needs_its_own_source_and_date(value):
    """#29: dedicated or shared is a hardware claim: without a source URL and a date the row is refused."""
    for missing in ({}, {"dedicated_source_url": "https://example.com/shapes"}, {"dedicated_as_of": "2025-02-13"}):
        with pytest.raises(ValidationError, match="is_dedicated_hardware is stated without"):
            Offer.model_validate({**GOOD_OFFER, "is_dedicated_hardware": value, **missing})
    offer = Offer.model_validate({**GOOD_OFFER, "is_dedicated_hardware": value,
                                  "dedicated_source_url": "https://example.com/shapes", "dedicated_as_of": "2025-02-13"})
    assert offer.is_dedicated_hardware is value and offer.dedicated_as_of == "2025-02-13"
    assert Offer.model_validate(GOOD_OFFER).is_dedicated_hardware is None  # not stated unless a source says


def test_dedicated_hardware_source_must_be_a_url_and_its_date_iso():
    base = {**GOOD_OFFER, "is_dedicated_hardware": True, "dedicated_source_url": "https://example.com/shapes",
            "dedicated_as_of": "2025-02-13"}
    for field, value in (("dedicated_source_url", "the shapes page"), ("dedicated_as_of", "13/02/2025")):
        with pytest.raises(ValidationError) as info:
            Offer.model_validate({**base, field: value})
        assert field in {str(loc) for e in info.value.errors() for loc in e["loc"]}
