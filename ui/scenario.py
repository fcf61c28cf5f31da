"""The one Scenario: every input a result depends on, in ``st.session_state['scenario']``.

Pages read and write it through :func:`get_scenario` and :func:`update_scenario` only, so save/load,
share links, comparison and exports can later work on one object. Sections are added per page. A page never
touches ``st.session_state`` itself (tests/test_session_state_rule.py): its widget state belongs to its ui
module, and widgets that hold a section's fields one to one take their keys from :func:`widget_key`.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st
from pydantic import BaseModel, ConfigDict, Field, field_validator

from catalog.models import Slug
from engine.money import DEFAULT_USD_PER_EUR
from engine.placement import (
    DEFAULT_OWN_LEAD_TIME_DAYS,
    MAX_HORIZON_MONTHS,
    PlacementTooLargeError,
    Workload,
    check_portfolio_size,
)
from engine.scope import OfferScope, Residency, WorkloadFit
from engine.scoring import CRITERION_NAMES, PRESETS, Constraints
from engine.tco import TcoInputs
from engine.units import HOURS_PER_YEAR
from engine.workload import DEFAULT_ASSUMPTIONS, InferenceService, TrainingJob

SCENARIO_KEY = "scenario"
SCENARIO_VERSION = 2
#: Count caps on what a share link or file may carry (issue #15: 2,000 workloads took 42 s on Placement).
MAX_WORKLOADS = 100
MAX_VENUE_CAPACITIES = 500
MAX_GROUP_VOTES = 50
MAX_NAME_CHARS = 120
#: Most GPUs the portfolio may commit at one venue (the Placement page's capacity grid uses the same maximum).
MAX_VENUE_CAPACITY_GPUS = 100_000
#: Hours of demand a placement request plans (one year, as the page does).
PLACEMENT_HOURS = int(HOURS_PER_YEAR)
#: Ranges of the pages' widgets, one definition used by the widgets and by validation (issue #28.9): a value a
#: link or file can carry is always one the widget accepts, so no link can make a page fail to draw.
USD_PER_EUR_RANGE = (0.5, 2.0)  # sidebar exchange rate [USD/EUR]
UTILISATION_RANGE = (0.05, 1.0)  # brief and TCO utilisation sliders [-]
TORNADO_RANGE = (0.05, 0.5)  # TCO tornado: each input moved by +- [-]
MAX_OTHER_DISCOUNT_PCT = 80  # Placement: assumed commitment discount for other providers [%]
MIN_MEMORY_RANGE_GB = (1.0, 2000.0)  # scope: minimum memory per GPU [GB]
FIT_MODEL_RANGE_B = (0.1, 100_000.0)  # scope: model to fit [1e9 parameters]


def _within(value: float | None, bounds: tuple[float, float], what: str) -> None:
    if value is not None and not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"{what} must be between {bounds[0]:g} and {bounds[1]:g} (got {value:g})")


def scope_within_widgets(scope: OfferScope) -> OfferScope:
    """A page scope whose minimum memory and model size fit the scope widgets (ui.offer_scope)."""
    _within(scope.min_memory_gb_per_gpu, MIN_MEMORY_RANGE_GB, "the minimum memory per GPU [GB]")
    _within(scope.fit.model_params_b if scope.fit else None, FIT_MODEL_RANGE_B,
            "the model to fit [billion parameters]")
    return scope


class DisplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    currency: Literal["EUR", "USD"] = "EUR"
    usd_per_eur: float = Field(default=DEFAULT_USD_PER_EUR, ge=USD_PER_EUR_RANGE[0], le=USD_PER_EUR_RANGE[1],
                               description="USD per EUR")


#: GPU classes a client brief can ask for, and the catalog GPU models in each (like-for-like comparisons).
GPU_CLASSES: dict[str, tuple[str, ...]] = {
    "H100 / H200": ("H100", "H100 NVL", "H200"),
    "B200 / B300": ("B200", "B300"),
    "A100": ("A100-80GB", "A100-40GB"),
    "MI300X": ("MI300X",),
    "L40S / L4 / RTX (inference cards)": ("L40S", "L4", "RTX 6000 Ada", "RTX 4000 Ada", "RTX PRO 6000 Blackwell"),
    "Any GPU": (),
}


class ClientBrief(BaseModel):
    """The client's question, set once and applied by every page (each page may override it visibly).

    Defaults describe the workshop case the app is tuned for: 16 H100-class GPUs for 3 years at 60 %
    utilisation, a 70B-parameter model, EU data centre required.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    gpu_class: str = "H100 / H200"
    model_params_billion: float | None = Field(default=70.0, gt=0, le=10_000, description="model to fit [1e9 parameters]")
    cluster_gpus: int = Field(default=16, ge=1, le=100_000, description="GPUs in the cluster [GPU]")
    horizon_months: int = Field(default=36, ge=1, le=240, description="planning horizon [month]")
    utilisation_fraction: float = Field(default=0.6, ge=UTILISATION_RANGE[0], le=UTILISATION_RANGE[1],
                                        description="sustained utilisation [-]")
    eu_resident_only: bool = True
    eu_jurisdiction_only: bool = False
    eu_legal_seat_only: bool = False
    required_certifications: tuple[str, ...] = Field(default=(), max_length=12)

    @field_validator("gpu_class")
    @classmethod
    def _known_class(cls, name: str) -> str:
        if name not in GPU_CLASSES:
            raise ValueError(f"unknown GPU class {name!r} (known: {list(GPU_CLASSES)})")
        return name

    @field_validator("required_certifications")
    @classmethod
    def _short_tokens(cls, tokens: tuple[str, ...]) -> tuple[str, ...]:
        if any(not 0 < len(t) <= 40 for t in tokens):
            raise ValueError("certification names must be 1-40 characters")
        return tuple(dict.fromkeys(tokens))

    @property
    def gpu_models(self) -> tuple[str, ...]:
        """Catalog GPU models of the class; empty = any GPU."""
        return GPU_CLASSES[self.gpu_class]


