"""Template views of a package's extensions: `ext/__init__.py` (the table the runtime reads) and, per
extension, its types, method registry, capability settings and `_meta` helpers, each as Python source."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ir
from ..model.lifecycle import EXTENSIONS_FIELD
from ..model.names import EXTENSIONS_PACKAGE
from .layout import from_import, tuple_literal
from .literals import string_literal
from .pysource import Symbols
from .views import DefinitionView, MethodView, definition_view, method_view

CORE = "_core"
"""What an extension's modules call the surface revision's types module."""
HELPERS = ("_McpModel", "_const")
"""The base model and field helper an extension's types take from the surface revision's types module (and
its `_Omittable` marker, which type checkers read as `Optional`; its `_dispatch` when a union needs it)."""
UP = "..."
"""The package root, relative to an extension's modules (`<package>/ext/<name>/`)."""


@dataclass(frozen=True)
class EntryView:
    """One extension in `ext/__init__.py`: the runtime's `Extension` record, as source."""

    name: str
    identifier: str
    methods: str
    results: str
    name_headers: str
    """The (method, params field) pairs an `Mcp-Name` header mirrors, as source ("" when none)."""


@dataclass(frozen=True)
class TableView:
    """What `ext/__init__.py` receives."""

    header: str
    entries: tuple[EntryView, ...]


@dataclass(frozen=True)
class ModuleView:
    """What every module of one extension shares: its header, identifier and how it imports the core."""

    header: str
    name: str
    identifier: str
    identifier_literal: str
    revision: str
    core_import: str


@dataclass(frozen=True)
class TypesView:
    """What an extension's `types.py` receives (the definitions loop is the core `types.py`'s)."""

    m: ModuleView
    symbols: Symbols
    typing_imports: str
    pydantic_imports: str
    extension_imports: str
    helper_import: str
    omittable: str
    """`_Omittable` as the surface revision's types module spells it."""
    base: str
    definitions: tuple[DefinitionView, ...]
    exports: tuple[str, ...]


@dataclass(frozen=True)
class MethodsView:
    """What an extension's `methods.py` receives."""

    m: ModuleView
    methods: tuple[MethodView, ...]
    results: tuple[tuple[str, str], ...]
    error: str
    response: str
    batching: bool
    messages: tuple[str, ...]


@dataclass(frozen=True)
class SideSettingsView:
    """One side's declaration of the extension: the type of its settings and of its capabilities."""

    side: str
    settings: str
    typed: bool
    capabilities: str | None


@dataclass(frozen=True)
class CapabilitiesView:
    """What an extension's `capabilities.py` receives."""

    m: ModuleView
    sides: tuple[SideSettingsView, ...]


@dataclass(frozen=True)
class MetaEntryView:
    """The helpers of one typed `_meta` entry."""

    builder: str
    reader: str
    key_literal: str
    value: str
    owners: str
    owner_names: str
    meta: str | None
    """The core model a `_meta` is (None: a plain dict)."""
    attribute: str
    """The owners' `_meta` field, by its Python name."""


@dataclass(frozen=True)
class MetaView:
    """What an extension's `meta.py` receives."""

    m: ModuleView
    entries: tuple[MetaEntryView, ...]


@dataclass(frozen=True)
class InitView:
    """What an extension's `__init__.py` receives."""

    m: ModuleView
    modules: tuple[str, ...]
    constants: tuple[tuple[str, str], ...]


def table_view(package: ir.Package, header: str) -> TableView:
    """The view of `ext/__init__.py`: one runtime `Extension` record per extension."""
    entries = tuple(
        EntryView(
            name=string_literal("." + e.name),
            identifier=string_literal(e.identifier),
            methods=tuple_literal((string_literal(m.name) for m in e.methods if m.roles is None), 8),
            results=tuple_literal((string_literal(method) for method, _ in e.results), 8),
            name_headers=tuple_literal(
                (f"({string_literal(m)}, {string_literal(f)})" for m, f in e.name_headers), 8
            )
            if e.name_headers
            else "",
        )
        for e in package.extensions
    )
    return TableView(header, entries)


