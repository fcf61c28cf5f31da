"""Do two checkouts' chart builders draw the same figures? Records every chart builder call (``ui/*charts.py``)
while the pages run in AppTest with the ``--base`` checkout (arguments pickled, the figure's JSON as
``st.plotly_chart`` sends it), then calls this checkout's builders with the same arguments and compares the JSON
(parsed: key order aside). Every page runs twice, in normal and in presentation mode, and its input changes
as in ``bench/bench_pages.py``.

Usage: python bench/figure_equivalence.py --base /tmp/base-checkout [--pages tco scoring]
Exit status 1 when a figure differs (the first difference of each builder is printed).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Session state set after the input changes, one rerun each: the tabs a page draws only when open.
EXTRA = {"app_pages/providers.py": [("prov_tab", t) for t in ("Compare offers", "Legal seat & certifications",
                                                              "GPU specs")],
         "app_pages/workload.py": [("_wl_mode", "inference")]}
CHART_MODULES = ["ui.charts", "ui.tco_charts", "ui.scoring_charts", "ui.workload_charts", "ui.placement_charts"]


def _builders(module) -> dict:
    """Public functions of a chart module annotated to return a Figure (``style`` excluded: it takes one)."""
    out = {}
    for name, fn in vars(module).items():
        if inspect.isfunction(fn) and fn.__module__ == module.__name__ and not name.startswith("_") and name != "style":
            if "Figure" in str(inspect.signature(fn).return_annotation):
                out[name] = fn
    return out


def _spec(fig) -> dict:
    import plotly.io as pio

    return json.loads(pio.to_json(fig.to_dict(), validate=False))


def record(out: Path, pages: list[str] | None, root: Path) -> None:
    """With ``root``'s code: run the pages, pickle (module, builder, presenting, args and kwargs, spec) per call."""
    from streamlit.testing.v1 import AppTest

    sys.path.insert(0, str(root))
    from bench.bench_pages import INPUTS, change_input
    from catalog.store import build_catalog

    calls: list[tuple] = []
    modules = [importlib.import_module(m) for m in CHART_MODULES]
    from ui import charts

    for mod in modules:
        for name, fn in _builders(mod).items():
            def wrapped(*args, _fn=fn, _mod=mod.__name__, _name=name, **kwargs):
                fig = _fn(*args, **kwargs)
                try:
                    calls.append((_mod, _name, charts.presenting(), pickle.dumps((args, kwargs)), _spec(fig)))
                except Exception as exc:  # an argument that does not pickle: reported, not fatal
                    print(f"not recorded: {_mod}.{_name}: {exc}", file=sys.stderr)
                return fig
            for other in [*modules, *(sys.modules[m] for m in list(sys.modules) if m.startswith("ui."))]:
                if getattr(other, name, None) is fn:
                    setattr(other, name, wrapped)
    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog.duckdb"
        build_catalog(catalog)
        os.environ["GPU_ADVISOR_CATALOG"] = str(catalog)
        for present in (False, True):
            for spec in INPUTS:
                if pages and not any(p in spec.page for p in pages):
                    continue
                at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
                at.session_state["_presentation"] = present
                at.run()
                if spec.page != "app_pages/home.py":
                    at.switch_page(spec.page)
                at.run()
                for k in range(2):
                    try:
                        change_input(at, spec, k)
                    except Exception as exc:
                        print(f"{spec.page}: {exc}", file=sys.stderr)
                for key, value in EXTRA.get(spec.page, []):  # tabs that draw only when open
                    at.session_state[key] = value
                    at.run()
    out.write_bytes(pickle.dumps(calls))


def _diff(a, b, path: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: {'missing in base' if k not in a else 'missing here'} ({a.get(k, b.get(k))!r:.120})"
            if (d := _diff(a[k], b[k], f"{path}.{k}")) is not None:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items in base, {len(b)} here"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if (d := _diff(x, y, f"{path}[{i}]")) is not None:
                return d
        return None
    return None if a == b else f"{path}: base {a!r:.120} here {b!r:.120}"


def compare(recorded: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from ui import charts

    calls = pickle.loads(recorded.read_bytes())
    modules = {m: importlib.import_module(m) for m in CHART_MODULES}
    state = {"present": False}
    for mod in [charts, *modules.values()]:
        if hasattr(mod, "presenting"):
            mod.presenting = lambda: state["present"]
    same: dict[str, int] = {}
    differ: dict[str, str] = {}
    for module, name, present, payload, base in calls:
        state["present"] = present
        args, kwargs = pickle.loads(payload)
        key = f"{module}.{name}{' (presenting)' if present else ''}"
        here = _spec(getattr(modules[module], name)(*args, **kwargs))
        d = _diff(base, here)
        if d is None:
            same[key] = same.get(key, 0) + 1
        else:
            differ.setdefault(key, d)
    for key in sorted(set(same) | set(differ)):
        print(f"{'DIFFERS' if key in differ else 'same   '} {key}: {same.get(key, 0)} calls equal"
              + (f"; first difference {differ[key]}" if key in differ else ""))
    print(f"{len(calls)} calls, {len(differ)} builders differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with (e.g. `git archive`)")
    parser.add_argument("--pages", nargs="*")
    parser.add_argument("--record", type=Path, help=argparse.SUPPRESS)  # internal: the recording process
    args = parser.parse_args(argv)
    base = args.base.resolve()
    if args.record:
        record(args.record, args.pages, base)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calls.pickle"
        subprocess.run([sys.executable, __file__, "--base", str(base), "--record", str(out),
                        *(["--pages", *args.pages] if args.pages else [])], cwd=base, check=True)
        return compare(out)


if __name__ == "__main__":
    sys.exit(main())
