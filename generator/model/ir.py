"""The frozen intermediate model: everything the templates and `mcpgen diff` see of a schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

from ..runtime import facts

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
    core: bool = False
    """True for an extension's reference to a class of the base revision (a core definition it copies)."""


@dataclass(frozen=True)
class ListOf:
    """A JSON array."""

    item: TypeExpr


@dataclass(frozen=True)
class DictOf:
    """A JSON object used as a map (no declared properties)."""

    value: TypeExpr


@dataclass(frozen=True)
class Dispatch:
    """How a union of models that all require a literal `key` with overlapping values is validated: a
    value's tag (an exact string among `tags`) picks the members whose literal takes it (positions in
    the union, in its order); any other input goes to every member (`fallback`), as a plain union.
    Where a value has `presence`, the keys of the input narrow its members further, to a group of
    `narrowed` (its tag, the members' positions)."""

    key: str
    python_name: str
    tags: tuple[tuple[str, tuple[int, ...]], ...]
    fallback: str
    presence: tuple[Presence, ...] = ()
    narrowed: tuple[tuple[str, tuple[int, ...]], ...] = ()


Presence = tuple[str, tuple[tuple[str, ...], ...], tuple[str, ...]]
"""How a `Dispatch` narrows a value's members by the keys they require: the value, those keys (each
the names a field is read by), and the tag for each combination of them present (bit i: key i)."""


@dataclass(frozen=True)
class UnionOf:
    """`anyOf`/`oneOf`/type lists; `discriminator` names the wire key that tells members apart; a
    `dispatch` narrows a plain union (one `discriminator` cannot) before its members are tried."""

    members: tuple[TypeExpr, ...]
    discriminator: str | None = None
    dispatch: Dispatch | None = None


TypeExpr = Union[AnyType, Primitive, LiteralOf, Ref, ListOf, DictOf, UnionOf]


def alternatives(t: TypeExpr) -> tuple[TypeExpr, ...]:
    """The members a value may match, nested unions (discriminated groups) flattened."""
    if not isinstance(t, UnionOf):
        return (t,)
    return tuple(a for m in t.members for a in alternatives(m))


def dispatches(t: TypeExpr) -> bool:
    """True when `t` holds a union validated through a `Dispatch`."""
    if isinstance(t, UnionOf):
        return t.dispatch is not None or any(dispatches(m) for m in t.members)
    if isinstance(t, ListOf):
        return dispatches(t.item)
    return isinstance(t, DictOf) and dispatches(t.value)


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
    constraints: tuple[Constraint, ...] = ()
    """Value constraints of a scalar alias (an integer's bounds, hoisted from a union member)."""


Definition = Union[Model, Alias]


# --- methods and the protocol -----------------------------------------------------------------


@dataclass(frozen=True)
class MethodSpec:
    """One JSON-RPC method of a revision (or of an extension), with the sides that may send it."""

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

    roles: tuple[str, str] | None = None
    """For a method of an extension's own link, what that link calls the client and the server
    (MCP Apps: an `app` and its `host`); no Server or Client class sends or answers it. None on the
    link between an MCP client and server."""

    def sent_by(self, side: Side) -> bool:
        """True when `side` may send this method."""
        return side in self.senders


@dataclass(frozen=True)
class Erratum:
    """One applied correction of an upstream schema defect."""

    id: str
    reason: str
    upstream: str
    definitions: tuple[str, ...] = ()
    """The schema definitions its patch changes."""


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
    warnings: tuple[str, ...] = ()
    """What the user should know about how this schema was read (an erratum that did not apply to a draft)."""

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
# The runtime's own fact types (`mcpgen.runtime.facts`): the generator fills them, the generated
# `revisions.py` spells them, and the runtime reads them.

Lifecycle = facts.Lifecycle
Fill = facts.Fill
Strip = facts.Strip


# --- generated names of the Server and Client classes ----------------------------------------


@dataclass(frozen=True)
class StubMethod:
    """A method as one side's class sees it: the handler it overrides or the call it makes."""

    method: str
    python_name: str


