"""Turn a command-line OLD or NEW (a revision name or a schema file) into the IR and corrected schema."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...model import ir
from ...inputs.errata import corrected_schema
from ...errors import SourceError
from ...model.protocol import build_protocol
from ...inputs.sources import SchemaSource, resolve_schema

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
    if not arg:
        raise SourceError("an empty argument names no revision and no schema file")
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
