"""Provider questionnaire (issue #29.8): what the catalog does not state, or states only stale, for the offers in
scope, asked of each provider; a filled-in questionnaire comes back as quotes.

One sheet (and one PDF page) per provider. Each row is one question about one offer (or about the provider, or the
quote itself), with what the catalog states and its source and date, and an empty "your answer" cell. Asked always:
the committed price for the brief's cluster and horizon, capacity, lead time, dedicated hardware, the quote's date,
validity and contact (the catalog never states them for a client's case). Asked when not stated or stale: fabric,
data-centre country, GPUs per node, certifications covering the GPU service, uptime and performance SLA, support
model, minimum commitment. Every text cell of the workbook is neutralised against formulas (catalog.cells).

Reading it back (:func:`read_answers`, :func:`preview`) only builds quotes, a per-cell diff against the catalog and
the validation errors per cell; the Workshop writes them after the user confirms (one all-or-nothing save).
"""

from __future__ import annotations

import datetime as dt
import html
import io
import re
from dataclasses import dataclass, field

import pandas as pd

from catalog.cells import clean_value, neutralise, restore
from catalog.models import Currency, InterNode, MinCommitment, SupportModel, TriState
from catalog.storage.common import STALE_AFTER_DAYS
from engine.assumptions import is_missing

COLUMNS = ["key", "offer", "question", "catalog states", "source and date", "your answer"]
README_SHEET = "Read me"
MAX_PROVIDERS = 30
MAX_OFFERS_PER_PROVIDER = 20
MAX_ROWS_PER_SHEET = 600
ALL_OFFERS = "*"
NOT_STATED = "not stated"
_YES_NO = "yes / no"


def _choices(enum) -> str:
    return " / ".join(e.value for e in enum)


def _known(value: object) -> str:
    if is_missing(value) or value == "" \
            or value == "unknown":
        return NOT_STATED
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return str(value)


def _offer_name(row: dict) -> str:
    per_node = f"{int(row['gpus_per_node'])}× " if not is_missing(row.get("gpus_per_node")) else ""
    where = row.get("region") or ""
    return f"{per_node}{row.get('gpu_model')} {row.get('form_factor') or ''} · {where} ({row['offer_id']})".replace("  ", " ")


def _source(row: dict) -> str:
    url, as_of = row.get("source_url") or "", row.get("as_of") or ""
    stale = " (stale)" if bool(row.get("is_stale")) else ""
    return f"{url}, {as_of}{stale}".strip(", ") if url or as_of else ""


def _price_source(row: dict, today: dt.date) -> str:
    when = row.get("price_retrieved_at")
    if not when or is_missing(when):
        return ""
    try:
        age = (today - pd.Timestamp(str(when)).date()).days
    except ValueError:
        return f"retrieved {when}"
    return f"retrieved {when}" + (f" (stale: {age} days)" if age > STALE_AFTER_DAYS else "")


