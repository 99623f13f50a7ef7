"""The frozen intermediate model: everything the templates and `mcpgen diff` see of a schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

JsonScalar = Union[str, int, float, bool, None]
Side = Literal["client", "server"]
MethodKind = Literal["request", "notification"]


# --- type expressions -------------------------------------------------------------------------


@dataclass(frozen=True)
class AnyType:
    """Any JSON value (an empty schema, `true`, or a keyword set mcpgen does not type)."""


@dataclass(frozen=True)
class Primitive:
    """A JSON scalar type; `number` accepts ints and floats and keeps them apart."""

    name: Literal["string", "integer", "number", "boolean", "null"]


@dataclass(frozen=True)
class LiteralOf:
    """A `const` or `enum`: one of these exact JSON values."""

    values: tuple[JsonScalar, ...]


@dataclass(frozen=True)
class Ref:
    """A reference to another definition or hoisted inline object, by its Python name."""

    name: str


@dataclass(frozen=True)
class ListOf:
    """A JSON array."""

    item: TypeExpr


@dataclass(frozen=True)
class DictOf:
    """A JSON object used as a map (no declared properties)."""

    value: TypeExpr


@dataclass(frozen=True)
class UnionOf:
    """`anyOf`/`oneOf`/type lists; `discriminator` names the wire key that tells members apart."""

    members: tuple[TypeExpr, ...]
    discriminator: str | None = None


TypeExpr = Union[AnyType, Primitive, LiteralOf, Ref, ListOf, DictOf, UnionOf]


def alternatives(t: TypeExpr) -> tuple[TypeExpr, ...]:
    """The members a value may match, nested unions (discriminated groups) flattened."""
    if not isinstance(t, UnionOf):
        return (t,)
    return tuple(a for m in t.members for a in alternatives(m))


def admits_null(t: TypeExpr) -> bool:
    """True when `t` already accepts JSON null (a discriminated union never does: its members are objects)."""
    if isinstance(t, AnyType):
        return True
    if isinstance(t, Primitive):
        return t.name == "null"
    if isinstance(t, LiteralOf):
        return None in t.values
    if isinstance(t, UnionOf):
        return t.discriminator is None and any(admits_null(m) for m in t.members)
    return False


# --- definitions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constraint:
    """A value constraint carried over from the schema (`minimum` → `ge`, `maxItems` → `max_length`)."""

    name: str
    value: int | float


@dataclass(frozen=True)
class Field:
    """One property of an object: wire name beside Python name."""

    wire_name: str
    python_name: str
    type: TypeExpr
    required: bool
    description: str | None
    constraints: tuple[Constraint, ...] = ()

    @property
    def aliased(self) -> bool:
        """True when the wire name differs from the Python name."""
        return self.wire_name != self.python_name


@dataclass(frozen=True)
class Model:
    """An object type: a schema definition or an inline object hoisted under a derived name."""

    name: str
    pointer: str
    description: str | None
    fields: tuple[Field, ...]
    extra: TypeExpr
    """The type of undeclared keys: AnyType for any, an empty LiteralOf when the object is closed."""
    is_definition: bool
    kind: Literal["model"] = "model"


@dataclass(frozen=True)
class Alias:
    """A non-object definition (union, scalar, array, map) exposed as a type alias."""

    name: str
    pointer: str
    description: str | None
    type: TypeExpr
    is_definition: bool
    recursive: bool = False
    kind: Literal["alias"] = "alias"


Definition = Union[Model, Alias]


# --- methods and the protocol -----------------------------------------------------------------


@dataclass(frozen=True)
class MethodSpec:
    """One JSON-RPC method of a revision, with the sides that may send it."""

    name: str
    kind: MethodKind
    senders: frozenset[Side]
    message: str
    params: str | None
    params_required: bool
    result: str | None
    python_name: str
    embedded: bool = False
    result_type: TypeExpr | None = None
    assumed_result: bool = False
    """True when a draft gave no result for this request and the base `Result` stands in."""
    opt_in_results: tuple[str, ...] = ()
    """Members of `result_type` a requester only receives when it asks for them (a task-augmented request)."""

    def sent_by(self, side: Side) -> bool:
        """True when `side` may send this method."""
        return side in self.senders


@dataclass(frozen=True)
class Erratum:
    """One applied correction of an upstream schema defect."""

    id: str
    reason: str
    upstream: str


@dataclass(frozen=True)
class Envelope:
    """Facts about the JSON-RPC envelope of a revision."""

    batching: bool
    error_model: str
    result_response_model: str
    request_model: str
    notification_model: str


@dataclass(frozen=True)
class Protocol:
    """A whole revision: definitions in emission order, methods, envelope and provenance."""

    revision: str
    schema_sha256: str
    errata: tuple[Erratum, ...]
    definitions: tuple[Definition, ...]
    methods: tuple[MethodSpec, ...]
    envelope: Envelope
    pairings: tuple[tuple[str, str], ...] = ()
    """Request → result pairs the user supplied (`--pair`), recorded for `mcpgen check`."""

    @property
    def assumed_results(self) -> tuple[tuple[str, str], ...]:
        """Requests of a draft paired with the base `Result` for want of their own result."""
        return tuple((m.message, m.result) for m in self.methods if m.assumed_result and m.result)

    def definition(self, name: str) -> Definition:
        """The definition with this Python name."""
        for d in self.definitions:
            if d.name == name:
                return d
        raise KeyError(name)

    def method(self, name: str) -> MethodSpec:
        """The method with this wire name."""
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)


# --- lifecycle: how a revision starts a conversation, as its schema spells it ----------------


@dataclass(frozen=True)
class LegacyHandshake:
    """The `initialize` handshake of a legacy revision: its methods, models and wire keys."""

    method: str
    initialized: str | None
    params: str
    result: str
    version_key: str
    capabilities_key: str
    client_info_key: str
    server_info_key: str
    instructions_key: str | None
    set_level: str | None = None
    """The request that sets the session's log level, and its params key holding the level."""
    level_key: str | None = None
    subscribe: str | None = None
    """The requests that subscribe to and unsubscribe from one resource's updates, and their params key
    holding its URI."""
    unsubscribe: str | None = None
    uri_key: str | None = None


