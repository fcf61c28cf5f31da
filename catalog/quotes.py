"""A provider's quote, recorded in a client workspace (issue #29.6): not catalog data, private to the workspace.

A consultant negotiating with providers has their quotes: a price per GPU-hour for an offer (a catalog offer, or a
new one described by its GPU, GPUs per node, fabric and data-centre country), with its term, upfront share,
capacity, lead time, SLA, support model, minimum commitment, validity and contact. :class:`Quote` validates one at
the boundary (finite, bounded, plain text without NUL); :func:`check_quote` runs the catalog's hardware-truth
rules (:mod:`catalog.rules`) on the offer it describes, so a quote cannot claim what the spec sheet contradicts.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from catalog.models import (
    CountryCode,
    Currency,
    FormFactor,
    InterNode,
    MinCommitment,
    Slug,
    SupportModel,
    TriState,
)
from catalog.rules import Finding, RuleContext, check_offer, check_price, resolve_gpu_model

#: Bounds of what a workspace may hold (issue #29.6: bounded count and sizes).
MAX_QUOTES_PER_WORKSPACE = 200
MAX_QUOTE_JSON_CHARS = 20_000
MAX_NOTE_CHARS = 2000
MAX_PRICE_PER_GPU_HOUR = 1000.0
MAX_CAPACITY_GPUS = 1_000_000
MAX_LEAD_TIME_DAYS = 3650

Text = Annotated[str, Field(min_length=1, max_length=200)]


class Quote(BaseModel):
    """One quote as the consultant typed it (or imported it from a filled-in questionnaire).

    ``term_months`` empty means a price without commitment (on demand); with a term it is a committed price. The
    offer is either ``offer_id`` (a catalog offer; its GPU and fabric come from the catalog unless the quote states
    them) or a new one described by ``gpu_model`` and the optional hardware fields.
    """

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, use_enum_values=True, allow_inf_nan=False)

    provider: Text
    provider_id: Slug | None = None
    offer_id: Slug | None = None
    gpu_model: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    gpus_per_node: Annotated[int, Field(ge=1, le=1024)] | None = None
    form_factor: FormFactor | None = None
    inter_node: InterNode | None = None
    datacenter_country: CountryCode | None = None
    price_per_gpu_hour: Annotated[float, Field(gt=0, le=MAX_PRICE_PER_GPU_HOUR)]
    currency: Currency = Currency.EUR
    term_months: Annotated[int, Field(ge=1, le=120)] | None = None
    upfront_pct: Annotated[float, Field(ge=0, le=100)] | None = None
    capacity_gpus: Annotated[int, Field(ge=1, le=MAX_CAPACITY_GPUS)] | None = None
    lead_time_days: Annotated[int, Field(ge=0, le=MAX_LEAD_TIME_DAYS)] | None = None
    uptime_sla_pct: Annotated[float, Field(ge=0, le=100)] | None = None
    performance_sla: TriState = TriState.UNKNOWN
    support_model: SupportModel = SupportModel.UNKNOWN
    is_dedicated: bool | None = None
    min_commitment: MinCommitment = MinCommitment.UNKNOWN
    quote_date: dt.date
    valid_until: dt.date
    contact: Annotated[str, Field(max_length=200)] | None = None
    note: Annotated[str, Field(max_length=MAX_NOTE_CHARS)] | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_missing(cls, value: object) -> object:
        if isinstance(value, str):
            if "\x00" in value:
                raise ValueError("text cannot contain a NUL character")
            if value.strip() == "":
                return None
        if isinstance(value, float) and value != value:  # NaN: an empty spreadsheet cell
            return None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Quote:
        if self.offer_id is None and self.gpu_model is None:
            raise ValueError("name the catalog offer or the GPU model of the quoted offer")
        if self.valid_until < self.quote_date:
            raise ValueError("valid until is before the quote's date")
        if self.term_months is None and self.upfront_pct is not None:
            raise ValueError("an upfront share needs a commitment term")
        return self

    @property
    def label(self) -> str:
        """How every page and export names it: "Quote from Acme, 2026-11-20"."""
        return f"Quote from {self.provider}, {self.quote_date.isoformat()}"

    def is_expired(self, today: dt.date | None = None) -> bool:
        return self.valid_until < (today or dt.date.today())


class StoredQuote(BaseModel):
    """A quote as the workspace holds it: its number in the store and when it was recorded."""

    model_config = ConfigDict(frozen=True)

    quote_id: int
    created_at: dt.datetime | None = None
    quote: Quote


def check_quote(quote: Quote, ctx: RuleContext, offers: dict[str, dict], key: str = "quote") -> list[Finding]:
    """The hardware-truth findings of the offer a quote describes (errors block the save, warnings are shown).

    ``offers`` are the catalog offers by id (``gpu_model``, ``gpu_spec_id``, ``form_factor``, ``gpus_per_node``,
    ``intra_node``, ``inter_node``, ``memory_gb``, ``memory_type``). A quote on a catalog offer may not name another
    GPU model than that offer; a new offer's GPU model must be a catalog model or alias, and a form factor it names
    must have a spec sheet in the catalog."""
    out: list[Finding] = []
    base = offers.get(quote.offer_id) if quote.offer_id else None
    if quote.offer_id and base is None:
        return [Finding("error", key, "offer_id", f"unknown catalog offer '{quote.offer_id}'")]
    model = quote.gpu_model
    if model is not None:
        resolved = resolve_gpu_model(model, ctx)
        if resolved is None:
            return [Finding("error", key, "gpu_model", f"unknown GPU model '{model}': name a catalog GPU model")]
        model = resolved
    if base is not None and model is not None and model != base["gpu_model"]:
        out.append(Finding("error", key, "gpu_model",
                           f"the catalog offer '{quote.offer_id}' is a {base['gpu_model']}, not a {model}"))
        return out
    model = model or base["gpu_model"]  # type: ignore[index]
    form = quote.form_factor or (base or {}).get("form_factor")
    spec_id = (base or {}).get("gpu_spec_id")
    if quote.form_factor is not None or spec_id is None:
        matches = [s for s, spec in ctx.specs.items() if spec["gpu_model"] == model
                   and (form is None or spec["form_factor"] == form)]
        if form is not None and not matches:
            out.append(Finding("error", key, "form_factor", f"the catalog has no {form} spec sheet of the {model}"))
        spec_id = matches[0] if len(matches) == 1 else (spec_id if quote.form_factor is None else None)
    row = {**(base or {}), "offer_id": key, "gpu_model": model, "gpu_spec_id": spec_id, "form_factor": form,
           "gpus_per_node": quote.gpus_per_node or (base or {}).get("gpus_per_node"),
           "inter_node": quote.inter_node or (base or {}).get("inter_node")}
    out.extend(check_offer(row, ctx))
    price = {"price_id": key, "offer_id": quote.offer_id or key, "amount_per_gpu_hour": quote.price_per_gpu_hour,
             "currency": quote.currency, "price_type": "reserved" if quote.term_months else "on-demand"}
    ctx.offer_gpu_model.setdefault(key, model)
    out.extend(check_price(price, ctx))
    return out
