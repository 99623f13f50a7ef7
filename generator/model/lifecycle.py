"""Find how a revision starts conversations: the session era's `initialize` or the stateless era's per-request `_meta`.

The wire names here are protocol knowledge that lives in the generator, never in templates. Each is looked up
in the revision's IR and the facts are the runtime's own types (`mcpgen.runtime.facts`). A schema that lacks
or renamed a fact still generates: the runtime goes without what the schema lacks (it never sends it), and
each gap is recorded in `Lifecycle.missing`, which generation reports as a warning. Where not even a
handshake can run, the era is `none`: the package has its types and methods, and no session.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..runtime import facts
from . import ir
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
VERSION_META = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"
LIST_CHANGED = "ListChanged"  # a listen filter's `<capability>ListChanged` flag opts in to `notifications/<capability>/list_changed`
SERVER_CAPABILITIES = "ServerCapabilities"
CLIENT_CAPABILITIES = "ClientCapabilities"
EXTENSIONS_FIELD = "extensions"  # the capabilities field (SEP-2133) whose keys are extension identifiers
REQUIRED_CAPABILITIES = "requiredCapabilities"  # the missing-capability error's data: what the client must declare


class _Unusable(Exception):
    """A fact the era cannot do without is missing: the revision runs no sessions."""


class _Finder:
    """Lookups in one revision's IR that note what is missing (or, for what an era needs, give up)."""

    def __init__(self, protocol: ir.Protocol) -> None:
        self.protocol = protocol
        self.defs = {d.name: d for d in protocol.definitions}
        self.missing: list[str] = []

    def note(self, what: str) -> None:
        """Record a gap the runtime works around."""
        self.missing.append(what)

    def model(self, name: str | None) -> ir.Model | None:
        d = self.defs.get(name or "")
        return d if isinstance(d, ir.Model) else None

    def ref_model(self, model: ir.Model | None, wire: str) -> ir.Model | None:
        f = self.field(model, wire)
        return self.model(f.type.name) if f is not None and isinstance(f.type, ir.Ref) else None

    def field(self, model: ir.Model | None, wire: str) -> ir.Field | None:
        if model is None:
            return None
        return next((f for f in model.fields if f.wire_name == wire), None)

    def key(self, model: ir.Model | None, wire: str) -> str | None:
        """`wire` when `model` has that field, else None."""
        return wire if self.field(model, wire) is not None else None

    def needed(self, model: ir.Model | None, wire: str, holder: str) -> str:
        """`wire`, which the era cannot do without; `_Unusable` when `model` lacks it."""
        if self.field(model, wire) is None:
            raise _Unusable(f"{holder} has no field {wire!r}")
        return wire

    def wanted(self, model: ir.Model | None, wire: str, holder: str, without: str) -> str | None:
        """`wire` when `model` has it, else None and a note saying what the runtime does `without` it."""
        if self.field(model, wire) is not None:
            return wire
        self.note(f"{holder} has no field {wire!r}: {without}")
        return None

    def method(self, name: str) -> ir.MethodSpec | None:
        return next((m for m in self.protocol.methods if m.name == name), None)

    def const(self, model: ir.Model | None, wire: str) -> ir.JsonScalar:
        f = self.field(model, wire)
        t = f.type if f is not None else None
        return t.values[0] if isinstance(t, ir.LiteralOf) and len(t.values) == 1 else None


def _legacy(find: _Finder, spec: ir.MethodSpec) -> facts.Legacy:
    params, result = find.model(spec.params), find.model(spec.result)
    if params is None or result is None:
        raise _Unusable(f"{INITIALIZE} has no object params or result")
    for wire in ("protocolVersion", "capabilities", "clientInfo"):
        find.needed(params, wire, params.name)
    for wire in ("protocolVersion", "capabilities", "serverInfo"):
        find.needed(result, wire, result.name)
    initialized = find.method(INITIALIZED)
    return facts.Legacy(
        method=spec.name,
        initialized=initialized.name if initialized is not None else None,
        params=params.name,
        result=result.name,
        version_key="protocolVersion",
        capabilities_key="capabilities",
        client_info_key="clientInfo",
        server_info_key="serverInfo",
        instructions_key=find.key(result, "instructions"),
        **_session_requests(find),
    )


