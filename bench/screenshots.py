"""Take full-page screenshots of every page in Debian Chromium (for the README and for review).

Usage: python bench/screenshots.py [--out docs/screenshots] [--pages home providers ...]
Starts its own `streamlit run` on a free loopback port with a fresh catalog built from the seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from catalog.store import build_catalog  # noqa: E402
from tests.e2e.conftest import CHROMIUM, start_server  # noqa: E402

PAGES = {"home": "", "providers": "providers", "tco": "tco", "workload": "workload", "scoring": "scoring",
         "placement": "placement", "workshop": "workshop", "editor": "editor"}
#: Pages without a chart: wait for their title only.
NO_CHART = {"workshop", "editor"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--pages", nargs="*", default=list(PAGES))
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1500, help="tall viewport: Streamlit scrolls inside the page")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog.duckdb"
        build_catalog(catalog)
        proc, url = start_server(catalog, Path(tmp) / "streamlit.log", local_editing=True)  # the editing grid
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-dev-shm-usage",
                                            "--no-first-run", "--disable-background-networking", "--disable-sync"])
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                for name in args.pages:
                    page.goto(f"{url}/{PAGES[name]}")
                    page.wait_for_selector("h1", timeout=60_000)
                    if name not in NO_CHART:
                        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=60_000)
                    page.wait_for_timeout(2500)
                    path = out / f"{name}.png"
                    page.screenshot(path=str(path), full_page=True)
                    print(f"wrote {path}")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
