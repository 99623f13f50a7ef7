"""Turn the parser's models into IR definitions: names from position, lossless types."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence, Union

from . import ir, reader
from ..errors import SchemaError
from .parser import ParsedSchema
from .naming import definition_name, module_names, pascal_case, snake_case, unique

if TYPE_CHECKING:
    from datamodel_code_generator.model.base import DataModelFieldBase
    from datamodel_code_generator.types import DataType as ParserType

    from .parser import ParsedModel as DataModel

    DataType = Union[ParserType, reader.DataType]

DISCRIMINATOR_KEYS = ("method", "type", "kind", "resultType", "mode", "status")
"""Keys tried, in order, to tell the members of a union of objects apart (and to name inline members)."""
_SCALARS: dict[str, ir.TypeExpr] = {
    "str": ir.Primitive("string"),
    "int": ir.Primitive("integer"),
    "float": ir.Primitive("number"),
    "bool": ir.Primitive("boolean"),
    "None": ir.Primitive("null"),
    "Any": ir.AnyType(),
}
_CONSTRAINTS = {
    "ge": "ge",
    "le": "le",
    "gt": "gt",
    "lt": "lt",
    "multiple_of": "multiple_of",
    "min_items": "min_length",
    "max_items": "max_length",
    "min_length": "min_length",
    "max_length": "max_length",
}


@dataclass
class _Builder:
    parsed: ParsedSchema
    names: dict[str, str] = field(default_factory=dict)  # reference path -> Python name
    taken: set[str] = field(default_factory=module_names)
    queue: deque[str] = field(default_factory=deque)
    out: dict[str, ir.Definition] = field(default_factory=dict)

    def model(self, path: str) -> DataModel:
        try:
            return self.parsed.models[path]
        except KeyError:
            raise SchemaError(f"schema reference {path!r} does not resolve") from None

    def name_for(self, path: str, hint: str) -> str:
        """The Python name of the model at `path`, naming a hoisted inline object after `hint`."""
        if path not in self.names:
            self.names[path] = unique(hint, self.taken)
            self.queue.append(path)
        return self.names[path]

    # -- types --

    def convert(self, dt: DataType, hint: str) -> ir.TypeExpr:
        """The IR type of a parser data type; inline objects are hoisted and named from `hint`."""
        result = self._convert(dt, hint)
        if dt.is_optional and not ir.admits_null(result):
            result = _union([result, ir.Primitive("null")])
        return result

    def _convert(self, dt: DataType, hint: str) -> ir.TypeExpr:
        if dt.reference is not None:
            path = dt.reference.path
            target = self.parsed.models.get(path)
            if target is None:
                return ir.AnyType()
            return ir.Ref(self.name_for(path, hint))
        if dt.literals:
            return ir.LiteralOf(tuple(dt.literals))
        if dt.is_list or dt.is_set or dt.is_tuple:
            item = dt.data_types[0] if dt.data_types else None
            return ir.ListOf(self.convert(item, hint + "Item") if item else ir.AnyType())
        if dt.is_dict:
            value = dt.data_types[0] if dt.data_types else None
            return ir.DictOf(self.convert(value, hint + "Value") if value else ir.AnyType())
        if len(dt.data_types) == 1:
            return self.convert(dt.data_types[0], hint)
        if dt.data_types:
            types: Sequence[DataType] = dt.data_types
            members = [self.convert(m, h) for m, h in zip(types, self._member_hints(types, hint))]
            return _union(members)
        if dt.type in _SCALARS:
            return _SCALARS[dt.type]
        if dt.type is None:
            return ir.AnyType()
        raise SchemaError(f"unsupported type {dt.type!r} in the schema near {hint}")

    def _member_hints(self, members: Sequence[DataType], hint: str) -> list[str]:
        """The names of a union's members hoisted from `hint`: after the constant that tells them apart
        (`status: "working"` → `…Working`) when every member is an inline object with its own, else
        `…VariantA`, `…VariantB`, …"""
        numbered = [f"{hint}Variant{_letters(i)}" for i in range(len(members))]
        inline = [self.parsed.models.get(m.reference.path) if m.reference is not None else None for m in members]
        if any(m is None or m.reference is None or m.reference.path in self.definition_paths for m in members):
            return numbered
        tags = [self._literals(model) for model in inline if model is not None]
        for key in DISCRIMINATOR_KEYS:
            values = [t.get(key) or [] for t in tags]
            names = [pascal_case(v[0]) if len(v) == 1 and isinstance(v[0], str) else "" for v in values]
            if all(n and n != "Value" for n in names) and len(set(names)) == len(names):
                return [hint + n for n in names]
        return numbered

    def _literals(self, model: DataModel, depth: int = 0) -> dict[str | None, list[Any]]:
        """The literal values of each field of a model, those of the models it extends (`allOf`) included."""
        found: dict[str | None, list[Any]] = {}
        for base in model.base_classes if depth < 8 else ():
            inherited = self.parsed.models.get(base.reference.path) if base.reference is not None else None
            if inherited is not None:
                found.update(self._literals(inherited, depth + 1))
        found.update({(f.original_name or f.name): f.data_type.literals for f in model.fields})
        return found

    # -- definitions --

    def build(self, path: str) -> None:
        model = self.model(path)
        name = self.names[path]
        definition = path in self.definition_paths
        description = model.description
        if _is_root(model):
            root = model.fields[0]
            self.out[path] = ir.Alias(
                name=name,
                pointer=path,
                description=description or root.extras.get("description"),
                type=self.convert(root.data_type, name),
                is_definition=definition,
                constraints=_constraints(root, name),
            )
            return
        fields: dict[str, ir.Field] = {}
        extra: ir.TypeExpr = ir.AnyType()
        closed = False
        for base in model.base_classes:
            if base.reference is not None and base.reference.path in self.parsed.models:
                inherited = self._fields_of(base.reference.path, name)
                fields.update((f.wire_name, f) for f in inherited[0])
                extra = inherited[1]
        own, own_extra, closed = self._own_fields(model, name)
        fields.update((f.wire_name, f) for f in own)
        if own_extra is not None:
            extra = own_extra
        self.out[path] = ir.Model(
            name=name,
            pointer=path,
            description=description,
            fields=_python_names(tuple(fields.values())),
            extra=ir.LiteralOf(()) if closed else extra,
            is_definition=definition,
        )

    def _fields_of(self, path: str, owner: str) -> tuple[list[ir.Field], ir.TypeExpr]:
        model = self.model(path)
        fields: dict[str, ir.Field] = {}
        extra: ir.TypeExpr = ir.AnyType()
        for base in model.base_classes:
            if base.reference is not None and base.reference.path in self.parsed.models:
                inherited, extra = self._fields_of(base.reference.path, owner)
                fields.update((f.wire_name, f) for f in inherited)
        own, own_extra, _ = self._own_fields(model, self.names.get(path) or owner)
        fields.update((f.wire_name, f) for f in own)
        return list(fields.values()), own_extra or extra

    def _own_fields(
        self, model: DataModel, owner: str
    ) -> tuple[list[ir.Field], ir.TypeExpr | None, bool]:
        fields: list[ir.Field] = []
        extra: ir.TypeExpr | None = None
        for f in model.fields:
            wire = f.original_name if f.original_name is not None else (f.name or "")
            if f.name == reader.EXTRA_FIELD:  # the parser's additionalProperties; a real such key is renamed
                extra_type = self.convert(f.data_type, owner + "Value")
                extra = extra_type.value if isinstance(extra_type, ir.DictOf) else extra_type
                continue
            fields.append(
                ir.Field(
                    wire_name=wire,
                    python_name="",
                    type=self.convert(f.data_type, owner + pascal_case(wire)),
                    required=bool(f.required),
                    description=(f.extras or {}).get("description"),
                    constraints=_constraints(f, f"{owner}.{wire}"),
                )
            )
        return fields, extra, _is_closed(model)

    @property
    def definition_paths(self) -> set[str]:
        return {p for _, p in self.parsed.definitions}


def _letters(i: int) -> str:
    """A, B, … Z, AA, AB …: union member suffixes that are not numbers."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def _is_root(model: DataModel) -> bool:
    return len(model.fields) == 1 and model.fields[0].name is None


