"""`mcpgen diff` rules on small hand-written schema pairs: fields, types, names, capabilities, methods."""

from __future__ import annotations

from typing import Any

from diff_worlds import Schema, accepts, obj, ref, request, world
from mcpgen.commands.diff import diff_revisions, revision_of
from mcpgen.commands.diff.model import Change, Report
from mcpgen.commands.diff.report import render_text

STR, INT, NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}


def diff(old: Schema, new: Schema) -> Report:
    return diff_revisions(revision_of(old, "old"), revision_of(new, "new"))


def one(report: Report, kind: str) -> Change:
    hits = [c for c in report.changes if c.kind == kind]
    assert len(hits) == 1, [(c.kind, c.subject) for c in report.changes]
    return hits[0]


def impact(c: Change) -> tuple[str, str]:
    return c.client, c.server


def params(*required: str, **props: Any) -> dict[str, Any]:
    return obj(props, required)


def test_new_required_field_in_what_you_send_breaks_the_sender() -> None:
    old, new = world(call_params=params("a", a=STR)), world(call_params=params("a", "b", a=STR, b=STR))
    assert not accepts(new, "CallParams", {"a": "x"})
    c = one(diff(old, new), "field.added.required")
    assert (c.subject, c.new) == ("CallParams.b", STR)
    assert impact(c) == ("breaking", "compatible")


def test_new_optional_field_is_compatible() -> None:
    c = one(diff(world(call_result=params()), world(call_result=params(x=STR))), "field.added.optional")
    assert c.subject == "CallResult.x" and impact(c) == ("compatible", "compatible")


def test_removed_required_field_breaks_the_reader() -> None:
    c = one(diff(world(call_result=params("x", x=STR)), world(call_result=params())), "field.removed.required")
    assert impact(c) == ("breaking", "compatible")  # the client reads CallResult


def test_removed_optional_field_is_compatible() -> None:
    c = one(diff(world(call_result=params(x=STR)), world(call_result=params())), "field.removed.optional")
    assert impact(c) == ("compatible", "compatible")


def test_optional_to_required_breaks_the_writer_and_back_breaks_the_reader() -> None:
    loose, strict = world(call_params=params(a=STR)), world(call_params=params("a", a=STR))
    assert accepts(loose, "CallParams", {}) and not accepts(strict, "CallParams", {})
    assert impact(one(diff(loose, strict), "field.now_required")) == ("breaking", "compatible")
    assert impact(one(diff(strict, loose), "field.now_optional")) == ("compatible", "breaking")  # the server reads it


def test_integer_to_number_is_widened_and_breaks_a_strict_receiver() -> None:
    old, new = world(call_result=params("n", n=INT)), world(call_result=params("n", n=NUM))
    assert accepts(new, "CallResult", {"n": 2.5}) and not accepts(old, "CallResult", {"n": 2.5})
    c = one(diff(old, new), "type.widened")
    assert c.detail == "type widened: integer → number"
    assert (c.old, c.new) == (INT, NUM)
    assert impact(c) == ("breaking", "compatible")


def test_number_to_integer_in_what_you_send_is_narrowed_and_breaks_the_sender() -> None:
    old, new = world(call_params=params("n", n=NUM)), world(call_params=params("n", n=INT))
    assert accepts(old, "CallParams", {"n": 2.5}) and not accepts(new, "CallParams", {"n": 2.5})
    assert impact(one(diff(old, new), "type.narrowed")) == ("breaking", "compatible")


def test_enum_values_added_widen_and_swapped_values_change_both_roles() -> None:
    def result(*values: str) -> Schema:
        return world(call_result=params("s", s={"type": "string", "enum": list(values)}))

    assert '+"c"' in one(diff(result("a", "b"), result("a", "b", "c")), "type.widened").detail
    c = one(diff(result("a", "b"), result("a", "c")), "type.changed")
    assert impact(c) == ("breaking", "breaking")  # the client reads it, the server writes it


def test_new_union_member_of_an_alias_is_widened() -> None:
    def content(*members: str) -> Schema:
        parts = {m: params("type", type={"const": m.lower(), "type": "string"}) for m in members}
        return world(call_result=params("content", content={"type": "array", "items": ref("Content")}),
                     extra={"Content": {"anyOf": [ref(m) for m in members]}, **parts})

    r = diff(content("Text", "Image"), content("Text", "Image", "Audio"))
    c = one(r, "type.widened")
    assert (c.subject, c.detail) == ("Content", "type widened: +Audio")
    assert impact(c) == ("breaking", "compatible")
    assert one(r, "definition.added").subject == "Audio"


