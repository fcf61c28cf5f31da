"""Command line: ``python -m catalog.cli build`` builds the catalog from the seed if it is missing."""

from __future__ import annotations

import argparse
import sys

from catalog.errors import CatalogError
from catalog.store import CATALOG_ENV, build_catalog, resolve_catalog_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m catalog.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help=f"build the catalog from the seed if missing (path: --path, ${CATALOG_ENV} or data/catalog.duckdb)")
    b.add_argument("--path", default=None)
    r = sub.add_parser("report", help="data report: coverage per field and provider, price ages, stale rows")
    r.add_argument("--path", default=None)
    f = sub.add_parser("refresh", help="preview (and with --apply, write) a price refresh from a SkyPilot vms.csv, "
                                       "a gpuhunt CSV, or live from gpuhunt (--source gpuhunt --providers aws,gcp)")
    f.add_argument("--path", default=None)
    f.add_argument("--source", required=True, help="a vms.csv / gpuhunt CSV (.gz too), or 'gpuhunt' to fetch live")
    f.add_argument("--provider", default=None, help="catalog provider id of the file (e.g. nebius)")
    f.add_argument("--providers", default="", help="with --source gpuhunt: gpuhunt provider names, comma-separated")
    f.add_argument("--source-url", default=None, help="where the file comes from (required for a file)")
    f.add_argument("--as-of", default=None, help="date of the file, YYYY-MM-DD (default today for gpuhunt)")
    f.add_argument("--skip-unknown-gpus", action="store_true", help="skip rows with unknown GPUs (listed)")
    f.add_argument("--apply", action="store_true", help="write the previewed change set (one logged change set)")
    f.add_argument("--message", default=None, help="history message (default: provider, file and date)")
    args = parser.parse_args(argv)
    path = resolve_catalog_path(args.path)
    if args.command == "report":
        return report(path)
    if args.command == "refresh":
        from catalog.refresh_cli import run_refresh

        return run_refresh(path, args)
    try:
        if path.exists():
            print(f"catalog {path} exists; left untouched (the app checks it when it opens it)")
        else:
            build_catalog(path)
            print(f"built {path} from the embedded seed")
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def report(path) -> int:
    """Print what a data editor should refresh next. Opens the file read-only (stop the app first)."""
    import pandas as pd

    from catalog.counts import offer_counts, stale_rows_text
    from catalog.store import CatalogStore

    pd.set_option("display.width", 160)
    pd.set_option("display.max_rows", 400)
    pd.set_option("display.max_colwidth", 70)
    try:
        with CatalogStore(path, read_only=True) as store:
            s = store.summary()
            counts = offer_counts(store.list_offers(None, usd_per_eur=1.0))
            print(f"Catalog {path}: {s['providers']} providers on record, {counts.text()}; {s['current_prices']} "
                  "current prices")
            print("\n== Where the differentiating facts stand ==")
            print(store.headline_coverage().to_string(index=False))
            print("\n== Offers missing each field ==")
            print(store.offer_field_coverage().to_string(index=False, float_format=lambda x: f"{x:.0f}%"))
            print("\n== Per provider ==")
            print(store.provider_coverage().to_string(index=False))
            print("\n== Age of current prices ==")
            print(store.price_age_histogram().to_string(index=False))
            _sovereignty_report(store)
            stale = store.stale_rows()
            print("\n== " + stale_rows_text(stale, counts).replace("**", "") + " Oldest first: ==")
            print(stale[["table_name", "row_key", "as_of", "source_url"]].to_string(index=False))
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _sovereignty_report(store, today=None) -> dict[str, object]:
    """The EU-sovereignty targets of issue #18, measured on this catalog; prints them and returns the numbers."""
    import datetime as dt

    import pandas as pd

    from catalog import coverage
    from catalog.models import EU_EEA_COUNTRIES
    from catalog.store import OfferFilter

    today = today or dt.date.today()
    offers_table = store.table("offers")
    providers = store.table("providers")
    ctx = coverage.rule_context(store.table("gpu_specs"), store.table("gpu_models"), store.table("gpu_aliases"),
                                offers_table, EU_EEA_COUNTRIES)
    findings = coverage.rule_findings(offers_table, providers, ctx, today)
    errors = [f for f in findings if f.level == "error"]
    listed = store.list_offers(None, usd_per_eur=1.0, today=today)
    summary = coverage.shortlist_summary(listed, today)
    scoped = coverage.certification_scope_providers(store.certification_scopes())
    unmarked = coverage.verified_without_recheck_mark({
        "offers": offers_table, "providers": providers, "provider_facts": store.provider_facts(),
        "prices": store.list_prices(), "certification_scopes": store.certification_scopes(),
    }, today)
    sovereign = store.list_offers(OfferFilter(**coverage.SOVEREIGN_FILTER), usd_per_eur=1.0, today=today)
    rows = [
        ("rows failing the hardware-truth and ownership rules", len(errors), "0", len(errors) == 0),
        ("EU-parent providers with an H100/H200/B200 offer stating fabric, data-centre country and a price "
         f"observed within {coverage.PRICE_FRESH_DAYS} days", len(summary["providers"]), ">= 8",
         len(summary["providers"]) >= 8),
        ("providers with certifications whose scope is on record", len(scoped), ">= 15", len(scoped) >= 15),
        ("verified rows older than 90 days without the 'not re-checked' mark", len(unmarked), "0", unmarked.empty),
        ("Providers filter 'H100 SXM + InfiniBand + EU data centre + EU parent': offers", len(sovereign), "> 0",
         len(sovereign) > 0),
    ]
    print("\n== EU sovereignty targets (issue #18) ==")
    print(pd.DataFrame(rows, columns=["target", "measured", "goal", "met"]).to_string(index=False))
    print("shortlist providers: " + (", ".join(summary["providers"]) or "none"))
    print(f"EU-parent H100/H200 SXM offers: {summary['eu_parent_h100_h200_sxm']}, of which "
          f"{summary['eu_parent_h100_h200_sxm_with_fabric_and_price']} state a fabric, a country and a current price; "
          f"{summary['eu_parent_h100_h200_sxm_infiniband']} with InfiniBand")
    print("providers with scoped certifications: " + (", ".join(scoped) or "none"))
    _data_targets_report(store, listed, offers_table, today)
    if findings:
        print(f"\n== {len(errors)} rule errors, {len(findings) - len(errors)} warnings ==")
        print(pd.DataFrame([f.__dict__ for f in findings]).to_string(index=False))
    if not unmarked.empty:
        print("\n== verified rows older than 90 days without the 'not re-checked' mark ==")
        print(unmarked.to_string(index=False))
    return {"rule_errors": len(errors), "shortlist_providers": summary["providers"], "scoped_providers": scoped,
            "unmarked_verified": len(unmarked), "sovereign_filter_offers": len(sovereign)}


