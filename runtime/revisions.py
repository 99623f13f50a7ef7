"""The revisions a package speaks: each one's registry, types and facts, and the set of them with its surface."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import ModuleType
from typing import Any, Iterable, Iterator, TypeVar, Union, overload

from pydantic import BaseModel

from .facts import Era, Extension, Fill, InputRequired, Legacy, Lifecycle, Modern, Strip
from .convert import pruner
from .plan import Plan, pruning
from .registry import Method, Part, Registry


@dataclass(frozen=True, eq=False)
class Revision:
    """One protocol revision: its methods and types modules (the package's `methods.py`, whose `REGISTRY`
    parses its messages, and `types.py`), its lifecycle facts, and what converting a surface message to
    it leaves out (`strips`) and fills in (`fills`)."""

    version: str
    methods: ModuleType
    types: ModuleType
    lifecycle: Lifecycle
    fills: tuple[Fill, ...] = ()
    strips: tuple[Strip, ...] = ()
    extensions: tuple[Extension, ...] = ()
    """The extensions (SEP-2133) this revision carries: the surface revision of a package generated with them."""
    _plans: dict[tuple[str, Part, bool], Plan] = field(default_factory=dict, repr=False)
    _models: dict[str | None, type[BaseModel] | None] = field(default_factory=dict, repr=False)

    @cached_property
    def registry(self) -> Registry:
        """The revision's method registry (its methods module's `REGISTRY`), with the methods of its
        extensions, and the results they let a server answer core requests with, where it has them.
        """
        registry: Registry = self.methods.REGISTRY
        if not self.extensions:
            return registry
        methods = dict(registry.methods)
        for extension in self.extensions:
            table = extension_methods(extension)
            methods.update({m: table.METHODS[m] for m in extension.methods})
            for core, results in table.RESULTS.items():
                spec = methods[core]
                methods[core] = replace(spec, result_type=Union[(spec.result_type, *results)])
        return Registry(
            methods, error=registry.error, response=registry.response, batching=registry.batching
        )

    @cached_property
    def extension_of(self) -> Mapping[str, Extension]:
        """The extension adding each extension method this revision carries."""
        return {m: e for e in self.extensions for m in e.methods}

    @cached_property
    def extension_results(self) -> Mapping[str, tuple[tuple[Extension, type[BaseModel]], ...]]:
        """Each core request an extension lets a server answer differently: the extension and result."""
        found: dict[str, list[tuple[Extension, type[BaseModel]]]] = {}
        for extension in self.extensions:
            for method, results in extension_methods(extension).RESULTS.items():
                found.setdefault(method, []).extend((extension, r) for r in results)
        return {method: tuple(pairs) for method, pairs in found.items()}

    @cached_property
    def era(self) -> Era:
        """How conversations start: `session` (initialize), `stateless` (per-request `_meta`) or `none`."""
        return self.lifecycle.era

    @cached_property
    def legacy(self) -> Legacy | None:
        """The `initialize` handshake, in a session-era revision."""
        return self.lifecycle.legacy

    @cached_property
    def modern(self) -> Modern | None:
        """The per-request facts and discovery, in a stateless-era revision."""
        return self.lifecycle.modern

    @cached_property
    def input_required(self) -> InputRequired | None:
        """The result asking the client for input and a retry, where the revision has one."""
        return self.lifecycle.input_required

    @property
    def batching(self) -> bool:
        """Whether the revision's JSON-RPC envelope allows batches (its core registry's: its extensions
        are imported only once a message needs them)."""
        batching: bool = self.methods.REGISTRY.batching
        return batching

    @cached_property
    def input_required_model(self) -> type[BaseModel] | None:
        """The model of that result, where the revision has one."""
        need = self.input_required
        return self.model(need.result) if need is not None else None

    @cached_property
    def ping(self) -> str | None:
        """The liveness request, where the revision has it."""
        return self.lifecycle.ping

    @cached_property
    def cancelled(self) -> str | None:
        """The cancellation notification, where the revision has it."""
        return self.lifecycle.cancelled

    @cached_property
    def cancelled_id_key(self) -> str | None:
        """The cancellation's params key holding the request id."""
        return self.lifecycle.cancelled_id_key

    @cached_property
    def handshake(self) -> str | None:
        """The request that opens a conversation: `initialize`, or the discovery request."""
        if self.legacy is not None:
            return self.legacy.method
        return self.modern.discover if self.modern is not None else None

    def model(self, name: str | None) -> type[BaseModel] | None:
        """The model class a fact names, from this revision's types (None when it has no such definition),
        looked up once."""
        try:
            return self._models[name]
        except KeyError:
            found = getattr(self.types, name, None) if name else None
            model = found if isinstance(found, type) and issubclass(found, BaseModel) else None
            self._models[name] = model
            return model

    @cached_property
    def server_capabilities(self) -> type[BaseModel] | None:
        """The model of a server's capabilities."""
        return self.model(self.lifecycle.server_capabilities)

    @cached_property
    def client_capabilities(self) -> type[BaseModel] | None:
        """The model of a client's capabilities."""
        return self.model(self.lifecycle.client_capabilities)

    def plan(self, method: str, part: Part, peer: bool = False) -> Plan:
        """How `method`'s `part` is converted to this revision (`peer`: as a peer sent it), worked out once."""
        try:
            return self._plans[method, part, peer]
        except KeyError:
            found = self._plans[method, part, peer] = _make_plan(self, method, part, peer)
            return found