#: The brief's defaults, which the page sections' defaults below agree with.
DEFAULT_BRIEF = ClientBrief()


class TcoSection(BaseModel):
    """TCO page: the engine inputs plus where the prices came from. The reserved option has a price only from
    the on-demand offer's own committed price (``reserved_origin="offer"``, ``reserved_price_id``) or the
    user's quote (``"quote"``); ``None`` means no committed price, and reserved takes no part."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    inputs: TcoInputs = TcoInputs(cluster_gpus=DEFAULT_BRIEF.cluster_gpus, horizon_months=DEFAULT_BRIEF.horizon_months,
                                  utilisation_fraction=DEFAULT_BRIEF.utilisation_fraction)
    on_demand_offer_id: str | None = None
    # True while the on-demand price is the offer's private negotiated price (only with Scenario.private_prices)
    on_demand_price_private: bool = False
    reserved_origin: Literal["offer", "quote"] | None = None
    reserved_price_id: str | None = None
    quote_price_eur_per_gpu_hour: float | None = Field(default=None, ge=0, le=1000, allow_inf_nan=False)
    quote_term_months: int | None = Field(default=None, ge=1, le=120)
    gpu_spec_id: str | None = None
    mc_draws: int = Field(default=20_000, ge=1_000, le=200_000)
    tornado_pct: float = Field(default=0.2, ge=TORNADO_RANGE[0], le=TORNADO_RANGE[1])

    @field_validator("inputs")
    @classmethod
    def _utilisation_on_the_slider(cls, inputs: TcoInputs) -> TcoInputs:
        _within(inputs.utilisation_fraction, UTILISATION_RANGE, "utilisation_fraction")
        return inputs


#: Per scenario section, the model whose fields its page's input widgets hold one to one (issue #32.5): the
#: widgets' keys derive from the field names (:func:`widget_key`), so a new input is one field plus one widget.
WIDGET_FIELDS: dict[str, type[BaseModel]] = {"tco": TcoInputs}


def widget_key(section: str, field: str) -> str:
    """Session-state key of the widget holding ``field`` of ``section``: ``"_<section>_<field>"``
    (``widget_key("tco", "horizon_months") == "_tco_horizon_months"``; the same key names the widget's CSS class
    ``st-key-...`` that bench/ and the browser tests find). ``field`` may be a dotted path into a nested model, its
    dots written as underscores (``widget_key("wl", "training.n_gpus") == "_wl_training_n_gpus"``).

    Raises KeyError for a section without derived keys (:data:`WIDGET_FIELDS`) or a field its model (or the
    nested model on the path) lacks, so a misspelt field fails on the first run instead of naming a widget nobody
    reads."""
    model = WIDGET_FIELDS[section]
    *parents, name = field.split(".")
    for part in parents:
        nested = model.model_fields[part].annotation if part in model.model_fields else None
        if not (isinstance(nested, type) and issubclass(nested, BaseModel)):
            raise KeyError(f"{part!r} is not a nested model of {model.__name__} (section {section!r})")
        model = nested
    if name not in model.model_fields:
        raise KeyError(f"{name!r} is not a field of {model.__name__} (section {section!r}, path {field!r})")
    return f"_{section}_{field.replace('.', '_')}"


class WorkloadSection(BaseModel):
    """Workload cost page: the job or service priced, and how missing catalog values and prices are treated."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    mode: Literal["training", "inference"] = "training"
    # Modes the page showed before the current one (both after a switch): the exports give the results of each
    # (issue #27.1). Empty: only ``mode``. Use :func:`workload_modes`.
    computed_modes: tuple[Literal["training", "inference"], ...] = Field(default=(), max_length=2)
    preset: str = "llama-2-70b"
    # Default: the client brief's 70B model, fine-tuned on 20B tokens (a user-set example job) on the brief's 16
    # GPUs, about two weeks on H100s; the published 2T-token pre-training would take years on 16 GPUs.
    training: TrainingJob = TrainingJob.from_preset("llama-2-70b", n_gpus=DEFAULT_BRIEF.cluster_gpus,
                                                    training_tokens=20e9, job_kind="full_finetune")
    # GPUs busy the brief's share of paid time (60 %), as Rent or own (issue #27.3: it was 100 %).
    inference: InferenceService = InferenceService.from_preset(
        "llama-2-70b", prompt_tokens=1000, output_tokens=200, batch_size=16,
        target_utilisation_fraction=DEFAULT_BRIEF.utilisation_fraction)
    missing_fabric: Literal["exclude", "assume_default"] = "exclude"
    price_type: Literal["on-demand", "spot", "reserved", "reserved-1y", "reserved-3y", "cheapest"] = "on-demand"
    tokens_per_day: float = Field(default=100e6, gt=0, le=1e15, description="generated tokens per day [-]")
    # True: per offer, the cheapest concurrency cap (up to vLLM's default 256) within the latency target
    # (engine.workload.price_inference_within_latency); False: the typed batch size on every offer.
    batch_auto: bool = True
    latency_target_s: float = Field(default=10.0, gt=0, le=3600, description="request latency target [s]")
    # Reliability and power overrides of the engine defaults (engine.goodput, engine.power; issue #17)
    failures_per_million_gpu_hours: float = Field(
        default=round(DEFAULT_ASSUMPTIONS.failures_per_gpu_hour * 1e6, 2), ge=0, le=1e5,
        description="job-stopping failures per million GPU-hours [-]")
    restart_s: float = Field(default=DEFAULT_ASSUMPTIONS.restart_s, ge=0, le=7 * 86400, description="[s]")
    pue_ratio: float = Field(default=DEFAULT_ASSUMPTIONS.pue_ratio, ge=1, le=3, description="[-]")
    # Which offers compete (ui.offer_scope): the brief's GPU class and residency (default: H100 / H200 in EU/EEA
    # data centres, the default client being a German company). The job itself decides what fits.
    scope: OfferScope = OfferScope(gpu_models=DEFAULT_BRIEF.gpu_models)
    residency: Residency = Residency(eu_resident_only=DEFAULT_BRIEF.eu_resident_only,
                                     eu_jurisdiction_only=DEFAULT_BRIEF.eu_jurisdiction_only,
                                     eu_legal_seat_only=DEFAULT_BRIEF.eu_legal_seat_only,
                                     required_certifications=DEFAULT_BRIEF.required_certifications)

    _scope_in_range = field_validator("scope")(classmethod(lambda cls, scope: scope_within_widgets(scope)))


