"""Check, at generation, that every difference between two revisions' messages has a conversion rule.

The generated runtime converts a message by validating it against the other revision's model and,
when that fails, by rule: a required field missing is filled (a constant, a documented default, or
the modern request `_meta` the client runtime writes); a union member, enum value or key the target
cannot represent is dropped (policy `drop`) or refused (`strict`); anything else the target's
validation rejects is an error, never silently changed. A difference no rule covers (an object that
became a string, a new required field with no value to fill it) fails generation here, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from . import ir
from ..errors import SchemaError

MAX_REPORTED = 12


def _kind(t: ir.TypeExpr) -> str:
    if isinstance(t, ir.Primitive):
        return {"integer": "number"}.get(t.name, t.name)
    if isinstance(t, ir.LiteralOf):
        kinds = {_scalar_kind(v) for v in t.values}
        return kinds.pop() if len(kinds) == 1 else "mixed"
    if isinstance(t, ir.ListOf):
        return "array"
    if isinstance(t, (ir.DictOf, ir.Ref)):
        return "object"
    return "any"


def _scalar_kind(value: ir.JsonScalar) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


@dataclass
class _Check:
    source: ir.Revision
    target: ir.Revision
    fills: list[ir.Fill] = field(default_factory=list)
    strips: list[ir.Strip] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seen: set[tuple[str, str, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.sdefs = {d.name: d for d in self.source.protocol.definitions}
        self.tdefs = {d.name: d for d in self.target.protocol.definitions}
        self.top = {f.wire_name for f in self.target.fills if not f.path}
        need = self.source.lifecycle.input_required
        self.bridged = need.result if need is not None else None  # answered over the session (MRTR rule)

    @property
    def names(self) -> tuple[str, str]:
        return self.source.protocol.revision, self.target.protocol.revision

    def problem(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")

    def resolve(self, t: ir.TypeExpr, defs: dict[str, ir.Definition]) -> ir.TypeExpr | ir.Model:
        seen: set[str] = set()
        while isinstance(t, ir.Ref) and t.name not in seen:
            seen.add(t.name)
            d = defs.get(t.name)
            if d is None:
                return ir.AnyType()
            if isinstance(d, ir.Model):
                return d
            t = d.type
        return t

    def compare(self, s: ir.TypeExpr, t: ir.TypeExpr, at: Path, certain: bool = True) -> None:
        """Compare a source type with a target type at `at`; `certain`: every value there is of these
        types (no union picked them), so what the target's model lacks can be left out there."""
        rs, rt = self.resolve(s, self.sdefs), self.resolve(t, self.tdefs)
        if isinstance(rt, ir.AnyType) or isinstance(rs, ir.AnyType):
            return
        if isinstance(rs, ir.UnionOf):
            self.alternatives(rs, t, at)
        elif isinstance(rs, ir.Model) and rs.name == self.bridged:
            return
        elif isinstance(rt, ir.UnionOf):
            self.into_union(rs, rt, at)
        elif isinstance(rs, ir.Model) and isinstance(rt, ir.Model):
            self.models(rs, rt, at, certain)
        elif isinstance(rs, ir.ListOf) and isinstance(rt, ir.ListOf):
            self.compare(rs.item, rt.item, at.item(), certain)
        elif isinstance(rs, ir.DictOf) and isinstance(rt, ir.DictOf):
            self.compare(rs.value, rt.value, at.item(), certain)
        elif isinstance(rs, (ir.Model, ir.DictOf)) and isinstance(rt, (ir.Model, ir.DictOf)):
            return  # a map of any keys against declared properties: validation decides each value
        else:
            ks, kt = _kind(_objectless(rs)), _kind(_objectless(rt))
            if ks != kt and "any" not in (ks, kt) and "mixed" not in (ks, kt):
                self.problem(at.text, f"a {ks} in {self.names[0]} is a {kt} in {self.names[1]}")

    def alternatives(self, rs: ir.UnionOf, t: ir.TypeExpr, at: Path) -> None:
        """A source union converts when one of its alternatives does; values of the others are
        refused (or dropped) at run time by the target's validation, never changed silently."""
        outcomes = []
        for member in rs.members:
            before = self.problems
            self.problems = []
            self.compare(member, t, at, certain=False)
            outcomes.append(self.problems)
            self.problems = before
        if not any(not found for found in outcomes):
            self.problems.extend(p for found in outcomes for p in found)

    def into_union(self, rs: ir.TypeExpr | ir.Model, rt: ir.UnionOf, at: Path) -> None:
        """A value of one kind against a target union: compared with the member that would take it.

        A member the target lacks (a content block type, an enum schema form) is the drop rule's
        business; only a kind no member has at all is a problem.
        """
        members = ir.alternatives(rt)
        if isinstance(rs, ir.Model):
            models = [m for m in (self.resolve(x, self.tdefs) for x in members) if isinstance(m, ir.Model)]
            match = _same_tag(rs, models, rt.discriminator) if rt.discriminator else _closest(rs, models)
            if match is not None:
                self.models(rs, match, at, certain=False)
            elif not models and not any(isinstance(x, (ir.DictOf, ir.AnyType)) for x in members):
                self.problem(at.text, f"an object in {self.names[0]} has no counterpart in {self.names[1]}")
            return
        kind = _kind(_objectless(rs))
        if not any(_kind(_objectless(self.resolve(x, self.tdefs))) in (kind, "any", "mixed") for x in members):
            self.problem(at.text, f"a {kind} in {self.names[0]} has no counterpart in {self.names[1]}")

    def models(self, s: ir.Model, t: ir.Model, at: Path, certain: bool = True) -> None:
        key = (s.name, t.name, at.text if at.top else f"{at.method} {at.part}")
        if key in self.seen:
            return
        self.seen.add(key)
        sfields = {f.wire_name: f for f in s.fields}
        if certain and not at.top:
            # A field the surface has and the target does not (a newer feature its peers cannot read) is
            # left out, below the top level as at it: so a revision never gets half of a feature.
            theirs = {f.wire_name for f in t.fields}
            self.strips += [
                ir.Strip(at.method, at.part, f.wire_name, at.path)
                for f in s.fields
                if f.wire_name not in theirs and f.wire_name != META
            ]
        for tf in t.fields:
            sf = sfields.get(tf.wire_name)
            if at.params and tf.wire_name == META and self.target.lifecycle.modern is not None:
                continue  # a modern request's _meta is written by the runtime (client: its own; server: the session's)
            if sf is not None:
                self.compare(sf.type, tf.type, at.field(tf.wire_name))
                continue
            if not tf.required or (at.result and tf.wire_name in self.top):
                continue
            if isinstance(tf.type, ir.LiteralOf) and len(tf.type.values) == 1:
                self.fills.append(
                    ir.Fill(at.method, at.part, at.path, tf.wire_name, tf.type.values[0])
                )
                continue
            self.problem(
                at.field(tf.wire_name).text,
                f"required in {self.names[1]}, absent in {self.names[0]}, and nothing fills it",
            )


