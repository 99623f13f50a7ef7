"""Schema resolution: pins, explicit files and directories, the user cache and the pinned download."""

from __future__ import annotations

import hashlib
import json
import urllib.error
from pathlib import Path

import pytest

from mcpgen.errors import SchemaError, SourceError
from mcpgen.inputs.pins import KNOWN_REVISIONS, get_pin, latest_revision, load_pins
from mcpgen.inputs.sources import cache_path, default_cache_dir, load_json, resolve_schema

REVISION = "2025-11-25"


def _no_fetch(url: str) -> bytes:
    raise AssertionError(f"unexpected download of {url}")


def _offline(url: str) -> bytes:
    raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")


def test_pins_cover_the_corpus(schema_dir: Path) -> None:
    pins = load_pins()
    assert tuple(pins) == KNOWN_REVISIONS == tuple(sorted(KNOWN_REVISIONS))
    for revision, pin in pins.items():
        assert hashlib.sha256((schema_dir / revision / "schema.json").read_bytes()).hexdigest() == pin.sha256
        assert pin.url.startswith("https://") and pin.commit in pin.url and pin.url.endswith(pin.path)


def test_schema_dir_verifies_the_pin(schema_dir: Path) -> None:
    source = resolve_schema(REVISION, schema_dir=schema_dir, env={}, fetch=_no_fetch)
    assert source.pinned and source.revision == REVISION
    assert source.sha256 == get_pin(REVISION).sha256
    assert source.origin == str(schema_dir / REVISION / "schema.json")


def test_pin_mismatch_names_both_hashes(schema_dir: Path, tmp_path: Path) -> None:
    original = (schema_dir / REVISION / "schema.json").read_bytes()
    modified = original.replace(b'"description"', b'"description" ', 1)
    (tmp_path / REVISION).mkdir()
    (tmp_path / REVISION / "schema.json").write_bytes(modified)
    with pytest.raises(SourceError) as info:
        resolve_schema(REVISION, schema_dir=tmp_path, env={}, fetch=_no_fetch)
    message = str(info.value)
    assert hashlib.sha256(modified).hexdigest() in message
    assert get_pin(REVISION).sha256 in message
    assert REVISION in message and "\n" not in message


def test_named_dir_without_the_revision_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=f"no {REVISION}/schema.json"):
        resolve_schema(REVISION, schema_dir=tmp_path, cache_dir=tmp_path / "cache", env={}, fetch=_no_fetch)


def test_env_schema_dir(schema_dir: Path, tmp_path: Path) -> None:
    env = {"MCPGEN_SCHEMA_DIR": str(schema_dir), "MCPGEN_CACHE_DIR": str(tmp_path)}
    source = resolve_schema("2024-11-05", env=env, fetch=_no_fetch)
    assert source.origin == str(schema_dir / "2024-11-05" / "schema.json") and source.pinned


def test_default_revision_is_the_latest(schema_dir: Path) -> None:
    source = resolve_schema(None, schema_dir=schema_dir, env={}, fetch=_no_fetch)
    assert source.revision == latest_revision() == KNOWN_REVISIONS[-1]


