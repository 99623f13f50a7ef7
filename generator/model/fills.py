"""Values for required result fields of one revision that another revision's results lack."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from . import ir

FILLS_FILE = "fills.json"


@lru_cache(maxsize=1)
def documented_defaults() -> dict[str, tuple[ir.JsonScalar, str]]:
    """`schema/fills.json`: wire name → (default value, why that value)."""
    text = resources.files("mcpgen.schema").joinpath(FILLS_FILE).read_text("utf-8")
    return {key: (entry["value"], entry["reason"]) for key, entry in json.loads(text)["defaults"].items()}


def _model(defs: dict[str, ir.Definition], name: str | None) -> ir.Model | None:
    seen: set[str] = set()
    while name is not None and name not in seen:
        seen.add(name)
        d = defs.get(name)
        if isinstance(d, ir.Model):
            return d
        name = d.type.name if isinstance(d, ir.Alias) and isinstance(d.type, ir.Ref) else None
    return None


def result_fills(protocol: ir.Protocol) -> tuple[ir.Fill, ...]:
    """For every request, the required fields of its result that a constant or a documented default fills."""
    defs = {d.name: d for d in protocol.definitions}
    defaults = documented_defaults()
    fills = []
    for method in protocol.methods:
        model = _model(defs, method.result) if method.kind == "request" else None
        for f in model.fields if model is not None else ():
            if not f.required:
                continue
            if isinstance(f.type, ir.LiteralOf) and len(f.type.values) == 1:
                fills.append(ir.Fill(method.name, "result", (), f.wire_name, f.type.values[0]))
            elif f.wire_name in defaults:
                fills.append(ir.Fill(method.name, "result", (), f.wire_name, defaults[f.wire_name][0]))
    return tuple(fills)