META = "_meta"


@dataclass(frozen=True)
class Path:
    """Where a comparison is: the method, params or result, and the field path below it."""

    method: str
    part: Literal["params", "result"]
    path: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join([self.method, self.part, ".".join(self.path)]).rstrip()

    @property
    def top(self) -> bool:
        return not self.path

    @property
    def params(self) -> bool:
        return self.part == "params" and not self.path

    @property
    def result(self) -> bool:
        return self.part == "result" and not self.path

    def field(self, wire: str) -> Path:
        return Path(self.method, self.part, (*self.path, wire))

    def item(self) -> Path:
        return Path(self.method, self.part, (*self.path, "*"))


def _objectless(t: ir.TypeExpr | ir.Model) -> ir.TypeExpr:
    return ir.DictOf(ir.AnyType()) if isinstance(t, ir.Model) else t


def _tag(model: ir.Model, key: str) -> ir.JsonScalar | None:
    f = next((f for f in model.fields if f.python_name == key or f.wire_name == key), None)
    if f is not None and isinstance(f.type, ir.LiteralOf) and len(f.type.values) == 1:
        return f.type.values[0]
    return None


def _same_tag(model: ir.Model, members: list[ir.Model], key: str) -> ir.Model | None:
    tag = _tag(model, key)
    return next((m for m in members if tag is not None and _tag(m, key) == tag), None)


