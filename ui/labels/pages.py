"""Page tables of the label registry: the words each page puts on its widgets, options, grid columns, chart
series and rule lists, keyed by the field, column or value they name (issue #32: one registry the views import from;
the labels are exactly those the pages showed before). General field labels with units and formats are in
:mod:`ui.labels.fields`; help texts stay next to their widgets.
"""

from __future__ import annotations

from engine.assumptions import is_missing
from engine.tco import Pair
from engine.workload.serving_stacks import SERVING_STACK_SPECS
from engine.workload.stacks import TRAINING_STACK_SPECS

# -- offer scope and client brief (Scoring, Workload cost, Placement, Home) ------------------------------------
#: Residency and certification rules: the toggles of every scoped page and the Providers page.
RESIDENCY_LABELS = {
    "eu_resident_only": "EU/EEA data centre only",
    "eu_jurisdiction_only": "EU-controlled provider only",
    "eu_legal_seat_only": "EU/EEA legal seat only",
    "required_certifications": "Required certifications",
}
#: The client brief's rules as one line says what each removes ("EU parent removes 12 of 40").
BRIEF_RULE_LABELS = {
    "eu_resident_only": "EU/EEA data centre", "eu_jurisdiction_only": "EU parent",
    "eu_legal_seat_only": "EU/EEA legal seat", "required_certifications": "certified",
    "gpu_models": "GPU class", "min_memory_gb_per_gpu": "memory per GPU",
}

# -- Rent or own (TCO) ------------------------------------------------------------------------------------------
#: Input widgets, tornado bars and the assumption table: field -> label with its unit.
TCO_INPUT_LABELS = {
    "price_on_demand_eur_per_gpu_hour": "On-demand price (EUR per GPU-hour)",
    "rental_price_decline_fraction_per_year": "Rental price decline per year (0-1)",
    "server_capex_eur_per_gpu": "Server share per GPU (EUR)",
    "networking_capex_eur_per_gpu": "Networking share per GPU (EUR)",
    "storage_capex_eur_per_gpu": "Storage share per GPU (EUR)",
    "installation_capex_eur_per_gpu": "Installation per GPU (EUR)",
    "depreciation_years": "Depreciation life (years)",
    "cost_of_capital_fraction_per_year": "Cost of capital per year (0-1)",
    "residual_value_fraction": "Resale value at end of life (share of capex)",
    "power_at_load_kw_per_gpu": "Rated power per GPU incl. server share (kW)",
    "average_draw_fraction_of_rated": "Average draw, share of rated power",
    "idle_power_fraction": "Idle power (share of full load)", "pue": "PUE (facility overhead)",
    "electricity_eur_per_kwh": "Electricity (EUR per kWh)",
    "colocation_eur_per_kw_month": "Colocation (EUR per kW-month)", "staff_fte": "Operations staff (FTE)",
    "labour_cost_eur_per_hour": "Labour cost (EUR per hour)",
    "working_hours_per_fte_year": "Working hours per FTE and year",
    "maintenance_fraction_of_capex_per_year": "Maintenance per year (share of capex)",
    "utilisation_fraction": "Sustained utilisation (0-1)", "cluster_gpus": "GPUs in the cluster",
    "horizon_months": "Horizon (months)", "price_reserved_eur_per_gpu_hour": "Committed price (EUR per GPU-hour)",
    "reserved_term_months": "Committed term (months)",
}
#: The options in the verdict ("owning is the cheapest way").
TCO_OPTION_VERBS = {"on_demand": "renting on demand", "reserved": "renting reserved", "owned": "owning"}
#: The options as chart series.
TCO_OPTION_NAMES = {"on_demand": "Rent on demand", "reserved": "Rent reserved", "owned": "Own"}
#: The cost layers of owning, as chart series.
TCO_LAYER_NAMES = {
    "hardware": "Hardware (server, storage, installation)", "networking": "Networking", "capital_cost": "Cost of capital",
    "power_and_cooling": "Power and cooling", "facility": "Colocation", "staff": "Staff", "maintenance": "Maintenance",
    "residual_credit": "Resale value (credit)",
}
#: Break-even pairs.
TCO_PAIR_LABELS = {
    Pair.ON_DEMAND_VS_OWNED.value: "Own vs rent on demand",
    Pair.ON_DEMAND_VS_RESERVED.value: "Rent reserved vs rent on demand",
    Pair.RESERVED_VS_OWNED.value: "Own vs rent reserved",
}