def test_description_only_changes_are_cosmetic_and_hidden() -> None:
    old = world(call_result=params(x={**STR, "description": "old words"}))
    new = world(call_result=params(x={**STR, "description": "new words"}))
    r = diff(old, new)
    c = one(r, "description.changed")
    assert c.cosmetic and c.subject == "CallResult.x"
    assert r.visible(verbose=False) == ()
    assert "CallResult.x" not in render_text(r) and "CallResult.x" in render_text(r, verbose=True)


def test_same_shape_under_a_new_name_is_a_rename() -> None:
    reference = params("type", "uri", type={"const": "ref/resource", "type": "string"}, uri=STR)
    old = world(call_params=params("ref", ref=ref("ResourceReference")), extra={"ResourceReference": reference})
    new = world(call_params=params("ref", ref=ref("ResourceTemplateReference")), extra={"ResourceTemplateReference": reference})
    assert [(c.kind, c.subject, c.old) for c in diff(old, new).changes] == [
        ("definition.renamed", "ResourceTemplateReference", "ResourceReference")]


def test_capabilities_added_and_removed_including_nested_ones() -> None:
    def caps(**tools: Any) -> Schema:
        server = obj({"tools": obj(tools)})
        return world(call_result=params("capabilities", capabilities=ref("ServerCapabilities")),
                     extra={"ServerCapabilities": server})

    r = diff(caps(listChanged={"type": "boolean"}), caps(paginated={"type": "boolean"}))
    added, removed = one(r, "capability.added"), one(r, "capability.removed")
    assert added.subject == "ServerCapabilities.tools.paginated" and impact(added) == ("compatible", "compatible")
    assert removed.subject == "ServerCapabilities.tools.listChanged"
    assert impact(removed) == ("breaking", "compatible")  # the client relied on the server declaring it
    assert not [c for c in r.changes if c.category == "field"]


def _with_ping(*, senders: tuple[str, ...] = ("ClientRequest",), notification: bool = False) -> Schema:
    ping = obj({"method": {"const": "x/ping", "type": "string"}})
    extra: dict[str, Any] = {"PingRequest": ping, "PingResult": obj({})}
    for union in ("ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"):
        members = [ref("CallRequest")] if union == "ClientRequest" else [ref("AskRequest")] if union == "ServerRequest" else []
        if union in senders:
            members.append(ref("PingRequest"))
        extra[union] = {"anyOf": members}
    if notification:
        extra["PingNotification"] = extra.pop("PingRequest")
        for union in senders:
            extra[union] = {"anyOf": [ref("PingNotification")]}
        extra["ClientRequest"] = {"anyOf": [ref("CallRequest")]}
    return world(extra=extra)


def test_removed_method_breaks_its_caller_only_and_an_added_one_nobody() -> None:
    c = one(diff(_with_ping(), world()), "method.removed")
    assert (c.subject, c.direction) == ("x/ping", "client → server")
    assert impact(c) == ("breaking", "compatible")
    assert impact(one(diff(world(), _with_ping()), "method.added")) == ("compatible", "compatible")


def test_sender_changes() -> None:
    both, server_only = _with_ping(senders=("ClientRequest", "ServerRequest")), _with_ping(senders=("ServerRequest",))
    c = one(diff(both, server_only), "method.sender_removed")
    assert impact(c) == ("breaking", "compatible")
    assert (c.old, c.new) == (["client", "server"], ["server"])
    assert impact(one(diff(server_only, both), "method.sender_added")) == ("compatible", "compatible")


def test_request_becoming_a_notification_breaks_both() -> None:
    as_note = _with_ping(senders=("ClientNotification",), notification=True)
    assert impact(one(diff(_with_ping(), as_note), "method.kind_changed")) == ("breaking", "breaking")


def test_request_moved_into_a_result_breaks_both_sides() -> None:
    embedded = world(extra={"ServerRequest": {"anyOf": []}, "InputRequest": {"anyOf": [ref("AskRequest")]}})
    c = one(diff(world(), embedded), "method.moved")
    assert impact(c) == ("breaking", "breaking") and "InputRequiredResult" in c.detail


def test_envelope_fields_declared_in_messages_are_one_compatible_change() -> None:
    old = world()
    declared = request("x/call", "CallParams")
    declared["properties"] |= {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}}
    new = world(extra={"CallRequest": declared})
    assert [(c.kind, impact(c)) for c in diff(old, new).changes] == [
        ("envelope.fields_declared", ("compatible", "compatible"))]


def test_a_world_against_itself_is_empty() -> None:
    assert diff(world(), world()).changes == ()
