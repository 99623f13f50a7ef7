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
    while error.context:  # an anyOf/oneOf failure: say what no branch admits, or follow the likeliest branch
        branches = _branches(error)
        unadmitted = _unadmitted(branches)
        if unadmitted is not None:
            return unadmitted
        chosen = min(branches, key=lambda errs: (any(e.validator in _TAGS for e in errs), len(errs)))
        error = best_match(chosen) or chosen[0]
    return SchemaIssue(path=pointer(error.absolute_path), message=_short(error.message))


_TAGS = ("const", "enum")
_NAMED = 8
"""Values a union admits that a message names; the rest are counted."""


def _short(message: str) -> str:
    return message if len(message) <= 160 else message[:157] + "..."


def _branches(error: ValidationError) -> list[list[ValidationError]]:
    """The errors of an anyOf/oneOf failure, by branch."""
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    return list(branches.values())


def _unadmitted(branches: list[list[ValidationError]]) -> SchemaIssue | None:
    """When every branch of a union refuses the same member's value as not its constant (a content block's
    `type`, a message's `method`): that value and every one the branches admit there."""
    tags = [{tuple(e.absolute_path): e for e in errors if e.validator in _TAGS} for errors in branches]
    shared = set.intersection(*(set(found) for found in tags)) if tags else set()
    if not shared:
        return None
    where = min(shared, key=len)
    admitted: list[Any] = []
    for found in tags:
        refusal = found[where]
        for value in [refusal.validator_value] if refusal.validator == "const" else refusal.validator_value:
            if value not in admitted:
                admitted.append(value)
    names = [repr(v) for v in admitted[:_NAMED]] + ([f"{len(admitted) - _NAMED} more"] if len(admitted) > _NAMED else [])
    listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
    return SchemaIssue(pointer(where), _short(f"{tags[0][where].instance!r} was given; the union admits {listed}"))


@lru_cache(maxsize=None)
def upstream(schema_dir: Path | None, revision: str) -> Upstream:
    """The (cached) validator set of a revision's corrected upstream schema."""
    return Upstream(load_schema(schema_dir, revision))