def _session_requests(find: _Finder) -> dict[str, str | None]:
    """The session requests the stateless era turned into per-request facts: setting the log level,
    (un)subscribing to a resource's updates (each None when the revision lacks it)."""
    found: dict[str, str | None] = {}
    set_level = find.method(SET_LEVEL)
    if set_level is not None and find.key(find.model(set_level.params), "level"):
        found.update(set_level=set_level.name, level_key="level")
    subscribe, unsubscribe = find.method(SUBSCRIBE), find.method(UNSUBSCRIBE)
    if subscribe is not None and unsubscribe is not None:
        if all(find.key(find.model(s.params), "uri") for s in (subscribe, unsubscribe)):
            found.update(subscribe=subscribe.name, unsubscribe=unsubscribe.name, uri_key="uri")
    return found


def _listen(find: _Finder, request_meta: ir.Model | None) -> dict[str, Any]:
    """Where stateless-era requests ask for log messages and watch resources (each None when absent)."""
    found: dict[str, Any] = {"log_level_key": find.key(request_meta, LOG_LEVEL_META)}
    listen, acknowledged = find.method(LISTEN), find.method(ACKNOWLEDGED)
    wanted = find.ref_model(find.model(listen.params), "notifications") if listen else None
    if listen is None or wanted is None:
        return found
    resources = find.key(wanted, "resourceSubscriptions")
    updated = find.method(RESOURCE_UPDATED) if resources else None
    if updated is not None and not find.key(find.model(updated.params), "uri"):
        updated = None
    found.update(
        listen=listen.name,
        listen_filter_key="notifications",
        resource_subscriptions_key=resources if updated is not None else None,
        acknowledged=acknowledged.name if acknowledged is not None else None,
        subscription_id_key=_subscription_id_key(find, acknowledged),
        listen_flags=_listen_flags(find, wanted),
        resource_updated=updated.name if updated is not None else None,
        resource_updated_uri_key="uri" if updated is not None else None,
    )
    return found


def _subscription_id_key(find: _Finder, acknowledged: ir.MethodSpec | None) -> str | None:
    """The notification `_meta` key naming a listen stream, found in the acknowledgement's params."""
    if acknowledged is None:
        return None
    return find.key(find.ref_model(find.model(acknowledged.params), META), SUBSCRIPTION_ID)


def _listen_flags(find: _Finder, wanted: ir.Model) -> tuple[facts.ListenFlag, ...]:
    """The filter's list-change flags whose notification and server capability flag the revision has."""
    capabilities = find.model(SERVER_CAPABILITIES)
    flags = []
    for field in wanted.fields:
        family = field.wire_name.removesuffix(LIST_CHANGED)
        method = f"notifications/{family}/list_changed"
        if family == field.wire_name or find.method(method) is None:
            continue
        if find.key(find.ref_model(capabilities, family), "listChanged"):
            flags.append(facts.ListenFlag(field.wire_name, method, family, "listChanged"))
    return tuple(flags)


def _modern(find: _Finder, spec: ir.MethodSpec) -> facts.Modern:
    params, result = find.model(spec.params), find.model(spec.result)
    if params is None or result is None:
        raise _Unusable(f"{DISCOVER} has no object params or result")
    request_meta = find.ref_model(params, META)
    if request_meta is None:
        raise _Unusable(f"{params.name} has no {META} object")
    meta_name = request_meta.name
    find.needed(request_meta, VERSION_META, meta_name)
    find.needed(result, "supportedVersions", result.name)
    find.needed(result, "capabilities", result.name)
    result_meta = find.ref_model(result, META)
    error = find.model(UNSUPPORTED_VERSION_ERROR)
    data = find.ref_model(find.ref_model(error, "error"), "data")
    code = find.const(find.ref_model(error, "error"), "code")
    unsupported = code if isinstance(code, int) and not isinstance(code, bool) else None
    if unsupported is None:
        find.note(f"{UNSUPPORTED_VERSION_ERROR} has no constant error code: an unsupported version is answered -32600")
    protocol = find.protocol
    return facts.Modern(
        discover=spec.name,
        result=result.name,
        versions_key="supportedVersions",
        capabilities_key="capabilities",
        instructions_key=find.key(result, "instructions"),
        server_info_path=_server_info_path(find, result, result_meta),
        meta_key=META,
        version_key=VERSION_META,
        client_capabilities_key=find.wanted(
            request_meta, CAPABILITIES_META, meta_name, "requests do not carry the client's capabilities"
        ),
        client_info_key=find.wanted(request_meta, CLIENT_INFO_META, meta_name, "requests do not name the client"),
        unsupported_code=unsupported,
        requested_key=find.key(data, "requested") if unsupported is not None else None,
        supported_key=find.key(data, "supported") if unsupported is not None else None,
        header_mismatch_code=_error_code(find, HEADER_MISMATCH_ERROR),
        missing_capability_code=_error_code(find, MISSING_CAPABILITY_ERROR),
        required_capabilities_key=find.key(
            find.ref_model(find.ref_model(find.model(MISSING_CAPABILITY_ERROR), "error"), "data"), REQUIRED_CAPABILITIES
        ),
        name_headers=name_headers(protocol),
        tool_headers=tool_headers(protocol),
        **_listen(find, request_meta),
    )


