"""Derive the method registry from the role unions: who sends what, with which params and result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Iterable

from . import ir
from ..errors import SchemaError
from .lifecycle import CREATE_TASK_RESULT, TASK_PARAM
from .naming import method_python_name, unique

# Role unions of the schema: which side sends the members, and whether they expect a response.
ROLE_UNIONS: dict[str, tuple[ir.Side, ir.MethodKind]] = {
    "ClientRequest": ("client", "request"),
    "ServerRequest": ("server", "request"),
    "ClientNotification": ("client", "notification"),
    "ServerNotification": ("server", "notification"),
}
# Requests a server sends embedded in a result rather than as messages (2026-07-28 InputRequiredResult).
EMBEDDED_UNIONS: dict[str, tuple[ir.Side, ir.MethodKind]] = {"InputRequest": ("server", "request")}
_INPUT_REQUIRED = "InputRequiredResult"


def load_pairings() -> dict[str, str]:
    """The explicit request → result table shipped in `schema/pairings.json`."""
    text = resources.files("mcpgen.schema").joinpath("pairings.json").read_text("utf-8")
    pairs: dict[str, str] = json.loads(text)["pairs"]
    return pairs


def _members(name: str, defs: dict[str, ir.Definition], seen: frozenset[str] = frozenset()) -> list[str]:
    """The object definitions a role union stands for (a union, a single $ref, or an inlined copy)."""
    if name in seen or name not in defs:
        return []
    d = defs[name]
    if isinstance(d, ir.Model):
        return [name]
    return _refs(d.type, defs, seen | {name})


def _refs(t: ir.TypeExpr, defs: dict[str, ir.Definition], seen: frozenset[str]) -> list[str]:
    """The object definitions a union type reaches, through nested unions (a discriminated group inside)."""
    if isinstance(t, ir.Ref):
        return _members(t.name, defs, seen)
    if isinstance(t, ir.UnionOf):
        return [name for member in t.members for name in _refs(member, defs, seen)]
    return []


def _field(model: ir.Model, wire: str) -> ir.Field | None:
    return next((f for f in model.fields if f.wire_name == wire), None)


def method_name(model: ir.Model) -> str | None:
    """The `method` constant of a request or notification model, if it has exactly one."""
    f = _field(model, "method")
    if f is not None and isinstance(f.type, ir.LiteralOf) and len(f.type.values) == 1:
        value = f.type.values[0]
        return value if isinstance(value, str) else None
    return None


def _base(name: str) -> str:
    for suffix in ("Request", "Notification"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


BASE_RESULT = "Result"


def pair_result(
    model: ir.Model, defs: dict[str, ir.Definition], table: dict[str, str], assume_base: bool
) -> tuple[str, ir.TypeExpr, bool]:
    """The result of a request: from `<X>ResultResponse`, else `<X>Result`, else the table, else (for
    a draft, when `assume_base`) the schema's base `Result`; the last item says it was assumed."""
    base = _base(model.name)
    response = defs.get(f"{base}ResultResponse")
    if isinstance(response, ir.Model):
        f = _field(response, "result")
        if f is not None:
            refs = [t.name for t in (f.type.members if isinstance(f.type, ir.UnionOf) else (f.type,)) if isinstance(t, ir.Ref)]
            primary = [r for r in refs if r != _INPUT_REQUIRED]
            if primary:
                name = f"{base}Result" if f"{base}Result" in primary else primary[0]
                return name, f.type, False
    if f"{base}Result" in defs:
        return f"{base}Result", ir.Ref(f"{base}Result"), False
    if model.name in table and table[model.name] in defs:
        return table[model.name], ir.Ref(table[model.name]), False
    if assume_base and isinstance(defs.get(BASE_RESULT), ir.Model):
        return BASE_RESULT, ir.Ref(BASE_RESULT), True
    method = method_name(model)
    raise SchemaError(
        f"cannot pair request {model.name} ({method}) with a result: no {base}ResultResponse or "
        f"{base}Result definition and no entry in schema/pairings.json; pass --pair {model.name}=<result definition>"
    )


def _with_task_result(
    result_type: ir.TypeExpr, params: ir.Field | None, defs: dict[str, ir.Definition]
) -> ir.TypeExpr:
    """A task-augmentable request (its params take a `task`) may be answered with the task instead."""
    if params is None or not _takes_task(params.type, defs) or not isinstance(defs.get(CREATE_TASK_RESULT), ir.Model):
        return result_type
    members = result_type.members if isinstance(result_type, ir.UnionOf) else (result_type,)
    if isinstance(result_type, ir.UnionOf) and result_type.discriminator is not None:
        members = (result_type,)
    return ir.UnionOf((*members, ir.Ref(CREATE_TASK_RESULT)))


