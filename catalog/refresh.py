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
* **Regions**: the data-centre country comes from the ``region_countries`` table.

Bad input (ragged lines, missing columns, non-numeric or negative prices, duplicate rows) is reported
per line and makes the preview un-appliable: nothing is written.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import gzip
import io
import math
import re
from dataclasses import dataclass, field

import pandas as pd

from catalog.models import ChangeSet, Editor, RowChange, as_of_lower_bound

MAX_REFRESH_BYTES = 60 * 1024 * 1024
SKYPILOT_REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
GPUHUNT_REQUIRED = ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot")

#: GCP accelerator-optimized machine types by accelerator (as the SkyPilot GCP catalog names it) and GPU
#: count. Source: Google Cloud "Accelerator-optimized machine family" (A2 highgpu/megagpu/ultragpu, A3
#: highgpu/megagpu/ultragpu, A4) and "G2 machine series", https://cloud.google.com/compute/docs/accelerator-optimized-machines
#: (as of 2026). For 1 L4 the smallest G2 shape (g2-standard-4) is used; larger 1-GPU shapes cost more.
GCP_MACHINE_TYPES: dict[str, dict[int, str]] = {
    "A100": {1: "a2-highgpu-1g", 2: "a2-highgpu-2g", 4: "a2-highgpu-4g", 8: "a2-highgpu-8g", 16: "a2-megagpu-16g"},
    "A100-80GB": {1: "a2-ultragpu-1g", 2: "a2-ultragpu-2g", 4: "a2-ultragpu-4g", 8: "a2-ultragpu-8g"},
    "H100": {1: "a3-highgpu-1g", 2: "a3-highgpu-2g", 4: "a3-highgpu-4g", 8: "a3-highgpu-8g"},
    "H100-MEGA": {8: "a3-megagpu-8g"},
    "H200": {8: "a3-ultragpu-8g"},
    "B200": {8: "a4-highgpu-8g"},
    "L4": {1: "g2-standard-4", 2: "g2-standard-24", 4: "g2-standard-48", 8: "g2-standard-96"},
}
#: GCP GPUs attached to an N1 VM the user picks: no fixed machine type, so no whole price to import.
GCP_ATTACHED = frozenset({"T4", "V100", "P100", "P4", "K80"})
#: Two amounts closer than this (USD per GPU-hour) are the same price: curated prices are stored to 4
#: decimals, catalog files give 6 (e.g. 2.7447 vs 2.744705 for p4d.24xlarge / 8).
SAME_AMOUNT_USD = 5e-5


class RefreshInputError(ValueError):
    """The file cannot be read as a SkyPilot or gpuhunt catalog; the message says why."""


@dataclass
class Observation:
    """One offer as the file lists it: a whole instance in one region, prices per GPU-hour in USD."""

    instance_type: str
    region: str
    gpu_name: str
    gpu_model: str
    form_factor: str | None
    gpu_spec_id: str | None
    gpus: int
    on_demand: float | None = None
    spot: float | None = None
    spot_zones: int = 0
    lines: list[int] = field(default_factory=list)
    breakdown: str = ""


