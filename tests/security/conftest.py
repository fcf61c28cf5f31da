"""Fixtures of the security tests: a catalog holding one private negotiated quote, and a sweep that collects
everything a session was shown (text, tables, charts and the bytes of every download)."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import bcrypt
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from catalog.models import ChangeSet, Editor, Role, RowChange
from catalog.store import CatalogStore
from ui.editor_view import EDITABLE_TABLES

ROOT = Path(__file__).resolve().parents[2]
#: The private negotiated price: cheaper than every public H100 price, old enough to be on the re-verification
#: list, valid until 2099 so it is current for editors.
QUOTE_OFFER = "scaleway-h100-sxm-h100-sxm-8-80g-fr-par-2-eur"
QUOTE_ID = "negotiated-quote-7f3a"
QUOTE_AMOUNT = 0.4217
QUOTE_NOTE = "confidential-rebate-note-91c2"
#: The editor who entered it (OIDC editors are named by their e-mail address).
EDITOR_EMAIL = "quote.editor@example.com"
PUBLIC_EDIT_MESSAGE = "public provider note checked"
PRIVATE_EDIT_MESSAGE = "negotiated with the account manager"
PAGES = ["app_pages/home.py", "app_pages/providers.py", "app_pages/tco.py", "app_pages/workload.py",
         "app_pages/scoring.py", "app_pages/placement.py", "app_pages/workshop.py", "app_pages/editor.py"]
PASSWORD = "s3cret-pass"
HASH = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds=4)).decode()
PASSWORD_SECRETS = {"local_users": {"alice": {"password_hash": HASH, "role": "editor"},
                                    "victor": {"password_hash": HASH, "role": "viewer"}}}


def add_private_quote(store: CatalogStore) -> None:
    """One change set with the private quote and one that edits a public row, both by EDITOR_EMAIL."""
    editor = Editor(name=EDITOR_EMAIL, role=Role.EDITOR)
    quote = RowChange(table="prices", action="insert", key=QUOTE_ID, values={
        "price_id": QUOTE_ID, "offer_id": QUOTE_OFFER, "price_type": "on-demand", "amount_per_gpu_hour": QUOTE_AMOUNT,
        "currency": "EUR", "valid_from": "2025-01-15", "source_url": "https://example.com/negotiated-quote.pdf",
        "retrieved_at": "2025-01-15", "method": "quote", "is_private": True, "expires_on": "2099-12-31",
        "notes": QUOTE_NOTE})
    store.apply_changes(ChangeSet(changes=[quote], message=PRIVATE_EDIT_MESSAGE), editor)
    provider = store.row("providers", "scaleway")
    values = {k: v for k, v in provider.items() if k not in ("row_version", "updated_by", "as_of_date")}
    values["notes"] = (values.get("notes") or "") + " (checked)"
    store.apply_changes(ChangeSet(changes=[RowChange(table="providers", action="update", key="scaleway", values=values,
                                                     expected_version=provider["row_version"])],
                                  message=PUBLIC_EDIT_MESSAGE), editor)


@pytest.fixture
def quote_catalog(catalog_path: Path) -> Path:
    with CatalogStore(catalog_path) as s:
        add_private_quote(s)
    return catalog_path


@pytest.fixture
def quote_store(quote_catalog: Path):
    with CatalogStore(quote_catalog) as s:
        yield s


# --------------------------------------------------------------------------------------------------
# What a session was shown
# --------------------------------------------------------------------------------------------------

class Shown:
    """Everything the sessions of one test were sent: element text, table cells, chart specs, download bytes."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []  # (where, text)
        self.frames: list[tuple[str, pd.DataFrame]] = []
        self.downloads: list[bytes] = []
        self.where = "start"

    def add_tree(self, at: AppTest, where: str) -> None:
        assert not at.exception, [e.value for e in at.exception]
        self.where = where
        for node in _walk(at._tree):
            if getattr(node, "type", None) == "dataframe":
                frame = node.value
                self.frames.append((where, frame))
                self.texts.append((where, frame.to_csv()))
            elif hasattr(node, "proto"):
                self.texts.append((where, str(node.proto)))

    def find(self, needle: str) -> list[str]:
        """Where ``needle`` was shown: page labels, and "download N" for the bytes of a download."""
        places = {where for where, text in self.texts if needle in text}
        places |= {f"download {i}" for i, blob in enumerate(self.downloads) if needle in _download_text(blob)}
        return sorted(places)

    def download_texts(self) -> list[str]:
        return [_download_text(blob) for blob in self.downloads]

    def pages(self) -> dict[str, str]:
        """What each page showed (element text, table cells and chart data), by page label."""
        out: dict[str, list[str]] = {}
        for where, text in self.texts:
            out.setdefault(where, []).append(text)
        return {where: "\n".join(parts) for where, parts in out.items()}

    def numbers_near(self, value: float, tol: float = 1e-9) -> list[str]:
        hits = []
        for where, frame in self.frames:
            for col in frame.columns:
                series = pd.to_numeric(frame[col], errors="coerce") if frame[col].dtype == object else frame[col]
                if pd.api.types.is_numeric_dtype(series) and ((series - value).abs() < tol).any():
                    hits.append(f"{where}: {col}")
        return hits


