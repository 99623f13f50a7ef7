"""Stage one's fast path: read the JSON Schema subset the MCP revisions use into the parser's shapes.

datamodel-code-generator costs more to import and run than the rest of a generation. For a schema
written only with the keywords below, in the shapes below, this reads the same models it would (the
same reference paths, fields, types, bounds and descriptions: tests/test_schema_reader.py holds it to
the parser on every revision and on generated schemas); anything else is refused (`None`), and the
parser reads the schema as before.
"""

from __future__ import annotations

import json
import keyword
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

SPECIAL = "#-datamodel-code-generator-#"
"""How the parser marks inline objects in reference paths."""
_MARK = SPECIAL + "-{}-#-special-#"
_OBJECT, _ARRAY, _ANY_OF, _ALL_OF, _EXTRA = (
    _MARK.format(k) for k in ("object", "array", "anyOf", "allOf", "additionalProperties")
)
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_KEYWORDS = frozenset(
    ("type", "properties", "required", "additionalProperties", "items", "$ref", "anyOf", "allOf", "enum", "const",
     "description", "minimum", "maximum", "maxItems")
)  # fmt: skip
_BOUNDS = {"minimum": "ge", "maximum": "le", "maxItems": "max_length"}
EXTRA_FIELD = "__pydantic_extra__"
_UNCERTAIN = "\0"
_MODEL_NAMES = frozenset(
    ("construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj", "parse_raw", "schema", "schema_json",
     "update_forward_refs", "validate")
)  # fmt: skip
"""pydantic.BaseModel's public attributes that do not start with `model_` (the parser renames fields named so)."""


class Unsupported(Exception):
    """The schema uses something outside the subset this reader knows: the parser reads it."""


@dataclass
class Reference:
    """Where a model is, as the parser names it."""

    path: str


@dataclass
class DataType:
    """A type as the parser describes it (the attributes stage two reads)."""

    reference: Reference | None = None
    literals: list[Any] = field(default_factory=list)
    is_list: bool = False
    is_dict: bool = False
    is_optional: bool = False
    data_types: list[DataType] = field(default_factory=list)
    type: str | None = None
    is_set = False
    is_tuple = False


@dataclass
class Field:
    """A field of a model (`name` None: the one field of a root model)."""

    name: str | None
    original_name: str | None
    data_type: DataType
    required: bool
    extras: dict[str, Any]
    constraints: SimpleNamespace | None


@dataclass
class Model:
    """An object model, or a root model wrapping one type."""

    reference: Reference
    fields: list[Field]
    base_classes: list[DataType]
    description: str | None
    extra_template_data: dict[str, Any]


