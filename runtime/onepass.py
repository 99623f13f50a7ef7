"""Reading requests and notifications from bytes in one pass: decoded and validated by their model at once.

The full path (`jsonrpc.load`, then the registry's checks, then the model) decides every message; this
one only takes a shortcut to the same answer. A tagged union (its tag the `method`) validates the bytes
in strict mode: a method's model once the full path has read a message of it and another one comes
(models are built on first use: building them all at once would make the first message wait for every
one, and rebuilding the union for each model learned would make each first message wait for it), and
for every other method, and every method whose model strict mode may read otherwise, the decoded object
itself, which the full path then checks. A model is kept only when the envelope it read is what the
full path requires; anything else (an error, a number a float cannot carry) goes the full path, so
errors are always its. Where a union of models is one strict and lax mode may settle differently, the
model is kept only when no value the union read holds a key that another member reads by a coercion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from .jsonrpc import may_not_be_finite

__all__ = ["Reader"]


class Reader:
    """Reads the requests and notifications of a revision's methods in one pass, where their models allow."""

    def __init__(
        self,
        accepted: Mapping[str, tuple[type[BaseModel], bool]],
        full: Callable[[Any, dict[str, Any] | None], Any],
    ) -> None:
        self._full = full
        self._accepted = {model: (name, request) for name, (model, request) in accepted.items()}
        # Each model in the union → what is left to check of the envelope it read (None: nothing).
        self._members: dict[type[BaseModel], str] = {}
        self._settled: set[type[BaseModel]] = set()
        # A model marked _CHECKED → what is left of its envelope and the unions to check in what it read.
        self._checked: dict[type[BaseModel], tuple[str, tuple[_Check, ...]]] = {}
        # Wire name → a model learned since the union was built, taken in when its method comes again.
        self._pending: dict[str, type[BaseModel]] = {}
        self._validate: Callable[..., Any] | None = self._first  # the union, built on first use

    def read(self, data: Any) -> Any:
        """`data` as its method's model, read in one pass where its model allows; else what the full path
        (`full`) gives for `data` and, for a method one pass decodes but does not read, the decoded
        object (what `jsonrpc.load` gives, but `method` first) or None when it must decode `data` too.
        """
        validate = self._validate
        if type(data) is bytes and validate is not None and not may_not_be_finite(data):
            try:
                model = validate(data, strict=True)
            except ValidationError:
                return self._full(data, None)
            left = self._members.get(type(model))
            if left is _NOTHING:
                return model
            if left is None:  # the decoded object, for the full path to check
                if model["method"] in self._pending:
                    self._take_pending()
                return self._full(data, model)
            if left is _CHECKED:
                left, checks = self._checked[type(model)]
                if not _clear(model, checks):
                    return self._full(data, None)
                if left is _NOTHING:
                    return model
            if left is _NO_ID_FIELD:
                if "id" not in model.__pydantic_fields_set__:
                    return model
            else:  # `jsonrpc` and `id` are extra keys: "2.0", and a request's id or no notification's
                extra = model.__pydantic_extra__ or _NO_EXTRA
                if extra.get("jsonrpc") == "2.0" and (
                    type(extra.get("id")) in _ID_TYPES if left is _EXTRA_ID else "id" not in extra
                ):
                    return model
        return self._full(data, None)

    def learn(self, model: type[BaseModel]) -> None:
        """Note that the full path has read a message of `model`: if it is a message model one pass may
        read, the union takes it in when a message of its method comes again."""
        if model in self._settled:
            return
        self._settled.add(model)
        if model not in self._accepted:
            return
        name, request = self._accepted[model]
        if _readable(model, name, request):
            self._pending[name] = model

    def _take_pending(self) -> None:
        """Take every model learned since the union was built into it (one build for them all)."""
        for model in self._pending.values():
            left = _envelope_left(model, self._accepted[model][1])
            checks = _union_checks(model.__pydantic_core_schema__)
            if checks:
                self._checked[model] = (left, checks)
                left = _CHECKED
            self._members[model] = left
        self._pending.clear()
        self._validate = self._union()

    def _first(self, data: bytes, strict: bool) -> Any:
        self._validate = self._union()
        if self._validate is None:
            raise ValidationError.from_exception_data("nothing to read", [])
        return self._validate(data, strict=strict)

    def _union(self) -> Callable[..., Any] | None:
        others = tuple(  # where `method` is a field, the key order the object keeps is immaterial
            name
            for model, (name, _) in self._accepted.items()
            if model not in self._members and "method" in model.model_fields
        )
        members: tuple[Any, ...] = tuple(self._members)
        if others:
            members += (_decoded(others),)
        if not members:
            return None
        if len(members) == 1:
            return TypeAdapter(members[0]).validator.validate_json
        union: Any = Annotated[Union[members], Field(discriminator="method")]
        return TypeAdapter(union).validator.validate_json


