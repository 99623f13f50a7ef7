"""Objects: open ones keep unknown keys, closed ones refuse them, typed extras, required fields, allOf, docs."""

from __future__ import annotations

import ast
import inspect
from types import ModuleType
from typing import Any

import pytest
from pydantic import ValidationError

from .oracle import accepts, assert_agrees, text
from .packages import generate_package
from .schemas import Schema, mcp_schema, obj, ref, request, result

DOC = 'Say """hi""" with a \\ backslash,\n\ta tab and a closing quote"'
FIELD_DOC = "The name, as 'shown'. See [the spec](/specification/2025-11-25/basic/index#meta) or [x](https://e.org/a)."
FIELD_DOC_KEPT = (
    "The name, as 'shown'. See [the spec](https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta)"
    " or [x](https://e.org/a)."
)


def object_schema() -> Schema:
    """Open, closed, typed-extra and map objects, inheritance by allOf, nesting, descriptions."""
    return mcp_schema(
        {
            "Open": obj({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"]),
            "Closed": obj({"a": {"type": "string"}}, ["a"], additionalProperties=False),
            "Typed": obj({"a": {"type": "string"}}, additionalProperties={"type": "integer"}),
            "Map": {"type": "object", "additionalProperties": {"type": "string"}},
            "Empty": {"type": "object"},
            "Base": obj({"id": {"type": "string"}, "kind": {"type": "string"}}, ["id"]),
            "Derived": {"allOf": [ref("Base"), obj({"size": {"type": "integer"}}, ["size"])]},
            "Outer": obj(
                {"inner": obj({"deep": obj({"x": {"type": "integer"}}, ["x"])}, ["deep"])},
                ["inner"],
            ),
            "Holder": obj(
                {
                    "closed": obj({"x": {"type": "integer"}}, additionalProperties=False),
                    "items": {"type": "array", "items": ref("Open")},
                }
            ),
            "Described": obj(
                {"name": {"type": "string", "description": FIELD_DOC}}, description=DOC
            ),
            "Nullable": obj({"note": {"type": ["string", "null"]}, "data": {}}),
            "GetRequest": request("get"),
            "GetResult": result({"open": ref("Open")}),
        },
        client_requests=["GetRequest"],
    )


SAMPLES: list[tuple[str, Any]] = [
    ("Open", {"a": "x"}),
    ("Open", {"a": "x", "b": 2, "unknown": {"nested": [1, 2.5, None]}, "_private": True}),
    ("Open", {"b": 2}),
    ("Open", {"a": 1}),
    ("Closed", {"a": "x"}),
    ("Closed", {"a": "x", "extra": 1}),
    ("Closed", {"a": "x", "extra": None}),
    ("Typed", {"a": "x", "n": 1, "m": 2}),
    ("Typed", {"a": "x", "n": "one"}),
    ("Map", {"k": "v", "l": "w"}),
    ("Map", {"k": 1}),
    ("Empty", {"anything": [1, {"goes": True}]}),
    ("Derived", {"id": "i", "kind": "k", "size": 3, "more": "kept"}),
    ("Derived", {"id": "i"}),
    ("Derived", {"size": 3}),
    ("Outer", {"inner": {"deep": {"x": 1, "y": "kept"}, "z": [1]}, "w": {}}),
    ("Outer", {"inner": {"deep": {"x": "one"}}}),
    ("Outer", {"inner": {}}),
    ("Holder", {"closed": {"x": 1}, "items": [{"a": "x", "extra": 1}]}),
    ("Holder", {"closed": {"x": 1, "y": 2}}),
    ("Holder", {"items": [{"b": 1}]}),
    ("Open", {"a": "x", "b": None}),
    ("Holder", {"closed": None}),
    ("Derived", {"id": "i", "size": 3, "kind": None}),
    ("Nullable", {"note": None, "data": None}),
    ("Nullable", {"note": "n"}),
]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated package of the object schema."""
    return generate_package(tmp_path_factory.mktemp("objects"), object_schema(), "fn_objects")


@pytest.mark.parametrize(
    ("definition", "instance"), SAMPLES, ids=lambda v: v if isinstance(v, str) else text(v)
)
def test_objects_accept_exactly_what_the_schema_accepts_and_keep_every_key(
    pkg: ModuleType, definition: str, instance: Any
) -> None:
    assert_agrees(pkg.types, object_schema(), definition, instance)


def test_unknown_keys_are_kept_as_extras_not_fields(pkg: ModuleType) -> None:
    model = pkg.types.Open.model_validate({"a": "x", "later": [1]})
    assert model.model_extra == {"later": [1]}
    assert pkg.types.Typed.model_validate({"n": 1}).model_extra == {"n": 1}


def test_inherited_fields_are_declared_on_the_derived_model(pkg: ModuleType) -> None:
    derived = pkg.types.Derived.model_validate({"id": "i", "size": 3})
    assert (derived.id, derived.size, derived.model_extra) == ("i", 3, {})


def test_descriptions_become_docstrings(pkg: ModuleType) -> None:
    described = pkg.types.Described
    assert inspect.cleandoc(described.__doc__).rstrip() == inspect.cleandoc(DOC)
    body = ast.parse(inspect.getsource(described)).body[0]
    assert isinstance(body, ast.ClassDef)
    field = next(i for i, node in enumerate(body.body) if isinstance(node, ast.AnnAssign))
    doc = body.body[field + 1]
    assert (
        isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
        and doc.value.value
        == FIELD_DOC_KEPT  # links to the spec's site made absolute: an IDE opens them
    )


def test_none_given_to_a_constructor_means_absent_and_never_reaches_the_wire(
    pkg: ModuleType,
) -> None:
    value = pkg.types.Open(a="x", b=None)
    assert value.b is None and "b" not in value.model_fields_set
    assert value.model_dump(by_alias=True, exclude_unset=True) == {"a": "x"}
    outer = pkg.types.Holder(closed=None, items=[pkg.types.Open(a="y", b=None)])
    assert outer.model_dump(mode="json", by_alias=True, exclude_unset=True) == {
        "items": [{"a": "y"}]
    }


def test_a_field_whose_schema_admits_null_keeps_an_explicit_null(pkg: ModuleType) -> None:
    value = pkg.types.Nullable(note=None, data=None)
    dumped = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert dumped == {"note": None, "data": None}
    assert accepts(object_schema(), "Nullable", dumped)


@pytest.mark.parametrize(
    ("definition", "instance"),
    [s for s in SAMPLES if s[0] not in ("Map", "Empty") and None not in s[1].values()],
    ids=lambda v: v if isinstance(v, str) else text(v),
)
def test_a_constructor_builds_what_validating_its_keywords_builds(
    pkg: ModuleType, definition: str, instance: Any
) -> None:
    model = getattr(pkg.types, definition)
    try:
        validated = model.model_validate(instance)
    except ValidationError as refused:
        with pytest.raises(ValidationError) as built:
            model(**instance)
        assert built.value.errors() == refused.errors()
        return
    made = model(**instance)
    assert made.model_dump(mode="json", by_alias=True, exclude_unset=True) == instance
    assert made == validated and made.model_fields_set == validated.model_fields_set
