"""What validating a value gives, compared between a dispatched union and the plain union of its members."""

from __future__ import annotations

import json
from typing import Any

import pydantic


def outcome(adapter: pydantic.TypeAdapter[Any], value: Any, strict: bool, as_json: bool) -> Any:
    """What validating `value` gives: refused, or the winning class, its dump and the fields it set (nested too)."""
    try:
        got = (
            adapter.validate_json(json.dumps(value), strict=strict)
            if as_json
            else adapter.validate_python(value, strict=strict)
        )
    except pydantic.ValidationError:
        return "refused"
    return described(got)


def described(value: Any) -> Any:
    """A model as its class name, its fields set and its dump, models inside it alike."""
    if isinstance(value, pydantic.BaseModel):
        fields = {name: described(getattr(value, name)) for name in sorted(value.model_fields_set)}
        return (
            type(value).__name__,
            fields,
            value.model_dump(mode="json", by_alias=True, exclude_unset=True),
        )
    if isinstance(value, dict):
        return {k: described(v) for k, v in value.items()}
    if isinstance(value, list):
        return [described(v) for v in value]
    return value
