"""Who is using the app, and may they edit the catalog? Every answer fails closed.

Three ways, chosen by what ``.streamlit/secrets.toml`` configures (README "Sign-in" and "Security model"):

1. **OIDC** (``[auth]`` section): Streamlit's ``st.login`` with the ``streamlit[auth]`` extra. A signed-in
   user is an editor when their e-mail is in ``[editors] emails`` *and* the identity provider marks it
   verified (``email_verified``), or when their ID token carries ``[editors] claim`` (e.g. ``roles``)
   containing ``[editors] claim_value`` (default ``editor``).
2. **Local passwords** (``[local_users.<name>]`` with ``password_hash`` and ``role``): salted bcrypt
   hashes, never plaintext. Five failed attempts lock a name and twenty lock a client address for five
   minutes; the count is taken before the hash is checked, so parallel attempts cannot get past it. On the
   PostgreSQL backend the failures are counted in the catalog database (``login_failures``), so the limits
   hold across every replica of a cluster; on the DuckDB file (one process) in this process's memory. An
   unknown name costs a bcrypt check like a known one.
3. **Local mode**: editing without sign-in, only when asked for explicitly (``[local_mode] editing = true``
   in the secrets file, or ``GPU_ADVISOR_LOCAL_EDITING=1``, which ``make run LOCAL_EDITING=1`` sets) *and*
   the server listens on loopback; under a visible banner. Otherwise everyone is a viewer.

A secrets file that does not parse means read-only for everyone, with an error on the Editor page and a log
line, never a fallback to local mode. The role is read again on every rerun (a demoted or removed user loses
rights in the open session) and again when a save runs; the store checks it once more at its write entry
point (:meth:`catalog.store.CatalogStore.apply_changes`).
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st
from streamlit import config
from streamlit.errors import StreamlitSecretNotFoundError

from catalog.errors import CatalogError
from catalog.models import Editor, Role
from catalog.storage.interface import SharedSignInFailures

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
#: Environment variable that switches local editing on (``make run LOCAL_EDITING=1``); loopback only.
LOCAL_EDITING_ENV = "GPU_ADVISOR_LOCAL_EDITING"
MAX_FAILURES = 5  # per user name
MAX_CLIENT_FAILURES = 20  # per client address, across names (a client spraying many names)
LOCKOUT_SECONDS = 300
#: bcrypt reads at most 72 bytes of a password (the bcrypt package refuses longer ones).
BCRYPT_MAX_BYTES = 72
_SESSION_USER = "_auth_local_user"
_LOG = logging.getLogger("gpu_cloud_advisor")
_WRONG = "Unknown user name or wrong password."
_UNREADABLE = ("**Editing is disabled: the sign-in configuration could not be read.** The secrets file "
               "(`.streamlit/secrets.toml`) does not parse, so everyone is read-only until it is fixed; the "
               "server log names the problem.")


class SecretsUnreadableError(Exception):
    """A secrets file exists but could not be read or parsed."""


def _secrets() -> Mapping:
    """The parsed secrets; empty when no secrets file exists. Raises :class:`SecretsUnreadableError` when a
    file exists but does not parse (never treated as "nothing configured")."""
    try:
        return st.secrets.to_dict() if len(st.secrets) else {}
    except StreamlitSecretNotFoundError as exc:
        if getattr(exc, "error_id", None) == "no-secrets-found" or str(exc).startswith("No secrets found"):
            return {}
        raise SecretsUnreadableError(str(exc)) from exc
    except (OSError, ValueError) as exc:  # unreadable file, not UTF-8
        raise SecretsUnreadableError(f"{type(exc).__name__}: {exc}") from exc


_logged: set[str] = set()
_logged_lock = threading.Lock()


def _log_once(message: str) -> None:
    with _logged_lock:
        if message in _logged:
            return
        _logged.add(message)
    _LOG.error(message)


@dataclass(frozen=True)
class AuthState:
    """How sign-in is configured right now: ``mode`` is oidc, password, local, none or error; ``problem`` is
    a configuration problem to show on the Editor page (never the secrets themselves)."""

    mode: str
    secrets: Mapping
    problem: str | None = None


def _local_editing_requested(secrets: Mapping) -> bool:
    section = secrets.get("local_mode")
    from_secrets = isinstance(section, Mapping) and section.get("editing") is True
    return from_secrets or os.environ.get(LOCAL_EDITING_ENV, "").strip().lower() in {"1", "true", "yes"}


def auth_state() -> AuthState:
    try:
        secrets = _secrets()
    except SecretsUnreadableError as exc:
        _log_once(f"secrets could not be read; sign-in and editing are disabled (read-only): {exc}")
        return AuthState("error", {}, _UNREADABLE)
    if "auth" in secrets:
        return AuthState("oidc", secrets)
    if "local_users" in secrets:
        return AuthState("password", secrets)
    if _local_editing_requested(secrets):
        address = config.get_option("server.address") or ""
        if address in LOOPBACK:
            proxied = _proxied_request()
            if proxied:
                _log_once(f"local editing refused for a request {proxied}: read-only")
                return AuthState("none", secrets, f"**Local editing is switched on but refused for this request:** "
                                                  f"it {proxied}, so it did not come straight from this machine "
                                                  "(a reverse proxy would make every visitor look local). Everyone "
                                                  "reaching the server this way is read-only until sign-in is "
                                                  "configured (README, Sign-in).")
            return AuthState("local", secrets)
        where = address or "every interface (no server.address)"
        return AuthState("none", secrets, f"**Local editing is switched on but ignored:** the server listens on "
                                          f"{where}, not on loopback. Everyone is read-only until sign-in is "
                                          "configured (README, Sign-in).")
    return AuthState("none", secrets)


def auth_mode() -> str:
    return auth_state().mode


def _email_verified(user: Mapping) -> bool:
    flag = user.get("email_verified")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")


def _listed_email(user: Mapping, editors: Mapping) -> bool:
    email = (user.get("email") or "").lower()
    return bool(email) and email in {str(e).lower() for e in editors.get("emails", [])}


def _oidc_role(user: Mapping, editors: Mapping) -> Role:
    if _listed_email(user, editors) and _email_verified(user):
        return Role.EDITOR
    claim = editors.get("claim")
    if claim:
        value = user.get(claim)
        wanted = editors.get("claim_value", "editor")
        if value == wanted or (isinstance(value, list | tuple) and wanted in value):
            return Role.EDITOR
    return Role.VIEWER


def _password_role(record: Mapping) -> Role:
    return Role.EDITOR if record.get("role") == Role.EDITOR.value else Role.VIEWER


def _session_user() -> str | None:
    stored = st.session_state.get(_SESSION_USER)
    if isinstance(stored, Mapping):  # sessions signed in before the role was re-read per rerun
        stored = stored.get("name")
    return stored if isinstance(stored, str) and stored else None


def is_editor() -> bool:
    who = current_editor()
    return who is not None and who.role == Role.EDITOR


def current_editor(state: AuthState | None = None) -> Editor | None:
    """The signed-in person (role editor or viewer), or None when nobody is signed in. Read from the current
    configuration on every call: a user demoted or removed there loses the role at the next rerun."""
    state = state or auth_state()
    if state.mode == "oidc":
        if not st.user.is_logged_in:
            return None
        user = st.user.to_dict()
        name = str(user.get("email") or user.get("name") or "signed-in user")[:200]
        editors = state.secrets.get("editors", {})
        return Editor(name=name, role=_oidc_role(user, editors if isinstance(editors, Mapping) else {}))
    if state.mode == "password":
        session_name = _session_user()
        if session_name is None:
            return None
        users = state.secrets.get("local_users", {})
        record = users.get(session_name) if isinstance(users, Mapping) else None
        if not isinstance(record, Mapping):  # removed from the configuration: signed out
            st.session_state.pop(_SESSION_USER, None)
            return None
        return Editor(name=session_name[:200], role=_password_role(record))
    if state.mode == "local":
        return Editor(name="local editor", role=Role.EDITOR)
    return None


def require_editor() -> Editor | None:
    """The current user if they hold the editor role *now* (for actions run from a callback, whose
    arguments were bound when the button was drawn), else None."""
    who = current_editor()
    return who if who is not None and who.role == Role.EDITOR else None


# --------------------------------------------------------------------------------------------------
# Password attempts
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SignInResult:
    outcome: str  # "ok", "wrong", "locked" (this name), "client-locked" (this address), "too-long",
    # "unavailable" (the database that counts the failures cannot be reached: refused, fails closed)
    message: str

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


class _Attempts:
    """Failed-attempt times per name and per client in this process, behind one lock (shared by every session):
    the count of the DuckDB backend (one process); a shared store counts in its database instead."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_name: dict[str, list[float]] = {}
        self.by_client: dict[str, list[float]] = {}

    def recent(self, table: dict[str, list[float]], key: str, now: float) -> list[float]:
        if len(table) > 10_000:  # forget names and clients with nothing recent
            for k in [k for k, v in table.items() if not v or now - v[-1] >= LOCKOUT_SECONDS]:
                del table[k]
        fails = table.setdefault(key, [])
        fails[:] = [t for t in fails if now - t < LOCKOUT_SECONDS]  # in place: one list per key, always
        return fails


