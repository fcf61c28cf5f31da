"""What the data report and the Home page say about the catalog's fitness for the EU-sovereignty question.

Pure functions over frames the store hands out (no SQL here), so the report, the Home page and the
tests count the same way:

* :func:`rule_findings` runs the hardware-truth and ownership rules (``catalog.rules``) over every offer
  and provider;
* :func:`sovereign_shortlist` lists EU-parent H100/H200/B200 offers that state their inter-node fabric,
  their data-centre country and a price observed within :data:`PRICE_FRESH_DAYS`;
* :func:`certification_scope_providers` counts providers with at least one certification whose scope
  (services, countries, GPU compute) is on record;
* :func:`verified_without_recheck_mark` lists ``verified`` rows older than 90 days that do not say
  they have not been re-checked;
* :data:`SOVEREIGN_FILTER` is the Providers-page filter "H100 SXM + InfiniBand + EU data centre + EU
  parent".

The 12-month freshness window and the GPU list come from the catalog-data issue (#18): "at least one
H100/H200/B200 offer that has fabric, data-centre country and a price observed within 12 months".
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TypedDict

import pandas as pd

from catalog.models import as_of_lower_bound, certification_tokens
from catalog.rules import Finding, RuleContext, check_offer, check_provider, needs_recheck_mark

#: GPUs the sovereign shortlist is about (issue #18; B300 added by issue #30).
SHORTLIST_GPUS = ("H100", "H200", "B200", "B300")
#: A price counts as current for the shortlist when observed at most this many days ago (12 months).
PRICE_FRESH_DAYS = 365
#: Fabric values that mean "there is a scale-out fabric" ('none' states that there is none).
FABRICS = ("InfiniBand-NDR", "InfiniBand-HDR", "RoCEv2", "Ethernet")
INFINIBAND = ("InfiniBand-NDR", "InfiniBand-HDR")
#: National certification schemes a European client asks for by name; always selectable in scoring.
NATIONAL_SCHEMES = ("BSI-C5", "SecNumCloud", "ENS", "HDS")


def _cell(value):
    """A DataFrame cell as a plain Python value (NaN/NaT/pd.NA -> None, numpy scalars -> Python)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _cell(v) for k, v in row.items()} for row in frame.to_dict("records")]


def rule_context(specs: pd.DataFrame, gpu_models: pd.DataFrame, aliases: pd.DataFrame,
                 offers: pd.DataFrame, eu_countries: frozenset[str]) -> RuleContext:
    """The context the rules need, built from whole tables."""
    eu_by_provider: dict[str, set[str]] = {}
    for r in _records(offers[["provider_id", "datacenter_country"]]):
        if r["datacenter_country"] in eu_countries:
            eu_by_provider.setdefault(r["provider_id"], set()).add(r["datacenter_country"])
    return RuleContext(
        specs={r["gpu_spec_id"]: r for r in _records(specs)},
        gpu_models=set(gpu_models["gpu_model"]),
        aliases={str(a).lower(): m for a, m in zip(aliases["alias"], aliases["gpu_model"], strict=True)},
        offer_eu_countries_by_provider=eu_by_provider,
    )


def rule_findings(offers: pd.DataFrame, providers: pd.DataFrame, ctx: RuleContext,
                  today: dt.date) -> list[Finding]:
    """Every hardware-truth finding on the offers and every ownership finding on the providers."""
    found = [f for r in _records(offers) for f in check_offer(r, ctx)]
    found += [f for r in _records(providers) for f in check_provider(r, ctx, today)]
    return found


def sovereign_shortlist(offers: pd.DataFrame, today: dt.date, *, gpus: tuple[str, ...] = SHORTLIST_GPUS,
                        fabrics: tuple[str, ...] = FABRICS) -> pd.DataFrame:
    """EU-parent offers of ``gpus`` that state a fabric in ``fabrics``, a data-centre country and a
    current price observed at most PRICE_FRESH_DAYS before ``today``.

    ``offers`` is ``CatalogStore.list_offers`` output (it carries ``parent_jurisdiction``,
    ``inter_node``, ``datacenter_country`` and ``price_retrieved_at`` of the newest current price).
    """
    if offers.empty:
        return offers.copy()

    def fresh(value) -> bool:
        value = _cell(value)
        if not value:
            return False
        try:
            return (today - as_of_lower_bound(str(value))).days <= PRICE_FRESH_DAYS
        except ValueError:
            return False

    keep = (
        (offers["parent_jurisdiction"] == "EU")
        & offers["gpu_model"].isin(gpus)
        & offers["inter_node"].isin(fabrics)
        & offers["datacenter_country"].notna()
    )
    # The date check (a Python call per row) only on the few rows left: Home runs this on every rerun (#31).
    keep.loc[keep] = offers.loc[keep, "price_retrieved_at"].map(fresh).astype(bool)
    return offers[keep].copy()


class ShortlistSummary(TypedDict):
    """What :func:`shortlist_summary` counts."""

    providers: list[str]
    offers: int
    eu_parent_h100_h200_sxm: int
    eu_parent_h100_h200_sxm_with_fabric_and_price: int
    eu_parent_h100_h200_sxm_infiniband: int