@dataclass(frozen=True)
class ModernHandshake:
    """A modern revision's per-request `_meta` keys, `server/discover`, and its version error."""

    discover: str
    result: str
    versions_key: str
    capabilities_key: str
    instructions_key: str | None
    server_info_key: str
    meta_key: str
    version_key: str
    client_capabilities_key: str
    client_info_key: str
    unsupported_code: int
    requested_key: str
    supported_key: str
    header_mismatch_code: int | None = None
    missing_capability_code: int | None = None
    name_headers: tuple[tuple[str, str], ...] = ()
    """(request method, params field) an HTTP request mirrors in its `Mcp-Name` header."""
    tool_headers: ToolHeaders | None = None
    log_level_key: str | None = None
    """The request `_meta` key asking for log messages at a level (what a session's set-level request did)."""
    listen: str | None = None
    """The request that opens a notification stream, its params key holding the filter, the filter key
    listing resource URIs to watch (what a session's subscribe requests did), and the notification
    acknowledging the filter."""
    listen_filter_key: str | None = None
    resource_subscriptions_key: str | None = None
    acknowledged: str | None = None
    subscription_id_key: str | None = None
    """The notification `_meta` key naming the listen request a notification is delivered for."""
    listen_flags: tuple[tuple[str, str, str, str], ...] = ()
    """(filter key, notification, server capability, its flag) of each list change a listen filter opts in to."""
    resource_updated: str | None = None
    """The notification that a watched resource changed (sent for the filter's resource URIs), and its
    params key holding the URI."""
    resource_updated_uri_key: str | None = None


