"""Pydantic models of the catalog: one family per table, enums for every categorical column.

Every row carries where its values came from (``source_url``), when they were observed (``as_of``, an
ISO date that may be partial: ``2026``, ``2026-10`` or ``2026-10-10``) and how far it is trusted
(``verification_status``). A value that no source gives is ``None`` and is shown as missing, never
guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from domain.geography import EU_EEA_COUNTRY_CODES

# ---------------------------------------------------------------------------------------------------
# Enumerations (mirrored by CHECK constraints in schema.sql; a test keeps the two in step)
# ---------------------------------------------------------------------------------------------------


class FormFactor(StrEnum):
    SXM = "SXM"
    PCIE = "PCIe"
    OAM = "OAM"


class MemoryType(StrEnum):
    HBM3 = "HBM3"
    HBM3E = "HBM3e"
    HBM2E = "HBM2e"
    HBM2 = "HBM2"
    GDDR6 = "GDDR6"
    GDDR7 = "GDDR7"


class IntraNode(StrEnum):
    """How the GPUs inside one node talk to each other."""

    NVLINK_NVSWITCH = "NVLink-NVSwitch"
    NVLINK_BRIDGE = "NVLink-bridge"
    PCIE = "PCIe"


class InterNode(StrEnum):
    """The scale-out fabric between nodes, as the provider documents it for the instance family."""

    INFINIBAND_NDR = "InfiniBand-NDR"
    INFINIBAND_HDR = "InfiniBand-HDR"
    ROCEV2 = "RoCEv2"
    ETHERNET = "Ethernet"
    NONE = "none"


class Jurisdiction(StrEnum):
    """Legal home of the provider's ultimate parent."""

    EU = "EU"
    US = "US"
    UK = "UK"
    OTHER = "other"


class EuResidency(StrEnum):
    """``yes``: EU/EEA-headquartered with EU/EEA sites; ``partial``: EU sites, non-EU parent."""

    YES = "yes"
    PARTIAL = "partial"


class TriState(StrEnum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


class SupportModel(StrEnum):
    SELF_SERVE = "self-serve"
    TICKET = "ticket"
    DEDICATED_ENGINEER = "dedicated-engineer"
    UNKNOWN = "unknown"


class MinCommitment(StrEnum):
    NONE = "none"
    MONTHLY = "monthly"
    ANNUAL = "annual"
    MULTI_YEAR = "multi-year"
    UNKNOWN = "unknown"


class Verification(StrEnum):
    """How far a row is trusted: read from a secondary copy, checked on the provider's own page or
    datasheet, or measured by us."""

    CLAIMED = "claimed"
    VERIFIED = "verified"
    BENCHMARKED = "benchmarked"


class PriceType(StrEnum):
    ON_DEMAND = "on-demand"
    SPOT = "spot"
    RESERVED = "reserved"
    QUOTE = "quote"


class PriceMethod(StrEnum):
    PAGE = "page"
    API = "api"
    QUOTE = "quote"
    ESTIMATE = "estimate"


class Currency(StrEnum):
    EUR = "EUR"
    USD = "USD"


class GpuScope(StrEnum):
    """Whether a certification's stated scope covers the provider's GPU compute service."""

    YES = "yes"
    NO = "no"
    NOT_STATED = "not stated"


class ProviderFactField(StrEnum):
    """Sovereignty facts about a provider that each carry their own source (``provider_facts``)."""

    LEGAL_ENTITY = "legal_entity"
    LEGAL_SEAT_COUNTRY = "legal_seat_country"
    LEGAL_SEAT_ADDRESS = "legal_seat_address"
    CERTIFICATIONS = "certifications"
    CERTIFICATIONS_SCOPE = "certifications_scope"


# ---------------------------------------------------------------------------------------------------
# Reusable field types
# ---------------------------------------------------------------------------------------------------

_PARTIAL_DATE = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")

PartialDate = Annotated[
    str,
    Field(
        description="ISO date of observation; year or year-month when the source gives no day",
        examples=["2026-10-10", "2026-10", "2026"],
    ),
]
Url = Annotated[str, Field(min_length=8, max_length=2000, pattern=r"^https?://\S+$")]
Slug = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[a-z0-9][a-z0-9._-]*$")]
CountryCode = Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2")]
PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]