def module_view(package: ir.Package, extension: ir.Extension, header: str) -> ModuleView:
    """What every module of `extension` shares."""
    return ModuleView(
        header=header,
        name=extension.name,
        identifier=extension.identifier,
        identifier_literal=string_literal(extension.identifier),
        revision=package.surface,
        core_import=f"from {_core_package(package)} import types as {CORE}",
    )


def _core_package(package: ir.Package) -> str:
    """The package holding the surface revision's types module, relative to an extension's modules."""
    module = package.surface_revision.module
    return UP + module if module else UP


def _core_types(package: ir.Package) -> str:
    """The surface revision's types module, relative to an extension's modules."""
    module = package.surface_revision.module
    return f"{UP}{module}.types" if module else f"{UP}types"


def types_view(package: ir.Package, extension: ir.Extension, m: ModuleView) -> TypesView:
    """The view of an extension's `types.py`: its own definitions, over the core's base model and helpers."""
    names = {d.name for d in extension.definitions}
    sym = Symbols.avoiding(names, (CORE,))
    core_sym = Symbols.avoiding({d.name for d in package.surface_revision.protocol.definitions})
    spelled = {n: (f"{n} as {a}" if a != n else n) for n, a in sym.names}
    dispatching = any(ir.dispatches(t) for d in extension.definitions for t in _types(d))
    helpers = ", ".join(
        f"{core_sym[h]} as {sym[h]}" if core_sym[h] != sym[h] else h
        for h in HELPERS + (("_dispatch",) if dispatching else ())
    )
    core = f"from {_core_package(package)} import types as {sym[CORE]}"
    return TypesView(
        m=ModuleView(m.header, m.name, m.identifier, m.identifier_literal, m.revision, core),
        symbols=sym,
        typing_imports=", ".join(spelled[n] for n in ("TYPE_CHECKING", "Annotated", "Any", "Literal", "Union")),
        pydantic_imports=", ".join(spelled[n] for n in ("ConfigDict", "Field", *(("Tag",) if dispatching else ()))),
        extension_imports=spelled["TypeAliasType"],
        helper_import=from_import(_core_types(package), helpers),
        omittable=f"from {_core_types(package)} import {core_sym['_Omittable']}"
        + (f" as {sym['_Omittable']}" if core_sym["_Omittable"] != sym["_Omittable"] else ""),
        base=sym["_McpModel"],
        definitions=tuple(definition_view(d, sym, sym[CORE] + ".") for d in extension.definitions),
        exports=tuple(sorted(names)),
    )


def _types(d: ir.Definition) -> tuple[ir.TypeExpr, ...]:
    """The type expressions a definition holds."""
    return (d.type,) if isinstance(d, ir.Alias) else (d.extra, *(f.type for f in d.fields))


def qualified(extension: ir.Extension, name: str, local: str, core: str) -> str:
    """A definition of the extension's (`local`-qualified) or of the core (`core`-qualified)."""
    return (local if extension.definition(name) is not None else core) + name


def methods_view(package: ir.Package, extension: ir.Extension, m: ModuleView) -> MethodsView:
    """The view of an extension's `methods.py`: its registry over the surface revision's envelope."""
    envelope = package.surface_revision.protocol.envelope
    local, core = "types.", f"{CORE}."
    results = tuple(
        (string_literal(method), tuple_literal((qualified(extension, r, local, core) for r in names), 8))
        for method, names in extension.results
    )
    live = [x for x in extension.methods if x.roles is None]
    return MethodsView(
        m=m,
        methods=tuple(method_view(x, lambda name: qualified(extension, name, local, core), local, core) for x in extension.methods),
        results=results,
        error=core + envelope.error_model,
        response=core + envelope.result_response_model,
        batching=envelope.batching,
        messages=tuple(
            dict.fromkeys(
                [qualified(extension, x.message, local, core) for x in live]
                + [core + envelope.result_response_model, core + envelope.error_model]
            )
        ),
    )


