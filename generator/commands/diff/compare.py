"""Compare the IR of two revisions and collect every Change between them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...model import ir
from ...model.roles import EMBEDDED_UNIONS, ROLE_UNIONS
from . import rules as classify
from .rules import BOTH_BREAK, COMPATIBLE, VALUE_RULES
from .constraints import constraint_notes
from .deprecations import deprecations
from .flow import Flow, flow_of, peer
from .folding import fold
from .grouping import group_shared
from .load import Revision
from .model import Category, Change, ErratumNote, Report, Side
from ...model.shapes import shape as spec
from .rawschema import Node, RawSchema
from .renames import find_renames
from .semantics import Verdict, verdict as semantic_verdict
from .show import show
from .subjects import member
from .types import TypeComparer

CAPABILITY_ROOTS = ("ClientCapabilities", "ServerCapabilities")
ENVELOPE_FIELDS = ("jsonrpc", "id")
# Unions that only list the methods or their results; their changes are reported as method changes.
METHOD_UNIONS = frozenset(ROLE_UNIONS) | frozenset(EMBEDDED_UNIONS) | {"ClientResult", "ServerResult", "InputResponse"}
# The union of every message: its batch members are the batching change, reported once.
MESSAGE_UNION = "JSONRPCMessage"


def direction(senders: frozenset[ir.Side]) -> str:
    """`client → server`, `server → client` or `both ways`."""
    if senders == {"client"}:
        return "client → server"
    if senders == {"server"}:
        return "server → client"
    return "both ways"


def diff_revisions(old: Revision, new: Revision) -> Report:
    """Every change a program written against `old` meets when its peer speaks `new`."""
    d = _Differ(old.protocol, new.protocol, old.raw, new.raw)
    d.run()
    changes = fold(group_shared(d.changes, d.size)) + deprecations(old.raw, new.raw)
    return Report(
        _side(old.protocol), _side(new.protocol), tuple(sorted(changes, key=Change.sort_key)),
        errata=one_sided_errata(old.protocol, new.protocol),
    )


def one_sided_errata(old: ir.Protocol, new: ir.Protocol) -> tuple[ErratumNote, ...]:
    """The errata applied to one side only (by id: variants of one erratum on both sides are both sides)."""
    olds, news = {e.id for e in old.errata}, {e.id for e in new.errata}
    notes = [ErratumNote(e.id, "old", old.revision, e.definitions, e.reason) for e in old.errata if e.id not in news]
    notes += [ErratumNote(e.id, "new", new.revision, e.definitions, e.reason) for e in new.errata if e.id not in olds]
    return tuple(notes)


def _side(p: ir.Protocol) -> Side:
    return Side(p.revision, p.schema_sha256, tuple(e.id for e in p.errata))


@dataclass
class _Differ:
    old: ir.Protocol
    new: ir.Protocol
    oraw: RawSchema
    nraw: RawSchema
    changes: list[Change] = field(default_factory=list)
    odefs: dict[str, ir.Definition] = field(init=False)
    ndefs: dict[str, ir.Definition] = field(init=False)
    oflow: Flow = field(init=False)
    nflow: Flow = field(init=False)
    renames: dict[str, str] = field(init=False)
    envelope_renames: dict[str, str] = field(init=False)
    compared: set[tuple[str, str]] = field(default_factory=set)
    positional: set[tuple[str, str]] = field(default_factory=set)
    capability: int = 0
    messages: set[str] = field(default_factory=set)
    declared: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.odefs = {d.name: d for d in self.old.definitions}
        self.ndefs = {d.name: d for d in self.new.definitions}
        self.oflow = flow_of(self.old)
        self.nflow = flow_of(self.new)
        self.envelope_renames = self._envelope_seeds()
        seeds = {**self.envelope_renames, **self._method_seeds()}
        self.renames = find_renames(self.old, self.new, seeds, skip=METHOD_UNIONS)
        self.types = TypeComparer(self.odefs, self.ndefs, self.renames, self.pair_models)

    def size(self, name: str) -> int:
        """How many properties a definition has (in NEW, else OLD); 0 for a non-object."""
        d = self.ndefs.get(name) or self.odefs.get(name)
        return len(d.fields) if isinstance(d, ir.Model) else 0

    # -- seeds for renames --

    def _envelope_seeds(self) -> dict[str, str]:
        o, n = self.old.envelope, self.new.envelope
        seeds = {}
        for a, b in (
            (o.error_model, n.error_model),
            (o.result_response_model, n.result_response_model),
            (o.request_model, n.request_model),
            (o.notification_model, n.notification_model),
        ):
            if a != b and b not in self.odefs:
                seeds[a] = b
        return seeds

    def _method_seeds(self) -> dict[str, str]:
        seeds = {}
        new_methods = {m.name: m for m in self.new.methods}
        for m in self.old.methods:
            n = new_methods.get(m.name)
            if n is None:
                continue
            for a, b in ((m.message, n.message), (m.result, n.result)):
                if a and b and a != b and a not in self.ndefs and b not in self.odefs:
                    seeds[a] = b
        return seeds

    # -- emitting --

    def emit(self, category: Category, kind: str, subject: str, detail: str, impact: tuple[str, str], **kw: Any) -> None:
        """Record one change."""
        client, server = impact
        self.changes.append(Change(category, kind, subject, detail, client, server, **kw))  # type: ignore[arg-type]

    def value(
        self, category: Category, kind: str, rule: str, subject: str, detail: str,
        old_owner: str | None, new_owner: str | None, **kw: Any,
    ) -> None:
        """Record a change to values of `old_owner`/`new_owner`, classified by who writes and reads them (`rule`)."""
        writers, readers = self._roles(old_owner if old_owner in self.odefs else None,
                                       new_owner if new_owner in self.ndefs else None)
        impact = classify.value_impact(VALUE_RULES[rule], writers, readers)
        self.emit(category, kind, subject, detail, impact, **kw)

    # -- the walk --

    def run(self) -> None:
        """Compare envelope, methods and definitions."""
        self.compare_methods()
        self.compare_definitions()
        self.report_definition_sets()
        self.compare_envelope()

    def compare_definitions(self) -> None:
        """Compare every named definition present in both revisions (directly or renamed)."""
        back = {v: k for k, v in self.renames.items()}
        for nd in self.new.definitions:
            if not nd.is_definition or nd.name in METHOD_UNIONS:
                continue
            old_name = back.get(nd.name, nd.name)
            od = self.odefs.get(old_name)
            if od is None or not od.is_definition or self.renames.get(old_name, nd.name) != nd.name:
                continue
            if od.description != nd.description:
                self.emit("definition", "description.changed", nd.name, "description changed", COMPATIBLE, cosmetic=True)
            if isinstance(od, ir.Model) and isinstance(nd, ir.Model):
                self.pair_models(od, nd, nd.name)
            elif isinstance(od, ir.Alias) and isinstance(nd, ir.Alias):
                out = self.types.compare(_messages_only(od, self.odefs), _messages_only(nd, self.ndefs), nd.name)
                self._position("definition", nd.name, out.verdict, out.notes, od, nd, self._node(od.name, nd.name))
            else:
                self._kind_changed(od, nd)

    def _kind_changed(self, od: ir.Definition, nd: ir.Definition) -> None:
        was = f"was {_what_kind(od)}, now {_what_kind(nd)}"
        o, n = self.oraw.nodes.get(od.name), self.nraw.nodes.get(nd.name)
        sem = semantic_verdict(self.oraw, self.nraw, o, n) if o is not None and n is not None else None
        if sem in ("same", "widened", "narrowed"):
            why = {"same": "accepts the same values", "widened": "every old value still validates",
                   "narrowed": "every new value was valid before"}[sem]
            if sem != "same":
                self.value("definition", f"type.{sem}", f"type.{sem}", nd.name, f"type {sem}: {was}; {why}",
                           od.name, nd.name, old=spec(o), new=spec(n))
            return
        self.emit(
            "definition", "definition.kind_changed", nd.name, was,
            classify.value_impact(VALUE_RULES["definition.kind_changed"], *self._roles(od.name, nd.name)),
            old=spec(o), new=spec(n),
        )

    def _node(self, old: str, new: str, wire: str | None = None) -> tuple[Node | None, Node | None]:
        """The raw nodes of a definition, or of one of its properties, in OLD and NEW."""
        if wire is None:
            return self.oraw.nodes.get(old), self.nraw.nodes.get(new)
        return self.oraw.prop(old, wire), self.nraw.prop(new, wire)

    def _position(
        self, category: Category, subject: str, verdict: Verdict, notes: list[str],
        om: ir.Definition, nm: ir.Definition, nodes: tuple[Node | None, Node | None],
    ) -> None:
        """Report a value position: its type verdict checked against the instances, and its constraints."""
        o, n = nodes
        limits = constraint_notes(o, n) if o is not None and n is not None else []
        if (verdict != "same" or limits) and o is not None and n is not None:
            sem = semantic_verdict(self.oraw, self.nraw, o, n)
            if sem is not None:
                verdict = sem
            elif verdict == "same":
                verdict = "changed"
        if verdict == "same":
            return
        if limits and not [x for x in notes if not x.startswith("additional properties")]:
            detail = f"constraint {verdict}: " + ", ".join(limits)
            self.value(category, f"constraint.{verdict}", f"type.{verdict}", subject, detail, om.name, nm.name,
                       old=spec(o), new=spec(n))
            return
        notes = notes + limits
        detail = f"type {verdict}: " + ", ".join(notes) if notes else f"type {verdict}"
        self.value(category, f"type.{verdict}", f"type.{verdict}", subject, detail, om.name, nm.name,
                   old=spec(o), new=spec(n))

    def _roles(self, old: str | None, new: str | None) -> tuple[frozenset[ir.Side], frozenset[ir.Side]]:
        """Writers and readers a change concerns: the sides that write (read) the value in both revisions.

        A side that stops writing a definition altogether meets that as a method change, not here.
        """
        ow, orr = self.oflow.roles(old)
        nw, nr = self.nflow.roles(new)
        return (ow & nw) or (ow | nw), (orr & nr) or (orr | nr)

    def pair_models(self, om: ir.Model, nm: ir.Model, subject: str) -> None:
        """Compare two object models at one position, once per pair."""
        key = (om.name, nm.name)
        real = om.name in self.odefs and nm.name in self.ndefs
        if real and (not om.is_definition or not nm.is_definition):
            self.positional.add(key)
        if key in self.compared:
            return
        self.compared.add(key)
        root = nm.name in CAPABILITY_ROOTS and om.name in CAPABILITY_ROOTS
        self.capability += root
        try:
            self._fields(om, nm, subject)
        finally:
            self.capability -= root

    def _fields(self, om: ir.Model, nm: ir.Model, subject: str) -> None:
        ofields = {f.wire_name: f for f in om.fields}
        nfields = {f.wire_name: f for f in nm.fields}
        envelope_only = nm.name in self.messages or "method" in nfields
        for wire, nf in nfields.items():
            path = member(subject, wire)
            of = ofields.get(wire)
            if of is None:
                if envelope_only and wire in ENVELOPE_FIELDS:
                    self.declared.setdefault("added", []).append(nm.name)
                    continue
                self._added(om, nm, nf, path)
                continue
            if of.required != nf.required:
                rule = "field.now_required" if nf.required else "field.now_optional"
                word = "required" if nf.required else "optional"
                self.value("field", rule, rule, path, f"now {word}", om.name, nm.name)
            out = self.types.compare(of.type, nf.type, path)
            self._position("field", path, out.verdict, out.notes, om, nm, self._node(om.name, nm.name, wire))
            if (of.description or None) != (nf.description or None):
                self.emit("field", "description.changed", path, "description changed", COMPATIBLE, cosmetic=True)
        for wire, of in ofields.items():
            if wire in nfields:
                continue
            if envelope_only and wire in ENVELOPE_FIELDS:
                self.declared.setdefault("removed", []).append(nm.name)
                continue
            self._removed(om, nm, of, member(subject, wire))
        if om.extra != nm.extra:
            out = self.types.compare(om.extra, nm.extra, subject + ".*")
            notes = ["additional properties " + ", ".join(out.notes)]
            nodes = (self.oraw.extra(om.name), self.nraw.extra(nm.name))
            self._position("field", subject + ".*", out.verdict, notes, om, nm, nodes)

    def _added(self, om: ir.Model, nm: ir.Model, nf: ir.Field, path: str) -> None:
        new = spec(self.nraw.prop(nm.name, nf.wire_name))
        if self.capability:
            nested = _capability_paths(nf.type, self.ndefs)
            detail = "new capability" + (f" with {', '.join(nested)}" if nested else "")
            self.value("capability", "capability.added", "capability.added", path, detail, om.name, nm.name, new=new)
            return
        rule = "field.added.required" if nf.required else "field.added.optional"
        word = "required" if nf.required else "optional"
        self.value("field", rule, rule, path, f"new {word} field: {show(nf.type)}", om.name, nm.name, new=new)

    def _removed(self, om: ir.Model, nm: ir.Model, of: ir.Field, path: str) -> None:
        node = self.oraw.prop(om.name, of.wire_name)
        if self.capability:
            self.value("capability", "capability.removed", "capability.removed", path, "capability removed",
                       om.name, nm.name, old=spec(node))
            return
        extra = self.nraw.extra(nm.name)
        if not of.required and node is not None and extra is not None and extra is not False:
            # The key is still allowed: its values are now typed by `additionalProperties`.
            verdict = semantic_verdict(self.oraw, self.nraw, node, extra) or "changed"
            if verdict != "same":
                detail = f"type {verdict}: no longer declared, values now typed by additionalProperties ({_describe(extra)})"
                self.value("field", f"type.{verdict}", f"type.{verdict}", path, detail, om.name, nm.name,
                           old=spec(node), new=spec(extra))
                return
        rule = "field.removed.required" if of.required else "field.removed.optional"
        word = "required" if of.required else "optional"
        self.value("field", rule, rule, path, f"{word} field removed", om.name, nm.name, old=spec(node))

    # -- methods --

    def compare_methods(self) -> None:
        """Methods added, removed, moved into results, re-kinded, with new senders or result types."""
        olds = {m.name: m for m in self.old.methods}
        news = {m.name: m for m in self.new.methods}
        for name, n in news.items():
            o = olds.get(name)
            if o is None:
                how = "embedded request" if n.embedded else n.kind
                self.emit("method", "method.added", name, f"new {how}, {direction(n.senders)}", COMPATIBLE,
                          direction=direction(n.senders), new=n.message)
                continue
            self.messages.add(n.message)
            self._method_pair(o, n)
        for name, o in olds.items():
            if name not in news:
                self.emit("method", "method.removed", name, f"{o.kind} removed, was {direction(o.senders)}",
                          classify.sides_impact(o.senders), direction=direction(o.senders), old=o.message)

    def _method_pair(self, o: ir.MethodSpec, n: ir.MethodSpec) -> None:
        dirn = direction(n.senders)
        if o.kind != n.kind:
            self.emit("method", "method.kind_changed", n.name, f"was a {o.kind}, now a {n.kind}", BOTH_BREAK,
                      direction=dirn, old=o.kind, new=n.kind)
        if o.embedded != n.embedded:
            where = "embedded in InputRequiredResult.inputRequests" if n.embedded else "a standalone message"
            was = "embedded in a result" if o.embedded else "a standalone message"
            self.emit("method", "method.moved", n.name, f"was {was}, now {where}", BOTH_BREAK, direction=dirn,
                      old="embedded" if o.embedded else "message", new="embedded" if n.embedded else "message")
        for side in sorted(o.senders - n.senders):
            self.emit("method", "method.sender_removed", n.name, f"{side} may no longer send it",
                      classify.sides_impact([side]), direction=dirn, old=sorted(o.senders), new=sorted(n.senders))
        for side in sorted(n.senders - o.senders):
            self.emit("method", "method.sender_added", n.name, f"{side} may now send it", COMPATIBLE,
                      direction=dirn, old=sorted(o.senders), new=sorted(n.senders))
        if o.kind == n.kind == "request" and o.result_type is not None and n.result_type is not None:
            for name in sorted(set(n.opt_in_results) - set(o.opt_in_results)):
                self.emit("method", "method.result_opt_in_added", n.name,
                          f"answers {name} to requesters that ask for it", COMPATIBLE, direction=dirn,
                          old=list(o.opt_in_results), new=list(n.opt_in_results))
            for name in sorted(set(o.opt_in_results) - set(n.opt_in_results)):
                self.emit("method", "method.result_opt_in_removed", n.name,
                          f"no longer answers {name}, which requesters had to ask for", COMPATIBLE, direction=dirn,
                          old=list(o.opt_in_results), new=list(n.opt_in_results))
            out = self.types.compare(
                _without(o.result_type, o.opt_in_results), _without(n.result_type, n.opt_in_results), f"{n.name} result"
            )
            if out.verdict != "same":
                readers = frozenset(n.senders | o.senders)
                writers = frozenset(peer(s) for s in readers)
                impact = classify.value_impact(VALUE_RULES[f"type.{out.verdict}"], writers, readers)
                detail = f"result {out.verdict}: " + ", ".join(out.notes)
                self.emit("method", f"method.result_{out.verdict}", n.name, detail, impact, direction=dirn,
                          old=_type_names(o.result_type), new=_type_names(n.result_type))

    # -- definitions added, removed, renamed --

    def report_definition_sets(self) -> None:
        """Named definitions added, removed, renamed, extracted from or inlined into a position."""
        renamed_to = set(self.renames.values())
        extracted: dict[str, list[str]] = {}
        inlined: dict[str, list[str]] = {}
        for o, n in sorted(self.positional):
            if not self.odefs[o].is_definition:
                extracted.setdefault(n, []).append(o)
            if not self.ndefs[n].is_definition:
                inlined.setdefault(o, []).append(n)
        skip = self._reported_elsewhere()
        for nd in self.new.definitions:
            if not nd.is_definition or nd.name in renamed_to or nd.name in skip:
                continue
            od = self.odefs.get(nd.name)
            if od is not None and od.is_definition and od.name not in self.renames:
                continue
            if nd.name in extracted:
                self.emit("definition", "definition.extracted", nd.name,
                          f"named definition of the inline object {_names(extracted[nd.name])}", COMPATIBLE, cosmetic=True)
            else:
                self.emit("definition", "definition.added", nd.name, f"new {_what(nd)}", COMPATIBLE)
        for od in self.old.definitions:
            if not od.is_definition or od.name in self.renames or od.name in skip:
                continue
            same = self.ndefs.get(od.name)
            if same is not None and same.is_definition:
                continue
            if od.name in inlined:
                self.emit("definition", "definition.inlined", od.name,
                          f"now an inline object ({_names(inlined[od.name])})", COMPATIBLE, cosmetic=True)
            else:
                self.emit("definition", "definition.removed", od.name, f"{_what(od)} removed", COMPATIBLE)
        for o, n in self.renames.items():
            if o in self.envelope_renames:
                continue
            self.emit("definition", "definition.renamed", n, f"renamed from {o}", COMPATIBLE, old=o, new=n)

    def _reported_elsewhere(self) -> frozenset[str]:
        """Definitions whose appearance is a method or batching change, reported as that."""
        batch = self.old.envelope.batching != self.new.envelope.batching
        names = {d.name for d in self.old.definitions + self.new.definitions}
        return frozenset(METHOD_UNIONS) | {n for n in names if batch and n.startswith("JSONRPCBatch")}

    # -- envelope --

    def compare_envelope(self) -> None:
        """Batching, envelope model names, and `jsonrpc`/`id` moving into the message definitions."""
        o, n = self.old.envelope, self.new.envelope
        if o.batching != n.batching:
            word = "added" if n.batching else "removed"
            detail = (
                "JSON-RPC batching added: receivers must accept arrays of messages"
                if n.batching else "JSON-RPC batching removed: arrays of messages are rejected"
            )
            self.emit("envelope", f"envelope.batching_{word}", "batching", detail, BOTH_BREAK,
                      old=o.batching, new=n.batching)
        for a, b in self.envelope_renames.items():
            self.emit("envelope", "envelope.renamed", b, f"envelope model renamed from {a}", COMPATIBLE, old=a, new=b)
        for word, names in sorted(self.declared.items()):
            unique = sorted(set(names))
            verb = "now declared in" if word == "added" else "no longer declared in"
            self.emit(
                "envelope", f"envelope.fields_{'declared' if word == 'added' else 'undeclared'}",
                "jsonrpc, id", f"`jsonrpc`/`id` {verb} {len(unique)} message definitions",
                COMPATIBLE, new=unique if word == "added" else None,
                old=unique if word == "removed" else None,
            )


def _what_kind(d: ir.Definition) -> str:
    return "an object" if isinstance(d, ir.Model) else "a type alias"


def _messages_only(d: ir.Alias, defs: dict[str, ir.Definition]) -> ir.TypeExpr:
    """The type of an alias; for the message union, without the batch arrays (the batching change)."""
    if d.name != MESSAGE_UNION:
        return d.type

    def batch(t: ir.TypeExpr) -> bool:
        target = defs.get(t.name) if isinstance(t, ir.Ref) else None
        return isinstance(t, ir.ListOf) or (isinstance(target, ir.Alias) and isinstance(target.type, ir.ListOf))

    kept = tuple(m for m in ir.alternatives(d.type) if not batch(m))
    return kept[0] if len(kept) == 1 else ir.UnionOf(kept)


def _without(t: ir.TypeExpr, names: tuple[str, ...]) -> ir.TypeExpr:
    """`t` without the union members named `names` (results a requester must opt in to)."""
    if not names or not isinstance(t, ir.UnionOf):
        return t
    kept = tuple(m for m in t.members if not (isinstance(m, ir.Ref) and m.name in names))
    return kept[0] if len(kept) == 1 else ir.UnionOf(kept, t.discriminator)


def _type_names(t: ir.TypeExpr | None) -> list[str]:
    """The alternatives of a result type, as the names the report prints."""
    return [] if t is None else [show(m) for m in ir.alternatives(t)]


def _describe(node: Node) -> str:
    return "any" if node is True or node == {} else "a schema"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"


def _what(d: ir.Definition) -> str:
    return "object" if isinstance(d, ir.Model) else "type alias"


def _capability_paths(t: ir.TypeExpr, defs: dict[str, ir.Definition], prefix: str = "", depth: int = 0) -> list[str]:
    """Nested capability keys of a newly added capability object (`requests.sampling.createMessage`)."""
    d = defs.get(t.name) if isinstance(t, ir.Ref) else None
    if not isinstance(d, ir.Model) or depth > 4:
        return []
    out: list[str] = []
    for f in d.fields:
        out.append(prefix + f.wire_name)
        out.extend(_capability_paths(f.type, defs, prefix + f.wire_name + ".", depth + 1))
    return out