def shortlist_summary(offers: pd.DataFrame, today: dt.date) -> ShortlistSummary:
    """Counts for the Home page and the data report (see :func:`sovereign_shortlist`)."""
    # Only the columns read here: the offers frame has about 60, and each selection below copies them (#31).
    used = ["provider_id", "parent_jurisdiction", "gpu_model", "form_factor", "inter_node", "datacenter_country",
            "price_retrieved_at"]
    offers = offers[[c for c in used if c in offers.columns]]
    short = sovereign_shortlist(offers, today)
    sxm_ib = sovereign_shortlist(offers, today, gpus=("H100", "H200"), fabrics=INFINIBAND)
    sxm_ib = sxm_ib[sxm_ib["form_factor"] == "SXM"] if not sxm_ib.empty else sxm_ib
    eu_parent_hopper = offers[(offers["parent_jurisdiction"] == "EU") & offers["gpu_model"].isin(("H100", "H200"))
                              & (offers["form_factor"] == "SXM")] if not offers.empty else offers
    return {
        "providers": sorted(short["provider_id"].unique()) if not short.empty else [],
        "offers": int(len(short)),
        "eu_parent_h100_h200_sxm": int(len(eu_parent_hopper)),
        "eu_parent_h100_h200_sxm_with_fabric_and_price": int(len(
            sovereign_shortlist(eu_parent_hopper, today, gpus=("H100", "H200")))) if not eu_parent_hopper.empty else 0,
        "eu_parent_h100_h200_sxm_infiniband": int(len(sxm_ib)),
    }


def certification_scope_providers(scopes: pd.DataFrame) -> list[str]:
    """Providers with at least one held certification whose scope is on record."""
    if scopes.empty:
        return []
    stated = scopes[scopes["scope_services"].fillna("").str.strip() != ""]
    return sorted(stated["provider_id"].unique())


def certification_options(providers: pd.DataFrame) -> list[str]:
    """Certification tokens to offer in a "required certifications" picker: every token a provider
    holds on record, plus the national schemes (so a client can ask for BSI C5 even where no
    provider's scope covers it; the constraint then explains who lacks it)."""
    held = {t for v in providers["certifications"].dropna() for t in certification_tokens(v)}
    return sorted(held | set(NATIONAL_SCHEMES))


def verified_without_recheck_mark(frames: dict[str, pd.DataFrame], today: dt.date) -> pd.DataFrame:
    """``verified`` rows observed more than 90 days ago whose notes do not say "not re-checked".

    ``frames`` maps a table name to its rows; each needs ``verification_status``, ``notes`` and
    either ``as_of`` or (prices) ``retrieved_at``.
    """
    rows = []
    for table, frame in frames.items():
        if frame.empty:
            continue
        key = frame.columns[0]
        date_col = "retrieved_at" if "retrieved_at" in frame.columns else "as_of"
        for r in _records(frame):
            raw = r.get(date_col)
            try:
                observed = as_of_lower_bound(str(raw)) if raw else None
            except ValueError:
                observed = None
            if needs_recheck_mark(r.get("verification_status"), observed, r.get("notes"), today):
                rows.append({"table_name": table, "row_key": r[key], "observed": raw,
                             "age_days": (today - observed).days if observed else None})
    return pd.DataFrame(rows, columns=["table_name", "row_key", "observed", "age_days"])


#: The Providers-page question of issue #18 as a filter: "H100 SXM + InfiniBand + EU data centre + EU parent".
SOVEREIGN_FILTER = dict(gpu_models=("H100",), form_factors=("SXM",), inter_nodes=INFINIBAND,
                        eu_datacenter_only=True, jurisdictions=("EU",))


#: Issue #30's breadth and freshness targets: (goal, comparison) per measure.
DATA_TARGETS = {"shortlist_providers": 5, "offers_with_country_pct": 85.0, "prices_within_180d_pct": 75.0,
                "providers_with_offers": 30}
#: Notes that say a collector's price was compared with a second source (agreeing or in conflict).
_SECOND_SOURCE = r"(?i)cross-check|conflict|second source|disagree"


def data_targets(offers: pd.DataFrame, prices: pd.DataFrame, listed: pd.DataFrame, today: dt.date) -> dict:
    """The figures of issue #30's targets on this catalog.

    ``offers`` is the offers table, ``prices`` the current prices (``CatalogStore.list_prices``), ``listed``
    the ``list_offers`` frame. Prices observed within 180 days are counted on current prices; "own material"
    is a ``verified`` price (read from the provider's site, docs, API or own repository); a collector
    price is "checked" when its notes record a second source or a conflict.
    """
    def age(value) -> int | None:
        try:
            return (today - as_of_lower_bound(str(value))).days
        except ValueError:
            return None

    ages = prices["retrieved_at"].map(age)
    fresh = int((ages.notna() & (ages <= 180)).sum())
    with_country = int(offers["datacenter_country"].notna().sum())
    provider_of = dict(zip(offers["offer_id"], offers["provider_id"], strict=True))
    per_provider = prices.assign(provider_id=prices["offer_id"].map(provider_of),
                                 own=prices["verification_status"].eq("verified"))
    own = (per_provider.groupby("provider_id")["own"].agg(["sum", "count"])
           .rename(columns={"sum": "own_material_prices", "count": "prices"}).reset_index())
    own["own_material_pct"] = (100.0 * own["own_material_prices"] / own["prices"]).round(1)
    claimed = prices[prices["verification_status"].ne("verified")]
    checked = int(claimed["notes"].fillna("").str.contains(_SECOND_SOURCE, regex=True).sum())
    return {
        "shortlist_providers": shortlist_summary(listed, today)["providers"],
        "offers_with_country": with_country, "offers": int(len(offers)),
        "offers_with_country_pct": round(100.0 * with_country / max(len(offers), 1), 1),
        "prices_within_180d": fresh, "prices": int(len(prices)),
        "prices_within_180d_pct": round(100.0 * fresh / max(len(prices), 1), 1),
        "providers_with_offers": int(offers["provider_id"].nunique()),
        "own_material_by_provider": own.sort_values(["own_material_pct", "provider_id"], ascending=[False, True]),
        "collector_prices": int(len(claimed)), "collector_prices_checked": checked,
    }
