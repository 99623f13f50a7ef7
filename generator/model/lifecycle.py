"""Find how a revision starts conversations: the legacy `initialize` handshake or modern per-request `_meta`.

The wire names here are protocol knowledge that lives in the generator, never in templates. Each is
looked up in the revision's IR; a schema that renames one fails generation naming it.
"""

from __future__ import annotations

from typing import Any

from . import ir
from ..errors import SchemaError
from .transport import name_headers, tool_headers

INITIALIZE = "initialize"
PING = "ping"
CANCELLED = "notifications/cancelled"
INITIALIZED = "notifications/initialized"
DISCOVER = "server/discover"
UNSUPPORTED_VERSION_ERROR = "UnsupportedProtocolVersionError"
HEADER_MISMATCH_ERROR = "HeaderMismatchError"
MISSING_CAPABILITY_ERROR = "MissingRequiredClientCapabilityError"
INPUT_REQUIRED_RESULT = "InputRequiredResult"
CREATE_TASK_RESULT = "CreateTaskResult"
TASK_PARAM = "task"
META = "_meta"
SET_LEVEL = "logging/setLevel"
SUBSCRIBE = "resources/subscribe"
UNSUBSCRIBE = "resources/unsubscribe"
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
RESOURCE_UPDATED = "notifications/resources/updated"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
LIST_CHANGED = "ListChanged"  # a listen filter's `<capability>ListChanged` flag opts in to `notifications/<capability>/list_changed`
SERVER_CAPABILITIES = "ServerCapabilities"


class _Finder:
    """Lookups in one revision's IR that fail with a message naming the revision and the missing piece."""

    def __init__(self, protocol: ir.Protocol) -> None:
        self.protocol = protocol
        self.defs = {d.name: d for d in protocol.definitions}

    def fail(self, what: str) -> SchemaError:
        return SchemaError(f"revision {self.protocol.revision}: {what}; mcpgen cannot run sessions of this revision")

    def model(self, name: str | None, what: str) -> ir.Model:
        d = self.defs.get(name or "")
        if not isinstance(d, ir.Model):
            raise self.fail(f"{what} ({name}) is not an object definition")
        return d

    def ref_model(self, model: ir.Model, wire: str) -> ir.Model:
        f = self.field(model, wire)
        if not isinstance(f.type, ir.Ref):
            raise self.fail(f"{model.name}.{wire} is not an object")
        return self.model(f.type.name, f"{model.name}.{wire}")

    def field(self, model: ir.Model, wire: str) -> ir.Field:
        found = next((f for f in model.fields if f.wire_name == wire), None)
        if found is None:
            raise self.fail(f"{model.name} has no field {wire!r}")
        return found

    def optional_field(self, model: ir.Model, wire: str) -> str | None:
        return wire if any(f.wire_name == wire for f in model.fields) else None

    def method(self, name: str) -> ir.MethodSpec | None:
        return next((m for m in self.protocol.methods if m.name == name), None)

    def const(self, model: ir.Model, wire: str) -> ir.JsonScalar:
        t = self.field(model, wire).type
        if not isinstance(t, ir.LiteralOf) or len(t.values) != 1:
            raise self.fail(f"{model.name}.{wire} is not a constant")
        return t.values[0]


def _legacy(find: _Finder, spec: ir.MethodSpec) -> ir.LegacyHandshake:
    params = find.model(spec.params, f"{INITIALIZE} params")
    result = find.model(spec.result, f"{INITIALIZE} result")
    for wire in ("protocolVersion", "capabilities", "clientInfo"):
        find.field(params, wire)
    for wire in ("protocolVersion", "capabilities", "serverInfo"):
        find.field(result, wire)
    initialized = find.method(INITIALIZED)
    return ir.LegacyHandshake(
        method=spec.name,
        initialized=initialized.name if initialized is not None else None,
        params=params.name,
        result=result.name,
        version_key="protocolVersion",
        capabilities_key="capabilities",
        client_info_key="clientInfo",
        server_info_key="serverInfo",
        instructions_key=find.optional_field(result, "instructions"),
        **_session_requests(find),
    )


