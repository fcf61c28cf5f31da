"""The PDF's first page: one page a board can read (issue #27.13).

It states the brief; a shortlist of the 3-5 cheapest offers meeting it (one per provider first), or, when none
does, of the nearest alternative (:mod:`ui.brief_scope`), each with its on-demand price and the price's age,
fabric, data-centre country, parent jurisdiction and certifications within their scope; the rent-vs-reserve-vs-own
verdict with its break-evens (in words where there is none, :mod:`ui.tco_words`) and how sure it is (Monte Carlo);
the training job and the serving cost on the top offers (each computed mode, :mod:`ui.workload_export`); the
placement plan; and what we do not know: the facts missing or stale for the shortlisted offers, as the questions
to ask the providers. :func:`board_html` returns the page as HTML for :func:`ui.exports.report_html`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import pandas as pd

from catalog.counts import is_stale_age
from engine.assumptions import is_missing
from engine.tco import evaluate_tco
from ui import brief_scope, offer_scope, tco_words, workload_export
from ui.format import money
from ui.scenario import Scenario

SHORTLIST_MAX = 5
SHORTLIST_MIN = 3


@dataclass
class Shortlist:
    rows: pd.DataFrame  # catalog rows, cheapest first
    meets_brief: bool  # False: the rows are the nearest alternative's
    relaxed: str = ""  # the item relaxed when not meets_brief ("without BSI-C5")
    alternatives: list[brief_scope.Alternative] = field(default_factory=list)


def _text(value: object) -> str | None:
    return None if is_missing(value) or str(value).strip() == "" \
        else str(value).strip()


def _pick(rows: pd.DataFrame) -> pd.DataFrame:
    """Up to SHORTLIST_MAX offers with an on-demand price, cheapest first, the cheapest of each provider first."""
    priced = rows.dropna(subset=["on_demand_eur_per_gpu_hour"]).sort_values(
        ["on_demand_eur_per_gpu_hour", "offer_id"], kind="stable")
    first = priced.drop_duplicates("provider_id")
    rest = priced[~priced.index.isin(first.index)]
    return pd.concat([first.head(SHORTLIST_MAX), rest]).head(SHORTLIST_MAX) if len(first) < SHORTLIST_MIN else \
        first.head(SHORTLIST_MAX)


def shortlist(catalog: pd.DataFrame, scenario: Scenario) -> Shortlist:
    """The offers meeting the brief, or the nearest alternative's (the relaxed item with the most offers)."""
    brief = scenario.brief
    meeting = brief_scope.offers_meeting_brief(catalog, brief)
    if len(meeting):
        return Shortlist(_pick(meeting), True)
    alternatives = brief_scope.nearest_alternatives(catalog, brief)
    best = max(alternatives, key=lambda a: a.n_offers, default=None)
    if best is None or best.n_offers == 0:
        return Shortlist(catalog.iloc[0:0], False, "", alternatives)
    relaxed = dict(brief_scope.relaxations(brief))[best.relaxed]
    return Shortlist(_pick(brief_scope.offers_meeting_brief(catalog, relaxed)), False, best.relaxed, alternatives)


def _certs(row: pd.Series) -> str:
    in_scope = _text(row.get("certifications_in_scope"))
    held = _text(row.get("certifications"))
    if in_scope:
        return in_scope.replace(";", ", ") + " (scope covers GPU compute here)"
    return f"none in scope (holds {held.replace(';', ', ')}; scope not stated)" if held else "none on record"


def shortlist_frame(short: Shortlist, scenario: Scenario) -> pd.DataFrame:
    d = scenario.display
    rows = []
    for _, r in short.rows.iterrows():
        age = offer_scope.price_age_days(r)
        rows.append({
            "Provider": r["provider_name"], "GPU": f"{r['gpu_model']} × {offer_scope.gpus_text(r.get('gpus_per_node'))}",
            f"On demand ({d.currency}/GPU-h)": money(r["on_demand_eur_per_gpu_hour"], d),
            "Price age": "not dated" if age is None else f"{age} d" + (" ⚠ stale" if is_stale_age(age) else ""),
            "Fabric": _text(r.get("inter_node")) or "not stated",
            "DC country": _text(r.get("datacenter_country")) or "not stated",
            "Parent": _text(r.get("parent_jurisdiction")) or "not stated",
            "Certifications": _certs(r)})
    return pd.DataFrame(rows)


def unknowns(short: Shortlist, scenario: Scenario, limit: int = 12) -> list[str]:
    """Questions to ask the providers: facts missing or stale for the shortlisted offers."""
    out: list[str] = []
    brief = scenario.brief
    for _, r in short.rows.iterrows():
        who = f"{r['provider_name']} ({r['gpu_model']}, {_text(r.get('region')) or 'region not stated'})"
        if not _text(r.get("inter_node")):
            out.append(f"{who}: which inter-node fabric (InfiniBand, RoCE, Ethernet) and how many Gb/s per GPU?")
        if not _text(r.get("datacenter_country")):
            out.append(f"{who}: in which country is the data centre?")
        age = offer_scope.price_age_days(r)
        if age is None or is_stale_age(age):
            when = "undated" if age is None else f"retrieved {age} days ago"
            out.append(f"{who}: is the on-demand price ({when}) still valid?")
        if is_missing(r.get("reserved_1y_eur_per_gpu_hour")) and is_missing(r.get("reserved_3y_eur_per_gpu_hour")):
            out.append(f"{who}: what does a 1-year or 3-year commitment for {brief.cluster_gpus} GPUs cost?")
        if not _text(r.get("legal_seat_country")):
            out.append(f"{r['provider_name']}: which legal entity contracts, and where is its registered office?")
        in_scope = set((_text(r.get("certifications_in_scope")) or "").split(";"))
        for cert in brief.required_certifications:
            if cert not in in_scope:
                out.append(f"{r['provider_name']}: does a {cert} certificate cover GPU compute in "
                           f"{_text(r.get('datacenter_country')) or 'this data centre'}? (none on record)")
    unique = list(dict.fromkeys(out))
    more = len(unique) - limit
    return unique[:limit] + ([f"… and {more} more of the same kinds for the other shortlisted offers."] if more > 0 else [])