def _decoded(names: tuple[str, ...]) -> Any:
    """A JSON object whose `method` is one of `names`, read as it is decoded (every key kept)."""
    typed_dict: Any = TypedDict  # a class made here, from names known only now
    decoded = typed_dict("Decoded", {"method": Literal[names]})
    decoded.__pydantic_config__ = ConfigDict(extra="allow")
    return decoded


def _readable(model: type[BaseModel], name: str, request: bool) -> bool:
    """True when strict validation of JSON by `model` accepts only what the full path accepts, as the
    full path reads it. The envelope is either fields that require what the full path checks (`jsonrpc`
    the literal "2.0", a request's `id` a string or an integer, `method` its name) or, but for
    `method`, extra keys; each of its keys is read by the field of its own name alone; and no union
    leaves pydantic a choice that a lax coercion could change, or each such union is one of models
    that `_union_checks` finds a path to."""
    if not model.__pydantic_complete__:
        model.model_rebuild()
    fields = model.model_fields
    method = fields.get("method")
    tag: Any = Literal[name]
    if method is None or not method.is_required() or method.annotation != tag:
        return False
    jsonrpc, request_id = fields.get("jsonrpc"), fields.get("id")
    if jsonrpc is None:
        if request_id is not None:
            return False
    elif not jsonrpc.is_required() or jsonrpc.annotation != _JSONRPC:
        return False
    elif request and (request_id is None or request_id.annotation != _REQUEST_ID):
        return False
    for key in ("jsonrpc", "id", "method"):
        readers = [n for n, f in fields.items() if key in (n, f.alias, f.validation_alias)]
        if readers not in ([], [key]) or (readers and fields[key].alias not in (None, key)):
            return False
    if any(not isinstance(f.validation_alias, (str, type(None))) for f in fields.values()):
        return False
    return _union_checks(model.__pydantic_core_schema__) is not None


def _envelope_left(model: type[BaseModel], request: bool) -> str:
    """What strict validation by a `_readable` model leaves to check of the envelope: nothing (a
    request with `jsonrpc` and `id` fields), that a notification has no `id` field set, or, where
    `jsonrpc` and `id` are extra keys, that they hold "2.0" and a string or an integer (a request) or
    "2.0" and no `id` (a notification)."""
    if "jsonrpc" in model.model_fields:
        return _NOTHING if request else _NO_ID_FIELD
    return _EXTRA_ID if request else _EXTRA_NO_ID


def _undecided(schema: Any) -> list[Any]:
    """The smart-mode unions of a core schema that strict validation may settle otherwise than lax
    validation would. Lax mode prefers the member with the most fields set over a stricter one, so a
    member that only a lax coercion makes valid could win over one strict mode takes: that needs two
    members reading the same JSON kind (objects, or arrays), one of which holds a type lax mode coerces.
    """
    if not isinstance(schema, dict):
        return [schema]
    nodes = list(_nodes(schema))
    refs = _refs(nodes)
    found = []
    for node in nodes:
        if node.get("type") != "union" or node.get("mode", "smart") != "smart":
            continue
        choices = [c[0] if isinstance(c, tuple) else c for c in node["choices"]]
        for kind in ("object", "array"):
            alike = [c for c in choices if _kind(c, refs) == kind]
            if len(alike) > 1 and any(_coerces(c, refs) for c in alike):
                found.append(node)
                break
    return found