def _session_requests(find: _Finder) -> dict[str, str | None]:
    """The session requests a modern revision turned into per-request facts: setting the log level,
    (un)subscribing to a resource's updates (each None when the revision lacks it)."""
    facts: dict[str, str | None] = {}
    set_level = find.method(SET_LEVEL)
    if set_level is not None:
        find.field(find.model(set_level.params, f"{SET_LEVEL} params"), "level")
        facts.update(set_level=set_level.name, level_key="level")
    subscribe, unsubscribe = find.method(SUBSCRIBE), find.method(UNSUBSCRIBE)
    if subscribe is not None and unsubscribe is not None:
        for spec in (subscribe, unsubscribe):
            find.field(find.model(spec.params, f"{spec.name} params"), "uri")
        facts.update(subscribe=subscribe.name, unsubscribe=unsubscribe.name, uri_key="uri")
    return facts


def _listen(find: _Finder, request_meta: ir.Model) -> dict[str, Any]:
    """Where a modern revision's requests ask for log messages and watch resources (each None when absent)."""
    facts: dict[str, Any] = {"log_level_key": find.optional_field(request_meta, "io.modelcontextprotocol/logLevel")}
    listen, acknowledged = find.method(LISTEN), find.method(ACKNOWLEDGED)
    if listen is not None:
        wanted = find.ref_model(find.model(listen.params, f"{LISTEN} params"), "notifications")
        resources = find.optional_field(wanted, "resourceSubscriptions")
        updated = find.method(RESOURCE_UPDATED) if resources else None
        if updated is not None:
            find.field(find.model(updated.params, f"{RESOURCE_UPDATED} params"), "uri")
        facts.update(
            listen=listen.name,
            listen_filter_key="notifications",
            resource_subscriptions_key=resources,
            acknowledged=acknowledged.name if acknowledged is not None else None,
            subscription_id_key=_subscription_id_key(find, acknowledged),
            listen_flags=_listen_flags(find, wanted),
            resource_updated=updated.name if updated is not None else None,
            resource_updated_uri_key="uri" if updated is not None else None,
        )
    return facts


def _subscription_id_key(find: _Finder, acknowledged: ir.MethodSpec | None) -> str | None:
    """The notification `_meta` key naming a listen stream, found in the acknowledgement's params."""
    if acknowledged is None:
        return None
    params = find.model(acknowledged.params, f"{ACKNOWLEDGED} params")
    find.field(params, "notifications")
    return find.optional_field(find.ref_model(params, META), SUBSCRIPTION_ID)


def _listen_flags(find: _Finder, wanted: ir.Model) -> tuple[tuple[str, str, str, str], ...]:
    """The filter's list-change flags whose notification and server capability flag the revision has."""
    capabilities = find.defs.get(SERVER_CAPABILITIES)
    flags = []
    for field in wanted.fields:
        family = field.wire_name.removesuffix(LIST_CHANGED)
        method = f"notifications/{family}/list_changed"
        if family == field.wire_name or find.method(method) is None or not isinstance(capabilities, ir.Model):
            continue
        holder = next((f for f in capabilities.fields if f.wire_name == family), None)
        if holder is not None and isinstance(holder.type, ir.Ref):
            if find.optional_field(find.model(holder.type.name, family), "listChanged"):
                flags.append((field.wire_name, method, family, "listChanged"))
    return tuple(flags)


