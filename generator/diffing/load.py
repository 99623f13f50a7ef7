"""Turn a command-line OLD or NEW (a revision name or a schema file) into the IR the generator uses."""

from __future__ import annotations

from pathlib import Path

from .. import ir
from ..errors import SourceError
from ..generate import protocol_for
from ..source import SchemaSource, resolve_schema


def looks_like_file(arg: str) -> bool:
    """True when the argument names a schema file rather than a revision."""
    return arg.endswith(".json") or "/" in arg or Path(arg).is_file()


def resolve(arg: str, schema_dir: Path | None = None) -> SchemaSource:
    """The schema bytes for a revision name or a file path (its revision inferred, else its name)."""
    if not looks_like_file(arg):
        return resolve_schema(arg, schema_dir=schema_dir)
    path = Path(arg)
    try:
        return resolve_schema(None, schema_file=path)
    except SourceError:
        if not path.is_file():
            raise
        return resolve_schema(str(path), schema_file=path)


def load_protocol(arg: str, schema_dir: Path | None = None) -> ir.Protocol:
    """The IR of one side of a diff, errata applied exactly as `mcpgen generate` applies them."""
    return protocol_for(resolve(arg, schema_dir))
