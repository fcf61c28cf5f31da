"""Issue #28.6 in a real browser against `streamlit run` with local editing on loopback: a request that carries
a reverse proxy's forwarding header is read-only with the reason shown; the same browser without it edits. Also
#28.8: two tabs of one browser cast one vote (the browser's cookie reaches the app's session)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import serve_seed_copy


@pytest.fixture(scope="module")
def local_app(seed_catalog_file, tmp_path_factory):
    yield from serve_seed_copy(seed_catalog_file, tmp_path_factory.mktemp("local-mode"), local_editing=True)


@pytest.mark.parametrize("header", [None, ("X-Forwarded-For", "203.0.113.9"), ("X-Real-IP", "203.0.113.9"),
                                    ("Forwarded", "for=203.0.113.9;proto=https")])
def test_local_mode_is_refused_through_a_proxy(browser: Browser, local_app: str, header):
    context = browser.new_context(extra_http_headers=dict([header]) if header else {},
                                  viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{local_app}/editor")
        expect(page.get_by_role("heading", name="Catalog editor")).to_be_visible(timeout=60_000)
        if header is None:
            expect(page.get_by_text("Local mode", exact=False).first).to_be_visible(timeout=60_000)
            expect(page.get_by_role("button", name="Save changes")).to_be_visible(timeout=60_000)
        else:
            expect(page.get_by_text("refused for this request", exact=False)).to_be_visible(timeout=60_000)
            expect(page.get_by_text(f"forwarding header ({header[0]})", exact=False)).to_be_visible()
            assert page.get_by_role("button", name="Save changes").count() == 0
    finally:
        context.close()


def _vote(page, join_url: str, name: str) -> None:
    page.goto(join_url)
    expect(page.get_by_label("Your name")).to_be_visible(timeout=60_000)
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Your name").press("Enter")
    page.get_by_role("button", name="Submit my weights").click()
    expect(page.get_by_text("your weights are in", exact=False)).to_be_visible(timeout=60_000)


def test_one_vote_per_browser_across_tabs(browser: Browser, local_app: str):
    one = browser.new_context(viewport={"width": 1600, "height": 1000})
    other = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        consultant = one.new_page()
        consultant.goto(f"{local_app}/workshop")
        consultant.get_by_label("Client", exact=True).fill("ACME")
        consultant.get_by_label("Client", exact=True).press("Enter")
        consultant.get_by_role("button", name="Start a workspace").click()
        consultant.get_by_role("tab", name="Group weighting").click()
        consultant.get_by_role("button", name="Start a new group session").click()
        join = consultant.locator("code", has_text="join=")
        expect(join).to_be_visible(timeout=60_000)
        join_url = join.inner_text().strip()
        _vote(one.new_page(), join_url, "Dana")
        _vote(one.new_page(), join_url, "Someone Else")  # another tab of the same browser: replaces Dana's vote
        _vote(other.new_page(), join_url, "Eve")  # another browser
        line = consultant.get_by_text(re.compile(r"participant\(s\): .*Eve"))  # the panel refreshes every 5 s
        expect(line).to_be_visible(timeout=30_000)
        assert line.inner_text().strip() == "2 participant(s): Eve, Someone Else"  # before #28.8: Dana as well
    finally:
        one.close()
        other.close()
