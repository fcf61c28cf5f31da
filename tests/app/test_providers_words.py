"""Issue #27.5-7 on Providers & offers: the comparison names fields through the label registry and shows values
in their display formats; the offers are sorted by the price the table shows (and say so); the Provider filter
shows names, not internal ids."""

from __future__ import annotations

import re

import numpy as np

from tests.app.conftest import open_page

RAW = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def test_the_provider_filter_shows_names_not_ids(catalog_path, store):
    at = open_page("app_pages/providers.py")
    options = list(at.multiselect(key="prov_provider").options)
    ids = set(store.filter_options()["providers"])
    assert len(options) == len(ids)
    assert "aws" not in options and "open-telekom-cloud" not in options, options
    providers = store.table("providers")
    names = dict(zip(providers["provider_id"], providers["name"], strict=True))
    assert {names["aws"], names["open-telekom-cloud"]} <= set(options)  # the names the tables show
    assert options == sorted(options, key=str.lower)
    # picking a name filters by that provider
    aws = names["aws"]
    at.button(key="prov_clear").click().run()
    at.multiselect(key="prov_provider").select(aws).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "provider_name" in d.value.columns)
    assert set(table["provider_name"]) == {aws}


def test_offers_are_sorted_by_the_price_shown_and_say_so(catalog_path):
    at = open_page("app_pages/providers.py")
    at.button(key="prov_clear").click().run()
    table = next(d.value for d in at.dataframe if "on_demand_eur_per_gpu_hour" in d.value.columns)
    prices = table["on_demand_eur_per_gpu_hour"].to_numpy(dtype=float)
    stated = prices[~np.isnan(prices)]
    assert len(stated) > 10 and (np.diff(stated) >= 0).all()
    assert np.isnan(prices[len(stated):]).all()  # offers without an on-demand price come last
    assert any("sorted by on-demand price, cheapest first" in m.value for m in at.markdown)
    # with only spot prices selected, the spot price orders the table
    at.multiselect(key="prov_ptype").set_value(["spot"]).run()
    table = next(d.value for d in at.dataframe if "spot_eur_per_gpu_hour" in d.value.columns)
    spot = table["spot_eur_per_gpu_hour"].dropna().to_numpy(dtype=float)
    assert (np.diff(spot) >= 0).all()
    assert any("sorted by spot price" in m.value for m in at.markdown)


def test_the_comparison_uses_labels_and_display_formats(catalog_path):
    at = open_page("app_pages/providers.py")
    at.button(key="prov_clear").click().run()
    at.session_state["prov_tab"] = "Compare offers"
    at.run()
    assert not at.exception
    compare = next(d.value for d in at.dataframe if d.value.shape[1] == 2 and "On-demand price" in d.value.index)
    assert not [name for name in compare.index if RAW.match(str(name))], list(compare.index)
    cells = [str(v) for v in compare.to_numpy().ravel()]
    assert not [c for c in cells if re.search(r"\d\.\d{3,}", c)], cells  # 15.346268369993277 is gone
    on_demand = compare.loc["On-demand price"].tolist()
    assert all(re.fullmatch(r"€[\d,]+\.\d\d/GPU-h", v) or v == "not stated" for v in on_demand), on_demand
    assert compare.loc["EU/EEA data centre"].isin(["yes", "no", "not stated"]).all()
