"""Issue #15.6: text a user typed (a participant's name, a ?join= value, a client or scenario name) is shown as
text: no image, link, HTML, colour or icon directive renders on the consultant's screen."""

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from catalog.store import CatalogStore
from engine.scoring import CRITERION_NAMES
from ui.format import plain

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "![x](http://evil.example/t.png) [click](http://evil.example) <img src=x> :red[big] :material/home: $x^2$"
_UNESCAPED = re.compile(r"(?<!\\)[!\[\]()<>:$*_`]")


@given(st.text(max_size=80))
def test_plain_escapes_every_markdown_character_and_keeps_the_text(text):
    out = plain(text)
    assert "\n" not in out
    assert not _UNESCAPED.search(re.sub(r"\\.", "", out))  # nothing special is left unescaped
    assert re.sub(r"\\(.)", r"\1", out).replace("\u2060", "") == " ".join(text.split()).replace("\u2060", "")  # as typed
    assert not re.search(r"(?i)https?:|www\.|\w@", re.sub(r"\\(.)", r"\1", out))  # no bare-URL autolink


def _markdown_texts(at: AppTest) -> list[str]:
    return [e.value for e in [*at.markdown, *at.caption, *at.success, *at.error, *at.info, *at.warning,
                              *at.subheader, *at.title]]


def test_participant_names_render_as_text_on_the_consultants_screen(catalog_path):
    with CatalogStore(catalog_path) as s:
        token = s.create_workspace(HOSTILE)
        code = s.create_group_session(token)
        s.submit_vote(code, HOSTILE[:60], {c: 50.0 for c in CRITERION_NAMES}, voter="voter-x-0123456789abcdef")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["ws"] = token
    from ui.scenario import Scenario, ScoringSection

    at.session_state["scenario"] = Scenario(scoring=ScoringSection(group_code=code))
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    texts = _markdown_texts(at)
    shown = [t for t in texts if "evil" in t]
    assert len(shown) >= 2  # the workspace's client name and the participant list
    for t in shown:
        assert "![x](" not in t and "[click](" not in t and not re.search(r"(?<!\\)<img", t) and ":red[" not in t, t


def test_a_hostile_join_value_is_not_echoed(catalog_path):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["join"] = HOSTILE
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    assert any("join link is not valid" in e.value for e in at.error)
    assert not [t for t in _markdown_texts(at) if "evil" in t]


def test_a_participant_name_is_thanked_as_text(catalog_path):
    with CatalogStore(catalog_path) as s:
        code = s.create_group_session(s.create_workspace("ACME"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["join"] = code
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    at.text_input(key="gw_name").set_value("![x](http://evil.example/t.png)").run()
    at.button(key="gw_submit").click().run()
    thanks = next(s.value for s in at.success)
    assert "evil" in thanks and "![x](" not in thanks
