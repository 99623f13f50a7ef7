"""Exact round trips: validate with a generated type, dump by alias, compare type for type."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from pydantic import TypeAdapter, ValidationError


def same_json(a: Any, b: Any) -> bool:
    """Equality of JSON values that also tells `1` from `1.0` and `true` from `1`."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return bool(a == b)


def json_diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where `actual` differs from `expected`, as `<JSON pointer>: <what happened>` lines."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in expected:
            p = f"{path}/{k}"
            if k not in actual:
                out.append(f"{p}: dropped {_show(expected[k])}")
            else:
                out.extend(json_diff(expected[k], actual[k], p))
        out.extend(f"{path}/{k}: added {_show(actual[k])}" for k in actual if k not in expected)
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (x, y) in enumerate(zip(expected, actual)) for d in json_diff(x, y, f"{path}/{i}")]
    if same_json(expected, actual):
        return []
    return [f"{path or '/'}: {_show(expected)} became {_show(actual)}"]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@lru_cache(maxsize=None)
def adapter(package: ModuleType, name: str) -> TypeAdapter[Any]:
    """A TypeAdapter over the public type `name` of a generated package's `types` module."""
    return TypeAdapter(getattr(package.types, name))


def error_path(exc: ValidationError) -> str:
    """The first error of a pydantic validation failure as `<location>: <message>`."""
    err = exc.errors(include_url=False)[0]
    loc = "".join(f"/{p}" for p in err["loc"])
    return f"{loc or '/'}: {err['msg']}"


@dataclass(frozen=True)
class RoundTrip:
    """The outcome of one round trip: the dumped value and its differences, or the rejection."""

    rejected: str | None
    diffs: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """True when the value came back unchanged."""
        return self.rejected is None and not self.diffs


def round_trip(package: ModuleType, name: str, value: Any) -> RoundTrip:
    """Validate `value` as definition `name` of `package`, dump it by alias and compare."""
    ta = adapter(package, name)
    try:
        model = ta.validate_python(value)
    except ValidationError as exc:
        return RoundTrip(rejected=error_path(exc))
    dumped = ta.dump_python(model, mode="json", by_alias=True, exclude_unset=True)
    return RoundTrip(rejected=None, diffs=tuple(json_diff(value, dumped)))