def workload_modes(section: WorkloadSection) -> tuple[str, ...]:
    """The workload modes computed in the scenario, training first: the current one and any shown before it."""
    return tuple(m for m in ("training", "inference") if m == section.mode or m in section.computed_modes)


class ScoringSection(BaseModel):
    """Scoring page: preset, weights (points), hard constraints, method, missing-data rule, price basis and
    the weight uncertainty of the Monte Carlo. Engine units: the maximum price is in EUR per GPU-hour."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    preset: str = "Regulated enterprise"
    weight_points: dict[str, float] = Field(default_factory=dict)  # empty: the preset's weights
    # The client brief's residency and certification settings (ClientBrief defaults); the preset's own
    # constraints apply when the user picks a preset.
    constraints: Constraints = Constraints(eu_resident_only=DEFAULT_BRIEF.eu_resident_only,
                                           eu_jurisdiction_only=DEFAULT_BRIEF.eu_jurisdiction_only,
                                           eu_legal_seat_only=DEFAULT_BRIEF.eu_legal_seat_only,
                                           required_certifications=DEFAULT_BRIEF.required_certifications)
    method: Literal["weighted_sum", "topsis"] = "weighted_sum"
    missing: Literal["worst", "exclude"] = "worst"
    price_basis: Literal["on_demand", "reserved", "reserved_1y", "reserved_3y", "spot", "cheapest"] = "on_demand"
    concentration: float = Field(default=20.0, gt=0, le=1000, description="Dirichlet concentration [-]")
    group_code: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{4,64}$")  # group-weighting session
    group_votes: dict[str, dict[str, float]] = Field(default_factory=dict)  # participant -> weight points
    # Like-for-like (ui.offer_scope): which offers compete. Default: the brief's GPU class (H100 / H200),
    # holding its 70B model as a full fine-tune sharded over its 16 GPUs (78 GB per GPU). Residency stays in
    # ``constraints``.
    scope: OfferScope = OfferScope(gpu_models=DEFAULT_BRIEF.gpu_models, fit=WorkloadFit(
        model_params_b=DEFAULT_BRIEF.model_params_billion or 70.0, use="training", n_gpus=DEFAULT_BRIEF.cluster_gpus))

    _scope_in_range = field_validator("scope")(classmethod(lambda cls, scope: scope_within_widgets(scope)))

    @field_validator("group_votes")
    @classmethod
    def _votes_capped(cls, votes: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        if len(votes) > MAX_GROUP_VOTES:
            raise ValueError(f"at most {MAX_GROUP_VOTES} participants")
        for name, points in votes.items():
            if not 0 < len(name) <= MAX_NAME_CHARS:
                raise ValueError(f"participant names are 1 to {MAX_NAME_CHARS} characters")
            if set(points) - set(CRITERION_NAMES) or any(not 0 <= v <= 100 for v in points.values()):
                raise ValueError("each vote holds known criteria with 0 to 100 points")
        return votes

    @field_validator("constraints")
    @classmethod
    def _few_certifications(cls, constraints: Constraints) -> Constraints:
        if len(constraints.required_certifications) > 50:
            raise ValueError("at most 50 required certifications")
        return constraints

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, name: str) -> str:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r} (known: {list(PRESETS)})")
        return name

    @field_validator("weight_points")
    @classmethod
    def _known_criteria(cls, points: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(points) - set(CRITERION_NAMES))
        if unknown:
            raise ValueError(f"unknown criteria: {unknown}")
        if any(not 0 <= v <= 100 for v in points.values()):
            raise ValueError("weight points must be between 0 and 100")
        return points

    def points(self) -> dict[str, float]:
        """Weight points of every criterion (0-100): the edited ones, else the preset's."""
        source = self.weight_points or PRESETS[self.preset].weight_points
        return {name: float(source.get(name, 0.0)) for name in CRITERION_NAMES}


