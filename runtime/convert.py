"""Conversion between revisions: a message of one validated as another's shape, filled, stripped and repaired."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache, partial
from typing import Any, Callable, Iterator, Literal, get_args, get_type_hints

from pydantic import BaseModel, ValidationError

from .jsonrpc import ProtocolError, error_details, error_location, newer_content
from .log import logger
from .plan import FillRule, Plan, Prune

Policy = Literal["drop", "strict"]
"""What happens to a message part the target revision cannot represent: dropped with a warning, or an error."""

MAX_REPAIRS = 16


def dump(value: Any) -> Any:
    """Wire data of a model (aliases, only the fields that were set); mappings are copied as they are."""
    if value is None:
        return None
    # the MRO, not isinstance: BaseModel's metaclass is an ABCMeta, whose check is a Python call
    if BaseModel in type(value).__mro__:  # model_dump's work, without its wrapper
        return value.__pydantic_serializer__.to_python(
            value, mode="json", by_alias=True, exclude_unset=True
        )
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"expected a model or a mapping, not {type(value).__name__}")


def objects(value: Any, path: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """Every object `path` leads to in `value` (`*`: each item of a list or value of an object)."""
    if not path:
        if isinstance(value, dict):
            yield value
        return
    head, rest = path[0], path[1:]
    if head == "*":
        items = (
            value
            if isinstance(value, list)
            else list(value.values()) if isinstance(value, dict) else []
        )
        for item in items:
            yield from objects(item, rest)
    elif isinstance(value, dict) and head in value:
        yield from objects(value[head], rest)


def fill(value: Any, path: tuple[str, ...], key: str, constant: Any) -> None:
    """Give every object `path` leads to in `value` the member `key`, unless it has one."""
    for found in objects(value, path):
        found.setdefault(key, constant)


def pruner(tree: Prune) -> Callable[[Any], None]:
    """The walk taking out of a value, in place, the members `tree` names, built once per plan: a key
    out of each object its path leads to (`*`: each item of a list or value of an object), one level
    at a time, each level its steps (the keys out, then a walk below each member it names)."""
    steps = [
        partial(_each, pruner(below)) if head == "*" else partial(_member, head, pruner(below))
        for head, below in tree.below
    ]
    if tree.keys:
        steps.insert(0, partial(_drop, tree.keys))
    return steps[0] if len(steps) == 1 else partial(_steps, tuple(steps))


def _drop(keys: frozenset[str], value: Any) -> None:
    """Take `keys` out of `value`, when it is an object holding any of them."""
    if isinstance(value, dict) and not keys.isdisjoint(value):
        for key in keys.intersection(value):
            del value[key]


def _member(head: str, inner: Callable[[Any], None], value: Any) -> None:
    """Walk `inner` over the member `head` of `value`, when it is an object with that member."""
    if isinstance(value, dict):
        found = value.get(head)
        if found is not None:
            inner(found)


def _each(inner: Callable[[Any], None], value: Any) -> None:
    """Walk `inner` over each item of `value`, a list, or each value of it, an object."""
    if isinstance(value, list):
        for item in value:
            inner(item)
    elif isinstance(value, dict):
        for item in list(value.values()):
            inner(item)


def _steps(steps: tuple[Callable[[Any], None], ...], value: Any) -> None:
    """Take each step of a level over `value` in turn."""
    for step in steps:
        step(value)


def _walk(value: Any, loc: tuple[Any, ...]) -> tuple[list[tuple[Any, Any]], bool]:
    """The (container, key) steps of a validation error location inside `value`, and whether the
    location passes through a union member.

    Pydantic locations also name union members (a tag, a model); those are not part of the JSON:
    they are skipped, and say the value matched none of the union's members.
    """
    steps: list[tuple[Any, Any]] = []
    node = value
    through_union = False
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            steps.append((node, part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            steps.append((node, part))
            node = node[part]
        else:
            through_union = True
    return steps, through_union


def _newer_content(value: Any, errors: list[Any]) -> bool:
    """True when every error says the value holds something its revision does not have: an unknown
    union member or enum value, or a value no member of a union accepts (a peer's newer content)."""
    for error in errors:
        _, through_union = _walk(value, error_location(error))
        if not newer_content(error) and not through_union:
            return False
    return True


def _pointer(steps: list[tuple[Any, Any]]) -> str:
    return "/" + "/".join(str(key) for _, key in steps)


def _repair(value: Any, errors: list[Any]) -> list[str] | None:
    """Drop, in place, what each error points at: the value a revision cannot represent (for a
    missing member, the object lacking it). The pointers dropped, or None when an error points at
    the whole value.

    Run again after each round, this climbs one level at a time: dropping a required value makes
    its holder miss it, and the holder goes next, up to the nearest list item or map entry the
    schema can do without.
    """
    drops: list[tuple[Any, Any, str]] = []
    for error in errors:
        steps, _ = _walk(value, error_location(error))
        if not steps:
            return None
        container, key = steps[-1]
        drops.append((container, key, _pointer(steps)))
    for container, key, _ in sorted(drops, key=lambda d: (id(d[0]), str(d[1])), reverse=True):
        if isinstance(container, list):
            if key < len(container):
                del container[key]
        else:
            container.pop(key, None)
    return [pointer for _, _, pointer in drops]


def with_defaults(fills: tuple[FillRule, ...], defaults: Mapping[str, Any]) -> tuple[FillRule, ...]:
    """`fills` with the top-level values `defaults` gives (by wire name) in place of the documented ones."""
    if not defaults:
        return fills
    return tuple(
        (path, key, defaults.get(key, value) if not path else value) for path, key, value in fills
    )


def _reshaped(
    value: dict[str, Any], how: Plan, owned: bool, defaults: Mapping[str, Any] | None
) -> dict[str, Any]:
    """`value` with the top-level keys in `how.strip` left out, the fields below it in `how.unfills`
    taken out and `how.fills` filled in: changed in place when `owned`, else a copy (a deep one when
    a change goes below the top level)."""
    strip = how.strip
    if strip:
        if owned:
            for key in strip.intersection(value):
                del value[key]
        else:
            value = {key: item for key, item in value.items() if key not in strip}
            owned = not how.deep
    fills = with_defaults(how.fills, defaults) if defaults else how.fills
    if fills or how.prune is not None:
        if not owned:
            value = copy.deepcopy(value) if how.deep else dict(value)
        if how.prune is not None:
            how.prune(value)
        for path, key, constant in fills:
            fill(value, path, key, constant)
    return value


def convert(
    value: Any,
    how: Plan,
    *,
    policy: Policy,
    code: int,
    from_peer: bool = False,
    owned: bool = False,
    defaults: Mapping[str, Any] | None = None,
) -> tuple[Any, Any]:
    """`value` validated by `how.validate`, a shape of protocol version `how.version`: (model, wire data).

    Top-level keys in `how.strip` (fields the version does not define) are left out, then required
    fields another revision lacks are filled from `how.fills` (`defaults` override the top-level
    values). What the version cannot represent (a union member or enum value it does not have, a key a
    closed object forbids, else the list item or map entry holding it) is dropped with one warning
    each under the `drop` policy; anything else, and any drop under `strict`, raises ProtocolError
    with `code`. A message `from_peer` is only repaired when it fails for newer content alone, else
    refused as it is. An `owned` value (fresh wire data of ours) is changed in place, not copied.
    """
    if how.reshapes and isinstance(value, dict):
        value = _reshaped(value, how, owned, defaults)
    validate = how.validate
    try:
        return validate(value), value
    except ValidationError as exc:
        failure = exc
    except RecursionError:
        raise ProtocolError(code, f"{how.what}: nested too deeply") from None
    what, version = how.what, how.version
    if from_peer and (
        policy == "strict" or not _newer_content(value, failure.errors(include_url=False))
    ):
        raise ProtocolError(
            code, f"{what}: not valid in protocol version {version}", error_details(failure)
        )
    work = copy.deepcopy(value)
    dropped: list[str] = []
    for _ in range(MAX_REPAIRS):
        found = _repair(work, failure.errors(include_url=False))
        if found is None:
            break
        dropped.extend(found)
        try:
            model = validate(work)
        except ValidationError as exc:
            failure = exc
            continue
        if dropped and policy == "strict":
            logger.error("%s: %s cannot represent %s", what, version, ", ".join(dropped))
            raise ProtocolError(
                code, f"{what}: protocol version {version} cannot represent {', '.join(dropped)}"
            )
        for pointer in _outermost(dropped):
            logger.warning(
                "%s: dropped %s, which protocol version %s cannot represent", what, pointer, version
            )
        return model, work
    raise ProtocolError(
        code, f"{what}: not valid in protocol version {version}", error_details(failure)
    )


def _outermost(pointers: list[str]) -> list[str]:
    """The pointers not inside another one: a later round may drop what holds an earlier drop."""
    unique = list(dict.fromkeys(pointers))
    return [p for p in unique if not any(p != q and p.startswith(q + "/") for q in unique)]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (through `X | None`), if it holds one."""
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


@lru_cache(maxsize=None)
def _field_models(model: type[BaseModel]) -> dict[str, type[BaseModel] | None]:
    """A model's fields by wire name, with the model each holds. Read from the resolved type hints: a
    field's own annotation stays the forward reference written in types.py until pydantic completes
    the model, which it never does for one only ever validated as part of another."""
    hints = get_type_hints(model)
    return {
        field.alias or name: _model_of(hints.get(name, field.annotation))
        for name, field in model.model_fields.items()
    }


def project_capabilities(
    wire: Any, model: type[BaseModel] | None, source: type[BaseModel] | None = None
) -> Any:
    """Capabilities in another revision's shape: at every level, only what that revision defines
    (`source`, the revision they were written for, says which keys of an open object are its own, and
    where its object is open but `model`'s is not, that none of `model`'s sub-keys were meant).
    """
    if model is None or not isinstance(wire, Mapping):
        return wire
    fields = _field_models(model)
    theirs = _field_models(source) if source else {}
    out: dict[str, Any] = {}
    for key, value in wire.items():
        if key not in fields:
            continue
        inner, written = fields[key], theirs.get(key)
        if inner is not None and key in theirs and written is None and isinstance(value, Mapping):
            out[key] = {}
        elif inner is not None:
            out[key] = project_capabilities(value, inner, written)
        elif written is not None and isinstance(value, Mapping):
            own = {f.alias or n for n, f in written.model_fields.items()}
            out[key] = {k: v for k, v in value.items() if k not in own}
        else:
            out[key] = value
    return out
