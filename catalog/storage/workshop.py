"""Workshop persistence: client workspaces, saved scenarios, group-weighting votes (not catalog data: no change
log, no data version). Written once for every backend in portable SQL with ``?`` placeholders; writes run
under :meth:`StoreBase._write_cursor` (one writer at a time, across replicas on PostgreSQL)."""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets

import pandas as pd

from catalog.errors import CatalogError, CatalogPermissionError
from catalog.models import Editor, Role
from catalog.storage.common import StoreBase, store_write

#: Workshop limits (issue #15: a link or a participant must not grow the file or the page without bound).
MAX_SCENARIOS_PER_WORKSPACE = 200
MAX_SCENARIO_JSON_CHARS = 1_000_000
#: All scenarios of one workspace together (issue #28.11: 200 scenarios of 1 MB each were 200 MB per link).
MAX_WORKSPACE_JSON_CHARS = 10_000_000
#: Scenario ids are random (issue #28.11: a global sequence told anyone how many scenarios exist), below 2**53 so
#: that a browser's numbers hold them exactly.
_SCENARIO_ID_BOUND = 2**53 - 1
MAX_PARTICIPANTS = 50
MAX_PARTICIPANT_NAME = 60
MAX_WORKSHOP_TEXT = 120
WORKSPACE_TOKEN_BYTES = 18  # 144 random bits, 24 URL-safe characters
GROUP_CODE_BYTES = 9  # 72 random bits, 12 URL-safe characters
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{8,64}")


def workspace_id(token: str) -> str:
    """The stored key of a link token (SHA-256 hex): the catalog file never holds a working link."""
    return hashlib.sha256(token.encode()).hexdigest()


def _no_nul(text: str) -> str:
    """Names are stored as text; PostgreSQL refuses a NUL character in text (issue #28.9), DuckDB keeps it: both
    refuse it here, with a message."""
    if "\x00" in text:
        raise CatalogError("Names cannot contain a NUL character.")
    return text