def provider_questions(offers: pd.DataFrame, brief, today: dt.date | None = None) -> pd.DataFrame:
    """The questions for one provider's offers in scope (rows of the offers frame), as the sheet's rows."""
    today = today or dt.date.today()
    first = offers.iloc[0].to_dict()
    pid = first["provider_id"]
    rows: list[dict] = []

    def ask(offer: str, name: str, question: str, known: object = "", source: str = "", answer: object = "") -> None:
        rows.append({"key": f"{pid}|{offer}|{name}", "offer": name_of.get(offer, offer), "question": question,
                     "catalog states": _known(known) if known != "" else "", "source and date": source,
                     "your answer": answer})

    name_of = {ALL_OFFERS: "the quote (all offers below)"}
    name_of.update({r["offer_id"]: _offer_name(r) for r in offers.to_dict("records")})
    horizon, gpus = brief.horizon_months, brief.cluster_gpus
    ask(ALL_OFFERS, "quote_date", "Date of this quote (YYYY-MM-DD)")
    ask(ALL_OFFERS, "valid_until", "Valid until (YYYY-MM-DD)")
    ask(ALL_OFFERS, "contact", "Your contact for this quote (name, e-mail)")
    facts = first
    in_scope = set(str(facts.get("certifications_in_scope") or "").split(";")) - {"", "nan", "None"}
    if not in_scope or not set(brief.required_certifications) <= in_scope:
        ask(ALL_OFFERS, "certifications", "Certifications whose scope covers the GPU service in these data centres "
            "(name, scope, certificate link)", facts.get("certifications"), "scope not stated in the catalog")
    for name, question in (("uptime_sla_pct", "Uptime SLA (%)"),
                           ("performance_sla", f"Performance SLA ({_choices(TriState)})"),
                           ("support_model", f"Support model ({_choices(SupportModel)})"),
                           ("min_commitment", f"Minimum commitment ({_choices(MinCommitment)})")):
        if _known(facts.get(name)) == NOT_STATED:
            ask(ALL_OFFERS, name, question, facts.get(name), "not stated in the catalog")
    for r in offers.head(MAX_OFFERS_PER_PROVIDER).to_dict("records"):
        oid, stale = r["offer_id"], bool(r.get("is_stale"))
        for name, question in (("inter_node", f"Fabric between nodes ({_choices(InterNode)})"),
                               ("datacenter_country", "Data-centre country (ISO code, e.g. DE)"),
                               ("gpus_per_node", "GPUs per node")):
            if stale or _known(r.get(name)) == NOT_STATED:
                ask(oid, name, question + (" — stated, but stale: please confirm" if stale and _known(r.get(name))
                                           != NOT_STATED else ""), r.get(name), _source(r))
        ask(oid, "price_per_gpu_hour", f"Committed price per GPU-hour for {gpus} GPUs over {horizon} months",
            r.get("reserved_eur_per_gpu_hour"), _price_source(r, today) if not is_missing(r.get("reserved_eur_per_gpu_hour"))
            else "no committed price in the catalog")
        ask(oid, "currency", f"Currency of that price ({_choices(Currency)})", "", "", "EUR")
        ask(oid, "term_months", "Term of that price (months)", r.get("reserved_term_months"), "", horizon)
        ask(oid, "upfront_pct", "Upfront share (%)")
        ask(oid, "capacity_gpus", f"GPUs you can provide for this offer (the client needs {gpus})")
        ask(oid, "lead_time_days", "Lead time: days from signing until the GPUs are usable")
        ded = r.get("is_dedicated")  # what the offer's own source states (issue #29 item 2), with that source
        ask(oid, "is_dedicated", f"Dedicated (single-tenant) hardware? ({_YES_NO})",
            None if is_missing(ded) else "yes" if bool(ded) else "no",
            ", ".join(str(v) for v in (r.get("dedicated_source_url"), r.get("dedicated_as_of")) if not is_missing(v)))
    return pd.DataFrame(rows[:MAX_ROWS_PER_SHEET], columns=COLUMNS)


def offers_in_scope(catalog: pd.DataFrame, shortlist: pd.DataFrame, provider_ids: list[str] | None) -> pd.DataFrame:
    """The shortlist's offers, or the chosen providers' (their shortlisted offers, else all of theirs)."""
    catalog = catalog[catalog["price_origin"].eq("catalog")] if "price_origin" in catalog else catalog
    if not provider_ids:
        return shortlist
    picked = []
    for pid in provider_ids[:MAX_PROVIDERS]:
        mine = shortlist[shortlist["provider_id"] == pid]
        picked.append(mine if len(mine) else catalog[catalog["provider_id"] == pid])
    return pd.concat(picked) if picked else shortlist.iloc[0:0]


def questionnaires(scope: pd.DataFrame, brief, today: dt.date | None = None) -> dict[str, tuple[str, pd.DataFrame]]:
    """provider_id -> (provider name, questions), one per provider of ``scope`` (at most MAX_PROVIDERS)."""
    out = {}
    for pid, offers in list(scope.groupby("provider_id", sort=True))[:MAX_PROVIDERS]:
        out[str(pid)] = (str(offers.iloc[0]["provider_name"]), provider_questions(offers, brief, today))
    return out


def _sheet_name(name: str, used: set[str]) -> str:
    base = re.sub(r"[\[\]:*?/\\']", " ", name).strip()[:28] or "provider"
    candidate, n = base, 2
    while candidate.lower() in used or candidate.lower() == README_SHEET.lower():
        candidate, n = f"{base[:25]} {n}", n + 1
    used.add(candidate.lower())
    return candidate


