"""In Debian Chromium: Home shows the catalog size, its charts and the differentiating-facts table, and links on."""

import re

from playwright.sync_api import Page, expect

from catalog.seeding import load_seed


def test_home_shows_size_coverage_and_links_to_the_pages(page: Page, app_url: str):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="GPU Cloud Advisor")).to_be_visible(timeout=30_000)
    seed = load_seed()
    offers_metric = page.locator('[data-testid="stMetric"]').filter(has_text=re.compile(r"^Offers\s*\d"))  # not "Offers meeting the brief"
    expect(offers_metric).to_contain_text(str(len(seed.offers)), timeout=20_000)
    # Issue #18: the EU-sovereign shortlist's coverage is on Home, with the providers that meet it
    expect(page.get_by_role("heading", name="EU-sovereign H100/H200 shortlist")).to_be_visible(timeout=20_000)
    shortlist = page.locator('[data-testid="stMetric"]').filter(has_text="EU-parent H100/H200 SXM offers")
    expect(shortlist).to_contain_text(re.compile(r"[1-9]"))
    expect(page.get_by_text(re.compile(r"current price: .*Nebius"))).to_be_visible()
    expect(page.locator('[data-testid="stPlotlyChart"]').filter(has_text="What the sources did not state")).to_be_visible(
        timeout=30_000)
    page.get_by_text("Where the facts this app differentiates on stand").click()
    table = page.locator('[data-testid="stDataFrame"]').last
    expect(table).to_be_visible(timeout=20_000)
    page.get_by_role("link", name=re.compile(r"^Providers & offers: who offers H100")).click()
    expect(page.get_by_role("heading", name="Providers & offers")).to_be_visible(timeout=30_000)
