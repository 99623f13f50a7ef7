"""Build the IR of an extension on top of its base revision: its own definitions and methods, its copies
of core definitions mapped to the base revision's classes, and the facts its prose states."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping

from ..errors import SchemaError
from ..inputs.extensions import ExtensionInput
from . import ir
from .copies import compare_copies
from .definitions import build_definitions
from .lifecycle import CLIENT_CAPABILITIES, EXTENSIONS_FIELD, SERVER_CAPABILITIES
from .names import meta_helpers
from .naming import method_python_name, unique
from .parser import check_references, defs_key_of, parse
from .protocol import add_discriminators, emission_order
from .roles import ROLE_UNIONS, method_name, pair_result

_SETTINGS_NAME = re.compile(r"ExtensionCapabilit(y|ies)$")
_MESSAGE_SUFFIXES: dict[str, ir.MethodKind] = {"Request": "request", "Notification": "notification"}


def core_names(protocol: ir.Protocol) -> dict[str, str]:
    """Each schema definition of a revision by its name in the schema → its Python name."""
    out = {}
    for d in protocol.definitions:
        if d.is_definition:
            wire = d.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            out[wire] = d.name
    return out


def build_extension(source: ExtensionInput, base: ir.Protocol, base_schema: Mapping[str, Any]) -> ir.Extension:
    """The IR of one extension over the base revision `base` (whose corrected schema is `base_schema`)."""
    label = f"extension {source.name}"
    ext_key, core_key = defs_key_of(dict(source.schema)), defs_key_of(dict(base_schema))
    raw, core_raw = source.schema[ext_key], base_schema[core_key]
    check_references(dict(source.schema))
    definitions, names = build_definitions(parse(dict(source.schema)))
    definitions = emission_order(add_discriminators(definitions))
    unions = frozenset(ROLE_UNIONS)
    report = compare_copies(raw, core_raw, ext_key, core_key, skip=unions)
    warnings = list(source.warnings)
    warnings += [
        f"{label}: its copy of {name} differs from {base.revision}'s ({where}); the extension keeps its own "
        f"{name} (ext/{source.name}/types.py), the core {name} is unchanged"
        for name, where in report.differ
    ]
    if report.through:
        warnings.append(
            f"{label}: its copies of {', '.join(report.through)} refer to copies that differ from {base.revision}'s, "
            "so the extension keeps its own of them too"
        )
    core = core_names(base)
    mapping = _mapping(definitions, base, {names[n]: core[n] for n in report.same if n in names})
    own = tuple(_rebased(d, mapping) for d in definitions if d.name not in mapping)
    methods, method_notes = extension_methods(source, own, definitions, mapping, base)
    warnings += method_notes
    if not _negotiable(base):
        warnings.append(
            f"{label}: revision {base.revision} has no `capabilities.{EXTENSIONS_FIELD}` (SEP-2133): its peers cannot "
            f"negotiate {source.identifier}"
        )
    local = {d.name for d in own}
    settings, notes = _settings(source, names, local, own)
    warnings += notes
    results, notes = _results(source, names, local, base)
    warnings += notes
    meta, notes = _meta(source, names, local, core, base)
    warnings += notes
    headers, notes = _name_headers(source, methods, own)
    warnings += notes
    return ir.Extension(
        name=source.name,
        identifier=source.identifier,
        schema_sha256=source.sha256,
        pinned=source.pinned,
        errata=source.errata,
        definitions=own,
        copies=tuple(sorted(report.same)),
        methods=methods,
        settings=settings,
        results=results,
        meta=meta,
        constants=source.facts.constants,
        name_headers=headers,
        warnings=tuple(warnings),
    )


def _mapping(definitions: list[ir.Definition], base: ir.Protocol, roots: dict[str, str]) -> dict[str, str]:
    """Every extension definition that is a core class (the copies in `roots`, their inline objects
    with them) → the core Python name; a copy whose IR does not line up with the core's stays out."""
    ext = {d.name: d for d in definitions}
    core = {d.name: d for d in base.definitions}
    mapping: dict[str, str] = {}
    for ext_name, core_name in roots.items():
        found: dict[str, str] = {}
        if _pair(ext.get(ext_name), core.get(core_name), ext, core, found, {**roots, **mapping}):
            mapping.update(found)
    return mapping


