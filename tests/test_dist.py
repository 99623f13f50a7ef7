"""`--dist DIR`: a project that builds into a wheel declaring the minimum pydantic, installable and importable."""

from __future__ import annotations

import email
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpgen import __version__
from mcpgen.cli import main
from mcpgen.emit.dist import dist_version
from mcpgen.emit.minimums import HTTPX_REQUIREMENT, MIN_PYDANTIC, PYJWT_REQUIREMENT, REDIS_REQUIREMENT, RUAMEL_REQUIREMENT

PIP = [sys.executable, "-m", "pip"]


def test_dist_builds_a_wheel_that_installs_and_imports(tmp_path: Path, schema_dir: Path) -> None:
    dist = tmp_path / "dist" / "acme-mcp"
    args = ["generate", "-r", "2025-11-25", "--package", "acme.mcp", "--dist", str(dist), "--schema-dir", str(schema_dir)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    project = tomllib.loads((dist / "pyproject.toml").read_text())["project"]
    assert (project["name"], project["version"]) == ("acme-mcp", f"2025.11.25.{__version__}")
    assert project["dependencies"] == [f"pydantic>={MIN_PYDANTIC},<3"]
    extras = {"http": [HTTPX_REQUIREMENT], "jwt": [PYJWT_REQUIREMENT], "redis": [REDIS_REQUIREMENT], "skills": [RUAMEL_REQUIREMENT]}
    assert (project["license"], project["optional-dependencies"]) == ("MIT", extras)
    readme = (dist / "README.md").read_text()
    assert MIN_PYDANTIC in readme and "install `acme-mcp[http]`" in readme and "`acme-mcp[redis]`" in readme and "`acme-mcp[skills]`" in readme
    (dist / "LICENSE").write_text("MIT License\n\nCopyright (c) the app's authors\n")  # the user's, kept
    assert CliRunner().invoke(main, ["check", str(dist / "acme" / "mcp")]).exit_code == 0
    result = CliRunner().invoke(main, ["check", str(dist)])
    assert result.exit_code == 2 and f"check the package inside it ({dist / 'acme' / 'mcp'})" in result.stderr

    wheels = tmp_path / "wheels"
    build = [*PIP, "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", str(dist), "-w", str(wheels)]
    done = subprocess.run(build, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = email.message_from_bytes(archive.read(next(n for n in names if n.endswith("METADATA"))))
    assert {"acme/mcp/__init__.py", "acme/mcp/types.py", "acme/mcp/py.typed", "acme/mcp/runtime/http/__init__.py", "acme/mcp/runtime/auth/__init__.py"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert metadata["Version"] == f"2025.11.25.{__version__}"
    assert (metadata["License-Expression"], metadata.get_all("Provides-Extra")) == ("MIT", ["http", "jwt", "redis", "skills"])
    assert metadata.get_all("Requires-Dist") == [
        f"pydantic<3,>={MIN_PYDANTIC}",
        'httpx<1,>=0.27; extra == "http"',
        'PyJWT[crypto]<3,>=2.8; extra == "jwt"',
        'redis<9,>=5.0.1; extra == "redis"',
        'ruamel.yaml<1,>=0.18; extra == "skills"',
    ]

    site = tmp_path / "site"
    done = subprocess.run([*PIP, "install", "-q", "--no-deps", "--no-index", "--target", str(site), str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    code = "import acme.mcp as m; print(m.PROTOCOL_VERSION, m.__file__)"
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    version, where = done.stdout.split()
    assert version == "2025-11-25" and where.startswith(str(site))


def test_dist_is_replaced_only_with_force_and_never_with_output(tmp_path: Path, schema_dir: Path) -> None:
    dist = tmp_path / "d"
    args = ["generate", "-r", "2024-11-05", "--dist", str(dist), "--schema-dir", str(schema_dir)]
    assert CliRunner().invoke(main, args).exit_code == 0
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "not empty (pass --force" in result.stderr
    assert CliRunner().invoke(main, [*args, "--force"]).exit_code == 0
    assert sorted(p.name for p in dist.iterdir()) == ["README.md", "mcp_2024_11_05", "pyproject.toml"]
    result = CliRunner().invoke(main, [*args, "--force", "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--dist and --output" in result.stderr
    result = CliRunner().invoke(main, ["generate", "-r", "all", "--dist", str(dist), "--schema-dir", str(schema_dir)])
    assert result.exit_code == 2 and "--revision all cannot be combined" in result.stderr
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    result = CliRunner().invoke(main, [*args, "--force", "--dist", str(tmp_path / "mine")])
    assert result.exit_code == 2 and "not a project mcpgen generated with --dist" in result.stderr


@pytest.mark.parametrize(
    "revision, version",
    [("2025-06-18", f"2025.6.18.{__version__}"), ("2024-11-05,2025-11-25", f"2025.11.25.{__version__}")],
)
def test_versions_sort_by_revision_then_mcpgen(revision: str, version: str) -> None:
    assert dist_version(revision) == version


def test_an_undated_revision_has_no_version() -> None:
    from mcpgen.errors import McpgenError

    with pytest.raises(McpgenError, match="needs a dated revision"):
        dist_version("draft")


def test_regenerating_keeps_build_artifacts_and_refuses_files_in_the_package(tmp_path: Path, schema_dir: Path) -> None:
    dist = tmp_path / "acme-mcp"
    args = ["generate", "--package", "acme.mcp", "--dist", str(dist), "--schema-dir", str(schema_dir), "--force"]
    assert CliRunner().invoke(main, [*args, "-r", "2024-11-05"]).exit_code == 0
    artifacts = {
        "dist/acme_mcp-2024.11.5.0.1.0-py3-none-any.whl": b"wheel",
        "build/lib/acme/mcp/types.py": (dist / "acme/mcp/types.py").read_bytes(),  # a copy, header included
        "acme_mcp.egg-info/PKG-INFO": b"Name: acme-mcp\n",
        "LICENSE": b"MIT License\n",
        ".gitignore": b"build/\n",
    }
    for name, data in artifacts.items():
        (dist / name).parent.mkdir(parents=True, exist_ok=True)
        (dist / name).write_bytes(data)
    result = CliRunner().invoke(main, [*args, "-r", "2025-06-18"])
    assert result.exit_code == 0, result.output
    assert {name: (dist / name).read_bytes() for name in artifacts} == artifacts
    assert "version = \"2025.6.18." in (dist / "pyproject.toml").read_text()
    assert CliRunner().invoke(main, ["check", str(dist / "acme" / "mcp")]).exit_code == 0

    (dist / "acme" / "mcp" / "extra.py").write_text("x = 1\n")
    result = CliRunner().invoke(main, [*args, "-r", "2025-11-25"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"mcpgen: error: {dist / 'acme' / 'mcp'} holds files mcpgen did not write: acme/mcp/extra.py; "
        "move them out of the generated package, then run again\n"
    )
    assert "version = \"2025.6.18." in (dist / "pyproject.toml").read_text()


def test_a_plain_package_and_a_dist_project_do_not_replace_each_other(tmp_path: Path, schema_dir: Path) -> None:
    plain, dist = tmp_path / "plain", tmp_path / "dist"
    base = ["generate", "-r", "2024-11-05", "--schema-dir", str(schema_dir), "--force"]
    assert CliRunner().invoke(main, [*base, "-o", str(plain)]).exit_code == 0
    assert CliRunner().invoke(main, [*base, "--dist", str(dist)]).exit_code == 0
    result = CliRunner().invoke(main, [*base, "--dist", str(plain)])
    assert result.exit_code == 2 and "is not a project mcpgen generated with --dist" in result.stderr
    result = CliRunner().invoke(main, [*base, "-o", str(dist)])
    assert result.exit_code == 2 and "is not a package mcpgen generated" in result.stderr
