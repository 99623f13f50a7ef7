"""Extension schemas as input: the known extensions' pins, `<schema-dir>/extensions/<name>/`, the cache, the
pinned download (an npm package for MCP Apps), schema files and `IDENTIFIER=FILE`."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import urllib.error
from pathlib import Path

import pytest

from mcpgen.errors import SourceError
from mcpgen.inputs.extensions import known_extensions, load_extension_pins, module_name, resolve_extension
from mcpgen.inputs.sources import cache_path


def _no_fetch(url: str) -> bytes:
    raise AssertionError(f"unexpected download of {url}")


def _offline(url: str) -> bytes:
    raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")


def _npm_package(member: str, data: bytes) -> bytes:
    """A gzipped tar archive holding `data` at `member`, as `npm pack` lays a package out."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, body in ((member, data), ("package/package.json", b"{}")):
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return out.getvalue()


def test_the_pins_cover_the_corpus(schema_dir: Path) -> None:
    pins = load_extension_pins()
    assert known_extensions() == ("tasks", "apps")
    assert (pins["tasks"].identifier, pins["apps"].identifier) == ("io.modelcontextprotocol/tasks", "io.modelcontextprotocol/ui")
    readme = (schema_dir / "extensions" / "README.md").read_text("utf-8")
    for name, pin in pins.items():
        data = (schema_dir / "extensions" / name / "schema.json").read_bytes()
        assert hashlib.sha256(data).hexdigest() == pin.sha256 and pin.sha256 in readme
        assert pin.url.startswith("https://")
    assert "e4345978be1f602f1fc48d89051e8559dd5302a6" in pins["tasks"].url and pins["tasks"].member is None
    assert pins["apps"].url.endswith("/ext-apps-2.0.4.tgz") and pins["apps"].member == "package/dist/src/generated/schema.json"


@pytest.mark.parametrize("name", ["tasks", "apps"])
def test_the_schema_dir_holds_extensions_beside_the_revisions(schema_dir: Path, name: str, tmp_path: Path) -> None:
    source = resolve_extension(name, schema_dir=schema_dir, cache_dir=tmp_path, env={}, fetch=_no_fetch)
    assert source.pinned and source.name == name and source.option == name
    assert source.origin == str(schema_dir / "extensions" / name / "schema.json")


def test_a_schema_dir_with_other_bytes_is_refused_naming_both_hashes(schema_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "extensions" / "tasks"
    folder.mkdir(parents=True)
    (folder / "schema.json").write_bytes((schema_dir / "extensions" / "tasks" / "schema.json").read_bytes() + b"\n")
    with pytest.raises(SourceError, match=f"pin expects {load_extension_pins()['tasks'].sha256}"):
        resolve_extension("tasks", schema_dir=tmp_path, env={}, fetch=_no_fetch)


def test_the_download_is_verified_cached_and_then_read_from_the_cache(schema_dir: Path, tmp_path: Path) -> None:
    data = (schema_dir / "extensions" / "tasks" / "schema.json").read_bytes()
    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        return data

    first = resolve_extension("tasks", cache_dir=tmp_path, env={}, fetch=fetch)
    assert fetched == [load_extension_pins()["tasks"].url] and first.origin == fetched[0]
    assert cache_path(tmp_path, first.sha256).read_bytes() == data
    again = resolve_extension("tasks", cache_dir=tmp_path, env={}, fetch=_no_fetch)
    assert again.data == data and again.pinned


def test_the_apps_schema_is_read_from_its_npm_package(schema_dir: Path, tmp_path: Path) -> None:
    pin = load_extension_pins()["apps"]
    data = (schema_dir / "extensions" / "apps" / "schema.json").read_bytes()
    assert pin.member is not None
    source = resolve_extension("apps", cache_dir=tmp_path, env={}, fetch=lambda url: _npm_package(pin.member or "", data))
    assert source.data == data and cache_path(tmp_path, pin.sha256).is_file()


def test_a_download_with_other_bytes_is_refused_and_not_cached(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="has sha256 .*, pin expects"):
        resolve_extension("tasks", cache_dir=tmp_path, env={}, fetch=lambda url: b"{}")
    assert not list(tmp_path.glob("*.json"))


def test_offline_without_a_cache_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        resolve_extension("apps", cache_dir=tmp_path, env={}, fetch=_offline)
    message = str(caught.value)
    assert "\n" not in message and "pass --schema-dir DIR" in message and "extensions/apps/schema.json" in message


def test_an_unknown_name_lists_the_known_extensions(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown extension 'skills': use one of tasks, apps, a schema file, or IDENTIFIER=FILE"):
        resolve_extension("skills", cache_dir=tmp_path, env={})


def test_a_file_is_read_with_the_identifier_its_schema_states(schema_dir: Path, tmp_path: Path) -> None:
    schema = json.loads((schema_dir / "extensions" / "tasks" / "schema.json").read_bytes())
    schema["$defs"]["Task"]["properties"]["progress"] = {"type": "number"}
    newer = tmp_path / "tasks-next.json"
    newer.write_text(json.dumps(schema), "utf-8")
    source = resolve_extension(str(newer), env={})
    assert (source.name, source.identifier, source.pinned) == ("tasks", "io.modelcontextprotocol/tasks", False)
    assert source.option == f"io.modelcontextprotocol/tasks={newer}"


def test_a_file_with_a_pinned_schema_is_that_known_extension(schema_dir: Path) -> None:
    path = schema_dir / "extensions" / "apps" / "schema.json"
    source = resolve_extension(str(path), env={})
    assert (source.name, source.pinned, source.option) == ("apps", True, "apps")


def test_identifier_then_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps({"$defs": {}}), "utf-8")
    source = resolve_extension(f"com.example/audit-log={path}", env={})
    assert (source.name, source.identifier, source.pinned) == ("audit_log", "com.example/audit-log", False)


@pytest.mark.parametrize(
    ("identifier", "name"),
    [("io.modelcontextprotocol/tasks", "tasks"), ("io.modelcontextprotocol/ui", "apps"), ("com.example/2fa", "ext_2fa"),
     ("com.example/class", "ext_class"), ("com.example/A-b.c", "a_b_c")],
)
def test_module_names_are_python_names(identifier: str, name: str) -> None:
    assert module_name(identifier) == name
