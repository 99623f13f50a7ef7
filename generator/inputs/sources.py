"""Find a revision's schema bytes: an explicit file, a local mirror, the user cache, or the pinned URL."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ..console import current
from ..errors import SchemaError, SourceError
from .pins import Pin, get_pin, latest_revision, load_pins


Fetch = Callable[[str], bytes]

SCHEMA_DIR_ENV = "MCPGEN_SCHEMA_DIR"
CACHE_DIR_ENV = "MCPGEN_CACHE_DIR"
DOWNLOAD_TIMEOUT = 20.0
_CHUNK = 16384

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_VERSION_KEYS = ("protocolversion", "latest_protocol_version")


@dataclass(frozen=True)
class SchemaSource:
    """The raw bytes of one revision's schema and where they came from."""

    revision: str
    data: bytes
    sha256: str
    origin: str
    pinned: bool

    def describe(self) -> str:
        """One line for --verbose: which revision, from where, which bytes."""
        return f"schema {self.revision}: {self.origin} (sha256 {self.sha256[:12]}…)"


def sha256_of(data: bytes) -> str:
    """Hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$MCPGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/mcpgen`, else `~/.cache/mcpgen`."""
    env = os.environ if env is None else env
    if env.get(CACHE_DIR_ENV):
        return Path(env[CACHE_DIR_ENV])
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "mcpgen"
    return Path.home() / ".cache" / "mcpgen"


def cache_path(cache_dir: Path, sha256: str) -> Path:
    """Where the cache keeps the file whose bytes hash to `sha256`."""
    return cache_dir / f"{sha256}.json"


def https_fetch(url: str) -> bytes:
    """GET `url` over HTTPS with a timeout and return the body, showing progress on a terminal."""
    if not url.startswith("https://"):
        raise SourceError(f"refusing to download {url}: only https:// addresses are allowed")
    import urllib.request  # only when downloading: it is slow to import

    console = current()
    console.status(f"downloading {url}")
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
        total = int(response.headers.get("Content-Length") or 0)
        body = bytearray()
        while chunk := response.read(_CHUNK):
            body += chunk
            console.status(f"downloading {url}: {len(body) // 1024} KiB" + (f" of {total // 1024} KiB" if total else ""))
        return bytes(body)


def resolve_schema(
    revision: str | None,
    *,
    schema_file: Path | None = None,
    schema_dir: Path | None = None,
    cache_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    fetch: Fetch | None = None,
) -> SchemaSource:
    """The schema bytes of `revision` (default: the newest pinned) from the first source that applies."""
    env = os.environ if env is None else env
    if schema_file is not None:
        return _from_file(Path(schema_file), revision)
    revision = revision or latest_revision()
    pin = get_pin(revision)
    directory = schema_dir if schema_dir is not None else _env_path(env, SCHEMA_DIR_ENV)
    if directory is not None:
        return _from_dir(Path(directory), pin)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir(env)
    cached = _from_cache(cache, pin.sha256, pin.revision)
    if cached is not None:
        return cached
    return _download(cache, pin, fetch or https_fetch)


def recorded_schema(
    revision: str,
    sha256: str,
    *,
    schema_file: Path | None = None,
    schema_dir: Path | None = None,
    cache_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    fetch: Fetch | None = None,
) -> SchemaSource:
    """The schema bytes a package records (`revision`, `sha256`): `schema_file`, else the cache, else the pin."""
    env = os.environ if env is None else env
    if schema_file is not None:
        source = _from_file(Path(schema_file), revision)
        if source.sha256 != sha256:
            raise SourceError(f"{schema_file} has sha256 {source.sha256}, but the package records {sha256}")
        return source
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir(env)
    cached = _from_cache(cache, sha256, revision)
    if cached is not None:
        return cached
    pin = load_pins().get(revision)
    if pin is None or pin.sha256 != sha256:
        raise SourceError(
            f"the schema with sha256 {sha256} ({revision}) is not pinned and not in the cache {cache}; "
            "pass --schema FILE with the schema the package was generated from"
        )
    return resolve_schema(revision, schema_dir=schema_dir, cache_dir=cache, env=env, fetch=fetch)


def remember_schema(cache_dir: Path, sha256: str, data: bytes) -> None:
    """Keep a schema's bytes (a revision's or an extension's) in the cache by their `sha256` (so `check`
    works offline), unless already there."""
    if not cache_path(cache_dir, sha256).is_file():
        store_bytes(cache_dir, sha256, data)


def load_json(source: SchemaSource) -> dict[str, Any]:
    """The parsed schema object; SchemaError with line and column on invalid JSON."""
    return parse_json(source.data, source.origin)


