"""Monthly price refresh from public instance catalogs (no SQL here: the store applies the change set).

Reads a SkyPilot ``vms.csv`` (columns ``InstanceType, AcceleratorName, AcceleratorCount, Price, Region``,
optionally ``SpotPrice, AvailabilityZone, GpuInfo``) or a dstack **gpuhunt** catalog CSV (``instance_name,
location, price, gpu_count, gpu_name, spot``, optionally ``gpu_memory, gpu_vendor``), maps it to the
catalog's offers and prices, and returns a :class:`RefreshPreview`: the diff an editor checks (new /
changed / unchanged / disappeared offers, price moves in %), every skipped row with its reason, and the
frozen change set (row versions and the catalog's data version) that :func:`apply_refresh` writes
unchanged, or refuses when the catalog moved on since the preview.

Rules (issue #16):

* **Matching**: a file row is the offer with the same (provider, instance/SKU, region). A catalog offer
  without ``instance_type`` matches when its id carries the instance slug and its region (with any
  ``" (NL)"`` suffix removed) is the file's region. A matched offer keeps every curated column; only its
  ``last_seen`` and its prices change.
* **Prices**: per GPU-hour = instance price / GPU count, in USD (both formats price in USD). The same
  amount moves only ``last_seen`` (no new history row); a new amount closes the current price
  (``valid_to`` = the file's date) and adds a row with the file's source and date; a file older than the
  catalog's current price leaves it and says so. Spot = the lowest zone price of the region; a price of 0
  means "not offered".
* **GPU names** resolve through the alias table (its form factor applies) or the model names; the GPU
  memory (SkyPilot ``GpuInfo``, gpuhunt ``gpu_memory``) picks between models of one family (A100 40 vs
  80 GB, H100 vs H100 NVL). TPUs are reported as not GPUs; fractional GPU counts (shared GPUs) are
  skipped, never extrapolated; unknown GPUs block the refresh unless the editor chooses to skip them.
* **GCP**: its GPU rows carry no machine type and the VM part is priced in separate rows. The machine
  type is built from the accelerator and its count (:data:`GCP_MACHINE_TYPES`) and its VM price, in the
  same zone, is added; GPUs that attach to a VM of the user's choice (N1: T4, V100, P100, P4) are skipped.
* **Regions**: the data-centre country comes from the ``region_countries`` table, else from the region
  text where it states the country as "<place>, <ISO code>, <continent>" (SkyPilot's Vast.ai catalog:
  "Denmark, DK, EU").

Bad input (ragged lines, missing columns, non-numeric or negative prices, duplicate rows) is reported
per line and makes the preview un-appliable: nothing is written.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

import pandas as pd

from catalog.cells import clean_value
from catalog.models import Editor, RowChange, as_of_lower_bound
from catalog.refresh_read import (
    GCP_ATTACHED,
    GCP_MACHINE_TYPES,
    GPUHUNT_REQUIRED,
    MAX_REFRESH_BYTES,
    SAME_AMOUNT_USD,
    SKYPILOT_REQUIRED,
    GpuNames,
    Observation,
    RefreshInputError,
    RefreshPreview,
    country_in_region,
    map_rows,
    read_catalog_file,
)

__all__ = ["GCP_ATTACHED", "GCP_MACHINE_TYPES", "GPUHUNT_PROVIDER_IDS", "GPUHUNT_REQUIRED", "MAX_REFRESH_BYTES",
           "SAME_AMOUNT_USD", "SKYPILOT_REQUIRED", "GpuNames", "LiveFetchError", "Observation", "RefreshInputError",
           "RefreshPreview", "apply_refresh", "fetch_gpuhunt", "map_rows", "plan_refresh", "read_catalog_file"]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def _bare_region(region: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", str(region)).strip().lower()


def _row_values(row: dict, fields) -> dict:
    return {k: clean_value(row.get(k)) for k in fields}


def _move_pct(old: float | None, new: float | None) -> float | None:
    return None if (old is None or new is None or old == 0) else round(100.0 * (new - old) / old, 2)


def plan_refresh(store, data: bytes, filename: str, *, provider_id: str, source_url: str, as_of: str,
                 skip_unknown_gpus: bool = False, progress=None) -> RefreshPreview:
    """Read a catalog file and compare it with the catalog: the preview and its frozen change set."""
    from catalog.models import TABLE_MODELS

    report = progress or (lambda fraction, text: None)
    preview = RefreshPreview(provider_id=provider_id, source_url=source_url, as_of=as_of, fmt="")
    try:
        file_date = as_of_lower_bound(as_of)
    except ValueError as exc:
        raise RefreshInputError(f"The file's date: {exc}") from exc
    if store.row("providers", provider_id) is None:
        raise RefreshInputError(f"Unknown provider {provider_id!r}: add the provider first.")
    preview.data_version = store.data_version
    report(0.05, "reading the file")
    fmt, header, rows, problems = read_catalog_file(data, filename)
    preview.fmt, preview.rows_read = fmt, len(rows)
    preview.problems += problems
    report(0.3, "mapping GPU rows")
    observations = map_rows(fmt, header, rows, GpuNames.from_store(store), skip_unknown_gpus=skip_unknown_gpus,
                            preview=preview)
    preview.observations = observations
    report(0.6, "comparing with the catalog")
    offers = store.editable_rows("offers")
    offers = offers[offers.provider_id == provider_id]
    prices = store.editable_rows("prices")
    prices = prices[prices.offer_id.isin(set(offers.offer_id)) & ~prices.is_private.astype(bool)
                    & prices.term_months.isna() & prices.price_type.isin(["on-demand", "spot"])
                    & (prices.currency == "USD")]
    prices_by_offer: dict[str, list[dict]] = {}
    for p in prices.to_dict("records"):
        prices_by_offer.setdefault(p["offer_id"], []).append(p)
    regions = store.editable_rows("region_countries")
    country = {_bare_region(r.region): r.datacenter_country
               for r in regions[regions.provider_id == provider_id].itertuples()}
    by_instance: dict[tuple[str, str], list[dict]] = {}
    without_instance: list[dict] = []
    for o in offers.to_dict("records"):
        inst = clean_value(o.get("instance_type"))
        if inst:
            by_instance.setdefault((inst.lower(), _bare_region(o["region"])), []).append(o)
        else:
            without_instance.append(o)
    without_instance_by_region: dict[str, list[dict]] = {}
    for o in without_instance:
        without_instance_by_region.setdefault(_bare_region(o["region"]), []).append(o)
    taken_offers = set(store.editable_rows("offers").offer_id)
    taken_prices = set(store.editable_rows("prices", current_only=False, include_private=True).price_id)
    offer_fields, price_fields = TABLE_MODELS["offers"].model_fields, TABLE_MODELS["prices"].model_fields
    lines, changes = [], []
    matched_ids: set[str] = set()
    for obs in observations:
        region_key = _bare_region(obs.region)
        found = [o for o in by_instance.get((obs.instance_type.lower(), region_key), [])
                 if o["gpu_model"] == obs.gpu_model]
        matched_by = "instance type"
        if not found:
            # Azure names VMs "Standard_ND96isr_H100_v5"; curated ids carry the size without the prefix.
            slug = re.sub(r"^standard-", "", _slug(obs.instance_type))
            found = [o for o in without_instance_by_region.get(region_key, []) if f"-{slug}-" in f"-{o['offer_id']}-"
                     and o["gpu_model"] == obs.gpu_model]
            matched_by = "offer id"
        if len(found) > 1:
            preview.skipped.append((f"line {obs.lines[0]}", obs.instance_type,
                                    f"matches {len(found)} catalog offers ({', '.join(o['offer_id'] for o in found)}): "
                                    "set instance_type on the right one"))
            continue
        line = {"instance_type": obs.instance_type, "region": obs.region, "gpu_model": obs.gpu_model,
                "gpus_per_node": obs.gpus,
                "datacenter_country": country.get(region_key) or country_in_region(obs.region)}
        if found:
            offer = found[0]
            matched_ids.add(offer["offer_id"])
            line.update(offer_id=offer["offer_id"], matched_by=matched_by)
            if offer.get("datacenter_country"):
                line["datacenter_country"] = offer["datacenter_country"]
            moved = False
            for ptype, amount in (("on-demand", obs.on_demand), ("spot", obs.spot)):
                current = sorted((p for p in prices_by_offer.get(offer["offer_id"], []) if p["price_type"] == ptype),
                                 key=lambda p: clean_value(p["valid_from"]))
                old = current[-1] if current else None
                old_amount = None if old is None else float(old["amount_per_gpu_hour"])
                line[f"{ptype}_old"] = old_amount
                line[f"{ptype}_new"] = amount
                line[f"{ptype}_move_pct"] = _move_pct(old_amount, amount)
                if amount is None:
                    continue
                if old is not None and abs(float(old["amount_per_gpu_hour"]) - amount) < SAME_AMOUNT_USD:
                    seen_on = clean_value(old.get("last_seen"))
                    if seen_on is None or seen_on < file_date:
                        values = _row_values(old, price_fields) | {"last_seen": file_date,
                                                                   "last_seen_source_url": source_url}
                        if file_date >= clean_value(old["valid_from"]):
                            changes.append(RowChange(table="prices", action="update", key=old["price_id"],
                                                     values=values, expected_version=int(old["row_version"])))
                    continue
                if old is not None and file_date <= clean_value(old["valid_from"]):
                    line["note"] = (f"the catalog's {ptype} price is from {clean_value(old['valid_from'])}, not older than "
                                    f"this file ({file_date}): kept")
                    continue
                if old is not None:
                    changes.append(RowChange(table="prices", action="update", key=old["price_id"],
                                             values=_row_values(old, price_fields) | {"valid_to": file_date},
                                             expected_version=int(old["row_version"])))
                changes.append(_new_price(offer["offer_id"], ptype, amount, file_date, source_url, as_of, obs,
                                          preview.fmt, taken_prices))
                moved = True
            line["status"] = "changed" if moved else ("older" if line.get("note") else "unchanged")
            if clean_value(offer.get("last_seen")) is None or clean_value(offer.get("last_seen")) < file_date:
                changes.append(RowChange(table="offers", action="update", key=offer["offer_id"],
                                         values=_row_values(offer, offer_fields) | {"last_seen": file_date},
                                         expected_version=int(offer["row_version"])))
        else:
            offer_id = _free(_slug(f"{provider_id}-{obs.gpu_model}-{obs.instance_type}-{obs.region}"), taken_offers)
            line.update(offer_id=offer_id, matched_by="new", status="new")
            for ptype, amount in (("on-demand", obs.on_demand), ("spot", obs.spot)):
                line[f"{ptype}_old"], line[f"{ptype}_new"], line[f"{ptype}_move_pct"] = None, amount, None
            changes.append(RowChange(table="offers", action="insert", key=offer_id, values={
                "offer_id": offer_id, "provider_id": provider_id, "gpu_model": obs.gpu_model,
                "gpu_spec_id": obs.gpu_spec_id, "form_factor": obs.form_factor, "gpus_per_node": obs.gpus,
                "region": obs.region, "datacenter_country": country.get(region_key) or country_in_region(obs.region),
                "instance_type": obs.instance_type,
                "last_seen": file_date, "source_url": source_url, "as_of": as_of, "verification_status": "claimed",
                "notes": _offer_note(obs, preview.fmt)}))
            for ptype, amount in (("on-demand", obs.on_demand), ("spot", obs.spot)):
                if amount is not None:
                    changes.append(_new_price(offer_id, ptype, amount, file_date, source_url, as_of, obs, preview.fmt,
                                              taken_prices))
        lines.append(line)
    columns = ["status", "offer_id", "instance_type", "region", "datacenter_country", "gpu_model", "gpus_per_node",
               "on-demand_old", "on-demand_new", "on-demand_move_pct", "spot_old", "spot_new", "spot_move_pct",
               "matched_by", "note"]
    preview.diff = pd.DataFrame(lines, columns=columns).sort_values(["status", "offer_id"], kind="stable")
    seen_keys = {(o.instance_type.lower(), _bare_region(o.region)) for o in observations}
    gone = [o for o in offers.to_dict("records") if clean_value(o.get("instance_type")) and o["offer_id"] not in matched_ids
            and (o["instance_type"].lower(), _bare_region(o["region"])) not in seen_keys]
    preview.disappeared = pd.DataFrame(
        [{"offer_id": o["offer_id"], "instance_type": o["instance_type"], "region": o["region"],
          "last_seen": clean_value(o.get("last_seen"))} for o in gone],
        columns=["offer_id", "instance_type", "region", "last_seen"])
    preview.changes = changes
    status = preview.diff.status.value_counts()
    preview.counts = {"new": int(status.get("new", 0)), "changed": int(status.get("changed", 0)),
                      "unchanged": int(status.get("unchanged", 0)), "older": int(status.get("older", 0)),
                      "disappeared": len(gone), "skipped rows": len(preview.skipped),
                      "problems": len(preview.problems)}
    report(1.0, "preview ready")
    return preview


def _free(base: str, taken: set[str]) -> str:
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def _offer_note(obs: Observation, fmt: str) -> str:
    source = {"skypilot": "a SkyPilot vms.csv", "gpuhunt": "a gpuhunt catalog"}.get(fmt, fmt)
    text = (f"Imported from {source}: instance {obs.instance_type}, {obs.gpus} x {obs.gpu_name} per instance "
            f"(file lines {', '.join(map(str, obs.lines[:5]))}{'...' if len(obs.lines) > 5 else ''}).")
    if obs.breakdown:
        text += f" GCP machine type built from the accelerator and count; price = {obs.breakdown}."
    if obs.spot is not None and obs.spot_zones > 1:
        text += f" Spot = lowest of {obs.spot_zones} zone prices."
    return text + " Form factor (unless the alias names it), fabric and MIG are not in the file."


def _new_price(offer_id: str, ptype: str, amount: float, file_date: dt.date, source_url: str, as_of: str,
               obs: Observation, fmt: str, taken: set[str]) -> RowChange:
    price_id = _free(f"{offer_id}:{ptype}::{file_date.isoformat()}", taken)
    note = f"{amount * obs.gpus:g} USD per instance-hour / {obs.gpus} GPUs"
    if obs.breakdown:
        note += f"; {obs.breakdown}"
    if ptype == "spot" and obs.spot_zones > 1:
        note += f"; lowest of {obs.spot_zones} zones"
    return RowChange(table="prices", action="insert", key=price_id, values={
        "price_id": price_id, "offer_id": offer_id, "price_type": ptype, "amount_per_gpu_hour": amount,
        "currency": "USD", "valid_from": file_date, "source_url": source_url, "retrieved_at": as_of,
        "method": "page", "verification_status": "claimed", "notes": note})


def apply_refresh(store, preview: RefreshPreview, editor: Editor, message: str, *, progress=None):
    """Write exactly the previewed change set; refused if the catalog changed since the preview."""
    if preview.problems:
        raise RefreshInputError(f"The preview has {len(preview.problems)} problem(s); nothing was written.")
    return store.apply_changes(preview.change_set(message), editor, expected_data_version=preview.data_version,
                               progress=progress)


# ---------------------------------------------------------------------------------------------------
# Live fetch through the maintained gpuhunt library (PyPI: gpuhunt, by dstack)
# ---------------------------------------------------------------------------------------------------

#: gpuhunt provider name -> catalog provider id (where they differ).
GPUHUNT_PROVIDER_IDS = {"lambdalabs": "lambda", "oci": "oracle"}


class LiveFetchError(RuntimeError):
    """gpuhunt could not fetch a provider's catalog (no network, or the provider is not published)."""