def _walk(node):
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _walk(child)


def _download_text(blob: bytes) -> str:
    """A download as searchable text: Excel (zip of XML) unpacked, everything else decoded leniently."""
    if blob[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            return "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist())
    return blob.decode("utf-8", "replace")


@pytest.fixture
def shown(monkeypatch):
    """Factory: ``shown()`` returns a new :class:`Shown` that also records every file Streamlit registers for
    download while it is the active recorder."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    active: list[Shown] = []
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        if active and isinstance(path_or_data, bytes | bytearray):
            active[-1].downloads.append(bytes(path_or_data))
        elif active and isinstance(path_or_data, str):
            active[-1].downloads.append(Path(path_or_data).read_bytes())
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)

    # Exports built on click (issue #31) pass a callable: build them at once while recording, so that what a
    # click would hand out is checked too.
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    original_button = DeltaGenerator.download_button

    def eager(self, label, data, *args, **kwargs):
        if active and callable(data):
            data = data()
        return original_button(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", eager)
    monkeypatch.setattr(st, "download_button", lambda *a, **k: eager(st._main, *a, **k))

    def factory() -> Shown:
        s = Shown()
        active.append(s)
        return s

    return factory


def new_session(secrets: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in (secrets or {}).items():
        at.secrets[k] = v
    return at


def sign_in(at: AppTest, name: str, password: str) -> AppTest:
    at.switch_page("app_pages/editor.py").run()
    at.text_input[0].set_value(name)
    at.text_input[1].set_value(password)
    at.button[0].click().run()
    return at


def tour(at: AppTest, out: Shown) -> None:
    """Every page; on the Editor page every export table and every change set of the history; the Workshop's
    Excel workbook."""
    at.switch_page(PAGES[0]).run()
    out.add_tree(at, "home")
    for page in PAGES[1:]:
        at.switch_page(page).run()
        out.add_tree(at, page.split("/")[-1][:-3])
        if page == "app_pages/providers.py":  # only the open tab runs: open each of the others too
            for label in ("Compare offers", "Legal seat & certifications", "GPU specs"):
                at.session_state["prov_tab"] = label
                at.run()
                out.add_tree(at, f"providers {label}")
            at.session_state["prov_tab"] = "Offers"
            at.run()
    at.switch_page("app_pages/workshop.py").run()
    at.button(key="ws_build_xlsx").click().run()
    out.add_tree(at, "workshop workbook")
    at.switch_page("app_pages/editor.py").run()
    for table in EDITABLE_TABLES:
        at.selectbox(key="io_table").set_value(table).run()
        out.add_tree(at, f"editor export {table}")
    for change_set in at.selectbox(key="hist_set").options:
        at.selectbox(key="hist_set").set_value(int(change_set.split(" ")[0].lstrip("#"))).run()
        out.add_tree(at, f"editor history {change_set.split(' ')[0]}")


@pytest.fixture
def counted_checks(monkeypatch):
    """Count bcrypt checks, each slowed so that parallel attempts overlap."""
    calls = []
    real = bcrypt.checkpw

    def slow_checkpw(password, hashed):
        calls.append(hashed)
        time.sleep(0.05)
        return real(password, hashed)

    monkeypatch.setattr(bcrypt, "checkpw", slow_checkpw)
    return calls
