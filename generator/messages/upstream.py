"""The upstream JSON Schema of a revision (errata applied) and validation against one definition."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match, by_relevance

from ..inputs.errata import corrected_schema
from ..errors import SchemaError
from ..inputs.sources import resolve_schema
from ..model.parser import defs_key_of
from .pointer import pointer


@dataclass(frozen=True)
class SchemaIssue:
    """Why the upstream schema rejects a value: the JSON path of the failing part and the message."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.message}"


@lru_cache(maxsize=None)
def _load(schema_dir: Path | None, revision: str) -> str:
    return json.dumps(corrected_schema(resolve_schema(revision, schema_dir=schema_dir)).schema)


def load_schema(schema_dir: Path | None, revision: str) -> dict[str, Any]:
    """The pinned schema of `revision` (from `schema_dir`, else env, cache or download), errata applied."""
    schema: dict[str, Any] = json.loads(_load(schema_dir, revision))
    return schema


class Upstream:
    """Validates values against the definitions of one upstream schema."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.defs_key = defs_key_of(schema)
        self.definitions: dict[str, Any] = schema[self.defs_key]
        self._cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        self._validators: dict[str, Any] = {}

    def _validator(self, name: str) -> Any:
        if name not in self.definitions:
            raise SchemaError(f"the schema has no definition {name!r}")
        v = self._validators.get(name)
        if v is None:
            root = {k: self.schema[k] for k in ("$schema", self.defs_key) if k in self.schema}
            v = self._cls({**root, "$ref": f"#/{self.defs_key}/{name}"})
            self._validators[name] = v
        return v

    def accepts(self, name: str, value: Any) -> bool:
        """True when `value` is an instance of definition `name`."""
        return bool(self._validator(name).is_valid(value))

    def issue(self, name: str, value: Any) -> SchemaIssue | None:
        """The most relevant reason definition `name` rejects `value`, or None when it accepts it."""
        errors = list(self._validator(name).iter_errors(value))
        return _issue(max(errors, key=by_relevance())) if errors else None

    def issues(self, name: str, value: Any) -> list[SchemaIssue]:
        """Every reason definition `name` rejects `value`, in the schema's order; empty when it accepts it."""
        return list(dict.fromkeys(_issue(e) for e in self._validator(name).iter_errors(value)))


def _issue(error: ValidationError) -> SchemaIssue:
    error = _likeliest(error)
    path = pointer(error.absolute_path)
    message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return SchemaIssue(path=path, message=message)


def _likeliest(error: ValidationError) -> ValidationError:
    """Inside an anyOf/oneOf failure, the error of the branch the value most likely meant."""
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        chosen = min(branches.values(), key=lambda errs: (any(e.validator in ("const", "enum") for e in errs), len(errs)))
        error = best_match(chosen) or chosen[0]
    return error


@lru_cache(maxsize=None)
def upstream(schema_dir: Path | None, revision: str) -> Upstream:
    """The (cached) validator set of a revision's corrected upstream schema."""
    return Upstream(load_schema(schema_dir, revision))
