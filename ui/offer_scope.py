"""Which offers a page's answer is about, read and written in one place for every page.

The Scoring, Workload cost and Placement pages narrow the catalog by the same client requirements: a GPU
class, a minimum memory per GPU or a model that must fit (:class:`engine.scope.OfferScope`), and residency
(:class:`engine.scope.Residency`: EU/EEA data centre, EU parent, EU/EEA legal seat, certifications).

* :func:`page_scope` / :func:`with_page_scope` read and set them on any page's scenario section (the
  client brief fills every page through these two functions). On the Scoring page residency lives in
  the hard constraints (its presets set them); elsewhere in the section's ``residency`` field.
* :func:`filter_offers` applies them with the one filter implementation,
  :func:`engine.scoring.apply_constraints`, and returns each left-out offer's reasons.
* :func:`scope_widgets`, :func:`residency_widgets` draw the same controls with the same words on every page.
* :func:`picker_label`, :func:`flags_text`: offer labels that tell node sizes and regions apart and carry
  the outlier and staleness flags.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd
import streamlit as st

from catalog import counts, coverage
from catalog.counts import price_age_days, price_date
from catalog.store import STALE_AFTER_DAYS
from engine.adapters import outlier_in
from engine.assumptions import is_missing
from engine.outliers import MODIFIED_Z_CUTOFF, PRICE_TYPES, RATIO_CUTOFF
from engine.scope import FIT_USES, OfferScope, Residency, WorkloadFit
from engine.scoring import Constraints, apply_constraints
from ui.format import plain
from ui.labels import RESIDENCY_LABELS
from ui.scenario import FIT_MODEL_RANGE_B, MIN_MEMORY_RANGE_GB, ClientBrief, Scenario, widget_key

#: Scenario sections that carry an offer scope.
PAGES = ("scoring", "workload", "placement")

RESIDENCY_HELP = {
    "eu_resident_only": "The data-centre country is stated and in the EU/EEA. A country the source does not state fails.",
    "eu_jurisdiction_only": "The provider's ultimate parent is under EU law: a US-parented provider's EU region is "
                            "still reachable by the CLOUD Act.",
    "eu_legal_seat_only": "The provider's registered office, as its legal notice states it, is in the EU/EEA. "
                          "Providers whose seat no source states fail (see Providers → Legal seat & certifications).",
    "required_certifications": "The provider must state it holds every one of these (e.g. ISO27001, BSI-C5). A "
                               "certificate not on record fails: most providers publish none in the consulted sources.",
}
OUTLIER_HELP = (f"A price is an outlier when it is below a quarter of (or above {RATIO_CUTOFF:g} times) the median "
                "price of the same GPU model and price type and its modified z-score of the log price is beyond "
                f"±{MODIFIED_Z_CUTOFF:g} (Iglewicz & Hoaglin 1993). Such rows stay listed with the reason; their "
                "price is used only when this is on.")


# --------------------------------------------------------------------------------------------------
# Read and write the scope of a page (the client brief uses these)
# --------------------------------------------------------------------------------------------------


def page_scope(scenario: Scenario, page: str) -> tuple[OfferScope, Residency]:
    """The offer scope and the residency the page ``page`` ("scoring", "workload", "placement") uses."""
    section = getattr(scenario, page)
    residency = Residency.of(section.constraints) if page == "scoring" else section.residency
    return section.scope, residency


def with_page_scope(scenario: Scenario, page: str, scope: OfferScope | None = None,
                    residency: Residency | None = None) -> Scenario:
    """A copy of ``scenario`` whose page ``page`` uses ``scope`` and/or ``residency`` (None: unchanged)."""
    section = getattr(scenario, page)
    update: dict[str, object] = {}
    if scope is not None:
        update["scope"] = scope
    if residency is not None:
        if page == "scoring":
            update["constraints"] = section.constraints.model_copy(update=residency.model_dump())
        else:
            update["residency"] = residency
    return scenario.model_copy(update={page: section.model_copy(update=update)})


def scope_from_brief(brief: ClientBrief, page: str, current: OfferScope | None = None) -> OfferScope:
    """The offer scope the client brief asks of ``page``: its GPU class everywhere but Placement (whose workloads
    name their own GPU model), and on Scoring the brief's model as a full fine-tune sharded over its cluster
    (Workload cost checks the fit of its own job). The outlier opt-in and a typed minimum memory are kept."""
    current = current or OfferScope()
    if page == "placement":
        return current
    fit = None
    if page == "scoring" and brief.model_params_billion:
        fit = WorkloadFit(model_params_b=brief.model_params_billion, use=current.fit.use if current.fit else "training",
                          n_gpus=brief.cluster_gpus)
    return current.model_copy(update={"gpu_models": brief.gpu_models, "fit": fit if page == "scoring" else current.fit})


def residency_from_brief(brief: ClientBrief) -> Residency:
    """The brief's residency and certification requirements."""
    return Residency(eu_resident_only=brief.eu_resident_only, eu_jurisdiction_only=brief.eu_jurisdiction_only,
                     eu_legal_seat_only=brief.eu_legal_seat_only, required_certifications=brief.required_certifications)