def as_of_lower_bound(as_of: str) -> dt.date:
    """The earliest day a partial ISO date can mean: ``2026`` → 2026-01-01, ``2026-10`` → 2026-10-01.

    Staleness is measured from this day, so a row dated only by its year is never counted fresher
    than it may be.

    >>> as_of_lower_bound("2026-10")
    datetime.date(2026, 10, 1)
    """
    if not _PARTIAL_DATE.match(as_of):
        raise ValueError(f"not an ISO date (YYYY, YYYY-MM or YYYY-MM-DD): {as_of!r}")
    parts = [int(p) for p in as_of.split("-")] + [1, 1]
    return dt.date(parts[0], parts[1], parts[2])


class _Row(BaseModel):
    # allow_inf_nan=False: "inf" or "1e309" in a cell is refused, never stored (issue #15, item 8).
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, use_enum_values=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_missing(cls, value: object) -> object:
        # CSV and spreadsheet cells arrive as "" or NaN when a source gave no value.
        if isinstance(value, str) and value.strip() == "":
            return None
        if isinstance(value, float) and value != value:  # NaN
            return None
        return value


class _Provenance(_Row):
    source_url: Url
    as_of: PartialDate
    verification_status: Verification = Verification.CLAIMED
    notes: str | None = None

    @field_validator("as_of")
    @classmethod
    def _check_as_of(cls, value: str) -> str:
        as_of_lower_bound(value)
        return value


# ---------------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------------


class GpuModel(_Row):
    """A GPU model as offers name it (``H100``, ``A100-80GB``); specs hang off it per form factor."""

    gpu_model: str = Field(min_length=1, max_length=80)
    architecture: str | None = None
    vendor: str = Field(min_length=1)


class GpuSpec(_Row):
    """Reference specification of one GPU model in one form factor."""

    gpu_spec_id: str = Field(min_length=1, max_length=80, description="e.g. 'H100 SXM'")
    gpu_model: str = Field(min_length=1, max_length=80)
    form_factor: FormFactor
    memory_gb: PositiveFloat
    memory_type: MemoryType
    memory_bandwidth_tbps: PositiveFloat | None = None
    fp16_dense_tflops: PositiveFloat | None = None
    bf16_dense_tflops: PositiveFloat | None = None
    fp8_dense_tflops: PositiveFloat | None = None
    tdp_watts: PositiveFloat | None = None
    nvlink_bandwidth_gb_per_s_bidirectional: PositiveFloat | None = None
    mig_max_instances: Annotated[int, Field(ge=0, le=7)] | None = None
    source_url: Url
    as_of: PartialDate | None = None
    verification_status: Verification = Verification.CLAIMED
    notes: str | None = None


