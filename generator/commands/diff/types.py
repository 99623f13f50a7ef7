"""Compare two type expressions at the same position: same, widened, narrowed or changed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from ...model import ir
from .semantics import Verdict
from .show import show
# Called when two object models meet at one position; it reports their differences itself.
PairModels = Callable[[ir.Model, ir.Model, str], None]

_PY_OF: dict[str, type | tuple[type, ...]] = {"string": str, "boolean": bool, "integer": int, "number": (int, float), "null": type(None)}
MIN_SIMILARITY = 0.5
MIN_OVERLAP = 0.66


def combine(a: Verdict, b: Verdict) -> Verdict:
    """The verdict of a type whose parts changed as `a` and `b`."""
    if a == "same":
        return b
    if b == "same" or a == b:
        return a
    return "changed"


@dataclass
class Outcome:
    """A verdict with the notes that explain it (`+AudioContent`, `integer → number`)."""

    verdict: Verdict = "same"
    notes: list[str] = field(default_factory=list)

    def add(self, verdict: Verdict, note: str | None = None) -> None:
        """Fold one more part into the outcome."""
        self.verdict = combine(self.verdict, verdict)
        if note and note not in self.notes:
            self.notes.append(note)


def similarity(a: ir.Model, b: ir.Model) -> float:
    """Share of wire names two object models have in common (Jaccard)."""
    x = {f.wire_name for f in a.fields}
    y = {f.wire_name for f in b.fields}
    return len(x & y) / len(x | y) if x | y else 1.0


def overlap(a: ir.Model, b: ir.Model) -> float:
    """Share of the smaller model's wire names the other one has too."""
    x = {f.wire_name for f in a.fields}
    y = {f.wire_name for f in b.fields}
    return len(x & y) / min(len(x), len(y)) if x and y else 0.0


def as_model(t: ir.DictOf, path: str) -> ir.Model:
    """A map seen as an object without declared properties, to compare it with one that has some."""
    return ir.Model(name=f"<{show(t)} at {path}>", pointer="", description=None, fields=(), extra=t.value, is_definition=False)


