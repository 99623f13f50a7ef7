"""`mcpgen diff`: golden reports per revision pair, changelog items, the real pairs checked against their schemas."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from mcpgen.commands.diff import diff_revisions, load_revision
from mcpgen.commands.diff.command import diff_command
from mcpgen.commands.diff.model import Change, Report
from mcpgen.commands.diff.pair import load_pair
from mcpgen.commands.diff.regen import EXTENSION_PAIRS, consecutive_pairs, golden_path
from mcpgen.commands.diff.report import render_json
from mcpgen.commands.diff.rules import RULE_IDS
from mcpgen.inputs.errata import corrected_schema
from mcpgen.inputs.pins import known_revisions
from mcpgen.inputs.sources import resolve_schema

REPO = Path(__file__).resolve().parent.parent
PAIRS = consecutive_pairs()


@lru_cache(maxsize=None)
def _revision(revision: str, schema_dir: Path) -> Any:
    return load_revision(revision, schema_dir)


def real_diff(old: str, new: str, schema_dir: Path) -> Report:
    return diff_revisions(_revision(old, schema_dir), _revision(new, schema_dir))


def places(c: Change) -> set[str]:
    return {c.subject, *getattr(c, "where", ())}


def find(report: Report, kind: str, subject: str) -> Change:
    """The change of `kind` at `subject`, whether it is the item's subject or one of the places it lists."""
    hits = [c for c in report.changes if c.kind == kind and subject in places(c)]
    assert hits, f"no {kind} on {subject}; report has: " + ", ".join(
        f"{c.kind} {c.subject}" for c in report.changes if c.subject.split(".")[0] == subject.split(".")[0]
    )
    return hits[0]


def subjects(report: Report, kind: str) -> set[str]:
    return {p for c in report.changes if c.kind == kind for p in places(c)}


@lru_cache(maxsize=None)
def corrected(revision: str, schema_dir: Path) -> dict[str, Any]:
    """The pinned upstream schema with its errata applied: the oracle for the real-pair verdicts."""
    return corrected_schema(resolve_schema(revision, schema_dir=schema_dir)).schema


def accepts(schema: dict[str, Any], definition: str, instance: Any) -> bool:
    """The oracle: jsonschema validates `instance` against one definition of a revision's schema."""
    key = "$defs" if "$defs" in schema else "definitions"
    probe = {k: schema[k] for k in ("$schema", "$defs", "definitions") if k in schema}
    probe["allOf"] = [{"$ref": f"#/{key}/{definition}"}]
    return bool(jsonschema.validators.validator_for(schema)(probe).is_valid(instance))


# --- golden reports -----------------------------------------------------------------------------


def test_pairs_cover_every_pinned_revision() -> None:
    revs = known_revisions()
    assert [p[0] for p in PAIRS] + [PAIRS[-1][1]] == list(revs)


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{o}_{n}" for o, n in PAIRS])
def test_golden_report(old: str, new: str, schema_dir: Path) -> None:
    golden = golden_path(REPO, old, new)
    assert golden.is_file(), f"missing {golden}: run `python -m mcpgen.commands.diff.regen --schema-dir {schema_dir}`"
    actual = render_json(real_diff(old, new, schema_dir))
    assert actual == golden.read_text("utf-8"), f"{golden.name} differs: review, then regenerate with mcpgen.commands.diff.regen"


@pytest.mark.parametrize(("old", "new"), EXTENSION_PAIRS, ids=[f"{o}_{n}" for o, n in EXTENSION_PAIRS])
def test_golden_extension_drift(old: str, new: str, schema_dir: Path) -> None:
    golden = golden_path(REPO, old, new)
    assert golden.is_file(), f"missing {golden}: run `python -m mcpgen.commands.diff.regen --schema-dir {schema_dir}`"
    actual = render_json(diff_revisions(*load_pair(old, new, schema_dir)))
    assert actual == golden.read_text("utf-8"), f"{golden.name} differs: review, then regenerate with mcpgen.commands.diff.regen"