@dataclass(frozen=True)
class StubNames:
    """Every public name of one side's generated class, collisions already resolved.

    `members` are the public members the class inherits from the runtime (taken, so handlers and calls
    yield to them); handler and call names never start with `_`, so the runtime's private members can
    never clash with them.
    """

    side: Side
    class_name: str
    members: tuple[str, ...]
    handlers: tuple[StubMethod, ...]
    calls: tuple[StubMethod, ...]

    def handler(self, method: str) -> str:
        """The handler overridden to answer `method`."""
        return next(h.python_name for h in self.handlers if h.method == method)

    def call(self, method: str) -> str:
        """The method called to send `method`."""
        return next(c.python_name for c in self.calls if c.method == method)


# --- an extension (SEP-2133): its own definitions and methods, on top of the base revision -----


@dataclass(frozen=True)
class MetaEntry:
    """A typed `_meta` entry an extension defines on core objects (MCP Apps' `ui` on tools and resources)."""

    builder: str
    """The helper making a `_meta` object that carries the entry (`tool_meta`)."""
    reader: str
    """The helper reading the entry from an owner (`tool_ui`)."""
    key: str
    """The `_meta` key."""
    type: str
    """The extension's definition typing the entry's value."""
    owners: tuple[str, ...]
    """The base revision's definitions whose `_meta` may carry it."""


@dataclass(frozen=True)
class Extension:
    """One extension of a package: what its schema adds to the base (surface) revision.

    `definitions` are those the package emits for it (its own, and copies of core definitions that
    differ from the base revision's), their references to the base revision's classes marked `core`;
    `copies` are the core definitions it repeats that are the base revision's classes (same shape).
    """

    name: str
    """The subpackage under `ext/` (`tasks`), also the name `--extension` knows it by."""
    identifier: str
    """The key under `capabilities.extensions` (`io.modelcontextprotocol/tasks`)."""
    schema_sha256: str
    pinned: bool
    errata: tuple[Erratum, ...]
    definitions: tuple[Definition, ...]
    copies: tuple[str, ...]
    methods: tuple[MethodSpec, ...]
    settings: tuple[tuple[Side, str], ...] = ()
    """The definition typing each side's settings under `capabilities.extensions[identifier]`."""
    results: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Core requests the extension lets a server answer with one of its own results instead (`tools/call`)."""
    meta: tuple[MetaEntry, ...] = ()
    constants: tuple[tuple[str, str], ...] = ()
    """Named string constants of the extension (MCP Apps' resource MIME type)."""
    name_headers: tuple[tuple[str, str], ...] = ()
    """(request method, params field) of each of its requests whose target an HTTP `Mcp-Name` header mirrors."""
    warnings: tuple[str, ...] = ()
    """What the user should know: core copies that differ from the base revision, methods without senders."""

    def definition(self, name: str) -> Definition | None:
        """The extension's own definition with this Python name, if it emits one."""
        return next((d for d in self.definitions if d.name == name), None)


# --- a generated package: one or several revisions, one surface ------------------------------


@dataclass(frozen=True)
class Revision:
    """One revision of a package: its IR, lifecycle, and what converting to it from the surface fills."""

    protocol: Protocol
    lifecycle: Lifecycle
    module: str
    """The subpackage holding this revision's types and methods ("" in a single-revision package)."""
    fills: tuple[Fill, ...] = ()
    """Required fields of this revision's messages the surface lacks, with the values conversion fills in."""
    strips: tuple[Strip, ...] = ()
    """Top-level fields the surface has and this revision does not, left out when converting to this
    revision (a peer of this revision cannot read them)."""


@dataclass(frozen=True)
class Package:
    """What one generated package speaks: its revisions (oldest first), the surface, the class names."""

    revisions: tuple[Revision, ...]
    surface: str
    server: StubNames
    client: StubNames
    extensions: tuple[Extension, ...] = ()
    """The extensions bound to the surface revision, in the order they were asked for."""

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