@dataclass
class TypeComparer:
    """Type comparison across two revisions, following renames and hoisted inline objects."""

    old: dict[str, ir.Definition]
    new: dict[str, ir.Definition]
    renames: dict[str, str]
    pair_models: PairModels

    def compare(self, o: ir.TypeExpr, n: ir.TypeExpr, path: str) -> Outcome:
        """The outcome of a value position typed `o` in OLD and `n` in NEW."""
        out = Outcome()
        self._compare(o, n, path, out, 0)
        return out

    # -- helpers --

    def _named_same(self, o: ir.TypeExpr, n: ir.TypeExpr) -> bool:
        if not (isinstance(o, ir.Ref) and isinstance(n, ir.Ref)):
            return False
        od, nd = self.old.get(o.name), self.new.get(n.name)
        if od is None or nd is None or not od.is_definition or not nd.is_definition:
            return False
        return self.renames.get(o.name, o.name) == n.name

    def _expand(self, t: ir.TypeExpr, defs: dict[str, ir.Definition]) -> ir.TypeExpr:
        if isinstance(t, ir.Ref):
            d = defs.get(t.name)
            if isinstance(d, ir.Alias):
                return d.type
        return t

    def _model(self, t: ir.TypeExpr, defs: dict[str, ir.Definition]) -> ir.Model | None:
        d = defs.get(t.name) if isinstance(t, ir.Ref) else None
        return d if isinstance(d, ir.Model) else None

    # -- the comparison --

    def _compare(self, o: ir.TypeExpr, n: ir.TypeExpr, path: str, out: Outcome, depth: int) -> None:
        if self._named_same(o, n):
            return
        if isinstance(o, ir.AnyType) != isinstance(n, ir.AnyType):
            out.add("narrowed" if isinstance(o, ir.AnyType) else "widened", f"{show(o)} → {show(n)}")
            return
        if depth < 8:
            eo, en = self._expand(o, self.old), self._expand(n, self.new)
            if eo is not o or en is not n:
                self._compare(eo, en, path, out, depth + 1)
                return
        if isinstance(o, ir.UnionOf) or isinstance(n, ir.UnionOf):
            self._union(o, n, path, out, depth)
            return
        self._single(o, n, path, out, depth)

    def _single(self, o: ir.TypeExpr, n: ir.TypeExpr, path: str, out: Outcome, depth: int) -> None:
        if o == n and not isinstance(o, ir.Ref):
            return
        if isinstance(n, ir.AnyType):
            out.add("widened", f"{show(o)} → any")
        elif isinstance(o, ir.AnyType):
            out.add("narrowed", f"any → {show(n)}")
        elif isinstance(o, ir.Primitive) and isinstance(n, ir.Primitive):
            if (o.name, n.name) == ("integer", "number"):
                out.add("widened", "integer → number")
            elif (o.name, n.name) == ("number", "integer"):
                out.add("narrowed", "number → integer")
            else:
                out.add("changed", f"{o.name} → {n.name}")
        elif isinstance(o, ir.LiteralOf) and isinstance(n, ir.LiteralOf):
            self._literals(o.values, n.values, out)
        elif isinstance(o, ir.LiteralOf) and isinstance(n, ir.Primitive) and _fits(o.values, n.name):
            out.add("widened", f"{show(o)} → {n.name}")
        elif isinstance(o, ir.Primitive) and isinstance(n, ir.LiteralOf) and _fits(n.values, o.name):
            out.add("narrowed", f"{o.name} → {show(n)}")
        elif isinstance(o, ir.ListOf) and isinstance(n, ir.ListOf):
            self._compare(o.item, n.item, path + "[]", out, depth + 1)
        elif isinstance(o, ir.DictOf) and isinstance(n, ir.DictOf):
            self._compare(o.value, n.value, path + "{}", out, depth + 1)
        elif isinstance(o, ir.Ref) and isinstance(n, ir.Ref):
            self._refs(o, n, path, out)
        elif isinstance(o, ir.DictOf) and (nm := self._model(n, self.new)) is not None:
            self.pair_models(as_model(o, path), nm, path)
        elif (om := self._model(o, self.old)) is not None and isinstance(n, ir.DictOf):
            self.pair_models(om, as_model(n, path), path)
        else:
            out.add("changed", f"{show(o)} → {show(n)}")

    def _refs(self, o: ir.Ref, n: ir.Ref, path: str, out: Outcome) -> None:
        om, nm = self._model(o, self.old), self._model(n, self.new)
        if om is None or nm is None:
            out.add("changed", f"{o.name} → {n.name}")
            return
        positional = not om.is_definition or not nm.is_definition
        if positional:
            self.pair_models(om, nm, path)
        elif similarity(om, nm) >= MIN_SIMILARITY:
            self.pair_models(om, nm, f"{path}[{om.name}→{nm.name}]")
        else:
            out.add("changed", f"{o.name} → {n.name}")

    def _literals(self, o: tuple[ir.JsonScalar, ...], n: tuple[ir.JsonScalar, ...], out: Outcome) -> None:
        added = [v for v in n if v not in o]
        removed = [v for v in o if v not in n]
        for v in added:
            out.add("widened", f"+{json.dumps(v)}")
        for v in removed:
            out.add("narrowed", f"-{json.dumps(v)}")

    def _union(self, o: ir.TypeExpr, n: ir.TypeExpr, path: str, out: Outcome, depth: int) -> None:
        olds, news = list(ir.alternatives(o)), list(ir.alternatives(n))
        old_lits = [v for m in olds if isinstance(m, ir.LiteralOf) for v in m.values]
        new_lits = [v for m in news if isinstance(m, ir.LiteralOf) for v in m.values]
        olds = [m for m in olds if not isinstance(m, ir.LiteralOf)]
        news = [m for m in news if not isinstance(m, ir.LiteralOf)]
        if old_lits or new_lits:
            if old_lits and new_lits:
                self._literals(tuple(old_lits), tuple(new_lits), out)
            elif old_lits:
                olds.append(ir.LiteralOf(tuple(old_lits)))
            else:
                news.append(ir.LiteralOf(tuple(new_lits)))
        for om, nm in self._match(olds, news):
            if om is None:
                out.add("widened", f"+{show(nm)}")
            elif nm is None:
                out.add("narrowed", f"-{show(om)}")
            else:
                self._compare(om, nm, path, out, depth + 1)

    def _match(
        self, olds: list[ir.TypeExpr], news: list[ir.TypeExpr]
    ) -> list[tuple[ir.TypeExpr | None, ir.TypeExpr | None]]:
        """Pair union members: equal or renamed first, then like forms, then the most similar objects."""
        pairs: list[tuple[ir.TypeExpr | None, ir.TypeExpr | None]] = []
        left = list(news)

        def take(pred: Callable[[ir.TypeExpr, ir.TypeExpr], bool], om: ir.TypeExpr) -> bool:
            for nm in left:
                if pred(om, nm):
                    left.remove(nm)
                    pairs.append((om, nm))
                    return True
            return False

        rest = []
        for om in olds:
            if not take(lambda a, b: (a == b and not isinstance(a, ir.Ref)) or self._named_same(a, b), om):
                rest.append(om)
        rest2 = []
        for om in rest:
            if not take(lambda a, b: _same_form(a, b) or _same_inline_name(a, b, self.old, self.new), om):
                rest2.append(om)
        for om in rest2:
            m = self._model(om, self.old)
            scored = [
                (similarity(m, nmodel), overlap(m, nmodel), i)
                for i, nm in enumerate(left)
                if m is not None
                and (nmodel := self._model(nm, self.new)) is not None
                and not (m.is_definition and nmodel.is_definition)
            ]
            best = max(scored, key=lambda x: (x[1] >= MIN_OVERLAP or x[0] >= MIN_SIMILARITY, x[0], x[1]), default=None)
            if best is not None and (best[0] >= MIN_SIMILARITY or best[1] >= MIN_OVERLAP):
                pairs.append((om, left.pop(best[2])))
            else:
                pairs.append((om, None))
        pairs.extend((None, nm) for nm in left)
        return pairs


def _fits(values: tuple[ir.JsonScalar, ...], primitive: str) -> bool:
    kind = _PY_OF[primitive]
    return all(isinstance(v, kind) and not (isinstance(v, bool) and primitive != "boolean") for v in values)


def _same_form(a: ir.TypeExpr, b: ir.TypeExpr) -> bool:
    if isinstance(a, ir.Primitive) and isinstance(b, ir.Primitive):
        return {a.name, b.name} <= {"integer", "number"}
    return (isinstance(a, ir.ListOf) and isinstance(b, ir.ListOf)) or (
        isinstance(a, ir.DictOf) and isinstance(b, ir.DictOf)
    )


def _same_inline_name(
    a: ir.TypeExpr, b: ir.TypeExpr, old: dict[str, ir.Definition], new: dict[str, ir.Definition]
) -> bool:
    if not (isinstance(a, ir.Ref) and isinstance(b, ir.Ref) and a.name == b.name):
        return False
    od, nd = old.get(a.name), new.get(b.name)
    return od is not None and nd is not None and not (od.is_definition and nd.is_definition)
