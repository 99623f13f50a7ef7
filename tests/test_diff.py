"""`mcpgen diff`: golden reports per revision pair, changelog items, rules on synthetic IR, the CLI."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpgen import ir
from mcpgen.diffing import diff_protocols
from mcpgen.diffing.command import diff_command
from mcpgen.diffing.load import load_protocol
from mcpgen.diffing.model import Change, Report
from mcpgen.diffing.regen import consecutive_pairs, golden_path
from mcpgen.diffing.render import render_json, render_markdown, render_text
from mcpgen.revisions import known_revisions

REPO = Path(__file__).resolve().parent.parent
PAIRS = consecutive_pairs()


@lru_cache(maxsize=None)
def _protocol(revision: str, schema_dir: Path) -> ir.Protocol:
    return load_protocol(revision, schema_dir)


def real_diff(old: str, new: str, schema_dir: Path) -> Report:
    return diff_protocols(_protocol(old, schema_dir), _protocol(new, schema_dir))


def find(report: Report, kind: str, subject: str) -> Change:
    hits = [c for c in report.changes if c.kind == kind and c.subject == subject]
    assert hits, f"no {kind} on {subject}; report has: " + ", ".join(
        f"{c.kind} {c.subject}" for c in report.changes if c.subject.split(".")[0] == subject.split(".")[0]
    )
    return hits[0]


def subjects(report: Report, kind: str) -> set[str]:
    return {c.subject for c in report.changes if c.kind == kind}


# --- golden reports -----------------------------------------------------------------------------


def test_pairs_cover_every_pinned_revision() -> None:
    revs = known_revisions()
    assert [p[0] for p in PAIRS] + [PAIRS[-1][1]] == list(revs)


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{o}_{n}" for o, n in PAIRS])
def test_golden_report(old: str, new: str, schema_dir: Path) -> None:
    golden = golden_path(REPO, old, new)
    assert golden.is_file(), f"missing {golden}: run `python -m mcpgen.diffing.regen --schema-dir {schema_dir}`"
    actual = render_json(real_diff(old, new, schema_dir))
    assert actual == golden.read_text("utf-8"), f"{golden.name} differs: review, then regenerate with mcpgen.diffing.regen"


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
    version = find(r, "field.added.required", "RequestParams._meta.io.modelcontextprotocol/protocolVersion")
    assert version.client == "breaking"
    find(r, "field.added.required", "RequestParams._meta.io.modelcontextprotocol/clientCapabilities")
    find(r, "field.added.optional", "RequestParams._meta.io.modelcontextprotocol/clientInfo")
    find(r, "field.added.optional", "RequestParams._meta.io.modelcontextprotocol/logLevel")
    find(r, "field.added.optional", "Result._meta.io.modelcontextprotocol/serverInfo")
    find(r, "definition.added", "UnsupportedProtocolVersionError")
    find(r, "definition.added", "HeaderMismatchError")
    find(r, "field.removed.required", "ElicitRequestURLParams.elicitationId")
    find(r, "type.widened", "CallToolResult.structuredContent")
    find(r, "field.removed.required", "Tool.outputSchema.type")
    find(r, "capability.removed", "ClientCapabilities.tasks")


# --- rules on hand-built IR -----------------------------------------------------------------------

ENVELOPE = ir.Envelope(False, "JSONRPCError", "JSONRPCResponse", "JSONRPCRequest", "JSONRPCNotification")
STR, INT, NUM = ir.Primitive("string"), ir.Primitive("integer"), ir.Primitive("number")


def fld(name: str, t: ir.TypeExpr, required: bool = True, description: str | None = None) -> ir.Field:
    return ir.Field(name, name, t, required, description)


def model(name: str, *fields: ir.Field, definition: bool = True, description: str | None = None) -> ir.Model:
    return ir.Model(name, f"#/$defs/{name}", description, fields, ir.AnyType(), definition)


def method(name: str, message: str, params: str | None, result: str | None, senders: tuple[ir.Side, ...] = ("client",),
           kind: ir.MethodKind = "request", embedded: bool = False) -> ir.MethodSpec:
    return ir.MethodSpec(name, kind, frozenset(senders), message, params, True, result, name.replace("/", "_"),
                         embedded, ir.Ref(result) if result else None)


def protocol(*defs: ir.Definition, methods: tuple[ir.MethodSpec, ...] = (), batching: bool = False,
             revision: str = "old") -> ir.Protocol:
    envelope = ir.Envelope(batching, ENVELOPE.error_model, ENVELOPE.result_response_model,
                           ENVELOPE.request_model, ENVELOPE.notification_model)
    return ir.Protocol(revision, revision * 8, (), defs, methods, envelope)


def call_world(params: tuple[ir.Field, ...], result: tuple[ir.Field, ...], *extra: ir.Definition,
               inline_params: bool = False, revision: str = "old", params_name: str = "CallParams") -> ir.Protocol:
    """A client → server request `x/call` with params and a result, plus extra definitions."""
    defs = (
        model("CallRequest", fld("method", ir.LiteralOf(("x/call",))), fld("params", ir.Ref(params_name))),
        model(params_name, *params, definition=not inline_params),
        model("CallResult", *result),
        *extra,
    )
    return protocol(*defs, methods=(method("x/call", "CallRequest", params_name, "CallResult"),), revision=revision)


def one(report: Report, kind: str) -> Change:
    hits = [c for c in report.changes if c.kind == kind]
    assert len(hits) == 1, [(c.kind, c.subject) for c in report.changes]
    return hits[0]


def impact(c: Change) -> tuple[str, str]:
    return c.client, c.server


def test_new_required_field_in_what_you_send_breaks_the_sender() -> None:
    old = call_world((fld("a", STR),), ())
    new = call_world((fld("a", STR), fld("b", STR)), ())
    c = one(diff_protocols(old, new), "field.added.required")
    assert c.subject == "CallParams.b"
    assert impact(c) == ("breaking", "compatible")


def test_new_optional_field_is_compatible() -> None:
    c = one(diff_protocols(call_world((), ()), call_world((), (fld("x", STR, False),))), "field.added.optional")
    assert c.subject == "CallResult.x"
    assert impact(c) == ("compatible", "compatible")


def test_removed_required_field_breaks_the_reader() -> None:
    c = one(diff_protocols(call_world((), (fld("x", STR),)), call_world((), ())), "field.removed.required")
    assert impact(c) == ("breaking", "compatible")  # the client reads CallResult


def test_removed_optional_field_is_compatible() -> None:
    c = one(diff_protocols(call_world((), (fld("x", STR, False),)), call_world((), ())), "field.removed.optional")
    assert impact(c) == ("compatible", "compatible")


def test_optional_to_required_breaks_the_writer() -> None:
    c = one(diff_protocols(call_world((fld("a", STR, False),), ()), call_world((fld("a", STR),), ())), "field.now_required")
    assert impact(c) == ("breaking", "compatible")


def test_required_to_optional_breaks_the_reader() -> None:
    c = one(diff_protocols(call_world((), (fld("x", STR),)), call_world((), (fld("x", STR, False),))), "field.now_optional")
    assert impact(c) == ("breaking", "compatible")


def test_integer_to_number_is_widened_and_breaks_a_strict_receiver() -> None:
    c = one(diff_protocols(call_world((), (fld("n", INT),)), call_world((), (fld("n", NUM),))), "type.widened")
    assert c.detail == "type widened: integer → number"
    assert (c.old, c.new) == ("integer", "number")
    assert impact(c) == ("breaking", "compatible")


def test_number_to_integer_in_what_you_send_is_narrowed_and_breaks_the_sender() -> None:
    c = one(diff_protocols(call_world((fld("n", NUM),), ()), call_world((fld("n", INT),), ())), "type.narrowed")
    assert impact(c) == ("breaking", "compatible")


def test_new_enum_value_is_widened() -> None:
    old = call_world((), (fld("s", ir.LiteralOf(("a", "b"))),))
    new = call_world((), (fld("s", ir.LiteralOf(("a", "b", "c"))),))
    c = one(diff_protocols(old, new), "type.widened")
    assert '+"c"' in c.detail


def test_removed_and_added_enum_values_are_a_change_that_breaks_both_roles() -> None:
    old = call_world((), (fld("s", ir.LiteralOf(("a", "b"))),))
    new = call_world((), (fld("s", ir.LiteralOf(("a", "c"))),))
    c = one(diff_protocols(old, new), "type.changed")
    assert impact(c) == ("breaking", "breaking")  # the client reads it, the server writes it


def test_new_union_member_of_an_alias_is_widened() -> None:
    def world(*members: str) -> ir.Protocol:
        content = ir.Alias("Content", "#/$defs/Content", None, ir.UnionOf(tuple(ir.Ref(m) for m in members)), True)
        parts = [model(m, fld("type", ir.LiteralOf((m.lower(),)))) for m in members]
        return call_world((), (fld("content", ir.ListOf(ir.Ref("Content"))),), content, *parts)

    r = diff_protocols(world("Text", "Image"), world("Text", "Image", "Audio"))
    c = one(r, "type.widened")
    assert (c.subject, c.detail) == ("Content", "type widened: +Audio")
    assert impact(c) == ("breaking", "compatible")
    assert one(r, "definition.added").subject == "Audio"


def test_description_only_changes_are_cosmetic_and_hidden() -> None:
    old = call_world((), (fld("x", STR, description="old words"),))
    new = call_world((), (fld("x", STR, description="new words"),))
    r = diff_protocols(old, new)
    c = one(r, "description.changed")
    assert c.cosmetic and c.subject == "CallResult.x"
    assert r.visible(verbose=False) == ()
    assert r.counts() == {"changes": 0, "cosmetic": 1, "breaking_client": 0, "breaking_server": 0, "breaking": 0}
    assert "CallResult.x" not in render_text(r) and "CallResult.x" in render_text(r, verbose=True)


def test_same_shape_under_a_new_name_is_a_rename() -> None:
    ref_old = model("ResourceReference", fld("type", ir.LiteralOf(("ref/resource",))), fld("uri", STR))
    ref_new = model("ResourceTemplateReference", fld("type", ir.LiteralOf(("ref/resource",))), fld("uri", STR))
    old = call_world((fld("ref", ir.Ref("ResourceReference")),), (), ref_old)
    new = call_world((fld("ref", ir.Ref("ResourceTemplateReference")),), (), ref_new)
    r = diff_protocols(old, new)
    assert [(c.kind, c.subject, c.old) for c in r.changes] == [
        ("definition.renamed", "ResourceTemplateReference", "ResourceReference")
    ]


def test_inline_params_becoming_a_named_definition_compares_through_the_ref() -> None:
    fields = (fld("name", STR), fld("arguments", ir.DictOf(ir.AnyType()), False))
    old = call_world(fields, (), inline_params=True, params_name="CallRequestParams")
    new = call_world(fields + (fld("task", STR, False),), (), params_name="CallRequestParams")
    r = diff_protocols(old, new)
    kinds = sorted((c.kind, c.subject) for c in r.changes)
    assert kinds == [("definition.extracted", "CallRequestParams"), ("field.added.optional", "CallRequest.params.task")]
    assert one(r, "definition.extracted").cosmetic


def test_renamed_inline_object_at_the_same_position_is_compared_structurally() -> None:
    old = call_world((fld("cursor", STR, False),), (), inline_params=True, params_name="ListParams")
    new = call_world((fld("cursor", STR, False),), (), params_name="PaginatedParams")
    r = diff_protocols(old, new)
    assert [c.kind for c in r.changes] == ["definition.extracted"]


def test_capabilities_added_and_removed_including_nested_ones() -> None:
    def world(*caps: ir.Field) -> ir.Protocol:
        tools = model("ServerCapabilitiesTools", *caps, definition=False)
        server = model("ServerCapabilities", fld("tools", ir.Ref("ServerCapabilitiesTools"), False))
        return call_world((), (fld("capabilities", ir.Ref("ServerCapabilities")),), server, tools)

    r = diff_protocols(world(fld("listChanged", ir.Primitive("boolean"), False)),
                       world(fld("paginated", ir.Primitive("boolean"), False)))
    added = one(r, "capability.added")
    removed = one(r, "capability.removed")
    assert added.subject == "ServerCapabilities.tools.paginated"
    assert removed.subject == "ServerCapabilities.tools.listChanged"
    assert impact(added) == ("compatible", "compatible")
    assert impact(removed) == ("breaking", "compatible")  # the client relied on the server declaring it
    assert not [c for c in r.changes if c.category == "field"]


def _methods_world(*methods: ir.MethodSpec, revision: str = "old") -> ir.Protocol:
    defs = []
    for m in methods:
        defs.append(model(m.message, fld("method", ir.LiteralOf((m.name,)))))
        if m.result:
            defs.append(model(m.result))
    unique = {d.name: d for d in defs}
    return protocol(*unique.values(), methods=methods, revision=revision)


def test_removed_method_breaks_its_caller_only() -> None:
    old = _methods_world(method("ping", "PingRequest", None, "EmptyResult", ("client",)))
    c = one(diff_protocols(old, _methods_world()), "method.removed")
    assert (c.subject, c.direction) == ("ping", "client → server")
    assert impact(c) == ("breaking", "compatible")


def test_added_method_is_compatible() -> None:
    new = _methods_world(method("tasks/get", "GetTaskRequest", None, "GetTaskResult", ("client", "server")))
    c = one(diff_protocols(_methods_world(), new), "method.added")
    assert c.direction == "both ways"
    assert impact(c) == ("compatible", "compatible")


def test_request_moved_into_a_result_breaks_both_sides() -> None:
    old = _methods_world(method("sampling/createMessage", "CreateMessageRequest", None, "CreateMessageResult", ("server",)))
    new = _methods_world(method("sampling/createMessage", "CreateMessageRequest", None, "CreateMessageResult", ("server",), embedded=True))
    c = one(diff_protocols(old, new), "method.moved")
    assert impact(c) == ("breaking", "breaking")
    assert "InputRequiredResult" in c.detail


def test_sender_changes() -> None:
    note = "notifications/progress"
    old = _methods_world(method(note, "ProgressNotification", None, None, ("client", "server"), kind="notification"))
    new = _methods_world(method(note, "ProgressNotification", None, None, ("server",), kind="notification"))
    r = diff_protocols(old, new)
    c = one(r, "method.sender_removed")
    assert impact(c) == ("breaking", "compatible")
    back = one(diff_protocols(new, old), "method.sender_added")
    assert impact(back) == ("compatible", "compatible")


def test_request_becoming_a_notification_breaks_both() -> None:
    old = _methods_world(method("x", "XRequest", None, "XResult"))
    new = _methods_world(method("x", "XRequest", None, None, kind="notification"))
    assert impact(one(diff_protocols(old, new), "method.kind_changed")) == ("breaking", "breaking")


def test_batching_added_and_removed() -> None:
    with_batch = protocol(batching=True)
    without = protocol(batching=False)
    assert impact(one(diff_protocols(without, with_batch), "envelope.batching_added")) == ("breaking", "breaking")
    assert one(diff_protocols(with_batch, without), "envelope.batching_removed").subject == "batching"


def test_envelope_fields_declared_in_messages_are_one_compatible_change() -> None:
    old = call_world((), ())
    envelope = (fld("jsonrpc", ir.LiteralOf(("2.0",))), fld("id", STR))
    request = model("CallRequest", *envelope, fld("method", ir.LiteralOf(("x/call",))), fld("params", ir.Ref("CallParams")))
    new = ir.Protocol("new", "n" * 64, (), (request,) + old.definitions[1:], old.methods, old.envelope)
    c = one(diff_protocols(old, new), "envelope.fields_declared")
    assert impact(c) == ("compatible", "compatible")
    assert [x.kind for x in diff_protocols(old, new).changes] == ["envelope.fields_declared"]


def test_synthetic_self_diff_is_empty() -> None:
    world = call_world((fld("a", STR),), (fld("b", INT, False),))
    assert diff_protocols(world, world).changes == ()


# --- rendering and the command ----------------------------------------------------------------------


def _sample() -> Report:
    return diff_protocols(call_world((), (fld("n", INT),)), call_world((fld("a", STR),), (fld("n", NUM),)))


def test_json_shape_is_the_documented_one() -> None:
    data = json.loads(render_json(_sample()))
    assert list(data) == ["format", "old", "new", "summary", "changes"]
    assert data["format"] == "mcpgen-diff/1"
    assert list(data["old"]) == ["revision", "sha256", "errata"]
    assert set(data["summary"]) == {"changes", "cosmetic", "breaking_client", "breaking_server", "breaking"}
    assert list(data["changes"][0]) == ["category", "kind", "subject", "detail", "old", "new", "direction",
                                        "client", "server", "cosmetic"]
    assert data["summary"]["breaking_client"] == 2


def test_text_puts_the_summary_first_and_markdown_lists_breaking_changes() -> None:
    report = _sample()
    text = render_text(report).splitlines()
    assert text[1].startswith("2 changes, 2 breaking (2 for clients, 0 for servers)")
    markdown = render_markdown(report)
    assert "## Breaking changes" in markdown and "`CallResult.n`" in markdown


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(diff_command, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_cli_exit_codes(schema_dir: Path) -> None:
    base = ("2024-11-05", "2025-03-26", "--schema-dir", str(schema_dir))
    assert _run(*base)[0] == 0
    assert _run(*base, "--fail-on", "breaking")[0] == 1
    assert _run(*base, "--fail-on", "any")[0] == 1
    assert _run("2025-03-26", "2025-03-26", "--schema-dir", str(schema_dir), "--fail-on", "any")[0] == 0


def test_cli_text_is_plain_when_not_a_tty(schema_dir: Path) -> None:
    code, out, _ = _run("2024-11-05", "2025-03-26", "--schema-dir", str(schema_dir))
    assert code == 0 and "\x1b[" not in out
    assert out.splitlines()[0] == "mcpgen diff 2024-11-05 → 2025-03-26"
    assert "batching" in out


def test_cli_accepts_schema_files_and_emits_json(schema_dir: Path) -> None:
    old = str(schema_dir / "2025-03-26" / "schema.json")
    code, out, _ = _run(old, "2025-06-18", "--schema-dir", str(schema_dir), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["old"]["revision"], data["new"]["revision"]) == ("2025-03-26", "2025-06-18")
    assert any(c["kind"] == "envelope.batching_removed" for c in data["changes"])


@pytest.mark.parametrize("args", [
    ("1999-01-01", "2025-06-18"),
    ("missing/schema.json", "2025-06-18"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, str], schema_dir: Path) -> None:
    code, out, err = _run(*args, "--schema-dir", str(schema_dir))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("mcpgen: error: ")


def test_cli_invalid_json_file_is_bad_input(tmp_path: Path, schema_dir: Path) -> None:
    bad = tmp_path / "schema.json"
    bad.write_text("{not json", "utf-8")
    code, _, err = _run(str(bad), "2025-06-18", "--schema-dir", str(schema_dir))
    assert code == 2 and "invalid JSON" in err
