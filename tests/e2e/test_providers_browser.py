"""In Debian Chromium: the Providers table renders, a filter narrows it, the sidebar currency converts."""

import re

from playwright.sync_api import Page, expect

from catalog.seeding import load_seed


def offer_count(page: Page) -> int:
    text = page.get_by_text(re.compile(r"^\d+ offers from \d+ providers")).inner_text()  # not the banner's "Catalog: …"
    return int(text.split()[0])


def test_table_renders_and_a_filter_narrows_it(page: Page, app_url: str):
    page.goto(f"{app_url}/providers")
    expect(page.get_by_role("heading", name="Providers & offers")).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible(timeout=30_000)
    seed = load_seed()
    total = len(seed.offers)
    # A first visit follows the client brief (H100 class, EU data centre); clearing the filters shows everything.
    expect(page.get_by_text(re.compile(r"this page follows it"))).to_be_visible(timeout=30_000)
    briefed = offer_count(page)
    assert 0 < briefed < total
    page.get_by_role("button", name="Clear filters").first.click()
    expect(page.get_by_text(re.compile(rf"^{total} offers from \d+ providers"))).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"This page differs"))).to_be_visible()

    page.get_by_label("Selected GPU model").or_(page.locator('[data-testid="stMultiSelect"]').first).first.click()
    page.get_by_role("option", name="H100", exact=True).click()
    page.keyboard.press("Escape")
    expect(page.get_by_text(re.compile(r"^\d+ offers from"))).not_to_have_text(re.compile(rf"^{total} offers"), timeout=20_000)
    narrowed = offer_count(page)
    assert 0 < narrowed < total
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=30_000)


def test_sidebar_currency_switch_changes_the_prices(page: Page, app_url: str):
    page.goto(f"{app_url}/providers")
    expect(page.get_by_text(re.compile(r"prices in EUR"))).to_be_visible(timeout=30_000)
    page.locator('[data-testid="stSidebar"] [data-testid="stRadioOption"]').filter(has_text="USD").click()
    expect(page.get_by_text(re.compile(r"prices in USD"))).to_be_visible(timeout=20_000)
    expect(page.get_by_label("Max price ($ per GPU-hour)", exact=True)).to_be_visible()


def test_legal_seat_tab_shows_sourced_facts_and_the_certification_matrix(page: Page, app_url: str):
    page.goto(f"{app_url}/providers")
    expect(page.get_by_role("heading", name="Providers & offers")).to_be_visible(timeout=30_000)
    page.get_by_role("tab", name="Legal seat & certifications").click()
    seed = load_seed()
    seats = sum(1 for p in seed.providers if p.legal_seat_country)
    expect(page.get_by_text(re.compile(rf"the legal seat of {seats} "))).to_be_visible(timeout=20_000)
    certified = [p for p in seed.providers if p.certifications]
    matrix = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Certifications each provider states")
    expect(matrix).to_be_visible(timeout=30_000)
    expect(matrix).to_contain_text(certified[0].name)