def _tco_lines(scenario: Scenario) -> list[str]:
    from ui.tco_view import cached_monte_carlo, ranges_frame, verdict

    inputs = scenario.tco.inputs
    result = evaluate_tco(inputs)
    v = verdict(result, scenario.display, scenario.tco.reserved_origin)
    lines = [f"**{v.headline}**", tco_words.break_even_note(result)]
    try:
        mc, _ = cached_monte_carlo(inputs, tuple(ranges_frame(inputs).itertuples(index=False, name=None)), 10_000)
        lines.append(f"How sure: owning beats renting on demand in {mc.probability_owned_beats_on_demand:.0%} of "
                     f"{mc.n_draws:,} Monte Carlo draws of the uncertain inputs.")
    except ValueError:
        pass
    if "reserved" not in result.available_options:
        lines.append("Reserved is not compared: the chosen offer states no committed price and no quote was typed.")
    return lines


def _workload_lines(scenario: Scenario, top: int = 3) -> list[str]:
    d = scenario.display
    lines = []
    for mode, (section, priced) in workload_export.priced_modes(scenario).items():
        ranked = priced.ranked.head(top)
        if ranked.empty:
            lines.append(f"**{'Training job' if mode == 'training' else 'Serving'}:** no offer in scope can be priced.")
            continue
        if mode == "training":
            job = section.training
            each = "; ".join(f"{r['label']}: {money(r['cost_eur'], d, 0)}, {r['time_hours'] / 24:.1f} days"
                             for _, r in ranked.iterrows())
            lines.append(f"**Training job** ({job.n_params / 1e9:g}B model, {job.training_tokens / 1e9:g}B tokens, "
                         f"{job.n_gpus} GPUs): {each}.")
        else:
            from ui.workload_view import load_text

            each = "; ".join(f"{r['label']}: {money(r['cost_eur'], d)} at {load_text(section)}, "
                             f"{money(r['cost_eur_per_million_tokens_at_volume'], d)} at your volume"
                             for _, r in ranked.iterrows())
            lines.append(f"**Serving** ({section.tokens_per_day / 1e6:,.0f}M tokens a day, cost per million tokens): "
                         f"{each}.")
    return lines


def _placement_line(scenario: Scenario, catalog: pd.DataFrame) -> str:
    from ui.placement_view import infeasible_message, savings, solve

    d = scenario.display
    solved = solve(scenario.placement, catalog, d.usd_per_eur)
    if solved.plan is None:
        return "**Placement:** " + infeasible_message(solved.problems, solved.too_large, solved, scenario.placement,
                                                      catalog).split("\n")[0]
    plan = solved.plan
    od, od_pct = savings(plan, solved.all_on_demand)
    saved = f", {money(od, d, 0)} ({od_pct:.0%}) less than all on demand" if od > 0.5 else ""
    return (f"**Placement:** commit {plan.total_committed_gpus} GPUs, burst the rest: "
            f"{money(plan.total_cost_eur_per_month, d, 0)} a month for {len(solved.workloads)} workload"
            f"{'s' * (len(solved.workloads) != 1)}{saved}.")


def board_html(scenario: Scenario, catalog: pd.DataFrame, md, table) -> str:
    """The one-page summary as HTML; ``md`` renders page Markdown and ``table`` a frame (ui.exports helpers)."""
    from ui.brief import summary

    short = shortlist(catalog, scenario)
    parts = ["<div class='board'><h2>One-page summary</h2>", f"<p><b>The brief:</b> {md(summary(scenario.brief))}</p>"]
    if short.meets_brief:
        n = int(brief_scope.meets_brief(catalog, scenario.brief).sum())
        parts.append(f"<h3>Shortlist: the cheapest of the {n} offers meeting the brief</h3>")
    else:
        lines = brief_scope.alternatives_markdown(short.alternatives, markdown=False).splitlines()
        parts.append("<h3>Shortlist: no offer meets the whole brief</h3><p>Nearest alternatives, one item relaxed at a "
                     "time:</p><ul>" + "".join(f"<li>{html.escape(x.removeprefix('- '))}</li>" for x in lines) + "</ul>")
        if short.relaxed:
            parts.append(f"<p>Nearest alternative, {html.escape(short.relaxed)}:</p>")
    if len(short.rows):
        parts.append(table(shortlist_frame(short, scenario)))
    parts.append("<h3>Rent, reserve or own</h3>" + "".join(f"<p>{md(line)}</p>" for line in _tco_lines(scenario)))
    parts.append("<h3>Workload and plan</h3>" + "".join(f"<p>{md(line)}</p>" for line in _workload_lines(scenario)))
    parts.append(f"<p>{md(_placement_line(scenario, catalog))}</p>")
    questions = unknowns(short, scenario)
    parts.append("<h3>What we do not know (questions to ask the providers)</h3>"
                 + ("<ul>" + "".join(f"<li>{html.escape(q)}</li>" for q in questions) + "</ul>" if questions else
                    "<p>Every fact the shortlist rests on is stated and current.</p>"))
    parts.append("</div>")
    return "".join(parts)

