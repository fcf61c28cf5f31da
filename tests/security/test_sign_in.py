"""Issue #15 items 2 and 3, #20 item 6: sign-in fails closed.

* Local mode (editing without sign-in) needs an explicit setting *and* a loopback address; a loopback address
  alone (a reverse proxy on the same host) no longer makes every visitor an editor.
* A secrets file that does not parse gives read-only with a visible error and a log line, not local mode.
* The role is read again on every rerun: a demoted editor loses rights in the open session, and a save clicked
  before the demotion is refused.
* OIDC: an e-mail address counts for the editor list only when the identity provider says it is verified.
* Passwords: the lockout holds under parallel attempts, a client is limited across names, an unknown name costs
  a bcrypt check like a known one, and a password over bcrypt's 72 bytes gets a message.
"""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

import bcrypt
import pytest
from streamlit import config

from catalog.store import CatalogStore
from tests.security.conftest import HASH, PASSWORD, PASSWORD_SECRETS, new_session, sign_in

OIDC = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 20, "client_id": "c",
        "client_secret": "s", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


@pytest.fixture
def no_secrets_file(tmp_path, monkeypatch):
    """Streamlit reads secrets from these paths only (none exists); the environment names no local editing."""
    previous = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(tmp_path / "absent" / "secrets.toml")])
    monkeypatch.delenv("GPU_ADVISOR_LOCAL_EDITING", raising=False)
    _fresh_secrets(monkeypatch)
    yield
    config.set_option("secrets.files", previous)


def _fresh_secrets(monkeypatch):
    import streamlit
    from streamlit.runtime.secrets import Secrets

    monkeypatch.setattr(streamlit, "secrets", Secrets())


@pytest.fixture
def address():
    """Set ``server.address`` for the test (as `streamlit run --server.address` does)."""
    previous = config.get_option("server.address")

    def set_address(value: str | None) -> None:
        config.set_option("server.address", value)

    yield set_address
    config.set_option("server.address", previous)


def _editor_page(secrets: dict | None = None, user: dict | None = None):
    at = new_session(secrets)
    if user is not None:
        at.user = user
    at.run()
    at.switch_page("app_pages/editor.py").run()
    assert not at.exception, at.exception
    return at


def _can_save(at) -> bool:
    return bool([b for b in at.button if b.label == "Save changes"])


# --------------------------------------------------------------------------------------------------
# Item 2: local mode needs an explicit setting
# --------------------------------------------------------------------------------------------------

def test_loopback_alone_does_not_grant_editing(catalog_path, no_secrets_file, address):
    address("127.0.0.1")  # e.g. behind a reverse proxy on the same host: every visitor arrives from loopback
    at = _editor_page()
    assert not _can_save(at)
    assert any("Read-only" in i.value for i in at.info)
    assert not any("Local mode" in w.value for w in at.warning)


def test_local_editing_needs_the_setting_and_a_loopback_address(catalog_path, no_secrets_file, address, monkeypatch):
    address("127.0.0.1")
    at = _editor_page({"local_mode": {"editing": True}})
    assert _can_save(at)
    assert any("Local mode" in w.value for w in at.warning)
    assert not _can_save(_editor_page({"local_mode": {"editing": "yes"}}))  # only the boolean true counts
    address("0.0.0.0")
    served = _editor_page({"local_mode": {"editing": True}})
    assert not _can_save(served)
    assert any("local editing" in e.value.lower() and "0.0.0.0" in e.value for e in served.error)
    address(None)  # Streamlit's default: every interface
    assert not _can_save(_editor_page({"local_mode": {"editing": True}}))
    # The environment variable that `make run LOCAL_EDITING=1` sets works the same way.
    address("127.0.0.1")
    monkeypatch.setenv("GPU_ADVISOR_LOCAL_EDITING", "1")
    assert _can_save(_editor_page())
    address("10.0.0.5")
    assert not _can_save(_editor_page())


