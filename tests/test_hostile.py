"""Hostile schema content becomes inert data in code that compiles, imports, type-checks and round-trips."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.errors import SchemaError
from mcpgen.commands.generate import GenerateConfig, generate
from shared import kept_by_a_docstring

BASE = "2025-11-25"
PACKAGE = "hostile_pkg"
PAYLOAD_COUNT = 6
# Nesting depth of inline objects: each level is a hoisted model referring forward to the next, and
# pydantic resolves such a chain recursively on first use (chains of ~90 exceed the recursion limit).
DEEP = 40

# Wire names that are keywords, builtins, pydantic attributes, dunders, non-identifiers, or collide.
HOSTILE_KEYS = [
    "class", "def", "None", "True", "import", "match", "case", "type", "_", "self",
    "__init__", "__class__", "__dict__", "__slots__", "__pydantic_extra__", "__pydantic_fields__", "__fields__",
    "model_config", "model_dump", "model_dump_json", "model_validate", "model_fields", "model_post_init", "model_x",
    "schema", "json", "copy", "dict", "validate", "construct", "fields",
    "str", "int", "list", "Any", "Field", "BaseModel", "Literal", "Union", "Optional",
    "$schema", "a-b", "1x", "123", "io.modelcontextprotocol/serverInfo", "fooBar", "foo_bar", "FooBar", "foo-bar",
    "", "  ", "_meta", "meta", "é", "日本", "a b", 'x"y', "x'y", "x\\y", "x\ny", "x\x00y", "x\u2028y",
]
# Definition names that collide with what the generated modules import or use.
HOSTILE_DEFINITIONS = [
    "Annotated", "Any", "Field", "BaseModel", "List", "Literal", "Optional", "Union", "ConfigDict", "TypeAliasType",
    "TypeAdapter", "ValidationError", "Mapping", "json", "types", "Method", "ProtocolError", "METHODS",
    "str", "int", "list", "dict", "None", "class", "_McpModel", "annotations", "__name__", "__all__",
]
CONSTS = ['a"b', "a'b", "a\\b", "a\nb", '"""', "'''", "\x00", "\u2028", "{{ x }}", "{% raw %}", "\\N{BULLET}"]
EVIL_METHOD = 'evil"""\n{{ x }}\\\u2028'


def payloads(mark: Path) -> list[str]:
    """Descriptions that would create a file in `mark` if any of them ever ran as code."""
    touch = f'import os; os.system("touch {mark}/pwned-%d")'
    return [
        '"""; ' + touch % 0,
        "'''; " + touch.replace('"', "'") % 1,
        'x\\\n"""; ' + touch % 2 + " #",
        '{{ x }} {% raw %} {# c #} """; ' + touch % 3,
        '\\"""; ' + touch % 4 + "\n\\",
        'f"{__import__(\'os\').system(\'touch ' + str(mark) + '/pwned-5\')}"',
        'ends with quote"',
        "ends with backslash\\",
        "nul\x00 bel\x07 esc\x1b del\x7f cr\r vt\x0b ff\x0c",
        "ls\u2028ps\u2029nel\u0085 bom\ufeff rtl\u202e zwj\u200d",
        "x" * 20000,
        "\\N{BULLET} \\u0041 \\x41 \\0 \\",
        'ends with triple quotes"""',
        'escaped \\"\\"\\" and "" and """"',
        "\ttabs\tand  trailing  \n\t\tindented",
        "lone \ud800 surrogate",
    ]