def _union_checks(schema: Any) -> tuple[_Check, ...] | None:
    """What to check in a model strict validation read by a core schema so that it is the one lax
    validation reads: () when every union is settled alike (`_undecided`); else, for each union (or
    tagged union) of models holding such a union, the path to its values and, for each member, the
    field names and keys that another member reads by a lax coercion; None when such a union is
    anywhere else (inside a member, another union, a map's keys, a cycle).

    Exact: strict and lax validation of a model read the same input alike unless one of its
    coercing fields is in it; so when no value the union read holds a key of a coercing field of
    another member, every member accepts or refuses it in lax mode as in strict mode, with the same
    fields set and exactness, and lax mode picks the member strict mode picked. The value holds every
    key it was given: its fields set (each by either of its names) and its extra keys."""
    targets = {id(node) for node in _undecided(schema)}
    if not targets:
        return ()
    nodes = list(_nodes(schema))
    refs = _refs(nodes)
    checks: list[_Check] = []
    covered: set[int] = set()

    def walk(node: Any, path: tuple[Any, ...], seen: frozenset[str]) -> bool:
        while isinstance(node, dict) and node.get("type") in ("definition-ref", "definitions"):
            if node["type"] == "definitions":
                node = node["schema"]
                continue
            ref = node.get("schema_ref")
            if ref not in refs or ref in seen:
                return not _reaches(node, targets, refs)
            seen, node = seen | {ref}, refs[ref]
        kind = node.get("type") if isinstance(node, dict) else None
        if kind in ("default", "nullable", "model"):
            return walk(node["schema"], path, seen)
        if kind == "model-fields" and node.get("extras_schema") is None:
            return all(
                walk(f["schema"], path + (name,), seen) for name, f in node["fields"].items()
            )
        if kind in ("dict", "list"):
            keys = node.get("keys_schema")
            if keys is not None and _reaches(keys, targets, refs):
                return False
            items = node.get("values_schema" if kind == "dict" else "items_schema")
            return items is None or walk(items, path + (_EACH,), seen)
        if kind in ("union", "tagged-union") and _reaches(node, targets, refs):
            choices = node["choices"].values() if kind == "tagged-union" else node["choices"]
            inner = [c[0] if isinstance(c, tuple) else c for c in choices]
            spread = [node] + [c for c in inner if isinstance(c, dict) and c.get("type") == "union"]
            members = _member_models(spread, refs)
            if members is None or any(_reaches(m, targets, refs) for m in members.values()):
                return False  # checking a member's own such unions too measured slower (2025-11-25)
            risky = _risky(members, refs)
            if risky is None:
                return False
            covered.update(id(n) for n in spread)
            checks.append((_steps(path), risky))
            return True
        return not _reaches(node, targets, refs)

    if not walk(schema, (), frozenset()) or not targets <= covered:
        return None
    return tuple(checks)


def _member_models(unions: list[Any], refs: dict[str, Any]) -> dict[type, Any] | None:
    """The model class and schema of every member of `unions` (the first, the choices of it that are
    unions), or None unless every member is a plain model."""
    members: dict[type, Any] = {}
    for union in unions:
        choices = union["choices"].values() if union["type"] == "tagged-union" else union["choices"]
        for choice in choices:
            choice = choice[0] if isinstance(choice, tuple) else choice
            if any(choice is u for u in unions):
                continue
            while isinstance(choice, dict) and choice.get("type") == "definition-ref":
                choice = refs.get(str(choice.get("schema_ref")))
            if not isinstance(choice, dict):
                return None
            if (
                choice.get("type") != "model"
                or choice.get("schema", {}).get("type") != "model-fields"
            ):
                return None
            members[choice["cls"]] = choice
    return members


def _risky(members: dict[type, Any], refs: dict[str, Any]) -> dict[type, _Risky] | None:
    """For each member: its fields and the keys that another member reads by a lax coercion (both
    names of each such field); None unless every member keeps each key it does not know as an extra
    of any value (so a value shows every key it was given) and names each field by strings."""
    coercing: dict[type, set[str]] = {}
    for cls, model in members.items():
        fields = model["schema"]
        kept = fields.get("extra_behavior") or model.get("config", {}).get("extra_fields_behavior")
        if kept != "allow" or fields.get("extras_schema") is not None:
            return None
        coercing[cls] = keys = set[str]()
        for name, field in fields["fields"].items():
            alias = field.get("validation_alias", name)
            if not isinstance(alias, str):
                return None
            if _coerces(field["schema"], refs):
                keys.update((name, alias))
    risky: dict[type, _Risky] = {}
    for cls, model in members.items():
        others = frozenset(
            k for other, found in coercing.items() if other is not cls for k in found
        )
        names = frozenset(
            name
            for name, field in model["schema"]["fields"].items()
            if name in others or field.get("validation_alias", name) in others
        )
        risky[cls] = (names, others)
    return risky


def _clear(model: BaseModel, checks: tuple[_Check, ...]) -> bool:
    """True when no model at the path of a check below `model` holds a field or key that its entry in
    the check names."""
    for steps, risky in checks:
        values: list[Any] = [model]
        for names, each in steps:
            found: list[Any] = []
            for value in values:
                for name in names:  # a model's field; None where omitted (or null): nothing below
                    held = getattr(value, "__dict__", None)
                    value = None if held is None else held.get(name)
                if not each:
                    if value is not None:
                        found.append(value)
                elif type(value) is dict:
                    found.extend(value.values())
                elif type(value) is list:
                    found.extend(value)
            values = found
        for value in values:
            entry = risky.get(type(value))
            if entry is None:
                if value is None:
                    continue
                return False
            fields, keys = entry
            extra = value.__pydantic_extra__
            if extra and not keys.isdisjoint(extra):
                return False
            if fields and not fields.isdisjoint(value.__pydantic_fields_set__):
                return False
    return True