def test_ext_tasks_copies_are_2026_07_28_s_definitions(schema_dir: Path) -> None:
    """The drift the closing note states: every core definition ext-tasks (e4345978) copies is, annotations
    included, 2026-07-28's own; the report is empty. Against 2025-11-25 (whose tasks it replaces) it is not."""
    extension = json.loads((schema_dir / "extensions" / "tasks" / "schema.json").read_bytes())["$defs"]
    core = json.loads((schema_dir / "2026-07-28" / "schema.json").read_bytes())["$defs"]
    copies = [name for name in extension if name in core]
    assert len(copies) == 56 and all(extension[name] == core[name] for name in copies)
    assert diff_revisions(*load_pair("2026-07-28", "tasks", schema_dir)).changes == ()
    older = diff_revisions(*load_pair("2025-11-25", "tasks", schema_dir))
    kinds = {(c.kind, c.subject) for c in older.changes}
    assert ("definition.kind_changed", "GetTaskResult") in kinds  # a Task object then, a union of task states now
    assert ("field.added.required", "CancelTaskResult.resultType") in kinds


@pytest.mark.parametrize("revision", known_revisions())
def test_revision_against_itself_reports_nothing(revision: str, schema_dir: Path) -> None:
    report = real_diff(revision, revision, schema_dir)
    assert report.changes == ()
    assert report.counts()["changes"] == 0


# --- changelog items per pair (modelcontextprotocol.io/specification/<rev>/changelog) -------------


def test_changelog_2025_03_26(schema_dir: Path) -> None:
    r = real_diff("2024-11-05", "2025-03-26", schema_dir)
    batching = find(r, "envelope.batching_added", "batching")
    assert (batching.client, batching.server) == ("breaking", "breaking")
    find(r, "definition.added", "AudioContent")
    find(r, "definition.added", "ToolAnnotations")
    find(r, "field.added.optional", "Tool.annotations")
    find(r, "capability.added", "ServerCapabilities.completions")
    find(r, "field.added.optional", "ProgressNotification.params.message")
    content = find(r, "type.widened", "CallToolResult.content")
    assert "+AudioContent" in content.detail
    assert (content.client, content.server) == ("breaking", "compatible")  # a strict client receives the new member


def test_changelog_2025_06_18(schema_dir: Path) -> None:
    r = real_diff("2025-03-26", "2025-06-18", schema_dir)
    find(r, "envelope.batching_removed", "batching")
    find(r, "field.added.optional", "Tool.outputSchema")
    find(r, "field.added.optional", "CallToolResult.structuredContent")
    elicit = find(r, "method.added", "elicitation/create")
    assert elicit.direction == "server → client"
    find(r, "capability.added", "ClientCapabilities.elicitation")
    find(r, "definition.added", "ResourceLink")
    assert "+ResourceLink" in find(r, "type.widened", "CallToolResult.content").detail
    for titled in ("Tool", "Resource", "Prompt", "ResourceTemplate", "Implementation", "PromptArgument"):
        find(r, "field.added.optional", f"{titled}.title")
    for meta in ("Tool", "Resource", "Prompt", "TextContent", "Root"):
        find(r, "field.added.optional", f"{meta}._meta")
    find(r, "field.added.optional", "CompleteRequest.params.context")
    renamed = find(r, "definition.renamed", "ResourceTemplateReference")
    assert renamed.old == "ResourceReference"
    assert "ResourceReference" not in subjects(r, "definition.removed")
    assert "ResourceTemplateReference" not in subjects(r, "definition.added")


