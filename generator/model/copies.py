"""An extension schema's copies of core definitions: which are the base revision's own (same shape) and
how the others differ.

A copy is a definition the extension schema and the base revision's schema both define. It is the
base revision's when its shape (annotations left out) is the core definition's and every definition it
refers to is too; then the package uses the core class. A copy that differs is reported, one line
naming it and where it differs, and the extension gets its own class for it: the core type is never
replaced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from .shapes import shape

_SHOWN = 3
"""How many places a warning names before it says how many more there are."""
_VALUE_WIDTH = 60


@dataclass(frozen=True)
class CopyReport:
    """The copies that are the base revision's definitions, and a line per copy that differs."""

    same: frozenset[str]
    """Copies that are the core definitions (their whole closure included)."""
    differ: tuple[tuple[str, str], ...]
    """(copy, where it differs) of each copy whose own shape differs."""
    through: tuple[str, ...]
    """Copies whose own shape is the core's, but which refer to a copy that differs."""


def local_refs(node: Any, defs_key: str) -> Iterator[str]:
    """The definitions a schema node refers to (`#/$defs/<name>`, nested pointers by their first definition)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        prefix = f"#/{defs_key}/"
        if isinstance(ref, str) and ref.startswith(prefix):
            yield ref[len(prefix) :].split("/", 1)[0].replace("~1", "/").replace("~0", "~")
        for value in node.values():
            yield from local_refs(value, defs_key)
    elif isinstance(node, list):
        for item in node:
            yield from local_refs(item, defs_key)


def compare_copies(
    extension: Mapping[str, Any], core: Mapping[str, Any], ext_key: str, core_key: str, skip: frozenset[str] = frozenset()
) -> CopyReport:
    """Which definitions of `extension` (its `$defs`) are copies of `core`'s with the same shape.

    References are compared by name, so a copy is the core's only when everything it refers to is
    too (the greatest such set). `skip` names definitions that share a core name without being copies.
    """
    copies = [name for name in extension if name in core and name not in skip]
    alike = {name for name in copies if _same_shape(extension[name], core[name], ext_key, core_key)}
    same = set(alike)
    changed = True
    while changed:
        changed = False
        for name in sorted(same):
            if any(ref not in same for ref in local_refs(extension[name], ext_key)):
                same.discard(name)
                changed = True
    differ = tuple(
        (name, differences(core[name], extension[name], ext_key, core_key)) for name in copies if name not in alike
    )
    through = tuple(name for name in copies if name in alike and name not in same)
    return CopyReport(frozenset(same), differ, through)


def _same_shape(ext: Any, core: Any, ext_key: str, core_key: str) -> bool:
    return bool(shape(rekeyed(ext, ext_key, core_key)) == shape(core))


def rekeyed(node: Any, ext_key: str, core_key: str) -> Any:
    """`node` with its references spelled as `core_key` spells them (`$defs` against a draft-07 `definitions`)."""
    if ext_key == core_key:
        return node
    return json.loads(json.dumps(node).replace(f'"#/{ext_key}/', f'"#/{core_key}/'))


def differences(core: Any, ext: Any, ext_key: str = "$defs", core_key: str = "$defs") -> str:
    """Where a copy's shape differs from the core definition, as JSON pointers inside it (the first few)."""
    found = list(_walk(shape(core), shape(rekeyed(ext, ext_key, core_key)), ""))
    shown = "; ".join(found[:_SHOWN])
    return shown + (f"; and {len(found) - _SHOWN} more" if len(found) > _SHOWN else "")


def _walk(core: Any, ext: Any, path: str) -> Iterator[str]:
    if isinstance(core, dict) and isinstance(ext, dict):
        for key in sorted(set(core) | set(ext), key=lambda k: (k not in core, k)):
            here = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in ext:
                yield f"{here} only in the core's"
            elif key not in core:
                yield f"{here} only in the extension's"
            elif core[key] != ext[key]:
                yield from _walk(core[key], ext[key], here)
    elif core != ext:
        yield f"{path or '/'}: core {_short(core)}, extension {_short(ext)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 1] + "…"
