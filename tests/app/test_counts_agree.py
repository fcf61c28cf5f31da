"""Issue #27.17: counts that describe the same thing agree across pages (stale prices, providers with offers,
offers meeting the brief): one definition each (catalog.counts, ui.brief_scope.meets_brief), and a page showing
a subset names it.

Before: Home said "Providers 30" and "Stale rows 245" while Providers said "258 offers from 23 providers · 93
observed more than 180 days ago", Scoring flagged 73 stale prices and the Editor listed 316 rows.
"""

import re
import shutil

import pytest

from catalog.counts import offer_counts
from catalog.store import CatalogStore
from tests.app.conftest import open_page
from ui.brief_scope import meets_brief
from ui.scenario import ClientBrief

LINE = re.compile(r"(\d+) offers? from (\d+) providers? · (\d+) with a stale price")
PAGES = ("providers", "tco", "workload", "scoring", "placement")


def _metric(at, label: str) -> int:
    return int(next(m for m in at.metric if m.label.startswith(label)).value)


def _banner_counts(at) -> tuple[tuple[int, ...], tuple[int, ...]]:
    line = next(c.value for c in at.caption if "**Catalog:**" in c.value)
    catalog, in_scope = line.split("**Meeting the brief:**")
    return tuple(map(int, LINE.search(catalog).groups())), tuple(map(int, LINE.search(in_scope).groups()))


@pytest.fixture
def expected(catalog_path, tmp_path_factory):
    brief = ClientBrief(eu_jurisdiction_only=True)
    copy = tmp_path_factory.mktemp("counts") / "catalog.duckdb"  # the app holds the file open in this process
    shutil.copy(catalog_path, copy)
    with CatalogStore(copy, read_only=True) as store:
        frame = store.list_offers(None, usd_per_eur=1.0411)
    c, s = offer_counts(frame), offer_counts(frame[meets_brief(frame, brief)])
    assert s.offers > 0 and c.stale_prices > 0  # the test means something on this catalog
    return (c.offers, c.providers, c.stale_prices), (s.offers, s.providers, s.stale_prices)


@pytest.fixture
def home(catalog_path):
    at = open_page("app_pages/home.py")
    next(t for t in at.toggle if t.label == "EU parent company required").set_value(True)
    at.button[0].click()  # apply the brief
    at.run()
    assert not at.exception
    return at


def test_every_page_states_the_same_counts(home, expected):
    (offers, providers, stale), (in_scope, _, _) = expected
    assert _metric(home, "Offers") == offers
    assert _metric(home, "Providers with offers") == providers
    assert _metric(home, "Stale prices") == stale
    assert _metric(home, "Offers meeting the brief") == in_scope
    for page in PAGES:
        at = home.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, page
        assert _banner_counts(at) == expected, page
        if page == "providers":  # a subset, named, counted the same way
            line = next(m.value for m in at.markdown if "under these filters" in m.value)
            n, n_prov, n_stale = map(int, re.search(r"\*\*(\d+) offers\*\* from (\d+) providers? under these "
                                                    r"filters · (\d+) with a stale price", line).groups())
            assert int(re.search(r"meeting the brief: (\d+)", line).group(1)) == in_scope
            assert n >= in_scope and n_prov <= providers and n_stale <= min(n, stale)
    at = home.switch_page("app_pages/editor.py").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "rows to re-verify" in text
    assert f"Stale prices as every page counts them: {stale} of {offers} offers" in text
