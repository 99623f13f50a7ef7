"""Template views: the IR spelled as Python source fragments, one view per generated file."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from ..model import ir
from .layout import LINE_LENGTH, tuple_literal
from .literals import docstring, string_literal
from .pysource import Symbols, annotation, field_annotation, field_default, lazy_annotation


@dataclass(frozen=True)
class FieldView:
    """One field line of a generated model."""

    name: str
    annotation: str
    default: str
    doc: str | None


@dataclass(frozen=True)
class DefinitionView:
    """A generated model class or type alias."""

    kind: str
    name: str
    doc: str | None
    fields: tuple[FieldView, ...] = ()
    extra: str | None = None
    closed: bool = False
    value: str = ""
    recursive: bool = False
    name_literal: str = ""


@dataclass(frozen=True)
class MethodView:
    """One entry of the generated METHODS registry."""

    name: str
    name_literal: str
    kind: str
    senders: str
    message: str
    params: str
    result: str
    result_type: str
    result_annotation: str | None
    python_name: str
    python_name_literal: str
    params_required: bool
    embedded: bool


@dataclass(frozen=True)
class RevisionView:
    """What the files of one revision (types, methods, and in a multi-revision package its `__init__`) receive."""

    header: str
    revision: str
    revision_literal: str
    up: str
    schema_sha256: str
    errata_literal: str
    symbols: Symbols
    typing_imports: str
    pydantic_imports: str
    extension_imports: str
    base: str
    definitions: tuple[DefinitionView, ...]
    exports: tuple[str, ...]
    methods: tuple[MethodView, ...]
    messages: tuple[str, ...]
    envelope: ir.Envelope


def indent_doc(text: str | None, indent: int, *, definition: bool = False) -> str | None:
    """A docstring literal for `text` with its continuation lines indented by `indent` spaces.

    The docstring of a class or function (`definition`) is written as black writes it: when its
    last line would run past the line length, the closing quotes go on a line of their own.
    """
    doc = docstring(text)
    if doc is None:
        return None
    pad = " " * indent
    lines = [(pad + line if i and line else line) for i, line in enumerate(doc.split("\n"))]
    if definition and len(lines) > 1 and len(lines[-1]) > LINE_LENGTH:
        lines[-1:] = [lines[-1][:-3], pad + '"""']
    return "\n".join(lines)


def definition_view(d: ir.Definition, sym: Symbols, core: str = "") -> DefinitionView:
    """The view of a model class or type alias (`core` qualifies an extension's references to core classes)."""
    if isinstance(d, ir.Model):
        fields = tuple(
            FieldView(
                name=f.python_name,
                annotation=field_annotation(f, sym, core),
                default=field_default(f, sym),
                doc=indent_doc(f.description, 4),
            )
            for f in d.fields
        )
        closed = isinstance(d.extra, ir.LiteralOf) and not d.extra.values
        extra = None if closed or isinstance(d.extra, ir.AnyType) else annotation(d.extra, sym, core=core)
        return DefinitionView("model", d.name, indent_doc(d.description, 4, definition=True), fields, extra, closed)
    value = lazy_annotation(d.type, sym, core) if d.recursive else annotation(d.type, sym, core=core)
    if d.constraints and not d.recursive:
        limits = ", ".join(f"{c.name}={c.value!r}" for c in d.constraints)
        value = f"{sym['Annotated']}[{value}, {sym['Field']}({limits})]"
    return DefinitionView(
        "alias",
        d.name,
        indent_doc(d.description, 0),
        value=string_literal(value) if d.recursive else value,
        recursive=d.recursive,
        name_literal=string_literal(d.name),
    )


# methods.py imports these names as they are; definitions there are always `types.`-qualified.
METHODS_SYMBOLS = Symbols(
    tuple(
        (n, n)
        for n in (
            "Annotated",
            "Any",
            "Literal",
            "Union",
            "BaseModel",
            "ConfigDict",
            "Field",
            "TypeAliasType",
        )
    )
)