def fetch_gpuhunt(providers: list[str]) -> dict[str, tuple[bytes, str]]:
    """Download the current gpuhunt catalog of each provider: {gpuhunt name: (CSV bytes, source URL)}.

    Uses gpuhunt's own loader (``Catalog.load`` reads the published per-provider catalogs, honouring
    ``GPUHUNT_CATALOG_URL``; tests point it at recorded responses on disk). The CSV has gpuhunt's v2 columns,
    so the result goes through exactly the same :func:`plan_refresh` path as a downloaded file.
    """
    import logging

    try:
        import gpuhunt
        from gpuhunt._internal.catalog import OFFLINE_PROVIDERS, _get_base_url
    except ImportError as exc:  # pragma: no cover - it is a project dependency
        raise LiveFetchError("The gpuhunt package is not installed (pip install gpuhunt).") from exc
    unknown = [p for p in providers if p not in OFFLINE_PROVIDERS]
    if unknown:
        raise LiveFetchError(f"gpuhunt publishes catalogs for {', '.join(OFFLINE_PROVIDERS)}; not for "
                             f"{', '.join(unknown)}.")
    catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
    quiet = logging.getLogger("gpuhunt")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # it logs a traceback for every provider it cannot load
    try:
        catalog.load()
    except Exception as exc:  # GPUHuntError, URLError, OSError: all mean "could not fetch"
        cause = exc.__cause__ or exc
        raise LiveFetchError(
            f"Could not fetch the gpuhunt catalogs ({type(cause).__name__}: {str(cause)[:200]}). Without network "
            "access, download the provider's vms.csv (SkyPilot) or gpuhunt CSV elsewhere and run "
            "`make refresh SOURCE=path/to/file PROVIDER=...`.") from exc
    finally:
        quiet.setLevel(level)
    out = {}
    base = _get_base_url()
    for name in providers:
        loaded = catalog.catalog.get(name)
        if loaded is None:
            raise LiveFetchError(f"gpuhunt could not load the {name} catalog (the others loaded); try again later "
                                 "or import a downloaded file.")
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name",
                         "gpu_memory", "spot", "gpu_vendor"])
        for item in loaded.items:
            vendor = getattr(item.gpu_vendor, "value", item.gpu_vendor) or ""
            writer.writerow([item.instance_name, item.location, item.price, item.cpu, item.memory, item.gpu_count,
                             item.gpu_name or "", "" if item.gpu_memory is None else item.gpu_memory, item.spot,
                             vendor])
        out[name] = (buffer.getvalue().encode(), f"{base}/{name}/{loaded.version}/catalog.zip")
    return out

