"""Exact round trips: validate with a generated type, dump by alias, compare type for type."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from pydantic import TypeAdapter, ValidationError

from .pointer import pointer


def same_json(a: Any, b: Any) -> bool:
    """Equality of JSON values that also tells `1` from `1.0` and `true` from `1`."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return bool(a == b)


def json_diff(expected: Any, actual: Any, path: str = "") -> list[tuple[str, str]]:
    """Where `actual` differs from `expected`: (JSON pointer, what happened) pairs."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in expected:
            p = path + pointer([k])
            if k not in actual:
                out.append((p, f"dropped {_show(expected[k])}"))
            else:
                out.extend(json_diff(expected[k], actual[k], p))
        out.extend((path + pointer([k]), f"added {_show(actual[k])}") for k in actual if k not in expected)
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (x, y) in enumerate(zip(expected, actual)) for d in json_diff(x, y, f"{path}/{i}")]
    if same_json(expected, actual):
        return []
    return [(path, f"{_show(expected)} became {_show(actual)}")]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@lru_cache(maxsize=None)
def adapter(package: ModuleType, name: str) -> TypeAdapter[Any]:
    """A TypeAdapter over the public type `name` of a generated package's `types` module."""
    return TypeAdapter(getattr(package.types, name))


def pydantic_errors(exc: ValidationError) -> tuple[tuple[str, str], ...]:
    """Every error of a pydantic validation failure as (JSON pointer, message)."""
    return tuple((pointer(e["loc"]), e["msg"]) for e in exc.errors(include_url=False))


@dataclass(frozen=True)
class RoundTrip:
    """The outcome of one round trip: the errors of a rejection, or the differences of the dumped value."""

    rejected: tuple[tuple[str, str], ...] = ()
    diffs: tuple[tuple[str, str], ...] = ()

    @property
    def exact(self) -> bool:
        """True when the value came back unchanged."""
        return not self.rejected and not self.diffs


def round_trip(package: ModuleType, name: str, value: Any) -> RoundTrip:
    """Validate `value` as definition `name` of `package`, dump it by alias and compare."""
    ta = adapter(package, name)
    try:
        model = ta.validate_python(value)
    except ValidationError as exc:
        return RoundTrip(rejected=pydantic_errors(exc))
    try:
        dumped = ta.dump_python(model, mode="json", by_alias=True, exclude_unset=True)
    except ValueError as exc:  # pydantic writes fewer levels than it reads
        return RoundTrip(rejected=(("", f"read, but cannot be written back: {exc}"),))
    return RoundTrip(diffs=tuple(json_diff(value, dumped)))