@st.cache_resource
def _attempts() -> _Attempts:
    return _Attempts()


@functools.lru_cache(maxsize=8)
def _dummy_hash(cost: int) -> bytes:
    import bcrypt

    return bcrypt.hashpw(b"no such user", bcrypt.gensalt(rounds=cost))


def _cost(users: Mapping) -> int:
    """The bcrypt cost of the configured hashes (``$2b$12$...`` → 12), so a dummy check costs the same."""
    for record in users.values():
        hashed = record.get("password_hash") if isinstance(record, Mapping) else None
        if isinstance(hashed, str) and len(hashed) > 7 and hashed[4:6].isdigit():
            return min(max(int(hashed[4:6]), 4), 31)
    return 12


def _check(username: str, secret: bytes, users: Mapping) -> bool:
    import bcrypt

    record = users.get(username)
    hashed = record.get("password_hash") if isinstance(record, Mapping) else None
    if not isinstance(hashed, str) or not hashed:
        bcrypt.checkpw(secret, _dummy_hash(_cost(users)))  # the same work as for a real name
        return False
    try:
        return bcrypt.checkpw(secret, hashed.encode())
    except ValueError:
        _log_once(f"local_users.{username}.password_hash is not a bcrypt hash: that user cannot sign in")
        return False


def _refusal(outcome: str, username: str) -> SignInResult:
    if outcome == "locked":
        return SignInResult("locked", f"Too many failed attempts for {username!r}: try again in a few minutes.")
    return SignInResult("client-locked", "Too many failed sign-in attempts from your address: try again "
                                         "in a few minutes.")


