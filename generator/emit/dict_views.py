"""Template view of `dicts.py`: the dict form of every params model, a TypedDict keyed by wire names.

A typed call takes its params as the model or as this dict; a misspelled key in a dict literal is a
type error. Values that are models accept a mapping too (pydantic validates it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ir
from .literals import string_literal
from .pysource import Symbols, annotation

NAMES = ("Any", "Literal", "Mapping", "NotRequired", "Required", "Sequence", "TypedDict")
"""What dicts.py imports; a params model with one of these names pushes the import under an alias."""


@dataclass(frozen=True)
class DictView:
    """One TypedDict: its name, and (wire name literal, annotation) of each key."""

    name: str
    name_literal: str
    keys: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DictsView:
    """What `dicts.py` receives."""

    header: str
    revision: str
    imports: dict[str, str]
    spelled: dict[str, str]
    dicts: tuple[DictView, ...]


def _value(t: ir.TypeExpr, s: dict[str, str]) -> str:
    """A value annotation that takes the model or a mapping wherever a model stands, any sequence for a list."""
    return " | ".join(_alternatives(t, s))


def _alternatives(t: ir.TypeExpr, s: dict[str, str]) -> tuple[str, ...]:
    """`_value`'s union members, each once, a mapping standing for models after them."""
    mapping = f"{s['Mapping']}[str, {s['Any']}]"
    if isinstance(t, ir.Ref):
        return (f"types.{t.name}", mapping)
    if isinstance(t, ir.ListOf):
        return (f"{s['Sequence']}[{_value(t.item, s)}]",)
    if isinstance(t, ir.DictOf):
        return (f"{s['Mapping']}[str, {_value(t.value, s)}]",)
    if isinstance(t, ir.UnionOf):
        members = list(dict.fromkeys(a for m in ir.alternatives(t) for a in _alternatives(m, s)))
        return tuple(sorted(members, key=lambda a: a == mapping))
    return (annotation(t, Symbols((("Any", s["Any"]), ("Literal", s["Literal"]))), "types."),)


def params_models(protocol: ir.Protocol, name: str | None) -> tuple[ir.Model, ...]:
    """The models a method's params definition may be: itself, or each member of a union of models
    (2025-11-25's `ElicitRequestParams`); () when it is anything else."""
    defs = {d.name: d for d in protocol.definitions}
    found = defs.get(name or "")
    if isinstance(found, ir.Model):
        return (found,)
    if not isinstance(found, ir.Alias) or not isinstance(found.type, ir.UnionOf):
        return ()
    members = [defs.get(t.name) if isinstance(t, ir.Ref) else None for t in ir.alternatives(found.type)]
    return tuple(m for m in members if isinstance(m, ir.Model)) if all(isinstance(m, ir.Model) for m in members) else ()


def dicts_view(protocol: ir.Protocol, header: str) -> DictsView:
    """The view of one revision's `dicts.py`: a TypedDict per params model of a method (per member
    model where the params are a union of models)."""
    models = {m.name: m for p in dict.fromkeys(m.params for m in protocol.methods) for m in params_models(protocol, p)}
    taken = set(models)
    spelled: dict[str, str] = {}
    for name in NAMES:
        alias = name
        while alias in taken:
            alias = "_" + alias
        spelled[name] = alias
    imports = {name: (f"{name} as {alias}" if alias != name else name) for name, alias in spelled.items()}
    views = []
    for model in models.values():
        wrap = spelled["Required"], spelled["NotRequired"]
        keys = tuple(
            (string_literal(f.wire_name), f"{wrap[0] if f.required else wrap[1]}[{_value(f.type, spelled)}]")
            for f in model.fields
        )
        views.append(DictView(model.name, string_literal(model.name), keys))
    return DictsView(header, protocol.revision, imports, spelled, tuple(views))
