"""Field labels of the registry (:mod:`ui.labels`): labels, units and formats of every field and column name a
page, chart or export shows (issue #19).

Engine and scenario field names carry their units (``price_on_demand_eur_per_gpu_hour``); people read
"On-demand price" and "€4.32/GPU-h". :func:`label` turns a name into its label, :func:`unit` into its unit,
:func:`fmt` formats a value of that name with its unit (money in the display currency), and
:func:`path_label` names a flattened scenario input (``tco.inputs.pue`` → "Rent or own · PUE").
Names not listed get a readable label from their unit suffix, never the raw name; :func:`criterion_label` names a
scoring criterion.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import SupportsFloat, cast

from engine.assumptions import is_missing
from ui.format import display_in, money

NOT_STATED = "not stated"


@dataclass(frozen=True)
class Label:
    """``text``: what the name means; ``unit``: engine unit (EUR amounts are converted for display);
    ``kind``: how values are formatted (money, fraction, int, number, month, bool, text);
    ``none``: what an empty value means for this name."""

    text: str
    unit: str = ""
    kind: str = "number"
    decimals: int = 2
    none: str = NOT_STATED


def _m(text: str, per: str = "", decimals: int = 2, none: str = NOT_STATED) -> Label:
    return Label(text, f"EUR{'/' + per if per else ''}", "money", decimals, none)


def _f(text: str, unit: str = "%", none: str = NOT_STATED) -> Label:
    return Label(text, unit, "fraction", none=none)


SECTIONS = {"display": "Display", "tco": "Rent or own", "workload": "Workload cost", "scoring": "Scoring",
            "placement": "Placement", "brief": "Client brief", "version": "Scenario",
            "private_prices": "Private prices included (editors only; not for distribution)"}

LABELS: dict[str, Label] = {
    # -- display --------------------------------------------------------------------------------------
    "currency": Label("Display currency", kind="text"),
    "usd_per_eur": Label("Exchange rate", "USD per EUR", decimals=4),
    "version": Label("Scenario format version", kind="int"),
    # -- TCO inputs -----------------------------------------------------------------------------------
    "utilisation_fraction": _f("Sustained utilisation"),
    "cluster_gpus": Label("GPUs in the cluster", "GPUs", "int"),
    "horizon_months": Label("Horizon", "months", "int"),
    "price_on_demand_eur_per_gpu_hour": _m("On-demand price", "GPU-h"),
    "reserved_discount_fraction": _f("Reserved discount vs on-demand"),
    "reserved_term_months": Label("Reserved minimum term", "months", "int", none="no committed price"),
    "price_reserved_eur_per_gpu_hour": _m("Committed (reserved) price", "GPU-h", none="no committed price"),
    "reserved_origin": Label("Committed price from", kind="text", none="no committed price"),
    "reserved_price_id": Label("Committed price (catalog price id)", kind="text", none="none"),
    "quote_price_eur_per_gpu_hour": _m("Your quoted committed price", "GPU-h", none="no quote"),
    "quote_term_months": Label("Term of your quote", "months", "int", none="no quote"),
    "gpu_class": Label("GPU class", kind="text"),
    "model_params_billion": Label("Model size", "billion parameters", decimals=0, none="not set"),
    "rental_price_decline_fraction_per_year": _f("Rental price decline", "%/year"),
    "server_capex_eur_per_gpu": _m("Server share per GPU", "GPU", 0),
    "networking_capex_eur_per_gpu": _m("Networking share per GPU", "GPU", 0),
    "storage_capex_eur_per_gpu": _m("Storage share per GPU", "GPU", 0),
    "installation_capex_eur_per_gpu": _m("Installation per GPU", "GPU", 0),
    "depreciation_years": Label("Depreciation life", "years", decimals=1),
    "cost_of_capital_fraction_per_year": _f("Cost of capital", "%/year"),
    "residual_value_fraction": _f("Resale value at end of life (share of capex)"),
    "power_at_load_kw_per_gpu": Label("Rated power per GPU (with server share)", "kW", decimals=3),
    "average_draw_fraction_of_rated": Label("Average draw, share of rated power", "-", decimals=2),
    "idle_power_fraction": _f("Idle power (share of full load)"),
    "pue": Label("PUE (facility overhead)", "", decimals=2),
    "electricity_eur_per_kwh": _m("Electricity", "kWh", 4),
    "colocation_eur_per_kw_month": _m("Colocation", "kW-month"),
    "staff_fte": Label("Operations staff", "FTE", decimals=2),
    "labour_cost_eur_per_hour": _m("Labour cost", "hour"),
    "working_hours_per_fte_year": Label("Working hours per FTE", "h/year", "int"),
    "maintenance_fraction_of_capex_per_year": _f("Maintenance (share of capex)", "%/year"),
    "on_demand_offer_id": Label("On-demand price taken from offer", kind="text", none="none (typed in)"),
    "on_demand_price_private": Label("On-demand price is a private price (not for distribution)", kind="bool"),
    "private_prices": Label("Private prices included (not for distribution)", kind="bool"),
    "reserved_offer_id": Label("Reserved price taken from offer", kind="text", none="none (typed in)"),
    "gpu_spec_id": Label("Power taken from GPU spec", kind="text", none="none (typed in)"),
    "mc_draws": Label("Monte Carlo draws", "", "int"),
    "tornado_pct": _f("Tornado: each input moved by ±"),
    # -- workload -------------------------------------------------------------------------------------
    "mode": Label("Workload", kind="text"),
    "preset": Label("Preset", kind="text"),
    "model_name": Label("Model", kind="text"),
    "n_params": Label("Parameters", "", "count"),
    "training_tokens": Label("Training tokens", "", "count"),
    "n_gpus": Label("GPUs", "GPUs", "int"),
    "global_batch_tokens": Label("Global batch", "tokens", "count"),
    "is_fp8_ready": Label("Trains/serves in FP8", kind="bool"),
    "tensor_parallel_degree": Label("Tensor-parallel degree", "GPU", "int", none="automatic"),
    "gradient_bytes_per_param": Label("Gradient bytes per parameter", "B", decimals=0),
    "training_state_bytes_per_param": Label("Training state per parameter", "B", decimals=0),
    "is_state_sharded": Label("Training state sharded (ZeRO-1 or ZeRO-3, searched)", kind="bool"),
    "n_layers": Label("Layers", "", "int"),
    "n_kv_heads": Label("KV heads", "", "int"),
    "head_dim": Label("Head dimension", "", "int"),
    "weight_bytes_per_param": Label("Weight bytes per parameter", "B", decimals=0),
    "kv_cache_bytes_per_element": Label("KV-cache bytes per element", "B", decimals=0),
    "prompt_tokens": Label("Prompt tokens per request", "tokens", "int"),
    "output_tokens": Label("Output tokens per request", "tokens", "int"),
    "batch_size": Label("Batch size", "sequences", "int"),
    "target_utilisation_fraction": _f("Target utilisation"),
    "output_tokens_total": Label("Output tokens priced", "tokens", "count"),
    "missing_fabric": Label("Offers without a stated fabric", kind="text"),
    "price_type": Label("Price type", kind="text"),
    "tokens_per_day": Label("Generated tokens per day", "tokens", "count"),
    "latency_target_s": Label("Latency target", "s", decimals=1),
    # -- scoring --------------------------------------------------------------------------------------
    "method": Label("Ranking method", kind="text"),
    "missing": Label("Missing values", kind="text"),
    "price_basis": Label("Price basis", kind="text"),
    "concentration": Label("Weight uncertainty (Dirichlet concentration)", "", decimals=0),
    "group_code": Label("Group session", kind="text", none="none"),
    "eu_resident_only": Label("EU/EEA data centre only", kind="bool"),
    "eu_jurisdiction_only": Label("EU parent company only", kind="bool"),
    "eu_legal_seat_only": Label("EU legal seat only", kind="bool"),
    "infiniband_only": Label("InfiniBand only", kind="bool"),
    "sxm_only": Label("SXM only", kind="bool"),
    "max_price_eur_per_gpu_hour": _m("Maximum price", "GPU-h", none="no limit"),
    "required_certifications": Label("Required certifications", kind="text", none="none"),
    # -- placement ------------------------------------------------------------------------------------
    "example": Label("Example portfolio", kind="text"),
    "workloads": Label("Workloads", kind="text", none="the example's"),
    "commitment_term_years": Label("Commitment term", "years", "int", none="published reserved prices only"),
    "other_provider_discount_fraction": _f("Assumed discount for other providers", none="none assumed"),
    "capacity_gpus": Label("Venue capacity", "GPU", decimals=0, none="unlimited"),
    "mean_gpus": Label("Mean GPUs", "GPU", decimals=1),
    "peak_gpus": Label("Peak GPUs", "GPU", decimals=1),
    "busy_hours_per_day": Label("Busy hours per day", "h", "int"),
    "busy_days_per_week": Label("Busy days per week", "days", "int"),
    "first_busy_hour": Label("First busy hour", "h", "int"),
    "min_gpu_memory_gb": Label("Minimum GPU memory", "GB", decimals=0),
    "needs_infiniband": Label("Needs InfiniBand", kind="bool"),
    "needs_nvlink": Label("Needs NVLink", kind="bool"),
    "gpu_model": Label("GPU model", kind="text", none="any"),
    "may_leave_eu": Label("Data may leave the EU", kind="bool"),
    "eu_jurisdiction_required": Label("EU jurisdiction required", kind="bool"),
    "spot_allowed": Label("Spot allowed", kind="bool"),
    "latency_sensitive": Label("Latency-sensitive", kind="bool"),
    "kind": Label("Kind", kind="text"),
    "name": Label("Name", kind="text"),
    # -- catalog columns (exports) ----------------------------------------------------------------------
    "offer_id": Label("Offer id", kind="text"),
    "provider_name": Label("Provider", kind="text"),
    "form_factor": Label("Form factor (SXM, PCIe)", kind="text"),
    "gpu_spec": Label("GPU spec (memory, power)", kind="text"),
    "gpus_per_node": Label("GPUs per node", "GPUs", "int"),
    "intra_node": Label("Link inside the node", kind="text"),
    "inter_node": Label("Fabric between nodes", kind="text"),
    "inter_node_bandwidth": Label("Bandwidth between nodes", "Gb/s per GPU"),
    "hardware_tenancy": Label("Hardware (dedicated or shared)", kind="text"),
    "is_dedicated": Label("Dedicated hardware (single-tenant)", kind="bool"),
    "datacenter_country": Label("Data-centre country", kind="text"),
    "hourly_price": Label("Current hourly price", kind="text"),
    "reserved_price": Label("Committed (reserved) price", kind="text"),
    "region": Label("Region", kind="text"),
    "on_demand_eur_per_gpu_hour": _m("On-demand price", "GPU-h"),
    "spot_eur_per_gpu_hour": _m("Spot price", "GPU-h"),
    "reserved_eur_per_gpu_hour": _m("Reserved price", "GPU-h"),
    "reserved_1y_eur_per_gpu_hour": _m("1-year commitment price", "GPU-h"),
    "reserved_3y_eur_per_gpu_hour": _m("3-year commitment price", "GPU-h"),
    "quote_eur_per_gpu_hour": _m("Your quote", "GPU-h", none="no quote"),
    "memory_gb": Label("Memory per GPU", "GB", "int"),
    "memory_type": Label("Memory type", kind="text"),
    "inter_node_bandwidth_gbps_per_gpu": Label("Bandwidth between nodes", "Gb/s per GPU", decimals=0),
    "is_eu_datacenter": Label("EU/EEA data centre", kind="bool"),
    "parent_jurisdiction": Label("Parent company's jurisdiction", kind="text"),
    "legal_seat_country": Label("Legal seat", kind="text"),
    "certifications": Label("Certifications", kind="text", none="none found"),
    "uptime_sla_pct": Label("Uptime SLA", "%", decimals=2),
    "age": Label("Age of the data", kind="text"),
    "flags": Label("Flags", kind="text"),
    "price_outlier_reason": Label("Why the price is flagged", kind="text"),
    "native_currency": Label("Currency of the source", kind="text"),
    "source_url": Label("Source", kind="text"),
    "as_of": Label("As of", kind="text"),
    "verification_status": Label("Verification", kind="text"),
    "label": Label("Offer", kind="text"),
    "cost_eur": _m("Cost", "job", 0),
    "time_hours": Label("Time", "h", decimals=1),
    "gpu_hours": Label("GPU-hours", "GPU-h", "count"),
    "cost_eur_per_million_tokens": _m("Cost", "million tokens"),
    # -- workload model assumptions and result columns ---------------------------------------------------
    "mfu_bf16_fraction": _f("Model FLOPs utilisation, BF16"),
    "mfu_fp8_fraction": _f("Model FLOPs utilisation, FP8"),
    "mfu_fraction": _f("Model FLOPs utilisation"),
    "overlap_fraction": _f("Gradient all-reduce hidden behind the backward pass"),
    "backward_share_of_compute_fraction": _f("Backward pass share of compute"),
    "oversubscription_ratio": Label("Fabric oversubscription", ": 1", decimals=1),
    "use_nvls": Label("NVLink SHARP (NVLS) all-reduce", kind="bool"),
    "software_stack": Label("Training software stack", kind="text"),
    "job_kind": Label("Job kind", kind="text"),
    "serving_stack": Label("Serving stack", kind="text"),
    "memory_bandwidth_utilisation": _f("Memory bandwidth reached while decoding"),
    "fixed_time_per_layer_and_step": Label("Fixed time per layer and decode step", "s", decimals=6),
    "lora_rank": Label("LoRA rank", "", "count"),
    "nic_efficiency_fraction": _f("NIC efficiency"),
    "pcie_busbw_gb_per_s": Label("PCIe bus bandwidth", "GB/s", decimals=0),
    "intra_node_latency_s": Label("Intra-node latency", "s", decimals=6),
    "inter_node_latency_s": Label("Inter-node latency", "s", decimals=6),
    "gradient_bucket_bytes": Label("Gradient bucket size", "B", "count"),
    "hbm_bytes_per_gb": Label("Bytes per GB of HBM memory (binary)", "B", "count"),
    "pue_ratio": Label("PUE (facility overhead)", "", decimals=2),
    "gpu_power_fraction_of_tdp": _f("GPU power (share of TDP)"),
    "inference_mfu_fraction": _f("Inference compute utilisation"),
    "inference_mbu_fraction": _f("Inference memory-bandwidth utilisation"),
    "inference_memory_usable_fraction": _f("Usable GPU memory"),
    "max_tensor_parallel_degree": Label("Largest tensor-parallel group", "GPUs", "int"),
    "assumed_gpus_per_node": Label("GPUs per node where not stated", "GPUs", "int"),
    "assumed_inter_link_gbps_per_gpu": Label("Inter-node bandwidth where not stated", "Gb/s per GPU", decimals=0),
    "assumed_intra_busbw_gb_per_s": Label("Intra-node bandwidth where not stated", "GB/s", decimals=0),
    "n_gradient_buckets": Label("Gradient buckets", "", "int"),
    "grid_intensity_g_per_kwh": Label("Grid carbon intensity", "g CO2/kWh", decimals=0),
    "kv_cache_bytes_per_token": Label("KV cache per token", "B", "count"),
    "gpu": Label("GPU", kind="text"),
    "price_eur_per_gpu_hour": _m("Price", "GPU-h"),
    "n_nodes": Label("Nodes", "", "int"),
    "step_time_s": Label("Step time", "s", decimals=2),
    "compute_time_per_step_s": Label("Compute time per step", "s", decimals=2),
    "communication_time_per_step_s": Label("Communication time per step", "s", decimals=2),
    "energy_kwh": Label("Energy", "kWh", decimals=0),
    "emissions_kg": Label("Emissions", "kg CO2e", decimals=0),
    "bound": Label("Limited by", kind="text"),
    "communication_share_pct": Label("Communication share", "%", decimals=0),
    "uses_fp8": Label("Uses FP8", kind="bool"),
    "is_ranked": Label("In the ranking", kind="bool"),  # priced and meeting the page's requirements (else: why not)
    "reason": Label("Reason", kind="text", none=""),
    "assumed_default": Label("Priced with a stated default", kind="bool"),
    "defaults_used": Label("Defaults used", kind="text", none=""),
    "request_latency_s": Label("Request latency", "s", decimals=2),
    "time_to_first_token_s": Label("Time to first token", "s", decimals=3),
    "time_per_output_token_s": Label("Time per output token", "s", decimals=4),
    "tokens_per_s_per_gpu": Label("Tokens per second per GPU", "tokens/s", decimals=0),
    "gpus_needed": Label("GPUs needed", "GPUs", decimals=0),
    "cost_eur_per_day": _m("Cost", "day", 0),
    "meets_latency_target": Label("Meets the latency target", kind="bool"),
    # -- placement assumptions --------------------------------------------------------------------------
    "example portfolios": Label("Example portfolios", kind="text"),
    "sensitivity_factors": Label("Sensitivity: on-demand price factors", kind="text"),
    "hours_per_month": Label("Hours per month", "h", "int"),
    "horizon_hours": Label("Planning horizon", "h", "int"),
    "epoch_discount_aws": Label("Epoch AI commitment discount, AWS", kind="text"),
    "epoch_discount_gcp": Label("Epoch AI commitment discount, Google Cloud", kind="text"),
    "epoch_discount_azure": Label("Epoch AI commitment discount, Azure", kind="text"),
    "epoch_discount_lambda": Label("Epoch AI commitment discount, Lambda", kind="text"),
    "tie_rule": Label("Tie rule", kind="text"),
    "gpu_equivalence": Label("GPU equivalence", kind="text"),
    "unknown_location": Label("Unknown data-centre location", kind="text"),
    "unknown_capacity": Label("Unknown capacity", kind="text"),
    "unknown_min_commitment": Label("Unknown minimum commitment", kind="text"),
    "burst_capacity": Label("Burst capacity", kind="text"),
    "commitment_billing": Label("Commitment billing", kind="text"),
    "spot_mean_time_between_interruptions_hours": Label("Spot: mean time between interruptions", "h", decimals=1),
    "checkpoint_write_hours": Label("Checkpoint write time", "h", decimals=2),
    "restart_hours": Label("Restart time", "h", decimals=2),
    "spot_overhead_fraction": _f("Spot overhead"),
    "estimated_reserved_rates": Label("Estimated reserved rates", kind="text"),
    "time_limit_s": Label("Solver time limit", "s", decimals=0),
    "mip_rel_gap": Label("Solver relative gap", "", decimals=4),
    # -- scoring assumptions ------------------------------------------------------------------------------
    "missing_rule": Label("Missing values", kind="text"),
    "reference_date": Label("Reference date for data age", kind="text"),
    "constraints": Label("Hard constraints", kind="text"),
    "normalisation_is_set_dependent": Label("Normalisation depends on the offers ranked", kind="bool"),
    # -- key results of a scenario (ui.workshop.key_results) ---------------------------------------------
    "tco_break_even_utilisation_fraction": _f("Break-even utilisation, own vs rent on demand"),
    "tco_total_on_demand_eur": _m("Rent on demand: total over the horizon", "", 0),
    "tco_total_reserved_eur": _m("Rent reserved: total over the horizon", "", 0),
    "tco_total_owned_eur": _m("Own: total over the horizon (resale value credited)", "", 0),
    "tco_owned_eur_per_useful_gpu_hour": _m("Own: cost per useful GPU-hour", "GPU-h"),
    "tco_on_demand_eur_per_useful_gpu_hour": _m("Rent on demand: cost per useful GPU-hour", "GPU-h"),
    "tco_reserved_eur_per_useful_gpu_hour": _m("Rent reserved: cost per useful GPU-hour", "GPU-h"),
    "tco_cheapest_option": Label("Cheapest way to get a GPU-hour", kind="text"),
    "tco_payback_month": Label("If you stop after this month and the hardware resells at book value, owning is "
                               "cheaper than on demand", "", "month", none="not within the horizon"),
    "workload_training_offer": Label("Training: cheapest offer", kind="text", none="no offer priced"),
    "workload_cost_eur_per_job": _m("Training: cost of the job", "job", 0),
    "workload_time_days": Label("Training: time of the job", "days", decimals=1),
    "workload_gpu_hours": Label("Training: GPU-hours of the job", "GPU-h", "int"),
    "workload_mfu_fraction": _f("Training: model FLOPs utilisation (MFU)"),
    "workload_layout": Label("Training: parallel layout", kind="text", none="not stated"),
    "workload_inference_offer": Label("Inference: cheapest offer (within the latency target if any)", kind="text",
                                      none="no offer priced"),
    "workload_inference_load_fraction": _f("Inference: GPUs busy (share of paid time, the set load)"),
    "workload_cost_eur_per_million_tokens": _m("Inference: cost per million tokens at the set load", "million tokens"),
    "workload_tokens_per_day": Label("Inference: your volume", "tokens/day", "count"),
    "workload_cost_eur_per_million_tokens_at_volume": _m(
        "Inference: cost per million tokens at your volume (paid GPU-hours ÷ tokens served)", "million tokens"),
    "workload_tokens_per_s_per_gpu": Label("Inference: tokens per second per GPU", "tokens/s", decimals=0),
    "workload_request_latency_s": Label("Inference: latency per request", "s", decimals=2),
    "workload_concurrency": Label("Inference: sequences in flight per replica (the cheapest cap within the latency "
                                  "target, or your batch size)", "sequences", "int"),
    "workload_meets_latency_target": Label("Inference: within the latency target", kind="bool"),
    "workload_gpus_needed": Label("Inference: GPUs needed", "GPUs", "int"),
    "workload_cost_eur_per_day": _m("Inference: cost per day", "day", 0),
    "placement_plan_eur_per_month": _m("Placement: plan cost", "month", 0, none="cannot be placed"),
    "placement_all_on_demand_eur_per_month": _m("Placement: all on demand", "month", 0),
    "placement_committed_gpus": Label("Placement: committed GPUs", "GPUs", "int"),
    "scoring_top_offer": Label("Scoring: top-ranked offer", kind="text", none="no offer passes the constraints"),
    "scoring_top_p_first_fraction": _f("Scoring: #1 first in weight draws"),
}

#: Values of text settings shown as words.
VALUE_WORDS = {
    "offer": "the offer's own committed price", "quote": "your quote",
    "on_demand": "rent on demand", "reserved": "rent reserved", "owned": "own",
    "weighted_sum": "weighted sum", "topsis": "TOPSIS", "worst": "scored as the worst observed value",
    "exclude": "left out", "assume_default": "assume a default fabric", "training": "training",
    "inference": "inference", "cheapest": "cheapest", "reserved_1y": "1-year commitment",
    "reserved_3y": "3-year commitment", "reserved-1y": "1-year commitment", "reserved-3y": "3-year commitment",
}

#: Words for the values of one name, where they differ from VALUE_WORDS.
NAMED_WORDS = {"tco_cheapest_option": {"owned": "owning", "on_demand": "renting on demand",
                                       "reserved": "renting reserved capacity"}}

#: Unit suffixes of field names, longest first: (suffix, label unit, kind).
_SUFFIXES = [
    ("_eur_per_useful_gpu_hour", "EUR/GPU-h", "money"), ("_eur_per_gpu_hour", "EUR/GPU-h", "money"),
    ("_eur_per_million_tokens", "EUR/million tokens", "money"), ("_eur_per_kw_month", "EUR/kW-month", "money"),
    ("_eur_per_kwh", "EUR/kWh", "money"), ("_eur_per_gpu", "EUR/GPU", "money"), ("_eur_per_hour", "EUR/hour", "money"),
    ("_eur_per_month", "EUR/month", "money"), ("_eur_per_year", "EUR/year", "money"), ("_eur", "EUR", "money"),
    ("_usd_per_gpu_hour", "USD/GPU-h", "number"), ("_fraction_per_year", "%/year", "fraction"),
    ("_fraction", "%", "fraction"), ("_pct", "%", "number"), ("_months", "months", "int"), ("_years", "years", "number"),
    ("_hours", "h", "number"), ("_days", "days", "number"), ("_kw_per_gpu", "kW", "number"), ("_kw", "kW", "number"),
    ("_gbps_per_gpu", "Gb/s per GPU", "number"), ("_gbps", "Gb/s", "number"), ("_tbps", "TB/s", "number"),
    ("_gb", "GB", "number"), ("_tflops", "TFLOP/s", "number"), ("_watts", "W", "number"), ("_gpus", "GPU", "number"),
    ("_tokens", "tokens", "count"), ("_s", "s", "number"),
]


def lookup(name: str) -> Label:
    """The registry entry of ``name``; unknown names get a label from their unit suffix (never the raw name)."""
    name = str(name)
    if name in LABELS:
        return LABELS[name]
    for suffix, unit_text, kind in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return Label(_words(name[: -len(suffix)]), unit_text, kind)
    return Label(_words(name), "", "number")


def _words(name: str) -> str:
    text = re.sub(r"[_.]+", " ", name).strip()
    text = re.sub(r"\beur\b", "EUR", re.sub(r"\bgpu(s?)\b", r"GPU\1", text))
    return text[:1].upper() + text[1:]


def label(name: str) -> str:
    name = str(name)
    if name.startswith(("weight.", "missing_fill.")):
        head, _, criterion = name.partition(".")
        return ("Weight of " if head == "weight" else "Value used where not stated: ") + criterion_label(criterion)
    return lookup(name).text


def readable_names(frame, column: str = "name"):
    """A copy of an assumptions table whose ``column`` of field names reads as labels."""
    out = frame.copy()
    if column in out.columns:
        out[column] = out[column].map(label)
    return out


def unit(name: str, currency: str = "EUR") -> str:
    u = lookup(name).unit
    return u.replace("EUR", currency, 1) if u.startswith("EUR") else u


def label_with_unit(name: str, currency: str = "EUR") -> str:
    """"On-demand price (EUR/GPU-h)": for table headers and axis titles."""
    u = unit(name, currency)
    text = label(name)
    return f"{text} ({u})" if u and u != "%" and u.lower() not in text.lower() else text


def readable_columns(frame):
    """A copy of ``frame`` whose column names read as labels with their units (engine units: EUR)."""
    return frame.rename(columns={c: label_with_unit(c) for c in frame.columns if isinstance(c, str)})


def _count(value: float) -> str:
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(value) >= size:
            return f"{value / size:,.4g} {word}"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def fmt(name: str, value: object, currency: str = "EUR", usd_per_eur: float = 1.0, *, with_unit: bool = True) -> str:
    """``value`` of ``name`` as text with its unit: money converted to ``currency``, fractions as percent,
    counts in words, booleans as yes/no, empty values as the registry's word for them (never None/nan)."""
    entry = lookup(name)
    if is_missing(value) or (isinstance(value, list | tuple | dict) and not value):
        return entry.none
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {fmt(name, v, currency, usd_per_eur, with_unit=with_unit)}" for k, v in value.items())
    if isinstance(value, bool) or entry.kind == "bool":
        return "yes" if value else "no"
    if isinstance(value, str) or entry.kind == "text":
        return NAMED_WORDS.get(str(name), {}).get(str(value)) or VALUE_WORDS.get(str(value), str(value))
    value = float(cast(SupportsFloat, value))  # a number here: every other kind has returned
    if not math.isfinite(value):
        return entry.none
    u = unit(name, currency)
    if entry.kind == "money":
        per = u.split("/", 1)[1] if "/" in u else ""
        return money(value, display_in(currency, usd_per_eur), entry.decimals) + (f"/{per}" if with_unit and per else "")
    if entry.kind == "fraction":
        pct = f"{value * 100:.2f}".rstrip("0").rstrip(".")
        return f"{'0' if pct in ('-0', '') else pct}{u if with_unit and u else '%'}"
    if entry.kind == "month":
        return f"month {int(round(value))}"
    if entry.kind == "int":
        text = f"{int(round(value)):,}"
    elif entry.kind == "count":
        text = _count(value)
    else:
        text = f"{value:,.{entry.decimals}f}"
    return f"{text} {u}" if with_unit and u else text


