"""Extension schemas (SEP-2133): the known extensions' pins and facts, and finding an extension's bytes.

`schema/extensions.json` pins each known extension like a revision (its upstream file, address and
sha256) and states what its schema leaves to prose: who sends each of its methods, which definition
types the settings each side declares under `capabilities.extensions[identifier]`, which core requests
it lets a server answer differently, the `_meta` entries it types on core objects, its constants and
the params field of each request an HTTP `Mcp-Name` header mirrors.
The facts of a known extension apply to any schema of the same identifier (a newer copy given as a file).

`--extension` takes a known name (`tasks`), a schema file (its identifier read from the schema's
`Extension Identifier:` line) or `IDENTIFIER=FILE`.
"""

from __future__ import annotations

import json
import keyword
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import SourceError
from .sources import (
    SCHEMA_DIR_ENV,
    Fetch,
    cached_bytes,
    default_cache_dir,
    https_fetch,
    read_file,
    sha256_of,
    store_bytes,
)

if TYPE_CHECKING:
    from ..model.ir import Erratum

_PINS_FILE = "extensions.json"
EXTENSIONS_DIR = "extensions"
"""Where a schema directory keeps extension schemas: `<schema-dir>/extensions/<name>/schema.json`."""
_IDENTIFIER_LINE = re.compile(r"Extension Identifier:\s*(\S+)")
_IDENTIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)+$")
_SIDES = ("client", "server")


@dataclass(frozen=True)
class MethodFact:
    """Who sends one method of an extension (sides `client`/`server`) and whether it is a request."""

    kind: str
    senders: tuple[str, ...]


@dataclass(frozen=True)
class MetaFact:
    """A `_meta` entry an extension types on core objects: `key` on the `_meta` of `owners`, typed by `type`."""

    name: str
    key: str
    type: str
    owners: tuple[str, ...]


@dataclass(frozen=True)
class Facts:
    """What a known extension's prose says and its schema does not."""

    methods: tuple[tuple[str, MethodFact], ...] = ()
    roles: tuple[str, str] | None = None
    """What the extension's own link calls the client and the server (MCP Apps: app, host); None when
    its methods travel between an MCP client and server."""
    settings: tuple[tuple[str, str], ...] = ()
    results: tuple[tuple[str, tuple[str, ...]], ...] = ()
    meta: tuple[MetaFact, ...] = ()
    constants: tuple[tuple[str, str], ...] = ()
    name_headers: tuple[tuple[str, str], ...] = ()
    """(request method, params field) of each request whose target an HTTP `Mcp-Name` header mirrors."""

    def method(self, name: str) -> MethodFact | None:
        """The facts of method `name`, if stated."""
        return dict(self.methods).get(name)


@dataclass(frozen=True)
class ExtensionPin:
    """A known extension's schema at a fixed upstream version, with the sha256 of its bytes."""

    name: str
    identifier: str
    upstream: str
    url: str
    sha256: str
    facts: Facts
    member: str | None = None
    """The file inside the archive `url` downloads (an npm package), None when `url` is the file."""


@dataclass(frozen=True)
class ExtensionSource:
    """The raw bytes of one extension's schema, what it is known as and where they came from."""

    name: str
    identifier: str
    data: bytes
    sha256: str
    origin: str
    pinned: bool

    def describe(self) -> str:
        """One line for --verbose: which extension, from where, which bytes."""
        return f"extension {self.name} ({self.identifier}): {self.origin} (sha256 {self.sha256[:12]}…)"

    @property
    def option(self) -> str:
        """The `--extension` value that reads these bytes again: the known name, else `IDENTIFIER=FILE`."""
        return self.name if self.pinned else f"{self.identifier}={self.origin}"


@dataclass(frozen=True)
class ExtensionInput:
    """What an extension is built from: its corrected schema, what it is known as and the facts that apply."""

    name: str
    identifier: str
    schema: Mapping[str, Any]
    sha256: str
    pinned: bool
    errata: tuple[Erratum, ...]
    """The errata applied to its schema, their ids qualified (`ext-apps/<id>`, `2026-07-28/<id>`)."""
    facts: Facts
    warnings: tuple[str, ...] = ()


