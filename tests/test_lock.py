"""Issue #28.14: the dependencies are locked. requirements.lock pins every package `make setup` installs,
agrees with pyproject.toml's ranges, is what the installed environment holds, and is what make and CI use."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+!\-]+", line), f"not an exact pin: {line!r}"
        name, version = line.split("==")
        assert _norm(name) not in pins, f"pinned twice: {name}"
        pins[_norm(name)] = version
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]


def test_every_declared_dependency_is_pinned_within_its_range():
    pins = _lock()
    for req in _declared():
        assert _norm(req.name) in pins, f"{req.name} is in pyproject.toml but not in requirements.lock (make lock)"
        assert req.specifier.contains(pins[_norm(req.name)], prereleases=True), \
            f"{req.name}=={pins[_norm(req.name)]} is outside pyproject.toml's {req.specifier} (make lock)"
    assert len(pins) > len(_declared())  # the transitive dependencies are pinned too


def test_the_installed_environment_is_the_lock():
    """`make setup` installs with the lock as constraints, so every pinned package is installed at its pin."""
    wrong = {}
    for name, version in _lock().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[name] = (installed, version)
    assert not wrong, f"installed vs locked: {wrong} (run make setup, or make lock after a pyproject change)"


def test_make_setup_and_ci_install_from_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install -q -c \$\(LOCK\) -e \"\.\[dev\]\"", makefile)
    assert "LOCK   := requirements.lock" in makefile and "$(STAMP): pyproject.toml $(LOCK)" in makefile
    assert re.search(r"^test: setup", makefile, re.M) and "make test" in (ROOT / ".ci" / "run").read_text()
    assert "pip-audit -r $(LOCK)" in makefile
