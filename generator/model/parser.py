"""Stage one: read the schema's models, with datamodel-code-generator's JSON Schema parser or, for the
subset of JSON Schema the MCP revisions are written in, with the reader that reads them as it does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Union
from urllib.parse import unquote

import jsonpointer

from ..errors import SchemaError
from . import reader
from .shapes import SCHEMA_MAPS

if TYPE_CHECKING:
    from datamodel_code_generator.model.base import DataModel

    ParsedModel = Union[DataModel, reader.Model]


_DATA_KEYWORDS = ("const", "enum", "default", "examples")


@dataclass(frozen=True)
class ParsedSchema:
    """The parser's models, indexed by reference path, plus the definitions in schema order."""

    models: Mapping[str, ParsedModel]
    definitions: tuple[tuple[str, str], ...]  # (definition name, reference path)
    defs_key: str


def _normalized(node: Any) -> Any:
    """The schema as the parser should read it: no `format` keywords (every format stays a plain `str`
    on the wire and in Python), and `{"not": {}}` (nothing is valid) spelled as the parser knows it:
    `additionalProperties: false`, and a property of a closed object that may never appear left out. A
    closed object's `propertyNames: {"type": "string"}` (true of every JSON key) goes too, or the parser
    would read the object as an open map."""
    if isinstance(node, dict):
        out = {
            k: (_normalized(v) if k not in ("const", "enum", "default", "examples") else v)
            for k, v in node.items()
            if not (k == "format" and isinstance(v, str))
        }
        if _never(out.get("additionalProperties")):
            out["additionalProperties"] = False
        properties = out.get("properties")
        if out.get("additionalProperties") is False and out.get("propertyNames") == {"type": "string"}:
            del out["propertyNames"]
        if out.get("additionalProperties") is False and isinstance(properties, dict):
            listed = out.get("required")
            required = listed if isinstance(listed, list) else []
            out["properties"] = {k: v for k, v in properties.items() if not _never(v) or k in required}
        return out
    if isinstance(node, list):
        return [_normalized(v) for v in node]
    return node


def _never(node: Any) -> bool:
    """True for a schema no value satisfies: `false`, or `{"not": {}}` with nothing but annotations beside it."""
    if node is False:
        return True
    return (
        isinstance(node, dict)
        and node.get("not") in ({}, True)
        and all(k in ("not", "description", "title", "$comment") for k in node)
    )


def _escape_pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def defs_key_of(schema: dict[str, Any]) -> str:
    """`$defs` (2020-12) or `definitions` (draft-07); fails when the schema has neither."""
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            return key
    raise SchemaError("schema has no 'definitions' or '$defs' object: not an MCP JSON Schema")


def check_references(schema: dict[str, Any]) -> None:
    """Refuse, before a parser follows one, a `$ref` that is not a JSON pointer into `schema` itself (no
    file or URL is ever read), one that names no schema there, and references that only lead to each
    other (`A` → `B` → `A`, as a whole schema or through `allOf`, `anyOf`, `oneOf`: no type is ever
    defined)."""
    targets: dict[str, Any] = {}
    for ref in _references(schema):
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaError(
                f"schema reference {ref!r} is not local: only `#/...` references are read"
            )
        try:
            targets[ref] = jsonpointer.resolve_pointer(schema, unquote(ref[1:]))  # a URI fragment
        except jsonpointer.JsonPointerException:
            raise SchemaError(f"schema reference {ref!r} does not resolve") from None
        if not isinstance(targets[ref], (dict, bool)):
            raise SchemaError(f"schema reference {ref!r} does not resolve to a schema")
    # Depth first along `_composed_of`: a reference met again on the current path closes a loop.
    done: set[str] = set()
    for start in targets:
        if start in done:
            continue
        path, pending = [start], [_composed_of(targets[start])]
        while pending:
            if not pending[-1]:
                pending.pop()
                done.add(path.pop())
                continue
            ref = pending[-1].pop()
            if ref in path:
                cycle = " → ".join(path[path.index(ref) :] + [ref])
                raise SchemaError(f"schema references only lead to each other: {cycle}")
            if ref not in done and ref in targets:
                path.append(ref)
                pending.append(_composed_of(targets[ref]))


def _references(schema: dict[str, Any]) -> Iterator[Any]:
    """Every `$ref`'s value where a schema can stand (not in `const`, `enum`, `default`, `examples`)."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield value
                elif key in SCHEMA_MAPS and isinstance(value, dict):
                    stack.extend(value.values())
                elif key not in _DATA_KEYWORDS:
                    stack.append(value)


def _composed_of(node: Any) -> list[str]:
    """The references a schema is made of, not nested under another keyword: its own, and those of its
    `allOf`, `anyOf` and `oneOf` members."""
    found: list[str] = []
    stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, dict):
            if isinstance(part.get("$ref"), str):
                found.append(part["$ref"])
            for key in ("allOf", "anyOf", "oneOf"):
                if isinstance(part.get(key), list):
                    stack.extend(part[key])
    return found


def parse(schema: dict[str, Any]) -> ParsedSchema:
    """The models of `schema` by reference path: read by `reader` when it knows every keyword and shape
    the schema uses, else parsed by datamodel-code-generator."""
    defs_key = defs_key_of(schema)
    normalized = _normalized(schema)
    models = reader.read(normalized, defs_key)
    definitions = tuple(
        (name, f"#/{defs_key}/{_escape_pointer(name)}") for name in schema[defs_key]
    )
    return ParsedSchema(
        models=parsed_models(normalized) if models is None else models, definitions=definitions, defs_key=defs_key
    )


def parsed_models(normalized: dict[str, Any]) -> dict[str, DataModel]:
    """The models datamodel-code-generator parses from a normalized schema, by reference path."""
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import PythonVersion
    from datamodel_code_generator.model import get_data_model_types
    from datamodel_code_generator.parser import LiteralType
    from datamodel_code_generator.parser.jsonschema import JsonSchemaParser

    types = get_data_model_types(DataModelType.PydanticV2BaseModel, PythonVersion.PY_310)
    try:
        parser = JsonSchemaParser(
            json.dumps(normalized),
            data_model_type=types.data_model,
            data_model_root_type=types.root_model,
            data_model_field_type=types.field_model,
            data_type_manager_type=types.data_type_manager,
            dump_resolve_reference_action=types.dump_resolve_reference_action,
            field_constraints=True,
            enum_field_as_literal=LiteralType.All,
            use_annotated=False,
            use_schema_description=True,
        )
        parser.parse_raw()
    except RecursionError as exc:
        raise SchemaError("schema nests too deeply to parse") from exc
    except Exception as exc:  # the parser raises many types; all mean "cannot read this schema"
        raise SchemaError(f"datamodel-code-generator cannot parse the schema: {exc}") from exc
    return {m.reference.path: m for m in parser.results}