@dataclass
class RefreshPreview:
    provider_id: str
    source_url: str
    as_of: str
    fmt: str
    rows_read: int = 0
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # bad input: (line, column, reason)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (line, instance, reason)
    unknown_gpus: dict[str, int] = field(default_factory=dict)
    observations: list[Observation] = field(default_factory=list)
    diff: pd.DataFrame = field(default_factory=pd.DataFrame)
    disappeared: pd.DataFrame = field(default_factory=pd.DataFrame)
    changes: list[RowChange] = field(default_factory=list)
    data_version: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Appliable: no bad input, no unknown GPU left unaddressed, and something to write."""
        return not self.problems and bool(self.changes)

    def change_set(self, message: str) -> ChangeSet:
        return ChangeSet(changes=self.changes, message=message, kind="import")


# ---------------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------------


def read_catalog_file(data: bytes, filename: str = "vms.csv") -> tuple[str, list[str], list[tuple[int, list]], list]:
    """(format, header, [(line, cells)], problems). Ragged lines are problems; a wrong header raises."""
    if not data:
        raise RefreshInputError("The file is empty.")
    if len(data) > MAX_REFRESH_BYTES:
        raise RefreshInputError(f"The file is {len(data) / 1e6:.0f} MB; refreshes are limited to "
                                f"{MAX_REFRESH_BYTES / 1e6:.0f} MB.")
    if data[:2] == b"\x1f\x8b" or filename.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except OSError as exc:
            raise RefreshInputError(f"The file is not valid gzip: {exc}") from exc
        if len(data) > MAX_REFRESH_BYTES:
            raise RefreshInputError("The decompressed file is larger than the refresh limit.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RefreshInputError(f"The file is not UTF-8 text (byte {exc.start}).") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration as exc:
        raise RefreshInputError("The file has no header line.") from exc
    except csv.Error as exc:
        raise RefreshInputError(f"Line 1 is not CSV: {exc}") from exc
    cols = set(header)
    if set(SKYPILOT_REQUIRED) <= cols:
        fmt = "skypilot"
    elif set(GPUHUNT_REQUIRED) <= cols:
        fmt = "gpuhunt"
    else:
        miss_sky = [c for c in SKYPILOT_REQUIRED if c not in cols]
        miss_hunt = [c for c in GPUHUNT_REQUIRED if c not in cols]
        raise RefreshInputError(
            "The columns are neither a SkyPilot vms.csv nor a gpuhunt catalog. "
            f"SkyPilot needs {', '.join(SKYPILOT_REQUIRED)} (missing: {', '.join(miss_sky)}); "
            f"gpuhunt needs {', '.join(GPUHUNT_REQUIRED)} (missing: {', '.join(miss_hunt)}). "
            f"The file's header: {', '.join(header[:20])}")
    rows, problems = [], []
    try:
        for line, values in enumerate(reader, start=2):
            if not values or (len(values) == 1 and not values[0].strip()):
                continue  # a blank line
            if len(values) != len(header):
                problems.append((f"line {line}", "row", f"{len(values)} fields, the header has {len(header)} "
                                                        "(ragged CSV: a missing or extra comma?)"))
                continue
            rows.append((line, values))
    except csv.Error as exc:
        problems.append((f"line {reader.line_num}", "row", f"not CSV: {exc}"))
    return fmt, header, rows, problems


def _number(text: str | None) -> float | None:
    """A cell as a finite number; None when empty. Raises ValueError for text or non-finite values."""
    if text is None or text.strip() == "":
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _gpu_memory_gb(fmt: str, row: dict) -> float | None:
    """Per-GPU memory in GB from SkyPilot's GpuInfo (MiB) or gpuhunt's gpu_memory (GB); None if absent."""
    try:
        if fmt == "gpuhunt":
            return _number(row.get("gpu_memory"))
        return _gpuinfo_memory_gb(row.get("GpuInfo") or "")
    except ValueError:
        return None


_SIZE_MIB = re.compile(r"'SizeInMiB':\s*([0-9.]+)")


@functools.lru_cache(maxsize=4096)
def _gpuinfo_memory_gb(info: str) -> float | None:
    """The first GPU's ``MemoryInfo.SizeInMiB`` of a SkyPilot GpuInfo cell, in GB (a file repeats a few
    distinct cells thousands of times, hence the cache; the total, ``TotalGpuMemoryInMiB``, is not it)."""
    match = _SIZE_MIB.search(info)
    return float(match.group(1)) / 1024 if match else None


# ---------------------------------------------------------------------------------------------------
# GPU names
# ---------------------------------------------------------------------------------------------------


def _norm(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def _family(name: str) -> str:
    return re.split(r"[-\s_]", name.strip().lower(), maxsplit=1)[0]


@dataclass
class GpuNames:
    """What the catalog knows to resolve a file's GPU name: aliases, models and their specs."""

    aliases: dict[str, tuple[str, str | None]]  # normalised alias -> (model, form factor)
    models: set[str]
    specs: dict[str, list[tuple[str, str, float]]]  # model -> [(spec id, form factor, memory GB)]

    @classmethod
    def from_store(cls, store) -> GpuNames:
        aliases = {_norm(a.alias): (a.gpu_model, a.form_factor if isinstance(a.form_factor, str) else None)
                   for a in store.table("gpu_aliases").itertuples()}
        specs: dict[str, list] = {}
        for s in store.table("gpu_specs").itertuples():
            specs.setdefault(s.gpu_model, []).append((s.gpu_spec_id, s.form_factor, float(s.memory_gb)))
        return cls(aliases=aliases, models=set(store.table("gpu_models").gpu_model), specs=specs)

    def resolve(self, name: str, memory_gb: float | None) -> tuple[str, str | None, str | None] | str:
        """(model, form factor, spec id), or the reason it cannot be resolved (a string)."""
        cache = self.__dict__.setdefault("_cache", {})
        if (name, memory_gb) not in cache:
            cache[(name, memory_gb)] = self._resolve(name, memory_gb)
        return cache[(name, memory_gb)]

    def _resolve(self, name: str, memory_gb: float | None) -> tuple[str, str | None, str | None] | str:
        key = _norm(name)
        direct = self.aliases.get(key)
        if direct is None:
            exact = [m for m in self.models if _norm(m) == key]
            direct = (exact[0], None) if exact else None
        family = {m for m in self.models if _family(m) == _family(name)}
        candidates = ({direct[0]} | family) if direct else family
        if not candidates:
            return "unknown"
        chosen = direct
        if len(candidates) > 1 and memory_gb is not None:
            fits = {m for m in candidates
                    if any(abs(mem - memory_gb) <= 0.05 * mem for _, _, mem in self.specs.get(m, []))}
            if direct and direct[0] in fits:
                chosen = direct
            elif len(fits) == 1:
                chosen = (fits.pop(), None)
            elif not fits:
                return (f"{memory_gb:g} GB matches no GPU spec of {', '.join(sorted(candidates))}: "
                        "add the spec or an alias")
        if chosen is None:
            if len(candidates) == 1:
                chosen = (next(iter(candidates)), None)
            else:
                return (f"ambiguous: '{name}' could be {' or '.join(sorted(candidates))} and the file states no "
                        "GPU memory; add an alias")
        model, form = chosen
        specs = self.specs.get(model, [])
        if form is None and len(specs) == 1:
            form = specs[0][1]
        spec_id = next((s for s, f, _ in specs if f == form), None) if form else None
        return model, form, spec_id