def test_changelog_2025_11_25(schema_dir: Path) -> None:
    r = real_diff("2025-06-18", "2025-11-25", schema_dir)
    assert {"tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "notifications/tasks/status"} <= subjects(r, "method.added")
    find(r, "capability.added", "ClientCapabilities.tasks")
    find(r, "capability.added", "ServerCapabilities.tasks")
    find(r, "field.added.optional", "CallToolRequest.params.task")
    find(r, "definition.added", "Icon")
    for owner in ("Tool", "Prompt", "Resource", "ResourceTemplate", "Implementation"):
        find(r, "field.added.optional", f"{owner}.icons")
    url = find(r, "type.widened", "ElicitRequest.params")
    assert "+ElicitRequestURLParams" in url.detail
    assert (url.client, url.server) == ("breaking", "compatible")
    find(r, "capability.added", "ClientCapabilities.elicitation.url")
    find(r, "method.added", "notifications/elicitation/complete")
    find(r, "field.added.optional", "CreateMessageRequest.params.tools")
    find(r, "field.added.optional", "CreateMessageRequest.params.toolChoice")
    assert "+ToolUseContent" in find(r, "type.widened", "SamplingMessage.content").detail
    find(r, "field.added.optional", "Implementation.description")
    find(r, "field.added.optional", "StringSchema.default")
    find(r, "field.added.optional", "NumberSchema.default")
    find(r, "field.added.optional", "Tool.inputSchema.$schema")
    find(r, "definition.added", "TitledMultiSelectEnumSchema")
    find(r, "envelope.renamed", "JSONRPCErrorResponse")


def test_2025_11_25_extracted_params_are_not_noise(schema_dir: Path) -> None:
    r = real_diff("2025-06-18", "2025-11-25", schema_dir)
    # CallToolRequest.params went from an inline object to $ref CallToolRequestParams
    extracted = find(r, "definition.extracted", "CallToolRequestParams")
    assert extracted.cosmetic
    assert "CallToolRequestParams" not in subjects(r, "definition.added")
    assert not [c for c in r.changes if c.subject == "CallToolRequest.params" and c.kind.startswith("type.")]
    for unchanged in ("CallToolRequest.params.name", "CallToolRequest.params.arguments"):
        assert not [c for c in r.changes if c.subject == unchanged and not c.cosmetic]


def test_changelog_2026_07_28(schema_dir: Path) -> None:
    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    removed = subjects(r, "method.removed")
    assert {"initialize", "notifications/initialized", "ping", "logging/setLevel", "notifications/roots/list_changed",
            "resources/subscribe", "resources/unsubscribe", "tasks/list", "tasks/result",
            "notifications/elicitation/complete"} <= removed
    init = find(r, "method.removed", "initialize")
    assert (init.client, init.server) == ("breaking", "compatible")  # the caller breaks
    assert {"server/discover", "subscriptions/listen", "notifications/subscriptions/acknowledged"} <= subjects(r, "method.added")
    for moved in ("sampling/createMessage", "elicitation/create", "roots/list"):
        change = find(r, "method.moved", moved)
        assert (change.client, change.server) == ("breaking", "breaking")
    find(r, "definition.added", "InputRequiredResult")
    assert "+InputRequiredResult" in find(r, "method.result_widened", "tools/call").detail
    find(r, "field.added.required", "Result.resultType")
    ttl = find(r, "field.added.required", "ListToolsResult.ttlMs")
    assert (ttl.client, ttl.server) == ("compatible", "breaking")  # the server must now send it
    find(r, "field.added.required", "ListToolsResult.cacheScope")
    find(r, "definition.added", "CacheableResult")
    find(r, "capability.added", "ClientCapabilities.extensions")
    find(r, "capability.added", "ServerCapabilities.extensions")
    meta = find(r, "field.now_required", "RequestParams._meta")
    assert meta.client == "breaking"
    assert set(meta.new) == {"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"}
    find(r, "field.added.optional", 'RequestParams._meta["io.modelcontextprotocol/clientInfo"]')
    find(r, "field.added.optional", 'RequestParams._meta["io.modelcontextprotocol/logLevel"]')
    find(r, "field.added.optional", 'Result._meta["io.modelcontextprotocol/serverInfo"]')
    find(r, "definition.added", "UnsupportedProtocolVersionError")
    find(r, "definition.added", "HeaderMismatchError")
    find(r, "field.removed.required", "ElicitRequestURLParams.elicitationId")
    find(r, "type.widened", "CallToolResult.structuredContent")
    find(r, "field.removed.required", "Tool.outputSchema.type")
    find(r, "capability.removed", "ClientCapabilities.tasks")
    find(r, "field.added.optional", 'NotificationParams._meta["io.modelcontextprotocol/subscriptionId"]')
    find(r, "field.added.optional", "CallToolRequestParams.inputResponses")
    find(r, "field.added.optional", "CallToolRequestParams.requestState")
    find(r, "type.widened", "Tool.inputSchema.properties")
    find(r, "method.removed", "notifications/elicitation/complete")
    find(r, "definition.added", "InputRequiredResult")


# --- the classes of issue 15 on the real pairs, each verdict confirmed by the schemas -------------


def test_real_max_items_on_completion_values_breaks_servers(schema_dir: Path) -> None:
    old, new = corrected("2025-11-25", schema_dir), corrected("2026-07-28", schema_dir)
    too_many = {"completion": {"values": ["v"] * 101}, "resultType": "complete"}
    assert accepts(old, "CompleteResult", too_many) and not accepts(new, "CompleteResult", too_many)
    c = find(real_diff("2025-11-25", "2026-07-28", schema_dir), "constraint.narrowed", "CompleteResult.completion.values")
    assert (c.client, c.server) == ("compatible", "breaking")


def test_real_json_object_capabilities_are_not_reported(schema_dir: Path) -> None:
    old, new = corrected("2025-11-25", schema_dir), corrected("2026-07-28", schema_dir)
    caps = {"elicitation": {"form": {"a": None, "b": 2.5, "c": [{"d": True}]}}, "experimental": {"x": {"y": None}}}
    assert accepts(old, "ClientCapabilities", caps) and accepts(new, "ClientCapabilities", caps)
    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    for quiet in ("ClientCapabilities.elicitation.form", "ClientCapabilities.experimental", "ServerCapabilities.logging",
                  "CreateMessageRequestParams.metadata"):
        assert not [c for c in r.changes if quiet in places(c) and c.kind.startswith("type.")], quiet


def test_real_enum_schema_rewrite_is_a_widening_for_readers(schema_dir: Path) -> None:
    old, new = corrected("2025-06-18", schema_dir), corrected("2025-11-25", schema_dir)
    legacy = {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}
    titled = {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}
    assert accepts(old, "EnumSchema", legacy) and accepts(new, "EnumSchema", legacy)
    assert accepts(new, "EnumSchema", titled) and not accepts(old, "EnumSchema", titled)
    r = real_diff("2025-06-18", "2025-11-25", schema_dir)
    assert "EnumSchema" not in subjects(r, "definition.kind_changed")
    for subject in ("EnumSchema", "PrimitiveSchemaDefinition"):
        c = find(r, "type.widened", subject)
        assert (c.client, c.server) == ("breaking", "compatible")  # servers write requestedSchema, clients read it


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{o}_{n}" for o, n in PAIRS])
def test_real_role_unions_are_method_changes_only(old: str, new: str, schema_dir: Path) -> None:
    r = real_diff(old, new, schema_dir)
    unions = {"ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification", "ClientResult", "ServerResult"}
    assert not [c for c in r.changes if c.subject in unions]
    assert not [c for c in r.changes if c.kind == "method.added" and c.breaking]


def test_real_base_definitions_take_the_side_of_the_messages_that_extend_them(schema_dir: Path) -> None:
    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    new = corrected("2026-07-28", schema_dir)
    assert not accepts(new, "Result", {}) and accepts(new, "Result", {"resultType": "complete"})
    result = find(r, "field.added.required", "Result.resultType")
    assert (result.client, result.server) == ("compatible", "breaking")  # only servers answer requests in 2026-07-28
    paginated = find(r, "field.now_required", "PaginatedRequest.params")
    assert (paginated.client, paginated.server) == ("breaking", "compatible")  # only clients list things
    meta = find(r, "field.now_required", "ResourceRequestParams._meta")
    assert (meta.client, meta.server) == ("breaking", "compatible")


def test_real_tool_schema_properties_widened_to_any_break_clients(schema_dir: Path) -> None:
    old, new = corrected("2025-11-25", schema_dir), corrected("2026-07-28", schema_dir)
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {"flag": True}}}
    assert accepts(new, "Tool", tool) and not accepts(old, "Tool", tool)
    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    for subject in ("Tool.inputSchema.properties", "Tool.outputSchema.properties"):
        c = find(r, "type.widened", subject)
        assert (c.client, c.server) == ("breaking", "compatible")


