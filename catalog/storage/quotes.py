"""Workspace quotes (issue #29.6): providers' quotes a consultant records in a client workspace.

Not catalog data: no change log, no data version, never in a catalog read. Every read and write names the
workspace by its link token, so a quote is reachable only with that link. Saving is all-or-nothing: every quote of
a call is validated (pydantic, then the catalog's hardware-truth rules on the offer it describes) before the one
transaction that writes them; any error writes nothing. Portable SQL with ``?`` placeholders on both backends.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

from catalog.errors import CatalogError, ChangeValidationError
from catalog.quotes import MAX_QUOTE_JSON_CHARS, MAX_QUOTES_PER_WORKSPACE, Quote, StoredQuote, check_quote
from catalog.storage.changes import db_rule_context
from catalog.storage.common import StoreBase, iter_rows, store_write
from catalog.storage.workshop import workspace_id

_OFFER_COLUMNS = "offer_id, provider_id, gpu_model, gpu_spec_id, form_factor, gpus_per_node, intra_node, inter_node, " \
                 "memory_gb, memory_type, mig_supported, region, datacenter_country"


class QuoteValidationError(ChangeValidationError):
    """Quotes that cannot be saved: ``problems`` lists (quote, field, reason) for every error. Nothing was saved."""


class QuoteVerbs(StoreBase):
    """Quotes of a workspace, for :class:`CatalogStore` and :class:`PostgresCatalogStore`."""

    def workspace(self, token: str | None) -> dict | None:
        """Provided by :class:`catalog.storage.workshop.Workshop` (before this class in every store's bases)."""
        raise NotImplementedError

    def _quote_workspace(self, token: str | None) -> str:
        if not self.workspace(token):
            raise CatalogError("This workspace link is not valid (unknown or mistyped); no quote was read or saved.")
        return workspace_id(token or "")

    def validate_quotes(self, quotes: list[dict | Quote], *, usd_per_eur: float = 1.0,
                        labels: list[str] | None = None) -> tuple[list[Quote], list[tuple[str, str, str]], list[str]]:
        """Validate quotes without writing: ``(valid quotes, errors (where, field, reason), warnings)``. ``labels``
        name each quote in the messages (default "quote 1", "quote 2"…)."""
        cur = self._read_cursor()
        ctx = db_rule_context(cur, usd_per_eur)
        offers = {r["offer_id"]: r for r in iter_rows(cur.execute(f"SELECT {_OFFER_COLUMNS} FROM offers"))}
        valid: list[Quote] = []
        errors: list[tuple[str, str, str]] = []
        warnings: list[str] = []
        for i, item in enumerate(quotes):
            where = labels[i] if labels else f"quote {i + 1}"
            try:
                quote = item if isinstance(item, Quote) else Quote.model_validate(item)
            except ValidationError as exc:
                errors.extend((where, ".".join(map(str, e["loc"])) or "quote", e["msg"].removeprefix("Value error, "))
                              for e in exc.errors())
                continue
            if len(quote.model_dump_json()) > MAX_QUOTE_JSON_CHARS:
                errors.append((where, "quote", f"longer than {MAX_QUOTE_JSON_CHARS:,} characters"))
                continue
            findings = check_quote(quote, ctx, offers, key=where)
            errors.extend((where, f.column, f.reason) for f in findings if f.level == "error")
            warnings.extend(f"{where} · {f.column}: {f.reason}" for f in findings if f.level == "warning")
            if not any(f.level == "error" for f in findings):
                valid.append(quote)
        return valid, errors, warnings

    @store_write
    def save_quotes(self, workspace: str, quotes: list[dict | Quote], *, replace: dict[int, int] | None = None,
                    created_by: str | None = None, usd_per_eur: float = 1.0,
                    labels: list[str] | None = None) -> list[int]:
        """Validate and store quotes in the workspace whose link token is ``workspace``, all or nothing.

        ``replace`` maps a position in ``quotes`` to the id of a stored quote of this workspace it replaces (an
        edit, or a re-imported questionnaire row); the others are added. Returns the ids written, in order.
        Raises :class:`QuoteValidationError` listing every problem; nothing is written then."""
        ws = self._quote_workspace(workspace)
        replace = replace or {}
        valid, errors, _ = self.validate_quotes(quotes, usd_per_eur=usd_per_eur, labels=labels)
        if errors:
            raise QuoteValidationError(errors)
        ids: list[int] = []
        with self._write_cursor() as cur:
            held = {int(r[0]) for r in cur.execute("SELECT quote_id FROM workspace_quotes WHERE workspace_id = ?",
                                                   [ws]).fetchall()}
            unknown = [q for q in replace.values() if q not in held]
            if unknown:
                raise CatalogError(f"No quote #{unknown[0]} in this workspace; nothing was saved.")
            if len(held) + len(valid) - len(replace) > MAX_QUOTES_PER_WORKSPACE:
                raise CatalogError(f"A workspace holds at most {MAX_QUOTES_PER_WORKSPACE} quotes; delete old ones "
                                   "first. Nothing was saved.")
            cur.execute("BEGIN TRANSACTION")
            try:
                next_id = cur.execute("SELECT coalesce(max(quote_id), 0) + 1 FROM workspace_quotes").fetchone()[0]
                for i, quote in enumerate(valid):
                    text = quote.model_dump_json()
                    if i in replace:
                        cur.execute("UPDATE workspace_quotes SET quote_json = ?, updated_at = now() "
                                    "WHERE quote_id = ? AND workspace_id = ?", [text, replace[i], ws])
                        ids.append(replace[i])
                    else:
                        cur.execute("INSERT INTO workspace_quotes (quote_id, workspace_id, created_at, updated_at, "
                                    "created_by, quote_json) VALUES (?, ?, now(), now(), ?, ?)",
                                    [next_id, ws, created_by, text])
                        ids.append(int(next_id))
                        next_id += 1
                cur.execute("COMMIT")
            except Exception:
                cur.execute("ROLLBACK")
                raise
        return ids

    def list_quotes(self, workspace: str | None) -> list[StoredQuote]:
        """The quotes of one workspace, oldest first; an unknown or missing token lists nothing."""
        if not workspace or not self._has_table("workspace_quotes") or not self.workspace(workspace):
            return []
        rows = self.cursor().execute(
            "SELECT quote_id, created_at, quote_json FROM workspace_quotes WHERE workspace_id = ? ORDER BY quote_id "
            "LIMIT ?", [workspace_id(workspace), MAX_QUOTES_PER_WORKSPACE]).fetchall()
        return [StoredQuote(quote_id=int(i), created_at=at, quote=Quote.model_validate(json.loads(text)))
                for i, at, text in rows]

    @store_write
    def delete_quote(self, workspace: str, quote_id: int) -> None:
        """Delete one quote of the workspace (whoever holds the workspace link may, as they may add one)."""
        ws = self._quote_workspace(workspace)
        with self._write_cursor() as cur:
            if cur.execute("SELECT count(*) FROM workspace_quotes WHERE quote_id = ? AND workspace_id = ?",
                           [int(quote_id), ws]).fetchone()[0] == 0:
                raise CatalogError(f"No quote #{quote_id} in this workspace; nothing was deleted.")
            cur.execute("DELETE FROM workspace_quotes WHERE quote_id = ? AND workspace_id = ?", [int(quote_id), ws])
