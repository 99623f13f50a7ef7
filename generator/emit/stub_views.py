"""Template views of the Server and Client classes: their tables, typed handlers, typed calls and typed
overrides of runtime members, each as Python source (the template only lays them out)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ir
from ..model.lifecycle import EXTENSIONS_FIELD
from ..model.names import EXTENSIONS_PACKAGE, INITIALIZE_PARAMS, RUNTIME_BASES, calls, extension_alias, handles
from .dict_views import params_models
from .layout import bracketed
from .literals import string_literal
from .views import indent_doc, result_annotation

@dataclass(frozen=True)
class Origin:
    """Where a method of the Server or Client comes from: the surface revision, or one of the package's extensions."""

    extension: ir.Extension | None = None

    @property
    def prefix(self) -> str:
        """How the class's module qualifies the origin's own definitions."""
        return f"{extension_alias(self.extension.name)}." if self.extension is not None else "types."

    def name(self, definition: str) -> str:
        """A definition name as the class's module spells it (the core's are `types.`)."""
        own = self.extension is not None and self.extension.definition(definition) is not None
        return (self.prefix if own else "types.") + definition

    def definition(self, package: ir.Package, name: str | None) -> ir.Definition | None:
        """The definition named `name`: the extension's own, else the surface revision's."""
        found = self.extension.definition(name or "") if self.extension is not None else None
        if found is not None:
            return found
        return next((d for d in package.surface_revision.protocol.definitions if d.name == name), None)


@dataclass(frozen=True)
class AttributeView:
    """A class attribute: its name, annotation, value and docstring (all source)."""

    name: str
    annotation: str
    value: str
    doc: str | None = None


@dataclass(frozen=True)
class MemberView:
    """A method of the generated class: its `def` line (laid out), docstring and body, as source; an
    overload has a decorator and no docstring."""

    signature: str
    doc: str
    body: str
    decorator: str | None = None


@dataclass(frozen=True)
class SideView:
    """What one side's class is: its name, runtime base, docstring, tables and typed members."""

    side: str
    class_name: str
    module: str
    base: str
    doc: str
    attributes: tuple[AttributeView, ...]
    members: tuple[MemberView, ...]
    facts_import: str
    """The runtime fact types the module names (`Capability`, `Extension`), as an import list."""
    extension_imports: tuple[str, ...] = ()
    """`from .ext.<name> import types as <alias>` of each extension whose types the members name (type checking only)."""
    extension_table: bool = False
    """True when the class carries the package's `EXTENSIONS`."""


def _capability(protocol: ir.Protocol, caps_name: str | None, m: ir.MethodSpec) -> str | None:
    """The `Capability` that handling `m` advertises, as Python source, or None.

    The group is the capabilities field named after the method's first path segment (singular or
    plural); the flag is that group's field named after the last segment (`resources/subscribe`).
    """
    defs = {d.name: d for d in protocol.definitions}
    caps = defs.get(caps_name or "")
    if not isinstance(caps, ir.Model) or "/" not in m.name:
        return None
    first, last = m.name.split("/")[0], m.name.split("/")[-1]
    group = next((f for f in caps.fields if f.wire_name in (first, first + "s")), None)
    if group is None:
        return None
    sub = defs.get(group.type.name) if isinstance(group.type, ir.Ref) else None
    hit = next((f for f in sub.fields if f.wire_name == last), None) if isinstance(sub, ir.Model) else None
    if hit is None:
        return f"Capability({string_literal(group.wire_name)})"
    value = "True" if hit.type == ir.Primitive("boolean") else "{}"
    return f"Capability({string_literal(group.wire_name)}, {string_literal(hit.wire_name)}, {value})"


def _advertised(protocol: ir.Protocol, caps: str | None, m: ir.MethodSpec, origin: Origin) -> str | None:
    """The `Capability` that handling `m` advertises, as Python source: an extension's method advertises the
    extension (`extensions[identifier]`, no settings) where the side's capabilities carry extensions."""
    if origin.extension is None:
        return _capability(protocol, caps, m)
    holder = next((d for d in protocol.definitions if d.name == caps), None)
    if not isinstance(holder, ir.Model) or not any(f.wire_name == EXTENSIONS_FIELD for f in holder.fields):
        return None
    return f"Capability({string_literal(EXTENSIONS_FIELD)}, {string_literal(origin.extension.identifier)}, {{}})"


