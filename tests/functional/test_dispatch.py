"""Dispatched unions: object members that all require a literal `type` (or `resultType`, …) whose values
overlap are validated by the members that take the input's value, anything else by the whole union.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Union, get_args, get_origin

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from .oracle import assert_agrees
from .outcomes import outcome
from .packages import generate_package
from .schemas import Schema, const, mcp_schema, obj, ref, request, result

STRING = {"type": "string"}
INTEGER = {"type": "integer"}


def dispatch_schema() -> Schema:
    """`Item`: two members share `text`, one takes `int` and `float`; `Outcome`: tagged by `resultType`
    (Python name `result_type`), two members share `done`; both nested in a list and a map. `Shape`:
    three members share `round`, two of them each requiring one more key (`blobSize`: Python name
    `blob_size`), one requiring none."""
    return mcp_schema(
        {
            "Text": obj({"type": const("text"), "text": STRING}, ["type", "text"]),
            "Note": obj({"type": const("text"), "note": STRING, "size": INTEGER}, ["type", "note"]),
            "Num": obj(
                {"type": {"type": "string", "enum": ["int", "float"]}, "value": {"type": "number"}},
                ["type"],
            ),
            "Flag": obj({"type": const("flag"), "on": {"type": "boolean"}}, ["type"]),
            "Item": {"anyOf": [ref("Text"), ref("Note"), ref("Num"), ref("Flag")]},
            "Done": obj({"resultType": const("done"), "x": INTEGER}, ["resultType", "x"]),
            "Also": obj({"resultType": const("done"), "y": INTEGER}, ["resultType", "y"]),
            "Wait": obj({"resultType": const("wait")}, ["resultType"]),
            "Outcome": {"anyOf": [ref("Done"), ref("Also"), ref("Wait")]},
            "Round": obj({"kind": const("round"), "radius": INTEGER}, ["kind", "radius"]),
            "Blob": obj({"kind": const("round"), "blobSize": INTEGER}, ["kind", "blobSize"]),
            "Dot": obj({"kind": const("round"), "radius": STRING}, ["kind"]),
            "Square": obj({"kind": const("square")}, ["kind"]),
            "Shape": {"anyOf": [ref("Round"), ref("Blob"), ref("Dot"), ref("Square")]},
            "Holder": obj(
                {
                    "items": {"type": "array", "items": ref("Item")},
                    "byName": {"type": "object", "additionalProperties": ref("Outcome")},
                }
            ),
            "ComputeRequest": request("compute", obj({"x": INTEGER}, ["x"])),
            "ComputeResultResponse": obj(
                {
                    "jsonrpc": const("2.0"),
                    "id": ref("RequestId"),
                    "result": {"anyOf": [ref("Done"), ref("Also"), ref("Wait")]},
                },
                ["jsonrpc", "id", "result"],
            ),
            "PingRequest": request("ping"),
            "PingResult": result(),
        },
        client_requests=["PingRequest", "ComputeRequest"],
    )


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return generate_package(tmp_path_factory.mktemp("dispatch"), dispatch_schema(), "dispatch_pkg")


def _plain(types: ModuleType, *names: str) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(Union[tuple(getattr(types, n) for n in names)])  # type: ignore[arg-type]


def _errors(adapter: pydantic.TypeAdapter[Any], value: Any) -> list[tuple[Any, ...]]:
    with pytest.raises(pydantic.ValidationError) as caught:
        adapter.validate_python(value)
    return [tuple(e["loc"]) for e in caught.value.errors()]


ITEMS: list[Any] = [
    {"type": "text", "text": "a"},
    {"type": "text", "note": "n", "size": 2},
    {"type": "text", "text": "a", "note": "n"},
    {"type": "text", "note": "n", "size": "2"},
    {"type": "int", "value": 1},
    {"type": "float", "value": 1.5},
    {"type": "flag", "on": True},
    {"type": "flag", "value": 1},
    {"type": "text"},
    {"type": "video"},
    {"type": 3},
    {"text": "untagged"},
    "text",
    None,
]
OUTCOMES: list[Any] = [
    {"resultType": "done", "x": 1},
    {"resultType": "done", "y": 2},
    {"resultType": "done", "x": 1, "y": 2},
    {"resultType": "wait"},
    {"resultType": "done"},
    {"result_type": "done", "x": 1},
    {"result_type": "wait", "resultType": "done", "y": 1},
    {"resultType": "wait", "result_type": "done", "x": 1},
    {"result_type": "nope"},
]


SHAPES: list[Any] = [
    {"kind": "round", "radius": 2},
    {"kind": "round", "radius": "2"},
    {"kind": "round", "radius": "r"},
    {"kind": "round", "blobSize": 3},
    {"kind": "round", "blob_size": 3},
    {"kind": "round", "blob_size": "3", "radius": 1},
    {"kind": "round", "blobSize": 3, "radius": "r"},
    {"kind": "round", "blobSize": "x", "radius": "x"},
    {"kind": "round", "blobSize": "x"},
    {"kind": "round"},
    {"kind": "round", "radius": None},
    {"kind": "square", "radius": 1},
]
MEMBERS = {
    "Item": ("Text", "Note", "Num", "Flag"),
    "Outcome": ("Done", "Also", "Wait"),
    "Shape": ("Round", "Blob", "Dot", "Square"),
}
"""Each dispatched union of the schema (`Outcome` on a key whose Python name differs) and its members."""


@pytest.mark.parametrize(
    ("union", "value"),
    [
        *(("Item", v) for v in ITEMS),
        *(("Outcome", v) for v in OUTCOMES),
        *(("Shape", v) for v in SHAPES),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_dispatched_union_picks_what_the_plain_union_picks(
    pkg: ModuleType, union: str, value: Any, strict: bool
) -> None:
    dispatched = pydantic.TypeAdapter(getattr(pkg.types, union))
    plain = _plain(pkg.types, *MEMBERS[union])
    assert outcome(dispatched, value, strict, False) == outcome(plain, value, strict, False)


def _wire(value: Any) -> bool:
    """A sample the schema can judge: no Python name for a key, no string lax mode reads as a number."""
    return not (isinstance(value, dict) and ("result_type" in value or value.get("size") == "2"))


@pytest.mark.parametrize(
    ("definition", "value"),
    [*(("Item", v) for v in ITEMS if _wire(v)), *(("Outcome", v) for v in OUTCOMES if _wire(v))],
)
def test_a_dispatched_union_accepts_what_the_schema_accepts(
    pkg: ModuleType, definition: str, value: Any
) -> None:
    assert_agrees(pkg.types, dispatch_schema(), definition, value)


def test_only_the_members_that_take_the_tag_are_tried(pkg: ModuleType) -> None:
    item = pydantic.TypeAdapter(pkg.types.Item)
    assert {loc[:2] for loc in _errors(item, {"type": "text"})} == {
        ("text", "Text"),
        ("text", "Note"),
    }
    assert {loc[:1] for loc in _errors(item, {"type": "int", "value": "x"})} == {("int",)}
    outcome = pydantic.TypeAdapter(pkg.types.Outcome)
    assert {loc[:2] for loc in _errors(outcome, {"resultType": "done"})} == {
        ("done", "Done"),
        ("done", "Also"),
    }


def test_the_keys_a_member_requires_leave_it_out_when_absent(pkg: ModuleType) -> None:
    shape = pydantic.TypeAdapter(pkg.types.Shape)
    # No `blobSize` under either name: `Blob` cannot accept it and is not tried.
    assert {loc[0] for loc in _errors(shape, {"kind": "round", "radius": 1.5})} == {
        "round:Round|Dot"
    }
    tag = get_args(pkg.types.Shape)[1].discriminator
    assert [tag({"kind": "round", k: 1}) for k in ("blobSize", "blob_size", "radius", "x")] == [
        "round:Blob|Dot",
        "round:Blob|Dot",
        "round:Round|Dot",
        "round:Dot",
    ]
    # Both keys: every member of the value, under its own tag.
    assert {loc[:2] for loc in _errors(shape, {"kind": "round", "radius": [], "blobSize": []})} == {
        ("round", "Round"),
        ("round", "Blob"),
        ("round", "Dot"),
    }
    item = pydantic.TypeAdapter(pkg.types.Item)
    # No member of the value left by the keys: the value's members all report.
    assert {loc[:2] for loc in _errors(item, {"type": "text", "size": 1})} == {
        ("text", "Text"),
        ("text", "Note"),
    }


KEYS = st.sampled_from(["radius", "blobSize", "blob_size", "text", "note", "size", "x", "y"])
FILLS = st.one_of(
    st.integers(-2, 2), st.just("2"), st.just("r"), st.just(2.0), st.none(), st.just([])
)
SHAPED = st.tuples(
    st.sampled_from(["round", "square", "text", "done", "int", "flag", "other"]),
    st.sampled_from(["kind", "type", "resultType", "result_type"]),
    st.dictionaries(KEYS, FILLS, max_size=4),
).map(lambda parts: {parts[1]: parts[0], **parts[2]})


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=SHAPED,
    strict=st.booleans(),
    as_json=st.booleans(),
    union=st.sampled_from(sorted(MEMBERS)),
)
def test_a_narrowed_dispatch_answers_as_the_plain_union(
    pkg: ModuleType, value: Any, strict: bool, as_json: bool, union: str
) -> None:
    """Alone, in a list, and inside a smart union with another model (whose pick reads the fields set)."""
    dispatched = getattr(pkg.types, union)
    plain: Any = Union[tuple(getattr(pkg.types, n) for n in MEMBERS[union])]  # type: ignore[arg-type]
    for shape in (lambda t: t, lambda t: list[t], lambda t: Union[t, pkg.types.Flag]):  # type: ignore[valid-type]
        mine = _adapter(shape(dispatched))
        theirs = _adapter(shape(plain))
        given = [value] if get_origin(shape(plain)) is list else value
        assert outcome(mine, given, strict, as_json) == outcome(theirs, given, strict, as_json)


_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}


def _adapter(shape: Any) -> pydantic.TypeAdapter[Any]:
    found = _ADAPTERS.get(repr(shape))
    if found is None:
        found = _ADAPTERS[repr(shape)] = pydantic.TypeAdapter(shape)
    return found


def test_anything_else_goes_to_every_member(pkg: ModuleType) -> None:
    item = pydantic.TypeAdapter(pkg.types.Item)
    every = {("*", "Text"), ("*", "Note"), ("*", "Num"), ("*", "Flag")}
    for value in ({"type": "video"}, {"text": "untagged"}, {"type": 3}):
        assert {loc[:2] for loc in _errors(item, value)} == every
    outcome = pydantic.TypeAdapter(pkg.types.Outcome)
    assert {loc[0] for loc in _errors(outcome, {"result_type": "nope"})} == {"*"}
    # Both names given: the wire name wins in every member, and the whole union decides.
    assert {loc[0] for loc in _errors(outcome, {"resultType": "done", "result_type": "wait"})} == {
        "*"
    }


def test_a_dispatch_holds_in_lists_and_maps_and_dumps_unchanged(pkg: ModuleType) -> None:
    wire = {
        "items": [{"type": "text", "note": "n"}, {"type": "float", "value": 2.5}, {"type": "flag"}],
        "byName": {"a": {"resultType": "done", "y": 1}, "b": {"resultType": "wait"}},
    }
    holder = pkg.types.Holder.model_validate_json(json.dumps(wire))
    assert [type(i).__name__ for i in holder.items] == ["Note", "Num", "Flag"]
    assert {k: type(v).__name__ for k, v in holder.by_name.items()} == {"a": "Also", "b": "Wait"}
    assert holder.model_dump(by_alias=True, exclude_unset=True) == wire


def test_type_checkers_see_the_union_of_the_members(pkg: ModuleType, tmp_path: Path) -> None:
    root = Path(str(pkg.__file__)).parent.parent
    (tmp_path / "use_dispatch.py").write_text(
        "from dispatch_pkg import types\n\n\n"
        "def use(item: types.Item, outcome: types.Outcome) -> None:\n"
        "    reveal_type(item)\n"
        "    reveal_type(outcome)\n"
        "    wrong: types.Outcome = types.Text(text='t')\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null"]
        + ["dispatch_pkg", str(tmp_path / "use_dispatch.py")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={"MYPYPATH": str(root), "PATH": "/usr/bin:/bin"},
    )
    lines = [
        line.split(": ", 1)[1] for line in run.stdout.splitlines() if "use_dispatch.py" in line
    ]
    assert len(lines) == 3 and lines[2].startswith(
        "error: Incompatible types in assignment"
    ), run.stdout
    revealed = [
        set(line.split('"')[1].replace("dispatch_pkg.types.", "").split(" | "))
        for line in lines[:2]
    ]
    assert revealed == [{"Text", "Note", "Num", "Flag"}, {"Done", "Also", "Wait"}], run.stdout


def test_a_result_that_is_such_a_union_is_read_by_its_members(pkg: ModuleType) -> None:
    assert type(pkg.parse_result("compute", {"resultType": "done", "y": 1})) is pkg.types.Also
    assert type(pkg.parse_result("compute", {"result_type": "wait"})) is pkg.types.Wait
    with pytest.raises(pkg.ProtocolError):
        pkg.parse_result("compute", {"resultType": "done"})