def _core_name(name: str) -> str:
    return f"types.{name}"


def method_view(
    m: ir.MethodSpec, qualify: Callable[[str], str] = _core_name, prefix: str = "types.", core: str = "types."
) -> MethodView:
    """One entry of a METHODS table: `qualify` spells a definition name, `prefix` and `core` qualify the
    result type's references (an extension's to its own types and to the core's)."""
    senders = ", ".join(string_literal(s) for s in sender_names(m))
    return MethodView(
        name=m.name,
        name_literal=string_literal(m.name),
        kind=string_literal(m.kind),
        senders=f"frozenset({{{senders}}})",
        message=qualify(m.message),
        params=qualify(m.params) if m.params else "None",
        result=qualify(m.result) if m.result else "None",
        result_type=(
            annotation(_plain(m.result_type), METHODS_SYMBOLS, prefix, core) if m.result_type else "None"
        ),
        result_annotation=result_annotation(m, prefix, core) if m.kind == "request" else None,
        python_name=m.python_name,
        python_name_literal=string_literal(m.python_name),
        params_required=m.params_required,
        embedded=m.embedded,
    )


def _plain(t: ir.TypeExpr) -> ir.TypeExpr:
    """`t` with a dispatched union as the plain union (which accepts the same), as `methods.py` spells it."""
    return dataclasses.replace(t, dispatch=None) if isinstance(t, ir.UnionOf) else t


def sender_names(m: ir.MethodSpec) -> list[str]:
    """Who may send `m`, sorted, as its link names them (`client`/`server`, or an extension's own roles)."""
    if m.roles is None:
        return sorted(m.senders)
    return sorted(m.roles[0] if side == "client" else m.roles[1] for side in m.senders)


def result_annotation(m: ir.MethodSpec, prefix: str = "types.", core: str = "types.") -> str:
    """The result annotation of a request as plain `types.A | types.B` (no discriminator wrapper)."""
    t = m.result_type
    if isinstance(t, ir.UnionOf) and all(isinstance(x, ir.Ref) for x in ir.alternatives(t)):
        return " | ".join((core if x.core else prefix) + x.name for x in ir.alternatives(t) if isinstance(x, ir.Ref))
    if isinstance(t, ir.Ref):
        return (core if t.core else prefix) + t.name
    return f"{prefix}{m.result}" if m.result else "None"


def revision_view(protocol: ir.Protocol, header: str, up: str) -> RevisionView:
    """The view of one revision's files; `up` is the relative import of the package root ("." or "..")."""
    names = {d.name for d in protocol.definitions}
    sym = Symbols.avoiding(names)
    spelled = {n: (f"{n} as {a}" if a != n else n) for n, a in sym.names}

    def imports(*names: str) -> str:
        return ", ".join(spelled[n] for n in names)

    live = [m for m in protocol.methods if not m.embedded]
    envelope = protocol.envelope
    return RevisionView(
        header=header,
        revision=protocol.revision,
        revision_literal=string_literal(protocol.revision),
        up=up,
        schema_sha256=protocol.schema_sha256,
        errata_literal=tuple_literal((string_literal(e.id) for e in protocol.errata), 0),
        symbols=sym,
        typing_imports=imports("TYPE_CHECKING", "Annotated", "Any", "ClassVar", "Literal", "TypeVar", "Union", "cast"),
        pydantic_imports=imports("BaseModel", "ConfigDict", "Discriminator", "Field", "Tag"),
        extension_imports=imports("TypeAliasType"),
        base=sym["_McpModel"],
        definitions=tuple(definition_view(d, sym) for d in protocol.definitions),
        exports=tuple(sorted(names)),
        methods=tuple(method_view(m) for m in protocol.methods),
        messages=tuple(
            dict.fromkeys(
                [f"types.{m.message}" for m in live]
                + [f"types.{envelope.result_response_model}", f"types.{envelope.error_model}"]
            )
        ),
        envelope=envelope,
    )