def _params_optional(params: ir.Definition | None, m: ir.MethodSpec, meta_filled: bool) -> bool:
    """True when a call may omit params (absent in the schema, or only a `_meta` the client fills in)."""
    if not m.params_required or m.params is None:
        return True
    if not meta_filled:
        return False
    return isinstance(params, ir.Model) and all(f.wire_name == "_meta" for f in params.fields if f.required)


def _handshake(lifecycle: ir.Lifecycle) -> str | None:
    """The request that opens a conversation in this lifecycle, if any."""
    if lifecycle.legacy is not None:
        return lifecycle.legacy.method
    return lifecycle.modern.discover if lifecycle.modern is not None else None


def _capabilities(lifecycle: ir.Lifecycle, side: str) -> str | None:
    """The definition of `side`'s capabilities, if the revision has one."""
    return lifecycle.server_capabilities if side == "server" else lifecycle.client_capabilities


def _missing_in(package: ir.Package, method: str) -> list[str]:
    """The package's revisions that have no live method `method` (the version gate refuses it there)."""
    return [
        r.protocol.revision
        for r in package.revisions
        if not any(m.name == method and not m.embedded for m in r.protocol.methods)
    ]


def _note(origin: Origin, package: ir.Package, method: str, missing: str) -> str:
    """What a handler's or call's docstring adds about where the method exists: the extension it belongs
    to, or the package's revisions that lack it (`missing` says what happens there)."""
    if origin.extension is not None:
        return f"\n\nA method of the {origin.extension.identifier} extension (SEP-2133)."
    revisions = _missing_in(package, method)
    return f"\n\n{missing} in sessions of protocol version {', '.join(revisions)}, which do not have this method." if revisions else ""


def answered_by_extensions(package: ir.Package, side: ir.Side, method: str) -> list[tuple[ir.Extension, str]]:
    """The extension results a server's handler of core request `method` may return instead (a task),
    where the surface revision carries the package's extensions."""
    if side != "server" or package.surface_revision.lifecycle.extensions_key is None:
        return []
    return [(e, r) for e in package.extensions for core, results in e.results if core == method for r in results]


def _handler(package: ir.Package, side: ir.Side, m: ir.MethodSpec, name: str, origin: Origin) -> MemberView:
    """An incoming handler: what it does until overridden (answer, stay silent, or -32601), typed."""
    lifecycle = package.surface_revision.lifecycle
    params = origin.name(m.params) if m.params else "None"
    optional = (not m.params_required or m.params is None) and params != "None"
    result = result_annotation(m, origin.prefix) if m.kind == "request" else "None"
    result += "".join(f" | {extension_alias(e.name)}.{r}" for e, r in answered_by_extensions(package, side, m.name))
    method = repr(m.name)
    if m.kind == "notification":
        text, body = f"Called on {method}; does nothing until overridden.", "return None"
    elif m.name == lifecycle.ping:
        text = f"Answer {method} with an empty result."
        body = f"return cast({result}, await self._mcp_empty_result({string_literal(m.name)}))"
    elif side == "server" and m.name == _handshake(lifecycle):
        text = f"Answer {method} from the name, version, instructions and capabilities."
        body = f"return cast({result}, self._mcp_handshake())"
    else:
        text = f"Answer {method}; -32601 (method not found) until overridden."
        body = f"raise self._mcp_not_found({string_literal(m.name)})"
    if m.embedded:
        text = f"Answer {method} when a server's input-required result asks for it; -32601 until overridden."
    else:
        text += _note(origin, package, m.name, "Never called")
    signature = bracketed(
        4, f"async def {name}(", f"self, params: {params}" + (" | None" if optional else ""), f") -> {result}:"
    )
    return MemberView(signature, indent_doc(text, 8, definition=True) or '""""""', body)


