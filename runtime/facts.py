"""What a revision's schema says about conversations, as the generator finds it and the runtime acts on it.

The generator reads these facts from each schema (`mcpgen.model.lifecycle`), the generated `revisions.py`
spells them as these very types, and the runtime reads them: one set of types for both. Models are
named, not held: a revision resolves a name against its own types module (`Revision.model`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Era = Literal["session", "stateless", "none"]
Part = Literal["params", "result"]


@dataclass(frozen=True)
class Implementation:
    """The definition naming a client or server, and its keys (`title` only where the schema has it)."""

    model: str
    name_key: str
    version_key: str
    title_key: str | None


@dataclass(frozen=True)
class Legacy:
    """The `initialize` handshake of a session-era revision: its methods, models and wire keys."""

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
    """The request setting the session's log level, and its params key holding the level."""
    level_key: str | None = None
    subscribe: str | None = None
    """The requests (un)subscribing to one resource's updates, and their params key holding its URI."""
    unsubscribe: str | None = None
    uri_key: str | None = None


@dataclass(frozen=True)
class ToolHeaders:
    """Where tool arguments sent as `Mcp-Param-*` HTTP headers are declared (the listing) and sent (the call)."""

    call: str
    listing: str
    tools_key: str
    name_key: str
    schema_key: str
    arguments_key: str
    cursor_key: str | None
    next_cursor_key: str | None
    ttl_key: str | None = None
    """The listing's keys saying how long (ms) and in which scope a client may keep it."""
    scope_key: str | None = None


@dataclass(frozen=True)
class ListenFlag:
    """A list change a listen filter opts in to: its filter key, notification, and the server capability flag."""

    filter_key: str
    notification: str
    capability: str
    flag: str


@dataclass(frozen=True)
class Modern:
    """A stateless-era revision's per-request `_meta` keys, its discovery method and its version error."""

    discover: str
    result: str
    versions_key: str
    capabilities_key: str
    instructions_key: str | None
    meta_key: str
    version_key: str
    client_capabilities_key: str | None
    client_info_key: str | None
    unsupported_code: int | None
    requested_key: str | None
    supported_key: str | None
    header_mismatch_code: int | None = None
    missing_capability_code: int | None = None
    required_capabilities_key: str | None = None
    """The key of the missing-capability error's data naming the client capabilities a request needs."""
    server_info_path: tuple[str, ...] = ()
    """Where the discovery result names the server: its keys from the result down (empty: nowhere)."""
    name_headers: tuple[tuple[str, str], ...] = ()
    """(request method, params field) of each request whose target an HTTP `Mcp-Name` header mirrors."""
    tool_headers: ToolHeaders | None = None
    log_level_key: str | None = None
    """The request `_meta` key asking for log messages (what a session's set-level request did)."""
    listen: str | None = None
    """The request opening a notification stream, its params key holding the filter, the filter key
    listing resources to watch (a session's subscribe requests), and the acknowledgement."""
    listen_filter_key: str | None = None
    resource_subscriptions_key: str | None = None
    acknowledged: str | None = None
    subscription_id_key: str | None = None
    """The notification `_meta` key naming the listen request a notification is delivered for."""
    listen_flags: tuple[ListenFlag, ...] = ()
    resource_updated: str | None = None
    """The notification that a watched resource changed, and its params key holding the URI."""
    resource_updated_uri_key: str | None = None


@dataclass(frozen=True)
class InputRequired:
    """The result that asks the client for input and a retry, and the keys of that exchange."""

    result: str
    requests_key: str
    responses_key: str
    state_key: str


@dataclass(frozen=True)
class Lifecycle:
    """How a revision starts conversations (its era) and the requests every era shares."""

    era: Era
    legacy: Legacy | None = None
    modern: Modern | None = None
    input_required: InputRequired | None = None
    implementation: Implementation | None = None
    ping: str | None = None
    """The request either side may send to check the other is alive, answered with an empty result."""
    cancelled: str | None = None
    cancelled_id_key: str | None = None
    """The notification that cancels a request, and its params key holding the request id."""
    server_capabilities: str | None = None
    client_capabilities: str | None = None
    """The definitions of each side's capabilities."""
    tasks_result: str | None = None
    """The result a task-augmented request may answer instead of its own (2025-11-25 `CreateTaskResult`)."""
    task_key: str | None = None
    """The params key of a request asking for a task instead of its result."""
    extensions_key: str | None = None
    """The capabilities key under which both sides declare the extensions they support (SEP-2133), where
    the revision's capabilities have it: only such a revision negotiates extensions."""
    missing: tuple[str, ...] = ()
    """Lifecycle facts the schema lacks or renamed, each as a sentence: what the runtime does without."""


@dataclass(frozen=True)
class Fill:
    """A required field of this revision's message that the surface revision lacks, and its value."""

    method: str
    part: Part
    path: tuple[str, ...]
    """Field names from the params or result down to the object that gets the field; `*` is every item."""
    wire_name: str
    value: Any


@dataclass(frozen=True)
class Strip:
    """A field the surface has and this revision does not: left out when converting to it."""

    method: str
    part: Part
    wire_name: str
    path: tuple[str, ...] = ()
    """Field names from the params or result down to the object that loses the field; `*` is every item."""


@dataclass(frozen=True)
class Capability:
    """The capability that overriding a handler advertises: a field of the capabilities, and a flag in it."""

    group: str
    flag: str | None = None
    value: Any = None


@dataclass(frozen=True)
class Extension:
    """An extension (SEP-2133) a package was generated with: the key both sides declare it under in
    `capabilities.extensions`, the module holding its types and method registry (imported when first
    needed, never by the package itself), the methods it adds, and the core requests a server may
    answer with one of its results instead."""

    identifier: str
    module: str
    """The absolute name of the extension's package (`<package>.ext.tasks`): `methods` and `types` are in it."""
    methods: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    name_headers: tuple[tuple[str, str], ...] = ()
    """(request method, params field) of each of its requests whose target an HTTP `Mcp-Name` header mirrors."""