def hostile_schema(base: dict[str, Any], mark: Path) -> dict[str, Any]:
    """A real MCP schema plus every hostile construct this module checks."""
    schema = copy.deepcopy(base)
    defs = schema["$defs"]
    texts = payloads(mark)
    props: dict[str, Any] = {key: {"type": "string", "description": texts[i % len(texts)]} for i, key in enumerate(HOSTILE_KEYS)}
    props["consts"] = {"type": "string", "enum": CONSTS}
    props["k"] = {"type": "string", "const": '""";' + texts[0]}
    defs["Hostile"] = {"type": "object", "description": texts[0], "properties": props, "required": ["class", "a-b", ""]}
    for i, text in enumerate(texts):
        defs[f"Payload{i}"] = {"type": "object", "description": text, "properties": {"x": {"type": "integer", "description": text}}}
        defs[f"PayloadAlias{i}"] = {"type": "string", "description": text}
    for name in HOSTILE_DEFINITIONS:
        defs[name] = {"type": "object", "description": name, "properties": {"v": {"type": "string"}, "h": {"$ref": "#/$defs/Hostile"}}}
    defs["Dict"] = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Any"}]}
    defs["meta"] = {"type": "object", "properties": {"meta": {"$ref": "#/$defs/meta"}, "str": {"$ref": "#/$defs/str"}}}
    defs["WithExtra"] = {"type": "object", "properties": {"__pydantic_extra__": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    defs["RecA"] = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/RecB"}}]}
    defs["RecB"] = {"anyOf": [{"type": "integer"}, {"type": "object", "additionalProperties": {"$ref": "#/$defs/RecA"}}]}
    defs["SelfRec"] = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/SelfRec"}}]}
    defs["NodeA"] = {"type": "object", "properties": {"b": {"$ref": "#/$defs/NodeB"}, "as": {"type": "array", "items": {"$ref": "#/$defs/NodeA"}}}}
    defs["NodeB"] = {"type": "object", "properties": {"a": {"$ref": "#/$defs/NodeA"}, "rec": {"$ref": "#/$defs/RecA"}}}
    node: dict[str, Any] = {"type": "string"}
    for _ in range(DEEP):
        node = {"type": "object", "properties": {"l": node}}
    defs["Deep"] = node
    defs["EvilRequest"] = {
        "type": "object",
        "description": texts[1],
        "properties": {
            "jsonrpc": {"const": "2.0", "type": "string"},
            "id": {"$ref": "#/$defs/RequestId"},
            "method": {"const": EVIL_METHOD, "type": "string"},
            "params": {"type": "object", "properties": {"a-b": {"type": "string"}, "class": {"type": "integer"}}},
        },
        "required": ["jsonrpc", "id", "method"],
    }
    defs["EvilResult"] = {"type": "object", "properties": {'r"': {"type": "string"}}}
    defs["ClientRequest"]["anyOf"].append({"$ref": "#/$defs/EvilRequest"})
    return schema


def write(path: Path, schema: dict[str, Any]) -> Path:
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def base_schema(schema_dir: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((schema_dir / BASE / "schema.json").read_text("utf-8"))
    return result


@pytest.fixture(scope="module")
def hostile(base_schema: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(directory holding the generated `hostile_pkg`, payload mark directory, the schema)."""
    root = tmp_path_factory.mktemp("hostile")
    mark = root / "mark"
    mark.mkdir()
    schema = hostile_schema(base_schema, mark)
    source = write(root / "hostile.json", schema)
    out = root / "pkgs"
    generate(GenerateConfig(revision="2099-01-01", schema_file=source, package=PACKAGE, output=out / PACKAGE))
    return out, mark, schema


@pytest.fixture(scope="module")
def hostile_types(hostile: tuple[Path, Path, dict[str, Any]]) -> Any:
    out, mark, _ = hostile
    importing = subprocess.run(
        [sys.executable, "-W", "error", "-c", f"import {PACKAGE}, {PACKAGE}.methods, {PACKAGE}.server, {PACKAGE}.client"],
        cwd=out, capture_output=True, text=True, timeout=300,
    )
    assert importing.returncode == 0, importing.stderr[-3000:]
    assert list(mark.iterdir()) == []
    sys.path.insert(0, str(out))
    return importlib.import_module(f"{PACKAGE}.types")


def test_payloads_are_inert_in_a_fresh_interpreter(hostile: tuple[Path, Path, dict[str, Any]], hostile_types: Any) -> None:
    out, mark, _ = hostile
    source = (out / PACKAGE / "types.py").read_text("utf-8")
    compile(source, "types.py", "exec")
    for i in range(PAYLOAD_COUNT):
        assert f"pwned-{i}" in source  # the payload is there, as text
    proc = subprocess.run(
        [sys.executable, "-c", f"import {PACKAGE}.types as t; t.Hostile.model_json_schema(); print(t.Payload0.__doc__)"],
        cwd=out, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pwned-0" in proc.stdout
    assert list(mark.iterdir()) == []


def test_descriptions_survive_as_docstrings(hostile_types: Any, hostile: tuple[Path, Path, dict[str, Any]]) -> None:
    _, mark, _ = hostile
    for i, text in enumerate(payloads(mark)):
        expected = kept_by_a_docstring(text)
        model = getattr(hostile_types, f"Payload{i}")
        assert inspect.getdoc(model) == expected


def test_every_hostile_key_round_trips_under_its_wire_name(hostile_types: Any) -> None:
    model = hostile_types.Hostile
    assert {f.alias if f.alias is not None else name for name, f in model.model_fields.items()} == {*HOSTILE_KEYS, "consts", "k"}
    assert len(model.model_fields) == len(HOSTILE_KEYS) + 2
    wire = {key: f"value of {key!r}" for key in HOSTILE_KEYS}
    for value in CONSTS:
        document = {**wire, "consts": value}
        instance = model.model_validate(document)
        assert instance.model_dump(by_alias=True, exclude_unset=True) == document
        assert json.loads(instance.model_dump_json(by_alias=True, exclude_unset=True)) == document
        assert model.model_validate_json(json.dumps(document)).model_dump(by_alias=True, exclude_unset=True) == document
    with pytest.raises(ValueError):
        model.model_validate({**wire, "consts": "not one of them"})


def test_pydantic_attributes_are_not_shadowed(hostile_types: Any) -> None:
    instance = hostile_types.Hostile.model_validate({"class": "c", "a-b": "d", "": "e", "model_dump": "f", "copy": "g"})
    assert callable(instance.model_dump) and callable(instance.copy)
    assert instance.model_dump(by_alias=True, exclude_unset=True) == {"class": "c", "a-b": "d", "": "e", "model_dump": "f", "copy": "g"}
    extra = hostile_types.WithExtra.model_validate({"__pydantic_extra__": 3, "other": "x"})
    assert extra.model_dump(by_alias=True) == {"__pydantic_extra__": 3, "other": "x"}
    with pytest.raises(ValueError):
        hostile_types.WithExtra.model_validate({"other": 5})


def test_definitions_named_like_imports_and_builtins(hostile_types: Any) -> None:
    exported = set(hostile_types.__all__)
    for name in ("Annotated", "Any", "Field", "BaseModel", "List", "Literal", "Optional", "Union", "ConfigDict", "TypeAliasType"):
        assert name in exported
        model = getattr(hostile_types, name)
        assert model.model_validate({"v": "x"}).model_dump(by_alias=True, exclude_unset=True) == {"v": "x"}
    for renamed in ("Str", "Int", "List_", "Dict_", "None_", "Class", "Annotations", "Name", "All"):
        assert renamed in exported, renamed
    value = hostile_types.meta.model_validate({"meta": {"meta": {}}, "str": {"v": "s", "h": {"class": "c", "a-b": "d", "": ""}}})
    assert type(value.meta.meta) is hostile_types.meta and type(value.str_) is hostile_types.Str
    assert hostile_types.TextContent.model_validate({"type": "text", "text": "t"}).text == "t"


def test_recursion_deep_and_mutual(hostile_types: Any) -> None:
    from pydantic import TypeAdapter

    assert TypeAdapter(hostile_types.RecA).validate_python([1, {"k": [3, {"j": "s"}]}]) == [1, {"k": [3, {"j": "s"}]}]
    assert TypeAdapter(hostile_types.SelfRec).validate_python([["a", ["b"]]]) == [["a", ["b"]]]
    node = hostile_types.NodeA.model_validate({"b": {"a": {"as": [{}]}, "rec": [1]}, "as": []})
    assert node.model_dump(exclude_unset=True, by_alias=True) == {"b": {"a": {"as": [{}]}, "rec": [1]}, "as": []}
    deep: dict[str, Any] = {"l": "bottom"}
    for _ in range(DEEP - 1):
        deep = {"l": deep}
    assert hostile_types.Deep.model_validate(deep).model_dump(exclude_unset=True) == deep


def test_hostile_method_is_dispatched(hostile: tuple[Path, Path, dict[str, Any]], hostile_types: Any) -> None:
    methods = importlib.import_module(f"{PACKAGE}.methods")
    assert EVIL_METHOD in methods.METHODS
    message = {"jsonrpc": "2.0", "id": 1, "method": EVIL_METHOD, "params": {"a-b": "z", "class": 3}}
    parsed = methods.parse_message(json.dumps(message))
    assert type(parsed).__name__ == "EvilRequest"
    assert parsed.model_dump(by_alias=True, exclude_unset=True) == message


def test_mypy_strict_accepts_the_hostile_package(hostile: tuple[Path, Path, dict[str, Any]], hostile_types: Any) -> None:
    out, _, _ = hostile
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", PACKAGE],
        cwd=out, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-5000:]


def test_thousands_of_definitions(base_schema: dict[str, Any], tmp_path: Path) -> None:
    schema = copy.deepcopy(base_schema)
    count = int(os.environ.get("MCPGEN_HOSTILE_DEFINITIONS", "1000"))
    # references point only backwards (to earlier definitions): forward chains this long exceed
    # pydantic's recursion limit when it completes the models on first use (see DEEP)
    for i in range(count):
        earlier = [{"$ref": f"#/$defs/Gen{i // 2}"}, {"$ref": f"#/$defs/Gen{i * 7 % i}"}] if i else []
        schema["$defs"][f"Gen{i}"] = {
            "type": "object",
            "description": f"generated {i}",
            "properties": {
                "a": {"type": "string"},
                "parent": earlier[0] if earlier else {"type": "null"},
                "u": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/ContentBlock"}, *earlier[1:]]},
            },
        }
    source = write(tmp_path / "big.json", schema)
    generate(GenerateConfig(revision="2099-01-01", schema_file=source, package="big_pkg", output=tmp_path / "big_pkg"))
    last, parent = f"Gen{count - 1}", f"Gen{(count - 1) // 2}"
    check = (
        "import big_pkg.types as t\n"
        f"assert len([n for n in t.__all__ if n.startswith('Gen')]) == {count}\n"
        f"v = t.{last}.model_validate({{'a': 'x', 'parent': {{'u': {{'type': 'text', 'text': 'hi'}}}}, 'u': 3}})\n"
        f"assert type(v.parent).__name__ == {parent!r} and v.parent.u.text == 'hi'\n"
    )
    proc = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("shape", ["objects", "arrays"])
def test_nesting_beyond_reason_is_a_schema_error(base_schema: dict[str, Any], tmp_path: Path, shape: str) -> None:
    schema = copy.deepcopy(base_schema)
    schema["$defs"]["TooDeep"] = "TOO_DEEP"
    opening = '{"type": "object", "properties": {"l": ' if shape == "objects" else '{"type": "array", "items": '
    closing = "}}" if shape == "objects" else "}"
    node = opening * 2000 + '{"type": "string"}' + closing * 2000
    source = tmp_path / "deep.json"
    source.write_text(json.dumps(schema).replace('"TOO_DEEP"', node), encoding="utf-8")
    with pytest.raises(SchemaError, match="nests too deeply"):
        generate(GenerateConfig(revision="2099-01-01", schema_file=source, output=tmp_path / "out"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.json"]