def _pair(
    e: ir.Definition | None, c: ir.Definition | None, ext: dict[str, ir.Definition], core: dict[str, ir.Definition],
    found: dict[str, str], roots: dict[str, str],
) -> bool:
    if e is None or c is None or type(e) is not type(c):
        return False
    if found.get(e.name) == c.name:
        return True
    found[e.name] = c.name
    if isinstance(e, ir.Alias) and isinstance(c, ir.Alias):
        return _pair_types(e.type, c.type, ext, core, found, roots)
    assert isinstance(e, ir.Model) and isinstance(c, ir.Model)
    fields = {f.wire_name: f for f in c.fields}
    return (
        set(fields) == {f.wire_name for f in e.fields}
        and all(_pair_types(f.type, fields[f.wire_name].type, ext, core, found, roots) for f in e.fields)
        and _pair_types(e.extra, c.extra, ext, core, found, roots)
    )


def _pair_types(
    e: ir.TypeExpr, c: ir.TypeExpr, ext: dict[str, ir.Definition], core: dict[str, ir.Definition],
    found: dict[str, str], roots: dict[str, str],
) -> bool:
    """True when two IR types line up, pairing the inline objects they reach (named definitions pair by name)."""
    if isinstance(e, ir.Ref) and isinstance(c, ir.Ref):
        target = ext.get(e.name)
        if target is not None and target.is_definition:
            return roots.get(e.name) == c.name
        return _pair(target, core.get(c.name), ext, core, found, roots)
    if isinstance(e, ir.ListOf) and isinstance(c, ir.ListOf):
        return _pair_types(e.item, c.item, ext, core, found, roots)
    if isinstance(e, ir.DictOf) and isinstance(c, ir.DictOf):
        return _pair_types(e.value, c.value, ext, core, found, roots)
    if isinstance(e, ir.UnionOf) and isinstance(c, ir.UnionOf):
        return len(e.members) == len(c.members) and all(
            _pair_types(a, b, ext, core, found, roots) for a, b in zip(e.members, c.members)
        )
    return e == c


def _retyped(t: ir.TypeExpr, mapping: dict[str, str]) -> ir.TypeExpr:
    """`t` with references to core classes marked `core` and named as the core names them."""
    if isinstance(t, ir.Ref):
        return ir.Ref(mapping[t.name], core=True) if t.name in mapping else t
    if isinstance(t, ir.ListOf):
        return ir.ListOf(_retyped(t.item, mapping))
    if isinstance(t, ir.DictOf):
        return ir.DictOf(_retyped(t.value, mapping))
    if isinstance(t, ir.UnionOf):
        return dataclasses.replace(t, members=tuple(_retyped(m, mapping) for m in t.members))
    return t


def _rebased(d: ir.Definition, mapping: dict[str, str]) -> ir.Definition:
    if isinstance(d, ir.Alias):
        return dataclasses.replace(d, type=_retyped(d.type, mapping))
    fields = tuple(dataclasses.replace(f, type=_retyped(f.type, mapping)) for f in d.fields)
    return dataclasses.replace(d, fields=fields, extra=_retyped(d.extra, mapping))


def _kind_and_senders(
    source: ExtensionInput, name: str, model: ir.Model, unions: dict[str, tuple[ir.Side, ir.MethodKind]]
) -> tuple[ir.MethodKind | None, frozenset[ir.Side]]:
    """A method's kind and senders: from the facts, else the extension schema's own role unions, else
    its definition's name (`...Request`) with no known sender."""
    fact = source.facts.method(name)
    if fact is not None:
        kind: ir.MethodKind = "request" if fact.kind == "request" else "notification"
        return kind, frozenset(s for s in ("client", "server") if s in fact.senders)
    if model.name in unions:
        side, kind = unions[model.name]
        return kind, frozenset({side})
    suffix = next((s for s in _MESSAGE_SUFFIXES if model.name.endswith(s)), None)
    return (_MESSAGE_SUFFIXES[suffix] if suffix else None), frozenset()