@pytest.mark.parametrize(("old", "new"), [("2024-11-05", "2025-03-26"), ("2025-03-26", "2025-06-18")])
def test_real_batching_is_one_item(old: str, new: str, schema_dir: Path) -> None:
    r = real_diff(old, new, schema_dir)
    batch = [c for c in r.changes if not c.cosmetic and ("batch" in c.kind or "JSONRPCBatch" in c.subject or c.subject == "JSONRPCMessage")]
    assert [c.kind for c in batch] == [f"envelope.batching_{'added' if new == '2025-03-26' else 'removed'}"]


def test_real_request_meta_is_one_item_listing_every_params(schema_dir: Path) -> None:
    old, new = corrected("2025-11-25", schema_dir), corrected("2026-07-28", schema_dir)
    keys = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    call = {"name": "t"}
    assert accepts(old, "CallToolRequestParams", call) and not accepts(new, "CallToolRequestParams", call)
    assert not accepts(new, "CallToolRequestParams", {**call, "_meta": {}})
    assert accepts(new, "CallToolRequestParams", {**call, "_meta": keys})
    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    items = [c for c in r.changes if not c.cosmetic and c.subject.startswith("RequestParams._meta") and c.breaking]
    assert len(items) == 1, [(c.kind, c.subject) for c in items]
    (item,) = items
    assert (item.kind, item.subject) == ("field.now_required", "RequestParams._meta")
    assert '"io.modelcontextprotocol/protocolVersion" (string)' in item.detail
    assert '"io.modelcontextprotocol/clientCapabilities" (ClientCapabilities)' in item.detail
    owners = {p.split(".")[0] for p in places(item)}
    assert {"RequestParams", "CallToolRequestParams", "PaginatedRequestParams", "ReadResourceRequestParams"} <= owners
    assert (item.client, item.server) == ("breaking", "compatible")
    assert not [c for c in r.changes if c.kind == "field.added.required" and c.subject.startswith("RequestParams._meta")]
    for optional in ("clientInfo", "logLevel"):  # new optional keys stay their own (compatible) items
        find(r, "field.added.optional", f'RequestParams._meta["io.modelcontextprotocol/{optional}"]')