# ---------------------------------------------------------------------------------------------------
# Mapping a file to observations
# ---------------------------------------------------------------------------------------------------


def _is_tpu(name: str, row: dict) -> bool:
    return name.lower().startswith("tpu") or (row.get("gpu_vendor") or "").lower() == "google"


def map_rows(fmt: str, header: list[str], raw_rows: list[tuple[int, list]], names: GpuNames, *,
             skip_unknown_gpus: bool, preview: RefreshPreview) -> list[Observation]:
    """Group the file's GPU rows into observations (one per instance and region); fill problems/skips."""
    if fmt == "skypilot":
        cols = {"inst": "InstanceType", "gpu": "AcceleratorName", "count": "AcceleratorCount", "price": "Price",
                "region": "Region"}
    else:
        cols = {"inst": "instance_name", "gpu": "gpu_name", "count": "gpu_count", "price": "price",
                "region": "location"}
    at = {c: i for i, c in enumerate(header)}
    i_gpu, i_inst = at[cols["gpu"]], at[cols["inst"]]
    # Only GPU rows are read cell by cell (a cloud's file is mostly CPU instances).
    gpu_rows = [(line, v) for line, v in raw_rows if v[i_gpu].strip()]
    is_gcp = fmt == "skypilot" and any(not v[i_inst].strip() for _, v in gpu_rows)
    gcp_vms: dict[tuple[str, str, str], tuple[float | None, float | None]] = {}
    if is_gcp:
        wanted = {m for by_count in GCP_MACHINE_TYPES.values() for m in by_count.values()}
        i_zone = at.get("AvailabilityZone")
        for _, v in raw_rows:
            inst = v[i_inst].strip()
            if inst in wanted and not v[i_gpu].strip():
                try:
                    gcp_vms[(inst, v[at["Region"]].strip(), v[i_zone].strip() if i_zone is not None else "")] = (
                        _number(v[at["Price"]]), _number(v[at["SpotPrice"]]) if "SpotPrice" in at else None)
                except ValueError:
                    pass  # an unusable VM row: the GPU rows that need it are skipped with a reason
    used = [(c, at[c]) for c in (*cols.values(), "SpotPrice", "AvailabilityZone", "GpuInfo", "spot", "gpu_memory",
                                  "gpu_vendor") if c in at]
    rows = [(line, {c: v[i].strip() for c, i in used}) for line, v in gpu_rows]
    seen: dict[tuple, tuple[int, tuple]] = {}
    groups: dict[tuple[str, str], Observation] = {}
    for line, r in rows:
        where = f"line {line}"
        gpu_name = r.get(cols["gpu"]) or ""
        inst = r.get(cols["inst"]) or ""
        if not gpu_name:
            continue  # a CPU-only instance or a GCP VM row: not a GPU offer (counted, not listed)
        if _is_tpu(gpu_name, r):
            preview.skipped.append((where, inst or gpu_name, "TPU, not a GPU"))
            continue
        try:
            count = _number(r.get(cols["count"]))
        except ValueError:
            preview.problems.append((where, cols["count"], f"GPU count is not a number: {r.get(cols['count'])!r}"))
            continue
        if count is None or count <= 0:
            preview.problems.append((where, cols["count"], "GPU row without a GPU count"))
            continue
        if not float(count).is_integer():
            preview.skipped.append((where, inst or gpu_name, f"shared GPU ({count:g} of a GPU): not extrapolated "
                                                              "to a whole GPU"))
            continue
        gpus = int(count)
        try:
            price = _number(r.get(cols["price"]))
        except ValueError:
            preview.problems.append((where, cols["price"], f"price is not a number: {r.get(cols['price'])!r}"))
            continue
        spot_cell = r.get("SpotPrice") if fmt == "skypilot" else None
        try:
            spot = _number(spot_cell)
        except ValueError:
            preview.problems.append((where, "SpotPrice", f"spot price is not a number: {spot_cell!r}"))
            continue
        if (price is not None and price < 0) or (spot is not None and spot < 0):
            preview.problems.append((where, cols["price"], "negative price"))
            continue
        zone = r.get("AvailabilityZone", "")
        region = r.get(cols["region"]) or ""
        spot_flag = fmt == "gpuhunt" and (r.get("spot") or "").strip().lower() in ("true", "1", "yes")
        dup_key = (inst, gpu_name, gpus, region, zone, spot_flag)
        values = (price, spot)
        if dup_key in seen:
            first, first_values = seen[dup_key]
            reason = (f"duplicate of line {first}" if first_values == values
                      else f"same instance, region and zone as line {first} with another price")
            preview.problems.append((where, cols["inst"], reason))
            continue
        seen[dup_key] = (line, values)
        if not region:
            preview.problems.append((where, cols["region"], "no region"))
            continue
        breakdown = ""
        if is_gcp and not inst:
            if gpu_name in GCP_ATTACHED:
                preview.skipped.append((where, gpu_name, "attaches to an N1 VM of the user's choice: no fixed "
                                                         "machine type to price"))
                continue
            machine = GCP_MACHINE_TYPES.get(gpu_name, {}).get(gpus)
            if machine is None:
                preview.skipped.append((where, f"{gpu_name} x{gpus}", "no GCP machine type known for this "
                                                                      "accelerator and count"))
                continue
            vm = gcp_vms.get((machine, region, zone))
            if vm is None or not vm[0]:
                preview.skipped.append((where, machine, f"no VM price for {machine} in {zone or region} "
                                                        f"({'0 = not offered' if vm else 'no row'})"))
                continue
            gpu_part, gpu_spot = price, spot
            price = (price + vm[0]) if price else None
            spot = (spot + vm[1]) if (spot and vm[1]) else None
            inst = machine
            breakdown = f"GPU part ${gpu_part:g} + VM part ${vm[0]:g} per hour" + (
                f" (spot ${gpu_spot:g} + ${vm[1]:g})" if spot else "")
        if not inst:
            preview.problems.append((where, cols["inst"], "no instance type"))
            continue
        on_demand_price = None if spot_flag else price
        spot_price = price if spot_flag else spot
        if not on_demand_price and not spot_price:
            preview.skipped.append((where, inst, "price 0 or missing: not offered"))
            continue
        resolved = names.resolve(gpu_name, _gpu_memory_gb(fmt, r))
        if resolved == "unknown":
            preview.unknown_gpus[gpu_name] = preview.unknown_gpus.get(gpu_name, 0) + 1
            if skip_unknown_gpus:
                preview.skipped.append((where, inst, f"unknown GPU '{gpu_name}' (skipped as asked)"))
            else:
                preview.problems.append((where, cols["gpu"], f"unknown GPU name '{gpu_name}': add it to the alias "
                                                             "table, or choose to skip unknown GPUs"))
            continue
        if isinstance(resolved, str):
            preview.skipped.append((where, inst, resolved))
            continue
        model, form, spec_id = resolved
        obs = groups.get((inst, region))
        if obs is None:
            obs = groups[(inst, region)] = Observation(inst, region, gpu_name, model, form, spec_id, gpus,
                                                       breakdown=breakdown)
        elif obs.gpus != gpus or obs.gpu_model != model:
            preview.problems.append((where, cols["count"], f"{inst} in {region} is listed with another GPU "
                                                           f"configuration on line {obs.lines[0]}"))
            continue
        obs.lines.append(line)
        if on_demand_price:
            per_gpu = round(on_demand_price / gpus, 6)
            obs.on_demand = per_gpu if obs.on_demand is None else min(obs.on_demand, per_gpu)
        if spot_price:
            per_gpu = round(spot_price / gpus, 6)
            obs.spot = per_gpu if obs.spot is None else min(obs.spot, per_gpu)
            obs.spot_zones += 1
    return list(groups.values())


