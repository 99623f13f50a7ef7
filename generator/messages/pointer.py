"""JSON pointers (RFC 6901): spell a path, select the value at one, wrap a value in one."""

from __future__ import annotations

from typing import Any, Iterable


def pointer(parts: Iterable[Any]) -> str:
    """The JSON pointer of a path of keys and indexes (`""` for the whole value)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _parts(ptr: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]


def resolve(value: Any, ptr: str) -> Any:
    """The part of `value` at `ptr`; raises KeyError, IndexError or TypeError when there is none."""
    for part in _parts(ptr):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def embed(value: Any, ptr: str) -> Any:
    """`value` placed at `ptr` inside otherwise empty objects."""
    for part in reversed(_parts(ptr)):
        value = {part: value}
    return value
