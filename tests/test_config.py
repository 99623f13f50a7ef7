"""`[tool.mcpgen]` in pyproject.toml: `mcpgen generate` and `mcpgen check` without arguments, `--config`, overrides."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mcpgen.cli import main
from mcpgen.config import configured_packages

MCPGEN = str(Path(sys.executable).parent / "mcpgen")


def run(*args: str, cwd: Path, env: dict[str, str | None] | None = None) -> Result:
    """The CLI in-process, run from `cwd`."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), env=env)
    finally:
        os.chdir(here)


def project(root: Path, schema_dir: Path, body: str | None = None) -> Path:
    """A temporary application with two vendored packages (one under a dotted name) listed in pyproject.toml."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        body
        or f"""\
[project]
name = "app"

[[tool.mcpgen.packages]]
revision = "2025-11-25"
package = "app._vendor.mcp"
output = "src/app/_vendor/mcp"
schema-dir = "{schema_dir}"

[[tool.mcpgen.packages]]
revision = ["2024-11-05"]
schema-dir = "{schema_dir}"

[tool.mcpgen.diff]
format = "markdown"
""",
        encoding="utf-8",
    )
    return root


def test_generate_and_check_every_configured_package(tmp_path: Path, schema_dir: Path) -> None:
    root = project(tmp_path / "app", schema_dir)
    (root / "src").mkdir()
    result = run("generate", cwd=root / "src")  # the nearest pyproject.toml is found from a subdirectory
    assert result.exit_code == 0, result.output
    vendored, default = root / "src/app/_vendor/mcp", root / "mcp_2024_11_05"
    assert "# MCP revision: 2025-11-25" in (vendored / "types.py").read_text()
    assert "# MCP revision: 2024-11-05" in (default / "types.py").read_text()

    result = run("check", cwd=root)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "src/app/_vendor/mcp: up to date (2025-11-25)",
        "mcp_2024_11_05: up to date (2024-11-05)",
    ]

    types = default / "types.py"
    types.write_text(types.read_text().replace("class Tool(", "class Tool2(", 1))
    result = run("check", cwd=root)
    assert result.exit_code == 1
    assert "-class Tool2(" in result.stdout and "+class Tool(" in result.stdout
    lines = result.stderr.splitlines()
    assert lines[0] == "mcp_2024_11_05: differs from what mcpgen 0.1.0 generates for 2024-11-05"
    assert lines[-1] == "mcpgen: 1 of 2 packages stale"
    fix = lines[1].removeprefix("  fix: ")
    assert fix == "mcpgen generate"  # not the package's options: the configured run regenerates it

    again = run(*shlex.split(fix)[1:], cwd=root)  # the printed command fixes it
    assert again.exit_code == 0, again.output
    assert run("check", cwd=root).exit_code == 0


def test_a_configured_package_not_generated_yet_is_stale_with_its_command(tmp_path: Path, schema_dir: Path) -> None:
    root = project(tmp_path / "app", schema_dir)
    result = run("check", cwd=root)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "src/app/_vendor/mcp: missing",
        "  fix: mcpgen generate",
        "mcp_2024_11_05: missing",
        "  fix: mcpgen generate",
        "mcpgen: 2 of 2 packages stale",
    ]
    assert run("generate", cwd=root).exit_code == 0
    assert run("check", "src/app/_vendor/mcp", cwd=root).exit_code == 0


def test_the_fix_of_a_configured_check_keeps_the_options_typed_not_the_environment(tmp_path: Path, schema_dir: Path) -> None:
    root = project(tmp_path / "app", schema_dir, '[[tool.mcpgen.packages]]\nrevision = "2025-03-26"\n')
    (root / "ci.toml").write_text((root / "pyproject.toml").read_text())
    result = run("check", "--config", "ci.toml", "--cache-dir", "cache", cwd=root, env={"MCPGEN_SCHEMA_DIR": str(schema_dir)})
    assert result.exit_code == 1
    fix = result.stderr.splitlines()[1].removeprefix("  fix: ")
    assert fix == "mcpgen generate --config ci.toml --cache-dir cache"
    assert run(*shlex.split(fix)[1:], cwd=root, env={"MCPGEN_SCHEMA_DIR": str(schema_dir)}).exit_code == 0
    assert run("check", "--config", "ci.toml", "--cache-dir", "cache", cwd=root).exit_code == 0


def test_config_file_option_and_relative_paths(tmp_path: Path, schema_dir: Path) -> None:
    config = tmp_path / "ci" / "mcpgen.toml"
    config.parent.mkdir()
    config.write_text(
        f'[[tool.mcpgen.packages]]\nrevision = "2025-06-18"\noutput = "../vendor/mcp"\nschema-dir = "{schema_dir}"\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run("generate", "--config", str(config), cwd=elsewhere)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "vendor" / "mcp" / "types.py").is_file()  # relative to the config file, not the cwd
    assert not any(elsewhere.iterdir())
    assert run("check", "--config", str(config), cwd=elsewhere).exit_code == 0


def test_command_line_options_override_the_entries(tmp_path: Path, schema_dir: Path) -> None:
    body = '[[tool.mcpgen.packages]]\nrevision = "2025-03-26"\nschema-dir = "does-not-exist"\n'
    root = project(tmp_path / "app", schema_dir, body)
    no_env = {"MCPGEN_SCHEMA_DIR": None}
    result = run("generate", cwd=root, env=no_env)
    assert result.exit_code == 2 and "does-not-exist does not exist" in result.stderr
    result = run("generate", "--schema-dir", str(schema_dir), "-o", "elsewhere", cwd=root, env=no_env)
    assert result.exit_code == 0, result.output
    assert (root / "elsewhere" / "types.py").is_file() and not (root / "mcp_2025_03_26").exists()
    two = project(tmp_path / "two", schema_dir)
    result = run("generate", "-o", "x", cwd=two)
    assert result.exit_code == 2 and "the config lists several" in result.stderr


def test_a_list_of_revisions_becomes_the_comma_list_the_cli_takes(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[[tool.mcpgen.packages]]\nrevision = ["2024-11-05", "2025-11-25"]\nsurface = "2025-11-25"\n'
        'pairs = { PingRequest = "EmptyResult" }\ndist = "dist/mcp"\n'
    )
    (entry,) = configured_packages(config)
    assert entry == {
        "revision": "2024-11-05,2025-11-25",
        "surface": "2025-11-25",
        "pairings": (("PingRequest", "EmptyResult"),),
        "dist": tmp_path / "dist/mcp",
        "root": tmp_path,
    }


@pytest.mark.parametrize(
    "body, expected",
    [
        ('[[tool.mcpgen.packages]]\nrevison = "2025-11-25"\n', "packages[0]: unknown key 'revison'"),
        ('[[tool.mcpgen.packages]]\nrevision = 2025\n', "packages[0].revision must be a revision or a non-empty list of revisions"),
        ('[[tool.mcpgen.packages]]\npackage = "x"\n', "packages[0] needs a revision or a schema"),
        ('[[tool.mcpgen.packages]]\nrevision = "2025-11-25"\npairs = ["A=B"]\n', 'pairs must be a table of REQUEST = "RESULT"'),
        ("[tool.mcpgen]\npackages = 3\n", "packages must be a non-empty list of tables"),
        ('[tool.mcpgen]\nrevision = "2025-11-25"\n', "unknown key 'revision' in [tool.mcpgen]"),
        ("[tool.mcpgen.diff]\nformat = 'json'\n", "lists no packages: add a [[tool.mcpgen.packages]] table"),
        ("[tool.mcpgen\n", "invalid TOML"),
        ('[[tool.mcpgen.packages]]\nrevision = "2026-07-28"\nextensions = "tasks"\n', "packages[0].extensions must be a list of extensions"),
        ('[[tool.mcpgen.packages]]\nrevision = "2026-07-28"\nextensions = [""]\n', "packages[0].extensions must be a known extension"),
    ],
    ids=["typo", "type", "no-revision", "pairs-list", "packages-not-list", "top-level-key", "no-packages", "toml",
         "extensions-not-list", "extension-empty"],
)
def test_a_bad_config_is_one_line_naming_the_file(tmp_path: Path, body: str, expected: str) -> None:
    (tmp_path / "pyproject.toml").write_text(body)
    for command in ("generate", "check"):
        result = run(command, cwd=tmp_path)
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("mcpgen: error: ")
        assert expected in result.stderr and "pyproject.toml" in result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


def test_without_arguments_or_config_says_both_ways(tmp_path: Path) -> None:
    result = run("generate", cwd=tmp_path)
    assert result.exit_code == 2
    assert "pass --revision R" in result.stderr and "[[tool.mcpgen.packages]]" in result.stderr
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')  # a project without mcpgen's table
    result = run("generate", cwd=tmp_path)
    assert result.exit_code == 2 and "pass --revision R" in result.stderr and "pyproject.toml" in result.stderr
    result = run("check", cwd=tmp_path)
    assert result.exit_code == 2 and "pass PACKAGE_DIR" in result.stderr
    result = run("check", "--config", str(tmp_path / "nope.toml"), cwd=tmp_path)
    assert result.exit_code == 2 and "nope.toml does not exist" in result.stderr


def test_bare_mcpgen_in_a_project_generates_everything(tmp_path: Path, schema_dir: Path) -> None:
    root = project(tmp_path / "app", schema_dir)
    done = subprocess.run([MCPGEN], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wrote app._vendor.mcp (2025-11-25) to src/app/_vendor/mcp",
        "wrote mcp_2024_11_05 (2024-11-05) to mcp_2024_11_05",
    ]
    done = subprocess.run([MCPGEN, "check", "-q"], cwd=root, capture_output=True, text=True, timeout=600)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_configured_extensions_are_generated_checked_and_fixed(tmp_path: Path) -> None:
    """An entry's extensions (a file relative to the config) go into the package and its record; `check`
    finds an edited extension module and names the commands that write it again."""
    import json

    from functional.test_extensions import base_schema, jobs_schema

    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "core.json").write_text(json.dumps(base_schema()), "utf-8")
    (tmp_path / "schemas" / "jobs.json").write_text(json.dumps(jobs_schema()), "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.mcpgen.packages]]\nschema = "schemas/core.json"\nrevision = "2099-01-01"\n'
        'extensions = ["io.example/jobs=schemas/jobs.json"]\npackage = "jobs_mcp"\n',
        "utf-8",
    )
    (entry,) = configured_packages(tmp_path / "pyproject.toml")
    assert entry["extensions"] == (f"io.example/jobs={tmp_path / 'schemas' / 'jobs.json'}",)
    built = run("generate", cwd=tmp_path / "schemas")  # from a subdirectory: the paths are the config file's
    assert built.exit_code == 0, built.output
    assert (tmp_path / "jobs_mcp" / "ext" / "jobs" / "methods.py").is_file()
    assert run("check", cwd=tmp_path).exit_code == 0
    edited = tmp_path / "jobs_mcp" / "ext" / "jobs" / "methods.py"
    edited.write_text(edited.read_text("utf-8").replace("get_job", "fetch_job"), "utf-8")
    stale = run("check", cwd=tmp_path)
    assert stale.exit_code == 1 and "  fix: mcpgen generate\n" in stale.stderr
    direct = run("check", "jobs_mcp", cwd=tmp_path)
    fix = direct.stderr.split("fix: ", 1)[1].strip()
    assert direct.exit_code == 1 and "--extension io.example/jobs=" in fix
    done = subprocess.run(shlex.split(fix.replace("mcpgen", MCPGEN, 1)), cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert run("check", "jobs_mcp", cwd=tmp_path).exit_code == 0


def test_an_unknown_extension_on_the_command_line_is_one_line_and_writes_nothing(tmp_path: Path, schema_dir: Path) -> None:
    result = run("--revision", "2026-07-28", "--extension", "skills", "--schema-dir", str(schema_dir), cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == "mcpgen: error: unknown extension 'skills': use one of tasks, apps, a schema file, or IDENTIFIER=FILE\n"
    assert list(tmp_path.iterdir()) == []