def parse_json(data: bytes, origin: str) -> dict[str, Any]:
    """The JSON object in `data`; SchemaError naming `origin` (with line and column) when it is not one."""
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{origin}: not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{origin}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except ValueError as exc:  # the only other: an integer longer than Python converts
        limit = sys.get_int_max_str_digits()
        raise SchemaError(
            f"{origin}: a number of more than {limit} digits, longer than Python reads"
        ) from exc
    except RecursionError as exc:
        raise SchemaError(f"{origin}: JSON nests too deeply to read") from exc
    if not isinstance(value, dict):
        raise SchemaError(f"{origin}: the top level of a schema must be a JSON object, not {type(value).__name__}")
    return value


def _env_path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name)
    return Path(value) if value else None


def read_file(path: Path, what: str) -> bytes:
    """The bytes of `path`; SourceError, one line naming `what` it is, when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise SourceError(f"{what} {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise SourceError(f"{what} {path} is a directory, not a file") from exc
    except OSError as exc:
        raise SourceError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc


def _verified(pin: Pin, data: bytes, origin: str) -> SchemaSource:
    digest = sha256_of(data)
    if digest != pin.sha256:
        raise SourceError(
            f"schema for {pin.revision} at {origin} has sha256 {digest}, pin expects {pin.sha256}"
        )
    return SchemaSource(revision=pin.revision, data=data, sha256=digest, origin=origin, pinned=True)


def _from_file(path: Path, revision: str | None) -> SchemaSource:
    data = read_file(path, "schema file")
    digest = sha256_of(data)
    revision = revision or _pinned_revision(digest) or _infer_revision(path, data)
    pinned = _pin_sha(revision) == digest
    return SchemaSource(revision=revision, data=data, sha256=digest, origin=str(path), pinned=pinned)


def _pin_sha(revision: str) -> str | None:
    try:
        return get_pin(revision).sha256
    except SourceError:
        return None


def _pinned_revision(digest: str) -> str | None:
    """The revision whose pinned bytes hash to `digest`, whatever the file is called."""
    return next((pin.revision for pin in load_pins().values() if pin.sha256 == digest), None)


def _infer_revision(path: Path, data: bytes) -> str:
    if _DATE.match(path.parent.name):
        return path.parent.name
    found = set(_version_consts(parse_json(data, str(path))))
    if len(found) == 1:
        return found.pop()
    raise SourceError(f"cannot tell the protocol revision of {path}; pass --revision YYYY-MM-DD")


def _version_consts(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key.rsplit("/", 1)[-1].lower() in _VERSION_KEYS and isinstance(value, dict):
                const = value.get("const")
                if isinstance(const, str) and _DATE.match(const):
                    yield const
            yield from _version_consts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _version_consts(item)


def _from_dir(directory: Path, pin: Pin) -> SchemaSource:
    path = directory / pin.revision / "schema.json"
    if not directory.is_dir():
        raise SourceError(f"schema directory {directory} does not exist")
    if not path.is_file():
        raise SourceError(f"schema directory {directory} has no {pin.revision}/schema.json")
    return _verified(pin, read_file(path, "schema file"), str(path))


def cached_bytes(cache: Path, sha256: str) -> bytes | None:
    """The bytes the cache keeps under `sha256`, when they are there and intact."""
    try:
        data = cache_path(cache, sha256).read_bytes()
    except OSError:
        return None
    return data if sha256_of(data) == sha256 else None


def _from_cache(cache: Path, sha256: str, revision: str) -> SchemaSource | None:
    data = cached_bytes(cache, sha256)
    if data is None:
        return None
    origin = str(cache_path(cache, sha256))
    return SchemaSource(revision=revision, data=data, sha256=sha256, origin=origin, pinned=_pin_sha(revision) == sha256)


def _download(cache: Path, pin: Pin, fetch: Fetch) -> SchemaSource:
    try:
        data = fetch(pin.url)
    except SourceError:
        raise
    except Exception as exc:
        reason = " ".join(str(getattr(exc, "reason", None) or exc).split())
        raise SourceError(
            f"cannot download the {pin.revision} schema from {pin.url} ({reason}) and it is not cached; "
            f"pass --schema-dir DIR (or set {SCHEMA_DIR_ENV}) with {pin.revision}/schema.json inside"
        ) from exc
    source = _verified(pin, data, pin.url)
    store_bytes(cache, pin.sha256, data)
    return source


def store_bytes(cache: Path, sha256: str, data: bytes) -> None:
    """Keep `data` in the cache under `sha256`, written atomically; a cache that cannot be written only
    costs a later download."""
    import tempfile  # only a schema not cached yet is written

    try:
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, cache_path(cache, sha256))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