def _union_members(definitions: list[ir.Definition]) -> dict[str, tuple[ir.Side, ir.MethodKind]]:
    """The extension schema's own role unions (`ClientRequest`, …), by the definitions they list."""
    defs = {d.name: d for d in definitions}
    found: dict[str, tuple[ir.Side, ir.MethodKind]] = {}
    for union, role in ROLE_UNIONS.items():
        d = defs.get(union)
        if isinstance(d, ir.Alias):
            for member in ir.alternatives(d.type):
                if isinstance(member, ir.Ref):
                    found[member.name] = role
    return found


def extension_methods(
    source: ExtensionInput, own: tuple[ir.Definition, ...], definitions: list[ir.Definition],
    mapping: dict[str, str], base: ir.Protocol | None,
) -> tuple[tuple[ir.MethodSpec, ...], list[str]]:
    """The extension's methods: its own definitions with a constant `method`, in schema order (`mapping`
    names the core classes its copies are; `base`, the revision whose methods it must not redefine)."""
    label = f"extension {source.name}"
    defs = {d.name: d for d in definitions}
    unions = _union_members(definitions)
    core_methods = {m.name for m in base.methods} if base is not None else set()
    taken: set[str] = set()
    methods: list[ir.MethodSpec] = []
    notes: list[str] = []
    for d in own:
        if not isinstance(d, ir.Model) or not d.is_definition or d.name in ROLE_UNIONS:
            continue
        wire = method_name(d)
        if wire is None:
            continue
        if base is not None and wire in core_methods:
            raise SchemaError(
                f"{label} defines {wire}, which revision {base.revision} defines too: generate it with a revision "
                "that leaves the method to the extension"
            )
        kind, senders = _kind_and_senders(source, wire, d, unions)
        if kind is None:
            notes.append(f"{label}: {d.name} ({wire}) is neither a ...Request nor a ...Notification: types only")
            continue
        if not senders:
            notes.append(
                f"{label}: nothing says who sends {wire}: its types are generated, no handler or call "
                "(list it in a ClientRequest/ServerRequest/ClientNotification/ServerNotification union of the schema)"
            )
        params = next((f for f in d.fields if f.wire_name == "params"), None)
        result: str | None = None
        result_type: ir.TypeExpr | None = None
        assumed = False
        if kind == "request":
            try:
                result, result_type, assumed = pair_result(d, defs, {}, assume_base=not source.pinned)
            except SchemaError as exc:
                raise SchemaError(f"{label}: {exc}") from None
            result = mapping.get(result, result)
            result_type = _retyped(result_type, mapping)
        params_type = _retyped(params.type, mapping) if params is not None else None
        methods.append(
            ir.MethodSpec(
                name=wire,
                kind=kind,
                senders=senders,
                message=d.name,
                params=params_type.name if isinstance(params_type, ir.Ref) else None,
                params_required=bool(params is not None and params.required),
                result=result,
                python_name=unique(method_python_name(d.name), taken),
                result_type=result_type,
                assumed_result=assumed,
                roles=source.facts.roles,
            )
        )
    return tuple(methods), notes


def _negotiable(base: ir.Protocol) -> bool:
    """True when the base revision's capabilities carry extensions (SEP-2133)."""
    defs = {d.name: d for d in base.definitions}
    return any(
        isinstance(d, ir.Model) and any(f.wire_name == EXTENSIONS_FIELD for f in d.fields)
        for d in (defs.get(CLIENT_CAPABILITIES), defs.get(SERVER_CAPABILITIES))
    )


