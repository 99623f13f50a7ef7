"""Python source fragments for IR types: annotations and field declarations of the types module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..model import ir
from .literals import py_literal, string_literal

# Names the generated types module imports; a definition with one of these names pushes the
# import under a private alias instead.
IMPORTED = (
    "Annotated",
    "Any",
    "ClassVar",
    "Literal",
    "TYPE_CHECKING",
    "TypeVar",
    "Union",
    "cast",
    "BaseModel",
    "ConfigDict",
    "Discriminator",
    "Field",
    "Tag",
    "TypeAliasType",
)
# Names the generated types module defines for itself: the base model, the constant-field helper, its type
# variable, the marker of optional fields that must not be null, and the tag function of a dispatched union.
HELPERS = ("_McpModel", "_const", "_T", "_Omittable", "_dispatch")


@dataclass(frozen=True)
class Symbols:
    """How the generated types module spells the names it imports."""

    names: tuple[tuple[str, str], ...]

    def __getitem__(self, name: str) -> str:
        return dict(self.names)[name]

    @classmethod
    def avoiding(cls, taken: set[str], extra: tuple[str, ...] = ()) -> Symbols:
        """Every name the types module imports or defines for itself (and the `extra` names a module of
        an extension binds), prefixed with `_` until no definition uses it."""
        used = set(taken)
        spelled = []
        for name in IMPORTED + HELPERS + extra:
            alias = name
            while alias in used:
                alias = "_" + alias
            used.add(alias)
            spelled.append((name, alias))
        return cls(tuple(spelled))


def annotation(t: ir.TypeExpr, sym: Symbols, prefix: str = "", core: str = "") -> str:
    """The Python annotation for a type expression; `prefix` qualifies definition names, `core` an
    extension's references to the base revision's classes."""
    if isinstance(t, ir.AnyType):
        return sym["Any"]
    if isinstance(t, ir.Primitive):
        return {
            "string": "str",
            "integer": "int",
            "number": "int | float",
            "boolean": "bool",
            "null": "None",
        }[t.name]
    if isinstance(t, ir.LiteralOf):
        values = [v for v in t.values if v is not None]
        parts = []
        if values:
            parts.append(f"{sym['Literal']}[{', '.join(py_literal(v) for v in values)}]")
        if len(values) != len(t.values):
            parts.append("None")
        return " | ".join(parts) if parts else "None"
    if isinstance(t, ir.Ref):
        return (core if t.core else prefix) + t.name
    if isinstance(t, ir.ListOf):
        return f"list[{annotation(t.item, sym, prefix, core)}]"
    if isinstance(t, ir.DictOf):
        return f"dict[str, {annotation(t.value, sym, prefix, core)}]"
    if t.dispatch:
        return dispatched(t, t.dispatch, sym, lambda group: " | ".join(annotation(m, sym, prefix, core) for m in group))
    members = " | ".join(annotation(m, sym, prefix, core) for m in t.members)
    if t.discriminator:
        return f"{sym['Annotated']}[{members}, {sym['Field']}(discriminator={string_literal(t.discriminator)})]"
    return members


def lazy_annotation(t: ir.TypeExpr, sym: Symbols, core: str = "") -> str:
    """An annotation spelled with `Union[...]` so it can be evaluated from a string lazily."""
    if isinstance(t, ir.UnionOf) and t.dispatch:
        return dispatched(t, t.dispatch, sym, lambda group: _lazy_union(group, sym, core))
    if isinstance(t, ir.UnionOf):
        inner = ", ".join(lazy_annotation(m, sym, core) for m in t.members)
        union = f"{sym['Union']}[{inner}]"
        if t.discriminator:
            return f"{sym['Annotated']}[{union}, {sym['Field']}(discriminator={string_literal(t.discriminator)})]"
        return union
    if isinstance(t, ir.ListOf):
        return f"list[{lazy_annotation(t.item, sym, core)}]"
    if isinstance(t, ir.DictOf):
        return f"dict[str, {lazy_annotation(t.value, sym, core)}]"
    if isinstance(t, ir.Primitive) and t.name == "number":
        return f"{sym['Union']}[int, float]"
    if isinstance(t, ir.LiteralOf) and None in t.values:
        return f"{sym['Union']}[{annotation(t, sym).replace(' | ', ', ')}]"
    return annotation(t, sym, core=core)


def dispatched(t: ir.UnionOf, d: ir.Dispatch, sym: Symbols, union: Callable[[tuple[ir.TypeExpr, ...]], str]) -> str:
    """A union validated through `d`: one `Tag` per value over the members that take it, the whole union
    under the fallback tag; type checkers see the union of the members."""
    groups = [(tag, tuple(t.members[i] for i in at)) for tag, at in d.tags + d.narrowed] + [(d.fallback, t.members)]
    choices = ", ".join(f"{sym['Annotated']}[{union(group)}, {sym['Tag']}({string_literal(tag)})]" for tag, group in groups)
    tags = _strings(tag for tag, _ in d.tags)
    presence = ", ".join(
        f"{string_literal(value)}: ({_tuple([_strings(names) for names in keys])}, {_strings(table)})"
        for value, keys, table in d.presence
    )
    call = f"{string_literal(d.key)}, {string_literal(d.python_name)}, {tags}, {string_literal(d.fallback)}"
    call += f", {{{presence}}}" if presence else ""
    return f"{sym['Annotated']}[{sym['Union']}[{choices}], {sym['_dispatch']}({call})]"


def _strings(texts: Iterable[str]) -> str:
    """A tuple of strings, as Python source."""
    return _tuple([string_literal(text) for text in texts])


def _tuple(items: list[str]) -> str:
    """A tuple of Python expressions, as Python source."""
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def _lazy_union(members: tuple[ir.TypeExpr, ...], sym: Symbols, core: str) -> str:
    inner = ", ".join(lazy_annotation(m, sym, core) for m in members)
    return inner if len(members) == 1 else f"{sym['Union']}[{inner}]"


def constant(f: ir.Field) -> ir.JsonScalar | None:
    """The value of a required field that can only take one (a `const`), else None."""
    if f.required and isinstance(f.type, ir.LiteralOf) and len(f.type.values) == 1:
        return f.type.values[0]
    return None


def field_default(f: ir.Field, sym: Symbols) -> str:
    """The default of a model field, after its `=`: none (empty), `None`, `Field(...)` or `_const(...)`.

    A constant field stays required when validating (the schema requires it) but the constructor
    fills it in, and type checkers see it as optional.
    """
    value = constant(f)
    if value is not None:
        alias = f", alias={string_literal(f.wire_name)}" if f.aliased else ""
        return f"{sym['_const']}({py_literal(value)}{alias})"
    args: list[str] = []
    if not f.required:
        args.append("default=None")
    if f.aliased:
        args.append(f"alias={string_literal(f.wire_name)}")
    args.extend(f"{c.name}={c.value!r}" for c in f.constraints)
    if not args:
        return ""
    if args == ["default=None"]:
        return "None"
    return f"{sym['Field']}({', '.join(args)})"


def field_annotation(f: ir.Field, sym: Symbols, core: str = "") -> str:
    """The annotation of a model field; an optional field reads as None when absent but is never null on the wire.

    `_Omittable[X]` is `X | None` to type checkers and `X` to pydantic, so JSON null stays invalid
    where the schema rejects it, and None given to a constructor means "absent".
    """
    text = annotation(f.type, sym, core=core)
    if not f.required and not ir.admits_null(f.type):
        text = f"{sym['_Omittable']}[{text}]"
    return text
