"""Turn a command-line OLD or NEW (a revision name or a schema file) into the IR and corrected schema."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ...model import ir
from ...inputs.errata import corrected_schema
from ...errors import SchemaError, SourceError
from ...model.protocol import build_protocol
from ...inputs.sources import SchemaSource, resolve_schema

if TYPE_CHECKING:
    from ...inputs.extensions import ExtensionSource
from .rawschema import RawSchema, index_schema


@dataclass(frozen=True)
class Revision:
    """One side of a diff: the IR the generator uses and the corrected schema JSON behind it."""

    protocol: ir.Protocol
    raw: RawSchema


def looks_like_file(arg: str) -> bool:
    """True when the argument names a schema file rather than a revision."""
    return arg.endswith(".json") or "/" in arg or Path(arg).is_file()


def resolve(arg: str, schema_dir: Path | None = None) -> SchemaSource:
    """The schema bytes for a revision name or a file path (its revision from the pins, the file, else its name)."""
    if not looks_like_file(arg):
        return resolve_schema(arg, schema_dir=schema_dir)
    path = Path(arg)
    try:
        return resolve_schema(None, schema_file=path)
    except SourceError:
        if not path.is_file():
            raise
        return resolve_schema(str(path), schema_file=path)


def revision_of(
    schema: Mapping[str, Any], revision: str, sha256: str = "", errata: tuple[ir.Erratum, ...] = (),
    draft: bool = False,
) -> Revision:
    """A diff side from an already corrected schema document (a `draft` pairs a request without a
    result of its own with the base `Result`, as generation does)."""
    document = dict(schema)
    protocol = build_protocol(document, revision, sha256, errata, draft=draft)
    return Revision(protocol, index_schema(protocol, document))


def load_revision(arg: str, schema_dir: Path | None = None) -> Revision:
    """One side of a diff, read exactly as `mcpgen generate` reads it (errata applied wherever they hold)."""
    source = resolve(arg, schema_dir)
    fixed = corrected_schema(source)
    return revision_of(fixed.schema, source.revision, source.sha256, fixed.errata, draft=not source.pinned)


def load_pair(old: str, new: str, schema_dir: Path | None = None) -> tuple[Revision, Revision]:
    """Both sides of a diff: two revisions or schema files; two extensions (a known one's name, its schema
    file, or `IDENTIFIER=FILE`); or a revision and an extension, whose copies of the revision's definitions
    are then compared with the revision's own (the extension's drift)."""
    from .extensions import drift_side, extension_side

    a, b = _extension(old, schema_dir), _extension(new, schema_dir)
    if a is None and b is None:
        return load_revision(old, schema_dir), load_revision(new, schema_dir)
    if a is not None and b is not None:
        return extension_side(a, old), extension_side(b, new)
    extension, label, core = (b, new, old) if a is None else (a, old, new)
    assert extension is not None
    source = resolve(core, schema_dir)
    fixed = corrected_schema(source)
    plain = revision_of(fixed.schema, source.revision, source.sha256, fixed.errata, draft=not source.pinned)
    drift = drift_side(fixed.schema, plain.protocol, extension, label)
    return (plain, drift) if a is None else (drift, plain)


def _extension(arg: str, schema_dir: Path | None) -> ExtensionSource | None:
    """The extension schema `arg` names, None when it names a revision or a revision's schema file."""
    from ...inputs.extensions import known_extensions, resolve_extension

    identifier, sep, _ = arg.partition("=")
    if arg in known_extensions() or (sep and "/" in identifier):
        return resolve_extension(arg, schema_dir=schema_dir)
    if looks_like_file(arg) and Path(arg).is_file() and not _a_revision(Path(arg)):
        return resolve_extension(arg, schema_dir=schema_dir)
    return None


def _a_revision(path: Path) -> bool:
    """True when the schema file is a revision's: it states no extension identifier, and it has a role
    union (`ClientRequest`, ...) and the JSON-RPC error response, which an extension's copies never include."""
    from ...inputs.extensions import identifier_in
    from ...inputs.sources import parse_json, read_file
    from ...model.parser import defs_key_of
    from ...model.roles import ROLE_UNIONS

    data = read_file(path, "schema file")
    schema = parse_json(data, str(path))
    try:
        defs = schema[defs_key_of(schema)]
    except SchemaError:
        return True  # not a schema of either kind: reading it as a revision says why
    errors = ("JSONRPCErrorResponse", "JSONRPCError")
    return identifier_in(data) is None and any(n in defs for n in ROLE_UNIONS) and any(n in defs for n in errors)