def _server_info_path(find: _Finder, result: ir.Model, result_meta: ir.Model | None) -> tuple[str, ...]:
    """Where a discovery result names the server: in its `_meta` (2026-07-28), else a top-level
    `serverInfo` (drafts of 2026-05 to 2026-07), else nowhere (noted: the answer names no server)."""
    if find.key(result_meta, SERVER_INFO_META):
        return (META, SERVER_INFO_META)
    if find.key(result, "serverInfo"):
        return ("serverInfo",)
    find.note(f"{result.name} names no server ({META} {SERVER_INFO_META!r}, serverInfo): discovery answers do not name the server")
    return ()


def _error_code(find: _Finder, definition: str) -> int | None:
    """The constant `error.code` of an error response definition, when the schema has it."""
    code = find.const(find.ref_model(find.model(definition), "error"), "code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _input_required(find: _Finder) -> facts.InputRequired | None:
    result = find.model(INPUT_REQUIRED_RESULT)
    if result is None:
        return None
    if not (find.key(result, "inputRequests") and find.key(result, "requestState")):
        find.note(f"{INPUT_REQUIRED_RESULT} lacks inputRequests or requestState: requests for input are passed to the caller")
        return None
    return facts.InputRequired(
        result=result.name,
        requests_key="inputRequests",
        responses_key="inputResponses",
        state_key="requestState",
    )


def lifecycle(protocol: ir.Protocol) -> facts.Lifecycle:
    """The lifecycle facts of a revision: the session era (an `initialize` method), the stateless era
    (`server/discover`), or none (a draft with neither, or one whose handshake cannot run)."""
    find = _Finder(protocol)
    initialize, discover = find.method(INITIALIZE), find.method(DISCOVER)
    cancelled = _cancelled(find)
    common = facts.Lifecycle(
        era="none",
        ping=PING if find.method(PING) is not None else None,
        cancelled=cancelled[0],
        cancelled_id_key=cancelled[1],
        server_capabilities=SERVER_CAPABILITIES if find.model(SERVER_CAPABILITIES) else None,
        client_capabilities=CLIENT_CAPABILITIES if find.model(CLIENT_CAPABILITIES) else None,
        tasks_result=CREATE_TASK_RESULT if find.model(CREATE_TASK_RESULT) else None,
        task_key=TASK_PARAM if find.model(CREATE_TASK_RESULT) else None,
        extensions_key=_extensions_key(find),
    )
    if initialize is not None and discover is not None:
        find.note(f"it defines both {INITIALIZE} and {DISCOVER}: no session runs")
        return replace(common, missing=tuple(find.missing))
    try:
        if initialize is not None:
            lc = replace(common, era="session", legacy=_legacy(find, initialize))
        elif discover is not None:
            lc = replace(common, era="stateless", modern=_modern(find, discover), input_required=_input_required(find))
        else:
            return common
        lc = replace(lc, implementation=_implementation(find, initialize, discover))
    except _Unusable as gap:
        find.missing.insert(0, f"{gap}: no session runs")
        return replace(common, missing=tuple(find.missing))
    return replace(lc, missing=tuple(find.missing))


def _implementation(
    find: _Finder, initialize: ir.MethodSpec | None, discover: ir.MethodSpec | None
) -> facts.Implementation | None:
    if initialize is not None:
        info = find.ref_model(find.model(initialize.result), "serverInfo")
    elif discover is not None:
        result = find.model(discover.result)
        info = find.ref_model(find.ref_model(result, META), SERVER_INFO_META) or find.ref_model(result, "serverInfo")
    else:
        return None
    if info is None or not (find.key(info, "name") and find.key(info, "version")):
        return None
    return facts.Implementation(info.name, "name", "version", find.key(info, "title"))


def _extensions_key(find: _Finder) -> str | None:
    """The capabilities field both sides declare extensions under (SEP-2133), when both capabilities have it."""
    holders = (find.model(SERVER_CAPABILITIES), find.model(CLIENT_CAPABILITIES))
    return EXTENSIONS_FIELD if all(find.key(h, EXTENSIONS_FIELD) for h in holders) else None


def _cancelled(find: _Finder) -> tuple[str | None, str | None]:
    """The cancellation notification and its params key holding the request id (None, None when absent)."""
    spec = find.method(CANCELLED)
    if spec is None or not find.key(find.model(spec.params), "requestId"):
        return None, None
    return spec.name, "requestId"