def _call(package: ir.Package, side: ir.Side, m: ir.MethodSpec, name: str, origin: Origin) -> list[MemberView]:
    """A typed outgoing call: surface params (the model or its dict form) in, the surface result out; a
    task-augmentable request takes `task=` and is overloaded, so only a call that asks for a task is
    typed as returning the task result."""
    surface = package.surface_revision
    peer = "client" if side == "server" else "server"
    meta_filled = side == "client" and surface.lifecycle.modern is not None
    models = params_models(surface.protocol, m.params) if origin.extension is None else ()
    forms = "".join(f" | dicts.{model.name}" for model in models)
    params = (f"{origin.name(m.params)}{forms or ' | Mapping[str, Any]'}") if m.params else "None | Mapping[str, Any]"
    optional = _params_optional(origin.definition(package, m.params), m, meta_filled)
    arguments = f"self, params: {params}" + (" | None = None" if optional else "")
    gate = _note(origin, package, m.name, "Raises ProtocolError (-32601)")
    if m.kind != "request":
        text = f"Send {m.name!r} to the {peer}.{gate}"
        body = f"await self._mcp_notify({string_literal(m.name)}, params)"
        signature = bracketed(4, f"async def {name}(", arguments, ") -> None:")
        return [MemberView(signature, indent_doc(text, 8, definition=True) or '""""""', body)]
    result = result_annotation(m, origin.prefix)
    task = _task_annotation(surface, m)
    if task is None:
        text = f"Send {m.name!r} to the {peer} and return its validated result.{gate}"
        body = bracketed(8, "return cast(", f'"{result}", await self._mcp_call({string_literal(m.name)}, params)', ")")
        signature = bracketed(4, f"async def {name}(", arguments, f") -> {result}:")
        return [MemberView(signature, indent_doc(text, 8, definition=True) or '""""""', body)]
    plain = " | ".join(f"types.{r}" for r in _result_names(m) if r not in m.opt_in_results)
    tasked = " | ".join(f"types.{r}" for r in m.opt_in_results)
    text = (
        f"Send {m.name!r} to the {peer} and return its validated result;\nwith `task`, ask for a task "
        f"instead and return what the {peer} answers for it.{gate}"
    )
    call = f'"{result}", await self._mcp_call({string_literal(m.name)}, params, task)'
    overload = "@overload"
    return [
        MemberView(bracketed(4, f"async def {name}(", f"{arguments}, *, task: None = None", f") -> {plain}: ..."), "", "", overload),
        MemberView(bracketed(4, f"async def {name}(", f"{arguments}, *, task: {task}", f") -> {tasked}: ..."), "", "", overload),
        MemberView(
            bracketed(4, f"async def {name}(", f"{arguments}, *, task: {task} | None = None", f") -> {result}:"),
            indent_doc(text, 8, definition=True) or '""""""',
            bracketed(8, "return cast(", call, ")"),
        ),
    ]


def _result_names(m: ir.MethodSpec) -> list[str]:
    """The definitions a request's result may be (its result union's members)."""
    t = m.result_type
    members = ir.alternatives(t) if t is not None else ()
    found = [x.name for x in members if isinstance(x, ir.Ref)]
    return found or ([m.result] if m.result else [])


def _task_annotation(surface: ir.Revision, m: ir.MethodSpec) -> str | None:
    """The type of the `task` a task-augmentable request takes, None for any other request."""
    key = surface.lifecycle.task_key
    if not m.opt_in_results or key is None:
        return None
    models = params_models(surface.protocol, m.params)
    fields = [next((f for f in model.fields if f.wire_name == key), None) for model in models]
    types = {f.type for f in fields if f is not None and isinstance(f.type, ir.Ref)}
    if not fields or len(types) != 1 or None in fields:
        return None
    return f"types.{types.pop().name} | Mapping[str, Any]"


def _retyped(name: str, annotation: str, doc: str, asynchronous: bool = False, runtime: str = "") -> MemberView:
    """A runtime member re-declared with the surface revision's type (it returns what the runtime's
    `runtime` member, by default its own name, returns)."""
    own = f"super().{name}()" if not runtime else f"self.{runtime}()"
    call = f"await {own}" if asynchronous else own
    head = "async def" if asynchronous else "def"
    return MemberView(
        f"{head} {name}(self) -> {annotation}:",
        indent_doc(doc, 8, definition=True) or '""""""',
        bracketed(8, "return cast(", f"{annotation}, {call}", ")"),
    )


def _dict_literal(items: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in items) + "}"


