"""`mcpgen diff` on small hand-written schema pairs: one test group per class of issue 15.

Every expected verdict is first confirmed by jsonschema on a concrete instance (`accepts`), so the
oracle is the schemas themselves, not the module under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from diff_worlds import Schema, accepts, obj, ref, request, world
from mcpgen.commands.diff import diff_revisions, revision_of
from mcpgen.commands.diff.command import diff_command
from mcpgen.commands.diff.model import Change, Report


def diff(old: Schema, new: Schema) -> Report:
    return diff_revisions(revision_of(old, "old"), revision_of(new, "new"))


def real(report: Report) -> list[Change]:
    return [c for c in report.changes if not c.cosmetic]


def only(report: Report) -> Change:
    changes = real(report)
    assert len(changes) == 1, [(c.kind, c.subject, c.detail) for c in changes]
    return changes[0]


def impact(c: Change) -> tuple[str, str]:
    return c.client, c.server


def places(c: Change) -> set[str]:
    return {c.subject, *getattr(c, "where", ())}


def values_result(**array: Any) -> dict[str, Any]:
    return obj({"values": {"type": "array", "items": {"type": "string"}, **array}}, ("values",))


# 1. constraint keywords ------------------------------------------------------------------------


def test_max_items_added_to_a_result_narrows_it_and_breaks_the_server_that_writes_it() -> None:
    old, new = world(call_result=values_result()), world(call_result=values_result(maxItems=100))
    instance = {"values": ["v"] * 101}
    assert accepts(old, "CallResult", instance) and not accepts(new, "CallResult", instance)
    c = only(diff(old, new))
    assert c.subject == "CallResult.values" and "maxItems" in c.detail
    assert c.kind == "constraint.narrowed"
    assert impact(c) == ("compatible", "breaking")


def test_max_items_dropped_widens_and_breaks_the_client_that_reads_it() -> None:
    old, new = world(call_result=values_result(maxItems=3)), world(call_result=values_result())
    assert accepts(new, "CallResult", {"values": ["a"] * 4}) and not accepts(old, "CallResult", {"values": ["a"] * 4})
    c = only(diff(old, new))
    assert c.kind == "constraint.widened"
    assert impact(c) == ("breaking", "compatible")


def test_hand_edited_maximum_min_length_and_format_are_reported_with_their_direction() -> None:
    def params(**limits: Any) -> dict[str, Any]:
        return obj({"count": {"type": "integer", **limits.get("count", {})},
                    "name": {"type": "string", **limits.get("name", {})},
                    "uri": {"type": "string", **limits.get("uri", {})}}, ("count", "name", "uri"))

    old = world(call_params=params())
    new = world(call_params=params(count={"maximum": 10}, name={"minLength": 2}, uri={"format": "uri"}))
    sent = {"count": 11, "name": "a", "uri": "x"}
    assert accepts(old, "CallParams", sent)
    for probe in ({**sent, "name": "ab", "uri": "x"}, {**sent, "count": 1, "uri": "x"}):
        assert not accepts(new, "CallParams", probe)
    report = diff(old, new)
    by_subject = {c.subject: c for c in real(report)}
    assert set(by_subject) == {"CallParams.count", "CallParams.name", "CallParams.uri"}
    for c in by_subject.values():
        assert c.kind == "constraint.narrowed"
        assert impact(c) == ("breaking", "compatible")  # the client writes CallParams
    assert "maximum" in by_subject["CallParams.count"].detail
    assert "minLength" in by_subject["CallParams.name"].detail
    assert "format" in by_subject["CallParams.uri"].detail


# 2. equivalent types ----------------------------------------------------------------------------

JSON_VALUE = {"anyOf": [ref("JSONObject"), {"type": "array", "items": ref("JSONValue")},
                        {"type": ["string", "number", "boolean", "null"]}]}
JSON_OBJECT = {"type": "object", "additionalProperties": ref("JSONValue")}


def _capability_world(form: dict[str, Any], value: dict[str, Any] = JSON_VALUE) -> Schema:
    params = obj({"name": {"type": "string"}, "form": form}, ("name",))
    return world(call_params=params, extra={"JSONObject": JSON_OBJECT, "JSONValue": value})


def test_object_with_any_keys_and_a_named_json_object_accept_the_same_values() -> None:
    old = _capability_world({"type": "object", "additionalProperties": True, "properties": {}})
    new = _capability_world(ref("JSONObject"))
    for instance in ({"name": "n", "form": {"a": [1, 2.5, None, {"b": "c"}]}}, {"name": "n", "form": 3}):
        assert accepts(old, "CallParams", instance) == accepts(new, "CallParams", instance)
    report = diff(old, new)
    assert [c for c in real(report) if c.subject.startswith("CallParams")] == []


def test_a_json_object_that_rejects_null_values_is_still_a_narrowing() -> None:
    no_null = {"anyOf": [ref("JSONObject"), {"type": "array", "items": ref("JSONValue")}, {"type": ["string", "number", "boolean"]}]}
    old = _capability_world({"type": "object", "additionalProperties": True, "properties": {}})
    new = _capability_world(ref("JSONObject"), value=no_null)
    instance = {"name": "n", "form": {"a": None}}
    assert accepts(old, "CallParams", instance) and not accepts(new, "CallParams", instance)
    c = next(c for c in real(diff(old, new)) if c.subject == "CallParams.form")
    assert c.kind == "type.narrowed"
    assert impact(c) == ("breaking", "compatible")


# 3. union rewrites ------------------------------------------------------------------------------

ENUM = obj({"type": {"const": "string", "type": "string"}, "enum": {"type": "array", "items": {"type": "string"}},
            "enumNames": {"type": "array", "items": {"type": "string"}}}, ("type", "enum"))
UNTITLED = obj({"type": {"const": "string", "type": "string"}, "enum": {"type": "array", "items": {"type": "string"}}},
               ("type", "enum"))
TITLED = obj({"type": {"const": "string", "type": "string"},
              "oneOf": {"type": "array", "items": obj({"const": {"type": "string"}, "title": {"type": "string"}},
                                                      ("const", "title"))}}, ("type", "oneOf"))


def _form_world(enum_schema: dict[str, Any], **extra: Any) -> Schema:
    ask = obj({"question": {"type": "string"}, "field": ref("EnumSchema")}, ("question", "field"))
    return world(ask_params=ask, extra={"EnumSchema": enum_schema, **extra})


def test_object_rewritten_as_a_union_its_old_values_still_match_is_a_widening() -> None:
    old = _form_world(ENUM)
    new = _form_world({"anyOf": [ref("UntitledEnum"), ref("TitledEnum")]}, UntitledEnum=UNTITLED, TitledEnum=TITLED)
    old_value = {"question": "q", "field": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}}
    new_value = {"question": "q", "field": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}}
    assert accepts(old, "AskParams", old_value) and accepts(new, "AskParams", old_value)
    assert accepts(new, "AskParams", new_value) and not accepts(old, "AskParams", new_value)
    changes = real(diff(old, new))
    assert not [c for c in changes if c.kind == "definition.kind_changed"]
    c = next(c for c in changes if c.subject == "EnumSchema")
    assert c.kind == "type.widened"
    assert impact(c) == ("breaking", "compatible")  # the server writes AskParams; only the client reads it


# 4. role unions ---------------------------------------------------------------------------------


def test_a_new_method_is_reported_once_and_breaks_nobody() -> None:
    old = world()
    new = world(extra={
        "PingRequest": request("x/ping", "PingParams"),
        "PingParams": obj({}),
        "PingResult": obj({"ok": {"type": "boolean"}}),
        "ClientRequest": {"anyOf": [ref("CallRequest"), ref("PingRequest")]},
        "ServerResult": {"anyOf": [ref("Result"), ref("CallResult"), ref("PingResult")]},
    })
    changes = real(diff(old, new))
    assert not [c for c in changes if c.breaking], [(c.kind, c.subject) for c in changes]
    assert [(c.kind, c.subject) for c in changes if c.category == "method"] == [("method.added", "x/ping")]
    assert not [c for c in changes if c.subject in ("ClientRequest", "ServerResult")]


# 5. who writes a definition ---------------------------------------------------------------------


def test_a_base_no_message_references_takes_the_writers_of_the_definitions_that_extend_it() -> None:
    def base(required: tuple[str, ...]) -> dict[str, Any]:
        return obj({"cursor": {"type": "string"}, "name": {"type": "string"}}, required)

    old = world(call_params=base(("name",)), extra={"PagedParams": base(())})
    new = world(call_params=base(("name", "cursor")), extra={"PagedParams": base(("cursor",))})
    assert accepts(old, "PagedParams", {}) and not accepts(new, "PagedParams", {})
    c = next(c for c in real(diff(old, new)) if "PagedParams.cursor" in places(c))
    assert c.kind == "field.now_required"
    assert impact(c) == ("breaking", "compatible")  # only the client writes CallParams, which extends it


# 6. open maps widened ---------------------------------------------------------------------------


def _tool_world(input_schema: dict[str, Any]) -> Schema:
    return world(call_result=obj({"inputSchema": input_schema}, ("inputSchema",)))


def test_a_map_field_dropped_into_any_valued_additional_properties_is_a_widening() -> None:
    old = _tool_world(obj({"type": {"const": "object"}, "properties": {
        "type": "object", "additionalProperties": {"type": "object", "additionalProperties": True, "properties": {}}}},
        ("type",)))
    new = _tool_world(obj({"type": {"const": "object"}}, ("type",), additionalProperties={}))
    instance = {"inputSchema": {"type": "object", "properties": {"flag": True}}}
    assert accepts(new, "CallResult", instance) and not accepts(old, "CallResult", instance)
    c = only(diff(old, new))
    assert (c.kind, c.subject) == ("type.widened", "CallResult.inputSchema.properties")
    assert impact(c) == ("breaking", "compatible")  # the client reads the result


# 7. noise ---------------------------------------------------------------------------------------


def test_batching_is_reported_once() -> None:
    report = diff(world(batching=True), world())
    assert [(c.kind, c.subject) for c in real(report)] == [("envelope.batching_removed", "batching")]


def test_one_change_of_a_shared_shape_is_one_item_listing_where_it_applies() -> None:
    meta = {"type": "object", "additionalProperties": {}}
    versioned = obj({"io.modelcontextprotocol/protocolVersion": {"type": "string"}},
                    ("io.modelcontextprotocol/protocolVersion",), additionalProperties={})

    def params(meta_node: dict[str, Any], *more: str) -> dict[str, Any]:
        return obj({"_meta": meta_node, **{m: {"type": "string"} for m in more}})

    def shaped(meta_node: dict[str, Any]) -> Schema:
        return world(call_params=params(meta_node, "name"), extra={
            "RequestParams": params(meta_node), "ListParams": params(meta_node, "cursor"),
            "ListRequest": request("x/list", "ListParams"), "ListResult": obj({}),
            "ClientRequest": {"anyOf": [ref("CallRequest"), ref("ListRequest")]},
        })

    old, new = shaped(meta), shaped(versioned)
    sent = {"_meta": {}}
    assert accepts(old, "ListParams", sent) and not accepts(new, "ListParams", sent)
    c = only(diff(old, new))
    assert c.kind == "field.added.required"
    assert c.subject == 'RequestParams._meta["io.modelcontextprotocol/protocolVersion"]'
    assert places(c) == {f'{d}._meta["io.modelcontextprotocol/protocolVersion"]' for d in ("RequestParams", "CallParams", "ListParams")}
    assert impact(c) == ("breaking", "compatible")


# 8. deprecations --------------------------------------------------------------------------------


def test_deprecation_markers_are_their_own_kind() -> None:
    def ask(include: dict[str, Any], old_field: dict[str, Any]) -> dict[str, Any]:
        return obj({"question": {"type": "string"}, "includeContext": include, "legacy": old_field}, ("question",))

    enum = {"type": "string", "enum": ["none", "thisServer", "allServers"]}
    old = world(ask_params=ask(enum, {"type": "string"}))
    soft = world(ask_params=ask({**enum, "description": 'Values "thisServer" and "allServers" are soft-deprecated.'},
                                {"type": "string", "deprecated": True}))
    hard = world(ask_params=ask({**enum, "description": 'The values "thisServer" and "allServers" are deprecated; use "none".'},
                                {"type": "string", "deprecated": True}))
    first = {c.subject: c for c in real(diff(old, soft))}
    assert set(first) == {"AskParams.includeContext", "AskParams.legacy"}
    assert all(c.kind == "deprecation.added" and not c.breaking for c in first.values())
    assert '"thisServer"' in first["AskParams.includeContext"].detail and '"none"' not in first["AskParams.includeContext"].detail
    again = only(diff(soft, hard))
    assert (again.kind, again.subject) == ("deprecation.escalated", "AskParams.includeContext")


# 9. one change to a program, one item ----------------------------------------------------------


def test_an_object_made_required_with_new_required_keys_is_one_item() -> None:
    meta = {"type": "object", "additionalProperties": {}}
    versioned = obj({"version": {"type": "string"}, "caps": ref("Caps"), "hint": {"type": "string"}},
                    ("version", "caps"), additionalProperties={})
    caps = {"Caps": obj({"x": {"type": "boolean"}})}
    old = world(call_params=obj({"name": {"type": "string"}, "_meta": meta}, ("name",)), extra=caps)
    new = world(call_params=obj({"name": {"type": "string"}, "_meta": versioned}, ("name", "_meta")), extra=caps)
    assert accepts(old, "CallParams", {"name": "n"}) and not accepts(new, "CallParams", {"name": "n"})
    assert not accepts(new, "CallParams", {"name": "n", "_meta": {}})
    assert accepts(new, "CallParams", {"name": "n", "_meta": {"version": "1", "caps": {}}})
    by_kind = {c.kind: c for c in real(diff(old, new))}
    assert set(by_kind) == {"field.now_required", "field.added.optional"}
    required = by_kind["field.now_required"]
    assert required.subject == "CallParams._meta" and impact(required) == ("breaking", "compatible")
    assert required.detail == 'now required, with new required keys: "caps" (Caps), "version" (string)'
    assert required.new == {"caps": ref("Caps"), "version": {"type": "string"}}
    hint = by_kind["field.added.optional"]
    assert hint.subject == "CallParams._meta.hint" and not hint.breaking


def test_new_required_keys_where_the_object_was_not_made_required_stay_their_own_items() -> None:
    meta = {"type": "object", "additionalProperties": {}}
    versioned = obj({"version": {"type": "string"}}, ("version",), additionalProperties={})

    def shaped(call_meta: dict[str, Any], list_meta: dict[str, Any], call_required: tuple[str, ...]) -> Schema:
        return world(call_params=obj({"name": {"type": "string"}, "_meta": call_meta}, call_required), extra={
            "ListParams": obj({"cursor": {"type": "string"}, "_meta": list_meta}),
            "ListRequest": request("x/list", "ListParams"), "ListResult": obj({}),
            "ClientRequest": {"anyOf": [ref("CallRequest"), ref("ListRequest")]},
        })

    old, new = shaped(meta, meta, ("name",)), shaped(versioned, versioned, ("name", "_meta"))
    assert accepts(old, "ListParams", {"_meta": {}}) and not accepts(new, "ListParams", {"_meta": {}})
    items = {c.kind: c for c in real(diff(old, new))}
    assert set(items) == {"field.now_required", "field.added.required"}
    assert (items["field.now_required"].subject, items["field.now_required"].detail) == ("CallParams._meta", "now required")
    assert places(items["field.added.required"]) == {"CallParams._meta.version", "ListParams._meta.version"}


def test_a_moved_method_is_one_item_naming_its_other_changes() -> None:
    from mcpgen.commands.diff.folding import fold

    moved = Change("method", "method.moved", "x/ask", "was a standalone message, now embedded", "breaking", "breaking")
    opt_in = Change("method", "method.result_opt_in_removed", "x/ask", "no longer answers TaskResult", "compatible",
                    "compatible")
    sender = Change("method", "method.sender_removed", "x/ask", "client may no longer send it", "breaking", "compatible")
    other = Change("method", "method.sender_removed", "x/call", "server may no longer send it", "compatible", "breaking")
    field = Change("field", "field.added.optional", "AskParams.hint", "new optional field: string", "compatible",
                   "compatible")
    out = fold([opt_in, moved, other, sender, field])
    assert [c.subject for c in out] == ["x/ask", "x/call", "AskParams.hint"]
    assert out[0].kind == "method.moved" and impact(out[0]) == ("breaking", "breaking")
    assert out[0].detail == (
        "was a standalone message, now embedded; no longer answers TaskResult; client may no longer send it"
    )
    assert out[1:] == [other, field]


def test_a_moved_method_in_a_small_schema_is_one_breaking_item() -> None:
    old = world()
    new = world(extra={"InputRequest": {"anyOf": [ref("AskRequest")]}})
    del new["$defs"]["ServerRequest"]
    c = only(diff(old, new))
    assert (c.kind, c.subject, impact(c)) == ("method.moved", "x/ask", ("breaking", "breaking"))


# 10. CI and release notes -----------------------------------------------------------------------

def _files(tmp_path: Path, old: Schema, new: Schema) -> tuple[str, str]:
    paths = []
    for name, schema in (("old", old), ("new", new)):
        path = tmp_path / name / "2099-01-01" / "schema.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(schema), "utf-8")
        paths.append(str(path))
    return paths[0], paths[1]


def _run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(diff_command, [*args, "--config", str(tmp_path / "none.toml")] if "--config" not in args else list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def server_break(tmp_path: Path) -> tuple[str, str]:
    """A pair whose only change breaks servers: a new required field in a result they write."""
    old = world()
    new = world(call_result=obj({"value": {"type": "string"}, "ttlMs": {"type": "integer"}}, ("value", "ttlMs")))
    assert accepts(old, "CallResult", {"value": "v"}) and not accepts(new, "CallResult", {"value": "v"})
    (tmp_path / "none.toml").write_text("", "utf-8")
    return _files(tmp_path, old, new)


@pytest.mark.parametrize(("fail_on", "code"), [("client", 0), ("server", 1), ("breaking", 1), ("any", 1)])
def test_fail_on_picks_the_side_that_breaks(tmp_path: Path, server_break: tuple[str, str], fail_on: str, code: int) -> None:
    assert _run(tmp_path, *server_break, "--fail-on", fail_on)[0] == code


@pytest.mark.parametrize(
    ("fail_on", "says"),
    [("client", ""), ("server", "--fail-on server: 1 change breaks servers"),
     ("breaking", "--fail-on breaking: 1 change breaks clients or servers"), ("any", "--fail-on any: 1 change")],
)
def test_a_tripped_gate_says_which_on_one_stderr_line(tmp_path: Path, server_break: tuple[str, str], fail_on: str, says: str) -> None:
    code, _, err = _run(tmp_path, *server_break, "--fail-on", fail_on)
    assert (code, err) == ((1, f"mcpgen: {says} (exit 1)\n") if says else (0, ""))


def test_a_gate_from_the_config_names_the_file(tmp_path: Path, server_break: tuple[str, str]) -> None:
    config = tmp_path / "gate.toml"
    config.write_text('[tool.mcpgen.diff]\nfail-on = "server"\n', "utf-8")
    code, _, err = _run(tmp_path, *server_break, "--config", str(config))
    assert (code, err) == (1, f'mcpgen: fail-on = "server" in {config}: 1 change breaks servers (exit 1)\n')


def test_ignore_by_rule_and_subject_from_pyproject_and_from_a_file(tmp_path: Path, server_break: tuple[str, str]) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.mcpgen.diff]\nignore = ["field.added.required CallResult.ttlMs"]\nfail-on = "breaking"\n', "utf-8")
    code, out, _ = _run(tmp_path, *server_break, "--config", str(pyproject))
    assert code == 0 and "1 ignored" in out
    other = tmp_path / "other.toml"
    other.write_text('[tool.mcpgen.diff]\nignore = ["field.added.optional CallResult.ttlMs"]\n', "utf-8")
    assert _run(tmp_path, *server_break, "--config", str(other), "--fail-on", "server")[0] == 1  # wrong rule id: kept
    accepted = tmp_path / "accepted.txt"
    accepted.write_text("# accepted for 2099\nfield.added.* CallResult.*\n", "utf-8")
    code, _, _ = _run(tmp_path, *server_break, "--ignore", str(accepted), "--fail-on", "any")
    assert code == 0


def test_a_bad_ignore_entry_is_one_error_line(tmp_path: Path, server_break: tuple[str, str]) -> None:
    accepted = tmp_path / "accepted.txt"
    accepted.write_text("field.added.required\n", "utf-8")
    code, out, err = _run(tmp_path, *server_break, "--ignore", str(accepted))
    assert code == 2 and out == "" and err.startswith("mcpgen: error: ") and "accepted.txt:1" in err


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("field.added.requried CallResult.ttlMs", "'field.added.requried' matches no rule id"),
        ("fields.* CallResult.*", "'fields.*' matches no rule id"),
    ],
)
def test_an_ignore_entry_whose_rule_matches_no_rule_id_is_refused(
    tmp_path: Path, server_break: tuple[str, str], entry: str, says: str
) -> None:
    """A typo'd rule id ignored nothing, silently: the gate then tripped on the change meant to be accepted."""
    accepted = tmp_path / "accepted.txt"
    accepted.write_text(f"# accepted\n{entry}\n", "utf-8")
    code, out, err = _run(tmp_path, *server_break, "--ignore", str(accepted))
    assert (code, out) == (2, "") and err.startswith(f"mcpgen: error: {accepted}:2: {says}") and len(err.splitlines()) == 1
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f'[tool.mcpgen.diff]\nignore = ["{entry}"]\n', "utf-8")
    code, out, err = _run(tmp_path, *server_break, "--config", str(pyproject))
    assert (code, out) == (2, "") and says in err and len(err.splitlines()) == 1