def _data_targets_report(store, listed, offers_table, today) -> dict:
    """Issue #30's targets with today's figures (catalog.coverage.data_targets); prints and returns them."""
    import pandas as pd

    from catalog import coverage

    t = coverage.data_targets(offers_table, store.list_prices(), listed, today)
    goal = coverage.DATA_TARGETS
    rows = [
        ("EU-parent providers with a current H100/H200/B200/B300 offer stating fabric, data-centre country and a "
         "price observed within 12 months", len(t["shortlist_providers"]), f">= {goal['shortlist_providers']}",
         len(t["shortlist_providers"]) >= goal["shortlist_providers"]),
        ("offers with a data-centre country (%)", f"{t['offers_with_country_pct']} ({t['offers_with_country']} of "
         f"{t['offers']})", f">= {goal['offers_with_country_pct']:g}",
         t["offers_with_country_pct"] >= goal["offers_with_country_pct"]),
        ("current prices observed within 180 days (%)", f"{t['prices_within_180d_pct']} ({t['prices_within_180d']} of "
         f"{t['prices']})", f">= {goal['prices_within_180d_pct']:g}",
         t["prices_within_180d_pct"] >= goal["prices_within_180d_pct"]),
        ("providers with offers", t["providers_with_offers"], f">= {goal['providers_with_offers']}",
         t["providers_with_offers"] >= goal["providers_with_offers"]),
        ("collector prices whose notes record a second source or a conflict",
         f"{t['collector_prices_checked']} of {t['collector_prices']}", "every one with a second source", None),
    ]
    print("\n== Data targets (issue #30; where a target is not met, SOURCES.md says where was searched) ==")
    print(pd.DataFrame(rows, columns=["target", "measured", "goal", "met"]).to_string(index=False))
    print("shortlist providers: " + (", ".join(t["shortlist_providers"]) or "none"))
    print("\n== Share of current prices from the provider's own material (verified), per provider ==")
    print(t["own_material_by_provider"].to_string(index=False))
    return t


if __name__ == "__main__":
    sys.exit(main())
