"""The repository's own files: licence, changelog, no build output under version control, a complete package listing."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib

import pytest

from docpages import README, documents, page, section
from mcpgen import __version__
from mcpgen.emit.package_views import FACADES
from mcpgen.emit.render import MARKER_FILE, PEER_FILES, REVISION_FILES, SHARED_FILES
from mcpgen.inputs.packaged_runtime import RUNTIME_DIR
from shared import REPO_ROOT


def test_the_licence_is_the_one_pyproject_names() -> None:
    licence = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert licence == "MIT"
    text = (REPO_ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_the_changelog_covers_this_version() -> None:
    text = (REPO_ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n") and f"## {__version__}" in text


def test_no_build_output_is_under_version_control() -> None:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    assert not [p for p in tracked.splitlines() if ".egg-info/" in p or p.startswith(("build/", "dist/"))]


def test_the_documentation_lists_every_generated_file() -> None:
    listing = section(page("generated-package.md"), "The files").split("```")[1]
    listed = [line.split()[0].removeprefix("<package>/") for line in listing.strip().splitlines()]
    files = [name for name, _ in (*SHARED_FILES, *PEER_FILES, *REVISION_FILES)] + [f for f, _, _ in FACADES]
    assert sorted(listed) == sorted([*files, MARKER_FILE, f"{RUNTIME_DIR}/"])


def test_the_readme_starts_with_the_two_commands_and_stays_short() -> None:
    lines = README.read_text().splitlines()
    assert lines[0] == "# mcpgen" and len(lines) <= 200
    commands = [line for line in lines[1:6] if line]
    assert commands[0].startswith("Install and generate bindings: `python3 -m venv .venv && ")
    assert commands[1].startswith("Install and run the tests: `python3 -m venv .venv && ")
    assert "python -m pytest -q`" in commands[1]


def test_the_docs_state_the_suite_time_and_a_quick_subset_of_real_test_files() -> None:
    for document in (README, page("contributing.md")):
        text = document.read_text()
        assert re.search(r"The whole suite takes about \d+ minutes", text), document
        (quick,) = [line.removeprefix("$ ") for line in text.splitlines() if re.match(r"(\$ )?MCPGEN_SCHEMA_DIR=.* tests/", line)]
        paths = [word for word in quick.split() if word.startswith("tests/")]
        assert paths and all((REPO_ROOT / path).exists() for path in paths)


def test_httpx_redis_and_pyjwt_are_advised_for_the_application_not_for_mcpgen() -> None:
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # Nothing of mcpgen imports them, the generated packages do: an extra would install them in the wrong place.
    assert not {"http", "redis", "jwt"} & set(extras)
    for document in documents():
        text = document.read_text()
        assert "mcpgen[http]" not in text and "mcpgen[redis]" not in text, document


def test_the_docs_extra_installs_the_site_s_tools_by_ranges() -> None:
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[\[<>=]", requirement)[0] for requirement in extras["docs"]}
    assert {"mkdocs", "mkdocs-material", "mkdocstrings"} <= names
    assert all("==" not in requirement and ">=" in requirement for requirement in extras["docs"])