def _consts(model: ir.Model) -> dict[str, ir.JsonScalar]:
    return {
        f.wire_name: f.type.values[0]
        for f in model.fields
        if isinstance(f.type, ir.LiteralOf) and len(f.type.values) == 1
    }


def _closest(model: ir.Model, members: list[ir.Model]) -> ir.Model | None:
    """The member of an untagged union that a value of `model` would match: same name, else the one
    whose constants agree and that shares the most fields."""
    same = next((m for m in members if m.name == model.name), None)
    if same is not None:
        return same
    mine, consts = {f.wire_name for f in model.fields}, _consts(model)
    members = [m for m in members if all(consts.get(k, v) == v for k, v in _consts(m).items())]
    if not members:
        return None

    def score(m: ir.Model) -> tuple[int, int]:
        required = {f.wire_name for f in m.fields if f.required}
        return (len(required - mine) == 0, len(mine & {f.wire_name for f in m.fields}))

    return max(members, key=score)


def _top_fields(check: _Check, t: ir.TypeExpr | None, defs: dict[str, ir.Definition]) -> set[str]:
    """The wire names of the top-level fields of a params or result type (every model of a union)."""
    if t is None:
        return set()
    found: set[str] = set()
    for member in ir.alternatives(t):
        resolved = check.resolve(member, defs)
        if isinstance(resolved, ir.Model):
            found |= {f.wire_name for f in resolved.fields}
        elif isinstance(resolved, ir.UnionOf):
            found |= _top_fields(check, resolved, defs)
    return found


def check_conversions(
    source: ir.Revision, target: ir.Revision
) -> tuple[tuple[ir.Fill, ...], tuple[ir.Strip, ...]]:
    """What converting `source` messages to `target` fills in (nested constants) and leaves out (top-level
    fields only `source` defines); fails generation when a difference has no conversion rule."""
    check = _Check(source, target)
    strips: list[ir.Strip] = []
    smethods = {m.name: m for m in source.protocol.methods}
    for tm in target.protocol.methods:
        sm = smethods.get(tm.name)
        if sm is None or sm.kind != tm.kind:
            continue
        if tm.params is not None and sm.params is not None:
            check.compare(ir.Ref(sm.params), ir.Ref(tm.params), Path(tm.name, "params"))
        elif tm.params is not None and tm.params_required:
            check.problem(f"{tm.name} params", f"required in {check.names[1]}, absent in {check.names[0]}")
        if tm.result_type is not None and sm.result_type is not None:
            check.compare(sm.result_type, tm.result_type, Path(tm.name, "result"))
        parts: tuple[tuple[Literal["params", "result"], ir.TypeExpr | None, ir.TypeExpr | None], ...] = (
            ("params", ir.Ref(sm.params) if sm.params else None, ir.Ref(tm.params) if tm.params else None),
            ("result", sm.result_type, tm.result_type),
        )
        for part, s_type, t_type in parts:
            if s_type is not None and t_type is not None:
                only = _top_fields(check, s_type, check.sdefs) - _top_fields(check, t_type, check.tdefs)
                strips += [ir.Strip(tm.name, part, key) for key in sorted(only)]
    if check.problems:
        shown = "; ".join(check.problems[:MAX_REPORTED])
        more = len(check.problems) - MAX_REPORTED
        raise SchemaError(
            f"cannot convert {check.names[0]} messages to {check.names[1]}: {shown}"
            + (f" (and {more} more)" if more > 0 else "")
        )
    return tuple(dict.fromkeys(check.fills)), tuple(dict.fromkeys([*strips, *check.strips]))
