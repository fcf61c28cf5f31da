"""Who is using the app, and may they edit the catalog?

Three ways, chosen by what ``.streamlit/secrets.toml`` configures (README "Sign-in"):

1. **OIDC** (``[auth]`` section): Streamlit's ``st.login`` with the ``streamlit[auth]`` extra. A signed-in
   user is an editor when their e-mail is in ``[editors] emails`` or their ID token carries
   ``[editors] claim`` (e.g. ``roles``) containing ``[editors] claim_value`` (default ``editor``).
2. **Local passwords** (``[local_users.<name>]`` with ``password_hash`` and ``role``): salted bcrypt
   hashes, never plaintext; five failed attempts lock a name for five minutes (per server process).
3. **Local mode** (nothing configured): editing is allowed only while the server listens on loopback,
   under a visible banner. Bound to any other address, everyone is a viewer.

The role is checked again at the store's write entry point (:meth:`catalog.store.CatalogStore.apply_changes`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import streamlit as st

from catalog.models import Editor, Role

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_FAILURES = 5
LOCKOUT_SECONDS = 300
_SESSION_USER = "_auth_local_user"


def _secrets() -> Mapping:
    try:
        return st.secrets.to_dict() if len(st.secrets) else {}
    except FileNotFoundError:
        return {}
    except Exception:  # a malformed secrets file must not take the app down; show as not configured
        return {}


def auth_mode() -> str:
    secrets = _secrets()
    if "auth" in secrets:
        return "oidc"
    if "local_users" in secrets:
        return "password"
    address = st.get_option("server.address") or ""
    return "local" if address in LOOPBACK else "none"


def _oidc_role(user: Mapping, editors: Mapping) -> Role:
    email = (user.get("email") or "").lower()
    if email and email in {e.lower() for e in editors.get("emails", [])}:
        return Role.EDITOR
    claim = editors.get("claim")
    if claim:
        value = user.get(claim)
        wanted = editors.get("claim_value", "editor")
        if value == wanted or (isinstance(value, list | tuple) and wanted in value):
            return Role.EDITOR
    return Role.VIEWER


@st.cache_resource
def _failures() -> dict[str, list[float]]:
    return {}


def check_password(username: str, password: str, users: Mapping) -> bool:
    """bcrypt check with a per-name lockout after repeated failures."""
    import bcrypt

    now = time.time()
    fails = [t for t in _failures().get(username, []) if now - t < LOCKOUT_SECONDS]
    _failures()[username] = fails
    if len(fails) >= MAX_FAILURES:
        return False
    record = users.get(username)
    ok = False
    if record and record.get("password_hash"):
        ok = bcrypt.checkpw(password.encode(), record["password_hash"].encode())
    if not ok:
        fails.append(now)
    return ok


def locked_out(username: str) -> bool:
    now = time.time()
    return len([t for t in _failures().get(username, []) if now - t < LOCKOUT_SECONDS]) >= MAX_FAILURES


def is_editor() -> bool:
    who = current_editor()
    return who is not None and who.role == Role.EDITOR


def current_editor() -> Editor | None:
    """The signed-in person (role editor or viewer), or None when nobody is signed in."""
    mode = auth_mode()
    if mode == "oidc":
        if not st.user.is_logged_in:
            return None
        user = st.user.to_dict()
        name = user.get("email") or user.get("name") or "signed-in user"
        return Editor(name=name, role=_oidc_role(user, _secrets().get("editors", {})))
    if mode == "password":
        record = st.session_state.get(_SESSION_USER)
        return Editor(**record) if record else None
    if mode == "local":
        return Editor(name="local editor", role=Role.EDITOR)
    return None


def sign_in_panel() -> Editor | None:
    """Draw what the Editor page needs to say about sign-in; return the current editor."""
    mode = auth_mode()
    who = current_editor()
    if mode == "local":
        st.warning("**Local mode**: no sign-in is configured and the server listens on loopback only, so "
                   "whoever uses this machine can edit. Configure sign-in before serving others (README).",
                   icon=":material/lock_open:")
    elif mode == "none":
        st.info("**Read-only.** Editing needs a sign-in: configure OIDC or local passwords in "
                "`.streamlit/secrets.toml` (README, Sign-in), or run the server on loopback for local mode.",
                icon=":material/lock:")
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
                users = _secrets().get("local_users", {})
                if locked_out(username):
                    st.error(f"Too many failed attempts for {username!r}: try again in a few minutes.")
                elif check_password(username, password, users):
                    st.session_state[_SESSION_USER] = {"name": username, "role": users[username].get("role", "viewer")}
                    st.rerun()
                else:
                    st.error("Unknown user name or wrong password.")
        else:
            c1, c2 = st.columns([4, 1])
            c1.caption(f"Signed in as **{who.name}** ({who.role.value})")
            if c2.button("Sign out", key="auth_signout"):
                st.session_state.pop(_SESSION_USER, None)
                st.rerun()
    if who is not None and who.role != Role.EDITOR:
        st.info(f"{who.name} is a viewer: the catalog is read-only for you. Ask an administrator for the editor role.")
    return who
