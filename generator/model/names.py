"""Every public name of the generated Server and Client classes, decided in one place.

The public members the classes inherit from the runtime keep their names (read from the runtime's own
classes). Each method gets one stem, its `python_name` in the method table: the handler answering it is
`on_<stem>` and the call sending it `<stem>` (a request) or `notify_<stem>` (a notification). Stems come
in schema order, the base revision's methods before an extension's, and take a trailing `_` until no name
derived from them is taken on a side that has it. Generated names never start with `_`, so the runtime's
private members are out of their reach.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from . import ir
from .naming import snake_case, unique

CLASS_NAMES: dict[ir.Side, str] = {"server": "Server", "client": "Client"}
SIDES: tuple[ir.Side, ...] = ("server", "client")
RUNTIME_BASES: dict[ir.Side, tuple[str, str]] = {"server": ("server", "ServerBase"), "client": ("client", "ClientBase")}
"""The runtime module and class each side's generated class derives from."""
INITIALIZE_PARAMS = "initialize_params"
"""The member of a Client of a session-era surface building its initialize params (reserved on every Client)."""

EXTENSIONS_PACKAGE = "ext"
"""The subpackage holding a package's extensions, one subpackage each (`ext/tasks/`)."""

Taken = dict[ir.Side, set[str]]
"""The names already given on each side's class."""


def _other(side: ir.Side) -> ir.Side:
    return "client" if side == "server" else "server"


def handles(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a handler for `method`: the other side sends it, over the wire or
    (for the client) embedded in an input-required result."""
    return method.roles is None and method.sent_by(_other(side)) and (not method.embedded or side == "client")


def calls(side: ir.Side, method: ir.MethodSpec) -> bool:
    """True when `side`'s class has a typed call sending `method` over the wire."""
    return method.roles is None and method.sent_by(side) and not method.embedded


def handler_name(stem: str) -> str:
    """The handler answering a method of this stem."""
    return f"on_{stem}"


def call_name(method: ir.MethodSpec, stem: str) -> str:
    """The typed call sending `method` under this stem."""
    return stem if method.kind == "request" else f"notify_{stem}"


def runtime_members(side: ir.Side) -> tuple[str, ...]:
    """The public members `side`'s class inherits from the runtime (`ServerBase`, `ClientBase`)."""
    from ..inputs.packaged_runtime import class_members

    own = (INITIALIZE_PARAMS,) if side == "client" else ()
    return tuple(sorted({*class_members(*RUNTIME_BASES[side]), *own}))


def taken_by_runtime() -> Taken:
    """The names each side's class takes before any method: its runtime members."""
    return {side: set(runtime_members(side)) for side in SIDES}


def _derived(method: ir.MethodSpec, stem: str) -> list[tuple[ir.Side, str]]:
    """Every (side, name) a stem gives `method`: its handler where a side answers it, its call where a side sends it."""
    names = [(side, handler_name(stem)) for side in SIDES if handles(side, method)]
    return names + [(side, call_name(method, stem)) for side in SIDES if calls(side, method)]


def with_stems(methods: Iterable[ir.MethodSpec], taken: Taken, stems: set[str] | None = None) -> tuple[ir.MethodSpec, ...]:
    """`methods` with each `python_name` made a stem none of whose names is taken on a side that has it
    (`taken` grows by the names given; `stems` holds the stems given before, which stay unique too)."""
    stems = set() if stems is None else stems
    out = []
    for method in methods:
        stem = method.python_name
        while stem in stems or any(name in taken[side] for side, name in _derived(method, stem)):
            stem += "_"
        stems.add(stem)
        for side, name in _derived(method, stem):
            taken[side].add(name)
        out.append(dataclasses.replace(method, python_name=stem) if stem != method.python_name else method)
    return tuple(out)


def stub_names(
    protocol: ir.Protocol, side: ir.Side, extensions: tuple[ir.Extension, ...] = ()
) -> ir.StubNames:
    """The names of `side`'s class for the surface revision `protocol` and the package's extensions,
    from the stems their method tables carry (`with_stems` resolved every collision)."""
    methods = [*protocol.methods, *(m for e in extensions for m in e.methods)]
    return ir.StubNames(
        side=side,
        class_name=CLASS_NAMES[side],
        members=runtime_members(side),
        handlers=tuple(ir.StubMethod(m.name, handler_name(m.python_name)) for m in methods if handles(side, m)),
        calls=tuple(ir.StubMethod(m.name, call_name(m, m.python_name)) for m in methods if calls(side, m)),
    )


def extension_alias(extension: str) -> str:
    """What the Server and Client modules call an extension's types module (`tasks_types`)."""
    return f"{extension}_types"


def meta_helpers(name: str, key: str, taken: set[str]) -> tuple[str, str]:
    """The builder (`tool_meta`) and reader (`tool_ui`) of a typed `_meta` entry on `name` objects under `key`."""
    return unique(f"{name}_meta", taken), unique(f"{name}_{snake_case(key)}", taken)