class Workshop(StoreBase):
    """Workspaces, scenarios and votes of :class:`CatalogStore`."""

    @store_write
    def create_workspace(self, client: str, *, created_by: str | None = None) -> str:
        """Open a new client workspace and return its link token (shown once; only its hash is stored)."""
        client = _no_nul((client or "").strip())
        if not client:
            raise CatalogError("A workspace needs the client's name.")
        if len(client) > MAX_WORKSHOP_TEXT:
            raise CatalogError(f"The client name is longer than {MAX_WORKSHOP_TEXT} characters.")
        token = secrets.token_urlsafe(WORKSPACE_TOKEN_BYTES)
        with self._write_cursor() as cur:
            cur.execute("INSERT INTO workspaces VALUES (?, ?, now(), ?)", [workspace_id(token), client, created_by])
        return token

    def workspace(self, token: str | None) -> dict | None:
        """The workspace a link token opens ({"client", "created_at"}), or None for an unknown token."""
        if not token or not _TOKEN_RE.fullmatch(token) or not self._has_table("workspaces"):
            return None
        row = self.cursor().execute("SELECT client, created_at FROM workspaces WHERE workspace_id = ?",
                                    [workspace_id(token)]).fetchone()
        return None if row is None else {"client": row[0], "created_at": row[1]}

    def _workspace_id(self, token: str | None) -> str:
        if self.workspace(token) is None:
            raise CatalogError("This workspace link is not valid (unknown or mistyped). Open the link the "
                               "consultant gave you, or start a new workspace.")
        return workspace_id(token or "")

    @store_write
    def save_scenario(self, name: str, scenario_json: str, scenario_version: int, *, workspace: str,
                      client: str | None = None, author: str | None = None) -> int:
        """Store a named scenario in the workspace whose link token is ``workspace`` (any user who holds the
        link may; scenarios are not catalog data). Returns its id."""
        _no_nul(client or "")
        if not _no_nul(name or "").strip():
            raise CatalogError("A scenario needs a name.")
        if len(name.strip()) > MAX_WORKSHOP_TEXT or len(client or "") > MAX_WORKSHOP_TEXT:
            raise CatalogError(f"Names are limited to {MAX_WORKSHOP_TEXT} characters.")
        if len(scenario_json) > MAX_SCENARIO_JSON_CHARS:
            raise CatalogError(f"The scenario is larger than {MAX_SCENARIO_JSON_CHARS // 1000:,} kB; nothing was saved.")
        ws = self._workspace_id(workspace)
        with self._write_cursor() as cur:
            count, used = cur.execute("SELECT count(*), coalesce(sum(length(scenario_json)), 0) FROM scenarios "
                                      "WHERE workspace_id = ?", [ws]).fetchone()
            if count >= MAX_SCENARIOS_PER_WORKSPACE:
                raise CatalogError(f"This workspace already holds {MAX_SCENARIOS_PER_WORKSPACE} scenarios; ask an "
                                   "editor to delete old ones first.")
            if int(used) + len(scenario_json) > MAX_WORKSPACE_JSON_CHARS:
                raise CatalogError(f"This workspace's scenarios would pass {MAX_WORKSPACE_JSON_CHARS // 1_000_000} MB "
                                   "together; ask an editor to delete old ones first. Nothing was saved.")
            while True:  # random, not sequential: an id says nothing about how many scenarios exist
                new_id = secrets.randbelow(_SCENARIO_ID_BOUND) + 1
                if not cur.execute("SELECT count(*) FROM scenarios WHERE scenario_id = ?", [new_id]).fetchone()[0]:
                    break
            cur.execute("INSERT INTO scenarios (scenario_id, name, client, author, created_at, scenario_version, "
                        "scenario_json, workspace_id) VALUES (?, ?, ?, ?, now(), ?, ?, ?)",
                        [new_id, name.strip(), client, author, scenario_version, scenario_json, ws])
        return new_id

    def list_scenarios(self, workspace: str | None) -> pd.DataFrame:
        """The scenarios of one workspace (newest first); an unknown or missing token lists nothing."""
        cols = ["scenario_id", "name", "client", "author", "created_at", "scenario_version"]
        if self.workspace(workspace) is None:
            return pd.DataFrame(columns=cols)
        return self.cursor().execute(
            f"SELECT {', '.join(cols)} FROM scenarios WHERE workspace_id = ? ORDER BY created_at DESC, scenario_id DESC",
            [workspace_id(workspace or "")]).df()

    def scenario_json(self, scenario_id: int, workspace: str | None) -> str:
        row = None
        if self.workspace(workspace) is not None:
            row = self.cursor().execute("SELECT scenario_json FROM scenarios WHERE scenario_id = ? AND workspace_id = ?",
                                        [int(scenario_id), workspace_id(workspace or "")]).fetchone()
        if row is None:
            raise CatalogError(f"No saved scenario #{scenario_id} in this workspace.")
        return row[0]

    @store_write
    def delete_scenario(self, scenario_id: int, workspace: str | None, editor: Editor) -> None:
        """Delete one saved scenario of a workspace: editors only (the role is checked here again)."""
        if editor is None or editor.role != Role.EDITOR:
            raise CatalogPermissionError("Only an editor can delete a saved scenario; nothing was deleted.")
        ws = self._workspace_id(workspace)
        with self._write_cursor() as cur:
            if cur.execute("SELECT count(*) FROM scenarios WHERE scenario_id = ? AND workspace_id = ?",
                           [int(scenario_id), ws]).fetchone()[0] == 0:
                raise CatalogError(f"No saved scenario #{scenario_id} in this workspace; nothing was deleted.")
            cur.execute("DELETE FROM scenarios WHERE scenario_id = ? AND workspace_id = ?", [int(scenario_id), ws])

    @store_write
    def create_group_session(self, workspace: str) -> str:
        """Start a group-weighting session in a workspace; returns its join code (unguessable)."""
        ws = self._workspace_id(workspace)
        code = secrets.token_urlsafe(GROUP_CODE_BYTES)
        with self._write_cursor() as cur:
            cur.execute("INSERT INTO group_sessions VALUES (?, ?, now())", [code, ws])
        return code

    def group_session_exists(self, session_code: str | None) -> bool:
        if not session_code or not _TOKEN_RE.fullmatch(session_code) or not self._has_table("group_sessions"):
            return False
        return self.cursor().execute("SELECT count(*) FROM group_sessions WHERE session_code = ?",
                                     [session_code]).fetchone()[0] > 0

    @store_write
    def submit_vote(self, session_code: str, participant: str, weight_points: dict[str, float], *, voter: str) -> None:
        """Store one participant's weight points in a group session, bound to the browser session that cast it
        (``voter`` is that session's secret; only its hash is stored). One vote per voter: the same voter voting
        again (another tab of the same browser, issue #28.8) replaces its vote, points and name; a name another
        voter holds is refused, as is a session past :data:`MAX_PARTICIPANTS`."""
        participant = _no_nul((participant or "").strip())
        if not participant:
            raise CatalogError("Enter your name before submitting.")
        if len(participant) > MAX_PARTICIPANT_NAME:
            raise CatalogError(f"Names are limited to {MAX_PARTICIPANT_NAME} characters.")
        if not voter or len(voter) < 16:
            raise CatalogError("This browser session has no voter id; reload the join link.")
        if not all(isinstance(v, int | float) and math.isfinite(v) and 0 <= v <= 100 for v in weight_points.values()) \
                or len(weight_points) > 64:
            raise CatalogError("Weight points must be numbers from 0 to 100.")
        if not self.group_session_exists(session_code):
            raise CatalogError("This join link is not valid (unknown session). Ask the consultant for the link again.")
        vid = workspace_id(voter)
        with self._write_cursor() as cur:
            holder = cur.execute("SELECT voter_id FROM workshop_votes WHERE session_code = ? AND participant = ?",
                                 [session_code, participant]).fetchone()
            if holder is not None and holder[0] != vid:
                raise CatalogError(f"Someone else has already voted as {participant!r} in this session. Add your "
                                   "initial or pick another name.")
            mine = cur.execute("SELECT count(*) FROM workshop_votes WHERE session_code = ? AND voter_id = ?",
                               [session_code, vid]).fetchone()[0]
            others = cur.execute("SELECT count(*) FROM workshop_votes WHERE session_code = ? AND voter_id IS DISTINCT FROM ?",
                                 [session_code, vid]).fetchone()[0]
            if not mine and others >= MAX_PARTICIPANTS:
                raise CatalogError(f"This session already has {MAX_PARTICIPANTS} participants; it takes no more.")
            cur.execute("BEGIN TRANSACTION")
            try:
                cur.execute("DELETE FROM workshop_votes WHERE session_code = ? AND voter_id = ?", [session_code, vid])
                cur.execute("INSERT INTO workshop_votes (session_code, participant, weight_points_json, updated_at, "
                            "voter_id) VALUES (?, ?, ?, now(), ?)",
                            [session_code, participant, json.dumps(weight_points, sort_keys=True), vid])
                cur.execute("COMMIT")
            except Exception:
                cur.execute("ROLLBACK")
                raise

    def group_session_in_workspace(self, session_code: str | None, workspace: str | None) -> bool:
        """Whether a group session was started in the workspace whose link token is ``workspace`` (issue #28.8:
        a ``scoring.group_code`` from a link opens nothing in another workspace)."""
        if not self.group_session_exists(session_code) or self.workspace(workspace) is None:
            return False
        return self.cursor().execute("SELECT count(*) FROM group_sessions WHERE session_code = ? AND workspace_id = ?",
                                     [session_code, workspace_id(workspace or "")]).fetchone()[0] > 0

    def votes(self, session_code: str, workspace: str | None) -> dict[str, dict[str, float]]:
        """The participants' names and weight points of a group session, only with the link token of the workspace
        it was started in (the join code alone reads nothing: participants hold it)."""
        if not self.group_session_in_workspace(session_code, workspace):
            return {}
        rows = self.cursor().execute(
            "SELECT participant, weight_points_json FROM workshop_votes WHERE session_code = ? ORDER BY participant "
            "LIMIT ?", [session_code, MAX_PARTICIPANTS]).fetchall()
        return {name: json.loads(points) for name, points in rows}