class OwnClusterSettings(BaseModel):
    """The client's own cluster on the Placement page (issue #29): where it stands, when it is ready, how large.
    Its cost per GPU-hour comes from the Rent-or-own inputs (:class:`TcoSection`) through
    :class:`engine.placement.OwnCluster`."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    include: bool = True
    lead_time_days: float = Field(DEFAULT_OWN_LEAD_TIME_DAYS, ge=0, le=3650)
    fixed_gpus: int | None = Field(None, ge=1, le=100_000)  # None: the plan chooses the size
    max_gpus: float | None = Field(None, ge=0, le=100_000)  # None: no cap when the plan chooses
    country: str = Field("", max_length=60)
    is_eu_datacenter: bool = True
    is_eu_client: bool = True
    gpu_model: str = Field("H100", max_length=40)


class PlacementSection(BaseModel):
    """Placement page: the workload portfolio and the venue settings. ``example`` names one of the page's
    example portfolios (ui.placement_examples.EXAMPLES); an unknown name falls back to the first one."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    example: str = "EU fintech"
    workloads: list[Workload] = Field(default_factory=list, max_length=MAX_WORKLOADS)  # empty: the example
    # None: published reserved prices only; 1 or 3: estimate missing ones from the Epoch discounts.
    commitment_term_years: Literal[1, 3] | None = 3
    other_provider_discount_fraction: float | None = Field(
        default=None, gt=0, le=MAX_OTHER_DISCOUNT_PCT / 100,
        description="assumed commitment discount for providers Epoch does not cover [-]")
    capacity_gpus: dict[str, float] = Field(default_factory=dict)  # offer_id -> GPUs the portfolio may commit
    # Plan horizon (lead times are counted in it) and the opt-in to commit on stale or unstated offers (#29).
    horizon_months: int = Field(36, ge=1, le=MAX_HORIZON_MONTHS)
    commit_on_stale_or_unknown: bool = False
    # Opt-in: marketplace hosts (one third-party machine, no SLA) for every workload, not only interruptible or
    # development ones (engine.placement.Venues.is_marketplace_host).
    marketplace_for_every_workload: bool = False
    # Workloads of the Workload page's kind (training / inference) use only offers its engine can price (#29.5).
    match_workload_page: bool = False
    own_cluster: OwnClusterSettings = OwnClusterSettings()
    # Portfolio-wide venue rules (ui.offer_scope), on top of each workload's own: the client brief's residency
    # (default: EU/EEA data centres). GPU class and memory are per workload.
    scope: OfferScope = OfferScope()
    residency: Residency = Residency(eu_resident_only=DEFAULT_BRIEF.eu_resident_only,
                                     eu_jurisdiction_only=DEFAULT_BRIEF.eu_jurisdiction_only,
                                     eu_legal_seat_only=DEFAULT_BRIEF.eu_legal_seat_only,
                                     required_certifications=DEFAULT_BRIEF.required_certifications)

    _scope_in_range = field_validator("scope")(classmethod(lambda cls, scope: scope_within_widgets(scope)))

    @field_validator("workloads")
    @classmethod
    def _unique_names(cls, workloads: list[Workload]) -> list[Workload]:
        names = [w.name for w in workloads]
        if any(len(n) > MAX_NAME_CHARS for n in names):
            raise ValueError(f"workload names are at most {MAX_NAME_CHARS} characters")
        if len(set(names)) != len(names):
            raise ValueError("workload names must be unique")
        try:  # the engine's work budget (issue #28): at most MAX_PORTFOLIO_CELLS workloads x largest peak
            check_portfolio_size(workloads, PLACEMENT_HOURS)
        except PlacementTooLargeError as exc:
            raise ValueError(str(exc)) from None
        return workloads

    @field_validator("capacity_gpus")
    @classmethod
    def _non_negative(cls, capacity: dict[str, float]) -> dict[str, float]:
        if len(capacity) > MAX_VENUE_CAPACITIES:
            raise ValueError(f"at most {MAX_VENUE_CAPACITIES} venue capacities")
        if any(not 0 <= v <= MAX_VENUE_CAPACITY_GPUS for v in capacity.values()):
            raise ValueError(f"venue capacities must be between 0 and {MAX_VENUE_CAPACITY_GPUS:,} GPUs")
        return capacity