def test_unparsable_secrets_give_read_only_a_visible_error_and_a_log_line(catalog_path, tmp_path, address,
                                                                        monkeypatch, caplog):
    broken = tmp_path / "secrets.toml"
    broken.write_text('[local_users.alice]\npassword_hash = "$2b$12$unterminated\nrole = "editor"\n')
    previous = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(broken)])
    _fresh_secrets(monkeypatch)
    monkeypatch.setenv("GPU_ADVISOR_LOCAL_EDITING", "1")  # even with local editing asked for
    address("127.0.0.1")
    try:
        with caplog.at_level(logging.ERROR):
            at = _editor_page()
    finally:
        config.set_option("secrets.files", previous)
    assert not _can_save(at)
    assert any("secrets" in e.value and "could not be read" in e.value for e in at.error), [e.value for e in at.error]
    assert "$2b$12$" not in " ".join(e.value for e in at.error)  # the page does not echo the file
    assert any("secrets" in r.getMessage() and str(broken) in r.getMessage() for r in caplog.records)


# --------------------------------------------------------------------------------------------------
# Item 2: the role is checked on every rerun
# --------------------------------------------------------------------------------------------------

def test_a_demoted_editor_loses_rights_in_the_open_session(catalog_path):
    at = sign_in(new_session(PASSWORD_SECRETS), "alice", PASSWORD)
    assert _can_save(at)
    at.secrets["local_users"] = {"alice": {"password_hash": HASH, "role": "viewer"}}
    at.run()
    assert not _can_save(at)
    assert any("Signed in as **alice** (viewer)" in c.value for c in at.caption)
    at.secrets["local_users"] = {"bob": {"password_hash": HASH, "role": "editor"}}
    at.run()
    assert not _can_save(at)
    assert not any("Signed in as **alice**" in c.value for c in at.caption)  # removed: signed out


def test_a_save_clicked_after_the_demotion_is_refused(catalog_path):
    at = sign_in(new_session(PASSWORD_SECRETS), "alice", PASSWORD)
    with CatalogStore(catalog_path) as s:
        before = s.data_version
    at.session_state["ed_prices"] = {"edited_rows": {0: {"amount_per_gpu_hour": 0.01}}, "added_rows": [],
                                     "deleted_rows": []}
    at.text_input(key="ed_msg_prices").set_value("sneaky save")
    at.secrets["local_users"] = {"alice": {"password_hash": HASH, "role": "viewer"}}
    at.button(key="ed_save_prices").click().run()  # the button was drawn while alice was an editor
    with CatalogStore(catalog_path) as s:
        assert s.data_version == before
        assert len(s.change_sets()) == 1  # the seed build only


def test_oidc_email_counts_only_when_verified(catalog_path):
    secrets = {"auth": OIDC, "editors": {"emails": ["ed@example.com"]}}
    verified = _editor_page(secrets, {"is_logged_in": True, "email": "ed@example.com", "email_verified": True})
    assert _can_save(verified)
    for claims in ({"email_verified": False}, {}, {"email_verified": "false"}):
        unverified = _editor_page(secrets, {"is_logged_in": True, "email": "ed@example.com", **claims})
        assert not _can_save(unverified), claims
        assert any("not verified" in i.value for i in unverified.info), claims
    by_claim = {"auth": OIDC, "editors": {"claim": "roles", "claim_value": "catalog-editor"}}
    assert _can_save(_editor_page(by_claim, {"is_logged_in": True, "email": "x@example.com",
                                             "roles": ["catalog-editor"]}))


# --------------------------------------------------------------------------------------------------
# Item 3: password sign-in
# --------------------------------------------------------------------------------------------------

USERS = {"alice": {"password_hash": HASH, "role": "editor"}}


def test_parallel_attempts_cannot_bypass_the_lockout(counted_checks):
    from ui import auth

    results, start = [], threading.Barrier(40)

    def attempt(i: int) -> None:
        start.wait()
        results.append(auth.attempt_sign_in("alice", f"guess-{i}", USERS, client=f"10.0.0.{i}"))

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counted_checks) <= auth.MAX_FAILURES  # at most five guesses were checked
    assert sum(r.outcome == "locked" for r in results) >= 40 - auth.MAX_FAILURES
    assert not any(r.ok for r in results)
    # ... and the right password is refused too while the name is locked
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="10.0.0.99").outcome == "locked"


