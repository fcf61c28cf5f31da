"""Every repository file that the code, the docs or the README cite by path exists.

A citation is a path starting with one of the repository's folders (``docs/validation.md``,
``engine/workload/training.py``, ``bench/bench_tco.py``, ...) or a bare ``*.md`` name of a doc in ``docs/``.
A line that names a URL cites another repository's files (``[org/repo](https://...), file docs/x.md``) and is
skipped.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("app_pages", "bench", "catalog", "docs", "domain", "engine", "tests", "ui")
CITED_PATH = re.compile(r"(?<![\w/.:-])((?:" + "|".join(FOLDERS) + r")/[\w./-]*[\w/])")
CITED_DOC = re.compile(r"(?<![\w/.:-])([a-z][\w-]*\.md)\b")
#: Files the app or a test writes at run time (cited as where they go, not as sources).
WRITTEN_AT_RUN_TIME = {"docs/screenshots"}


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    keep = (".py", ".md", ".toml", ".sql", ".cfg", ".txt")
    return [ROOT / f for f in listed if f.endswith(keep) or f in ("Makefile", ".ci/run")]


def _names_a_url(line: str) -> bool:
    return re.search(r"https?://|github\.com/|www\.", line) is not None


def cited_paths(text: str) -> set[str]:
    found: set[str] = set()
    for line in text.splitlines():
        if _names_a_url(line):
            continue
        for m in CITED_PATH.finditer(line):
            found.add(m.group(1).rstrip("./"))
    return found


def test_every_cited_repository_path_exists():
    missing = []
    for path in _tracked_text_files():
        for cited in sorted(cited_paths(path.read_text(errors="replace"))):
            if any(cited.startswith(w) for w in WRITTEN_AT_RUN_TIME) or "*" in cited or "<" in cited:
                continue
            if not ((ROOT / cited).exists() or (ROOT / f"{cited}.py").exists()):  # a file or a module
                missing.append(f"{path.relative_to(ROOT)} cites {cited}")
    assert missing == []


def test_every_cited_doc_name_is_in_docs():
    docs = {p.name for p in (ROOT / "docs").glob("*.md")} | {"README.md"}
    missing = []
    for path in _tracked_text_files():
        for line in path.read_text(errors="replace").splitlines():
            if _names_a_url(line):
                continue
            for m in CITED_DOC.finditer(line):
                name = m.group(1)
                if name.endswith(("domain-model.md", "validation.md", "sources.md", "like-for-like.md",
                                  "data-coverage.md")) and name not in docs:
                    missing.append(f"{path.relative_to(ROOT)} cites {name}")
    assert missing == []


def test_the_scanner_finds_citations_and_skips_urls():
    text = ("see docs/sources.md and `engine/workload/training.py`;\n"
            "https://github.com/x/y/blob/main/docs/user_guide/batcher.md is another repository's file, docs/a.md too")
    assert cited_paths(text) == {"docs/sources.md", "engine/workload/training.py"}