def _modern(find: _Finder, spec: ir.MethodSpec) -> ir.ModernHandshake:
    params = find.model(spec.params, f"{DISCOVER} params")
    request_meta = find.ref_model(params, META)
    version_key = "io.modelcontextprotocol/protocolVersion"
    capabilities_key = "io.modelcontextprotocol/clientCapabilities"
    client_info_key = "io.modelcontextprotocol/clientInfo"
    for wire in (version_key, capabilities_key, client_info_key):
        find.field(request_meta, wire)
    result = find.model(spec.result, f"{DISCOVER} result")
    for wire in ("supportedVersions", "capabilities"):
        find.field(result, wire)
    server_info_key = "io.modelcontextprotocol/serverInfo"
    find.field(find.ref_model(result, META), server_info_key)
    error = find.model(UNSUPPORTED_VERSION_ERROR, "the unsupported-version error")
    body = find.ref_model(error, "error")
    code = find.const(body, "code")
    if not isinstance(code, int) or isinstance(code, bool):
        raise find.fail(f"{UNSUPPORTED_VERSION_ERROR}.error.code is not an integer constant")
    data = find.ref_model(body, "data")
    for wire in ("requested", "supported"):
        find.field(data, wire)
    protocol = find.protocol
    return ir.ModernHandshake(
        discover=spec.name,
        result=result.name,
        versions_key="supportedVersions",
        capabilities_key="capabilities",
        instructions_key=find.optional_field(result, "instructions"),
        server_info_key=server_info_key,
        meta_key=META,
        version_key=version_key,
        client_capabilities_key=capabilities_key,
        client_info_key=client_info_key,
        unsupported_code=code,
        requested_key="requested",
        supported_key="supported",
        header_mismatch_code=_error_code(find, HEADER_MISMATCH_ERROR),
        missing_capability_code=_error_code(find, MISSING_CAPABILITY_ERROR),
        name_headers=name_headers(protocol),
        tool_headers=tool_headers(protocol),
        **_listen(find, request_meta),
    )


def _error_code(find: _Finder, definition: str) -> int | None:
    """The constant `error.code` of an error response definition, when the schema has it."""
    if not isinstance(find.defs.get(definition), ir.Model):
        return None
    code = find.const(find.ref_model(find.model(definition, definition), "error"), "code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _input_required(find: _Finder) -> ir.InputRequired | None:
    if INPUT_REQUIRED_RESULT not in find.defs:
        return None
    result = find.model(INPUT_REQUIRED_RESULT, "the input-required result")
    find.field(result, "inputRequests")
    find.field(result, "requestState")
    return ir.InputRequired(
        result=result.name,
        requests_key="inputRequests",
        responses_key="inputResponses",
        state_key="requestState",
    )


def lifecycle(protocol: ir.Protocol) -> ir.Lifecycle:
    """The lifecycle facts of a revision: legacy (an `initialize` method), modern (`server/discover`),
    or none (a draft with neither: its packages run without a handshake)."""
    find = _Finder(protocol)
    initialize, discover = find.method(INITIALIZE), find.method(DISCOVER)
    if initialize is not None and discover is not None:
        raise find.fail(f"it defines both {INITIALIZE} and {DISCOVER}")
    common = {
        "implementation": _implementation(find, initialize, discover),
        "ping": PING if find.method(PING) is not None else None,
        **_cancelled(find),
        "tasks_result": CREATE_TASK_RESULT if isinstance(find.defs.get(CREATE_TASK_RESULT), ir.Model) else None,
    }
    if initialize is not None:
        return ir.Lifecycle("legacy", _legacy(find, initialize), None, None, **common)
    if discover is not None:
        return ir.Lifecycle("modern", None, _modern(find, discover), _input_required(find), **common)
    return ir.Lifecycle("none", None, None, None, **common)


def _implementation(find: _Finder, initialize: ir.MethodSpec | None, discover: ir.MethodSpec | None) -> str | None:
    if initialize is not None:
        holder, wire = find.model(initialize.result, f"{INITIALIZE} result"), "serverInfo"
    elif discover is not None:
        holder, wire = find.ref_model(find.model(discover.result, f"{DISCOVER} result"), META), "io.modelcontextprotocol/serverInfo"
    else:
        return None
    info = find.ref_model(holder, wire)
    for key in ("name", "version"):
        find.field(info, key)
    return info.name


def _cancelled(find: _Finder) -> dict[str, str | None]:
    spec = find.method(CANCELLED)
    if spec is None:
        return {"cancelled": None, "cancelled_id_key": None}
    find.field(find.model(spec.params, f"{CANCELLED} params"), "requestId")
    return {"cancelled": spec.name, "cancelled_id_key": "requestId"}