# -- Provider scoring -------------------------------------------------------------------------------------------
SCORING_METHOD_LABELS = {"weighted_sum": "Weighted sum", "topsis": "TOPSIS (closeness to the ideal)"}
SCORING_MISSING_LABELS = {"worst": "Score as the worst observed value", "exclude": "Leave the offer out"}
SCORING_BASIS_LABELS = {
    "on_demand": "On-demand", "reserved": "Reserved, any term", "reserved_1y": "1-year commitment",
    "reserved_3y": "3-year commitment", "spot": "Spot (interruptible)", "cheapest": "Cheapest stated, any type",
}
#: Hard constraints: toggles and the constraint funnel.
SCORING_CONSTRAINT_LABELS = {
    **RESIDENCY_LABELS,
    "infiniband_only": "InfiniBand between nodes only",
    "sxm_only": "SXM boards only",
    "max_price_eur_per_gpu_hour": "Maximum price",
    "gpu_models": "GPU class",
    "min_memory_gb_per_gpu": "Memory per GPU",
    "exclude_price_outliers": "Price outliers left out",
}

# -- Workload cost ----------------------------------------------------------------------------------------------
WORKLOAD_PRICE_LABELS = {
    "on-demand": "On-demand", "spot": "Spot (interruptible)", "reserved": "Reserved, any term",
    "reserved-1y": "1-year commitment", "reserved-3y": "3-year commitment", "cheapest": "Cheapest stated, any type",
}
FABRIC_POLICY_LABELS = {"exclude": "Leave the offer out", "assume_default": "Assume stated defaults"}
WEIGHT_BYTES_LABELS = {2.0: "BF16 / FP16 (2 B)", 1.0: "FP8 / INT8 (1 B)", 0.5: "INT4 (0.5 B)"}
KV_BYTES_LABELS = {2.0: "BF16 / FP16 (2 B)", 1.0: "FP8 (1 B)"}
GRAD_BYTES_LABELS = {2.0: "BF16 (2 B)", 4.0: "FP32 (4 B)"}
LAYOUT_LABELS = {"auto": "Auto", "manual": "Manual"}
JOB_KIND_LABELS = {
    "pretraining": "Pre-training", "full_finetune": "Full fine-tune", "lora": "LoRA fine-tune",
    "qlora": "QLoRA fine-tune (4-bit base)",
}
RECOMPUTE_LABELS = {
    "auto": "Auto (recompute only the layers needed to fit)", "selective": "Selective", "full": "Full", "none": "None",
}
TRAINING_STACK_LABELS = {k: v.label for k, v in TRAINING_STACK_SPECS.items()}
SERVING_STACK_LABELS = {k: v.label for k, v in SERVING_STACK_SPECS.items()}
#: Engine field -> (label on the page, unit shown, widget value x scale = engine value): the page's words for an
#: invalid input.
WORKLOAD_INPUTS = {
    "n_params": ("Model size", "billion parameters", 1e9), "training_tokens": ("Training tokens", "billion", 1e9),
    "n_gpus": ("GPUs", "", 1), "global_batch_tokens": ("Global batch", "million tokens", 1e6),
    "tensor_parallel_degree": ("Tensor-parallel degree", "", 1), "n_layers": ("Layers", "", 1),
    "pipeline_parallel_degree": ("Pipeline-parallel degree", "", 1),
    "context_parallel_degree": ("Context-parallel degree", "", 1),
    "virtual_pipeline_stages": ("Interleaved stages per GPU", "", 1),
    "sequence_length_tokens": ("Sequence length", "tokens", 1),
    "failures_per_million_gpu_hours": ("Failures", "per million GPU-hours", 1),
    "restart_s": ("Restart time", "min", 60), "pue_ratio": ("PUE", "", 1),
    "n_kv_heads": ("KV heads", "", 1), "head_dim": ("Head dimension", "", 1),
    "prompt_tokens": ("Prompt tokens", "", 1), "output_tokens": ("Output tokens", "", 1),
    "batch_size": ("Batch size", "", 1), "target_utilisation_fraction": ("Utilisation", "%", 0.01),
    "tokens_per_day": ("Tokens per day", "million", 1e6), "latency_target_s": ("Latency target", "s", 1),
}

