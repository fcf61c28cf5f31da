"""Turn the sourced seed tables in ``catalog/seed/`` into validated catalog rows.

The CSV files are copies of the project's sourced dataset (see ``catalog/seed/SOURCES.md``). This
module maps their columns to the catalog models; every row passes through pydantic, so a bad seed
fails the build with the file, row and reason instead of landing in the database.

Mapping rules (each one keeps "never infer a value" intact):

* ``offers.csv`` holds one row per offer *and* price point; the offer key is the ``offer_id`` up to
  its last ``-<price_model>`` (:func:`offer_key`) and the price becomes its own row in ``prices``.
* An offer links to a GPU spec when its model and form factor match a spec row. When the source gave
  no form factor, it links only for models that exist in a single form factor (``SINGLE_FORM_MODELS``);
  an H100 or H200 without a form factor stays unlinked and is shown as such.
* The data-centre country comes from the region text when the source wrote it there (``fr-par (FR)``,
  ``IT (unspecified)``), else from ``region_countries.csv`` (provider region docs), else stays empty.
* A seed row is ``claimed`` unless its ``verification_status`` column says ``verified``: rows read
  from the provider's own page, docs or legal notice (including a stored copy of it) are
  ``verified``; rows resting on aggregators, collectors or transcriptions stay ``claimed`` until an
  editor checks them on the provider's own page.
* ``provider_facts.csv`` holds one sourced row per provider and sovereignty fact (legal entity, seat
  country and address, certifications and their scope). The providers' ``legal_seat_country`` and
  ``certifications`` columns are filled from it; a different value in ``providers.csv`` is an error.
* Optional ``offers.csv`` columns: ``upfront_pct`` (share of a commitment paid upfront, only when
  the source states it), ``verification_status`` and ``datacenter_country`` (when the source states
  the country but the region text does not carry it).
* Price method: the 2026-10-10 collector read Azure, OCI and RunPod through their price APIs and the
  Vast.ai offer search (``api``); every other price was read from a page (``page``).
* A newer ``offers.csv`` row for the same offer, price type, term and upfront share *supersedes* the
  older one: the older price gets ``valid_to`` = the newer one's ``valid_from`` (history is kept, as
  the importer does for imported prices), so only the newest observation is current.
* ``certification_scopes.csv`` holds what each held certification covers (services, countries, GPU
  compute), one sourced row per provider and certificate; every token of a provider's
  ``certifications`` fact needs its scope row and vice versa (seed test).
* ``providers.csv`` names the ultimate parent in ``parent_company`` with its own source and date.
* Optional ``offers.csv`` columns ``is_dedicated_hardware`` (``yes``: a single-tenant physical server, bare metal
  or a dedicated server; ``no``: shared / virtualised; empty: not stated), ``dedicated_source_url`` and
  ``dedicated_as_of``: filled only where a source says so, with that source and its date.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from catalog.errors import SeedError
from catalog.models import (
    CertificationScope,
    GpuAlias,
    GpuModel,
    GpuSpec,
    Offer,
    Price,
    Provider,
    ProviderFact,
    RegionCountry,
    as_of_lower_bound,
    certification_tokens,
)

SEED_DIR = Path(__file__).resolve().parent / "seed"


def _yes_no(value: str | None, where: str) -> bool | None:
    """``yes`` / ``no`` / empty of a seed cell as True / False / None; anything else is a seed error."""
    text = (value or "").strip().lower()
    if text not in ("", "yes", "no"):
        raise SeedError(f"{where}: expected yes, no or empty, got {value!r}")
    return {"yes": True, "no": False}.get(text)

#: GPU spec row → the model name offers use (``offers.gpu_model``). From the seed README's joining rule.
SPEC_MODEL = {
    "H100 SXM": "H100",
    "H100 PCIe": "H100",
    "H100 NVL": "H100 NVL",
    "H200 SXM": "H200",
    "B200": "B200",
    "A100 SXM 80GB": "A100-80GB",
    "A100 PCIe 80GB": "A100-80GB",
    "A100 SXM 40GB": "A100-40GB",
    "L40S": "L40S",
    "L4": "L4",
    "RTX 6000 Ada": "RTX 6000 Ada",
    "RTX 4000 Ada": "RTX 4000 Ada",
    "RTX PRO 6000 Blackwell": "RTX PRO 6000 Blackwell",
    "RTX PRO 6000 Blackwell Max-Q": "RTX PRO 6000 Blackwell Max-Q",
    "B300 SXM": "B300",
    "MI300X": "MI300X",
}
#: Models sold in one form factor only (per their gpu_specs rows), so an offer that omits it still
#: has a known spec. H100/H200/A100 come as SXM and PCIe/NVL and are deliberately not here.
SINGLE_FORM_MODELS = frozenset(
    {"B200", "B300", "L40S", "L4", "RTX 6000 Ada", "RTX 4000 Ada", "RTX PRO 6000 Blackwell",
     "RTX PRO 6000 Blackwell Max-Q", "MI300X"}
)
_API_COLLECTED = {"azure", "oracle", "runpod", "vastai"}
_COLLECTOR_URL = "ewyluda/gpu-price-index/blob/ab49c8081de81f1dae5f8f7e7d46af80b68c35d6/data/observations"
_PRICE_MODEL = {
    "on-demand": ("on-demand", None),
    "spot": ("spot", None),
    "reserved": ("reserved", None),
    "reserved-1y": ("reserved", 12),
    "reserved-3y": ("reserved", 36),
}


@dataclass
class SeedRows:
    gpu_models: list[GpuModel] = field(default_factory=list)
    gpu_aliases: list[GpuAlias] = field(default_factory=list)
    gpu_specs: list[GpuSpec] = field(default_factory=list)
    providers: list[Provider] = field(default_factory=list)
    provider_facts: list[ProviderFact] = field(default_factory=list)
    offers: list[Offer] = field(default_factory=list)
    prices: list[Price] = field(default_factory=list)
    region_countries: list[RegionCountry] = field(default_factory=list)
    certification_scopes: list[CertificationScope] = field(default_factory=list)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _validate(model, row: dict, where: str):
    try:
        return model.model_validate(row)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SeedError(f"{where}: {problems}") from exc


def offer_key(row_id: str, price_model: str) -> str:
    """The offer an ``offers.csv`` row belongs to: its id up to the last ``-<price_model>``.

    Several price rows of one offer share that stem; what follows the price model tells variants of
    one term apart (upfront options, reservation tiers).

    >>> offer_key("aws-a100-40gb-sxm-p4d-24xlarge-us-east-1-reserved-1y-all-upfront", "reserved-1y")
    'aws-a100-40gb-sxm-p4d-24xlarge-us-east-1'
    >>> offer_key("gcp-h100-sxm-a3-highgpu-8g-europe-west4-nl-on-demand", "on-demand")
    'gcp-h100-sxm-a3-highgpu-8g-europe-west4-nl'
    """
    cut = row_id.rfind(f"-{price_model}")
    return row_id[:cut] if cut > 0 else row_id


def datacenter_country(region: str, known: dict[tuple[str, str], str], provider_id: str) -> str | None:
    """Country of the data centre when the source states it (see module docstring).

    >>> datacenter_country("fr-par-2 (FR)", {}, "scaleway")
    'FR'
    >>> datacenter_country("FI/IS (unspecified)", {}, "verda") is None
    True
    """
    codes = re.findall(r"\(([A-Z]{2})\)", region)
    if len(codes) == 1:
        return codes[0]
    lead = re.match(r"^([A-Z]{2}) \(", region)
    if lead:
        return lead.group(1)
    return known.get((provider_id, region))


def load_seed(seed_dir: Path = SEED_DIR) -> SeedRows:
    """Read and validate every seed table. Raises :class:`SeedError` naming the file and row."""
    out = SeedRows()
    spec_rows = _read(seed_dir / "gpu_specs.csv")
    offer_rows = _read(seed_dir / "offers.csv")
    provider_rows = _read(seed_dir / "providers.csv")
    known_regions = {
        (r["provider_id"], r["region"]): r["datacenter_country"]
        for r in _read(seed_dir / "region_countries.csv")
    }

    architectures = {SPEC_MODEL.get(r["gpu_model"], r["gpu_model"]): r["architecture"] for r in spec_rows}
    for name in sorted({r["gpu_model"] for r in offer_rows} | set(architectures)):
        vendor = "AMD" if name.startswith("MI") else "NVIDIA"
        out.gpu_models.append(
            _validate(GpuModel, {"gpu_model": name, "architecture": architectures.get(name), "vendor": vendor},
                      f"gpu model {name}")
        )

    for i, r in enumerate(_read(seed_dir / "gpu_aliases.csv"), start=2):
        out.gpu_aliases.append(_validate(GpuAlias, r, f"gpu_aliases.csv line {i}"))

    for i, r in enumerate(spec_rows, start=2):
        row: dict[str, object] = {
            "gpu_spec_id": r["gpu_model"],
            "gpu_model": SPEC_MODEL.get(r["gpu_model"], r["gpu_model"]),
            "form_factor": r["form_factor"],
            "memory_gb": r["memory_gb"],
            "memory_type": r["memory_type"],
            "memory_bandwidth_tbps": r["memory_bandwidth_tbps"],
            "fp16_dense_tflops": r["fp16_dense_tflops"],
            "bf16_dense_tflops": r["bf16_dense_tflops"],
            "fp8_dense_tflops": r["fp8_dense_tflops"],
            "tdp_watts": r["tdp_watts"],
            "nvlink_bandwidth_gb_per_s_bidirectional": r["nvlink_gbps_bidirectional"],
            "mig_max_instances": r["mig_max_instances"],
            "source_url": r["source_url"].split(";")[0],
            "notes": r["notes"] + (f" More sources: {r['source_url']}" if ";" in r["source_url"] else ""),
        }
        out.gpu_specs.append(_validate(GpuSpec, row, f"gpu_specs.csv line {i}"))

    specs_by_model: dict[str, list[GpuSpec]] = {}
    for s in out.gpu_specs:
        specs_by_model.setdefault(s.gpu_model, []).append(s)

    facts_path = seed_dir / "provider_facts.csv"
    for i, r in enumerate(_read(facts_path) if facts_path.exists() else [], start=2):
        row = {**r, "fact_id": f"{r['provider_id']}:{r['field']}",
               "verification_status": r["verification_status"] or "claimed"}
        out.provider_facts.append(_validate(ProviderFact, row, f"provider_facts.csv line {i}"))
    fact_value = {(f.provider_id, str(f.field)): f.value for f in out.provider_facts}
    provider_ids = {r["provider_id"] for r in provider_rows}
    for f in out.provider_facts:
        if f.provider_id not in provider_ids:
            raise SeedError(f"provider_facts.csv: {f.fact_id} names an unknown provider")

    for i, r in enumerate(provider_rows, start=2):
        urls = [u.strip() for u in r["source_urls"].split(";") if u.strip()]
        for column in ("legal_seat_country", "certifications"):
            sourced = fact_value.get((r["provider_id"], column))
            if sourced is None:
                continue
            stated = r[column]
            if column == "certifications":
                sourced = ";".join(certification_tokens(sourced))
                same = not stated or set(certification_tokens(stated)) == set(certification_tokens(sourced))
            else:
                same = not stated or stated == sourced
            if not same:
                raise SeedError(f"providers.csv line {i}: {column} {stated!r} differs from provider_facts.csv "
                                f"({sourced!r}); keep one sourced value")
            r = {**r, column: sourced}
        row = {
            "provider_id": r["provider_id"],
            "name": r["name"],
            "hq_country": r["hq_country"],
            "legal_seat_country": r["legal_seat_country"],
            "parent_jurisdiction": r["parent_jurisdiction"],
            "eu_data_residency": r["eu_data_residency"],
            "eu_regions": r["eu_regions"],
            "certifications": r["certifications"],
            "uptime_sla_pct": r["uptime_sla_pct"],
            "performance_sla": r["performance_sla"] or "unknown",
            "support_model": r["support_model"] or "unknown",
            "min_commitment": r["min_commitment"] or "unknown",
            "burst_capacity": r["burst_capacity"] or "unknown",
            "source_url": urls[0] if urls else "",
            "extra_source_urls": urls[1:],
            "as_of": r["as_of"],
            "verification_status": r.get("verification_status") or "claimed",
            "notes": r["notes"],
            "parent_company": r.get("parent_company"),
            "parent_company_source_url": r.get("parent_company_source_url"),
            "parent_company_as_of": r.get("parent_company_as_of"),
        }
        out.providers.append(_validate(Provider, row, f"providers.csv line {i}"))

    scopes_path = seed_dir / "certification_scopes.csv"
    for i, r in enumerate(_read(scopes_path) if scopes_path.exists() else [], start=2):
        row = {**r, "scope_id": f"{r['provider_id']}:{r['certification']}",
               "verification_status": r["verification_status"] or "claimed"}
        scope = _validate(CertificationScope, row, f"certification_scopes.csv line {i}")
        if scope.provider_id not in provider_ids:
            raise SeedError(f"certification_scopes.csv line {i}: {scope.scope_id} names an unknown provider")
        out.certification_scopes.append(scope)

    offers: dict[str, Offer] = {}
    for i, r in enumerate(offer_rows, start=2):
        where = f"offers.csv line {i} ({r['offer_id']})"
        pm = r["price_model"]
        if pm not in _PRICE_MODEL:
            raise SeedError(f"{where}: unknown price_model {pm!r}")
        offer_id = offer_key(r["offer_id"], pm)
        model_specs = specs_by_model.get(r["gpu_model"], [])
        spec_id = next((s.gpu_spec_id for s in model_specs if s.form_factor == r["form_factor"]), None)
        if spec_id is None and not r["form_factor"] and r["gpu_model"] in SINGLE_FORM_MODELS and len(model_specs) == 1:
            spec_id = model_specs[0].gpu_spec_id
        mig = {"yes": True, "no": False}.get(r["mig_supported"])
        offer_row = {
            "offer_id": offer_id,
            "provider_id": r["provider_id"],
            "gpu_model": r["gpu_model"],
            "gpu_spec_id": spec_id,
            "form_factor": r["form_factor"],
            "gpus_per_node": r["gpus_per_node"],
            "memory_gb": r["memory_gb"],
            "memory_type": r["memory_type"],
            "intra_node": r["intra_node"],
            "inter_node": r["inter_node"],
            "inter_node_bandwidth_gbps_per_gpu": r["inter_node_gbps_per_gpu"],
            "inter_node_source_url": r["inter_node_source_url"],
            "inter_node_as_of": r["inter_node_as_of"],
            "mig_supported": mig,
            "region": r["region"],
            "datacenter_country": (r.get("datacenter_country") or None)
            or datacenter_country(r["region"], known_regions, r["provider_id"]),
            "source_url": r["source_url"],
            "as_of": r["as_of"],
            "verification_status": r.get("verification_status") or "claimed",
            "notes": r["notes"],
            # the provider's instance/SKU name where a source states it: a catalog refresh matches on it
            "instance_type": r.get("instance_type") or None,
            # single-tenant physical server (yes) or shared / virtualised (no) where a source says so, with it
            "is_dedicated_hardware": _yes_no(r.get("is_dedicated_hardware"), f"{where}: is_dedicated_hardware"),
            "dedicated_source_url": r.get("dedicated_source_url") or None,
            "dedicated_as_of": r.get("dedicated_as_of") or None,
        }
        offer = _validate(Offer, offer_row, where)
        first = offers.setdefault(offer_id, offer)
        if first.is_dedicated_hardware != offer.is_dedicated_hardware:
            raise SeedError(f"{where}: is_dedicated_hardware differs from the offer's first row (one offer, one "
                            "hardware: fill every price row of the offer alike)")

        if r["price_per_gpu_hour"].strip() == "":
            continue  # e.g. a monthly-only price: the offer stays, with no hourly price (shown missing)
        price_type, implied_term = _PRICE_MODEL[pm]
        term = r["term_months"] or implied_term
        valid_from = as_of_lower_bound(r["as_of"])
        method = "api" if (r["provider_id"] in _API_COLLECTED and _COLLECTOR_URL in r["source_url"]) else "page"
        price_row = {
            "price_id": f"{offer_id}:{price_type}:{term or ''}:{valid_from.isoformat()}"
            + (f":upfront{r['upfront_pct']}" if r.get("upfront_pct") else ""),
            "offer_id": offer_id,
            "price_type": price_type,
            "term_months": term,
            "upfront_pct": r.get("upfront_pct") or None,
            "amount_per_gpu_hour": r["price_per_gpu_hour"],
            "currency": r["currency"],
            "valid_from": valid_from,
            "source_url": r["source_url"],
            "retrieved_at": r["as_of"],
            "method": method,
            "verification_status": r.get("verification_status") or "claimed",
            "notes": r["notes"],
        }
        out.prices.append(_validate(Price, price_row, where))
    out.offers = list(offers.values())
    out.prices = close_superseded(out.prices)

    provider_ids_known = {p.provider_id for p in out.providers}
    for i, r in enumerate(_read(seed_dir / "region_countries.csv"), start=2):
        row = {**r, "region_key": f"{r['provider_id']}:{r['region']}",
               "verification_status": r.get("verification_status") or "claimed"}
        region = _validate(RegionCountry, row, f"region_countries.csv line {i}")
        if region.provider_id not in provider_ids_known:
            raise SeedError(f"region_countries.csv line {i}: unknown provider {region.provider_id!r}")
        out.region_countries.append(region)
    return out


def close_superseded(prices: list[Price]) -> list[Price]:
    """Close every price that a newer observation of the same offer, type, term and upfront share
    replaces: ``valid_to`` = the newer ``valid_from``. The newest stays current (``valid_to`` empty).

    >>> import datetime as dt
    >>> base = dict(offer_id="o", price_type="on-demand", amount_per_gpu_hour=1, currency="EUR",
    ...             source_url="https://example.org/p", retrieved_at="2026", method="page")
    >>> old = Price(price_id="a", valid_from=dt.date(2025, 12, 30), **base)
    >>> new = Price(price_id="b", valid_from=dt.date(2026, 7, 30), **{**base, "amount_per_gpu_hour": 1.1})
    >>> [(p.price_id, p.valid_to) for p in close_superseded([old, new])]
    [('a', datetime.date(2026, 7, 30)), ('b', None)]
    """
    groups: dict[tuple, list[Price]] = {}
    for p in prices:
        groups.setdefault((p.offer_id, p.price_type, p.term_months, p.upfront_pct, p.is_private), []).append(p)
    closed: dict[str, Price] = {}
    for group in groups.values():
        ordered = sorted(group, key=lambda p: p.valid_from)
        for older, newer in zip(ordered, ordered[1:], strict=False):
            if newer.valid_from > older.valid_from:
                closed[older.price_id] = older.model_copy(update={"valid_to": newer.valid_from})
    return [closed.get(p.price_id, p) for p in prices]


def rows_as_dicts(rows: Iterable) -> list[dict]:
    return [r.model_dump(mode="python") for r in rows]
