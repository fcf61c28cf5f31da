"""docs/sources.md lists every sourced default of the engine, as the code states it (the doc is generated).

Regenerate after changing a default or its source: ``PYTHONPATH=. python tests/engine/test_sources_doc.py``.
"""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "sources.md"


def _cell(value: object) -> str:
    text = "not set" if value is None else f"{value:.6g}" if isinstance(value, float) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def sources_markdown() -> str:
    from domain.geography import EU_EEA_COUNTRY_CODES
    from engine import power
    from engine.placement import DEFAULT_ASSUMPTIONS as PLACEMENT
    from engine.placement import (
        DEFAULT_OWN_LEAD_TIME_DAYS,
        EPOCH_COMMITMENT_DISCOUNT_FRACTION,
        OWN_LEAD_TIME_SOURCE,
    )
    from engine.scoring import CRITERIA, PRESETS
    from engine.tco import TcoInputs
    from engine.workload import DEFAULT_ASSUMPTIONS as WORKLOAD
    from engine.workload import GRID_INTENSITY_G_PER_KWH_BY_COUNTRY, GRID_INTENSITY_SOURCE, MODEL_PRESETS

    out = [
        "# Sources of the engine's defaults",
        "",
        "Every default the engine uses, with its unit and source, as the code states it (each value is also shown",
        "next to the results on its page). Generated from the code by `tests/engine/test_sources_doc.py`, which fails",
        "when this file and the code disagree; regenerate with `PYTHONPATH=. python tests/engine/test_sources_doc.py`.",
        "Which published figures a default was *fitted* on (calibration) and which ones check it (validation) is in",
        "[validation.md](validation.md); the formulas are in [domain-model.md](domain-model.md).",
        "",
    ]

    def table(title: str, rows: list[tuple[str, object, str, str]], note: str = "") -> None:
        out.extend([f"## {title}", ""])
        if note:
            out.extend([note, ""])
        out.extend(["| name | default | unit | source |", "|---|---|---|---|"])
        out.extend(f"| `{n}` | {_cell(v)} | {_cell(u)} | {_cell(s)} |" for n, v, u, s in rows)
        out.append("")

    table("TCO inputs (`engine.tco.TcoInputs`)", [a.row() for a in TcoInputs().assumptions()])
    table("Workload engine (`engine.workload.EngineAssumptions`)", [a.row() for a in WORKLOAD.table()])
    table("Power model (`engine.power.PowerModel`, shared by TCO and Workload)", [a.row() for a in power.table()])
    table("Placement (`engine.placement.PlacementAssumptions`)", [a.row() for a in PLACEMENT.table()]
          + [("own_cluster_lead_time_days", DEFAULT_OWN_LEAD_TIME_DAYS, "d", OWN_LEAD_TIME_SOURCE)])
    table("Commitment discounts by provider (`engine.placement.EPOCH_COMMITMENT_DISCOUNT_FRACTION`)",
          [(p, f"1 y {d[1]:.0%}, 3 y {d[3]:.0%}", "-", "Epoch AI training-cost-trends constants.py DEFAULT_CUD")
           for p, d in EPOCH_COMMITMENT_DISCOUNT_FRACTION.items()])
    table("Scoring criteria and their category scores (`engine.scoring.CRITERIA`)",
          [(c.name, c.label, c.unit, c.mapping_doc) for c in CRITERIA])
    table("Scoring presets (`engine.scoring.PRESETS`; weights are judgements, shown and editable on the page)",
          [(p.name, ", ".join(f"{k} {v:g}" for k, v in p.weight_points.items()), "points", p.description)
           for p in PRESETS.values()])
    table("Model presets (`engine.workload.MODEL_PRESETS`)",
          [(m.name, f"{m.n_params:.4g}", "parameters", m.source) for m in MODEL_PRESETS.values()])
    table("Grid carbon intensity (`engine.workload.GRID_INTENSITY_G_PER_KWH_BY_COUNTRY`)",
          [(c, v, "gCO2e/kWh", GRID_INTENSITY_SOURCE) for c, v in GRID_INTENSITY_G_PER_KWH_BY_COUNTRY.items()])
    table("Country groups (`domain.geography`)",
          [("EU_EEA_COUNTRY_CODES", " ".join(sorted(EU_EEA_COUNTRY_CODES)), "ISO 3166-1 alpha-2",
            "https://european-union.europa.eu/principles-countries-history/eu-countries_en and the EEA Agreement "
            "(https://www.efta.int/eea), as of 2026")])
    return "\n".join(out).rstrip("\n") + "\n"


def test_sources_doc_matches_the_code():
    assert DOC.exists(), "docs/sources.md is cited by engine/__init__.py"
    assert DOC.read_text() == sources_markdown(), "regenerate: PYTHONPATH=. python tests/engine/test_sources_doc.py"


def test_every_default_has_a_source_in_the_doc():
    text = sources_markdown()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) > 100
    assert all(line.rstrip(" |").rsplit("|", 1)[-1].strip() for line in rows)  # no empty source cell


if __name__ == "__main__":
    DOC.write_text(sources_markdown())
    print(f"wrote {DOC}")
