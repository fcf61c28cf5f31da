"""`make load`: which rows the editor changes, and to what (stable keys, not grid positions)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bench.load.config import FILTER_EUR, PlannedEdit
from catalog.store import CatalogStore, OfferFilter
from engine.money import DEFAULT_USD_PER_EUR


def _grid_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """The Prices grid as the Editor page shows it: current rows in price-id order, the page's columns."""
    from ui.editor_view import editable_frame

    return editable_frame(rows.sort_values("price_id", kind="stable"), "prices")


def providers_page_default_filter() -> OfferFilter:
    """The filter the Providers page starts with (and returns to on "Clear filters"): the default client
    brief's (ui.brief). The final check's offers must pass it."""
    from ui.brief import provider_filter_defaults
    from ui.scenario import ClientBrief

    defaults = provider_filter_defaults(ClientBrief())
    # the legal-seat and certification filters (#27.3) narrow nothing while the default brief leaves them off
    off = {k for k in ("prov_seat", "prov_certs") if not defaults.get(k)}
    unknown = set(defaults) - {"prov_gpu", "prov_eu", "prov_jur"} - off
    if unknown:
        raise SystemExit(f"the client brief sets Providers filters the load test does not know: {sorted(unknown)} "
                         "(bench/load/plan.py, providers_page_default_filter)")
    return OfferFilter(gpu_models=tuple(defaults.get("prov_gpu") or ()) or None,
                       eu_datacenter_only=bool(defaults.get("prov_eu")),
                       jurisdictions=tuple(defaults.get("prov_jur") or ()) or None)


@dataclass(frozen=True)
class PricesSnapshot:
    """What the plan needs from the catalog, read once: the current price rows (the Editor's Prices grid),
    every price id ever used (closed rows keep theirs), each offer's provider, and the offers the Providers
    page lists under its default filter (the final check looks there)."""

    current: pd.DataFrame
    every_id: frozenset[str]
    provider_of: dict[str, str]
    on_providers_page: frozenset[str]

    @classmethod
    def read(cls, catalog: Path) -> PricesSnapshot:
        with CatalogStore(catalog, read_only=True) as store:
            current = store.editable_rows("prices")
            every_id = frozenset(store.editable_rows("prices", current_only=False)["price_id"])
            offers = store.table("offers")
            before = store.list_offers(OfferFilter(max_price_eur_per_gpu_hour=FILTER_EUR),
                                       usd_per_eur=DEFAULT_USD_PER_EUR)
            shown = store.list_offers(providers_page_default_filter(), usd_per_eur=DEFAULT_USD_PER_EUR)
        if len(before):
            raise SystemExit(f"the seed has offers at or below {FILTER_EUR} EUR/GPU-h: the final check would be "
                             "ambiguous")
        return cls(current, every_id, dict(zip(offers["offer_id"], offers["provider_id"], strict=True)),
                   frozenset(shown["offer_id"]))


def plan_edits(catalog: Path | PricesSnapshot, n: int, *, today: dt.date | None = None) -> tuple[list[PlannedEdit], int]:
    """Which Prices rows the editor changes, to what, and where the grid shows each row when its save starts.

    The rows are chosen by a stable key, not by their place in the grid: the current, public on-demand prices
    of offers the Providers page lists by default (the final check looks there), in price-id order, one per
    offer, first ``n`` offers (seed ids do not contain the run's date). Each gets
    one new amount below every seed price. A save closes the old row and adds a new one whose id contains the
    save's date (``offer:type:term:today``), so rows can move in the id-sorted grid; each edit's ``grid_row``
    is predicted by replaying the earlier saves through the page's own :func:`ui.editor_view.changes_from_editor`
    (the browser still checks the row's id before typing, and walks to it if the prediction is off).

    ``today`` is the save date (default: the real date; tests freeze it). Returns the plan and how many
    providers the edited offers belong to (the final check's expected headline).
    """
    from ui.editor_view import changes_from_editor

    today = today or dt.date.today()
    if not 1 <= n <= 9:
        raise SystemExit("--edits must be between 1 and 9")
    snap = catalog if isinstance(catalog, PricesSnapshot) else PricesSnapshot.read(catalog)
    rows, taken = snap.current, set(snap.every_id)
    valid_from = pd.to_datetime(rows["valid_from"]).dt.date
    candidates = rows[(rows["price_type"] == "on-demand") & ~rows["is_private"].astype(bool)
                      & (valid_from <= today) & rows["offer_id"].isin(snap.on_providers_page)]
    chosen = candidates.sort_values("price_id", kind="stable").drop_duplicates("offer_id").head(n)
    if len(chosen) < n:
        raise SystemExit(f"the catalog has {len(chosen)} offers with a current public on-demand price that the "
                         f"Providers page lists by default: fewer than the {n} edits asked for")
    grid = _grid_frame(rows)
    plan = []
    for i, row in enumerate(chosen.itertuples(index=False)):
        position = int(np.flatnonzero(grid["price_id"].to_numpy() == row.price_id)[0])
        edit = PlannedEdit(
            row.price_id, row.offer_id, float(row.amount_per_gpu_hour),
            amount=round(0.11 + 0.02 * i, 2),  # 0.11 .. 0.27 in the row's currency: at most 0.27 EUR <= FILTER_EUR
            grid_row=position, old_source_url=str(row.source_url), old_retrieved_at=str(row.retrieved_at),
            source_url=f"https://example.com/load-test/save-{i + 1}", retrieved_at=today.isoformat())
        try:
            changes = changes_from_editor("prices", grid, {"edited_rows": {position: edit.edited_row()}},
                                          today=today, taken_ids=taken)
        except ValueError as exc:
            raise SystemExit(f"the Editor page refuses the planned edit of {row.price_id}: {exc}") from exc
        inserted = [c for c in changes if c.action == "insert"]
        if len(changes) != 2 or len(inserted) != 1:
            raise SystemExit(f"the Editor page no longer turns a new amount into close + insert: {changes}")
        edit = dataclasses.replace(edit, new_price_id=str(inserted[0].key))
        plan.append(edit)
        # After the save the grid shows the new row instead of the old one, sorted by id again.
        taken.add(edit.new_price_id)
        grid = grid.copy()
        grid.loc[position, "price_id"] = edit.new_price_id
        for name, value in edit.edited_row().items():
            grid.loc[position, name] = value
        grid = grid.sort_values("price_id", kind="stable").reset_index(drop=True)
    return plan, len({snap.provider_of[e.offer_id] for e in plan})


def column_offset(column: str) -> int:
    """How many columns right of ``price_id`` (the first, pinned column) the Prices grid shows ``column``: the
    Editor page shows the model's fields in order (ui.editor_view.editable_frame)."""
    from catalog.models import TABLE_MODELS

    fields = list(TABLE_MODELS["prices"].model_fields)
    return fields.index(column) - fields.index("price_id")