def attempt_sign_in(username: str, password: str, users: Mapping, *, client: str | None,
                    store: object | None = None) -> SignInResult:
    """Check a password with the lockouts applied atomically: the attempt is counted as failed *before* the
    hash is checked (and uncounted if it succeeds), so parallel attempts all see each other. A ``store`` shared by
    several processes (:class:`~catalog.storage.interface.SharedSignInFailures`, the PostgreSQL backend) counts in
    its database, for every replica; otherwise this process counts."""
    secret = password.encode()
    if len(secret) > BCRYPT_MAX_BYTES:
        return SignInResult("too-long", f"Passwords are limited to {BCRYPT_MAX_BYTES} bytes (bcrypt's limit); "
                                        "this one is longer, so it cannot match.")
    client = client if isinstance(client, str) and client else "local"  # a real server gives a str or None
    if isinstance(store, SharedSignInFailures):
        return _attempt_counted_by(store, username, secret, users, client)
    attempts, now = _attempts(), time.monotonic()
    with attempts.lock:
        by_name = attempts.recent(attempts.by_name, username, now)
        by_client = attempts.recent(attempts.by_client, client, now)
        if len(by_name) >= MAX_FAILURES:
            return _refusal("locked", username)
        if len(by_client) >= MAX_CLIENT_FAILURES:
            return _refusal("client-locked", username)
        by_name.append(now)
        by_client.append(now)
    if not _check(username, secret, users):
        return SignInResult("wrong", _WRONG)
    with attempts.lock:
        for fails in (by_name, by_client):
            if now in fails:
                fails.remove(now)
    return SignInResult("ok", "")


def _attempt_counted_by(store: SharedSignInFailures, username: str, secret: bytes, users: Mapping,
                        client: str) -> SignInResult:
    """:func:`attempt_sign_in` with the failures counted by the shared store; a store that cannot count refuses."""
    attempt = secrets.token_hex(16)
    try:
        refused = store.count_login_failure(attempt, username, client, max_name_failures=MAX_FAILURES,
                                            max_client_failures=MAX_CLIENT_FAILURES, window_s=LOCKOUT_SECONDS)
    except CatalogError:
        return SignInResult("unavailable", "Sign-in is unavailable: the catalog database, which counts failed "
                                           "attempts, cannot be reached. Try again in a moment.")
    if refused is not None:
        return _refusal(refused, username)
    if not _check(username, secret, users):
        return SignInResult("wrong", _WRONG)
    try:
        store.forget_login_failure(attempt)
    except CatalogError:
        _LOG.warning("a successful sign-in still counts as a failed attempt: the catalog database could not be reached")
    return SignInResult("ok", "")