class _Reader:
    def __init__(self, defs_key: str, definitions: dict[str, Any]) -> None:
        self.prefix = f"#/{defs_key}/"
        self.names = set(definitions)
        self.models: dict[str, Model] = {}
        self.overrides: list[tuple[Field, list[DataType]]] = []
        self.arrays = [self.prefix + name for name, node in definitions.items() if isinstance(node, dict) and node.get("type") == "array"]
        self.extending = {self.prefix + name for name, node in definitions.items() if '"allOf"' in json.dumps(node)}

    def definition(self, path: str, node: Any) -> None:
        if not isinstance(node, dict):
            raise Unsupported(path)
        _check_keywords(node)
        if "allOf" in node:
            self.object_model(path, node, node.get("description"))
        elif node.get("type") == "object" and (node.get("properties") or not isinstance(node.get("additionalProperties"), dict)):
            self.object_model(path, node, node.get("description"))
        elif node.get("type") == "array" and any(f'"{p}"' in json.dumps(node.get("items")) for p in (path, *self.arrays)):
            raise Unsupported(path)  # the parser drops items that refer back to their own array
        else:
            inner = path + _UNCERTAIN  # the parser hoists from a root model under paths of another scheme
            field = Field(None, None, self.type_of(node, inner, bounded=True), True, _described(node), _constraints(node))
            self.models[path] = Model(Reference(path), [field], [], None, {})

    def object_model(self, path: str, node: dict[str, Any], description: str | None) -> Reference:
        """The model of an object (or an `allOf` of references and at most one object) at `path`."""
        bases: list[DataType] = []
        if "allOf" in node:
            if set(node) - {"allOf", "description"} or not isinstance(node["allOf"], list):
                raise Unsupported(path)
            own = [m for m in node["allOf"] if not (isinstance(m, dict) and set(m) == {"$ref"})]
            bases = [DataType(reference=self.ref(m["$ref"])) for m in node["allOf"] if m not in own]
            if len(own) > 1 or not bases or len(node["allOf"]) < 2 or node["allOf"][: len(bases)] != [{"$ref": b.reference.path} for b in bases if b.reference]:
                raise Unsupported(path)
            node = own[0] if own else {"type": "object"}
            _check_keywords(node)
            if node.get("type") != "object" or "description" in node:
                raise Unsupported(path)
        if not node.keys() <= {"type", "properties", "required", "additionalProperties", "description"}:
            raise Unsupported(path)
        properties = node.get("properties", {})
        required = node.get("required", [])
        extra = node.get("additionalProperties", True)
        if (
            not isinstance(properties, dict)
            or not isinstance(required, list)
            or any(r not in properties for r in required)
            or EXTRA_FIELD in properties
            or not isinstance(extra, (bool, dict))
        ):
            raise Unsupported(path)
        fields = []
        if isinstance(extra, dict):
            value = DataType(is_dict=True, data_types=[self.type_of(extra, path + _UNCERTAIN)])
            fields.append(Field(EXTRA_FIELD, EXTRA_FIELD, value, True, {}, None))
        for name, prop in properties.items():
            if not isinstance(prop, (dict, bool)):
                raise Unsupported(path)
            data_type = self.type_of(prop, f"{path}/{_path_name(name)}", bounded=True)
            fields.append(Field(name, name, data_type, name in required, _described(prop), _constraints(prop)))
            if bases:
                self.overrides.append((fields[-1], bases))
        config = SimpleNamespace(extra="'forbid'") if extra is False else None
        self.models[path] = Model(
            Reference(path), fields, bases, description, {"config": config} if config is not None else {}
        )
        return Reference(path)

    def inherit(self) -> None:
        """Refuse an `allOf` of anything but objects, or one that extends itself; give a field that overrides
        an inherited one the inherited description when it has none of its own, as the parser does."""
        for model in self.models.values():
            for base in model.base_classes:
                self.inherited_fields(base, 0)
        for own, bases in self.overrides:
            found = [f for base in bases for f in self.inherited_fields(base, 0) if f.original_name == own.original_name]
            if not found:
                continue
            if len(found) > 1 or found[0].constraints is not None or (found[0].required and not own.required):
                raise Unsupported(str(own.original_name))
            if "description" not in own.extras and "description" in found[0].extras:
                own.extras = dict(found[0].extras)
                target = own.data_type.reference
                if target is not None and target.path.endswith(_OBJECT):  # hoisted from this very property
                    self.models[target.path].description = own.extras["description"]
                elif any(_hoisted(t) for t in own.data_type.data_types):
                    raise Unsupported(str(own.original_name))

    def inherited_fields(self, base: DataType, depth: int) -> list[Field]:
        model = self.models.get(base.reference.path) if base.reference is not None else None
        if model is None or depth > 8 or _is_root(model):  # a cycle, or an allOf of what is not an object
            raise Unsupported("allOf")
        return [f for b in model.base_classes for f in self.inherited_fields(b, depth + 1)] + [
            f for f in model.fields if f.name != EXTRA_FIELD
        ]

    def ref(self, target: Any) -> Reference:
        if not isinstance(target, str) or not target.startswith(self.prefix) or target[len(self.prefix) :] not in self.names:
            raise Unsupported(str(target))
        return Reference(target)

    def type_of(self, node: Any, path: str, inherited: str | None = None, bounded: bool = False) -> DataType:
        """The type of the schema `node` at `path`, hoisting inline objects to models of their own (bounds only
        where `bounded`: a field's or a definition's own node)."""
        if node is True or node == {}:
            return DataType(type="Any")
        if not isinstance(node, dict):
            raise Unsupported(path)
        _check_keywords(node)
        if not bounded and node.keys() & _BOUNDS.keys():
            raise Unsupported(path)
        kind = node.get("type")
        annotations = set(node) - {"description", "minimum", "maximum", "maxItems"}
        if not annotations:
            return DataType(type="Any")
        if "$ref" in node:
            if annotations != {"$ref"}:
                raise Unsupported(path)
            return DataType(reference=self.ref(node["$ref"]))
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else node["enum"]
            if (
                ("const" in node and "enum" in node)
                or not isinstance(values, list)
                or not values
                or not all(type(v) in (str, int) for v in values)
                or annotations - {"const", "enum", "type"}
            ):
                raise Unsupported(path)
            return DataType(literals=list(values))
        if "anyOf" in node:
            members = node["anyOf"]
            if annotations != {"anyOf"} or not isinstance(members, list) or len(members) < 2:
                raise Unsupported(path)
            description = node.get("description", inherited)
            types = [self.type_of(m, f"{path}{_ANY_OF}/{i}", description) for i, m in enumerate(members)]
            if sum(bool(t.literals) for t in types) > 1:
                raise Unsupported(path)  # the parser merges the literals into one
            return DataType(data_types=types)
        if "allOf" in node:
            if set(node) != {"allOf"} or all(isinstance(m, dict) and "$ref" in m for m in node["allOf"]):
                raise Unsupported(path)  # the parser reads an allOf of references alone there as something else
            bases = [m.get("$ref") for m in node["allOf"] if isinstance(m, dict)]
            if _UNCERTAIN in path or any(b in self.extending or path.startswith(f"{b}/") for b in bases):
                raise Unsupported(path)  # the parser recurses without end on some of these
            return DataType(reference=self.object_model(path + _ALL_OF, node, None))
        if isinstance(kind, list):
            if annotations != {"type"} or len(kind) < 2 or not all(k in _SCALARS for k in kind) or len(set(kind)) != len(kind):
                raise Unsupported(path)
            scalars = [DataType(type=_SCALARS[k]) for k in kind if k != "null"]
            return DataType(data_types=scalars, is_optional="null" in kind)
        if kind in _SCALARS and annotations == {"type"}:
            return DataType(type=_SCALARS[kind])
        if kind == "array" and annotations <= {"type", "items"}:
            items = node.get("items", True)
            if not isinstance(items, (dict, bool)) or items is False:
                raise Unsupported(path)
            return DataType(is_list=True, data_types=[self.type_of(items, f"{path}{_ARRAY}/0")])
        if kind == "object" and annotations <= {"type", "properties", "required", "additionalProperties"}:
            if node.get("properties"):
                if _UNCERTAIN in path:
                    raise Unsupported(path)
                description = node.get("description", inherited)
                return DataType(reference=self.object_model(path + _OBJECT, node, description))
            extra = node.get("additionalProperties", True)
            if node.get("properties", {}) != {} or "required" in node:
                raise Unsupported(path)
            if extra is True:
                return DataType(is_dict=True, data_types=[DataType(type="Any")])
            if isinstance(extra, dict) and annotations - {"properties"} == {"type", "additionalProperties"}:
                return DataType(is_dict=True, data_types=[self.type_of(extra, path + _OBJECT + _EXTRA)])
        raise Unsupported(path)