class Provider(_Provenance):
    provider_id: Slug
    name: str = Field(min_length=1, max_length=200)
    hq_country: CountryCode
    legal_seat_country: CountryCode | None = None
    parent_jurisdiction: Jurisdiction
    eu_data_residency: EuResidency | None = None
    eu_regions: str | None = None
    certifications: list[str] = Field(default_factory=list)
    uptime_sla_pct: Annotated[float, Field(ge=0, le=100)] | None = None
    performance_sla: TriState = TriState.UNKNOWN
    support_model: SupportModel = SupportModel.UNKNOWN
    min_commitment: MinCommitment = MinCommitment.UNKNOWN
    burst_capacity: TriState = TriState.UNKNOWN
    extra_source_urls: list[Url] = Field(default_factory=list)
    #: The ultimate parent as a current ownership source names it, with that source and its date
    #: (the ownership rules require them for every provider marked EU).
    parent_company: str | None = Field(default=None, max_length=500)
    parent_company_source_url: Url | None = None
    parent_company_as_of: PartialDate | None = None

    @field_validator("certifications", "extra_source_urls", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if value is None:
            return []
        if isinstance(value, str):
            return [v.strip() for v in value.split(";") if v.strip()]
        return value


class ProviderFact(_Provenance):
    """One sourced fact about a provider's legal seat or certifications, with its own URL and date.

    ``providers.legal_seat_country`` and ``providers.certifications`` hold the values the pages
    filter on; these rows are the evidence behind them (entity, address, scope, source, trust).
    """

    fact_id: str = Field(min_length=3, max_length=240, description="'<provider_id>:<field>'")
    provider_id: Slug
    field: ProviderFactField
    value: str = Field(min_length=1, max_length=2000)

    @model_validator(mode="after")
    def _consistent(self) -> ProviderFact:
        if self.fact_id != f"{self.provider_id}:{self.field}":
            raise ValueError(f"fact_id must be '{self.provider_id}:{self.field}', got {self.fact_id!r}")
        if self.field == ProviderFactField.LEGAL_SEAT_COUNTRY and not re.fullmatch(r"[A-Z]{2}", self.value):
            raise ValueError("legal_seat_country must be an ISO 3166-1 alpha-2 code such as 'NL'")
        if self.field == ProviderFactField.CERTIFICATIONS:
            tokens = certification_tokens(self.value)
            if not tokens or any("," in t for t in tokens):
                raise ValueError("certifications are ';'-separated tokens such as 'ISO27001;SOC2'")
        return self


class CertificationScope(_Provenance):
    """What one held certification covers, as its source states: services, countries, GPU compute.

    A certificate counts for an offer only where its scope covers the GPU service and, when the source
    limits it to countries, the offer's data-centre country (``catalog.coverage.certifications_in_scope``).
    """

    scope_id: str = Field(min_length=3, max_length=240, description="'<provider_id>:<certification>'")
    provider_id: Slug
    certification: str = Field(min_length=2, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9.+-]*$")
    covers_gpu_compute: GpuScope = GpuScope.NOT_STATED
    scope_services: str = Field(min_length=1, max_length=2000)
    scope_countries: list[CountryCode] = Field(default_factory=list)

    @field_validator("scope_countries", mode="before")
    @classmethod
    def _split_countries(cls, value: object) -> object:
        if value is None:
            return []
        if isinstance(value, str):
            return [v.strip() for v in value.split(";") if v.strip()]
        return value

    @model_validator(mode="after")
    def _consistent(self) -> CertificationScope:
        if self.scope_id != f"{self.provider_id}:{self.certification}":
            raise ValueError(f"scope_id must be '{self.provider_id}:{self.certification}', got {self.scope_id!r}")
        return self


def certification_tokens(value: str | None) -> list[str]:
    """``'ISO27001; SOC2'`` → ``['ISO27001', 'SOC2']`` (the stored form is ';'-joined)."""
    return [t.strip() for t in (value or "").split(";") if t.strip()]


class Offer(_Provenance):
    """One rentable GPU product of one provider in one region (prices are separate rows)."""

    offer_id: Slug
    provider_id: Slug
    gpu_model: str = Field(min_length=1, max_length=80)
    gpu_spec_id: str | None = None
    form_factor: FormFactor | None = None
    gpus_per_node: Annotated[int, Field(ge=1, le=1024)] | None = None
    memory_gb: PositiveFloat | None = None
    memory_type: MemoryType | None = None
    intra_node: IntraNode | None = None
    inter_node: InterNode | None = None
    inter_node_bandwidth_gbps_per_gpu: NonNegativeFloat | None = None
    inter_node_source_url: str | None = None
    inter_node_as_of: PartialDate | None = None
    mig_supported: bool | None = None
    region: str = Field(min_length=1, max_length=200)
    datacenter_country: CountryCode | None = None
    instance_type: str | None = Field(default=None, max_length=200,
                                      description="the provider's instance/SKU name; refreshes match on it")
    last_seen: dt.date | None = Field(default=None, description="last day a catalog refresh saw this offer listed")
    #: A single-tenant physical server (bare metal or a dedicated server: True) or shared / virtualised hardware
    #: (False), as ``dedicated_source_url`` states it on ``dedicated_as_of``; None = not stated (issue #29).
    is_dedicated_hardware: bool | None = Field(
        default=None, description="single-tenant physical server (bare metal / dedicated server); empty = not stated")
    dedicated_source_url: Url | None = None
    dedicated_as_of: PartialDate | None = None

    @field_validator("dedicated_as_of")
    @classmethod
    def _check_dedicated_as_of(cls, value: str | None) -> str | None:
        if value is not None:
            as_of_lower_bound(value)  # an ISO date, possibly partial, or a ValueError naming the value
        return value

    @model_validator(mode="after")
    def _hardware_consistency(self) -> Offer:
        if self.inter_node == InterNode.NONE and self.inter_node_bandwidth_gbps_per_gpu:
            raise ValueError("inter_node is 'none' but an inter-node bandwidth is given")
        if self.is_dedicated_hardware is not None and not (self.dedicated_source_url and self.dedicated_as_of):
            # hardware truth: dedicated or shared is a claim like any other, so it names where and when it was read
            raise ValueError("is_dedicated_hardware is stated without dedicated_source_url and dedicated_as_of: "
                             "name the source that says dedicated or shared, and its date (or leave it empty)")
        if self.intra_node == IntraNode.NVLINK_NVSWITCH and self.form_factor == FormFactor.PCIE:
            raise ValueError("NVLink-NVSwitch requires an SXM/OAM board, not PCIe")
        return self


class Price(_Row):
    """One price observation. History is kept: a new price closes the old one (``valid_to``)."""

    price_id: str = Field(min_length=1, max_length=300)
    offer_id: Slug
    price_type: PriceType
    term_months: Annotated[int, Field(ge=1, le=120)] | None = None
    upfront_pct: Annotated[float, Field(ge=0, le=100)] | None = None
    amount_per_gpu_hour: Annotated[float, Field(gt=0, description="0 means 'not offered': close the price instead")]
    currency: Currency
    valid_from: dt.date
    valid_to: dt.date | None = None
    source_url: Url
    retrieved_at: PartialDate
    method: PriceMethod
    verification_status: Verification = Verification.CLAIMED
    notes: str | None = None
    is_private: bool = Field(default=False, description="negotiated quote: editors only, never shown to viewers")
    expires_on: dt.date | None = None
    last_seen: dt.date | None = Field(default=None, description="last day a refresh saw the same amount listed")
    last_seen_source_url: Url | None = None

    @model_validator(mode="after")
    def _commitment_is_not_on_demand(self) -> Price:
        if self.is_private and self.expires_on is None:
            raise ValueError("a private (negotiated) price needs an expiry date (expires_on)")
        if self.price_type in (PriceType.ON_DEMAND, PriceType.SPOT) and (
            self.term_months is not None or self.upfront_pct is not None
        ):
            raise ValueError(
                f"a {self.price_type} price cannot carry a commitment term or upfront share; "
                "file it as 'reserved' (or 'quote')"
            )
        if self.valid_to is not None and self.valid_to < self.valid_from:
            raise ValueError("valid_to is before valid_from")
        if self.last_seen is not None and self.last_seen < self.valid_from:
            raise ValueError("last_seen is before valid_from")
        return self


TABLE_MODELS: dict[str, type[_Row]] = {
    "gpu_models": GpuModel,
    "gpu_specs": GpuSpec,
    "providers": Provider,
    "provider_facts": ProviderFact,
    "offers": Offer,
    "prices": Price,
    "certification_scopes": CertificationScope,
}

#: EU member states plus the EEA countries (IS, LI, NO): where "EU data residency" can hold (one list for the
#: catalog and the engine: :data:`domain.geography.EU_EEA_COUNTRY_CODES`, with its sources).
EU_EEA_COUNTRIES = EU_EEA_COUNTRY_CODES


class GpuAlias(_Row):
    """Another name for a catalog GPU model (what imports and sources call it)."""

    alias: str = Field(min_length=1, max_length=120)
    gpu_model: str = Field(min_length=1, max_length=80)
    form_factor: FormFactor | None = None


TABLE_MODELS["gpu_aliases"] = GpuAlias


class RegionCountry(_Provenance):
    """Where a provider's region is: the data-centre country that EU filters read (editable, sourced)."""

    region_key: str = Field(min_length=3, max_length=420, description="'<provider_id>:<region>'")
    provider_id: Slug
    region: str = Field(min_length=1, max_length=200)
    datacenter_country: CountryCode

    @model_validator(mode="after")
    def _key(self) -> RegionCountry:
        if self.region_key != f"{self.provider_id}:{self.region}":
            raise ValueError(f"region_key must be '{self.provider_id}:{self.region}', got {self.region_key!r}")
        return self


TABLE_MODELS["region_countries"] = RegionCountry

#: Primary key column of each editable table.
TABLE_KEYS = {
    "gpu_models": "gpu_model",
    "gpu_aliases": "alias",
    "gpu_specs": "gpu_spec_id",
    "providers": "provider_id",
    "provider_facts": "fact_id",
    "offers": "offer_id",
    "prices": "price_id",
    "region_countries": "region_key",
    "certification_scopes": "scope_id",
}
#: Parents before children: inserts run in this order, deletes in reverse.
TABLE_ORDER = ["gpu_models", "gpu_aliases", "gpu_specs", "providers", "provider_facts", "offers", "prices",
               "region_countries", "certification_scopes"]
#: References between tables: (child table, column, parent table). The store checks them inside every
#: write's transaction (schema v2 has no SQL FOREIGN KEYs: DuckDB refuses to delete a parent and its
#: children in one transaction, and runs an UPDATE of an indexed column as delete + insert).
REFERENCES = [
    ("gpu_aliases", "gpu_model", "gpu_models"),
    ("gpu_specs", "gpu_model", "gpu_models"),
    ("provider_facts", "provider_id", "providers"),
    ("offers", "provider_id", "providers"),
    ("offers", "gpu_model", "gpu_models"),
    ("offers", "gpu_spec_id", "gpu_specs"),
    ("prices", "offer_id", "offers"),
    ("region_countries", "provider_id", "providers"),
    ("certification_scopes", "provider_id", "providers"),
]


# ---------------------------------------------------------------------------------------------------
# Writes: who may write, and what a change set is
# ---------------------------------------------------------------------------------------------------


class Role(StrEnum):
    VIEWER = "viewer"
    EDITOR = "editor"


class Editor(BaseModel):
    """The person writing. The store checks the role again at its write entry point."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = Field(min_length=1, max_length=200)
    role: Role = Role.VIEWER


class RowChange(BaseModel):
    """One row to insert, update or delete. ``values`` is the whole new row (insert/update);
    ``expected_version`` is the ``row_version`` the editor started from (update/delete)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    table: str
    action: str = Field(pattern="^(insert|update|delete)$")
    key: str = Field(min_length=1)
    values: dict | None = None
    expected_version: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _shape(self) -> RowChange:
        if self.table not in TABLE_KEYS:
            raise ValueError(f"unknown table {self.table!r}")
        if self.action in ("insert", "update") and self.values is None:
            raise ValueError(f"{self.action} needs the row's values")
        if self.action in ("update", "delete") and self.expected_version is None:
            raise ValueError(f"{self.action} needs the row_version it was based on")
        return self


class ChangeSet(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    changes: list[RowChange] = Field(min_length=1)
    message: str = Field(min_length=1, max_length=2000)
    kind: str = Field(default="edit", pattern="^(edit|import|restore)$")