def extension_methods(extension: Extension) -> ModuleType:
    """The method table of `extension` (its `methods` module: `METHODS`, `RESULTS`), imported when first used."""
    return importlib.import_module(extension.module + ".methods")


def _make_plan(revision: Revision, method: str, part: Part, peer: bool) -> Plan:
    """The conversion of `method`'s `part` to `revision` (`peer`: as a peer sent it, nothing filled in)."""
    what = {"params": f"{method} params", "result": f"result of {method}", "message": method}[part]
    # The adapter's core validator itself: the TypeAdapter method around it costs about 1 µs a call.
    validate = revision.registry.adapter(method, part).validator.validate_python
    if peer:
        return Plan(validate, revision.version, f"{what} from the peer", frozenset(), ())
    mine = [s for s in revision.strips if s.method == method and s.part == part]
    strip = frozenset(s.wire_name for s in mine if not s.path)
    unfills = pruning((s.path, s.wire_name) for s in mine if s.path)
    fills = tuple(
        (f.path, f.wire_name, f.value)
        for f in revision.fills
        if f.method == method and f.part == part
    )
    deep = unfills is not None or any(path for path, _, _ in fills)
    prune = pruner(unfills) if unfills is not None else None
    reshapes = bool(strip or fills or unfills)
    return Plan(validate, revision.version, what, strip, fills, deep, unfills, prune, reshapes)


_T = TypeVar("_T")


class Revisions(Mapping[str, Revision]):
    """Every revision of a package, by protocol version (oldest first), and the surface revision whose
    types handlers receive and return and typed calls take."""

    def __init__(self, revisions: Iterable[Revision], surface: str) -> None:
        self._by_version = {r.version: r for r in revisions}
        if not self._by_version:
            raise ValueError("a package speaks at least one revision")
        self.surface = self._by_version[surface]
        self.supported: tuple[str, ...] = tuple(self._by_version)
        """The protocol versions spoken, oldest first."""
        self.legacy_versions = tuple(r.version for r in self.values() if r.legacy is not None)
        """The session-era versions: an `initialize` opens a session."""
        self.modern_versions = tuple(r.version for r in self.values() if r.modern is not None)
        """The stateless-era versions: every request carries its version in `_meta`."""
        self.batch_versions = frozenset(r.version for r in self.values() if r.batching)
        """The versions whose JSON-RPC envelope allows batches."""
        choice = (self.legacy_versions or self.modern_versions or self.supported)[-1]
        self.default = self._by_version[choice]
        """The revision a message is read in when nothing says which."""
        self.modern = (
            self._by_version[self.modern_versions[-1]].modern if self.modern_versions else None
        )
        """The newest stateless-era facts: where a request's `_meta` names its version."""

    def __getitem__(self, version: str) -> Revision:
        return self._by_version[version]

    @overload
    def get(self, version: str, /) -> Revision | None: ...

    @overload
    def get(self, version: str, /, default: Revision | _T) -> Revision | _T: ...

    def get(self, version: str, /, default: Any = None) -> Any:
        """The revision of `version`, else `default` (the dict's own lookup: no `Mapping.get` between)."""
        return self._by_version.get(version, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_version)

    def __len__(self) -> int:
        return len(self._by_version)

    def __repr__(self) -> str:
        return f"Revisions({list(self._by_version)}, surface={self.surface.version!r})"

    def __eq__(self, other: object) -> bool:
        return self is other  # one package's tables: equal only to themselves, and hashable

    __hash__ = object.__hash__

    def negotiate(self, requested: str, among: Iterable[str] | None = None) -> str:
        """The requested version when supported, else the newest supported (as the lifecycle chapter says)."""
        choices = tuple(self.supported if among is None else among)
        if not choices:
            raise ValueError("no protocol version to negotiate among")
        return requested if requested in choices else choices[-1]


def newest_first(versions: Iterable[str]) -> list[str]:
    """`versions` in the order servers list them in errors and discovery: newest first."""
    return sorted(versions, reverse=True)


def handshake_revision(revisions: Revisions, obj: Mapping[str, Any]) -> Revision | None:
    """For an `initialize` request, the session-era revision it will be answered in."""
    method = obj.get("method")
    for version in revisions.legacy_versions:
        legacy = revisions[version].legacy
        if legacy is not None and method == legacy.method:
            params = obj.get("params")
            requested = params.get(legacy.version_key) if isinstance(params, Mapping) else None
            chosen = revisions.negotiate(
                requested if isinstance(requested, str) else "", revisions.legacy_versions
            )
            return revisions[chosen]
    return None
