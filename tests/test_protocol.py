"""The intermediate model of each real revision: names, roles, pairing, discriminators."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from shared import REVISIONS
from mcpgen.model import ir
from mcpgen.inputs.errata import apply_errata
from mcpgen.errors import SchemaError
from mcpgen.model.parser import defs_key_of
from mcpgen.model.protocol import build_protocol
from mcpgen.model.roles import derive_methods


def load(schema_dir: Path, revision: str) -> dict:
    return json.loads((schema_dir / revision / "schema.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def protocols(schema_dir: Path) -> dict[str, ir.Protocol]:
    out = {}
    for r in REVISIONS:
        raw = (schema_dir / r / "schema.json").read_bytes()
        sha = hashlib.sha256(raw).hexdigest()
        fixed = apply_errata(json.loads(raw), r, pinned=True)
        assert fixed.errata, f"{r} has errata and its pinned schema gets them"
        out[r] = build_protocol(fixed.schema, r, sha, fixed.errata)
    return out


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_definition_keeps_its_exact_name(schema_dir: Path, protocols: dict, revision: str) -> None:
    schema = load(schema_dir, revision)
    names = {d.name for d in protocols[revision].definitions if d.is_definition}
    assert names == set(schema[defs_key_of(schema)])


@pytest.mark.parametrize("revision", REVISIONS)
def test_inline_objects_are_named_by_position_never_numbered(protocols: dict, revision: str) -> None:
    hoisted = [d.name for d in protocols[revision].definitions if not d.is_definition]
    assert hoisted, "every revision has inline objects"
    assert not [n for n in hoisted if re.search(r"\d$", n)]
    assert len(set(d.name for d in protocols[revision].definitions)) == len(protocols[revision].definitions)


def test_position_names_of_2024_11_05(protocols: dict) -> None:
    p = protocols["2024-11-05"]
    params = p.definition("CallToolRequestParams")
    assert isinstance(params, ir.Model) and not params.is_definition
    assert params.pointer.startswith("#/definitions/CallToolRequest/")
    assert {f.wire_name for f in params.fields} >= {"name", "arguments"}
    tool = p.definition("Tool")
    assert isinstance(tool, ir.Model)
    schema_field = next(f for f in tool.fields if f.wire_name == "inputSchema")
    assert schema_field.python_name == "input_schema" and schema_field.type == ir.Ref("ToolInputSchema")


def test_number_integer_and_format_types(protocols: dict) -> None:
    p = protocols["2025-11-25"]
    annotations = p.definition("Annotations")
    assert isinstance(annotations, ir.Model)
    priority = next(f for f in annotations.fields if f.wire_name == "priority")
    assert priority.type == ir.Primitive("number")
    resource = p.definition("Resource")
    assert isinstance(resource, ir.Model)
    assert next(f for f in resource.fields if f.wire_name == "uri").type == ir.Primitive("string")
    blob = p.definition("BlobResourceContents")
    assert isinstance(blob, ir.Model)
    assert next(f for f in blob.fields if f.wire_name == "blob").type == ir.Primitive("string")


@pytest.mark.parametrize("revision", REVISIONS)
def test_role_unions_are_discriminated_on_method(protocols: dict, revision: str) -> None:
    p = protocols[revision]
    for name in ("ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"):
        try:
            d = p.definition(name)
        except KeyError:
            continue
        if isinstance(d, ir.Alias) and isinstance(d.type, ir.UnionOf):
            assert d.type.discriminator == "method", name


def test_content_blocks_are_discriminated_on_type(protocols: dict) -> None:
    for r in ("2025-06-18", "2025-11-25", "2026-07-28"):
        block = protocols[r].definition("ContentBlock")
        assert isinstance(block, ir.Alias) and isinstance(block.type, ir.UnionOf)
        assert block.type.discriminator == "type"


def _senders(p: ir.Protocol) -> dict[str, set[str]]:
    return {m.name: set(m.senders) for m in p.methods}


@pytest.mark.parametrize("revision", REVISIONS)
def test_methods_come_from_role_unions(protocols: dict, revision: str) -> None:
    p = protocols[revision]
    senders = _senders(p)
    assert senders["tools/call"] == {"client"}
    assert senders["notifications/cancelled"] == {"client", "server"}
    assert senders["notifications/tools/list_changed"] == {"server"}
    for m in p.methods:
        assert (m.result is None) == (m.kind == "notification")
        model = p.definition(m.message)
        assert isinstance(model, ir.Model)
        assert m.python_name.isidentifier()
    assert len({m.python_name for m in p.methods}) == len(p.methods)


@pytest.mark.parametrize("revision", REVISIONS[:4])
def test_initialize_and_ping_before_2026(protocols: dict, revision: str) -> None:
    p = protocols[revision]
    assert p.method("initialize").result == "InitializeResult"
    ping = p.method("ping")
    assert ping.senders == frozenset({"client", "server"})
    assert ping.result == "EmptyResult"  # from schema/pairings.json
    assert p.method("sampling/createMessage").senders == frozenset({"server"})
    assert not any(m.embedded for m in p.methods)


def test_2026_07_28_is_stateless_with_embedded_input_requests(protocols: dict) -> None:
    p = protocols["2026-07-28"]
    names = {m.name for m in p.methods}
    assert "initialize" not in names and "ping" not in names
    assert p.method("server/discover").result == "DiscoverResult"
    with pytest.raises(KeyError):
        p.definition("ServerRequest")
    embedded = {m.name for m in p.methods if m.embedded}
    assert embedded == {"sampling/createMessage", "elicitation/create", "roots/list"}
    call = p.method("tools/call")
    assert call.result == "CallToolResult"
    assert call.result_type == ir.UnionOf((ir.Ref("InputRequiredResult"), ir.Ref("CallToolResult")), "result_type")
    # the single-member ClientNotification union is an inlined copy: the method maps to the definition it copies
    assert p.method("notifications/cancelled").message == "CancelledNotification"


def test_envelope(protocols: dict) -> None:
    assert protocols["2025-03-26"].envelope.batching
    assert not protocols["2025-06-18"].envelope.batching
    assert protocols["2024-11-05"].envelope.error_model == "JSONRPCError"
    assert protocols["2025-11-25"].envelope.error_model == "JSONRPCErrorResponse"


def test_unpairable_request_fails_naming_it(protocols: dict) -> None:  # without assume_base (pinned revisions)
    definitions = protocols["2024-11-05"].definitions
    with pytest.raises(SchemaError, match=r"cannot pair request PingRequest \(ping\)"):
        derive_methods(definitions, table={})


def test_build_is_deterministic(schema_dir: Path) -> None:
    schema = load(schema_dir, "2025-11-25")
    assert build_protocol(schema, "r", "s") == build_protocol(json.loads(json.dumps(schema)), "r", "s")