def workbook(sheets: dict[str, tuple[str, pd.DataFrame]], client: str = "") -> bytes:
    """One sheet per provider plus a "Read me" sheet; every text cell neutralised against formulas."""
    from openpyxl.styles import Font, PatternFill

    buf = io.BytesIO()
    readme = pd.DataFrame({"GPU Cloud Advisor provider questionnaire": [
        f"Client: {client}" if client else "Client: (not named)",
        "One sheet per provider. Please fill in the column 'your answer' only; leave 'key' unchanged.",
        "'catalog states' and 'source and date' show what we know today and where it comes from.",
        "Prices are per GPU-hour. Dates as YYYY-MM-DD. Leave an answer empty when it does not apply."]})
    used: set[str] = set()
    with pd.ExcelWriter(buf, engine="openpyxl") as writer:
        readme.map(neutralise).to_excel(writer, sheet_name=README_SHEET, index=False)
        for _, (name, frame) in sheets.items():
            sheet = _sheet_name(name, used)
            frame.map(neutralise).to_excel(writer, sheet_name=sheet, index=False)
            ws = writer.sheets[sheet]
            for col, width in zip("ABCDEF", (28, 46, 60, 22, 46, 24), strict=True):
                ws.column_dimensions[col].width = width
            for cell in ws["F"][1:]:
                cell.fill = PatternFill("solid", fgColor="FEF3C7")
            ws["F1"].font = Font(bold=True)
            ws.column_dimensions["A"].hidden = False
    return buf.getvalue()


def questionnaire_html(sheets: dict[str, tuple[str, pd.DataFrame]], client: str = "") -> str:
    """The same questionnaires as HTML, one printed page per provider (ui.exports.html_to_pdf makes the PDF)."""
    parts = ["<html><head><meta charset='utf-8'><style>@page{size:A4;margin:12mm} body{font-family:Helvetica,Arial,"
             "sans-serif;font-size:11px;color:#1f2933} h1{font-size:18px} .p{page-break-after:always} table{border-"
             "collapse:collapse;width:100%} td,th{border:1px solid #d1d5db;padding:2px 4px;text-align:left;vertical-"
             "align:top;overflow-wrap:anywhere} th{background:#f3f4f6} td.a{width:18%;background:#fef3c7}</style>"
             "</head><body>"]
    for _, (name, frame) in sheets.items():
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[c]))}</td>" for c in COLUMNS[1:5])
                       + f"<td class='a'>{html.escape(str(r['your answer']))}</td></tr>" for r in frame.to_dict("records"))
        parts.append(f"<div class='p'><h1>Questionnaire for {html.escape(name)}</h1>"
                     + (f"<p>Client: {html.escape(client)}</p>" if client else "")
                     + "<table><tr>" + "".join(f"<th>{c}</th>" for c in COLUMNS[1:]) + "</tr>" + rows
                     + "</table></div>")
    return "".join(parts) + "</body></html>"


# --------------------------------------------------------------------------------------------------
# Reading a filled-in questionnaire back
# --------------------------------------------------------------------------------------------------


@dataclass
class ImportPreview:
    """What a filled-in questionnaire would write: quotes (with a label each), the per-cell diff, errors per cell."""

    quotes: list[dict] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    diff: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["provider", "offer", "question", "catalog states", "answer", "check"]))
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.quotes) and not self.errors


class QuestionnaireFormatError(ValueError):
    """The file is not a questionnaire this app wrote; the message says why. Nothing was read."""


MAX_QUESTIONNAIRE_BYTES = 5 * 1024 * 1024


def _cell(value: object) -> object:
    """An answer cell as a catalog value (:func:`catalog.cells.clean_value`; a whole float as an int)."""
    value = clean_value(restore(value), strip_text=True)
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def read_answers(data: bytes) -> list[dict]:
    """Every answered row of every provider sheet: ``{"provider_id", "offer_id", "field", "answer", "row"}``."""
    if not data:
        raise QuestionnaireFormatError("The file is empty.")
    if len(data) > MAX_QUESTIONNAIRE_BYTES:
        raise QuestionnaireFormatError(f"The file is larger than {MAX_QUESTIONNAIRE_BYTES // 2**20} MB; a questionnaire "
                                       "is far smaller.")
    try:
        sheets = pd.read_excel(io.BytesIO(data), sheet_name=None, dtype=object, engine="openpyxl")
    except Exception as exc:  # not a workbook: zip, xml or openpyxl errors
        raise QuestionnaireFormatError(f"This is not an Excel workbook ({type(exc).__name__}).") from exc
    out = []
    for name, frame in sheets.items():
        if name == README_SHEET:
            continue
        if list(frame.columns[:6]) != COLUMNS:
            raise QuestionnaireFormatError(f"Sheet {name!r} is not a questionnaire sheet (its columns changed).")
        for i, r in enumerate(frame.head(MAX_ROWS_PER_SHEET).to_dict("records"), start=2):
            key, answer = _cell(r["key"]), _cell(r["your answer"])
            parts = str(key or "").split("|")
            if len(parts) != 3:
                continue
            out.append({"provider_id": parts[0], "offer_id": parts[1], "field": parts[2], "answer": answer,
                        "sheet": name, "row": i, "question": r["question"], "known": _cell(r["catalog states"])})
    return out


