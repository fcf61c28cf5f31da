"""In Debian Chromium: the ranking, the contribution chart and the verdict follow a weight slider."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import enter_value, step_slider_to, wait_idle


def test_ranking_and_contribution_chart_update_after_a_weight_change(page: Page, app_url: str):
    page.goto(f"{app_url}/scoring")
    expect(page.get_by_role("heading", name="Provider scoring")).to_be_visible(timeout=30_000)
    table = page.locator('[data-testid="stDataFrame"]').first
    expect(table).to_be_visible(timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Why #1 wins").first
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=30_000)
    expect(chart).to_contain_text("#1 ")
    verdict = page.get_by_text(re.compile(r"^#1 .+ wins with a weighted-sum score"))
    # the price weight's share (15 of 100 points); "of the weight that counts" is added only when some criterion is
    # inert, which depends on the seed (none is since 2026-12-04)
    expect(verdict).to_contain_text(re.compile(r"\(now \d+%( of the weight that counts)?\)"))
    chart_before, verdict_before = chart.inner_text(), verdict.inner_text()

    slider = page.get_by_role("slider").first  # the first weight: effective price
    expect(slider).to_have_value("15")
    wait_idle(page)
    step_slider_to(page, slider, 40)  # presses again when a rerun took the focus (a fixed 25 presses lost some)
    expect(slider).to_have_value("40")

    expect(verdict).not_to_have_text(verdict_before, timeout=20_000)
    expect(chart).not_to_have_text(chart_before, timeout=20_000)
    expect(table).to_be_visible()


def test_scoring_starts_like_for_like_and_ranks_providers_too(page: Page, app_url: str):
    """Issue 14 item 3: the first load ranks only the brief's GPU class (H100 / H200) that holds its model (78 GB
    per GPU for a 70B fine-tune on 16 GPUs), says so, and shows a provider-level ranking beside the offers."""
    page.goto(f"{app_url}/scoring")
    expect(page.get_by_role("heading", name="Provider scoring")).to_be_visible(timeout=30_000)
    gpu_class = page.locator('[data-testid="stMultiSelect"]').filter(has_text="GPU class")
    for model in ("H100", "H100 NVL", "H200"):
        expect(gpu_class).to_contain_text(model, timeout=60_000)
    expect(gpu_class).not_to_contain_text("L4")
    expect(page.get_by_text(re.compile(r"Fit: a 70B model, training or full fine-tune on 16 GPUs, needs at least "
                                       r"78 GB per GPU"))).to_be_visible()
    verdict = page.get_by_text(re.compile(r"^#1 .+ wins with a weighted-sum score"))
    expect(verdict).to_contain_text(re.compile(r"#1 [^·]+ · H(100|200)"), timeout=30_000)
    expect(page.get_by_text(re.compile(r"Ranked: H100 or H100 NVL or H200 only · at least 78 GB per GPU"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"GPU class: H100 or H100 NVL or H200: removes \d+ of \d+"))).to_be_visible()

    by_provider = page.get_by_role("tab", name=re.compile(r"By provider: best offer each \(\d+\)"))
    by_provider.click()
    panel = page.get_by_role("tabpanel").filter(has=page.locator('[data-testid="stDataFrame"]')).filter(
        has_text="a provider with many node sizes or regions counts once")
    expect(panel.locator('[data-testid="stDataFrame"]')).to_be_visible(timeout=20_000)

    # A memory floor above every GPU of the class (H200: 141 GB) leaves nothing to rank, and says which step did.
    memory = page.get_by_role("spinbutton", name="Min. memory per GPU (GB)")
    enter_value(page, memory, "200")
    expect(page.get_by_text(re.compile(r"No offer is left to rank"))).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"Memory per GPU at least 200 GB: removes \d+ of \d+"))).to_be_visible()


def test_weights_can_be_typed_instead_of_dragged(page: Page, app_url: str):
    """Issue #31: "Type the weights" shows number fields with the sliders' values; a typed weight re-ranks."""
    page.goto(f"{app_url}/scoring")
    expect(page.get_by_role("heading", name="Provider scoring")).to_be_visible(timeout=30_000)
    verdict = page.get_by_text(re.compile(r"^#1 .+ wins with a weighted-sum score"))
    expect(verdict).to_contain_text(re.compile(r"\(now 15%"), timeout=30_000)
    wait_idle(page)
    page.get_by_text("Type the weights").click()
    price = page.get_by_role("spinbutton", name=re.compile(r"^Effective price"))
    expect(price).to_have_value("15", timeout=30_000)
    price_slider = page.get_by_role("slider", name=re.compile(r"^Effective price"))
    expect(price_slider).to_have_count(0)
    enter_value(page, price, "40")
    expect(verdict).not_to_contain_text("(now 15%", timeout=30_000)
    page.get_by_text("Type the weights").click()
    expect(price_slider).to_have_value("40", timeout=30_000)