def _is_root(model: Model) -> bool:
    return len(model.fields) == 1 and model.fields[0].name is None


def _hoisted(data_type: DataType) -> bool:
    """True when `data_type` mentions an object hoisted from an inline schema."""
    path = data_type.reference.path if data_type.reference is not None else ""
    return SPECIAL in path or any(_hoisted(t) for t in data_type.data_types)


def _path_name(name: str) -> str:
    """The Python name the parser gives property `name` in the paths of the objects it hoists from it
    (`_UNCERTAIN` marks the names whose renaming this reader does not know)."""
    if not name.isidentifier() or name.startswith("__") or name in _MODEL_NAMES or name.startswith("model_"):
        return _UNCERTAIN + name
    if keyword.iskeyword(name):
        return name + "_"
    return "field" + name if name.startswith("_") else name


def _check_keywords(node: dict[str, Any]) -> None:
    if not node.keys() <= _KEYWORDS:
        raise Unsupported(", ".join(sorted(node.keys() - _KEYWORDS)))
    if "description" in node and not isinstance(node["description"], str):
        raise Unsupported("description")


def _described(node: Any) -> dict[str, Any]:
    return {"description": node["description"]} if isinstance(node, dict) and "description" in node else {}


def _constraints(node: Any) -> SimpleNamespace | None:
    """The bounds of a scalar or array node, as the parser names them; refused on any other node."""
    if not isinstance(node, dict):
        return None
    found = {_BOUNDS[k]: v for k, v in node.items() if k in _BOUNDS}
    if not found:
        return None
    numeric = node.get("type") in ("integer", "number") and "maxItems" not in node
    listed = node.get("type") == "array" and "minimum" not in node and "maximum" not in node
    if not (numeric or listed) or not all(type(v) is int for v in found.values()):
        raise Unsupported("bounds")
    return SimpleNamespace(**found)


def read(schema: dict[str, Any], defs_key: str) -> dict[str, Model] | None:
    """The models of `schema` (normalized, as the parser reads it) by reference path, or None when it
    uses anything this reader does not know."""
    definitions = schema[defs_key]
    if set(schema) - {"$schema", defs_key} or not all(isinstance(k, str) for k in definitions):
        return None
    if any(("/" in name or "~" in name) for name in definitions):
        return None
    reader = _Reader(defs_key, definitions)
    try:
        for name, node in definitions.items():
            reader.definition(reader.prefix + name, node)
        reader.inherit()
    except (Unsupported, RecursionError):
        return None
    return reader.models