#: Widget-state key prefixes of each page's scope controls (Scoring's residency toggles are its constraints'; the
#: pages' scope keys derive from the section fields, ui.scenario.widget_key).
WIDGET_PREFIXES = {
    "scoring": (widget_key("sc", "scope") + "_", *(widget_key("sc_constraints", name) for name in Residency.model_fields)),
    "workload": (widget_key("wl", "scope") + "_",),
    "placement": (widget_key("pl", "scope") + "_", widget_key("pl", "residency") + "_"),
}


def forget_widgets(page: str) -> None:
    """Drop the page's scope widget state, so its controls redraw from the scenario (call after
    :func:`with_page_scope` changed a page the user has already visited)."""
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIXES[page])]:
        del st.session_state[key]


# --------------------------------------------------------------------------------------------------
# Filtering (one implementation: engine.scoring.apply_constraints)
# --------------------------------------------------------------------------------------------------


def price_columns_of(price_type: str) -> tuple[str, ...]:
    """Catalog price columns behind a page's price type ("cheapest": every type)."""
    if price_type in PRICE_TYPES:
        return (PRICE_TYPES[price_type],)
    return tuple(PRICE_TYPES.values())


def with_outlier_flag(frame: pd.DataFrame, price_columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with ``price_is_outlier`` / ``price_outlier_reason`` for the prices a page uses."""
    flagged, reasons = outlier_in(frame, price_columns)
    return frame.assign(price_is_outlier=flagged, price_outlier_reason=pd.Series(reasons, index=frame.index,
                                                                                   dtype=object))


def filter_offers(frame: pd.DataFrame, constraints: Constraints,
                  price_columns: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Which rows of the offers frame pass ``constraints`` (bool mask, frame order) and, for the others,
    every reason joined with "; " ('' for a kept row)."""
    data = with_outlier_flag(frame.reset_index(drop=True), price_columns)
    if "certifications_in_scope" in data:  # as the Scoring matrix: a certificate counts only within its scope
        data = data.assign(certifications=data["certifications_in_scope"])
    # a DataFrame is read as a mapping of columns (pandas-stubs do not declare it a Mapping)
    keep, why = apply_constraints(data, constraints)  # type: ignore[arg-type]
    return keep, ["; ".join(why.get(i, ())) for i in range(len(data))]


# --------------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------------


def scope_summary(scope: OfferScope, residency: Residency | None = None, *, markdown: bool = True) -> str:
    """'H100 only · at least 70 GB per GPU (a 70B model, ...) · EU/EEA data centre only'. With ``markdown`` (for
    st.markdown and captions) the GPU models and certification names, which a link can carry, go through
    :func:`ui.format.plain`; ``markdown=False`` for a table cell."""
    text = plain if markdown else str
    parts = []
    if scope.gpu_models:
        parts.append(" or ".join(text(m) for m in scope.gpu_models) + " only")
    floor = scope.memory_floor_gb()
    if floor is not None:
        why = f" ({scope.fit.describe()})" if scope.fit and floor == scope.fit.need_gb_per_gpu() else " (your minimum)"
        parts.append(f"at least {floor:.0f} GB per GPU{why}")
    if residency is not None:
        parts += [RESIDENCY_LABELS[k] for k in ("eu_resident_only", "eu_jurisdiction_only", "eu_legal_seat_only")
                  if getattr(residency, k)]
        if residency.required_certifications:
            parts.append("certified " + ", ".join(text(c) for c in residency.required_certifications))
    parts.append("price outliers included" if scope.include_price_outliers else "price outliers left out")
    return " · ".join(parts)


def flags_text(row: pd.Series | dict, today: dt.date | None = None) -> str:
    """'⚠ price outlier · ⚠ stale price (412 d)' for a catalog row; '' when nothing to flag."""
    out = []
    if is_true(row.get("price_outlier")):
        out.append("⚠ price outlier")
    days = price_age_days(row, today)
    if counts.is_stale_age(days):
        out.append(f"⚠ stale price ({days} d)")
    return " · ".join(out)


def is_true(value: object) -> bool:
    """True for a true flag; False for False, None, NaN and pandas NA (a missing flag is no flag)."""
    return not is_missing(value) and bool(value)


def price_is_stale(frame: pd.DataFrame, today: dt.date | None = None) -> np.ndarray:
    """Whether each row's price is stale: the catalog's one definition (:func:`catalog.counts.stale_price_mask`)."""
    return counts.stale_price_mask(frame, today)


def _text(value: object) -> str | None:
    return None if is_missing(value) or str(value).strip() == "" \
        else str(value).strip()


def gpus_text(value: object) -> str:
    """'8 GPUs' / '1 GPU' / 'node size not stated'."""
    if is_missing(value):
        return "node size not stated"
    n = int(cast(float, value))  # stated: a number
    return f"{n} GPU{'s' * (n != 1)}"


def picker_label(row: pd.Series | dict, width: int = 30, *, flags: bool = True) -> str:
    """'Scaleway · L4 PCIe · 4 GPUs · fr-par-1', with the outlier/stale flags: offers differing only by node
    size or region read differently."""
    gpu = " ".join(t for t in (_text(row.get("gpu_model")), _text(row.get("form_factor"))) if t)
    region = _text(row.get("region")) or "region not stated"
    label = f"{row.get('provider_name')} · {gpu} · {gpus_text(row.get('gpus_per_node'))} · {region[:width]}"
    marks = flags_text(row) if flags else ""
    return f"{label} {marks}" if marks else label


#: The columns :func:`picker_label`, :func:`flags_text` and :func:`price_date` read: a frame narrowed to them
#: before ``to_dict("records")`` (the whole offers frame has about 60 columns; issue #31).
ROW_COLUMNS = ("offer_id", "provider_name", "gpu_model", "form_factor", "gpus_per_node", "region", "price_outlier",
               "price_retrieved_at", "as_of_date", "as_of")


def row_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as dicts of the :data:`ROW_COLUMNS` it has (:func:`picker_label`, :func:`flags_text`
    and :func:`price_date` read no other; the whole offers frame has about 60 columns)."""
    return frame[[c for c in ROW_COLUMNS if c in frame.columns]].to_dict("records")


def picker_labels(frame: pd.DataFrame, *, flags: bool = True) -> pd.Series:
    """:func:`picker_label` of every row; rows that would still read the same (two instance families of one
    size in one region) get their catalog offer id appended, so no two options look identical."""
    records = row_records(frame)
    plain = pd.Series([picker_label(r, flags=False) for r in records], index=frame.index, dtype=object)
    twins = plain.duplicated(keep=False).to_numpy()
    out = []
    for i, r in enumerate(records):
        label = plain.iloc[i] + (f" · {r.get('offer_id')}" if twins[i] else "")
        marks = flags_text(r) if flags else ""
        out.append(f"{label} {marks}" if marks else label)
    return pd.Series(out, index=frame.index, dtype=object)


def stale_warning(rows: pd.DataFrame, what: str) -> str | None:
    """A sentence naming the rows among ``rows`` whose price is stale (None when none is)."""
    stale = rows[price_is_stale(rows)]
    if stale.empty:
        return None
    names = ", ".join(dict.fromkeys(f"{picker_label(r, flags=False)} (price of {price_date(r):%Y-%m-%d})"
                                    for r in stale.head(4).to_dict("records")))
    more = f" and {len(stale) - 4} more" if len(stale) > 4 else ""
    return (f"**Stale price{'s' * (len(stale) > 1)} in {what}:** {names}{more}: "
            f"retrieved more than {STALE_AFTER_DAYS} days ago; check the "
            "source before relying on it.")


# --------------------------------------------------------------------------------------------------
# Widgets (the same words on every page)
# --------------------------------------------------------------------------------------------------


def _init(prefix: str, values: dict[str, object]) -> None:
    for name, value in values.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)


def scope_widgets(prefix: str, scope: OfferScope, gpu_models: Sequence[str], *, gpu_class: bool = True,
                  fit: bool = True, container=None) -> OfferScope:
    """GPU class, minimum memory, model to fit and the outlier opt-in, initialised from ``scope``."""
    box = container or st
    fit_value = scope.fit or WorkloadFit()
    _init(prefix, {"gpus": list(scope.gpu_models), "min_mem": scope.min_memory_gb_per_gpu,
                   "fit_on": scope.fit is not None, "fit_b": float(fit_value.model_params_b),
                   "fit_use": fit_value.use, "fit_n": int(fit_value.n_gpus), "outliers": scope.include_price_outliers})
    ss = st.session_state
    # Two rows: the GPU class, memory floor and outliers; then the model fit. One row of four cramped every label and
    # cut the GPU list and "Training or full fine-tune" off at presentation size (seen in the Scoring screenshot).
    cols = box.columns([2.2, 1, 1])
    if gpu_class:
        options = sorted(set(gpu_models) | set(ss[f"{prefix}_gpus"]))
        cols[0].multiselect("GPU class", options, key=f"{prefix}_gpus", placeholder="any GPU",
                            help="Compare like with like: only these GPU models compete.")
    cols[1].number_input("Min. memory per GPU (GB)", *MIN_MEMORY_RANGE_GB, value=None, step=8.0,
                         format="%.0f", key=f"{prefix}_min_mem", placeholder="any",
                         help="Offers with less memory per GPU, or none stated, are left out.")
    outlier_toggle(prefix, scope.include_price_outliers, cols[2])
    if fit:
        t, a, b, c = box.columns([1.1, 0.9, 1.8, 0.9], vertical_alignment="bottom")
        t.toggle("A model must fit", key=f"{prefix}_fit_on",
                 help="Derive the memory per GPU from the model's size and precision (rule and sources in "
                      "docs/like-for-like.md).")
        on = ss[f"{prefix}_fit_on"]
        a.number_input("Model (B params)", *FIT_MODEL_RANGE_B, step=1.0, format="%g",
                       key=f"{prefix}_fit_b", disabled=not on)
        b.selectbox("Use and precision", list(FIT_USES), format_func=FIT_USES.__getitem__, key=f"{prefix}_fit_use",
                    disabled=not on)
        c.number_input("Over GPUs", min_value=1, max_value=100_000, step=1, key=f"{prefix}_fit_n", disabled=not on,
                       help="Training: the cluster the state is sharded over. Serving: GPUs per replica (≤ 8, "
                            "one node).")
    new_fit = (WorkloadFit(model_params_b=float(ss[f"{prefix}_fit_b"]), use=ss[f"{prefix}_fit_use"],
                           n_gpus=int(ss[f"{prefix}_fit_n"])) if fit and ss[f"{prefix}_fit_on"] else
               (scope.fit if not fit else None))
    result = OfferScope(
        gpu_models=tuple(ss[f"{prefix}_gpus"]) if gpu_class else scope.gpu_models,
        min_memory_gb_per_gpu=ss[f"{prefix}_min_mem"], fit=new_fit,
        include_price_outliers=bool(ss[f"{prefix}_outliers"]))
    floor = result.memory_floor_gb()
    if fit and new_fit is not None:
        box.caption(f"Fit: {new_fit.describe()} (a lower bound: activations and the KV cache need more)."
                    + (f" Memory floor used: {floor:.0f} GB." if floor != new_fit.need_gb_per_gpu() else ""))
    return result


def outlier_toggle(prefix: str, value: bool, container=None) -> bool:
    """The opt-in for flagged price outliers (key ``{prefix}_outliers``)."""
    st.session_state.setdefault(f"{prefix}_outliers", value)
    (container or st).toggle("Use price outliers", key=f"{prefix}_outliers", help=OUTLIER_HELP)
    return bool(st.session_state[f"{prefix}_outliers"])


def certification_options(frame: pd.DataFrame, chosen: Sequence[str] = ()) -> list[str]:
    """The same choices as the Scoring page's picker (catalog.coverage), plus any already chosen."""
    return sorted(set(coverage.certification_options(frame)) | set(chosen))


def residency_widgets(prefix: str, residency: Residency, cert_options: Sequence[str], container=None) -> Residency:
    """The residency toggles and the certification picker, initialised from ``residency``."""
    box = container or st
    _init(prefix, {**{k: getattr(residency, k) for k in ("eu_resident_only", "eu_jurisdiction_only",
                                                           "eu_legal_seat_only")},
                   "certs": list(residency.required_certifications)})
    ss = st.session_state
    cols = box.columns(4)
    for col, name in zip(cols, ("eu_resident_only", "eu_jurisdiction_only", "eu_legal_seat_only"), strict=False):
        col.toggle(RESIDENCY_LABELS[name], key=f"{prefix}_{name}", help=RESIDENCY_HELP[name])
    cols[3].multiselect(RESIDENCY_LABELS["required_certifications"], sorted(set(cert_options) | set(ss[f"{prefix}_certs"])),
                        key=f"{prefix}_certs", placeholder="none required", help=RESIDENCY_HELP["required_certifications"])
    return Residency(eu_resident_only=bool(ss[f"{prefix}_eu_resident_only"]),
                     eu_jurisdiction_only=bool(ss[f"{prefix}_eu_jurisdiction_only"]),
                     eu_legal_seat_only=bool(ss[f"{prefix}_eu_legal_seat_only"]),
                     required_certifications=tuple(ss[f"{prefix}_certs"]))