# -- Hybrid placement -------------------------------------------------------------------------------------------
#: Portfolio grid columns: Workload field -> header (the grid's frame keeps the field names).
PLACEMENT_GRID_LABELS = {
    "name": "Workload", "kind": "Kind", "gpu_model": "GPU model", "mean_gpus": "Mean GPUs", "peak_gpus": "Peak GPUs",
    "may_leave_eu": "May leave EU", "eu_jurisdiction_required": "EU provider", "latency_sensitive": "Latency",
    "spot_allowed": "Spot OK", "needs_infiniband": "InfiniBand", "busy_hours_per_day": "Busy h/day",
    "busy_days_per_week": "Busy d/week", "first_busy_hour": "Busy from", "min_gpu_memory_gb": "Min GB",
    "needs_nvlink": "NVLink",
}
#: The venue opt-ins: PlacementSection field -> (toggle label, help).
PLACEMENT_TOGGLES = {
    "commit_on_stale_or_unknown": (
        "Commit on stale or unstated offers",
        "Off (default): no commitment is placed on an offer whose price is older than the catalog's staleness limit "
        "or whose fabric or memory is not stated; such offers are still used pay-as-you-go. On: you accept that "
        "risk, as with price outliers."),
    "match_workload_page": (
        "Only offers the Workload page can price",
        "On: workloads of the Workload page's kind (its training job or its inference service) are placed only on "
        "offers that page's engine can price for that job (memory, GPUs per node, fabric stated). Off (default): "
        "any offer of the right GPU class."),
    "marketplace_for_every_workload": (
        "Marketplace hosts for every workload",
        "Off (default): a marketplace host (one third-party machine at a host-set price, no SLA, gone once rented) "
        "takes only workloads that tolerate interruptions (Spot OK) or development work. On: any workload may run "
        "there."),
}

# -- Catalog editor ---------------------------------------------------------------------------------------------
#: The tables the editor edits, in tab order -> tab label.
TABLE_LABELS = {
    "prices": "Prices", "offers": "Offers", "providers": "Providers",
    "provider_facts": "Provider facts (legal seat, certifications)", "gpu_specs": "GPU specs",
    "gpu_aliases": "GPU name aliases",
}


#: How an offer's ``is_dedicated`` (True / False / empty) reads wherever offers are detailed (issue #29 item 2).
HARDWARE_TEXT = {True: "dedicated (bare metal)", False: "virtualised / shared", None: "not stated"}


def hardware_text(value: object) -> str:
    """'dedicated (bare metal)' for a single-tenant physical server, 'virtualised / shared' for a virtual instance
    or shared hardware, 'not stated' when no source (or quote) says (None, NaN or pandas' NA).

    >>> [hardware_text(v) for v in (True, False, None, float("nan"))]
    ['dedicated (bare metal)', 'virtualised / shared', 'not stated', 'not stated']
    """
    return HARDWARE_TEXT[None if is_missing(value) else bool(value)]
