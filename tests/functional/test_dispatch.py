"""Dispatched unions: object members that all require a literal `type` (or `resultType`, …) whose values
overlap are validated by the members that take the input's value, anything else by the whole union.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Union

import pydantic
import pytest

from .oracle import assert_agrees
from .packages import generate_package
from .schemas import Schema, const, mcp_schema, obj, ref, request, result

STRING = {"type": "string"}
INTEGER = {"type": "integer"}


def dispatch_schema() -> Schema:
    """`Item`: two members share `text`, one takes `int` and `float`; `Outcome`: tagged by `resultType`
    (Python name `result_type`), two members share `done`; both nested in a list and a map."""
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


def _outcome(adapter: pydantic.TypeAdapter[Any], value: Any, strict: bool) -> Any:
    try:
        got = adapter.validate_python(value, strict=strict)
    except pydantic.ValidationError:
        return "rejected"
    return (
        type(got).__name__,
        got.model_dump(by_alias=True, exclude_unset=True),
        got.model_fields_set,
    )


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


MEMBERS = {"Item": ("Text", "Note", "Num", "Flag"), "Outcome": ("Done", "Also", "Wait")}
"""Each dispatched union of the schema (`Outcome` on a key whose Python name differs) and its members."""


@pytest.mark.parametrize(
    ("union", "value"), [*(("Item", v) for v in ITEMS), *(("Outcome", v) for v in OUTCOMES)]
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_dispatched_union_picks_what_the_plain_union_picks(
    pkg: ModuleType, union: str, value: Any, strict: bool
) -> None:
    dispatched = pydantic.TypeAdapter(getattr(pkg.types, union))
    plain = _plain(pkg.types, *MEMBERS[union])
    assert _outcome(dispatched, value, strict) == _outcome(plain, value, strict)


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
