"""environment.yml and pyproject.toml name the same packages at the same pins."""

from __future__ import annotations

import re
import tomllib

PIN = re.compile(r"^\s*-\s*([A-Za-z0-9_.\-]+)==([^\s#]+)\s*$")


def _pyproject_pins(root):
    data = tomllib.loads((root / "pyproject.toml").read_text())
    specs = list(data["project"]["dependencies"])
    for extra in data["project"].get("optional-dependencies", {}).values():
        specs += extra
    pins = {}
    for spec in specs:
        name, sep, version = spec.partition("==")
        assert sep, f"pyproject dependency {spec!r} is not pinned with =="
        pins[name.strip().lower()] = version.strip()
    return pins


def _conda_pins(root):
    pins = {}
    for line in (root / "environment.yml").read_text().splitlines():
        m = PIN.match(line)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def test_environment_yml_matches_pyproject(root):
    py, conda = _pyproject_pins(root), _conda_pins(root)
    assert py, "no pins read from pyproject.toml"
    assert conda == py, {"only in pyproject": py.keys() - conda.keys(),
                         "only in environment.yml": conda.keys() - py.keys(),
                         "different": {k for k in py.keys() & conda.keys() if py[k] != conda[k]}}


def test_installed_versions_match_the_pins(root):
    from importlib.metadata import version

    for name, pinned in _pyproject_pins(root).items():
        assert version(name) == pinned, f"{name} {version(name)} installed, {pinned} pinned"


def test_environment_yml_installs_the_course_itself(root):
    assert "--editable ." in (root / "environment.yml").read_text()