def _settings(
    source: ExtensionInput, names: dict[str, str], local: set[str], own: tuple[ir.Definition, ...]
) -> tuple[tuple[tuple[ir.Side, str], ...], list[str]]:
    """The definition typing each side's settings: from the facts, else the one `...ExtensionCapability` definition."""
    stated = dict(source.facts.settings)
    if not stated:
        found = [d.name for d in own if d.is_definition and _SETTINGS_NAME.search(d.name)]
        return ((("client", found[0]), ("server", found[0])) if len(found) == 1 else ()), []
    out: list[tuple[ir.Side, str]] = []
    notes = []
    for side in ("client", "server"):
        wire = stated.get(side)
        if wire is None:
            continue
        if names.get(wire) in local:
            out.append((side, names[wire]))
        else:
            notes.append(f"extension {source.name}: the schema has no {wire}: the {side}'s settings stay untyped")
    return tuple(out), notes


def _results(
    source: ExtensionInput, names: dict[str, str], local: set[str], base: ir.Protocol
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], list[str]]:
    """The core requests the extension lets a server answer with its own results, as far as both exist."""
    requests = {m.name for m in base.methods if m.kind == "request"}
    out = []
    notes = []
    for method, results in source.facts.results:
        kept = tuple(names[r] for r in results if names.get(r) in local)
        if method in requests and kept:
            out.append((method, kept))
        else:
            notes.append(f"extension {source.name}: no {method} in {base.revision} or no {', '.join(results)}: not offered")
    return tuple(out), notes


def _name_headers(
    source: ExtensionInput, methods: tuple[ir.MethodSpec, ...], own: tuple[ir.Definition, ...]
) -> tuple[tuple[tuple[str, str], ...], list[str]]:
    """The `Mcp-Name` headers the facts state, as far as each names a client request of the extension
    whose params have that field as a required string."""
    defs = {d.name: d for d in own}
    by_name = {m.name: m for m in methods}
    out = []
    notes = []
    for method, field in source.facts.name_headers:
        spec = by_name.get(method)
        params = defs.get(spec.params or "") if spec is not None else None
        found = next((f for f in params.fields if f.wire_name == field), None) if isinstance(params, ir.Model) else None
        if spec is not None and spec.kind == "request" and spec.sent_by("client") and found is not None and found.required and found.type == ir.Primitive("string"):
            out.append((method, field))
        else:
            notes.append(f"extension {source.name}: {method} has no required string params.{field}: no Mcp-Name header mirrors it")
    return tuple(out), notes


def _meta_field(base: ir.Protocol, owner: str) -> tuple[str, ir.TypeExpr] | None:
    """The Python name and type of a core definition's `_meta` field (None when it has none)."""
    d = next((d for d in base.definitions if d.name == owner), None)
    field = next((f for f in d.fields if f.wire_name == "_meta"), None) if isinstance(d, ir.Model) else None
    return (field.python_name, field.type) if field is not None else None


def _meta(
    source: ExtensionInput, names: dict[str, str], local: set[str], core: dict[str, str], base: ir.Protocol
) -> tuple[tuple[ir.MetaEntry, ...], list[str]]:
    """The `_meta` entries the extension types on core objects: on the owners the base revision has
    whose `_meta` field is alike (the first owner's name and type decide)."""
    out = []
    notes = []
    taken: set[str] = set()
    for fact in source.facts.meta:
        present = [core[o] for o in fact.owners if o in core and _meta_field(base, core[o]) is not None]
        owners = tuple(o for o in present if _meta_field(base, o) == _meta_field(base, present[0]))
        if names.get(fact.type) in local and owners:
            builder, reader = meta_helpers(fact.name, fact.key, taken)
            out.append(ir.MetaEntry(builder, reader, fact.key, names[fact.type], owners))
        else:
            notes.append(f"extension {source.name}: no {fact.type} or none of {', '.join(fact.owners)}: no `{fact.key}` helpers")
    return tuple(out), notes
