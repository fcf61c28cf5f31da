"""Take full-page screenshots of every page in Debian Chromium, in normal and presentation mode (for the README
and for review), and check the text on each page for raw field names, "None", "nan" and "-0%".

Usage: python bench/screenshots.py [--out docs/screenshots] [--pages home providers ...] [--modes normal presentation]
Starts its own `streamlit run` on a free loopback port with a fresh catalog built from the seed. The Workshop is
shot twice more: its comparison of two saved scenarios in a client workspace, and its export tab.
Writes <page>.png and <page>-presentation.png; exits 1 when a page shows a raw name or a missing-value word.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from catalog.store import CatalogStore, build_catalog  # noqa: E402
from tests.e2e.conftest import CHROMIUM, start_server  # noqa: E402

PAGES = {"home": "", "providers": "providers", "tco": "tco", "workload": "workload", "scoring": "scoring",
         "placement": "placement", "workshop": "workshop", "editor": "editor"}
#: Pages without a chart: wait for their title only.
NO_CHART = {"workshop", "editor", "workshop-compare", "workshop-export"}
#: What must not appear in a page's visible text (charts included): snake_case names of three or more parts
#: (field names such as price_on_demand_eur_per_gpu_hour), Python's None, a NaN, a negative zero.
PROBLEMS = [
    ("raw field name", re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")),
    ("None", re.compile(r"\bNone\b")),
    ("nan", re.compile(r"\b(?:nan|NaN)\b")),
    ("negative zero", re.compile(r"(?<![\d.])-0(?:\.0+)?\s?%")),
]
#: Text that legitimately looks like a raw name: URLs and catalog ids shown as data.
_ALLOWED = re.compile(r"https?://\S+|\b[a-z0-9]+(?:-[a-z0-9]+)+\b")


def page_problems(text: str) -> list[str]:
    """Raw names and missing-value words in a page's visible text (URLs and ids excepted)."""
    clean = _ALLOWED.sub(" ", text)
    found = []
    for kind, pattern in PROBLEMS:
        for match in sorted(set(pattern.findall(clean))):
            found.append(f"{kind}: {match!r}")
    return found


def _visible_text(page) -> str:
    """The page's text including chart SVG text (innerText skips SVG)."""
    return page.evaluate("""() => {
        const hide = document.createElement('style');  // Material icons are ligature words (edit_note): not text
        hide.textContent = '[data-testid="stIconMaterial"], [data-testid$="Icon"], span[translate="no"][aria-hidden="true"] '
            + '{ display: none !important; }';
        document.head.appendChild(hide);
        // Icons inside Markdown (":material/filter_alt:" in a caption) carry no test id: find them by their font.
        const icons = [...document.querySelectorAll('span, i')].filter(
            el => el.children.length === 0 && getComputedStyle(el).fontFamily.includes('Material Symbols'));
        const before = icons.map(el => el.style.display);
        icons.forEach(el => { el.style.display = 'none'; });
        const main = document.querySelector('[data-testid="stMain"]') || document.body;
        const side = document.querySelector('[data-testid="stSidebar"]');
        const svg = [...document.querySelectorAll('svg text')].map(t => t.textContent).join('\\n');
        const text = [main.innerText, side ? side.innerText : '', svg].join('\\n');
        hide.remove();
        icons.forEach((el, i) => { el.style.display = before[i]; });
        return text;
    }""")


def _seed_workshop(catalog: Path) -> str:
    """A client workspace with two saved scenarios, for the comparison shot; returns the workspace token."""
    from engine.tco import TcoInputs
    from ui.scenario import Scenario, TcoSection
    from ui.workshop import to_json

    with CatalogStore(catalog) as store:
        token = store.create_workspace("ACME Bank (example)")
        for name, inputs in [("Baseline, 8 GPUs", TcoInputs()),
                             ("Scale-up, 64 GPUs at 55 %", TcoInputs(cluster_gpus=64, utilisation_fraction=0.55))]:
            scenario = Scenario(tco=TcoSection(inputs=inputs))
            store.save_scenario(name, to_json(scenario), scenario.version, workspace=token, client="ACME Bank (example)")
    return token