def test_real_moved_methods_are_listed_once_in_markdown(schema_dir: Path) -> None:
    from mcpgen.commands.diff.report import render_markdown

    r = real_diff("2025-11-25", "2026-07-28", schema_dir)
    text = render_markdown(r)
    breaking = text.split("## Breaking changes", 1)[1].split("\n## ", 1)[0]
    for moved in ("sampling/createMessage", "elicitation/create", "roots/list"):
        assert text.count(f"`{moved}`") == 1, moved
        assert breaking.count(f"`{moved}`") == 1, moved
        (item,) = [c for c in r.changes if c.subject == moved]
        assert item.kind == "method.moved" and (item.client, item.server) == ("breaking", "breaking")
    assert "no longer answers CreateTaskResult" in find(r, "method.moved", "elicitation/create").detail


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{o}_{n}" for o, n in PAIRS])
def test_real_markdown_has_one_line_per_subject(old: str, new: str, schema_dir: Path) -> None:
    import re

    from mcpgen.commands.diff.report import ERRATA_TITLE, render_markdown

    r = real_diff(old, new, schema_dir)
    text = render_markdown(r).split(f"## {ERRATA_TITLE}")[0]
    listed = re.findall(r"^(?:- |\| )`([^`]*)`", text, flags=re.M)
    assert sorted(listed) == sorted({c.subject for c in r.visible(verbose=False)})  # each subject, once
    if (old, new) == ("2025-11-25", "2026-07-28"):
        (line,) = [line for line in text.splitlines() if "`tools/call`" in line]
        breaking = text.split("## Breaking changes", 1)[1].split("\n## ", 1)[0]
        assert line in breaking and "`method.result_widened`" in line and "`method.result_opt_in_removed`" in line
        assert "+InputRequiredResult" in line and "no longer answers CreateTaskResult" in line


@pytest.mark.parametrize(("old", "new", "kind"), [("2025-06-18", "2025-11-25", "deprecation.added"),
                                                  ("2025-11-25", "2026-07-28", "deprecation.escalated")])
def test_real_include_context_deprecations(old: str, new: str, kind: str, schema_dir: Path) -> None:
    c = find(real_diff(old, new, schema_dir), kind, "CreateMessageRequestParams.includeContext")
    assert '"thisServer"' in c.detail and '"allServers"' in c.detail and not c.breaking


