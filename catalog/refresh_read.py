"""Reading a public instance catalog for the monthly price refresh (:mod:`catalog.refresh` has the rules):
the file formats (SkyPilot ``vms.csv``, dstack gpuhunt CSV), GPU name resolution, and the mapping of file rows
to observed offers; the preview's data classes. No SQL, no catalog writes."""

from __future__ import annotations

import csv
import functools
import gzip
import io
import math
import re
from dataclasses import dataclass, field

import pandas as pd

from catalog.models import ChangeSet, RowChange

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


def _gpu_memory_gb(fmt: str, row: dict) -> list[float]:
    """Per-GPU memory readings in GB, most likely first, from SkyPilot's GpuInfo (MiB) or gpuhunt's
    gpu_memory (GB); empty if absent (see :func:`_gpuinfo_memory_gb` for the second reading)."""
    try:
        if fmt == "gpuhunt":
            value = _number(row.get("gpu_memory"))
            return [] if value is None else [value]
        return list(_gpuinfo_memory_gb(row.get("GpuInfo") or ""))
    except ValueError:
        return []


_SIZE_MIB = re.compile(r"'SizeInMiB':\s*([0-9.]+)")
_COUNT = re.compile(r"'Count':\s*([0-9.]+)")
_TOTAL_MIB = re.compile(r"'TotalGpuMemoryInMiB':\s*([0-9.]+)")


@functools.lru_cache(maxsize=4096)
def _gpuinfo_memory_gb(info: str) -> tuple[float, ...]:
    """The first GPU's ``MemoryInfo.SizeInMiB`` of a SkyPilot GpuInfo cell in GB, and a second reading where
    the cell is ambiguous (a file repeats a few distinct cells thousands of times, hence the cache).

    A multi-GPU cell whose ``SizeInMiB`` equals its ``TotalGpuMemoryInMiB`` is written two ways in the
    field's catalogs: per GPU in both (anycloud's Lambda file: 8x A100, 40960 and 40960) or the instance
    total in both (SkyPilot's Vast.ai file: 2x H200, 287542 and 287542). Both readings are returned, the
    size as written first; the caller keeps the one that matches a GPU spec, and skips the row when both
    match different models (2x A100 with 81920 MiB: 2 x 80 GB or 2 x 40 GB).

    >>> _gpuinfo_memory_gb("{'Gpus': [{'Count': 2, 'MemoryInfo': {'SizeInMiB': 287542}}], 'TotalGpuMemoryInMiB': 287542}")
    (280.802734375, 140.4013671875)
    >>> _gpuinfo_memory_gb("{'Gpus': [{'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}")
    (80.0,)
    """
    match = _SIZE_MIB.search(info)
    if not match:
        return ()
    size = float(match.group(1))
    count, total = _COUNT.search(info), _TOTAL_MIB.search(info)
    if count and total and float(count.group(1)) > 1 and float(total.group(1)) == size:
        return size / 1024, size / float(count.group(1)) / 1024
    return (size / 1024,)


#: A region written as "<place>, <ISO country>, <continent>" (SkyPilot's Vast.ai catalog: "Denmark, DK, EU",
#: ", US, NA"): the country is stated in the region text itself.
_PLACE_COUNTRY_CONTINENT = re.compile(r"^[^,]*,\s*([A-Z]{2}),\s*(?:EU|NA|SA|AS|AF|OC|AN)\s*$")


def country_in_region(region: str) -> str | None:
    """The ISO country code a region text states as "<place>, <CC>, <continent>", else None.

    >>> country_in_region("Denmark, DK, EU"), country_in_region(", US, NA"), country_in_region("eu-north1")
    ('DK', 'US', None)
    """
    match = _PLACE_COUNTRY_CONTINENT.match(region.strip())
    return match.group(1) if match else None


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
        readings: list[float | None] = [*_gpu_memory_gb(fmt, r)] or [None]
        resolved = names.resolve(gpu_name, readings[0])
        if resolved != "unknown" and len(readings) > 1:
            second = names.resolve(gpu_name, readings[1])
            if isinstance(resolved, str):
                resolved = second
            elif not isinstance(second, str) and second[0] != resolved[0]:
                resolved = (f"GpuInfo memory {readings[0]:g} GB fits {resolved[0]} per GPU and {second[0]} as the "
                            "instance total: ambiguous, not guessed")
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