def board_summary(catalog: Path, out: Path) -> list[Path]:
    """The PDF report's first page (the one-page summary a board reads, issue #27.13) as PNGs: the workshop brief
    with training and inference computed, and the issue's brief that no offer meets (BSI C5 + EU parent)."""
    import os

    from catalog.store import CatalogStore
    from ui.brief import apply_brief
    from ui.exports import pdf_report
    from ui.scenario import ClientBrief, Scenario, WorkloadSection

    os.environ["GPU_ADVISOR_CATALOG"] = str(catalog)
    both = Scenario(workload=WorkloadSection(mode="inference", computed_modes=("training",)))
    briefs = {"board-summary": ClientBrief(),
              "board-summary-nothing-meets": ClientBrief(eu_jurisdiction_only=True, required_certifications=("BSI-C5",))}
    written = []
    with CatalogStore(catalog) as store, tempfile.TemporaryDirectory() as tmp:
        for name, brief in briefs.items():
            pdf = Path(tmp) / f"{name}.pdf"
            pdf.write_bytes(pdf_report(store, apply_brief(both, brief), client="Example client",
                                       scenario_name="Workshop brief"))
            subprocess.run(["pdftoppm", "-r", "110", "-f", "1", "-l", "1", "-singlefile", "-png", str(pdf),
                            str(out / name)], check=True, timeout=120)
            written.append(out / f"{name}.png")
            print(f"wrote {written[-1]}")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--pages", nargs="*", default=[*PAGES, "workshop-compare", "workshop-export"])
    parser.add_argument("--modes", nargs="*", default=["normal", "presentation"], choices=["normal", "presentation"])
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1500, help="tall viewport: Streamlit scrolls inside the page")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failures: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog.duckdb"
        build_catalog(catalog)
        board_summary(catalog, out)  # the PDF's first page
        token = _seed_workshop(catalog)
        proc, url = start_server(catalog, Path(tmp) / "streamlit.log", local_editing=True)  # the editing grid
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-dev-shm-usage",
                                            "--no-first-run", "--disable-background-networking", "--disable-sync"])
                for mode in args.modes:
                    context = browser.new_context(viewport={"width": args.width, "height": args.height})
                    page = context.new_page()
                    present = "present=1" if mode == "presentation" else ""
                    for name in args.pages:
                        path_name = PAGES.get(name, "workshop")
                        query = "&".join(q for q in [present, f"ws={token}" if name.startswith("workshop-") else ""] if q)
                        page.goto(f"{url}/{path_name}" + (f"?{query}" if query else ""))
                        page.wait_for_selector("h1", timeout=60_000)
                        if name == "workshop-compare":
                            page.get_by_role("tab", name="Compare scenarios").click()
                            page.get_by_text("Inputs that differ").wait_for(timeout=60_000)
                        elif name == "workshop-export":
                            page.get_by_role("tab", name="Export").click()
                            page.get_by_role("button", name="Build the Excel workbook").click()
                            page.get_by_role("button", name="Download workbook").wait_for(timeout=60_000)
                        if name not in NO_CHART:
                            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=60_000)
                        page.wait_for_timeout(2500)
                        # Streamlit scrolls inside its main container: grow the viewport to the content's height
                        # so the shot holds the whole page.
                        full = page.evaluate("() => Math.max(...[...document.querySelectorAll("
                                             "'[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"]')]"
                                             ".map(e => e.scrollHeight), 0)")
                        if full > args.height:
                            page.set_viewport_size({"width": args.width, "height": min(int(full) + 40, 12_000)})
                            page.wait_for_timeout(1500)
                        suffix = "" if mode == "normal" else "-presentation"
                        path = out / f"{name}{suffix}.png"
                        page.screenshot(path=str(path), full_page=True)
                        problems = page_problems(_visible_text(page))
                        if problems:
                            failures[path.name] = problems
                        print(f"wrote {path}" + (f"  ({len(problems)} text problems)" if problems else ""))
                        page.set_viewport_size({"width": args.width, "height": args.height})
                    context.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    for name, problems in failures.items():
        print(f"{name}: " + "; ".join(problems[:12]) + (" …" if len(problems) > 12 else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
