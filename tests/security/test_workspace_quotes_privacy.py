"""Issue #29.6: a workspace quote never reaches another workspace, a visitor without the link, the public catalog,
a share link or a scenario's JSON file — checked over everything the sessions were sent (every page, the Providers
tabs, the Editor's exports and history, the Workshop workbook, every download's bytes)."""

from __future__ import annotations

from catalog.store import CatalogStore
from tests.catalog.test_quotes_store import quote
from tests.security.conftest import new_session, tour

NAME, PRICE = "Quotefox Confidential Compute", "0.7391"


def _with_quote(catalog_path) -> str:
    with CatalogStore(catalog_path) as s:
        token = s.create_workspace("ACME")
        s.save_quotes(token, [quote(provider=NAME, price_per_gpu_hour=float(PRICE), note="rebate-note-5e1f")])
        return token


def _session(workspace: str | None):
    at = new_session()
    if workspace:
        at.query_params["ws"] = workspace
    at.run()
    return at


def test_a_visitor_and_another_workspace_see_no_quote_anywhere(catalog_path, shown):
    token = _with_quote(catalog_path)
    with CatalogStore(catalog_path) as s:
        other = s.create_workspace("Globex")
    for workspace in (None, other):
        out = shown()
        tour(_session(workspace), out)
        for needle in (NAME, PRICE, "rebate-note-5e1f", token):
            assert out.find(needle) == [], (workspace, needle, out.find(needle))


def test_the_workspace_uses_its_quote_but_its_json_file_and_share_link_do_not_carry_it(catalog_path, shown):
    token = _with_quote(catalog_path)
    out = shown()
    at = _session(token)
    at.switch_page("app_pages/tco.py").run()
    at.radio(key="tco_committed").set_value("quote:1").run()
    assert not at.exception
    at.switch_page("app_pages/scoring.py").run()
    out.add_tree(at, "scoring")
    assert out.find(NAME)  # the workspace's own session does use it
    at.switch_page("app_pages/workshop.py").run()
    json_files = [t for t in out.download_texts() if '"tco"' in t]
    assert len(json_files) == 1 and PRICE not in json_files[0] and "quote:" not in json_files[0]
    code = next(c.value for c in at.code if "?s=" in c.value)
    from ui.workshop import decode_link

    assert decode_link(code.split("?s=", 1)[1]).tco.inputs.price_reserved_eur_per_gpu_hour is None


def test_the_workspace_workbook_names_the_quote_as_a_quote(catalog_path, shown):
    import datetime as dt

    token = _with_quote(catalog_path)
    out = shown()
    at = _session(token)
    at.switch_page("app_pages/workshop.py").run()
    at.button(key="ws_build_xlsx").click().run()
    assert not at.exception
    label = f"Quote from {NAME}, {dt.date.today().isoformat()}"
    assert any(label in t for t in out.download_texts())