# ---------------------------------------------------------------------------------------------------
# Diff against the catalog and the frozen change set
# ---------------------------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def _bare_region(region: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", str(region)).strip().lower()


def _clean(value):
    if value is None:
        return None
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    if isinstance(value, pd.Timestamp):
        return value.date()
    if hasattr(value, "item"):
        return value.item()
    return value


def _row_values(row: dict, fields) -> dict:
    return {k: _clean(row.get(k)) for k in fields}


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
        inst = _clean(o.get("instance_type"))
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
                "gpus_per_node": obs.gpus, "datacenter_country": country.get(region_key)}
        if found:
            offer = found[0]
            matched_ids.add(offer["offer_id"])
            line.update(offer_id=offer["offer_id"], matched_by=matched_by)
            if offer.get("datacenter_country"):
                line["datacenter_country"] = offer["datacenter_country"]
            moved = False
            for ptype, amount in (("on-demand", obs.on_demand), ("spot", obs.spot)):
                current = sorted((p for p in prices_by_offer.get(offer["offer_id"], []) if p["price_type"] == ptype),
                                 key=lambda p: _clean(p["valid_from"]))
                old = current[-1] if current else None
                old_amount = None if old is None else float(old["amount_per_gpu_hour"])
                line[f"{ptype}_old"] = old_amount
                line[f"{ptype}_new"] = amount
                line[f"{ptype}_move_pct"] = _move_pct(old_amount, amount)
                if amount is None:
                    continue
                if old is not None and abs(float(old["amount_per_gpu_hour"]) - amount) < SAME_AMOUNT_USD:
                    seen_on = _clean(old.get("last_seen"))
                    if seen_on is None or seen_on < file_date:
                        values = _row_values(old, price_fields) | {"last_seen": file_date,
                                                                   "last_seen_source_url": source_url}
                        if file_date >= _clean(old["valid_from"]):
                            changes.append(RowChange(table="prices", action="update", key=old["price_id"],
                                                     values=values, expected_version=int(old["row_version"])))
                    continue
                if old is not None and file_date <= _clean(old["valid_from"]):
                    line["note"] = (f"the catalog's {ptype} price is from {_clean(old['valid_from'])}, not older than "
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
            if _clean(offer.get("last_seen")) is None or _clean(offer.get("last_seen")) < file_date:
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
                "region": obs.region, "datacenter_country": country.get(region_key), "instance_type": obs.instance_type,
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
    gone = [o for o in offers.to_dict("records") if _clean(o.get("instance_type")) and o["offer_id"] not in matched_ids
            and (o["instance_type"].lower(), _bare_region(o["region"])) not in seen_keys]
    preview.disappeared = pd.DataFrame(
        [{"offer_id": o["offer_id"], "instance_type": o["instance_type"], "region": o["region"],
          "last_seen": _clean(o.get("last_seen"))} for o in gone],
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
