"""Hardware-truth rules run on every edit and import (no SQL here: the store hands in the context).

The seed text warns that hardware claims need verification: an "H100" listing may be an SXM board with
HBM3 and NVLink, or a PCIe card with HBM2e. These rules compare what a row claims with the catalog's
GPU specs and prices, and return findings: ``error`` blocks the save, ``warning`` is shown and kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    return out


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
    checker = {"offers": check_offer, "prices": check_price}.get(table)
    if checker is None:
        return []
    return [finding for row in rows for finding in checker(row, ctx)]
