"""AppTest: every page runs on the seed catalog; the Providers page filters, empties and converts currency."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from catalog.seeding import load_seed
from ui.scenario import DisplaySettings, Scenario

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = ["app_pages/home.py", "app_pages/providers.py", "app_pages/tco.py", "app_pages/workload.py",
         "app_pages/scoring.py", "app_pages/placement.py", "app_pages/workshop.py", "app_pages/editor.py"]


def run_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_without_exception(catalog_path, page):
    at = run_page(page)
    assert not at.exception
    assert not at.error


def test_home_shows_catalog_size_and_staleness(catalog_path):
    at = run_page("app_pages/home.py")
    metrics = {m.label: m.value for m in at.metric}
    seed = load_seed()
    assert metrics["Offers"] == str(len(seed.offers))
    assert int(metrics["Providers with offers"]) == len({o.provider_id for o in seed.offers}) < len(seed.providers)
    assert int(metrics["Stale prices (> 180 d)"]) > 0


def _offer_count(at: AppTest) -> int:
    line = next(m.value for m in at.markdown if "** from" in m.value)
    return int(line.split("**")[1].split()[0])


def test_first_visit_follows_the_client_brief_and_clear_shows_everything(catalog_path):
    at = run_page("app_pages/providers.py")
    briefed = at.dataframe[0].value
    assert set(briefed["gpu_model"]) <= {"H100", "H100 NVL", "H200"} and briefed["is_eu_datacenter"].all()
    at.button(key="prov_clear").click().run()
    assert _offer_count(at) == len(load_seed().offers) > len(briefed)
    banner = " ".join(c.value for c in at.caption if "Client brief" in c.value)
    assert "This page differs:** GPU models any (brief: H100, H100 NVL, H200)" in banner


def test_a_filter_changes_the_rows(catalog_path):
    at = run_page("app_pages/providers.py")
    at.button(key="prov_clear").click().run()
    everything = _offer_count(at)
    at.multiselect(key="prov_gpu").set_value(["H100"]).run()
    h100 = _offer_count(at)
    assert 0 < h100 < everything
    assert set(at.dataframe[0].value["gpu_model"]) == {"H100"}
    at.toggle(key="prov_eu").set_value(True).run()
    assert 0 < _offer_count(at) < h100


def test_empty_state_is_explained_and_clearable(catalog_path):
    at = run_page("app_pages/providers.py")
    at.multiselect(key="prov_gpu").set_value(["L4"])
    at.toggle(key="prov_eu").set_value(False)
    at.multiselect(key="prov_inter").set_value(["InfiniBand-NDR"]).run()
    assert any("No offer matches these filters" in i.value for i in at.info)
    at.button(key="prov_clear_empty").click().run()
    assert _offer_count(at) == len(load_seed().offers)


def test_usd_display_converts_eur_prices(catalog_path):
    # AppTest does not expose sidebar widgets after switch_page (the browser test clicks the real radio);
    # here the shared scenario is set as the sidebar's on_change callback would set it.
    at = run_page("app_pages/providers.py")
    at.button(key="prov_clear").click().run()
    at.session_state["scenario"] = Scenario(display=DisplaySettings(currency="EUR", usd_per_eur=1.2))
    at.run()
    eur = at.dataframe[0].value
    at.session_state["scenario"] = Scenario(display=DisplaySettings(currency="USD", usd_per_eur=1.2))
    at.run()
    usd = at.dataframe[0].value
    assert list(eur["provider_name"]) == list(usd["provider_name"])  # same rows, same order
    col = "on_demand_eur_per_gpu_hour"
    assert usd[col].notna().sum() > 100
    assert ((usd[col] - eur[col] * 1.2).abs() < 1e-9).sum() == usd[col].notna().sum()
    assert any("prices in USD" in m.value for m in at.markdown)


def test_corrupt_catalog_shows_a_message_not_a_traceback(tmp_path, monkeypatch):
    bad = tmp_path / "broken.duckdb"
    bad.write_bytes(b"\0" * 4096)
    monkeypatch.setenv("GPU_ADVISOR_CATALOG", str(bad))
    at = run_page("app_pages/providers.py")
    assert not at.exception
    assert any("cannot be opened" in e.value and "move it aside" in e.value for e in at.error)
    assert bad.read_bytes() == b"\0" * 4096


def test_the_filtered_offers_download_as_csv(catalog_path):
    at = run_page("app_pages/providers.py")
    at.multiselect(key="prov_gpu").set_value(["H100"]).run()
    assert not at.exception
    assert _offer_count(at) < len(load_seed().offers)
    assert len(at.get("download_button")) == 1  # CSV of the filtered rows; Excel only on request
    at.button(key="prov_xlsx").click().run()
    assert not at.exception
    assert len(at.get("download_button")) == 2


def test_sovereignty_tab_shows_each_sourced_fact_and_marks_the_rest_not_found(catalog_path):
    at = run_page("app_pages/providers.py")
    at.session_state["prov_tab"] = "Legal seat & certifications"
    at.run()
    assert not at.exception
    seed = load_seed()
    frame = next(df.value for df in at.dataframe if "legal_seat_address" in df.value.columns)
    assert len(frame) == len(seed.providers)
    facts = {(f.provider_id, str(f.field)): f for f in seed.provider_facts}
    names = {p.provider_id: p.name for p in seed.providers}
    for (provider_id, field), fact in facts.items():
        if field in ("legal_seat_country", "legal_entity", "legal_seat_address"):
            row = frame[frame["name"] == names[provider_id]].iloc[0]
            assert row[field] == fact.value
    # A provider with no seat fact says "not found" instead of a guess.
    unknown = [p for p in seed.providers if (p.provider_id, "legal_seat_country") not in facts]
    assert unknown
    row = frame[frame["name"] == unknown[0].name].iloc[0]
    assert row["legal_seat_country"] == "not found"
    summary = next(m.value for m in at.markdown if "contracting entity" in m.value)
    assert f"legal seat of **{len(seed.providers) - len(unknown)}**" in summary


def test_home_shows_the_eu_sovereign_shortlist_coverage(catalog_path):
    # Issue #18: Home says how many EU-parent H100/H200 SXM offers state fabric, data centre and a current price.
    import datetime as dt

    from catalog.coverage import shortlist_summary
    from catalog.store import CatalogStore

    with CatalogStore(catalog_path) as store:
        expected = shortlist_summary(store.list_offers(None, usd_per_eur=1.1, today=dt.date.today()), dt.date.today())
    at = run_page("app_pages/home.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["EU-parent H100/H200 SXM offers"] == str(expected["eu_parent_h100_h200_sxm"]) != "0"
    assert metrics["… stating fabric, data centre and a current price"] == str(
        expected["eu_parent_h100_h200_sxm_with_fabric_and_price"])
    assert metrics["… of these on InfiniBand"] == str(expected["eu_parent_h100_h200_sxm_infiniband"])
    assert any("Nebius" in c.value for c in at.caption)


def test_the_eu_sovereign_filter_finds_the_offers_that_exist(catalog_path):
    # Issue #18: "H100 SXM + InfiniBand + EU data centre + EU parent" returned nothing.
    at = run_page("app_pages/providers.py")
    at.multiselect(key="prov_gpu").set_value(["H100"])
    at.multiselect(key="prov_form").set_value(["SXM"])
    at.multiselect(key="prov_inter").set_value(["InfiniBand-NDR", "InfiniBand-HDR"])
    at.multiselect(key="prov_jur").set_value(["EU"])
    at.toggle(key="prov_eu").set_value(True).run()
    assert _offer_count(at) >= 1
    shown = at.dataframe[0].value
    assert set(shown["gpu_model"]) == {"H100"}
def test_providers_flags_price_outliers_and_never_shows_none_or_nan(catalog_path):
    """Issue 14: a flagged outlier carries its reason on the Providers page; missing values read 'not stated'."""
    from tests.app.synthetic import add_h100_price_outlier

    add_h100_price_outlier(catalog_path)  # at least one flagged row, whatever the seed holds
    at = run_page("app_pages/providers.py")
    table = next(d for d in at.dataframe if "flags" in d.value.columns)
    frame = table.value
    assert table.proto.placeholder == "not stated"  # empty numeric cells, e.g. GPUs per node
    flagged = frame[frame["flags"].str.contains("price outlier")]
    assert len(flagged) > 0
    assert flagged["price_outlier_reason"].str.startswith("price outlier: this on-demand price is").all()
    assert (frame.loc[~frame.index.isin(flagged.index), "price_outlier_reason"] == "—").all()
    assert any(f"{len(flagged)} with a flagged price outlier" in m.value for m in at.markdown)
    # the comparison shows text: a value no source states reads "not stated", never None / nan / <NA>
    at.session_state["prov_tab"] = "Compare offers"
    at.run()
    compare = next(d.value for d in at.dataframe if "Provider" not in d.value.columns and d.value.shape[1] == 2)
    cells = {str(v) for v in compare.to_numpy().ravel()}
    assert not cells & {"None", "nan", "<NA>", "NaN", "NaT"}
    assert "not stated" in cells
    # the comparison picker tells node sizes apart
    options = list(at.multiselect(key="prov_compare").options)
    assert len(options) == len(set(options))


def test_home_coverage_chart_names_fields_in_words_not_column_names():
    import pandas as pd

    from ui.charts import coverage

    cov = pd.DataFrame({"field": ["inter node bandwidth", "datacenter country", "reserved price", "intra node"],
                        "offers_missing": [1, 2, 3, 4], "missing_pct": [10.0, 20.0, 30.0, 40.0]})
    names = list(coverage(cov).data[0].y)
    assert names == ["Bandwidth between nodes", "Data-centre country", "Committed (reserved) price",
                     "Link inside the node"]


def test_providers_runs_only_the_open_tab_and_keeps_the_comparison_picks_while_another_is_open(catalog_path):
    """A filter change redraws the offers, not the other tabs' tables and charts (lazy tabs); the comparison's
    picks are still there after a visit to another tab."""
    def charts(at) -> set[str]:
        return {c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")}

    at = run_page("app_pages/providers.py")
    assert charts(at) == {"prov_landscape"}  # the offers tab only: no comparison, certification or spec chart
    at.toggle(key="prov_eu").set_value(False).run()  # a filter change: still only the offers tab runs
    assert charts(at) == {"prov_landscape"}
    at.session_state["prov_tab"] = "Legal seat & certifications"
    at.run()
    assert charts(at) == {"prov_cert_matrix"}
    assert any("a source names the contracting entity" in m.value for m in at.markdown)
    at.session_state["prov_tab"] = "Compare offers"
    at.run()
    assert charts(at) == {"prov_cmp_price", "prov_cmp_caps"}
    default = at.multiselect(key="prov_compare").value
    assert len(default) == 2
    # The suggested pair has current, non-outlying prices where the filters leave two such offers.
    labels = [o for o in at.multiselect(key="prov_compare").options]
    shown = at.multiselect(key="prov_compare").values
    assert any("stale" not in o and "outlier" not in o for o in labels)
    assert all("stale" not in o and "outlier" not in o for o in shown), shown
    mine = [default[1]]  # not the default: one offer ("pick at least two" then asks for another)
    at.multiselect(key="prov_compare").set_value(mine).run()
    assert at.multiselect(key="prov_compare").value == mine
    at.session_state["prov_tab"] = "GPU specs"
    at.run()
    assert charts(at) == {"prov_spec_scatter"}
    at.session_state["prov_tab"] = "Compare offers"
    at.run()
    assert at.multiselect(key="prov_compare").value == mine  # not back to the default two


def test_the_suggested_comparison_prefers_current_unflagged_prices_and_falls_back_in_table_order():
    import datetime as dt

    import pandas as pd

    from ui.providers_view import suggested_comparison

    now = dt.date.today().isoformat()  # the stale rule of every page reads the price's retrieval date (#27.17)

    frame = pd.DataFrame({"offer_id": ["stale", "outlier", "sound1", "both", "sound2"],
                          "price_retrieved_at": ["2020-01-01", now, now, "2020-01-01", now],
                          "price_outlier": [False, True, False, True, False]})
    assert suggested_comparison(frame) == ["sound1", "sound2"]
    assert suggested_comparison(frame.iloc[:3]) == ["sound1", "stale"]  # one sound offer, then table order
    assert suggested_comparison(frame.iloc[:2]) == ["stale", "outlier"]  # none sound: the first two
    assert suggested_comparison(frame.iloc[:1]) is None


def test_providers_shows_each_offers_hardware_dedicated_shared_or_not_stated(catalog_path):
    """#29 item 2: the offers table has a Hardware column: OCI bare-metal GPU shapes (H100) read 'dedicated (bare
    metal)', Gcore's Virtual GPU offers 'virtualised / shared', offers no source describes 'not stated'; the comparison names it."""
    at = run_page("app_pages/providers.py")
    at.button(key="prov_clear").click().run()
    table = at.dataframe[0]
    frame = table.value
    assert "hardware_tenancy" in frame.columns
    by = frame.groupby("provider_name")["hardware_tenancy"]
    oracle = frame[frame["provider_name"] == "Oracle Cloud Infrastructure"].set_index("gpu_model")["hardware_tenancy"]
    assert oracle["H100"] == "dedicated (bare metal)" and oracle["B200"] == "not stated"
    assert set(by.get_group("Gcore")) == {"virtualised / shared"} and set(by.get_group("Hetzner")) >= {"dedicated (bare metal)"}
    assert (frame["hardware_tenancy"] == "not stated").sum() > len(frame) / 2
    assert set(frame["hardware_tenancy"]) == {"dedicated (bare metal)", "virtualised / shared", "not stated"}
    assert json.loads(table.proto.columns)["hardware_tenancy"]["label"] == "Hardware"  # named, not the raw column
