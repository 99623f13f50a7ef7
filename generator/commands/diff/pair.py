"""Both sides of a diff from the command line: two revisions, two extensions, or a revision and an extension."""

from __future__ import annotations

from pathlib import Path

from ...errors import SchemaError, SourceError
from ...inputs.errata import corrected_schema
from ...inputs.extensions import ExtensionSource, identifier_in, known_extensions, resolve_extension
from ...inputs.sources import parse_json, read_file
from ...model.parser import defs_key_of
from ...model.roles import ROLE_UNIONS
from .extensions import drift_side, extension_side
from .load import Revision, load_revision, looks_like_file, resolve, revision_of


def load_pair(old: str, new: str, schema_dir: Path | None = None) -> tuple[Revision, Revision]:
    """Both sides of a diff: two revisions or schema files; two extensions (a known one's name, its schema
    file, or `IDENTIFIER=FILE`); or a revision and an extension, whose copies of the revision's definitions
    are then compared with the revision's own (the extension's drift)."""
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
    identifier, sep, _ = arg.partition("=")
    if arg in known_extensions() or (sep and "/" in identifier):
        return resolve_extension(arg, schema_dir=schema_dir)
    if not (looks_like_file(arg) and Path(arg).is_file()):
        return None
    data = read_file(Path(arg), "schema file")
    if _a_revision(data, arg):
        return None
    if identifier_in(data) is None:
        raise SourceError(
            f"{arg} is neither a revision's schema (no role union such as ClientRequest, no error response) "
            f"nor an extension's (its description has no `Extension Identifier:`); "
            f"name an extension schema's identifier as IDENTIFIER={arg}"
        )
    return resolve_extension(arg, schema_dir=schema_dir)


def _a_revision(data: bytes, name: str) -> bool:
    """True when the schema file's bytes are a revision's: it states no extension identifier, and it has a
    role union (`ClientRequest`, ...) and the JSON-RPC error response, which an extension's copies never include."""
    schema = parse_json(data, name)
    try:
        defs = schema[defs_key_of(schema)]
    except SchemaError:
        return True  # not a schema of either kind: reading it as a revision says why
    errors = ("JSONRPCErrorResponse", "JSONRPCError")
    return identifier_in(data) is None and any(n in defs for n in ROLE_UNIONS) and any(n in defs for n in errors)
