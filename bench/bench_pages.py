"""Page latency: each page's script run after an INPUT CHANGE (a cache miss: every engine call behind
``st.cache_data`` sees new arguments), measured with AppTest, against the floor of an empty Streamlit rerun
measured the same way in the same run; plus the rerun with unchanged inputs (cache hits) and the cold start
of `streamlit run` to a healthy /_stcore/health.

For each page one input a user would change there is set to a value not used before in the run (so no cached
result can answer), then the script reruns; the time is ``AppTest.run()`` end to end (widget state in,
script run, elements out), the median of ``REPEATS`` changes after two warm-up changes. The floor is the same
measurement on a two-line app (a number input and its value written back): what any rerun costs here before
the page does anything. Targets (issue #20): median <= 300 ms per page after an input change; cold start
< 8 s. Reports only; never fails. A page whose input is gone (pages change) is reported, not skipped silently.

CPU breakdown of a changed rerun (issue #31: CPU per input change, median over the pages <= 30 ms): the
script thread's CPU time (``time.thread_time``) spent, exclusively, in
  figures  -- every ``ui`` function annotated to return a plotly Figure (the chart builders, their caches) and
              ``st.plotly_chart`` (Figure -> dict -> JSON, the element id);
  frames   -- every public ``ui`` function named ``*_frame`` or ``*_table`` (the display frames) and ``st.dataframe`` /
              ``st.data_editor`` / ``st.table`` (Styler rendering, Arrow serialisation);
  catalog  -- the public functions of ``ui.catalog`` (cached catalog reads, ``data_version``);
nested calls count in the innermost category only, so the parts add up to at most the script total.
``--app-root DIR`` measures the app in another checkout (e.g. ``git archive`` of the base commit) with this
bench, so that before and after run the same measurement: run them alternately, in the same minutes.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import os
import pkgutil
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_MS = 300.0
TARGET_CPU_MS = 30.0  # issue #31: CPU per input change, median over the pages
TARGET_COLD_S = 8.0
REPEATS = 7
WARMUP = 2


@dataclass(frozen=True)
class PageInput:
    """The input changed on a page: widget kind (AppTest accessor), key, the k-th new value, and the form
    submit button to press when the input sits in a form."""

    page: str
    kind: str
    key: str
    label: str
    value: object  # callable k -> value
    submit: str | None = None


INPUTS = [
    PageInput("app_pages/home.py", "number_input", "_usd_per_eur", "exchange rate (the page's only input)",
              lambda k: round(1.0411 + 0.0013 * k, 4)),
    PageInput("app_pages/providers.py", "number_input", "prov_maxprice", "max price filter",
              lambda k: round(3.0 + 0.1 * k, 2)),
    PageInput("app_pages/tco.py", "slider", "_tco_utilisation_fraction", "utilisation slider",
              lambda k: round(0.30 + 0.01 * k, 2)),
    PageInput("app_pages/workload.py", "number_input", "_wl_training_n_gpus", "GPUs",
              lambda k: 64 + 8 * (k + 1)),
    PageInput("app_pages/scoring.py", "slider", "_sc_weight_points_price_eur_per_gpu_hour", "price weight slider",
              lambda k: 16 + k),
    PageInput("app_pages/placement.py", "number_input", "_pl_other_provider_discount_fraction", "discount, then 'Update the plan'",
              lambda k: 1 + k, submit="_pl_submit"),
    # ws_name (save under a name) needs an open workspace since #15: the report header's name needs none.
    PageInput("app_pages/workshop.py", "text_input", "ws_x_name", "scenario name (report header)",
              lambda k: f"Scenario {k}"),
    PageInput("app_pages/editor.py", "number_input", "_usd_per_eur",
              "exchange rate (the rest of the page is the editable grid)", lambda k: round(1.0411 + 0.0013 * k, 4)),
]

FLOOR_APP = """
import streamlit as st
x = st.number_input("x", key="x", value=0)
st.write(x)
"""


class _Proxy:
    """A timed call in front of an object whose attributes callers use (``cached.clear()``)."""

    def __init__(self, call, target) -> None:
        self._call, self._target = call, target

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._target, name)


class Breakdown:
    """Exclusive CPU time (the calling thread's) per category, from wrappers installed by :meth:`install`."""

    CATEGORIES = ("figures", "frames", "catalog")

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._local = threading.local()
        self._undo: list[tuple[object, str, object]] = []

    def snapshot(self) -> dict[str, float]:
        return dict(self.totals)

    def _wrap(self, fn, category: str):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            stack = self._local.__dict__.setdefault("stack", [])
            frame = [time.thread_time(), 0.0]
            stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                stack.pop()
                elapsed = time.thread_time() - frame[0]
                self.totals[category] += (elapsed - frame[1]) * 1000
                if stack:
                    stack[-1][1] += elapsed
        if type(fn).__name__ == "CachedFunc":  # st.cache_*: keep .clear() and the rest reachable
            return _Proxy(timed, fn)
        return timed

    @staticmethod
    def _category(module: str, name: str, fn) -> str | None:
        if name.startswith("_") and type(fn).__name__ != "CachedFunc":
            return None
        if module == "ui.catalog":
            return "catalog"
        try:
            returns = str(inspect.signature(fn).return_annotation)
        except (TypeError, ValueError):
            returns = ""
        if "Figure" in returns:
            return "figures"
        if name.endswith(("_frame", "_table")):
            return "frames"
        return None

    def install(self) -> None:
        """Wrap the ui functions and Streamlit elements named in the module docstring, in every ui module
        that holds them (``from ui.x import f`` binds f at import time) and on ``st`` itself."""
        import streamlit as st
        from streamlit.delta_generator import DeltaGenerator

        import ui

        modules = [importlib.import_module(f"ui.{m.name}") for m in pkgutil.iter_modules(ui.__path__)]
        wrapped: dict[int, object] = {}
        for mod in modules:
            for name, fn in list(vars(mod).items()):
                own = getattr(fn, "__module__", None) == mod.__name__
                if own and callable(fn) and not isinstance(fn, type) and (cat := self._category(mod.__name__, name, fn)):
                    wrapped[id(fn)] = self._wrap(fn, cat)
        for mod in modules:
            for name, fn in list(vars(mod).items()):
                if id(fn) in wrapped:
                    self._undo.append((mod, name, fn))
                    setattr(mod, name, wrapped[id(fn)])
        for name, cat in (("plotly_chart", "figures"), ("dataframe", "frames"), ("data_editor", "frames"),
                          ("table", "frames")):
            for owner in (DeltaGenerator, st):
                original = getattr(owner, name)
                self._undo.append((owner, name, original))
                setattr(owner, name, self._wrap(original, cat))

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()


def _widget(at, spec: PageInput):
    for w in getattr(at, spec.kind):
        if getattr(w, "key", None) == spec.key:
            return w
    return None


def change_input(at, spec: PageInput, k: int, breakdown: Breakdown | None = None) -> tuple[float, float, dict]:
    """Set the input to its k-th value (submit the form if any) and time the rerun: (wall ms, CPU ms, CPU ms
    per breakdown category)."""
    widget = _widget(at, spec)
    if widget is None:
        raise LookupError(f"no {spec.kind} with key {spec.key!r}")
    widget.set_value(spec.value(k))
    if spec.submit:
        button = next((b for b in at.button if getattr(b, "key", None) == spec.submit), None)
        if button is None:
            raise LookupError(f"no submit button {spec.submit!r}")
        button.click()
    parts0 = breakdown.snapshot() if breakdown else {}
    t0, c0 = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
    parts = {c: v - parts0.get(c, 0.0) for c, v in breakdown.snapshot().items()} if breakdown else {}
    if at.exception:
        raise RuntimeError(f"raised: {at.exception[0].value}"[:200])
    now = _widget(at, spec)
    if now is None or now.value != spec.value(k):
        raise RuntimeError(f"input {spec.key!r} did not take the value {spec.value(k)!r}")
    return wall, cpu, parts


def floor_times() -> list[tuple[float, float]]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(FLOOR_APP, default_timeout=60)
    at.run()
    spec = PageInput("floor", "number_input", "x", "x", lambda k: k + 1)
    times = [change_input(at, spec, k)[:2] for k in range(WARMUP + REPEATS)]
    return times[WARMUP:]


def page_times(catalog: Path, app_root: Path = ROOT, pages: list[str] | None = None,
               breakdown: Breakdown | None = None) -> list[dict]:
    from streamlit.testing.v1 import AppTest

    os.environ["GPU_ADVISOR_CATALOG"] = str(catalog)
    rows = []
    for spec in INPUTS:
        if pages and not any(p in spec.page for p in pages):
            continue
        row: dict = {"page": spec.page, "input": spec.label}
        rows.append(row)
        if not (app_root / spec.page).exists():
            row["problem"] = "page file is gone"
            continue
        try:
            at = AppTest.from_file(str(app_root / "app.py"), default_timeout=120)
            at.run()
            if spec.page != "app_pages/home.py":
                at.switch_page(spec.page)
            at.run()  # imports, catalog open, first results
            unchanged = []
            for _ in range(REPEATS):
                t0 = time.perf_counter()
                at.run()
                unchanged.append((time.perf_counter() - t0) * 1000)
            changed = [change_input(at, spec, k, breakdown) for k in range(WARMUP + REPEATS)][WARMUP:]
            changed_cpu = [c for _, c, _ in changed]
            parts = {c: statistics.median(p.get(c, 0.0) for _, _, p in changed) for c in Breakdown.CATEGORIES}
            changed = [w for w, _, _ in changed]
        except Exception as exc:  # a page that changed under the benchmark is reported, not fatal
            row["problem"] = f"{type(exc).__name__}: {exc}"[:160]
            continue
        row.update(unchanged_ms=statistics.median(unchanged), changed_ms=statistics.median(changed),
                   changed_max_ms=max(changed), changed_cpu_ms=statistics.median(changed_cpu),
                   **{f"{c}_cpu_ms": v for c, v in parts.items()})
    return rows


def cold_start(catalog: Path) -> float:
    from tests.e2e.conftest import start_server

    t0 = time.perf_counter()
    proc, _ = start_server(catalog, catalog.parent / "streamlit.log")
    elapsed = time.perf_counter() - t0
    proc.terminate()
    proc.wait(timeout=10)
    return elapsed


def main(argv: list[str] | None = None) -> dict:
    global REPEATS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app-root", type=Path, default=ROOT, help="the checkout whose app is measured")
    parser.add_argument("--pages", nargs="*", help="only these pages (part of the file name: tco, scoring, ...)")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--no-cold-start", action="store_true")
    args = parser.parse_args([] if argv is None and __name__ != "__main__" else argv)
    REPEATS = args.repeats
    app_root = args.app_root.resolve()
    if app_root != ROOT:  # the app's own packages (ui, engine, catalog) from that checkout
        sys.path.insert(0, str(app_root))
        for name in [m for m in sys.modules if m.split(".")[0] in ("ui", "engine", "catalog", "domain")]:
            del sys.modules[name]
    from catalog.store import build_catalog

    breakdown = Breakdown()
    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog.duckdb"
        build_catalog(catalog)
        cold = None if args.no_cold_start or app_root != ROOT else cold_start(catalog)
        load_before = os.getloadavg()[0]
        floor_runs = floor_times()
        floor, floor_cpu = statistics.median(w for w, _ in floor_runs), statistics.median(c for _, c in floor_runs)
        breakdown.install()
        try:
            rows = page_times(catalog, app_root, args.pages, breakdown)
        finally:
            breakdown.uninstall()
        load_after = os.getloadavg()[0]
    print(f"app: {app_root}")
    print(f"AppTest rerun after an input change (cache miss), median of {REPEATS} after {WARMUP} warm-up changes; "
          f"CPU = process CPU time of the run (robust to other jobs on the machine; 1-minute load average "
          f"{load_before:.1f} before, {load_after:.1f} after, on {os.cpu_count()} cores)")
    print(f"floor = an empty Streamlit rerun (number input -> st.write) measured the same way in this run: "
          f"{floor:.1f} ms wall, {floor_cpu:.1f} ms CPU")
    print(f"{'page':<27} {'input changed':<40} {'wall ms':>8} {'max':>6} {'x floor':>8} {'CPU ms':>7} "
          f"{'figures':>8} {'frames':>7} {'catalog':>8} {'unchanged':>10}  target <= {TARGET_MS:.0f} ms (wall median)")
    for r in rows:
        if "problem" in r:
            print(f"{r['page']:<27} {r['input'][:40]:<40} {'—':>8}  NOT MEASURED: {r['problem']}")
            continue
        print(f"{r['page']:<27} {r['input'][:40]:<40} {r['changed_ms']:>8.0f} {r['changed_max_ms']:>6.0f} "
              f"{r['changed_ms'] / floor:>7.0f}x {r['changed_cpu_ms']:>7.0f} {r['figures_cpu_ms']:>8.0f} "
              f"{r['frames_cpu_ms']:>7.0f} {r['catalog_cpu_ms']:>8.0f} {r['unchanged_ms']:>10.0f}  "
              f"{'PASS' if r['changed_ms'] <= TARGET_MS else 'FAIL'}")
    measured = [r for r in rows if "problem" not in r]
    if measured:
        cpu = statistics.median(r["changed_cpu_ms"] for r in measured)
        print(f"median over {len(measured)} pages of the CPU per input change: {cpu:.0f} ms "
              f"(figures {statistics.median(r['figures_cpu_ms'] for r in measured):.0f}, frames "
              f"{statistics.median(r['frames_cpu_ms'] for r in measured):.0f}, catalog "
              f"{statistics.median(r['catalog_cpu_ms'] for r in measured):.0f} ms)  target <= {TARGET_CPU_MS:.0f} ms: "
              f"{'PASS' if cpu <= TARGET_CPU_MS else 'FAIL'}")
    if cold is not None:
        print(f"cold start to healthy /_stcore/health: {cold:.2f} s  {'PASS' if cold < TARGET_COLD_S else 'FAIL'} "
              f"(< {TARGET_COLD_S:.0f} s)")
    return {"pages": rows, "floor_ms": floor, "floor_cpu_ms": floor_cpu, "cold_start_s": cold}


if __name__ == "__main__":
    main(sys.argv[1:])
