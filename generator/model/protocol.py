"""Build the whole intermediate model of a revision from its (corrected) schema."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Iterator

from . import ir
from .parser import check_references, parse
from ..errors import SchemaError
from .roles import derive_methods, envelope, load_pairings
from .definitions import DISCRIMINATOR_KEYS, build_definitions
from .names import taken_by_runtime, with_stems

_MAX_PRESENCE_KEYS = 4  # a value's tag table has 2**n entries



def build_protocol(
    schema: dict[str, Any],
    revision: str,
    schema_sha256: str,
    errata: tuple[ir.Erratum, ...] = (),
    pairings: tuple[tuple[str, str], ...] = (),
    draft: bool = False,
    warnings: tuple[str, ...] = (),
) -> ir.Protocol:
    """The frozen IR of `schema`: definitions in emission order, methods and envelope.

    `pairings` adds request → result pairs to those of `schema/pairings.json` (for drafts that
    define a request without a result mcpgen can find). A `draft` (not the pinned bytes of a known
    revision) pairs a request that still has no result with the base `Result`. `warnings` are what the
    user should know about how the schema was read (errata that did not apply to a draft).
    """
    check_references(schema)
    definitions, _ = build_definitions(parse(schema))
    definitions = add_discriminators(definitions)
    ordered = emission_order(definitions)
    names = {d.name for d in ordered}
    for request, result in pairings:
        for name in (request, result):
            if name not in names:
                raise SchemaError(f"--pair {request}={result}: the schema has no definition {name}")
    return ir.Protocol(
        revision=revision,
        schema_sha256=schema_sha256,
        errata=errata,
        definitions=tuple(ordered),
        methods=with_stems(
            derive_methods(ordered, {**load_pairings(), **dict(pairings)}, assume_base=draft), taken_by_runtime()
        ),
        envelope=envelope(ordered),
        pairings=pairings,
        warnings=warnings,
    )


def refs(t: ir.TypeExpr) -> Iterator[str]:
    """Every definition name a type expression mentions."""
    if isinstance(t, ir.Ref):
        yield t.name
    elif isinstance(t, ir.ListOf):
        yield from refs(t.item)
    elif isinstance(t, ir.DictOf):
        yield from refs(t.value)
    elif isinstance(t, ir.UnionOf):
        for m in t.members:
            yield from refs(m)


def _discriminator(members: tuple[ir.TypeExpr, ...], defs: dict[str, ir.Definition]) -> str | None:
    """The Python name of a required literal field whose values tell every member apart."""
    models: list[ir.Model] = []
    for m in members:
        d = defs.get(m.name) if isinstance(m, ir.Ref) else None
        if not isinstance(d, ir.Model):
            return None
        models.append(d)
    for key in DISCRIMINATOR_KEYS:
        seen: set[object] = set()
        names: set[str] = set()
        for model in models:
            f = next((f for f in model.fields if f.wire_name == key), None)
            if f is None or not f.required or not isinstance(f.type, ir.LiteralOf):
                break
            if seen & set(f.type.values) or not f.type.values:
                break
            seen |= set(f.type.values)
            names.add(f.python_name)
        else:
            if len(names) == 1:
                return names.pop()
    return None


def _dispatch(members: tuple[ir.TypeExpr, ...], defs: dict[str, ir.Definition]) -> ir.Dispatch | None:
    """A dispatch on the first key every member (a model) requires as a literal of strings, when a
    value of it leaves out at least one member.

    Exact: a member whose literal does not take the input's (exact string) value cannot accept the
    input, and the members that can keep their order, so a smart union picks the same one.
    """
    models = [defs.get(m.name) if isinstance(m, ir.Ref) else None for m in members]
    if len(models) < 2 or not all(isinstance(m, ir.Model) for m in models):
        return None
    for key in DISCRIMINATOR_KEYS:
        fields = [next((f for f in m.fields if f.wire_name == key), None) for m in models if isinstance(m, ir.Model)]
        values = [_string_literal(f) for f in fields]
        if any(v is None for v in values) or len({f.python_name for f in fields if f is not None}) != 1:
            continue
        tags: dict[str, list[int]] = {}
        for index, taken in enumerate(values):
            for value in taken or ():
                tags.setdefault(value, []).append(index)
        if any(len(group) < len(members) for group in tags.values()):
            fallback = "*"
            while fallback in tags:
                fallback += "*"
            name = next(f.python_name for f in fields if f is not None)
            groups = tuple((tag, tuple(group)) for tag, group in tags.items())
            presence, narrowed = _presence(groups, models, key, {*tags, fallback})
            return ir.Dispatch(key, name, groups, fallback, presence, narrowed)
    return None


def _presence(
    groups: tuple[tuple[str, tuple[int, ...]], ...], models: list[Any], key: str, taken: set[str]
) -> tuple[tuple[ir.Presence, ...], tuple[tuple[str, tuple[int, ...]], ...]]:
    """For each value whose members require other keys: those keys (each field's wire and Python
    name) and, for each combination of them present, the tag of the members that may accept the
    input; and the tags (named after the members) this adds.

    Exact: a member a required key is missing from under both its names rejects the input, and the
    members left keep their order, so a smart union picks the same one. A combination that leaves
    no member, or all, keeps the value's tag (the error of an input no member takes is unchanged).
    """
    presence: list[ir.Presence] = []
    narrowed: dict[tuple[int, ...], str] = {}
    for value, group in groups:
        needs = {
            i: {tuple(dict.fromkeys((f.wire_name, f.python_name))) for f in models[i].fields if f.required and f.wire_name != key}
            for i in group
        }
        keys = list(dict.fromkeys(names for i in group for names in sorted(needs[i])))
        if not keys or len(keys) > _MAX_PRESENCE_KEYS:
            continue
        table: list[str] = []
        for mask in range(1 << len(keys)):
            present = {names for bit, names in enumerate(keys) if mask >> bit & 1}
            left = tuple(i for i in group if needs[i] <= present)
            if not left or left == group:
                table.append(value)
                continue
            if left not in narrowed:
                tag = value + ":" + "|".join(models[i].name for i in left)
                while tag in taken:
                    tag += "*"
                taken.add(tag)
                narrowed[left] = tag
            table.append(narrowed[left])
        if any(tag != value for tag in table):
            presence.append((value, tuple(keys), tuple(table)))
    return tuple(presence), tuple((tag, left) for left, tag in narrowed.items())


def _string_literal(f: ir.Field | None) -> tuple[str, ...] | None:
    """The values of a required literal field when all are strings, each once."""
    if f is None or not f.required or not isinstance(f.type, ir.LiteralOf):
        return None
    if not all(isinstance(v, str) for v in f.type.values):
        return None
    return tuple(dict.fromkeys(v for v in f.type.values if isinstance(v, str)))


def _with_discriminators(t: ir.TypeExpr, defs: dict[str, ir.Definition]) -> ir.TypeExpr:
    if isinstance(t, ir.ListOf):
        return ir.ListOf(_with_discriminators(t.item, defs))
    if isinstance(t, ir.DictOf):
        return ir.DictOf(_with_discriminators(t.value, defs))
    if isinstance(t, ir.UnionOf):
        members = tuple(_with_discriminators(m, defs) for m in t.members)
        key = _discriminator(members, defs)
        if key is not None:
            return ir.UnionOf(members, key)
        dispatch = _dispatch(members, defs)
        if dispatch is not None:
            return ir.UnionOf(members, dispatch=dispatch)
        return _group_discriminable(members, defs)
    return t


def _group_discriminable(members: tuple[ir.TypeExpr, ...], defs: dict[str, ir.Definition]) -> ir.UnionOf:
    """Nest the object members of a mixed union (`A | B | list[C]`) as a discriminated union.

    It accepts exactly what the flat union accepts: an object must match one member's tag either way.
    """
    models = tuple(m for m in members if isinstance(m, ir.Ref) and isinstance(defs.get(m.name), ir.Model))
    key = _discriminator(models, defs) if 2 <= len(models) < len(members) else None
    if key is None:
        return ir.UnionOf(members)
    first = members.index(models[0])
    rest = [m for m in members if m not in models]
    return ir.UnionOf((*rest[:first], ir.UnionOf(models, key), *rest[first:]))


def add_discriminators(definitions: Iterable[ir.Definition]) -> list[ir.Definition]:
    """Mark every union of object models that a required literal field can discriminate."""
    defs = {d.name: d for d in definitions}
    out: list[ir.Definition] = []
    for d in defs.values():
        if isinstance(d, ir.Alias):
            out.append(dataclasses.replace(d, type=_with_discriminators(d.type, defs)))
        else:
            fields = tuple(dataclasses.replace(f, type=_with_discriminators(f.type, defs)) for f in d.fields)
            out.append(dataclasses.replace(d, fields=fields))
    return out


def emission_order(definitions: list[ir.Definition]) -> list[ir.Definition]:
    """Discovery order, moved only where a type alias must follow what it names at import time.

    Aliases that reach themselves through other aliases are marked recursive (they are
    emitted as lazily evaluated `TypeAliasType`s).
    """
    defs = {d.name: d for d in definitions}
    alias_deps = {
        d.name: [r for r in dict.fromkeys(refs(d.type)) if r in defs]
        for d in definitions
        if isinstance(d, ir.Alias)
    }
    recursive = _cyclic(alias_deps)
    out: list[ir.Definition] = []
    done: set[str] = set()

    def emit(name: str) -> None:
        if name in done:
            return
        done.add(name)
        d = defs[name]
        if isinstance(d, ir.Alias):
            if name in recursive:
                d = dataclasses.replace(d, recursive=True)
            else:
                for dep in alias_deps[name]:
                    emit(dep)
        out.append(d)

    for d in definitions:
        emit(d.name)
    return out


def _cyclic(alias_deps: dict[str, list[str]]) -> set[str]:
    """Aliases on a cycle of alias-to-alias references (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cyclic: set[str] = set()
    counter = 0

    def edges(n: str) -> list[str]:
        return [m for m in alias_deps.get(n, []) if m in alias_deps]

    for root in alias_deps:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            succ = edges(node)
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in edges(node):
                    cyclic.update(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return cyclic
