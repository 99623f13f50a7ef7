"""Python source fragments for IR values: annotations, literals and docstrings, always inert text."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import unicodedata
from dataclasses import dataclass

from ..model import ir

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
    "Field",
    "TypeAliasType",
)
# Names the generated types module defines for itself: the base model, the constant-field helper, its type
# variable, and the marker of optional fields that must not be null.
HELPERS = ("_McpModel", "_const", "_T", "_Omittable")


@dataclass(frozen=True)
class Symbols:
    """How the generated types module spells the names it imports."""

    names: tuple[tuple[str, str], ...]

    def __getitem__(self, name: str) -> str:
        return dict(self.names)[name]

    @classmethod
    def avoiding(cls, taken: set[str]) -> Symbols:
        """Every name the types module imports or defines for itself, prefixed with `_` until no definition uses it."""
        used = set(taken)
        spelled = []
        for name in IMPORTED + HELPERS:
            alias = name
            while alias in used:
                alias = "_" + alias
            used.add(alias)
            spelled.append((name, alias))
        return cls(tuple(spelled))


def py_literal(value: ir.JsonScalar) -> str:
    """A Python literal for a JSON scalar (strings escaped so any text stays data)."""
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'  # Python's json module reads Infinity and NaN
    return repr(value)


def record_literal(value: object, names: set[str]) -> str:
    """Python source building `value`: a frozen dataclass as a call with its non-default fields, tuples,
    and JSON scalars. The class names used are added to `names` (for the module's imports)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names.add(type(value).__name__)
        args = [
            f"{f.name}={record_literal(getattr(value, f.name), names)}"
            for f in dataclasses.fields(value)
            if f.default is dataclasses.MISSING or getattr(value, f.name) != f.default
        ]
        return f"{type(value).__name__}({', '.join(args)})"
    if isinstance(value, tuple):
        items = [record_literal(item, names) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if value is None or isinstance(value, (str, int, float, bool)):
        return py_literal(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def string_literal(text: str) -> str:
    """A double-quoted Python string literal for `text`, with every non-printable escaped."""
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif _unsafe(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


SPEC_SITE = "https://modelcontextprotocol.io"
"""Where the schema's root-relative links (`[…](/specification/…)`) point: absolute, an IDE opens them."""


def doc_text(text: str) -> str:
    """What a docstring keeps of `text`: tabs expanded, line ends and the common indent trimmed, and
    Markdown links to the spec's site made absolute.

    Black and Python (3.13 dedents docstrings) may change exactly this much of a docstring's
    whitespace, so the emitted docstring's `inspect.cleandoc` value is `doc_text(text)`. A lone
    surrogate shows as its `\\udXXX` escape: CPython encodes class docstrings to UTF-8.
    """
    text = text.replace("](/", f"]({SPEC_SITE}/")
    visible = text.encode("utf-8", "backslashreplace").decode("utf-8")
    lines = [line.rstrip() for line in visible.expandtabs().split("\n")]
    return inspect.cleandoc("\n".join(lines))


def docstring(text: str | None) -> str | None:
    """A triple-quoted docstring literal for `text` (None when it has no visible text).

    Backslashes are doubled and non-printables escaped; a quote is escaped when it follows a
    quote or ends the text, so no run of quotes can close the literal early.
    """
    if text is None:
        return None
    body = doc_text(text)
    if not body:
        return None
    out: list[str] = []
    quote_before = False
    for i, ch in enumerate(body):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"' and i == len(body) - 1:
            out.append("\\x22")  # not `\"`: black pads a docstring whose source ends in a quote
        elif ch == '"' and quote_before:
            out.append('\\"')
        elif ch != "\n" and _unsafe(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
        quote_before = ch == '"' and out[-1] == '"'
    return '"""' + "".join(out) + '"""'


def comment(text: str) -> str:
    """`text` as the rest of a one-line comment: JSON-escaped, so it can neither end the line nor hide code.

    Outer spaces are escaped too (black trims a comment's trailing whitespace); `json.loads` of the
    quoted comment gives `text` back.
    """
    body = json.dumps(text, ensure_ascii=True)[1:-1]
    stripped = body.strip(" ")
    if not stripped:
        return "\\u0020" * len(body)
    lead = len(body) - len(body.lstrip(" "))
    trail = len(body) - len(body.rstrip(" "))
    return "\\u0020" * lead + stripped + "\\u0020" * trail


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def annotation(t: ir.TypeExpr, sym: Symbols, prefix: str = "") -> str:
    """The Python annotation for a type expression; `prefix` qualifies definition names."""
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
        return prefix + t.name
    if isinstance(t, ir.ListOf):
        return f"list[{annotation(t.item, sym, prefix)}]"
    if isinstance(t, ir.DictOf):
        return f"dict[str, {annotation(t.value, sym, prefix)}]"
    members = " | ".join(annotation(m, sym, prefix) for m in t.members)
    if t.discriminator:
        return f"{sym['Annotated']}[{members}, {sym['Field']}(discriminator={string_literal(t.discriminator)})]"
    return members


def lazy_annotation(t: ir.TypeExpr, sym: Symbols) -> str:
    """An annotation spelled with `Union[...]` so it can be evaluated from a string lazily."""
    if isinstance(t, ir.UnionOf):
        inner = ", ".join(lazy_annotation(m, sym) for m in t.members)
        union = f"{sym['Union']}[{inner}]"
        if t.discriminator:
            return f"{sym['Annotated']}[{union}, {sym['Field']}(discriminator={string_literal(t.discriminator)})]"
        return union
    if isinstance(t, ir.ListOf):
        return f"list[{lazy_annotation(t.item, sym)}]"
    if isinstance(t, ir.DictOf):
        return f"dict[str, {lazy_annotation(t.value, sym)}]"
    if isinstance(t, ir.Primitive) and t.name == "number":
        return f"{sym['Union']}[int, float]"
    if isinstance(t, ir.LiteralOf) and None in t.values:
        return f"{sym['Union']}[{annotation(t, sym).replace(' | ', ', ')}]"
    return annotation(t, sym)


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


def field_annotation(f: ir.Field, sym: Symbols) -> str:
    """The annotation of a model field; an optional field reads as None when absent but is never null on the wire.

    `_Omittable[X]` is `X | None` to type checkers and `X` to pydantic, so JSON null stays invalid
    where the schema rejects it, and None given to a constructor means "absent".
    """
    text = annotation(f.type, sym)
    if not f.required and not ir.admits_null(f.type):
        text = f"{sym['_Omittable']}[{text}]"
    return text