def facts_of(entry: Mapping[str, Any]) -> Facts:
    """The facts one entry of `schema/extensions.json` states (senders by role name, as that file writes them)."""
    roles = entry.get("roles")
    sides = {name: side for side, name in roles.items()} if roles else {side: side for side in _SIDES}
    methods = tuple(
        (name, MethodFact(fact["kind"], tuple(sorted(sides[s] for s in fact["senders"]))))
        for name, fact in entry.get("methods", {}).items()
    )
    meta = tuple(MetaFact(m["name"], m["key"], m["type"], tuple(m["on"])) for m in entry.get("meta", ()))
    return Facts(
        methods=methods,
        roles=(roles["client"], roles["server"]) if roles else None,
        settings=tuple(sorted(entry.get("settings", {}).items())),
        results=tuple((method, tuple(names)) for method, names in entry.get("results", {}).items()),
        meta=meta,
        constants=tuple(sorted(entry.get("constants", {}).items())),
        name_headers=tuple(sorted(entry.get("name_headers", {}).items())),
    )


@lru_cache(maxsize=1)
def _pins() -> tuple[ExtensionPin, ...]:
    try:
        table = json.loads(resources.files("mcpgen.schema").joinpath(_PINS_FILE).read_text("utf-8"))
        return tuple(
            ExtensionPin(
                name=name,
                identifier=e["identifier"],
                upstream=e["upstream"],
                url=e["url"],
                sha256=e["sha256"],
                facts=facts_of(e),
                member=e.get("member"),
            )
            for name, e in table.items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SourceError(f"cannot read the packaged extension pins ({_PINS_FILE}): {exc}") from exc


def load_extension_pins() -> dict[str, ExtensionPin]:
    """Every known extension, keyed by the name `--extension` knows it by."""
    return {p.name: p for p in _pins()}


def known_extensions() -> tuple[str, ...]:
    """The known extensions' names."""
    return tuple(p.name for p in _pins())


def facts_for(identifier: str) -> Facts:
    """The facts of the known extension with this identifier (none for an unknown one)."""
    pin = next((p for p in _pins() if p.identifier == identifier), None)
    return pin.facts if pin is not None else Facts()


def module_name(identifier: str) -> str:
    """The subpackage an extension goes in: the known extension's name, else the identifier's last
    segment as a Python name (`com.example/audit-log` → `audit_log`)."""
    pin = next((p for p in _pins() if p.identifier == identifier), None)
    if pin is not None:
        return pin.name
    name = re.sub(r"[^0-9A-Za-z_]", "_", identifier.rsplit("/", 1)[-1]).strip("_").lower() or "extension"
    return f"ext_{name}" if not name.isidentifier() or keyword.iskeyword(name) else name


def identifier_in(data: bytes) -> str | None:
    """The identifier an extension schema states in its description (`Extension Identifier: ...`)."""
    try:
        schema = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    description = schema.get("description") if isinstance(schema, dict) else None
    found = _IDENTIFIER_LINE.search(description) if isinstance(description, str) else None
    return found.group(1).rstrip(".") if found else None


def resolve_extension(
    spec: str,
    *,
    schema_dir: Path | None = None,
    cache_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    fetch: Fetch | None = None,
) -> ExtensionSource:
    """The schema bytes `--extension spec` names: a known extension from `<schema-dir>/extensions/<name>/`,
    the cache or its pinned address; a file (`FILE` or `IDENTIFIER=FILE`) read as it is."""
    env = os.environ if env is None else env
    pins = load_extension_pins()
    if spec in pins:
        return _known(pins[spec], schema_dir, cache_dir, env, fetch)
    identifier, sep, path = spec.partition("=")
    if sep and _IDENTIFIER.fullmatch(identifier) and path:
        return _from_file(Path(path), identifier)
    if not sep and ("/" in spec or spec.endswith(".json") or Path(spec).is_file()):
        return _from_file(Path(spec), None)
    raise SourceError(
        f"unknown extension {spec!r}: use one of {', '.join(pins)}, a schema file, or IDENTIFIER=FILE"
    )


def recorded_extension(
    name: str,
    identifier: str,
    sha256: str,
    *,
    schema_dir: Path | None = None,
    cache_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    fetch: Fetch | None = None,
) -> ExtensionSource:
    """The extension schema a package records: from the cache by sha256, else the known extension's pin."""
    env = os.environ if env is None else env
    cache = _cache(cache_dir, env)
    data = cached_bytes(cache, sha256)
    pin = load_extension_pins().get(name)
    pinned = pin is not None and pin.sha256 == sha256
    if data is not None:
        return ExtensionSource(name, identifier, data, sha256, str(cache / f"{sha256}.json"), pinned)
    if pin is None or not pinned:
        raise SourceError(
            f"the {identifier} extension schema with sha256 {sha256} is not pinned and not in the cache {cache}; "
            f"pass --extension {identifier}=FILE with the schema the package was generated from"
        )
    return _known(pin, schema_dir, cache_dir, env, fetch)


def _cache(cache_dir: Path | None, env: Mapping[str, str]) -> Path:
    return Path(cache_dir) if cache_dir is not None else default_cache_dir(env)


def _known(
    pin: ExtensionPin, schema_dir: Path | None, cache_dir: Path | None, env: Mapping[str, str], fetch: Fetch | None
) -> ExtensionSource:
    directory = schema_dir if schema_dir is not None else (Path(env[SCHEMA_DIR_ENV]) if env.get(SCHEMA_DIR_ENV) else None)
    if directory is not None:
        path = Path(directory) / EXTENSIONS_DIR / pin.name / "schema.json"
        if not path.is_file():
            raise SourceError(f"schema directory {directory} has no {EXTENSIONS_DIR}/{pin.name}/schema.json")
        return _verified(pin, read_file(path, "extension schema"), str(path))
    cache = _cache(cache_dir, env)
    data = cached_bytes(cache, pin.sha256)
    if data is not None:
        return ExtensionSource(pin.name, pin.identifier, data, pin.sha256, str(cache / f"{pin.sha256}.json"), True)
    source = _verified(pin, _download(pin, fetch or https_fetch), pin.url)
    store_bytes(cache, pin.sha256, source.data)
    return source


def _verified(pin: ExtensionPin, data: bytes, origin: str) -> ExtensionSource:
    digest = sha256_of(data)
    if digest != pin.sha256:
        raise SourceError(f"extension schema {pin.name} at {origin} has sha256 {digest}, pin expects {pin.sha256}")
    return ExtensionSource(pin.name, pin.identifier, data, digest, origin, True)


def _download(pin: ExtensionPin, fetch: Fetch) -> bytes:
    try:
        body = fetch(pin.url)
        return body if pin.member is None else _member(body, pin.member)
    except SourceError:
        raise
    except Exception as exc:
        reason = " ".join(str(getattr(exc, "reason", None) or exc).split())
        raise SourceError(
            f"cannot download the {pin.name} extension schema ({pin.upstream}) from {pin.url} ({reason}) and it is not cached; "
            f"pass --schema-dir DIR (or set {SCHEMA_DIR_ENV}) with {EXTENSIONS_DIR}/{pin.name}/schema.json inside"
        ) from exc


def _member(archive: bytes, member: str) -> bytes:
    """The bytes of one file of a gzipped tar archive (an npm package), read without extracting anything."""
    import io
    import tarfile  # only when downloading an archive

    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        found = tar.extractfile(tar.getmember(member))
        if found is None:
            raise SourceError(f"{member} is not a file in the downloaded archive")
        return found.read()


def _from_file(path: Path, identifier: str | None) -> ExtensionSource:
    data = read_file(path, "extension schema file")
    digest = sha256_of(data)
    pin = next((p for p in _pins() if p.sha256 == digest), None)
    if pin is not None and identifier in (None, pin.identifier):
        return ExtensionSource(pin.name, pin.identifier, data, digest, str(path), True)
    found = identifier or identifier_in(data)
    if found is None or not _IDENTIFIER.fullmatch(found):
        raise SourceError(
            f"cannot tell the extension identifier of {path} (its description has no `Extension Identifier:`); "
            f"pass --extension IDENTIFIER={path}"
        )
    return ExtensionSource(module_name(found), found, data, digest, str(path), False)

