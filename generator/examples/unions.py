"""Tagged unions: where the upstream schema tells union members apart by a constant, the bindings must too.

A union whose object members all require a property with distinct constant values (`type`,
`method`, …) is discriminable. The generated type must dispatch on that property: an unknown
value gives one `union_tag_invalid` error, not one error per member.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Mapping

from pydantic import ValidationError

from .verdicts import Outcome
from ..messages.pointer import pointer
from ..messages.roundtrip import adapter

KEY_PREFIX = "unions/"
_UNKNOWN_TAG = "\x00not-a-tag"


@dataclass(frozen=True)
class TaggedUnion:
    """A discriminable union of the schema: the definition it sits in, where, and its tag properties."""

    definition: str
    path: tuple[str | int, ...]
    tags: tuple[str, ...]

    @property
    def key(self) -> str:
        """The union's key in golden files: `unions/<definition><JSON pointer>`."""
        return KEY_PREFIX + self.definition + pointer(self.path)


def _objects(defs: Mapping[str, Any], node: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> list[Mapping[str, Any]]:
    """The object schemas a union stands for, through `$ref`s and nested unions."""
    out: list[Mapping[str, Any]] = []
    for branch in node.get("anyOf") or node.get("oneOf") or [node]:
        ref = branch.get("$ref")
        name = ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None
        if name is not None and name not in seen:
            out.extend(_objects(defs, defs[name], seen | {name}))
        elif name is None and ("anyOf" in branch or "oneOf" in branch):
            out.extend(_objects(defs, branch, seen))
        elif name is None and "properties" in branch:
            out.append(branch)
    return out


def _constants(obj: Mapping[str, Any], prop: str) -> set[Any] | None:
    schema = obj.get("properties", {}).get(prop)
    if prop not in obj.get("required", ()) or not isinstance(schema, Mapping):
        return None
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    return {repr(v) for v in values} if values else None


def _tags(objects: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """The properties every object requires with constant values no two objects share."""
    if len(objects) < 2:
        return ()
    tags = []
    for prop in objects[0].get("properties", {}):
        seen: set[Any] = set()
        for values in (_constants(o, prop) for o in objects):
            if values is None or values & seen:
                break
            seen |= values
        else:
            tags.append(prop)
    return tuple(sorted(tags))


def tagged_unions(defs: Mapping[str, Any]) -> list[TaggedUnion]:
    """Every discriminable union of a schema's definitions: those that are one, and those in properties and items."""
    out: list[TaggedUnion] = []

    def walk(definition: str, node: Any, path: tuple[str | int, ...]) -> None:
        if not isinstance(node, Mapping):
            return
        if "anyOf" in node or "oneOf" in node:
            tags = _tags(_objects(defs, node))
            if tags:
                out.append(TaggedUnion(definition, path, tags))
            return
        for prop, sub in (node.get("properties") or {}).items():
            walk(definition, sub, (*path, prop))
        walk(definition, node.get("items"), (*path, 0))

    for name, node in defs.items():
        walk(name, node, ())
    return out


def _probe(union: TaggedUnion) -> Any:
    value: Any = {tag: _UNKNOWN_TAG for tag in union.tags}
    for part in reversed(union.path):
        value = [value] if isinstance(part, int) else {part: value}
    return value


def union_outcome(union: TaggedUnion, package: ModuleType) -> Outcome:
    """Whether the generated type dispatches on the union's tag: one `union_tag_invalid` for an unknown tag."""
    try:
        adapter(package, union.definition).validate_python(_probe(union))
        errors: list[Any] = []
    except ValidationError as exc:
        errors = [e for e in exc.errors(include_url=False) if tuple(e["loc"][: len(union.path)]) == union.path]
    tags = " or ".join(repr(t) for t in union.tags)
    if any(e["type"] == "union_tag_invalid" for e in errors):
        return Outcome(union.key, union.definition, f"tagged by {tags}", failure=False)
    kinds = ", ".join(sorted({e["type"] for e in errors})) or "none"
    return Outcome(union.key, union.definition, f"FAIL: mcpgen does not dispatch on {tags}: an unknown tag gives {len(errors)} errors ({kinds})", failure=True)


def union_outcomes(defs: Mapping[str, Any], package: ModuleType) -> list[Outcome]:
    """One outcome per discriminable union of a schema's definitions."""
    return [union_outcome(u, package) for u in tagged_unions(defs)]