def test_unknown_revision_lists_known_ones(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as info:
        resolve_schema("2099-01-01", cache_dir=tmp_path, env={}, fetch=_no_fetch)
    assert all(revision in str(info.value) for revision in KNOWN_REVISIONS)


def test_offline_without_cache_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as info:
        resolve_schema(REVISION, cache_dir=tmp_path, env={}, fetch=_offline)
    message = str(info.value)
    assert "--schema-dir" in message and "MCPGEN_SCHEMA_DIR" in message and "\n" not in message


def test_download_writes_the_cache_then_hits_it(schema_dir: Path, tmp_path: Path) -> None:
    data = (schema_dir / REVISION / "schema.json").read_bytes()
    urls: list[str] = []

    def fetch(url: str) -> bytes:
        urls.append(url)
        return data

    downloaded = resolve_schema(REVISION, cache_dir=tmp_path, env={}, fetch=fetch)
    assert urls == [get_pin(REVISION).url]
    assert downloaded.pinned and downloaded.origin == get_pin(REVISION).url
    cached_file = cache_path(tmp_path, get_pin(REVISION).sha256)
    assert cached_file.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == [cached_file.name]

    cached = resolve_schema(REVISION, cache_dir=tmp_path, env={}, fetch=_no_fetch)
    assert cached.data == data and cached.origin == str(cached_file) and cached.pinned


def test_download_with_wrong_bytes_is_rejected_and_not_cached(schema_dir: Path, tmp_path: Path) -> None:
    other = (schema_dir / "2024-11-05" / "schema.json").read_bytes()
    with pytest.raises(SourceError, match="pin expects"):
        resolve_schema(REVISION, cache_dir=tmp_path, env={}, fetch=lambda url: other)
    assert not any(tmp_path.iterdir())


def test_corrupt_cache_entry_is_downloaded_again(schema_dir: Path, tmp_path: Path) -> None:
    data = (schema_dir / REVISION / "schema.json").read_bytes()
    cache_path(tmp_path, get_pin(REVISION).sha256).write_bytes(data[:100])
    source = resolve_schema(REVISION, cache_dir=tmp_path, env={}, fetch=lambda url: data)
    assert source.data == data and cache_path(tmp_path, source.sha256).read_bytes() == data


def test_default_cache_dir_order(tmp_path: Path) -> None:
    assert default_cache_dir({"MCPGEN_CACHE_DIR": "/a", "XDG_CACHE_HOME": "/b"}) == Path("/a")
    assert default_cache_dir({"XDG_CACHE_HOME": "/b"}) == Path("/b/mcpgen")
    assert default_cache_dir({}) == Path.home() / ".cache" / "mcpgen"


def test_schema_file_takes_revision_from_its_directory(schema_dir: Path) -> None:
    path = schema_dir / "2025-06-18" / "schema.json"
    source = resolve_schema(None, schema_file=path, env={}, fetch=_no_fetch)
    assert source.revision == "2025-06-18" and source.pinned and source.origin == str(path)


def test_schema_file_takes_revision_from_a_protocol_version_const(tmp_path: Path) -> None:
    path = tmp_path / "custom.json"
    schema = {"$defs": {"Init": {"properties": {"protocolVersion": {"const": "2031-02-03", "type": "string"}}}}}
    path.write_text(json.dumps(schema))
    source = resolve_schema(None, schema_file=path, env={}, fetch=_no_fetch)
    assert source.revision == "2031-02-03" and not source.pinned


def test_schema_file_with_an_explicit_revision_is_unpinned_when_modified(schema_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_bytes((schema_dir / REVISION / "schema.json").read_bytes() + b"\n")
    source = resolve_schema(REVISION, schema_file=path, env={}, fetch=_no_fetch)
    assert source.revision == REVISION and not source.pinned


def test_schema_file_without_a_revision_asks_for_one(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"$defs": {}}')
    with pytest.raises(SourceError, match="--revision"):
        resolve_schema(None, schema_file=path, env={}, fetch=_no_fetch)


def test_missing_schema_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        resolve_schema(REVISION, schema_file=tmp_path / "nope.json", env={}, fetch=_no_fetch)


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "2025-11-25" / "schema.json"
    path.parent.mkdir()
    path.write_text('{\n  "$defs": {\n    "A": {,}\n  }\n}\n')
    source = resolve_schema(None, schema_file=path, env={}, fetch=_no_fetch)
    with pytest.raises(SchemaError, match=r"schema\.json:3:11: invalid JSON"):
        load_json(source)


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    path = tmp_path / "2025-11-25" / "schema.json"
    path.parent.mkdir()
    path.write_text("[1, 2]")
    with pytest.raises(SchemaError, match="JSON object"):
        load_json(resolve_schema(None, schema_file=path, env={}, fetch=_no_fetch))


def test_load_json_of_the_corpus(schema_dir: Path) -> None:
    schema = load_json(resolve_schema(REVISION, schema_dir=schema_dir, env={}, fetch=_no_fetch))
    assert "$defs" in schema