def path_label(path: str) -> str:
    """A flattened scenario input (``tco.inputs.pue``, ``placement.workloads[chat-api].peak_gpus``) as
    "Rent or own · PUE (facility overhead)"."""
    parts = path.split(".")
    section = SECTIONS.get(parts[0], label(parts[0]))
    rest = [p for p in parts[1:] if p not in ("inputs", "training", "inference", "constraints")]
    if parts[:2] == ["scoring", "weight_points"] and len(parts) > 2:
        return f"{section} · weight of {criterion_label(parts[2])} (points)"
    if parts[:2] == ["scoring", "group_votes"] and len(parts) > 3:
        return f"{section} · vote of {parts[2]}: {criterion_label(parts[3])} (points)"
    if parts[:2] == ["placement", "capacity_gpus"] and len(parts) > 2:
        return f"{section} · capacity of {'.'.join(parts[2:])} (GPU)"
    if not rest:
        return section
    head = rest[-1]
    where = re.match(r"workloads\[(.*)\]$", rest[0]) if len(rest) > 1 else None
    prefix = f"workload {where.group(1)} · " if where else ""
    u = lookup(head).unit
    return f"{section} · {prefix}{label(head)}" + (f" ({u})" if u and lookup(head).kind not in ("bool", "text") else "")


def criterion_label(name: str) -> str:
    """The label of scoring criterion ``name`` ("Price per GPU-hour"); a name that is no criterion gets its label."""
    from engine.scoring import CRITERIA

    return next((c.label for c in CRITERIA if c.name == name), label(name))


_NAMES_IN_TEXT: re.Pattern | None = None


def in_words(text: str) -> str:
    """Free text (a source note, a reason) with every field name of the registry replaced by its label, e.g.
    "see capacity_gpus" -> "see Venue capacity". Other snake_case words (dataset codes) are left alone."""
    global _NAMES_IN_TEXT
    if _NAMES_IN_TEXT is None:
        names = sorted((n for n in LABELS if "_" in n), key=len, reverse=True)
        _NAMES_IN_TEXT = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    def words(part: str, at_start: bool) -> str:
        return _NAMES_IN_TEXT.sub(lambda m: LABELS[m.group(1)].text if at_start and m.start() == 0
                                  else LABELS[m.group(1)].text.lower(), part)

    parts = re.split(r"(https?://\S+)", text)  # URLs stay as they are
    return "".join(part if i % 2 else words(part, i == 0) for i, part in enumerate(parts))
