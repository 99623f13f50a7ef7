"""The schema reader reads what datamodel-code-generator's parser reads, or refuses and leaves it to the parser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgen.errors import SchemaError
from mcpgen.inputs.errata import corrected_extension, corrected_schema
from mcpgen.inputs.extensions import resolve_extension
from mcpgen.inputs.sources import resolve_schema
from mcpgen.model import reader
from mcpgen.model.definitions import build_definitions
from mcpgen.model.parser import ParsedSchema, _normalized, defs_key_of, parse, parsed_models
from shared import REVISIONS


def _by_parser(schema: dict[str, Any]) -> str:
    """The IR definitions (repr: 0 and 0.0 differ) built from datamodel-code-generator's models."""
    parsed = parse(schema)
    models = parsed_models(_normalized(schema))
    return repr(build_definitions(ParsedSchema(models, parsed.definitions, parsed.defs_key)))


def _by_reader(schema: dict[str, Any]) -> str | None:
    """The same from the reader's models, or None when the reader refuses the schema."""
    models = reader.read(_normalized(schema), defs_key_of(schema))
    if models is None:
        return None
    parsed = parse(schema)
    return repr(build_definitions(ParsedSchema(models, parsed.definitions, parsed.defs_key)))


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_reader_reads_every_revision_as_the_parser_does(schema_dir: Path, revision: str) -> None:
    schema = corrected_schema(resolve_schema(revision, schema_dir=schema_dir)).schema
    fast = _by_reader(schema)
    assert fast is not None, f"{revision}: the reader refuses it, so generating it imports the parser"
    assert fast == _by_parser(schema)


@pytest.mark.parametrize("name", ["tasks", "apps"])
def test_an_extension_is_read_as_the_parser_reads_it(schema_dir: Path, name: str) -> None:
    schema = dict(corrected_extension(resolve_extension(name, schema_dir=schema_dir)).schema)
    fast = _by_reader(schema)
    assert fast is None or fast == _by_parser(schema)


def test_generating_a_pinned_revision_does_not_import_the_parser(schema_dir: Path, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mcpgen.commands.generate import GenerateConfig, generate\n"
        f"generate(GenerateConfig(revision='2025-11-25', output=Path({str(tmp_path / 'out')!r}), "
        f"schema_dir=Path({str(schema_dir)!r}), cache_dir=Path({str(tmp_path / 'cache')!r})))\n"
        "print(sorted(m for m in sys.modules if m.startswith('datamodel_code_generator')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "out" / "types.py").is_file()


def test_a_keyword_outside_the_subset_goes_to_the_parser() -> None:
    schema = {"definitions": {"A": {"type": "object", "title": "An A", "properties": {"x": {"type": "string", "pattern": "^a"}}}}}
    assert reader.read(_normalized(schema), "definitions") is None
    (model,) = build_definitions(parse(schema))[0]
    assert [f.wire_name for f in model.fields] == ["x"]


def test_an_unresolved_reference_is_left_to_the_parser() -> None:
    schema = {"definitions": {"A": {"type": "object", "properties": {"x": {"$ref": "#/definitions/Missing"}}}}}
    assert reader.read(_normalized(schema), "definitions") is None
    assert repr(build_definitions(parse(schema))) == _by_parser(schema)


def test_the_renamed_attribute_list_covers_pydantic_s_model_attributes() -> None:
    from pydantic import BaseModel

    public = {n for n in dir(BaseModel) if not n.startswith("_") and not n.startswith("model_")}
    assert public <= reader._MODEL_NAMES


# --- schemas in (and a little beyond) the subset ------------------------------------------------

_NAMES = ["A", "B", "C"]
_PROPERTIES = st.sampled_from(["a", "b", "code", "data", "_meta", "class", "schema", "x-y", "model_x", "Camel", "None"])
_DESCRIPTION = st.one_of(st.none(), st.sampled_from(["d1", "d2"]))


def _described(node: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(node, _DESCRIPTION).map(lambda p: {**p[0], "description": p[1]} if p[1] else p[0])


_SCALAR = st.sampled_from(["string", "integer", "number", "boolean", "null"])
_BOUND = st.integers(-3, 3)
_LEAVES = _described(
    st.one_of(
        _SCALAR.map(lambda t: {"type": t}),
        st.lists(_SCALAR, min_size=2, max_size=3, unique=True).map(lambda ts: {"type": ts}),
        st.one_of(st.text("ab", min_size=1, max_size=2), st.integers(-2, 2)).map(lambda v: {"const": v}),
        st.lists(st.sampled_from(["x", "y", "z"]), min_size=1, max_size=3, unique=True).map(lambda v: {"type": "string", "enum": v}),
        st.sampled_from(_NAMES).map(lambda n: {"$ref": f"#/definitions/{n}"}),
        st.tuples(st.sampled_from(["integer", "number"]), _BOUND, st.sampled_from(["minimum", "maximum"])).map(
            lambda p: {"type": p[0], p[2]: p[1]}
        ),
        st.just({}),
        st.sampled_from([{"type": "string", "title": "T"}, {"type": "string", "default": "x"}, {"not": {}}]),
    )
)


def _composites(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return _described(
        st.one_of(
            _objects(inner),
            st.tuples(st.one_of(st.none(), inner), st.one_of(st.none(), st.integers(0, 3))).map(
                lambda p: {"type": "array", **({"items": p[0]} if p[0] is not None else {}), **({"maxItems": p[1]} if p[1] is not None else {})}
            ),
            st.lists(inner, min_size=2, max_size=3).map(lambda ms: {"anyOf": ms}),
            st.tuples(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=2, unique=True), st.one_of(st.none(), _objects(inner))).map(
                lambda p: {"allOf": [{"$ref": f"#/definitions/{n}"} for n in p[0]] + ([p[1]] if p[1] is not None else [])}
            ),
            st.one_of(st.booleans(), inner).map(lambda v: {"type": "object", "additionalProperties": v}),
        )
    )


def _objects(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(
        st.dictionaries(_PROPERTIES, inner, max_size=3),
        st.lists(_PROPERTIES, max_size=2, unique=True),
        st.one_of(st.none(), st.booleans(), st.just({}), inner),
    ).map(
        lambda p: {
            "type": "object",
            "properties": p[0],
            **({"required": [r for r in p[1] if r in p[0]]} if p[1] else {}),
            **({"additionalProperties": p[2]} if p[2] is not None else {}),
        }
    )


_NODES = st.recursive(_LEAVES, _composites, max_leaves=8)
_SCHEMAS = st.fixed_dictionaries({n: _NODES for n in _NAMES}).map(lambda defs: {"definitions": defs})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_SCHEMAS)
def test_what_the_reader_accepts_it_reads_as_the_parser_does(schema: dict[str, Any]) -> None:
    fast = _by_reader(schema)
    if fast is None:
        return
    try:
        slow = _by_parser(schema)
    except (SchemaError, RecursionError) as exc:
        raise AssertionError(f"the reader reads a schema the parser refuses ({exc}): {json.dumps(schema)}") from exc
    assert fast == slow, json.dumps(schema)