def _is_closed(model: DataModel) -> bool:
    config = getattr(model, "extra_template_data", {}).get("config")
    extra = getattr(config, "extra", None) if config is not None else None
    return str(extra).strip("'\"") == "forbid"


def _union(members: list[ir.TypeExpr]) -> ir.TypeExpr:
    flat: list[ir.TypeExpr] = []
    for m in members:
        for x in m.members if isinstance(m, ir.UnionOf) and m.discriminator is None else (m,):
            if x not in flat:
                flat.append(x)
    if any(isinstance(x, ir.AnyType) for x in flat):
        return ir.AnyType()
    return flat[0] if len(flat) == 1 else ir.UnionOf(tuple(flat))


def _constraints(f: DataModelFieldBase | reader.Field, where: str) -> tuple[ir.Constraint, ...]:
    c = f.constraints
    if c is None:
        return ()
    out = []
    for attr, name in _CONSTRAINTS.items():
        value = getattr(c, attr, None)
        value = getattr(value, "value", value)  # numeric bounds arrive wrapped in datamodel-code-generator's UnionIntFloat
        if isinstance(value, float) and not math.isfinite(value):
            raise SchemaError(f"a bound of {where} in the schema is {value}, not a finite number")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(ir.Constraint(name, value))
    return tuple(out)


def _python_names(fields: tuple[ir.Field, ...]) -> tuple[ir.Field, ...]:
    """Unique Python names; none equal to another field's wire name (models validate by name too)."""
    taken: set[str] = set()
    wires = {f.wire_name for f in fields}
    out = []
    for f in fields:
        py = unique(snake_case(f.wire_name), taken | (wires - {f.wire_name}))
        taken.add(py)
        out.append(ir.Field(f.wire_name, py, f.type, f.required, f.description, f.constraints))
    return tuple(out)


def build_definitions(parsed: ParsedSchema) -> tuple[list[ir.Definition], dict[str, str]]:
    """IR definitions for every schema definition and hoisted inline object, in discovery order.

    Returns the definitions and the map from definition name to Python name.
    """
    b = _Builder(parsed)
    reserved: dict[str, str] = {}
    for name, path in parsed.definitions:
        if path not in parsed.models:
            continue
        reserved[name] = unique(definition_name(name), b.taken)
        b.names[path] = reserved[name]
    order: list[str] = []
    for _, path in parsed.definitions:
        if path not in parsed.models:
            continue
        b.queue.append(path)
        while b.queue:
            p = b.queue.popleft()
            if p in b.out:
                continue
            b.build(p)
            order.append(p)
    return [b.out[p] for p in order], reserved