@dataclass(frozen=True)
class ToolHeaders:
    """Where the tool arguments that travel as `Mcp-Param-*` HTTP headers are declared and sent."""

    call: str
    listing: str
    tools_key: str
    name_key: str
    schema_key: str
    arguments_key: str
    cursor_key: str | None
    next_cursor_key: str | None


@dataclass(frozen=True)
class InputRequired:
    """A modern result that asks the client for input and a retry (multi round-trip requests)."""

    result: str
    requests_key: str
    responses_key: str
    state_key: str


@dataclass(frozen=True)
class Lifecycle:
    """How sessions and requests of a revision declare the protocol version and capabilities."""

    era: Literal["legacy", "modern", "none"]
    legacy: LegacyHandshake | None
    modern: ModernHandshake | None
    input_required: InputRequired | None
    implementation: str | None = None
    """The definition naming a client or server (`name`, `version`, optional `title`)."""
    ping: str | None = None
    """The request either side may send to check the other is alive, answered with an empty result."""
    cancelled: str | None = None
    cancelled_id_key: str | None = None
    """The notification that cancels a request, and its params key holding the request id."""
    tasks_result: str | None = None
    """The result a task-augmented request may answer instead of its own (2025-11-25 `CreateTaskResult`)."""


# --- generated names of the Server and Client classes ----------------------------------------


@dataclass(frozen=True)
class StubMethod:
    """A method as one side's class sees it: the handler it overrides or the call it makes."""

    method: str
    python_name: str


@dataclass(frozen=True)
class StubNames:
    """Every public name of one side's generated class, collisions already resolved.

    `members` are the runtime's own public members (role → Python name); handler and call names
    never start with `_`, so the runtime's private members can never clash with them.
    """

    side: Side
    class_name: str
    members: tuple[tuple[str, str], ...]
    handlers: tuple[StubMethod, ...]
    calls: tuple[StubMethod, ...]

    def member(self, role: str) -> str:
        """The Python name of a runtime member."""
        return dict(self.members)[role]

    def handler(self, method: str) -> str:
        """The handler overridden to answer `method`."""
        return next(h.python_name for h in self.handlers if h.method == method)

    def call(self, method: str) -> str:
        """The method called to send `method`."""
        return next(c.python_name for c in self.calls if c.method == method)


# --- a generated package: one or several revisions, one surface ------------------------------


@dataclass(frozen=True)
class Fill:
    """A required field of a revision's message that the surface revision lacks, and its value."""

    method: str
    part: Literal["params", "result"]
    wire_name: str
    value: JsonScalar
    reason: str
    path: tuple[str, ...] = ()
    """Field names from the params or result down to the object that gets the field; `*` is every item."""


@dataclass(frozen=True)
class Revision:
    """One revision of a package: its IR, lifecycle, and what converting to it from the surface fills."""

    protocol: Protocol
    lifecycle: Lifecycle
    module: str
    """The subpackage holding this revision's types and methods ("" in a single-revision package)."""
    fills: tuple[Fill, ...] = ()
    strips: tuple[tuple[str, str, str], ...] = ()
    """(method, "params" or "result", wire key): top-level fields the surface has and this revision does
    not, left out when converting to this revision (a peer of this revision cannot read them)."""


@dataclass(frozen=True)
class Package:
    """What one generated package speaks: its revisions (oldest first), the surface, the class names."""

    revisions: tuple[Revision, ...]
    surface: str
    server: StubNames
    client: StubNames

    @property
    def multi(self) -> bool:
        """True when the package speaks several revisions (one subpackage each)."""
        return len(self.revisions) > 1

    def revision(self, name: str) -> Revision:
        """The revision named `name`."""
        return next(r for r in self.revisions if r.protocol.revision == name)

    @property
    def surface_revision(self) -> Revision:
        """The revision whose types handlers and calls use."""
        return self.revision(self.surface)