def side_view(package: ir.Package, side: ir.Side) -> SideView:
    """The view of the Server (side="server") or Client class of a package, on its surface revision."""
    surface = package.surface_revision
    protocol, lifecycle = surface.protocol, surface.lifecycle
    names = package.server if side == "server" else package.client
    by_name = {m.name: m for m in protocol.methods}
    origins = {m.name: Origin() for m in protocol.methods}
    for extension in package.extensions:
        by_name.update((m.name, m) for m in extension.methods)
        origins.update((m.name, Origin(extension)) for m in extension.methods)
    assert all(handles(side, by_name[h.method]) for h in names.handlers)
    assert all(calls(side, by_name[c.method]) for c in names.calls)
    caps = _capabilities(lifecycle, side)
    advertised = [
        (string_literal(h.method), found)
        for h in names.handlers
        if (found := _advertised(protocol, caps, by_name[h.method], origins[h.method])) is not None
    ]
    attributes = [
        AttributeView("revisions", "ClassVar[Revisions]", "REVISIONS"),
        AttributeView(
            "handlers",
            "ClassVar[Mapping[str, str]]",
            _dict_literal([(string_literal(h.method), string_literal(h.python_name)) for h in names.handlers]),
            "Incoming method → the handler answering it.",
        ),
    ]
    if package.extensions:
        attributes.append(
            AttributeView(
                "extensions", "ClassVar[tuple[Extension, ...]]", "EXTENSIONS", "The extensions (SEP-2133) of this package."
            )
        )
    if advertised:
        attributes.append(
            AttributeView(
                "handler_capabilities",
                "ClassVar[Mapping[str, Capability]]",
                _dict_literal(advertised),
                "Incoming method → the capability that overriding its handler advertises.",
            )
        )
    members: list[MemberView] = []
    if caps:
        attributes.append(
            AttributeView(
                "capabilities",
                f"ClassVar[types.{caps} | None]",
                "None",
                "Declared capabilities; None derives them from the overridden handlers.",
            )
        )
        members.append(
            _retyped(
                "derived_capabilities",
                f"types.{caps}",
                "The declared capabilities, else one capability per overridden handler family.",
            )
        )
    handshake = lifecycle.legacy.result if lifecycle.legacy else lifecycle.modern.result if lifecycle.modern else None
    if side == "client" and handshake:
        members.append(
            _retyped(
                "start_session",
                f"types.{handshake}",
                "Negotiate with the server (see `ClientBase.start_session`); its answer as the surface type.",
                asynchronous=True,
            )
        )
    if side == "client" and lifecycle.legacy is not None:
        members.append(
            _retyped(
                INITIALIZE_PARAMS,
                f"types.{lifecycle.legacy.params}",
                "The initialize params announcing the surface revision, the capabilities and client info.",
                runtime="_mcp_initialize_params",
            )
        )
    members += [_handler(package, side, by_name[h.method], h.python_name, origins[h.method]) for h in names.handlers]
    members += [
        member
        for c in names.calls
        for member in _call(package, side, by_name[c.method], c.python_name, origins[c.method])
    ]
    used = {e.name for m in (*names.handlers, *names.calls) if (e := origins[m.method].extension) is not None}
    used |= {e.name for h in names.handlers for e, _ in answered_by_extensions(package, side, h.method)}
    module, base = RUNTIME_BASES[side]
    revisions = [r.protocol.revision for r in package.revisions]
    speaks = f"MCP {', '.join(revisions)}" + (f" (surface {package.surface})" if package.multi else "")
    doc = (
        f"Base class of an MCP {side} speaking {speaks}: override the `on_*` handlers, "
        f"call the {'client' if side == 'server' else 'server'} through the typed methods (see `{base}`)."
    )
    return SideView(
        side=side,
        class_name=names.class_name,
        module=module,
        base=base,
        doc=indent_doc(doc, 4, definition=True) or '""""""',
        attributes=tuple(attributes),
        members=tuple(members),
        facts_import=", ".join(
            name for name, used in (("Capability", advertised), ("Extension", package.extensions)) if used
        ),
        extension_imports=tuple(
            f"from .{EXTENSIONS_PACKAGE}.{e.name} import types as {extension_alias(e.name)}"
            for e in package.extensions
            if e.name in used
        ),
        extension_table=bool(package.extensions),
    )
