"""`check` after `generate` needs neither the network nor the schema directory, and is served by the package cache."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import mcpgen.commands.generate
import mcpgen.inputs.sources
from mcpgen.cli import main

MCPGEN = str(Path(sys.executable).parent / "mcpgen")
REVISION = "2025-03-26"


def run(*args: str, cache: Path, no_cache: bool = False) -> Result:
    env = {"MCPGEN_CACHE_DIR": str(cache), "MCPGEN_SCHEMA_DIR": None, "MCPGEN_NO_CACHE": "1" if no_cache else None}
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(url: str) -> bytes:
        raise AssertionError(f"tried to download {url}")

    monkeypatch.setattr(mcpgen.inputs.sources, "https_fetch", refuse)


def offline_env(cache: Path) -> dict[str, str]:
    """A subprocess environment with an empty schema dir setting and every HTTPS request refused at once."""
    env = {k: v for k, v in os.environ.items() if k != "MCPGEN_SCHEMA_DIR"}
    return {**env, "MCPGEN_CACHE_DIR": str(cache), "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}


def test_generate_keeps_the_schema_bytes_it_used(tmp_path: Path, schema_dir: Path) -> None:
    cache = tmp_path / "cache"
    assert run("-r", REVISION, "-o", str(tmp_path / "pkg"), "--schema-dir", str(schema_dir), cache=cache).exit_code == 0
    data = (schema_dir / REVISION / "schema.json").read_bytes()
    assert (cache / f"{hashlib.sha256(data).hexdigest()}.json").read_bytes() == data


def _generate_offline(pkg: Path, cache: Path, schema_dir: Path) -> None:
    """Generate REVISION into `pkg` from `schema_dir` by the CLI, offline, keeping schemas in `cache`."""
    done = subprocess.run(
        [MCPGEN, "-r", REVISION, "-o", str(pkg), "--schema-dir", str(schema_dir)],
        env=offline_env(cache), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_check_works_offline_after_a_generate_from_a_schema_dir(tmp_path: Path, schema_dir: Path) -> None:
    cache, pkg = tmp_path / "cache", tmp_path / "pkg"
    _generate_offline(pkg, cache, schema_dir)
    done = subprocess.run([MCPGEN, "check", str(pkg)], env=offline_env(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{pkg}: up to date ({REVISION})\n"


def test_a_check_given_a_schema_dir_keeps_the_schema_for_the_next_offline_check(
    tmp_path: Path, schema_dir: Path, no_network: None
) -> None:
    pkg, cache = tmp_path / "pkg", tmp_path / "cache"
    assert run("-r", REVISION, "-o", str(pkg), "--schema-dir", str(schema_dir), cache=tmp_path / "elsewhere").exit_code == 0
    assert run("check", str(pkg), "--schema-dir", str(schema_dir), cache=cache).exit_code == 0
    result = run("check", str(pkg), cache=cache)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{pkg}: up to date ({REVISION})\n"


def test_check_of_a_draft_needs_no_schema_option(tmp_path: Path, schema_dir: Path, no_network: None) -> None:
    cache, pkg = tmp_path / "cache", tmp_path / "draft"
    draft = tmp_path / "draft.json"
    draft.write_bytes((schema_dir / REVISION / "schema.json").read_bytes() + b"\n")
    assert run("generate", "--schema", str(draft), "-r", "2099-01-01", "-o", str(pkg), cache=cache).exit_code == 0
    draft.unlink()
    result = run("check", str(pkg), cache=cache)
    assert result.exit_code == 0, result.output
    (pkg / "types.py").write_text("# edited\n")
    result = run("check", str(pkg), cache=cache)
    assert result.exit_code == 1
    fix = result.stderr.splitlines()[1]
    assert "--revision 2099-01-01" in fix and f"--schema {cache}" in fix  # the cached bytes regenerate it
    for entry in cache.glob("*.json"):
        entry.unlink()
    result = run("check", str(pkg), cache=cache)
    assert result.exit_code == 2
    assert "is not pinned and not in the cache" in result.stderr and "pass --schema FILE" in result.stderr


def test_check_is_served_by_the_package_cache(
    tmp_path: Path, schema_dir: Path, no_network: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, pkg = tmp_path / "cache", tmp_path / "pkg"
    assert run("-r", REVISION, "-o", str(pkg), "--schema-dir", str(schema_dir), cache=cache).exit_code == 0
    rendered: list[int] = []
    real = mcpgen.commands.generate.render_fresh

    def counting(jobs: list[mcpgen.commands.generate.Job]) -> list[dict[str, str]]:
        rendered.append(len(jobs))
        return real(jobs)

    monkeypatch.setattr(mcpgen.commands.generate, "render_fresh", counting)
    assert run("check", str(pkg), cache=cache).exit_code == 0
    assert sum(rendered) == 0  # what generate stored, under the same key
    for entry in (cache / "packages").iterdir():
        entry.unlink()
    assert run("check", str(pkg), cache=cache).exit_code == 0
    assert run("check", str(pkg), cache=cache).exit_code == 0
    assert sum(rendered) == 1  # rendered once, then cached by check too


def test_the_package_name_does_not_change_the_bytes(tmp_path: Path, schema_dir: Path) -> None:
    cache = tmp_path / "cache"
    for name in ("mcp_a", "deep.vendored.mcp_b"):
        out = str(tmp_path / name)
        result = run("-r", REVISION, "--package", name, "-o", out, "--schema-dir", str(schema_dir), cache=cache, no_cache=True)
        assert result.exit_code == 0
    a = tmp_path / "mcp_a"
    files = [p for p in a.rglob("*") if p.is_file()]
    assert any(p.parent.name == "runtime" for p in files)
    for path in files:
        assert path.read_bytes() == (tmp_path / "deep.vendored.mcp_b" / path.relative_to(a)).read_bytes()


def test_an_edit_of_the_runtime_source_misses_the_package_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime is copied into every package, so its bytes are part of the key, also in an editable
    install, where `runtime/` is a folder apart from the rest of mcpgen."""
    import shutil
    from importlib import resources

    from mcpgen import cache

    real = cache.package_folder
    before = cache.fingerprint.__wrapped__()
    copy = tmp_path / "runtime"
    shutil.copytree(Path(str(resources.files("mcpgen.runtime"))), copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert cache.fingerprint.__wrapped__() == before  # the folder the runtime is read from, as importlib finds it
    monkeypatch.setattr(cache, "package_folder", lambda part: copy if part == "mcpgen.runtime" else real(part))
    assert cache.fingerprint.__wrapped__() == before  # a copy of the same bytes
    (copy / "peer.py").write_text((copy / "peer.py").read_text() + "\n# edited\n")
    assert cache.fingerprint.__wrapped__() != before


def test_a_check_served_by_the_package_cache_imports_only_what_reading_it_needs(tmp_path: Path, schema_dir: Path) -> None:
    """A current package checked from the cache renders nothing and diffs nothing: neither the model, the
    emitters, the formatter, the extension machinery, difflib nor pydantic is imported."""
    cache, pkg = tmp_path / "cache", tmp_path / "pkg"
    _generate_offline(pkg, cache, schema_dir)
    script = (
        "import sys\n"
        "from mcpgen.cli import main\n"
        f"try:\n    main(['check', {str(pkg)!r}])\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n"
        "heavy = ('mcpgen.model', 'mcpgen.emit.formatting', 'mcpgen.emit.render', 'mcpgen.inputs.extensions',"
        " 'difflib', 'pydantic', 'jinja2', 'black', 'datamodel_code_generator')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=offline_env(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