def test_an_ignore_file_that_is_not_utf8_is_one_error_line(tmp_path: Path, server_break: tuple[str, str]) -> None:
    accepted = tmp_path / "accepted.txt"
    accepted.write_bytes(b"\xff\xfe\n")
    code, out, err = _run(tmp_path, *server_break, "--ignore", str(accepted))
    assert (code, out, err) == (2, "", f"mcpgen: error: ignore file {accepted}: not UTF-8 text (byte 0)\n")


def test_markdown_to_a_file_is_ready_to_paste(tmp_path: Path) -> None:
    versioned = obj({"io.modelcontextprotocol/protocolVersion": {"type": "string"}},
                    ("io.modelcontextprotocol/protocolVersion",), additionalProperties={})
    old = world(call_params=obj({"name": {"type": "string"}, "_meta": {"type": "object", "additionalProperties": {}}}, ("name",)))
    new = world(call_params=obj({"name": {"type": "string"}, "_meta": versioned}, ("name",)),
                call_result=obj({"value": {"type": "string"}, "note": {"type": "string"}}, ("value",)))
    assert accepts(old, "CallParams", {"name": "n", "_meta": {}}) and not accepts(new, "CallParams", {"name": "n", "_meta": {}})
    (tmp_path / "none.toml").write_text("", "utf-8")
    out_file = tmp_path / "notes.md"
    code, out, _ = _run(tmp_path, *_files(tmp_path, old, new), "--format", "markdown", "-o", str(out_file))
    assert code == 0 and out == ""
    text = out_file.read_text("utf-8")
    assert not [line for line in text.splitlines() if line.startswith("# ")]
    breaking = '`CallParams._meta["io.modelcontextprotocol/protocolVersion"]`'
    assert text.count(breaking) == 1  # in the breaking-changes table only
    assert "| clients |" in text.split(breaking, 1)[1].splitlines()[0]
    assert "`field.added.optional`" in text and "`CallResult.note`" in text


def test_json_old_and_new_are_json_values(tmp_path: Path, server_break: tuple[str, str]) -> None:
    code, out, _ = _run(tmp_path, *server_break, "--format", "json")
    change = json.loads(out)["changes"][0]
    assert (change["kind"], change["subject"]) == ("field.added.required", "CallResult.ttlMs")
    assert change["new"] == {"type": "integer"} and change["old"] is None
