"""Hardware-truth rules run on every edit and import (no SQL here: the store hands in the context).

The seed text warns that hardware claims need verification: an "H100" listing may be an SXM board with
HBM3 and NVLink, or a PCIe card with HBM2e. These rules compare what a row claims with the catalog's
GPU specs and prices, and return findings: ``error`` blocks the save, ``warning`` is shown and kept.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from domain.geography import EU_EEA_COUNTRY_CODES

#: A price more than this factor above or below the median on-demand price of the same GPU model is
#: flagged for a second look (a judgement: the seed's H100 prices span about 1.5-16 EUR/GPU-h, a 10x
#: range, so 3x either side of the median catches unit slips such as per-node prices filed per GPU).
MEDIAN_FACTOR = 3.0


@dataclass
class Finding:
    level: str  # "error" | "warning"
    row: str
    column: str
    reason: str


@dataclass
class RuleContext:
    specs: dict[str, dict] = field(default_factory=dict)
    gpu_models: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)  # lower-case alias -> gpu_model
    offer_gpu_model: dict[str, str] = field(default_factory=dict)
    on_demand_eur_by_offer: dict[str, float] = field(default_factory=dict)
    median_on_demand_eur_by_model: dict[str, float] = field(default_factory=dict)
    usd_per_eur: float = 1.0
    #: provider_id -> EU/EEA country codes of that provider's offers (ownership rule: eu_regions)
    offer_eu_countries_by_provider: dict[str, set[str]] = field(default_factory=dict)


def resolve_gpu_model(name: str, ctx: RuleContext) -> str | None:
    """The catalog model for ``name``: itself if known, else through the alias table (case-insensitive)."""
    if name in ctx.gpu_models:
        return name
    return ctx.aliases.get(name.strip().lower())


def check_offer(row: dict, ctx: RuleContext) -> list[Finding]:
    key = row["offer_id"]
    out: list[Finding] = []
    model = row.get("gpu_model")
    if model not in ctx.gpu_models:
        hint = resolve_gpu_model(model or "", ctx)
        suggestion = f" Did you mean '{hint}' (alias)?" if hint else " Add it to GPU models or the alias table first."
        out.append(Finding("error", key, "gpu_model", f"unknown GPU model '{model}'.{suggestion}"))
    spec_id = row.get("gpu_spec_id")
    if spec_id:
        spec = ctx.specs.get(spec_id)
        if spec is None:
            out.append(Finding("error", key, "gpu_spec_id", f"unknown GPU spec '{spec_id}'"))
        else:
            if spec["gpu_model"] != model:
                out.append(Finding("error", key, "gpu_spec_id", f"spec '{spec_id}' is a {spec['gpu_model']}, not a {model}"))
            for col, unit in (("memory_gb", " GB"), ("memory_type", "")):
                claimed = row.get(col)
                if claimed is not None and spec.get(col) is not None and claimed != spec[col]:
                    out.append(Finding(
                        "error", key, col,
                        f"a {spec_id} has {spec['memory_gb']:g} GB {spec['memory_type']} (spec sheet); "
                        f"this row says {claimed}{unit}",
                    ))
            if (spec["form_factor"] == "SXM" and (row.get("gpus_per_node") or 0) >= 4
                    and row.get("intra_node") not in (None, "NVLink-NVSwitch")):
                out.append(Finding("error", key, "intra_node",
                                   f"{spec_id} boards of 4 or 8 GPUs connect through NVLink-NVSwitch, not {row['intra_node']}"))
            if row.get("form_factor") and row["form_factor"] != spec["form_factor"]:
                out.append(Finding("error", key, "form_factor", f"spec '{spec_id}' is {spec['form_factor']}, row says {row['form_factor']}"))
            out.extend(_mig_findings(row, spec, spec_id))
    out.extend(_variant_findings(row, ctx))
    return out


def _mig_findings(row: dict, spec: dict, spec_id: str) -> list[Finding]:
    """``mig_supported`` describes the GPU model, so it must say what the spec sheet says: a spec with
    ``mig_max_instances`` 0 has no MIG, one with a count above 0 has it. (Audit finding: an RTX PRO
    6000 Blackwell row said "no" although the card supports MIG.) A spec without a count decides nothing."""
    mig, count = row.get("mig_supported"), spec.get("mig_max_instances")
    if mig is None or count is None:
        return []
    if bool(mig) != (count > 0):
        said, sheet = ("yes", "no MIG (0 instances)") if mig else ("no", f"up to {count} MIG instances")
        return [Finding("error", row["offer_id"], "mig_supported",
                        f"row says MIG {said}, but the {spec_id} spec sheet says {sheet}")]
    return []


#: Words that name a distinct card variant in a spec id (a variant has its own power and clocks).
_VARIANT_WORDS = ("Max-Q",)


def _variant_findings(row: dict, ctx: RuleContext) -> list[Finding]:
    """An offer whose SKU names a card variant (``Max-Q``) must be joined to that variant's spec, not to
    the base card's. (Audit finding: Hetzner's 300 W Max-Q card was joined to the 600 W spec.)"""
    out: list[Finding] = []
    text = " ".join(str(row.get(c) or "") for c in ("offer_id", "gpu_model", "region"))
    for word in _VARIANT_WORDS:
        named = re.search(re.escape(word).replace("\\-", "[- ]?"), text, flags=re.IGNORECASE)
        spec_id = row.get("gpu_spec_id") or ""
        if named and word.lower() not in spec_id.lower() and word.lower() not in (row.get("gpu_model") or "").lower():
            out.append(Finding("error", row["offer_id"], "gpu_model",
                               f"the SKU names a {word} card, but the row is joined to '{spec_id or row.get('gpu_model')}' "
                               f"(a different variant: power and clocks differ)"))
    return out


# ---------------------------------------------------------------------------------------------------
# Ownership rules (providers)
# ---------------------------------------------------------------------------------------------------

#: EU/EEA member states (:data:`domain.geography.EU_EEA_COUNTRY_CODES`, the one list).
EU_EEA = EU_EEA_COUNTRY_CODES
#: An ownership source older than this is shown as a warning ("re-check the parent"), not an error.
OWNERSHIP_RECHECK_DAYS = 365


def check_provider(row: dict, ctx: RuleContext, today: dt.date | None = None) -> list[Finding]:
    """Ownership rules. Errors: an EU parent without a named, sourced, dated parent company; EU
    residency 'yes' without an EU parent (it is 'partial' then); an EU parent headquartered outside the
    EU/EEA; offers in EU/EEA data centres while ``eu_regions`` is empty. Warning: the ownership source
    is more than a year old."""
    key = row["provider_id"]
    out: list[Finding] = []
    parent = row.get("parent_jurisdiction")
    if parent == "EU":
        for col in ("parent_company", "parent_company_source_url", "parent_company_as_of"):
            if not row.get(col):
                out.append(Finding("error", key, col,
                                   "parent jurisdiction is EU but no current ownership source names the parent "
                                   f"({col} is empty)"))
        if row.get("hq_country") and row["hq_country"] not in EU_EEA:
            out.append(Finding("error", key, "parent_jurisdiction",
                               f"parent jurisdiction EU, but headquarters are in {row['hq_country']} (outside the EU/EEA)"))
    if row.get("eu_data_residency") == "yes" and parent != "EU":
        out.append(Finding("error", key, "eu_data_residency",
                           f"EU residency 'yes' needs an EU parent; the parent is {parent or 'not stated'} "
                           "(EU sites of a non-EU parent are 'partial')"))
    if row.get("eu_data_residency") in ("yes", "partial") and not row.get("eu_regions"):
        out.append(Finding("error", key, "eu_regions",
                           f"EU residency '{row['eu_data_residency']}' but no EU/EEA location is listed"))
    eu_offer_countries = ctx.offer_eu_countries_by_provider.get(key, set())
    if eu_offer_countries and not row.get("eu_regions"):
        out.append(Finding("error", key, "eu_regions",
                           "eu_regions is empty although the provider has offers in EU/EEA data centres ("
                           + ", ".join(sorted(eu_offer_countries)) + ")"))
    as_of = row.get("parent_company_as_of")
    if parent == "EU" and as_of and today is not None:
        try:
            year, month, day = ([int(x) for x in str(as_of).split("-")] + [1, 1])[:3]
            age = (today - dt.date(year, month, day)).days
        except ValueError:
            age = None
        if age is not None and age > OWNERSHIP_RECHECK_DAYS:
            out.append(Finding("warning", key, "parent_company_as_of",
                               f"the ownership source is {age} days old: re-check the parent"))
    return out


# ---------------------------------------------------------------------------------------------------
# Trust marks
# ---------------------------------------------------------------------------------------------------

#: A ``verified`` row older than this must say that it has not been re-checked since.
RECHECK_AFTER_DAYS = 90
#: The mark, written into the row's notes, that tells a reader the check is old.
NOT_RECHECKED_MARK = "not re-checked"


def needs_recheck_mark(status: str | None, observed: dt.date | None, notes: str | None, today: dt.date) -> bool:
    """True for a ``verified`` row observed more than RECHECK_AFTER_DAYS ago whose notes lack the mark.

    >>> needs_recheck_mark("verified", dt.date(2026, 1, 1), "read on the page", dt.date(2026, 12, 3))
    True
    >>> needs_recheck_mark("verified", dt.date(2026, 1, 1), "Verified 2026-01; not re-checked since.", dt.date(2026, 12, 3))
    False
    """
    if status != "verified" or observed is None:
        return False
    return (today - observed).days > RECHECK_AFTER_DAYS and NOT_RECHECKED_MARK not in (notes or "").lower()


def check_price(row: dict, ctx: RuleContext) -> list[Finding]:
    key = row["price_id"]
    out: list[Finding] = []
    amount = row["amount_per_gpu_hour"]
    eur = amount / ctx.usd_per_eur if row["currency"] == "USD" else amount
    on_demand = ctx.on_demand_eur_by_offer.get(row["offer_id"])
    if row["price_type"] == "reserved" and on_demand is not None and eur > on_demand:
        out.append(Finding("warning", key, "amount_per_gpu_hour",
                           f"reserved price {eur:.2f} EUR is above this offer's on-demand price {on_demand:.2f} EUR"))
    model = ctx.offer_gpu_model.get(row["offer_id"])
    median = ctx.median_on_demand_eur_by_model.get(model) if model else None
    if median and eur > 0 and (eur > median * MEDIAN_FACTOR or eur < median / MEDIAN_FACTOR):
        out.append(Finding("warning", key, "amount_per_gpu_hour",
                           f"{eur:.2f} EUR/GPU-h is far from the {model} median of {median:.2f} EUR "
                           f"(more than {MEDIAN_FACTOR:g}x off): per node instead of per GPU?"))
    return out


def check_rows(table: str, rows: list[dict], ctx: RuleContext) -> list[Finding]:
    checker = {"offers": check_offer, "prices": check_price, "providers": check_provider}.get(table)
    if checker is None:
        return []
    return [finding for row in rows for finding in checker(row, ctx)]
