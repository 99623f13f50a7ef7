"""The oracle of the functional tests: the tiny schema itself, through jsonschema."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import jsonschema
import pydantic

from .schemas import Schema


def accepts(schema: Schema, definition: str, instance: Any) -> bool:
    """Whether `instance` is valid against `definition` of `schema` (its own draft; formats are not asserted)."""
    key = "$defs" if "$defs" in schema else "definitions"
    root = {"$schema": schema["$schema"], "$ref": f"#/{key}/{definition}", key: schema[key]}
    validator = jsonschema.validators.validator_for(root)(root)
    return validator.is_valid(instance)


def text(value: Any) -> str:
    """JSON text of a value, which tells 1 from 1.0 where Python's == does not."""
    return json.dumps(value, sort_keys=True)


def assert_agrees(types: ModuleType, schema: Schema, definition: str, instance: Any) -> None:
    """The generated type of `definition` accepts `instance` exactly when the schema does, and dumps it unchanged."""
    valid = accepts(schema, definition, instance)
    adapter = pydantic.TypeAdapter(getattr(types, definition))
    try:
        value = adapter.validate_python(instance)
    except pydantic.ValidationError:
        assert not valid, f"{definition} rejects {text(instance)}, which the schema accepts"
        return
    assert valid, f"{definition} accepts {text(instance)}, which the schema rejects"
    dumped = adapter.dump_python(value, mode="json", by_alias=True, exclude_unset=True)
    assert text(dumped) == text(instance), "the dump differs from what was validated"
