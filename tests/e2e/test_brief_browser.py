"""In Debian Chromium: the client brief set on Home drives Rent or own, Workload cost and Providers (issue #14
item 6), and a page changed on its own says how it differs from the brief."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import enter_value


def test_brief_on_home_drives_every_page(page: Page, app_url: str):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="GPU Cloud Advisor")).to_be_visible(timeout=30_000)
    form = page.locator('[data-testid="stForm"]')
    for label, value in (("GPUs in the cluster", "32"), ("Horizon (months)", "24")):
        box = form.get_by_role("spinbutton", name=label)
        box.fill(value)
        box.press("Tab")
    form.get_by_role("button", name="Apply the brief to every page").click()
    expect(page.get_by_text(re.compile(r"Brief applied to every page: .*32 GPUs · 24 months"))).to_be_visible(
        timeout=30_000)
    expect(page.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r"32 GPUs · 24 months"))).to_be_visible()

    page.get_by_role("link", name="Rent or own (TCO)").click()
    expect(page.get_by_text(re.compile(r"^Over 2 years at 60% utilisation, .* 32 GPUs: "))).to_be_visible(timeout=60_000)
    expect(page.get_by_text("this page follows it")).to_be_visible()

    page.get_by_role("link", name="Workload cost").click()
    expect(page.get_by_label("GPUs", exact=True)).to_have_value("32", timeout=60_000)
    expect(page.get_by_text("this page follows it")).to_be_visible(timeout=30_000)

    page.get_by_role("link", name="Rent or own (TCO)").click()
    horizon = page.get_by_role("spinbutton", name="Horizon (months)")
    expect(horizon).to_have_value("24", timeout=60_000)
    enter_value(page, horizon, "48")
    expect(page.get_by_text(re.compile(r"This page differs:.*horizon 48 months \(brief: 24 months\)"))).to_be_visible(
        timeout=30_000)
    page.get_by_role("button", name="Use the brief here").click()
    expect(horizon).to_have_value("24", timeout=30_000)
    expect(page.get_by_text(re.compile(r"^Over 2 years at 60% utilisation"))).to_be_visible(timeout=60_000)