# --- the command ----------------------------------------------------------------------------------


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(diff_command, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_byte_identical_copy_of_a_pinned_schema_reports_nothing(tmp_path: Path, schema_dir: Path) -> None:
    copy = tmp_path / "copy.json"
    copy.write_bytes((schema_dir / "2025-06-18" / "schema.json").read_bytes())
    code, out, _ = _run("2025-06-18", str(copy), "--schema-dir", str(schema_dir), "--fail-on", "breaking", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["changes"] == []
    assert data["old"]["errata"] == data["new"]["errata"] != []


def test_cli_exit_codes(schema_dir: Path) -> None:
    base = ("2024-11-05", "2025-03-26", "--schema-dir", str(schema_dir))
    assert _run(*base)[0] == 0
    assert _run(*base, "--fail-on", "breaking")[0] == 1
    assert _run(*base, "--fail-on", "any")[0] == 1
    assert _run("2025-03-26", "2025-03-26", "--schema-dir", str(schema_dir), "--fail-on", "any")[0] == 0


def test_cli_text_is_plain_when_not_a_tty_and_shows_rule_ids(schema_dir: Path) -> None:
    code, out, _ = _run("2024-11-05", "2025-03-26", "--schema-dir", str(schema_dir))
    assert code == 0 and "\x1b[" not in out
    assert out.splitlines()[0] == "mcpgen diff 2024-11-05 → 2025-03-26"
    assert "(envelope.batching_added)" in out


def test_cli_accepts_schema_files_and_emits_json(schema_dir: Path) -> None:
    old = str(schema_dir / "2025-03-26" / "schema.json")
    code, out, _ = _run(old, "2025-06-18", "--schema-dir", str(schema_dir), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["old"]["revision"], data["new"]["revision"]) == ("2025-03-26", "2025-06-18")
    batching = next(c for c in data["changes"] if c["kind"] == "envelope.batching_removed")
    assert (batching["old"], batching["new"]) == (True, False)


@pytest.mark.parametrize("args", [
    ("1999-01-01", "2025-06-18"),
    ("missing/schema.json", "2025-06-18"),
    ("2025-11-25", ""),  # an unset shell variable: it compared against the newest revision
    ("", "2025-11-25"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, str], schema_dir: Path) -> None:
    code, out, err = _run(*args, "--schema-dir", str(schema_dir))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("mcpgen: error: ")


def test_cli_empty_argument_names_nothing(schema_dir: Path) -> None:
    code, _, err = _run("2025-11-25", "", "--schema-dir", str(schema_dir))
    assert (code, err) == (2, "mcpgen: error: an empty argument names no revision and no schema file\n")


def test_cli_schema_nesting_too_deeply_is_bad_input(tmp_path: Path, schema_dir: Path) -> None:
    """Generation said so in one line; the diff of the same schema ended in an internal RecursionError."""
    schema = json.loads((schema_dir / "2025-11-25" / "schema.json").read_text("utf-8"))
    node: dict[str, Any] = {"type": "string"}
    for _ in range(300):
        node = {"type": "object", "properties": {"a": node}}
    schema["$defs"]["Deep"] = node
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps(schema), "utf-8")
    code, out, err = _run("2025-11-25", str(deep), "--schema-dir", str(schema_dir))
    assert (code, out) == (2, "")
    assert err == f"mcpgen: error: 2025-11-25, {deep}: a schema nests too deeply to compare\n"


def test_every_rule_id_of_the_golden_reports_is_one_an_ignore_entry_may_name() -> None:
    kinds = {c["kind"] for path in (REPO / "tests" / "golden" / "diff").glob("*.json") for c in json.loads(path.read_text("utf-8"))["changes"]}
    assert kinds and kinds <= RULE_IDS


def test_cli_invalid_json_file_is_bad_input(tmp_path: Path, schema_dir: Path) -> None:
    bad = tmp_path / "schema.json"
    bad.write_text("{not json", "utf-8")
    code, _, err = _run(str(bad), "2025-06-18", "--schema-dir", str(schema_dir))
    assert code == 2 and "invalid JSON" in err
