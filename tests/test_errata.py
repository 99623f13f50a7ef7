"""Errata: they apply wherever their operations hold (the pinned schemas and drafts alike), all or
nothing, fail loudly once stale on the pinned bytes, and change what they claim."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonpointer
import pytest
from jsonschema.validators import validator_for

from mcpgen.inputs.errata import apply_errata, candidates, corrected_schema, load_errata, parse_errata
from mcpgen.errors import ErratumError
from mcpgen.inputs.pins import KNOWN_REVISIONS
from mcpgen.inputs.sources import resolve_schema

NEWEST = "2026-07-28"
Both = dict[str, tuple[dict[str, Any], dict[str, Any]]]


def _pinned(schema_dir: Path, revision: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((schema_dir / revision / "schema.json").read_bytes())
    return schema


def _defs(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["$defs"] if "$defs" in schema else schema["definitions"]


def _valid(schema: dict[str, Any], name: str, instance: Any) -> bool:
    key = "$defs" if "$defs" in schema else "definitions"
    root = {**schema, "$ref": f"#/{key}/{name}"}
    return bool(validator_for(schema)(root).is_valid(instance))


def _set(schema: dict[str, Any], path: str, value: Any) -> None:
    """Set the member a JSON pointer names (an upstream edit of a draft)."""
    jsonpointer.set_pointer(schema, path, value)


@pytest.fixture(scope="module")
def both(schema_dir: Path) -> Both:
    """Per revision: the pinned schema and its corrected copy."""
    out = {}
    for revision in KNOWN_REVISIONS:
        schema = _pinned(schema_dir, revision)
        out[revision] = (schema, apply_errata(schema, revision, pinned=True).schema)
    return out


@pytest.mark.parametrize("revision", KNOWN_REVISIONS)
def test_errata_apply_cleanly_to_the_pinned_schema(schema_dir: Path, revision: str) -> None:
    schema = _pinned(schema_dir, revision)
    pristine = copy.deepcopy(schema)
    fixed = apply_errata(schema, revision, pinned=True)
    assert [(e.revision, e.id) for e in fixed.applied] == [(revision, e.id) for e in load_errata(revision)]
    assert fixed.warnings == ()
    assert all(e.reason and e.upstream and e.definitions for e in fixed.errata)
    assert schema == pristine
    assert (fixed.schema != schema) == bool(fixed.applied)


def test_corrected_schema_of_a_resolved_source(schema_dir: Path) -> None:
    source = resolve_schema(NEWEST, schema_dir=schema_dir, env={})
    fixed = corrected_schema(source)
    assert source.pinned and fixed.applied
    assert fixed.schema == apply_errata(json.loads(source.data), NEWEST, pinned=True).schema


def test_errata_are_tried_own_revision_first_then_the_others_newest_first() -> None:
    order = list(dict.fromkeys(e.revision for e in candidates("2025-06-18")))
    assert order == ["2025-06-18", *[r for r in reversed(KNOWN_REVISIONS) if r != "2025-06-18"]]
    assert list(dict.fromkeys(e.revision for e in candidates("2099-01-01"))) == list(reversed(KNOWN_REVISIONS))


@pytest.mark.parametrize("name", ["2026-07-15", "draft", "2025-11-25"])
def test_the_pinned_bytes_under_another_revision_name_get_the_same_errata(schema_dir: Path, name: str) -> None:
    schema = _pinned(schema_dir, NEWEST)
    fixed = apply_errata(schema, name)
    expected = apply_errata(schema, NEWEST, pinned=True)
    assert fixed.schema == expected.schema
    assert [e.id for e in fixed.applied] == [e.id for e in expected.applied]
    if name == "2025-11-25":  # its own elicit-result-number variant holds; its request-params-meta does not
        assert fixed.applied[0].qualified_id == "2025-11-25/elicit-result-number"
        (warning,) = fixed.warnings
        assert warning.startswith(
            "erratum 2025-11-25/request-params-meta not applied (/$defs/CancelTaskRequest/properties/params/properties/_meta not found)"
        )
    else:
        assert fixed.warnings == () and {e.revision for e in fixed.applied} == {NEWEST}


def test_a_draft_fixed_upstream_gets_the_other_errata_and_a_warning(schema_dir: Path) -> None:
    draft = _pinned(schema_dir, NEWEST)
    _set(draft, "/$defs/JSONValue/anyOf/2/type", ["string", "number", "boolean", "null"])
    fixed = apply_errata(draft, NEWEST)
    assert [e.id for e in fixed.applied] == ["elicit-result-number", "input-required-result-type", "complete-result-type"]
    (warning,) = fixed.warnings
    assert warning == (
        "erratum 2026-07-28/json-value-number-null not applied (test failed at /$defs/JSONValue/anyOf/2/type): "
        "the schema differs where it corrects (upstream may have fixed it), so JSONValue stays as written"
    )
    assert _valid(fixed.schema, "JSONValue", 2.5) and _valid(fixed.schema, "JSONValue", None)
    assert apply_errata(draft, "draft").warnings == ()  # no errata of its own: the others are tried silently


def test_a_draft_without_what_an_erratum_corrects_gets_no_warning_of_it(schema_dir: Path) -> None:
    """A draft from before a definition or field existed has nothing to correct: no erratum about it
    applies and none warns, while one whose place exists but differs still warns."""
    draft = _pinned(schema_dir, NEWEST)
    del _defs(draft)["InputRequiredResult"]
    del _defs(draft)["JSONValue"]["anyOf"][2]["type"]
    _set(draft, "/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type", ["string", "number"])
    fixed = apply_errata(draft, NEWEST)
    assert [e.id for e in fixed.applied] == ["complete-result-type"]
    (warning,) = fixed.warnings
    assert warning.startswith("erratum 2026-07-28/elicit-result-number not applied (test failed at /$defs/ElicitResult/")


def test_an_erratum_that_does_not_hold_everywhere_changes_nothing(schema_dir: Path) -> None:
    draft = _pinned(schema_dir, NEWEST)
    _set(draft, "/$defs/ListToolsResult/properties/resultType", {"const": "complete", "type": "string"})
    fixed = apply_errata(draft, NEWEST)
    assert "complete-result-type" not in [e.id for e in fixed.applied]
    assert "not applied (/$defs/ListToolsResult/properties/resultType/const already exists)" in fixed.warnings[0]
    assert "so CallToolResult, CompleteResult, DiscoverResult and 7 more stay as written" in fixed.warnings[0]
    for name in ("CallToolResult", "CompleteResult", "SubscriptionsListenResult"):  # tests before and after it held
        assert _defs(fixed.schema)[name]["properties"]["resultType"] == _defs(draft)[name]["properties"]["resultType"]
    assert _valid(fixed.schema, "CallToolResult", {"resultType": "input_required", "content": []})


def test_a_failing_test_op_on_the_pinned_bytes_names_the_erratum_and_path(schema_dir: Path) -> None:
    schema = _pinned(schema_dir, "2025-06-18")
    erratum = next(e for e in load_errata("2025-06-18") if e.patch[0]["op"] == "test")
    guard = erratum.patch[0]
    _set(schema, guard["path"], "upstream fixed this")
    with pytest.raises(ErratumError) as info:
        apply_errata(schema, "2025-06-18", pinned=True)
    message = str(info.value)
    assert f"2025-06-18/{erratum.id}" in message and guard["path"] in message and "retire" in message
    assert f"2025-06-18/{erratum.id} not applied" in apply_errata(schema, "2025-06-18").warnings[0]


def test_an_add_over_an_existing_member_is_stale(schema_dir: Path) -> None:
    schema = _pinned(schema_dir, "2024-11-05")
    erratum = next(e for e in load_errata("2024-11-05") if e.patch[0]["op"] in ("add", "copy"))
    path = erratum.patch[0]["path"]
    _set(schema, path, {"type": "object"})
    with pytest.raises(ErratumError, match=f"2024-11-05/{erratum.id} no longer applies \\({path} already exists\\)"):
        apply_errata(schema, "2024-11-05", pinned=True)
    # the 2025-03-26 variant is the same patch and fails alike: the named one is reported once
    (warning,) = apply_errata(schema, "2024-11-05").warnings
    assert warning.startswith(f"erratum 2024-11-05/{erratum.id} not applied ({path} already exists)")


def test_unguarded_replace_is_refused() -> None:
    entry = {"id": "x", "reason": "r", "upstream": "u", "patch": [{"op": "replace", "path": "/a", "value": 1}]}
    with pytest.raises(ErratumError, match="must directly follow a test"):
        parse_errata("2025-06-18", [entry], "inline")


@pytest.mark.parametrize("revision", [r for r in KNOWN_REVISIONS if r >= "2025-06-18"])
def test_elicit_result_accepts_fractional_numbers(both: Both, revision: str) -> None:
    before, after = both[revision]
    value = {"action": "accept", "content": {"ratio": 2.5, "count": 3, "name": "x", "ok": True}}
    assert not _valid(before, "ElicitResult", value)
    assert _valid(after, "ElicitResult", value)
    assert not _valid(after, "ElicitResult", {"action": "accept", "content": {"x": None}})


def test_json_value_accepts_numbers_and_null(both: Both) -> None:
    before, after = both[NEWEST]
    for value in (2.5, None, {"a": [1.5, None, {"b": None}]}):
        assert not _valid(before, "JSONValue", value)
        assert _valid(after, "JSONValue", value)
    capabilities = {"experimental": {"x": {"ratio": 0.5, "unset": None}}}
    assert not _valid(before, "ClientCapabilities", capabilities)
    assert _valid(after, "ClientCapabilities", capabilities)


def test_result_types_make_result_unions_unambiguous(schema_dir: Path, both: Both) -> None:
    before, after = both[NEWEST]
    defs = _defs(after)
    ambiguous_before = 0
    checked = 0
    for folder in sorted((schema_dir / NEWEST / "examples").iterdir()):
        members = defs.get(folder.name, {}).get("properties", {}).get("result", {}).get("anyOf", [])
        names = [m["$ref"].rsplit("/", 1)[-1] for m in members if "$ref" in m]
        if "InputRequiredResult" not in names:
            continue
        for path in sorted(folder.glob("*.json")):
            result = json.loads(path.read_text())["result"]
            checked += 1
            ambiguous_before += sum(_valid(before, n, result) for n in names) > 1
            assert sum(_valid(after, n, result) for n in names) <= 1, path.name
    assert checked and ambiguous_before
    assert not _valid(after, "InputRequiredResult", {"resultType": "complete", "requestState": "s"})
    assert _valid(after, "InputRequiredResult", {"resultType": "input_required", "requestState": "s"})
    assert not _valid(after, "CallToolResult", {"resultType": "input_required", "content": []})
    assert _valid(after, "Result", {"resultType": "input_required"})


def test_errata_keep_the_2026_examples_valid(schema_dir: Path, both: Both) -> None:
    before, after = both[NEWEST]
    validated = 0
    for folder in sorted((schema_dir / NEWEST / "examples").iterdir()):
        for path in sorted(folder.glob("*.json")):
            instance = json.loads(path.read_text())
            if not _valid(before, folder.name, instance):
                continue
            validated += 1
            if _valid(after, folder.name, instance):
                continue
            result = instance.get("result", {})
            complete = [
                m["$ref"].rsplit("/", 1)[-1]
                for m in _defs(before)[folder.name]["properties"]["result"]["anyOf"]
                if not m["$ref"].endswith("/InputRequiredResult")
            ]
            assert result.get("resultType") == "complete", path.name
            assert not any(_valid(before, n, result) for n in complete), path.name
    assert validated


@pytest.mark.parametrize(
    ("revision", "base_params", "method", "definition"),
    [
        ("2024-11-05", ("Request", "properties", "params"), "tools/call", "CallToolRequest"),
        ("2025-03-26", ("Request", "properties", "params"), "tools/call", "CallToolRequest"),
        ("2025-06-18", ("Request", "properties", "params"), "tools/call", "CallToolRequest"),
        ("2025-11-25", ("RequestParams",), "tasks/get", "GetTaskRequest"),
    ],
)
def test_every_request_declares_meta(
    both: Both, revision: str, base_params: tuple[str, ...], method: str, definition: str
) -> None:
    before, after = both[revision]
    node = _defs(before)
    for key in base_params:
        node = node[key]
    base = node["properties"]["_meta"]
    inline = [
        name
        for name, d in _defs(after).items()
        if name.endswith("Request") and "properties" in d.get("properties", {}).get("params", {})
    ]
    assert inline
    for name in inline:
        assert _defs(after)[name]["properties"]["params"]["properties"]["_meta"] == base, name
    params = {"name": "t", "taskId": "t"}
    envelope = {"jsonrpc": "2.0", "id": 1, "method": method}
    bad_token = {**envelope, "params": {**params, "_meta": {"progressToken": {"no": 1}}}}
    good_token = {**envelope, "params": {**params, "_meta": {"progressToken": "abc"}}}
    assert _valid(before, definition, bad_token)
    assert not _valid(after, definition, bad_token)
    assert _valid(after, definition, good_token)


def test_generation_applies_the_errata_that_hold_under_any_revision_name(tmp_path: Path, schema_dir: Path) -> None:
    from click.testing import CliRunner

    from mcpgen.cli import main

    def generate(schema: Path, revision: str, out: Path) -> tuple[str, list[str]]:
        done = CliRunner().invoke(main, ["generate", "--schema", str(schema), "--revision", revision, "-o", str(out),
                                         "--force"])
        assert done.exit_code == 0, done.stderr
        header = (out / "__init__.py").read_text("utf-8")
        applied = next(line for line in header.splitlines() if line.startswith("# Errata applied: "))
        return applied, [line for line in done.stderr.splitlines() if line.startswith("mcpgen: warning: ")]

    copy_of_pin = tmp_path / "pinned.json"
    copy_of_pin.write_bytes((schema_dir / NEWEST / "schema.json").read_bytes())
    all_four = "# Errata applied: elicit-result-number, json-value-number-null, input-required-result-type, complete-result-type"
    assert generate(copy_of_pin, "2026-07-15", tmp_path / "mcp_renamed") == (all_four, [])

    draft = _pinned(schema_dir, NEWEST)
    _set(draft, "/$defs/JSONValue/anyOf/2/type", ["string", "number", "boolean", "null"])
    fixed = tmp_path / "draft.json"
    fixed.write_text(json.dumps(draft), "utf-8")
    expected = (
        "# Errata applied: elicit-result-number, input-required-result-type, complete-result-type",
        [f"mcpgen: warning: revision {NEWEST}: erratum {NEWEST}/json-value-number-null not applied "
         "(test failed at /$defs/JSONValue/anyOf/2/type): the schema differs where it corrects "
         "(upstream may have fixed it), so JSONValue stays as written"],
    )
    assert generate(fixed, NEWEST, tmp_path / "mcp_draft") == expected
    assert generate(fixed, NEWEST, tmp_path / "mcp_draft") == expected  # from the package cache, warning included