#: The Scoring page's widgets hold ScoringSection's fields and its hard constraints' (ui.scoring_inputs); the
#: Placement page's hold PlacementSection's and its own cluster's (ui.placement_view, ui.placement_compare); the
#: Workload page's hold WorkloadSection's, its job's and its service's (dotted paths, ui.workload_inputs.INPUTS).
WIDGET_FIELDS.update({"sc": ScoringSection, "sc_constraints": Constraints, "pl": PlacementSection,
                      "pl_own_cluster": OwnClusterSettings, "wl": WorkloadSection})


#: Most offers the Providers comparison shows side by side (its picker's max_selections).
MAX_COMPARED_OFFERS = 4


class ProvidersSection(BaseModel):
    """Providers page: the offers of the side-by-side comparison (issue #27.12: a share link carries them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compare_offer_ids: tuple[Slug, ...] = Field(default=(), max_length=MAX_COMPARED_OFFERS)

    @field_validator("compare_offer_ids")
    @classmethod
    def _distinct(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(ids))


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    version: int = SCENARIO_VERSION
    # An editor's explicit choice (sidebar toggle "Include private prices in this scenario and its exports",
    # issue #28.2): only then do pages and exports use private negotiated prices, labelled in every export; a
    # session that is not an editor's drops what rests on them (ui.private_prices).
    private_prices: bool = False
    display: DisplaySettings = DisplaySettings()
    brief: ClientBrief = ClientBrief()
    providers: ProvidersSection = ProvidersSection()
    tco: TcoSection = TcoSection()
    workload: WorkloadSection = WorkloadSection()
    scoring: ScoringSection = ScoringSection()
    placement: PlacementSection = PlacementSection()


def migrate_document(data: dict) -> dict:
    """Bring an older scenario document (a dict parsed from JSON) up to :data:`SCENARIO_VERSION`.

    Version 1 -> 2: the TCO reserved option was a discount borrowed from a default or another offer
    (``reserved_discount_fraction``, ``reserved_offer_id``); version 2 takes a committed price only from the
    offer itself or the user's quote, so the borrowed discount is dropped and reserved is left without a price.
    """
    version = data.get("version", 1)
    out = dict(data)
    if version < 2 and isinstance(out.get("tco"), dict):
        tco = dict(out["tco"])
        tco.pop("reserved_offer_id", None)
        if isinstance(tco.get("inputs"), dict):
            inputs = dict(tco["inputs"])
            inputs.pop("reserved_discount_fraction", None)
            inputs.pop("reserved_term_months", None)
            tco["inputs"] = inputs
        out["tco"] = tco
    out["version"] = SCENARIO_VERSION
    return out


def get_scenario() -> Scenario:
    scenario = st.session_state.get(SCENARIO_KEY)
    if scenario is None:  # not setdefault(KEY, Scenario()): that builds (validates) a whole Scenario on every call
        scenario = st.session_state[SCENARIO_KEY] = Scenario()
    return scenario


def update_scenario(**sections: object) -> Scenario:
    """Replace whole sections (``update_scenario(display=DisplaySettings(...))``)."""
    scenario = get_scenario().model_copy(update=sections)
    st.session_state[SCENARIO_KEY] = scenario
    return scenario