def _client_address() -> str | None:
    return getattr(st.context, "ip_address", None)


#: Headers a reverse proxy adds; a request carrying any of them did not come straight from this machine.
FORWARDING_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host", "X-Forwarded-Proto")


def _request_headers() -> Mapping:
    try:
        return st.context.headers or {}
    except Exception:  # no request context (a bare script run): nothing forwarded
        return {}


def _proxied_request() -> str | None:
    """Why this request cannot be trusted as local (issue #28.6), or None: it carries a proxy's forwarding header
    or comes from a non-loopback address (Streamlit reports loopback clients as ``ip_address`` None)."""
    headers = _request_headers()
    lowered = {str(k).lower() for k in headers.keys()}
    for name in FORWARDING_HEADERS:
        if name.lower() in lowered:
            return f"carries a forwarding header ({name})"
    address = _client_address()  # a str or None from a real server (AppTest's stand-in runtime gives neither)
    if isinstance(address, str) and address and address not in LOOPBACK:
        return "comes from a non-loopback address"
    return None


# --------------------------------------------------------------------------------------------------
# The Editor page's sign-in panel
# --------------------------------------------------------------------------------------------------

def sign_in_panel(store: object | None = None) -> Editor | None:
    """Draw what the Editor page needs to say about sign-in; return the current editor. ``store`` is the page's
    catalog store: a shared one (PostgreSQL) counts failed attempts for every replica (:func:`attempt_sign_in`)."""
    state = auth_state()
    mode = state.mode
    who = current_editor(state)
    if state.problem:
        st.error(state.problem, icon=":material/error:")
    if mode == "local":
        st.warning("**Local mode**: local editing is switched on and the server listens on loopback only, so "
                   "whoever can reach this server can edit without signing in. Never use it behind a proxy; "
                   "configure sign-in before serving others (README, Security model).",
                   icon=":material/lock_open:")
    elif mode in ("none", "error"):
        st.info("**Read-only.** Editing needs a sign-in: configure OIDC or local passwords in "
                "`.streamlit/secrets.toml` (README, Sign-in), or on your own machine start with "
                "`make run LOCAL_EDITING=1` (local mode).", icon=":material/lock:")
    elif mode == "oidc":
        if who is None:
            st.info("Sign in to edit the catalog; everyone else sees it read-only.", icon=":material/lock:")
            st.button("Log in", on_click=st.login, key="auth_login")
        else:
            c1, c2 = st.columns([4, 1])
            c1.caption(f"Signed in as **{who.name}** ({who.role.value})")
            c2.button("Log out", on_click=st.logout, key="auth_logout")
    elif mode == "password":
        if who is None:
            with st.form("auth_form"):
                username = st.text_input("User name")
                password = st.text_input("Password", type="password")
                submitted = st.form_submit_button("Sign in")
            if submitted:
                users = state.secrets.get("local_users", {})
                result = attempt_sign_in(username, password, users if isinstance(users, Mapping) else {},
                                         client=_client_address(), store=store)
                if result.ok:
                    st.session_state[_SESSION_USER] = username
                    st.rerun()
                else:
                    st.error(result.message)
        else:
            c1, c2 = st.columns([4, 1])
            c1.caption(f"Signed in as **{who.name}** ({who.role.value})")
            if c2.button("Sign out", key="auth_signout"):
                st.session_state.pop(_SESSION_USER, None)
                st.rerun()
    if who is not None and who.role != Role.EDITOR:
        hint = ""
        if mode == "oidc":
            user, editors = st.user.to_dict(), state.secrets.get("editors", {})
            if isinstance(editors, Mapping) and _listed_email(user, editors) and not _email_verified(user):
                hint = (" Your e-mail address is on the editor list, but it is not verified by your identity "
                        "provider (email_verified), so it does not count.")
        st.info(f"{who.name} is a viewer: the catalog is read-only for you.{hint} Ask an administrator for the "
                "editor role.")
    return who