def _value(field_name: str, answer: object) -> object:
    if field_name == "is_dedicated" and isinstance(answer, str):
        return {"yes": True, "no": False}.get(answer.lower(), answer)
    if field_name == "datacenter_country" and isinstance(answer, str):
        return answer.upper()
    return answer


_QUOTE_FIELDS = {"quote_date", "valid_until", "contact", "uptime_sla_pct", "performance_sla", "support_model",
                 "min_commitment", "inter_node", "datacenter_country", "gpus_per_node", "price_per_gpu_hour",
                 "currency", "term_months", "upfront_pct", "capacity_gpus", "lead_time_days", "is_dedicated"}


def preview(answers: list[dict], catalog: pd.DataFrame, validate) -> ImportPreview:
    """Quotes from the answers (one per offer with a price), the per-cell diff, and errors per cell.

    ``validate(quotes, labels)`` is the store's :meth:`validate_quotes` (errors as (label, field, reason))."""
    names = catalog.drop_duplicates("provider_id").set_index("provider_id")["provider_name"].to_dict()
    known_offers = set(catalog["offer_id"])
    out = ImportPreview()
    cells: dict[tuple[str, ...], dict] = {}  # (provider, offer or ALL_OFFERS, field) -> cell
    by_offer: dict[tuple[str, str], dict] = {}
    common: dict[str, dict] = {}
    diff = []
    for a in answers:
        pid, oid, name = a["provider_id"], a["offer_id"], a["field"]
        if pid not in names or (oid != ALL_OFFERS and oid not in known_offers):
            out.errors.append(f"{a['sheet']} row {a['row']}: the key names an offer or provider this catalog does not "
                              "hold (the key column was changed?)")
            continue
        if a["answer"] is None:
            continue
        if name not in _QUOTE_FIELDS and name != "certifications":
            continue
        target = common.setdefault(pid, {}) if oid == ALL_OFFERS else by_offer.setdefault((pid, oid), {})
        target[name] = _value(name, a["answer"])
        known = a["known"] or ""
        check = "new" if known in ("", NOT_STATED) else ("same as the catalog" if str(known) == str(a["answer"])
                                                          else "differs from the catalog")
        diff.append({"provider": names[pid], "offer": oid if oid != ALL_OFFERS else "(all)", "question": a["question"],
                     "catalog states": known, "answer": str(a["answer"]), "check": check})
        cells[(pid, oid, name)] = diff[-1]
    for (pid, oid), values in by_offer.items():
        if "price_per_gpu_hour" not in values:
            out.warnings.append(f"{names[pid]} · {oid}: no price answered, so no quote is made for this offer.")
            continue
        shared = dict(common.get(pid, {}))
        certs = shared.pop("certifications", None)
        quote = {"provider": names[pid], "provider_id": pid, "offer_id": oid, **shared, **values,
                 "note": f"From the provider questionnaire. Certifications stated: {certs}" if certs
                 else "From the provider questionnaire."}
        if quote.get("term_months") in (None, "") and "upfront_pct" in quote:
            quote.pop("upfront_pct")
        out.quotes.append(quote)
        out.labels.append(f"{names[pid]} · {oid}")
    if out.quotes:
        _, errors, warnings = validate(out.quotes, out.labels)
        out.warnings.extend(warnings)
        for label, field_name, reason in errors:
            pid_oid = next(((q["provider_id"], q["offer_id"]) for q, lb in zip(out.quotes, out.labels, strict=True)
                            if lb == label), None)
            cell = None
            if pid_oid is not None:
                cell = cells.get((*pid_oid, field_name)) or cells.get((pid_oid[0], ALL_OFFERS, field_name))
            if cell is not None:
                cell["check"] = f"error: {reason}"
            out.errors.append(f"{label} · {field_name}: {reason}")
    out.diff = pd.DataFrame(diff, columns=out.diff.columns)
    return out
