"""AppTest of group weighting: a participant submits weights; the consultant sees the group and can adopt it."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from catalog.store import CatalogStore
from engine.scoring import CRITERION_NAMES
from ui.scenario import Scenario, ScoringSection

ROOT = Path(__file__).resolve().parents[2]
VOTER_A, VOTER_B = "voter-a-0123456789abcdef", "voter-b-0123456789abcdef"


def _session(catalog_path) -> tuple[str, str]:
    with CatalogStore(catalog_path) as s:
        token = s.create_workspace("ACME")
        return token, s.create_group_session(token)


def test_a_participant_submits_weights_through_the_join_link(catalog_path):
    token, code = _session(catalog_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["join"] = code
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    at.text_input(key="gw_name").set_value("Dana").run()
    at.slider(key="gw_price_eur_per_gpu_hour").set_value(90).run()
    at.button(key="gw_submit").click().run()
    assert any("your weights are in" in s.value for s in at.success)
    with CatalogStore(catalog_path) as s:
        votes = s.votes(code, token)
    assert votes["Dana"]["price_eur_per_gpu_hour"] == 90.0


def test_the_consultant_sees_the_group_and_adopts_its_weights(catalog_path):
    token, code = _session(catalog_path)
    with CatalogStore(catalog_path) as s:
        s.submit_vote(code, "Ann", {c: (80.0 if c == "price_eur_per_gpu_hour" else 10.0) for c in CRITERION_NAMES},
                      voter=VOTER_A)
        s.submit_vote(code, "Ben", {c: (20.0 if c == "price_eur_per_gpu_hour" else 10.0) for c in CRITERION_NAMES},
                      voter=VOTER_B)
        other = s.create_group_session(token)
        s.submit_vote(other, "Cy", {}, voter=VOTER_A)  # another session: must not show up
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["ws"] = token
    at.session_state["scenario"] = Scenario(scoring=ScoringSection(group_code=code))
    at.run()
    at.switch_page("app_pages/workshop.py").run()
    assert not at.exception
    assert any("2 participant(s)" in m.value for m in at.markdown)
    winners = next(d.value for d in at.dataframe if "#1 offer" in d.value.columns)
    assert list(winners["who"]) == ["Group (geometric mean)", "Ann", "Ben"]
    at.button(key="gw_use").click().run()
    scoring = at.session_state["scenario"].scoring
    # price: gm(80/220, 20/160) over the others' gm(10/220, 10/160) -> price share 0.4*sqrt(...) > others
    assert scoring.weight_points["price_eur_per_gpu_hour"] > scoring.weight_points["support_score"]
    assert set(scoring.group_votes) == {"Ann", "Ben"}
