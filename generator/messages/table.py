"""The method table of a revision, read straight from its upstream schema.

This is the harness's oracle for which messages a revision has, who sends them and which result
answers each request. It shares no logic with mcpgen's role analysis (`mcpgen.model.roles`; only the reader
of the reviewed `schema/pairings.json`) on purpose: a mistake there must show up as a difference, not
be repeated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..model.roles import load_pairings
from .upstream import upstream

# The schema's role unions: which side sends their members, and whether those are requests.
ROLE_UNIONS = {
    "ClientRequest": ("client", "request"),
    "ServerRequest": ("server", "request"),
    "ClientNotification": ("client", "notification"),
    "ServerNotification": ("server", "notification"),
}
TASK_RESULT = "CreateTaskResult"
# Requests a server sends only inside a result (2026-07-28 `InputRequiredResult.inputRequests`).
EMBEDDED_UNIONS = {"InputRequest": ("server", "request")}


@dataclass(frozen=True)
class Method:
    """One method as the schema defines it: message definition, kind, senders and results."""

    name: str
    message: str
    kind: str  # "request" or "notification"
    senders: frozenset[str]  # "client", "server"
    embedded: bool  # sent only inside a result, never as a message
    results: tuple[str, ...]  # the definitions a result may be an instance of, primary first
    response: str | None  # the `<X>ResultResponse` definition, when the schema has one


@dataclass(frozen=True)
class Envelope:
    """The JSON-RPC envelope definitions of `JSONRPCMessage`, and the batches it allows."""

    request: str
    notification: str
    result: str
    error: str
    batches: tuple[frozenset[str], ...]  # per batch form: the envelope definitions its items may be


@dataclass(frozen=True)
class MethodTable:
    """Every method of a revision by wire name, and its envelope."""

    methods: Mapping[str, Method]
    envelope: Envelope


def _ref(node: Mapping[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _branches(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(node.get("anyOf") or node.get("oneOf") or [node])


def method_const(node: Mapping[str, Any]) -> str | None:
    """The constant `method` of a request or notification definition."""
    method = node.get("properties", {}).get("method", {})
    values = [method["const"]] if "const" in method else method.get("enum", [])
    return values[0] if len(values) == 1 and isinstance(values[0], str) else None


def _members(defs: Mapping[str, Any], union: str) -> list[str]:
    """The definitions a role union stands for: its `$ref`s, or the definition an inlined copy repeats."""
    out = []
    for branch in _branches(defs[union]):
        name = _ref(branch)
        if name is None:
            method = method_const(branch)
            copies = [n for n, d in defs.items() if n not in ROLE_UNIONS and n not in EMBEDDED_UNIONS and method_const(d) == method]
            name = copies[0] if method is not None and copies else None
        if name is not None:
            out.append(name)
    return out


def _results(defs: Mapping[str, Any], message: str, pairings: Mapping[str, str]) -> tuple[tuple[str, ...], str | None]:
    """A request's results from `<X>ResultResponse`, else `<X>Result`, else the reviewed pairings."""
    base = message.removesuffix("Request")
    response = f"{base}ResultResponse"
    if response in defs:
        refs = [r for r in (_ref(b) for b in _branches(defs[response]["properties"]["result"])) if r is not None]
        primary = [r for r in refs if r == f"{base}Result"]
        return (*primary, *(r for r in refs if r not in primary)), response
    if f"{base}Result" in defs:
        return (f"{base}Result",), None
    if message in pairings:
        return (pairings[message],), None
    return (), None


def _takes_task(defs: Mapping[str, Any], message: str) -> bool:
    """True when a request's params (a definition, or a union of them) have a `task` member: the schema's
    task-augmented requests, which `CreateTaskResult` may answer (see `TaskAugmentedRequestParams`)."""
    params = defs[message].get("properties", {}).get("params", {})
    name = _ref(params)
    branches = _branches(defs[name]) if name is not None and name in defs else [params]
    resolved = [defs.get(_ref(b) or "", b) for b in branches]
    return any("task" in b.get("properties", {}) for b in resolved)


def _envelope(defs: Mapping[str, Any]) -> Envelope:
    """The envelope definitions, told apart by the members each branch of `JSONRPCMessage` requires."""
    found: dict[str, str] = {}
    batches = []
    for branch in _branches(defs["JSONRPCMessage"]):
        if branch.get("type") == "array":
            batches.append(frozenset(r for r in (_ref(b) for b in _branches(branch["items"])) if r is not None))
            continue
        name = _ref(branch)
        required = set(defs[name].get("required", ())) if name else set()
        kind = "request" if {"method", "id"} <= required else "notification" if "method" in required else "result" if "result" in required else "error" if "error" in required else None
        if name is not None and kind is not None:
            found[kind] = name
    return Envelope(found["request"], found["notification"], found["result"], found["error"], tuple(batches))


def read_table(defs: Mapping[str, Any]) -> MethodTable:
    """The method table of an upstream schema's definitions, from role unions, `method` constants and result names."""
    pairings = load_pairings()
    methods: dict[str, Method] = {}
    for union, (side, kind) in {**ROLE_UNIONS, **EMBEDDED_UNIONS}.items():
        if union not in defs:
            continue
        for message in _members(defs, union):
            name = method_const(defs[message])
            if name is None:
                continue
            known = methods.get(name)
            embedded = union in EMBEDDED_UNIONS and (known is None or known.embedded)
            senders = frozenset({side}) | (known.senders if known else frozenset())
            results, response = _results(defs, message, pairings) if kind == "request" else ((), None)
            if kind == "request" and TASK_RESULT in defs and _takes_task(defs, message):
                results = (*results, TASK_RESULT)
            methods[name] = Method(name, message, kind, senders, embedded, results, response)
    return MethodTable(methods, _envelope(defs))


@lru_cache(maxsize=None)
def method_table(schema_dir: Path | None, revision: str) -> MethodTable:
    """The (cached) method table of a revision's corrected upstream schema."""
    return read_table(upstream(schema_dir, revision).definitions)