def capabilities_view(package: ir.Package, extension: ir.Extension, m: ModuleView) -> CapabilitiesView:
    """The view of an extension's `capabilities.py`: each side's settings type, and readers of a peer's
    declaration where the surface revision's capabilities carry extensions."""
    lifecycle = package.surface_revision.lifecycle
    stated = dict(extension.settings)
    holders = {"client": lifecycle.client_capabilities, "server": lifecycle.server_capabilities}
    defs = {d.name: d for d in package.surface_revision.protocol.definitions}
    sides = []
    for side in ("client", "server"):
        settings = stated.get(side)
        holder = holders[side]
        model = defs.get(holder or "")
        carries = isinstance(model, ir.Model) and any(f.wire_name == EXTENSIONS_FIELD for f in model.fields)
        typed = settings is not None and isinstance(extension.definition(settings), ir.Model)
        sides.append(
            SideSettingsView(
                side=side,
                settings=f"types.{settings}" if typed else "dict[str, Any]",
                typed=typed,
                capabilities=f"{CORE}.{holder}" if carries else None,
            )
        )
    return CapabilitiesView(m, tuple(sides))


def meta_view(package: ir.Package, extension: ir.Extension, m: ModuleView) -> MetaView:
    """The view of an extension's `meta.py`: a builder and a reader per typed `_meta` entry."""
    defs = {d.name: d for d in package.surface_revision.protocol.definitions}
    entries = []
    for entry in extension.meta:
        owner = defs[entry.owners[0]]
        assert isinstance(owner, ir.Model)
        field = next(f for f in owner.fields if f.wire_name == "_meta")
        holder = field.type
        meta = f"{CORE}.{holder.name}" if isinstance(holder, ir.Ref) and isinstance(defs.get(holder.name), ir.Model) else None
        entries.append(
            MetaEntryView(
                builder=entry.builder,
                reader=entry.reader,
                key_literal=string_literal(entry.key),
                value=qualified(extension, entry.type, "types.", f"{CORE}."),
                owners=" | ".join(f"{CORE}.{o}" for o in entry.owners),
                owner_names=", ".join(entry.owners),
                meta=meta,
                attribute=field.python_name,
            )
        )
    return MetaView(m, tuple(entries))


def init_view(extension: ir.Extension, m: ModuleView) -> InitView:
    """The view of an extension's `__init__.py`: its modules and its constants."""
    modules = ("capabilities", "methods", "types") + (("meta",) if extension.meta else ())
    return InitView(
        m=m,
        modules=tuple(sorted(modules)),
        constants=tuple((name, string_literal(value)) for name, value in extension.constants),
    )


def extension_files(package: ir.Package, header: str) -> list[tuple[str, str, object]]:
    """(file, template, view) of every extension file of the package."""
    files: list[tuple[str, str, object]] = [
        (f"{EXTENSIONS_PACKAGE}/__init__.py", "ext_table.py.jinja", table_view(package, header))
    ]
    for extension in package.extensions:
        m = module_view(package, extension, header)
        folder = f"{EXTENSIONS_PACKAGE}/{extension.name}"
        files += [
            (f"{folder}/__init__.py", "ext_init.py.jinja", init_view(extension, m)),
            (f"{folder}/types.py", "ext_types.py.jinja", types_view(package, extension, m)),
            (f"{folder}/methods.py", "ext_methods.py.jinja", methods_view(package, extension, m)),
            (f"{folder}/capabilities.py", "ext_capabilities.py.jinja", capabilities_view(package, extension, m)),
        ]
        if extension.meta:
            files.append((f"{folder}/meta.py", "ext_meta.py.jinja", meta_view(package, extension, m)))
    return files