def _takes_task(t: ir.TypeExpr, defs: dict[str, ir.Definition], seen: frozenset[str] = frozenset()) -> bool:
    """True when params of type `t` (a model, or a union of models) have a `task` field."""
    if isinstance(t, ir.UnionOf):
        return any(_takes_task(m, defs, seen) for m in t.members)
    if not isinstance(t, ir.Ref) or t.name in seen:
        return False
    d = defs.get(t.name)
    if isinstance(d, ir.Model):
        return _field(d, TASK_PARAM) is not None
    return isinstance(d, ir.Alias) and _takes_task(d.type, defs, seen | {t.name})


@dataclass
class _Found:
    """A method as the role unions are read: its model, kind, senders, and whether it is embedded."""

    model: ir.Model
    kind: ir.MethodKind
    senders: set[ir.Side]
    embedded: bool


def _collect(defs: dict[str, ir.Definition]) -> dict[str, _Found]:
    """Every method of the role unions (and embedded unions) by wire name, senders merged."""
    if not any(union in defs for union in ROLE_UNIONS):
        raise SchemaError(f"schema defines none of the role unions {', '.join(ROLE_UNIONS)}: not an MCP schema")
    found: dict[str, _Found] = {}
    for union, (side, kind) in {**ROLE_UNIONS, **EMBEDDED_UNIONS}.items():
        for member in _members(union, defs):
            model = defs[member]
            assert isinstance(model, ir.Model)
            name = method_name(model)
            if name is None:
                raise SchemaError(f"{member} in {union} has no constant 'method'")
            entry = found.setdefault(name, _Found(model, kind, set(), union in EMBEDDED_UNIONS))
            if entry.kind != kind:
                raise SchemaError(f"method {name!r} is both a request and a notification")
            entry.senders.add(side)
            entry.embedded = entry.embedded and union in EMBEDDED_UNIONS
    return found


def _copied_definition(model: ir.Model, name: str, defs: dict[str, ir.Definition]) -> ir.Model:
    """For a role union that is an inlined copy of its single member, the definition it copies."""
    if model.name not in ROLE_UNIONS and model.name not in EMBEDDED_UNIONS:
        return model
    for d in defs.values():
        if isinstance(d, ir.Model) and d.is_definition and d is not model and method_name(d) == name:
            if d.name not in ROLE_UNIONS and d.name not in EMBEDDED_UNIONS:
                return d
    return model


def derive_methods(
    definitions: Iterable[ir.Definition], table: dict[str, str] | None = None, assume_base: bool = False
) -> tuple[ir.MethodSpec, ...]:
    """One MethodSpec per method of the role unions (and embedded input requests), in union order.

    With `assume_base` (a draft, not a pinned revision) a request with no findable result is paired
    with the base `Result`, which keeps every key of what the peer sends.
    """
    defs = {d.name: d for d in definitions}
    table = load_pairings() if table is None else table
    taken: set[str] = set()
    methods = []
    for name, entry in _collect(defs).items():
        model = _copied_definition(entry.model, name, defs)
        params = _field(model, "params")
        result: str | None = None
        result_type: ir.TypeExpr | None = None
        assumed = False
        opt_in: tuple[str, ...] = ()
        if entry.kind == "request":
            result, result_type, assumed = pair_result(model, defs, table, assume_base)
            tasked = _with_task_result(result_type, params, defs)
            opt_in = (CREATE_TASK_RESULT,) if tasked != result_type else ()
            result_type = tasked
        methods.append(
            ir.MethodSpec(
                name=name,
                kind=entry.kind,
                senders=frozenset(entry.senders),
                message=model.name,
                params=params.type.name if params is not None and isinstance(params.type, ir.Ref) else None,
                params_required=bool(params is not None and params.required),
                result=result,
                python_name=unique(method_python_name(model.name), taken),
                embedded=entry.embedded,
                result_type=result_type,
                assumed_result=assumed,
                opt_in_results=opt_in,
            )
        )
    return tuple(methods)


def envelope(definitions: Iterable[ir.Definition]) -> ir.Envelope:
    """Facts about the JSON-RPC envelope: batching, and the names of the envelope models."""
    names = {d.name for d in definitions}

    def first(*candidates: str) -> str:
        for c in candidates:
            if c in names:
                return c
        raise SchemaError(f"schema defines none of {', '.join(candidates)}: not an MCP schema")

    return ir.Envelope(
        batching=any("Batch" in n and n.startswith("JSONRPC") for n in names),
        error_model=first("JSONRPCErrorResponse", "JSONRPCError"),
        result_response_model=first("JSONRPCResultResponse", "JSONRPCResponse"),
        request_model=first("JSONRPCRequest"),
        notification_model=first("JSONRPCNotification"),
    )