def _steps(path: tuple[Any, ...]) -> tuple[tuple[tuple[str, ...], bool], ...]:
    """A path as steps: the fields between two `_EACH` (or the ends), and whether every value or item
    of what they lead to comes next."""
    steps = []
    names: list[str] = []
    for step in path + (None,):
        if step is _EACH or step is None:
            if names or step is _EACH:
                steps.append((tuple(names), step is _EACH))
            names = []
        else:
            names.append(step)
    return tuple(steps)


def _refs(nodes: list[Any]) -> dict[str, Any]:
    """The schemas of a core schema's nodes, by their `ref`."""
    return {node["ref"]: node for node in nodes if isinstance(node.get("ref"), str)}


def _reaches(schema: Any, targets: set[int], refs: dict[str, Any]) -> bool:
    """True when a schema (with what it refers to) holds one of the nodes `targets` names."""
    seen: set[str] = set()
    stack = [schema]
    while stack:
        for node in _nodes(stack.pop()):
            if id(node) in targets:
                return True
            ref = node.get("schema_ref") if node.get("type") == "definition-ref" else None
            if ref in refs and ref not in seen:
                seen.add(ref)
                stack.append(refs[ref])
    return False


def _nodes(schema: Any) -> Any:
    """Every schema in a core schema (its serialization and metadata aside)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(v for k, v in node.items() if k not in _NOT_VALIDATION)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _kind(schema: Any, refs: dict[str, Any], depth: int = 0) -> str:
    """What JSON a union member reads: scalars only, arrays, or (for anything else, to be safe) objects."""
    kind = schema.get("type") if isinstance(schema, dict) and depth < 50 else None
    if kind == "definition-ref" and schema.get("schema_ref") in refs:
        return _kind(refs[schema["schema_ref"]], refs, depth + 1)
    if kind == "union":
        inner = {
            _kind(c[0] if isinstance(c, tuple) else c, refs, depth + 1) for c in schema["choices"]
        }
        return "scalar" if inner == {"scalar"} else "object"
    return "scalar" if kind in _SCALARS else "array" if kind in _ARRAYS else "object"


def _coerces(schema: Any, refs: dict[str, Any]) -> bool:
    """True when a schema (with what it refers to) holds a type lax validation of JSON reads from other
    JSON than strict validation does (numbers, booleans, anything unknown); strings, objects, arrays,
    null, string literals and models of them read the same JSON either way."""
    seen: set[str] = set()
    stack = [schema]
    while stack:
        for node in _nodes(stack.pop()):
            kind = node.get("type")
            if kind == "definition-ref":
                ref = node.get("schema_ref")
                if ref not in refs:
                    return True
                if ref not in seen:
                    seen.add(ref)
                    stack.append(refs[ref])
            elif kind == "literal":
                if not all(isinstance(value, str) for value in node.get("expected", [None])):
                    return True
            elif isinstance(kind, str) and kind not in _NO_COERCION:
                return True
    return False


_ID_TYPES = (str, int)
_NOTHING, _NO_ID_FIELD, _EXTRA_ID, _EXTRA_NO_ID, _CHECKED = (
    "nothing",
    "no id field",
    "extra id",
    "extra, no id",
    "checked",
)
_EACH = ("each",)  # a path step: every value of a dict, every item of a list
_Risky = tuple[frozenset[str], frozenset[str]]
_Check = tuple[tuple[tuple[tuple[str, ...], bool], ...], dict[type, _Risky]]
_NO_EXTRA: dict[str, Any] = {}
_JSONRPC: Any = Literal["2.0"]
_REQUEST_ID: Any = str | int
_SCALARS = frozenset({"str", "int", "float", "bool", "none", "literal"})
_ARRAYS = frozenset({"list", "tuple", "set", "frozenset"})
_NO_COERCION = frozenset(
    {"str", "none", "any", "list", "dict", "model", "model-fields", "model-field", "default",
     "nullable", "union", "tagged-union", "definitions", "typed-dict", "typed-dict-field"}
)  # fmt: skip
_NOT_VALIDATION = frozenset({"cls", "serialization", "metadata"})