def test_a_successful_sign_in_does_not_count_as_a_failure(counted_checks):
    from ui import auth

    for i in range(auth.MAX_FAILURES - 1):
        assert auth.attempt_sign_in("alice", f"wrong-{i}", USERS, client="c").outcome == "wrong"
    for _ in range(3):
        assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="c").ok


def test_one_client_is_limited_across_names(counted_checks):
    from ui import auth

    names = [f"user{i}" for i in range(auth.MAX_CLIENT_FAILURES)]
    for name in names:
        assert auth.attempt_sign_in(name, "guess", USERS, client="203.0.113.7").outcome == "wrong"
    blocked = auth.attempt_sign_in("alice", PASSWORD, USERS, client="203.0.113.7")
    assert blocked.outcome == "client-locked" and not blocked.ok
    assert auth.attempt_sign_in("alice", PASSWORD, USERS, client="198.51.100.1").ok  # another client is not


def test_an_unknown_name_costs_a_bcrypt_check_of_the_same_cost(counted_checks):
    from ui import auth

    users = {"alice": {"password_hash": bcrypt.hashpw(b"pw", bcrypt.gensalt(rounds=6)).decode(), "role": "editor"}}
    result = auth.attempt_sign_in("mallory", "guess", users, client="c")
    assert result.outcome == "wrong"
    assert len(counted_checks) == 1
    assert counted_checks[0][:7] == b"$2b$06$"  # a dummy hash with the configured cost
    assert auth.attempt_sign_in("alice", "guess", users, client="c").message == result.message


def test_a_password_over_72_bytes_gets_a_message(catalog_path):
    from ui import auth

    result = auth.attempt_sign_in("alice", "é" * 40, USERS, client="c")  # 80 bytes in UTF-8
    assert not result.ok and "72 bytes" in result.message
    at = new_session(PASSWORD_SECRETS)
    at.run()
    sign_in(at, "alice", "x" * 100)
    assert not at.exception
    assert any("72 bytes" in e.value for e in at.error)


# --------------------------------------------------------------------------------------------------
# Issue #28.6: local mode refused for a request that came through a proxy or from another machine
# --------------------------------------------------------------------------------------------------

@pytest.fixture
def request_from(monkeypatch):
    """Make every session's request look as given: its handshake headers and the client's address
    (Streamlit's own ``st.context.headers`` / ``ip_address`` read these)."""
    import streamlit.runtime.context as context

    def set_request(headers: list[tuple[str, str]], remote_ip: str | None = "127.0.0.1") -> None:
        client = SimpleNamespace(headers=headers, cookies={}, remote_ip=remote_ip)
        monkeypatch.setattr(context, "_get_client_context", lambda: client)

    return set_request


@pytest.mark.parametrize("header", [("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=203.0.113.9"),
                                    ("X-Real-IP", "203.0.113.9"), ("x-forwarded-for", "127.0.0.1")])
def test_local_mode_is_refused_for_a_forwarded_request(catalog_path, no_secrets_file, address, request_from,
                                                        header):
    address("127.0.0.1")
    request_from([("Host", "localhost:8501"), header])
    at = _editor_page({"local_mode": {"editing": True}})
    assert not _can_save(at)
    assert not any("Local mode" in w.value for w in at.warning)
    assert any("refused for this request" in e.value and "forwarding header" in e.value for e in at.error)


def test_local_mode_is_refused_for_a_non_loopback_client(catalog_path, no_secrets_file, address, request_from):
    address("127.0.0.1")
    request_from([("Host", "localhost:8501")], remote_ip="192.0.2.7")
    at = _editor_page({"local_mode": {"editing": True}})
    assert not _can_save(at)
    assert any("non-loopback address" in e.value for e in at.error)
    request_from([("Host", "localhost:8501")], remote_ip="127.0.0.1")  # straight from this machine: allowed
    assert _can_save(_editor_page({"local_mode": {"editing": True}}))
