"""The catalogue of mutants: typical ways to break the generator and the runtime, each located by scope and exact text.

A mutant names a file, optionally a function or class (`Class.method`) whose source bounds the search,
the exact text to find there (it must occur exactly once) and its replacement. Line numbers are never
used, so the catalogue survives code motion; when a target is reworded or removed, `run.py --check`
says which mutant is stale and why.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One deliberate break: where, what text becomes what, and which typical bug it stands for."""

    id: str
    path: str
    scope: str | None
    find: str
    replace: str
    note: str


def _group(path: str, rows: list[tuple[str, str | None, str, str, str]]) -> list[Mutant]:
    """The mutants of one file, their ids prefixed after it: `roles.`, `types.jinja.`, `runtime_http_server.`."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith("runtime/"):
        prefix = "runtime_" + path.removeprefix("runtime/").removesuffix(".py").replace("/", "_")
    else:
        prefix = name.split(".")[0] + (".jinja" if name.endswith(".jinja") else "")
    return [Mutant(f"{prefix}.{name}", path, scope, find, replace, note) for name, scope, find, replace, note in rows]


FRONTEND = _group(
    "generator/model/parser.py",
    [
        ("formats-kept", "_normalized", 'if not (k == "format" and isinstance(v, str))', "", "string formats reach the parser (AnyUrl, datetime, Base64Str)"),
        ("format-properties-dropped", "_normalized", 'if not (k == "format" and isinstance(v, str))', 'if k != "format"', "a property named `format` is stripped too"),
        ("enums-as-classes", "parsed_models", "enum_field_as_literal=LiteralType.All", "enum_field_as_literal=LiteralType.One", "multi-value enums become Enum classes"),
        ("constraints-as-types", "parsed_models", "field_constraints=True", "field_constraints=False", "constraints folded into con* types and lost"),
        ("draft07-unknown", "defs_key_of", 'for key in ("$defs", "definitions"):', 'for key in ("$defs",):', "draft-07 `definitions` not recognised"),
        ("pointer-unescaped", "_escape_pointer", 'return name.replace("~", "~0").replace("/", "~1")', "return name", "definition names with `/` or `~` not escaped in pointers"),
        ("never-allows-anything", "_never", "    if node is False:\n        return True\n    return (", "    return False and (", "`{\"not\": {}}` read as any value: a closed object accepts unknown keys"),
        ("property-names-make-maps", "_normalized", "            del out[\"propertyNames\"]\n", "            pass\n", "a closed object with `propertyNames` read as an open map"),
        ("remote-refs-read", "check_references", 'if not isinstance(ref, str) or not ref.startswith("#"):', "if not isinstance(ref, str):", "a `$ref` to a file or URL reaches the parser: read relative to the working directory, or over the network"),
        ("missing-refs-kept", "check_references", 'raise SchemaError(f"schema reference {ref!r} does not resolve") from None', "continue", "a `$ref` to a missing definition typed `Any`"),
        ("ref-cycles-kept", "check_references", 'raise SchemaError(f"schema references only lead to each other: {cycle}")', "break", "an alias cycle (`A` → `B` → `A`) generated: mypy and pydantic refuse it at use"),
    ],
)

READER = _group(
    "generator/model/reader.py",
    [
        ("inherited-description-lost", "_Reader.inherit", "own.extras = dict(found[0].extras)", "pass", "a field overriding an inherited one loses the description the parser gives it"),
        ("hoisted-path-wire-name", "_path_name", 'return "field" + name if name.startswith("_") else name', "return name", "objects hoisted from `_meta` get other reference paths than the parser's"),
        ("minimum-dropped", None, '_BOUNDS = {"minimum": "ge", ', "_BOUNDS = {", "minimum not enforced"),
        ("closed-objects-open", "_Reader.object_model", """config = SimpleNamespace(extra="'forbid'") if extra is False else None""", "config = None", "`additionalProperties: false` read as open"),
        ("merged-literals-read", "_Reader.type_of", "if sum(bool(t.literals) for t in types) > 1:", "if False:", "an anyOf of several constants read as a union where the parser merges them"),
    ],
)

TYPESYS = _group(
    "generator/model/definitions.py",
    [
        ("integer-as-number", None, '"int": ir.Primitive("integer")', '"int": ir.Primitive("number")', "integers accept floats"),
        ("number-as-integer", None, '"float": ir.Primitive("number")', '"float": ir.Primitive("integer")', "numbers reject floats"),
        ("nullable-dropped", "_Builder.convert", "if dt.is_optional and not ir.admits_null(result):", "if False:", "`type: [X, null]` loses null"),
        ("enum-first-value-only", "_Builder._convert", "return ir.LiteralOf(tuple(dt.literals))", "return ir.LiteralOf(tuple(dt.literals[:1]))", "enums keep only their first value"),
        ("list-items-untyped", "_Builder._convert", 'return ir.ListOf(self.convert(item, hint + "Item") if item else ir.AnyType())', "return ir.ListOf(ir.AnyType())", "array items unchecked"),
        ("map-values-untyped", "_Builder._convert", 'return ir.DictOf(self.convert(value, hint + "Value") if value else ir.AnyType())', "return ir.DictOf(ir.AnyType())", "map values unchecked"),
        ("union-first-member", "_Builder._convert", "return _union(members)", "return members[0]", "unions keep only their first member"),
        ("variants-numbered", "_Builder._member_hints", 'numbered = [f"{hint}Variant{_letters(i)}"', 'numbered = [f"{hint}Variant{i}"', "union members named by number"),
        ("letters-off-by-one", "_letters", "    i += 1\n", "", "union member suffixes shifted"),
        ("closed-open", "_is_closed", "return str(extra).strip(\"'\\\"\") == \"forbid\"", "return False", "`additionalProperties: false` ignored"),
        ("typed-extra-untyped", "_Builder._own_fields", "extra = extra_type.value if isinstance(extra_type, ir.DictOf) else extra_type", "extra = ir.AnyType()", "typed additionalProperties unchecked"),
        ("inherited-fields-lost", "_Builder.build", "fields.update((f.wire_name, f) for f in inherited[0])", "pass", "allOf base fields dropped"),
        ("all-optional", "_Builder._own_fields", "required=bool(f.required)", "required=False", "required fields become optional"),
        ("all-required", "_Builder._own_fields", "required=bool(f.required)", "required=True", "optional fields become required"),
        ("hoisted-suffixed", "_Builder.name_for", "self.names[path] = unique(hint, self.taken)", 'self.names[path] = unique(hint + "Model", self.taken)', "hoisted objects get a different name"),
        ("hoist-hint-raw", "_Builder._own_fields", "owner + pascal_case(wire)", "owner + wire", "hoisted names not PascalCased"),
        ("field-names-clash", "_python_names", "py = unique(snake_case(f.wire_name), taken | (wires - {f.wire_name}))", "py = snake_case(f.wire_name)", "colliding Python field names not disambiguated"),
        ("python-name-is-other-wire", "_python_names", "taken | (wires - {f.wire_name})", "taken", "a field's Python name equals another field's wire name (validation by name mixes them up)"),
        ("definitions-not-reserved", "build_definitions", "reserved[name] = unique(definition_name(name), b.taken)", "reserved[name] = definition_name(name)", "hoisted objects may take a definition's name"),
        ("model-doc-dropped", "_Builder.build", "            description=description,\n            fields=", "            description=None,\n            fields=", "model descriptions lost"),
        ("field-doc-dropped", "_Builder._own_fields", 'description=(f.extras or {}).get("description")', "description=None", "field descriptions lost"),
        ("min-length-dropped", None, '    "min_length": "min_length",\n', "", "minLength and minItems not enforced"),
        ("max-length-dropped", None, '    "max_length": "max_length",\n', "", "maxLength not enforced"),
        ("no-method-key", None, 'DISCRIMINATOR_KEYS = ("method", ', "DISCRIMINATOR_KEYS = (", "no discriminator on `method`"),
        ("no-type-key", None, '"type", "kind", "resultType"', '"kind", "resultType"', "no discriminator on `type`"),
        ("no-kind-key", None, '"type", "kind", "resultType"', '"type", "resultType"', "no discriminator on `kind`"),
        ("no-result-type-key", None, '"kind", "resultType", "mode"', '"kind", "mode"', "no discriminator on `resultType`"),
        ("no-status-key", None, '"mode", "status")', '"mode")', "no discriminator on `status` (ext-tasks' task states)"),
        ("members-not-named-by-tag", "_Builder._member_hints", "                return [hint + n for n in names]\n", "                return numbered\n", "inline union members named VariantA… though a constant tags them"),
        ("members-named-by-any-tag", "_Builder._member_hints", "and len(set(names)) == len(names)", "", "members named after a constant they share (…Complete, …Complete_)"),
        ("alias-bounds-dropped", "_Builder.build", "                constraints=_constraints(root, name),\n", "", "a scalar alias loses its minimum and maximum"),
        ("bounds-unwrapped-lost", "_constraints", 'value = getattr(value, "value", value)', "pass", "numeric bounds (wrapped in UnionIntFloat) dropped: minimum/maximum not enforced"),
        ("exclusive-bounds-inclusive", None, '    "gt": "gt",\n    "lt": "lt",\n', '    "gt": "ge",\n    "lt": "le",\n', "exclusiveMinimum/exclusiveMaximum enforced as inclusive bounds"),
        ("infinite-bound-written", "_constraints", "if isinstance(value, float) and not math.isfinite(value):", "if False:", "`maximum: 1e999` written as `Field(le=inf)`: the package fails at import"),
    ],
)

PROTOCOL = _group(
    "generator/model/protocol.py",
    [
        ("no-discriminators", "_discriminator", "    models: list[ir.Model] = []\n", "    return None\n", "every discriminator removed (issue 11)"),
        ("optional-tags", "_discriminator", "if f is None or not f.required or not isinstance(f.type, ir.LiteralOf):", "if f is None or not isinstance(f.type, ir.LiteralOf):", "an optional tag is used as discriminator"),
        ("shared-tags", "_discriminator", "if seen & set(f.type.values) or not f.type.values:", "if not f.type.values:", "members sharing a tag value are discriminated"),
        ("no-nested-groups", "_group_discriminable", "    models = tuple(", "    return ir.UnionOf(members)\n    models = tuple(", "mixed unions get no discriminated group"),
        ("dispatch-member-left-out", "_dispatch", "for index, taken in enumerate(values):", "for index, taken in enumerate(values[:-1]):", "a dispatched union's last member missing from its tags (only the fallback reaches it)"),
        ("presence-wire-name-only", "_presence", "tuple(dict.fromkeys((f.wire_name, f.python_name)))", "(f.wire_name,)", "a member whose required key is given by its Python name left out of a dispatch"),
        ("presence-optional-keys", "_presence", "if f.required and f.wire_name != key", "if f.wire_name != key", "a member left out of a dispatch when an optional key is absent"),
        ("no-dispatch", "_with_discriminators", "        if dispatch is not None:\n", "        if False:\n", "unions with overlapping tag values validated member by member (slow, not wrong: performance only)"),
        ("group-needs-three", "_group_discriminable", "if 2 <= len(models) < len(members)", "if 3 <= len(models) < len(members)", "two tagged objects in a mixed union not grouped"),
        ("list-items-undiscriminated", "_with_discriminators", "return ir.ListOf(_with_discriminators(t.item, defs))", "return t", "unions inside arrays not discriminated"),
        ("map-values-undiscriminated", "_with_discriminators", "return ir.DictOf(_with_discriminators(t.value, defs))", "return t", "unions inside maps not discriminated"),
        ("aliases-unordered", "emission_order", "                for dep in alias_deps[name]:\n                    emit(dep)\n", "                pass\n", "an alias emitted before the alias it names"),
        ("no-recursive-aliases", "_cyclic", "    index: dict[str, int] = {}\n", "    return set()\n", "recursive aliases not made lazy"),
        ("self-recursion-missed", "_cyclic", "if len(comp) > 1 or node in edges(node):", "if len(comp) > 1:", "a self-recursive alias not made lazy"),
        ("unknown-pair-accepted", "build_protocol", "            if name not in names:", "            if False:", "--pair with an unknown definition accepted"),
        ("table-beats-pair", "build_protocol", "{**load_pairings(), **dict(pairings)}", "{**dict(pairings), **load_pairings()}", "the shipped table overrides --pair"),
        ("pairs-unrecorded", "build_protocol", "        pairings=pairings,\n", "        pairings=(),\n", "--pair not recorded in the package"),
        ("revision-refs-unchecked", "build_protocol", "    check_references(schema)\n", "", "a revision's `$ref`s reach the parser unchecked"),
    ],
)

ROLES = _group(
    "generator/model/roles.py",
    [
        ("client-requests-from-server", None, '"ClientRequest": ("client", "request")', '"ClientRequest": ("server", "request")', "client requests attributed to the server"),
        ("client-notifications-as-requests", None, '"ClientNotification": ("client", "notification")', '"ClientNotification": ("client", "request")', "notifications treated as requests"),
        ("no-embedded-unions", None, '= {"InputRequest": ("server", "request")}', "= {}", "embedded input requests ignored"),
        ("single-ref-ignored", "_members", "    return _refs(d.type, defs, seen | {name})\n", "    return _refs(d.type, defs, seen | {name}) if isinstance(d.type, ir.UnionOf) else []\n", "a role union that is a single $ref yields nothing"),
        ("nested-unions-flat", "_refs", "        return _members(t.name, defs, seen)\n", "        return [t.name] if isinstance(defs.get(t.name), ir.Model) else []\n", "unions of unions (a $ref to another union) not followed"),
        ("inline-unions-skipped", "_refs", "for name in _refs(member, defs, seen)]", "for name in (_members(member.name, defs, seen) if isinstance(member, ir.Ref) else [])]", "a union nested inline in a role union (a discriminated group) not descended"),
        ("inlined-copy-kept", "_copied_definition", "    if model.name not in ROLE_UNIONS and model.name not in EMBEDDED_UNIONS:\n        return model\n", "    return model\n", "an inlined role union used instead of the definition it copies"),
        ("no-role-unions-accepted", "_collect", "if not any(union in defs for union in ROLE_UNIONS):", "if False:", "a schema without role unions accepted"),
        ("non-constant-method-accepted", "method_name", "len(f.type.values) == 1", "len(f.type.values) >= 1", "a member with several `method` values accepted"),
        ("kind-conflict-accepted", "_collect", "if entry.kind != kind:", "if False:", "a method both request and notification accepted"),
        ("nothing-embedded", "_collect", "_Found(model, kind, set(), union in EMBEDDED_UNIONS)", "_Found(model, kind, set(), False)", "embedded requests registered as messages"),
        ("embedded-sticks", "_collect", "entry.embedded = entry.embedded and union in EMBEDDED_UNIONS", "entry.embedded = entry.embedded or union in EMBEDDED_UNIONS", "a message that is also embedded becomes embedded"),
        ("swap-resource-results", "pair_result", "    base = _base(model.name)\n", '    base = {"ListResources": "ListResourceTemplates", "ListResourceTemplates": "ListResources"}.get(_base(model.name), _base(model.name))\n', "results of resources/list and resources/templates/list swapped (issue 11)"),
        ("result-response-ignored", "pair_result", "    if isinstance(response, ir.Model):", "    if False:", "<X>ResultResponse not used for pairing"),
        ("input-required-primary", "pair_result", "primary = [r for r in refs if r != _INPUT_REQUIRED]", "primary = refs", "InputRequiredResult taken as the result"),
        ("first-member-result", "pair_result", 'name = f"{base}Result" if f"{base}Result" in primary else primary[0]', "name = primary[0]", "the first member of a result union taken as the result"),
        ("result-union-narrowed", "pair_result", "return name, f.type", "return name, ir.Ref(name)", "a result union narrowed to its primary member"),
        ("no-pairing-by-name", "pair_result", '    if f"{base}Result" in defs:', "    if False:", "<X>Request → <X>Result not used"),
        ("no-pairing-table", "pair_result", "if model.name in table and table[model.name] in defs:", "if False:", "the pairings table not used"),
        ("base-keeps-suffix", "_base", 'for suffix in ("Request", "Notification"):', 'for suffix in ("Notification",):', "request names not stripped for pairing"),
        ("params-unnamed", "derive_methods", "params=params.type.name if params is not None and isinstance(params.type, ir.Ref) else None", "params=None", "methods lose their params model"),
        ("params-never-required", "derive_methods", "params_required=bool(params is not None and params.required)", "params_required=False", "required params reported optional"),
        ("method-names-clash", "derive_methods", "python_name=unique(method_python_name(model.name), taken)", "python_name=method_python_name(model.name)", "colliding method names not disambiguated"),
        ("never-batching", "envelope", 'batching=any("Batch" in n and n.startswith("JSONRPC") for n in names)', "batching=False", "batches refused where allowed"),
        ("always-batching", "envelope", 'batching=any("Batch" in n and n.startswith("JSONRPC") for n in names)', "batching=True", "batches allowed where refused"),
        ("error-model-is-result", "envelope", 'error_model=first("JSONRPCErrorResponse", "JSONRPCError")', 'error_model=first("JSONRPCResultResponse", "JSONRPCResponse")', "error responses parsed as results"),
    ],
)

NAMING = _group(
    "generator/model/naming.py",
    [
        ("no-camel-boundary", None, '_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|', '_CAMEL_BOUNDARY = re.compile(r"', "camelCase not split"),
        ("no-lowercase", "snake_case", '_CAMEL_BOUNDARY.sub("_", name).lower()', '_CAMEL_BOUNDARY.sub("_", name)', "snake_case keeps capitals"),
        ("underscores-kept", "snake_case", '.strip("_")', "", "leading underscores kept (`_meta` → private attribute)"),
        ("leading-digit", "snake_case", "    if name[0].isdigit():\n", "    if False:\n", "field names may start with a digit"),
        ("keywords-allowed", "snake_case", "reserved = keyword.iskeyword(name) or name in RESERVED_FIELD_NAMES", "reserved = name in RESERVED_FIELD_NAMES", "fields named like keywords"),
        ("pydantic-names-allowed", "snake_case", "reserved = keyword.iskeyword(name) or name in RESERVED_FIELD_NAMES", "reserved = keyword.iskeyword(name)", "fields shadow BaseModel attributes"),
        ("protected-prefix-allowed", "snake_case", "    if name.startswith(_PROTECTED_PREFIXES):\n", "    if False:\n", "fields in pydantic's protected namespace"),
        ("pascal-capitalize", "pascal_case", "p[:1].upper() + p[1:]", "p.capitalize()", "PascalCase lowercases the rest of each word"),
        ("definition-names-raw", "definition_name", "if is_identifier(wire) and wire.isascii() and not _shadows(wire):", "if True:", "definition names used even when not identifiers"),
        ("builtins-shadowed", "_shadows", "return name in _MODULE_NAMES or", "return False and", "definitions shadow builtins"),
        ("unique-digit", "unique", 'name += "_"', 'name += "2"', "collisions numbered"),
        ("notification-suffix-kept", "method_python_name", 'for suffix in ("Request", "Notification"):', 'for suffix in ("Request",):', "notification method names keep their suffix"),
        ("builtins-not-taken", "module_names", "return set(_MODULE_NAMES)", "return set()", "a hoisted model takes a builtin's name (`Type` + `error` → `TypeError`) and shadows it"),
    ],
)

PYSOURCE = _group(
    "generator/emit/pysource.py",
    [
        ("number-as-float", "annotation", '"number": "int | float"', '"number": "float"', "`number` mapped to `float` (issue 11)"),
        ("lazy-number-as-float", "lazy_annotation", "return f\"{sym['Union']}[int, float]\"", 'return "float"', "`number` in recursive aliases mapped to `float`"),
        ("integer-as-number", "annotation", '"integer": "int"', '"integer": "int | float"', "integers accept floats"),
        ("no-aliases", "field_default", '        args.append(f"alias={string_literal(f.wire_name)}")\n', "        pass\n", "wire names not aliased"),
        ("no-defaults", "field_default", '        args.append("default=None")\n', "        pass\n", "optional fields without default"),
        ("no-constraints", "field_default", 'args.extend(f"{c.name}={c.value!r}" for c in f.constraints)', "pass", "constraints not emitted"),
        ("optional-not-none", "field_annotation", "if not f.required and not ir.admits_null(f.type):", "if False:", "optional fields annotated without None: a constructor refuses None"),
        ("optional-admits-null", "field_annotation", "text = f\"{sym['_Omittable']}[{text}]\"", "text = f\"{text} | None\"", "optional fields accept JSON null and put it on the wire"),
        ("dispatch-without-fallback", "dispatched", "[(d.fallback, t.members)]", "[]", "a dispatched union with no fallback tag: input off the tags refused instead of read as the plain union"),
        ("no-discriminator-annotation", "annotation", "    if t.discriminator:\n", "    if False:\n", "discriminators not emitted in annotations"),
        ("map-as-any", "annotation", 'return f"dict[str, {annotation(t.value, sym, prefix, core)}]"', 'return "dict"', "maps emitted untyped"),
        ("list-as-any", "annotation", 'return f"list[{annotation(t.item, sym, prefix, core)}]"', 'return "list"', "arrays emitted untyped"),
        ("imports-not-renamed", "Symbols.avoiding", '            while alias in used:\n                alias = "_" + alias\n', "", "a definition named like an import or helper shadows it"),
    ],
)

LITERALS = _group(
    "generator/emit/literals.py",
    [
        ("quotes-unescaped", "string_literal", '            out.append("\\\\" + quote)', "            out.append(quote)", "quotes in literals not escaped"),
        ("quote-choice-ignored", "string_literal", "quote = \"'\" if text.count('\"') > text.count(\"'\") else '\"'", "quote = '\"'", "a literal black would requote: a settled chunk is not black's layout"),
        ("backslashes-unescaped", "string_literal", '            out.append("\\\\\\\\")', '            out.append("\\\\")', "backslashes in literals not escaped"),
        ("newlines-unescaped", "string_literal", '            out.append("\\\\n")', '            out.append("\\n")', "newlines in literals not escaped"),
        ("triple-quotes-unescaped", "docstring", "elif ch == '\"' and quote_before:", "elif False:", "a run of quotes in a description ends the docstring early"),
        ("closing-quote-unescaped", "docstring", "elif ch == '\"' and i in (0, len(body) - 1):", "elif False:", "a description ending in a quote breaks the docstring"),
        ("plain-text-quotes", None, 're.compile(r"[^\\x20\\x21\\x23', 're.compile(r"[^\\x20\\x21\\x22\\x23', "text with a quote takes the no-escape path: the quote ends its literal"),
    ],
)

VIEWS = _group(
    "generator/emit/views.py",
    [
        ("result-dispatch-kept", "_plain", "return dataclasses.replace(t, dispatch=None) if isinstance(t, ir.UnionOf) else t", "return t", "a dispatched result union spelled in methods.py, which imports no Tag: generation fails"),
        ("closed-view-open", "definition_view", "closed = isinstance(d.extra, ir.LiteralOf) and not d.extra.values", "closed = False", "closed objects emitted open"),
        ("typed-extra-view-dropped", "definition_view", "extra = None if closed or isinstance(d.extra, ir.AnyType) else annotation(d.extra, sym, core=core)", "extra = None", "typed extras not emitted"),
        ("class-doc-dropped", "definition_view", 'return DefinitionView("model", d.name, indent_doc(d.description, 4, definition=True), fields, extra, closed)', 'return DefinitionView("model", d.name, None, fields, extra, closed)', "model docstrings lost"),
        ("field-doc-view-dropped", "definition_view", "doc=indent_doc(f.description, 4)", "doc=None", "field docstrings lost"),
        ("base-name-clash", "revision_view", 'base=sym["_McpModel"]', 'base="_McpModel"', "the base model class named like a definition"),
        ("one-sender", "sender_names", "return sorted(m.senders)", "return sorted(m.senders)[:1]", "a method sent by both sides registered for one"),
        ("params-required-view", "method_view", "params_required=m.params_required", "params_required=False", "METHODS reports params optional"),
        ("embedded-view", "method_view", "embedded=m.embedded", "embedded=False", "embedded requests accepted as messages"),
        ("no-exports", "revision_view", "exports=tuple(sorted(names))", "exports=()", "types.__all__ empty"),
        ("result-type-narrowed", "method_view", "annotation(_plain(m.result_type), METHODS_SYMBOLS, prefix, core) if m.result_type else \"None\"", "f\"types.{m.result}\" if m.result else \"None\"", "parse_result checks only the primary result"),
        ("result-annotation-single", "result_annotation", "    if isinstance(t, ir.UnionOf) and all(isinstance(x, ir.Ref) for x in ir.alternatives(t)):\n", "    if False:\n", "typed calls annotated with the primary result only"),
        ("embedded-messages", "revision_view", "live = [m for m in protocol.methods if not m.embedded]", "live = list(protocol.methods)", "embedded requests listed in the Message union"),
    ],
)

STUBVIEWS = _group(
    "generator/emit/stub_views.py",
    [
        ("capability-singular-only", "_capability", "f.wire_name in (first, first + \"s\")", "f.wire_name in (first,)", "completion/complete does not advertise completions"),
        ("capability-flag-true", "_capability", 'value = "True" if hit.type == ir.Primitive("boolean") else "{}"', 'value = "True"', "object capability flags advertised as true"),
        ("capability-flag-dropped", "_capability", "    if hit is None:\n", "    if True:\n", "capability flags (resources.subscribe) not advertised"),
        ("ping-not-answered", "_handler", "    elif m.name == lifecycle.ping:\n", "    elif False:\n", "ping answered -32601 by default"),
        ("notifications-not-ignored", "_handler", '    if m.kind == "notification":\n', "    if False:\n", "unhandled notifications raise"),
        ("no-initialize-default", "_handshake", "        return lifecycle.legacy.method\n", "        return None\n", "on_initialize raises -32601 instead of answering the handshake"),
        ("no-discover-default", "_handshake", "return lifecycle.modern.discover if lifecycle.modern is not None else None", "return None", "on_discover raises -32601 instead of answering the handshake"),
        ("params-always-required", "_params_optional", "if not m.params_required or m.params is None:", "if m.params is None:", "calls demand params the schema makes optional"),
        ("meta-only-params-required", "_params_optional", "    return isinstance(params, ir.Model) and all(", "    return False and all(", "calls demand params that only need the `_meta` the client fills in"),
        ("no-capabilities-model", "_capabilities", "return lifecycle.server_capabilities if side == \"server\" else lifecycle.client_capabilities", "return None", "no capability derivation: nothing advertised for overridden handlers"),
        ("extension-not-advertised", "_advertised", "        return None\n    return f\"Capability(", "        return None\n    return None\n    return f\"Capability(", "overriding an extension's handler does not advertise the extension"),
    ],
)

ERRATA = _group(
    "generator/inputs/errata.py",
    [
        ("pinned-lenient", "apply_errata", "            if pinned:\n                raise _stale(erratum, failure)\n", "            if False:\n                raise _stale(erratum, failure)\n", "a stale erratum of the pinned bytes skipped instead of failing generation"),
        ("applied-unrecorded", "apply_errata", "return Corrected(document, tuple(applied), warnings)", "return Corrected(document, (), warnings)", "errata applied but not recorded"),
        ("recorded-unapplied", "apply_errata", "        document, failure = attempt(document, erratum)\n", "        _, failure = attempt(document, erratum)\n", "errata recorded but not applied"),
        ("draft-warnings-dropped", "apply_errata", "    warnings = tuple(_not_applied(e, failure)", "    warnings = () and tuple(_not_applied(e, failure)", "an erratum of the named revision that does not hold on a draft skipped without a warning"),
        ("variants-twice", "apply_errata", "        if any(e.id == erratum.id for e in applied):\n", "        if False:\n", "variants of one erratum applied (and listed) more than once"),
        ("own-revision-only", "candidates", "return tuple(e for r in (revision, *others) for e in load_errata(r))", "return load_errata(revision)", "errata looked up by revision name, not tried wherever they hold"),
        ("stale-test-ignored", "attempt", "        except jsonpatch.JsonPatchTestFailed:\n            return document, f\"test failed at {path}\"\n", "        except jsonpatch.JsonPatchTestFailed:\n            pass\n", "a failing test operation ignored"),
        ("half-applied", "attempt", "            return document, f\"test failed at {path}\"\n", "            return out, f\"test failed at {path}\"\n", "an erratum whose later test fails keeps its earlier operations (not all or nothing)"),
        ("add-over-existing", "attempt", "if op[\"op\"] in _CREATING and _exists(out, path):", "if False:", "an add that overwrites an existing member accepted"),
        ("input-mutated", "_detached", "    root = copy.copy(document)\n", "    root = document\n", "a failed erratum leaves its earlier operations in the shared schema"),
    ],
)

PACKAGED_RUNTIME = _group(
    "generator/inputs/packaged_runtime.py",
    [
        ("facade-unbound", "_takes_revisions", 'return any(p.arg == "revisions" for p in', 'return False and any(p.arg == "revisions" for p in', "the package's streamable_http_app not bound to its revisions"),
        ("bases-ignored", "_members", "            members |= _members(_definition(path, base.id))\n", "            pass\n", "a handler or call takes a name the runtime's Peer already has"),
    ],
)

FORMATTING = _group(
    "generator/emit/formatting.py",
    [
        ("call-queue-closed-twice", None, "_POOL_CLOSES_ITS_CALL_QUEUE = sys.version_info >= (3, 11, 5)", "_POOL_CLOSES_ITS_CALL_QUEUE = False", "an interrupt closes the call queue's reader while the pool's thread does (a traceback above the one line)"),
        ("result-pipe-left-open", "abandon", '        _close(getattr(getattr(pool, "_result_queue", None), "_writer", None))\n', "", "an interrupt while a worker sends a result hangs the teardown"),
        ("settled-long-lines", "settled", "    if long and not set(long) <= _comment_lines(lines) | _string_statement_lines(text):\n", "    if False:\n", "a chunk with a long line black would split skips black"),
    ],
)

GENERATE = _group(
    "generator/commands/generate.py",
    [
        ("errata-not-recorded", "protocol_for", "fixed.schema, source.revision, source.sha256, fixed.errata, pairings,", "fixed.schema, source.revision, source.sha256, (), pairings,", "errata applied but not recorded in the package (issue 11)"),
        ("errata-warnings-unreported", "protocol_for", "draft=not source.pinned, warnings=fixed.warnings,", "draft=not source.pinned,", "an erratum that did not apply to a draft not reported (issue 24)"),
        ("drafts-unpaired", "protocol_for", "draft=not source.pinned", "draft=False", "a draft's request without a findable result refused instead of paired with the base Result"),
        ("late-interrupt-reported", "generate_all", "        if len(applied) < len(planned):\n            raise\n", "        raise\n", "a Ctrl-C once every package is written says the previous output is untouched"),
    ],
)

PACKAGE_CACHE = _group(
    "generator/cache.py",
    [
        ("entry-digest-unchecked", "load", 'if header["key"] != key or header["sha256"] != hashlib.sha256(body).hexdigest():', 'if header["key"] != key:', "an altered package cache entry served as what generate stored (check passes a package it should not)"),
        ("entry-key-unchecked", "load", 'if header["key"] != key or header["sha256"] != hashlib.sha256(body).hexdigest():', 'if header["sha256"] != hashlib.sha256(body).hexdigest():', "an entry stored under another key served"),
        ("fingerprint-skips-a-part", "fingerprint", "    for part in _PARTS:\n", "    for part in _PARTS[:1]:\n", "an edit of the runtime, templates or errata served the package generated before it"),
    ],
)

PACKAGEVIEWS = _group(
    "generator/emit/package_views.py",
    [
        ("errata-unexported", "package_view", 'errata_literal=tuple_literal((string_literal(e.id) for e in surface.protocol.errata), 0)', 'errata_literal="()"', "ERRATA empty although errata were applied"),
    ],
)

PROVENANCE = _group(
    "generator/emit/provenance.py",
    [
        ("header-errata-none", "Provenance.header", "f\"# Errata applied: {comment(', '.join(errata.get(revision, ())) or 'none')}\"", "f\"# Errata applied: {comment('none')}\"", "the header does not name the errata"),
        ("header-pairings-dropped", "Provenance.header", "        if self.pairings:\n", "        if False:\n", "the header does not name --pair options"),
    ],
)

COPIES = _group(
    "generator/model/copies.py",
    [
        ("copies-shape-ignored", "_same_shape", "return bool(shape(rekeyed(ext, ext_key, core_key)) == shape(core))", "return True", "a copy that differs from the core replaces nothing and is never reported: the core class stands in for it"),
        ("copies-closure-ignored", "compare_copies", "                same.discard(name)\n", "                pass\n", "a copy that refers to a differing copy is taken for the core's"),
        ("copies-annotations-count", "_same_shape", "return bool(shape(rekeyed(ext, ext_key, core_key)) == shape(core))", "return bool(rekeyed(ext, ext_key, core_key) == core)", "a copy whose descriptions differ is kept apart"),
        ("copies-where-dropped", "differences", 'shown = "; ".join(found[:_SHOWN])', 'shown = ""', "the drift warning does not say where a copy differs"),
    ],
)

EXTENSION = _group(
    "generator/model/extension.py",
    [
        ("extension-copies-unmapped", "build_extension", "    mapping = _mapping(definitions, base, {names[n]: core[n] for n in report.same if n in names})\n", "    mapping: dict[str, str] = {}\n", "every copy generated again in the extension instead of being the core class"),
        ("extension-core-refs-local", "_retyped", "return ir.Ref(mapping[t.name], core=True) if t.name in mapping else t", "return t", "references to core classes point into the extension's module"),
        ("extension-union-senders-lost", "_kind_and_senders", "        return kind, frozenset({side})\n", "        return kind, frozenset()\n", "the senders an extension's own role unions state are lost"),
        ("extension-core-method-allowed", "extension_methods", "        if base is not None and wire in core_methods:", "        if False:", "an extension redefines a core method silently"),
        ("extension-drift-silent", "build_extension", "        for name, where in report.differ\n", "        for name, where in ()\n", "a copy that differs is not reported"),
        ("extension-settings-guessed", "_settings", "if len(found) == 1 else", "if found else", "settings typed by one of several ...ExtensionCapability definitions"),
        ("extension-refs-unchecked", "build_extension", "    check_references(dict(source.schema))\n", "", "an extension's `$ref`s reach the parser unchecked"),
    ],
)

EXTENSION_INPUTS = _group(
    "generator/inputs/extensions.py",
    [
        ("extension-pin-unverified", "_verified", "    if digest != pin.sha256:\n", "    if False:\n", "an extension schema with other bytes than its pin is accepted"),
        ("extension-identifier-unread", "identifier_in", "return found.group(1).rstrip(\".\") if found else None", "return None", "an extension file's stated identifier is not read"),
        ("extension-facts-by-identifier-lost", "facts_for", "return pin.facts if pin is not None else Facts()", "return Facts()", "a known extension's facts (senders, settings, _meta entries) do not apply"),
    ],
)

EXTENSION_VIEWS = _group(
    "generator/emit/extension_views.py",
    [
        ("extension-core-unqualified", "types_view", 'definitions=tuple(definition_view(d, sym, sym[CORE] + ".") for d in extension.definitions),', "definitions=tuple(definition_view(d, sym) for d in extension.definitions),", "an extension's references to core classes are not qualified"),
        ("extension-app-methods-in-table", "table_view", "for m in e.methods if m.roles is None", "for m in e.methods", "methods of an extension's own link listed as MCP methods"),
    ],
)

STUBNAMES = _group(
    "generator/model/names.py",
    [
        ("handlers-for-own-messages", "handles", "method.sent_by(_other(side))", "method.sent_by(side)", "each side handles what it sends itself"),
        ("embedded-live", "calls", "return method.roles is None and method.sent_by(side) and not method.embedded", "return method.roles is None and method.sent_by(side)", "embedded requests get typed calls"),
        ("clashes-unchecked", "taken_by_runtime", "return {side: set(runtime_members(side)) for side in SIDES}", "return {side: set() for side in SIDES}", "a handler or call named like a runtime member (handle, attach…) overrides it"),
        ("stems-shared", "with_stems", "stems.add(stem)", "pass", "two methods share a stem (an extension's method takes a core one's name)"),
        ("stems-unchecked", "with_stems", "while stem in stems or any(name in taken[side] for side, name in _derived(method, stem)):", "while stem in stems:", "a method's call or handler takes a name already given on its class"),
    ],
)

TYPES_TEMPLATE = _group(
    "templates/types.py.jinja",
    [
        ("constants-not-filled", None, "                if name not in data and alias not in data:\n                    data[alias] = value\n", "                pass\n", "constant fields (`type`, `method`) must be written out by hand"),
        ("none-kept", None, "                data = {k: v for k, v in data.items() if v is not None or k not in omittable}\n", "                pass\n", "None given to a constructor refused instead of meaning absent"),
        ("extras-dropped", None, '        extra="allow",\n', '        extra="ignore",\n', "unknown keys of open objects lost"),
        ("dispatch-fallback-lost", None, "        return fallback\n", "        return None  # type: ignore[return-value]\n", "input off the tags (a Python name, a model instance) refused instead of read as the plain union"),
        ("dispatch-json-schema-one-of", None, 'return handler(schema["choices"][fallback])', "return handler(schema)", "a dispatched union's JSON Schema a `oneOf` over its tags, which no value satisfies"),
        ("dispatch-presence-ignored", None, "                        present |= bit\n", "                        pass\n", "a dispatch narrowing as if no required key were present"),
        ("dispatch-any-tag", None, "if type(found) is str and found in known", "if found in known", "a tag that is not an exact str looked up (an unhashable one raises)"),
    ],
)

CONVERSATION = _group(
    "generator/messages/conversation.py",
    [
        ("initialize-not-held", "Conversation.add", "if self._initialize is not None or self.revision is None:", "if self.revision is None:", "messages judged before the initialize response settles the revision"),
        ("request-revision-ignored", "Conversation._revision_of", "                return self._asked.pop(key), None\n", "                pass\n", "a response judged against the session's revision, not its request's"),
        ("meta-ignored", "Conversation._revision_of", "            return (named.version if named.version in KNOWN_REVISIONS else None), named\n", "            pass\n", "a request's _meta version does not choose its revision"),
        ("renegotiation-ignored", "Conversation._settle", "        self.revision = handshake.version\n        return None", "        self.revision = self.revision or handshake.version\n        return None", "a second handshake does not change the conversation's revision"),
    ],
)

TAP_LIVE = _group(
    "generator/commands/tap/live.py",
    [
        ("reuse-unreported", "Live.arrive", "if earlier is not None and not earlier.late:", "if False:", "an id reused while in flight goes unreported"),
        ("cancel-ignored", "Live.judged", "            self._forget((msg.direction, id_key(params[lifecycle.cancelled_id_key])))", "            pass", "a cancelled request later reported as unanswered"),
        ("late-twice", "Live.overdue", "            if not request.late and now - request.since > self.timeout:", "            if now - request.since > self.timeout:", "an unanswered request reported at every tick"),
        ("logging-early", "Live._handshake", "        if method == LOGGING:\n            return []\n", "", "a server's log message before initialized reported"),
    ],
)

TAP_FRAMING = _group(
    "generator/commands/tap/framing.py",
    [
        ("budget-unbounded", "Budget.take", "if not self._skipped and self._line + len(data) <= self.limit:", "if True:", "a huge line handed whole to the judge's queue"),
        ("no-resync", "Lines.lost", "self._resync = not whole", "self._resync = False", "after a gap the broken line is judged as not JSON"),
        ("sse-cr-not-a-line-end", "Events.__init__", "self._lines = Lines(limit, cr=True)", "self._lines = Lines(limit)", "an SSE stream with CR line ends is never judged"),
        ("crlf-split-two-lines", "Lines.feed", 'start = 1 if self._after_cr and data.startswith(b"\\n") else 0', "start = 0", "a CRLF cut between two chunks reads as two line ends (an empty line dispatches the event early)"),
        ("budget-cr-ignored", "Budget.take", "found = (_CR_OR_LF if self._cr else _NEWLINE).search(data, start)", "found = _NEWLINE.search(data, start)", "the relay's bound takes a CR-ended SSE stream for one long line"),
    ],
)

TAP_CHANNEL = _group(
    "generator/commands/tap/channel.py",
    [
        ("backlog-unbounded", "Feed.put", "if self._queued + len(record) > self._limit:", "if False:", "a judge that falls behind makes the relay's memory grow without limit"),
    ],
)

TAP_REDACT = _group(
    "generator/commands/tap/redact.py",
    [
        ("keys-kept", "message", "message(v, secret or k.lower() in SECRET_KEYS)", "message(v, secret)", "an Authorization or token member reaches the log"),
        ("raw-members-kept", "text", "    return _members(_COOKIE.sub(", "    return (_COOKIE.sub(", "a token in a line that is not JSON (logged as text) reaches the log"),
    ],
)

# --- the runtime source (runtime/, installed as mcpgen.runtime, copied verbatim into every package) ---

COMMIT = _group(
    "generator/emit/commit.py",
    [
        ("lock-not-taken", "exclusive", "            if not _locked(target, stack):\n", "            if False:\n", "two runs writing one package at once leave it half one revision, half the other"),
    ],
)

SOURCES = _group(
    "generator/inputs/sources.py",
    [
        ("long-integer-internal-error", "parse_json", "    except ValueError as exc:", "    except ZeroDivisionError as exc:", "an integer of more than 4300 digits ends generate and diff in an internal error"),
    ],
)

DIFF_COMMAND = _group(
    "generator/commands/diff/command.py",
    [
        ("deep-schema-internal-error", "diff_command", "    except RecursionError:\n", "    except ZeroDivisionError:\n", "a schema nesting too deeply ends diff in an internal RecursionError (exit 3)"),
    ],
)

DIFF_LOAD = _group(
    "generator/commands/diff/load.py",
    [
        ("empty-argument-is-newest", "resolve", "    if not arg:\n", "    if False:\n", "`mcpgen diff 2025-11-25 \"\"` compares against the newest revision"),
    ],
)

DIFF_IGNORE = _group(
    "generator/commands/diff/ignore.py",
    [
        ("unknown-rule-ids-accepted", "parse_rules", "if not any(fnmatchcase(rule, parts[0]) for rule in RULE_IDS):", "if False:", "a typo'd rule id in an ignore entry ignores nothing, silently"),
        ("ignore-file-undecoded", "read_ignore_file", "    except UnicodeDecodeError as exc:", "    except ZeroDivisionError as exc:", "an ignore file that is not UTF-8 ends diff in an internal error"),
    ],
)

DIFF_EXTENSIONS = _group(
    "generator/commands/diff/extensions.py",
    [
        ("extension-side-refs-unchecked", "extension_side", "    check_references(dict(read.schema))\n", "", "diff of two extension versions types a dangling `$ref` as `Any`"),
    ],
)

TAP_HTTP = _group(
    "generator/commands/tap/http.py",
    [
        ("client-defaults-and-cookies", "Proxy._exchange", 'request = httpx.Request(scope["method"], target, headers=outgoing, content=body)', 'request = self.client.build_request(scope["method"], target, headers=outgoing, content=body)', "the upstream gets headers the client never sent and cookies another client's answer set"),
        ("cookies-kept", "upstream_client", ", cookies=no_cookies)", ")", "the relay's client keeps the cookies upstreams set"),
        ("request-headers-as-text", "Proxy._exchange", 'outgoing = [(k, v) for k, v in scope["headers"]', 'outgoing = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]', "a request header that is not ASCII fails the request with a 500"),
        ("answer-headers-as-text", "Proxy._relay", 'raw = [(k.lower(), v) for k, v in answer.headers.raw if', 'raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.multi_items() if', "answer header bytes that are not ASCII are rewritten, or fail the answer"),
        ("server-headers-added", "run_http", ", server_header=False, date_header=False)", ")", "the tap's uvicorn adds date and server: uvicorn to every answer"),
        ("password-printed", "run_http", "(upstream {shown_url(config.upstream or '')})", "(upstream {config.upstream})", "the --upstream password is printed on stderr"),
        ("sse-cr-unbounded", "Proxy._body", "Budget(cr=True)", "Budget()", "past 16 MiB of a CR-ended SSE stream, events go unjudged without a word"),
    ],
)

TAP_CONFIG = _group(
    "generator/commands/tap/config.py",
    [
        ("query-dropped", "TapConfig.__post_init__", "if parts.query or parts.fragment or", "if parts.fragment or", "an --upstream query string is dropped without a word"),
        ("password-shown", "shown_url", "if parts.password is not None else parts.netloc", "if False else parts.netloc", "the --upstream password is printed"),
    ],
)

TAP_JUDGE = _group(
    "generator/commands/tap/judge.py",
    [
        ("too-deep-judged", "Judge.message", "            if msg.unreadable == TOO_DEEP:\n                self._too_deep(session, direction)\n                return\n", "", "a message nested too deeply is reported as a not-json violation, not noted as unjudged"),
        ("last-line-epoch", "Judge.finish", "rest[0], rest[1], time.monotonic(), time.time())", "rest[0], rest[1], 0.0, 0.0)", "a last line without a newline is logged with a 1970 timestamp"),
    ],
)

TAP_TRANSPORT = _group(
    "generator/commands/tap/transport.py",
    [
        ("unreadable-body-is-notifications", "answer_problems", "elif exchange.messages and not exchange.requests", "elif not exchange.requests", "a POST body that cannot be read is taken for notifications only (a false 202 violation)"),
    ],
)

MESSAGES_ROUNDTRIP = _group(
    "generator/messages/roundtrip.py",
    [
        ("unwritable-internal-error", "round_trip", "    except ValueError as exc:  # pydantic writes fewer levels than it reads\n", "    except ZeroDivisionError as exc:\n", "a message read but nested too deeply to dump ends validate in an internal error"),
    ],
)

MESSAGES_WIRE = _group(
    "generator/messages/wire.py",
    [
        ("depth-raises", "parse", "    except RecursionError:\n        return Message(file, line, None, direction, unreadable=TOO_DEEP, session=session)\n", "", "a line nested too deeply stops the tap's judge for the rest of its read and `mcpgen validate` (exit 3)"),
    ],
)

VALIDATE = _group(
    "generator/commands/validate.py",
    [
        ("json-file-depth-raises", "read_messages", "        except (json.JSONDecodeError, RecursionError) as exc:", "        except json.JSONDecodeError as exc:", "a .json file nested too deeply is an internal error (exit 3)"),
        ("lines-split-on-separators", "read_messages", 'enumerate(text.split("\\n"), start=1)', "enumerate(text.splitlines(), start=1)", "a JSONL line whose string holds U+2028 or U+0085 is cut in two"),
    ],
)

RUNTIME_JSONRPC = _group(
    "runtime/jsonrpc.py",
    [
        ("bool-ids", "valid_id", "return isinstance(value, (str, int)) and not isinstance(value, bool)", "return isinstance(value, (str, int))", "true/false accepted as ids"),
        ("parse-error-code", "load", 'raise ProtocolError(PARSE_ERROR, "Parse error: not valid JSON")', 'raise ProtocolError(INVALID_REQUEST, "Parse error: not valid JSON")', "invalid JSON answered -32600"),
        ("depth-called-invalid", "load", 'if str(exc).startswith("recursion limit exceeded"):', "if False:", "valid JSON nested deeper than is read answered as not valid JSON"),
        ("unhashable-id-settled", "settle_answer", "future = pending.get(request_id) if type(request_id) is int else None", "future = pending.get(request_id)", "a response with an unhashable id (a list) crashes the connection that read it"),
        ("any-response-settles-the-post", "settle_answer", 'if future is None and request_id is None and "error" in response:', "if future is None:", "a result under an id not ours (a hostile server's spoof) is taken as the answer of the request it came back for"),
        ("error-data-dropped", "ProtocolError.to_error", '            error["data"] = self.data\n', "            pass\n", "error data not sent"),
        ("error-locations-dropped", "error_details", '{"loc": list(e["loc"]), "msg"', '{"loc": [], "msg"', "validation errors lose their location"),
        ("error-data-lost", "settle", 'str(error.get("message", "")), error.get("data")', 'str(error.get("message", ""))', "error data of a response lost"),
        ("malformed-error-raised-as-is", "settle", ' and type(error.get("code")) is int', "", "an error response without an integer code raised with that code (not -32603 Malformed)"),
        ("overflow-read", "load", "        if may_not_be_finite(raw) and not _finite(value):\n", "        if False:\n", "a number too large for a float read as infinity"),
        ("overflow-without-exponent-read", "_out_of_range", "    return len(shape) >= len(_LONG_RUN) and shape.find(_LONG_RUN) >= 0\n", "    return False\n", "a 210-digit number with a two-digit exponent (or none) read as infinity"),
        ("overflow-exponent-missed", "_out_of_range", "        if _EXPONENT.match(raw, at) is not None:\n", "        if False:\n", "a number with a three-digit exponent read as infinity"),
        ("overflow-first-exponent-only", "_out_of_range", '        at = shape.find(b"0e000", at + 1)', "        at = -1", "only the first exponent-like text is looked at: a later 1e400 read as infinity"),
        ("overflow-prefilter-too-tight", "may_not_be_finite", '        (runs.partition(b"00000")[1] != b"" and', '        (runs.partition(b"000000")[1] != b"" and', "a three-digit exponent after a one-digit mantissa (1e400) read as infinity"),
        ("literals-unchecked", "may_not_be_finite", '        or runs.partition(_LITERAL)[1] != b""\n', "        or False\n", "NaN or Infinity read in one pass (the full path refuses them)"),
        ("literal-at-start-missed", "may_not_be_finite", "and runs.startswith(_LITERAL_FIRST))", "and False)", "a message that is only a NaN or Infinity read in one pass"),
        ("overflow-in-object-missed", "_finite", "            stack.extend(item.values())\n", "            pass\n", "an infinite number inside an object not noticed (load and encode)"),
        ("non-finite-encoded", "encode", '    if (data.find(b"Infinity") >= 0 or data.find(b"NaN") >= 0) and not _finite(message):\n', "    if False:\n", "encode() writes Infinity/NaN, which no JSON peer can read"),
    ],
)

RUNTIME_REGISTRY = _group(
    "runtime/registry.py",
    [
        ("fast-path-id-unchecked", "Registry.parse_object", 'if (type(obj.get("id")) in _ID_TYPES) if request else ("id" not in obj):', "if True:", "requests without id and notifications with id accepted"),
        ("fast-path-jsonrpc-unchecked", "Registry.parse_object", 'if type(obj) is dict and obj.get("jsonrpc") == "2.0":', "if type(obj) is dict:", "a wrong jsonrpc version reported as invalid params"),
        ("one-pass-never-learns", "Registry._parse_full", "                self._one_pass.learn(type(found))\n", "                pass\n", "bytes never read in one pass (every message decoded twice)"),
        ("jsonrpc-unchecked", "Registry._parse_any", 'if obj.get("jsonrpc") != "2.0":', "if False:", "messages without jsonrpc 2.0 accepted"),
        ("response-id-unchecked", "Registry._parse_any", 'if "result" in obj and valid_id(obj.get("id")):', 'if "result" in obj:', "responses with invalid ids accepted"),
        ("embedded-accepted", "Registry._parse_any", "if spec is None or spec.embedded:", "if spec is None:", "embedded requests parsed as messages"),
        ("request-without-id", "Registry._parse_any", 'if spec.kind == "request" and "id" not in obj:', "if False:", "a request without id reported as invalid params"),
        ("params-error-code", "Registry._parse_any", 'return _validate(spec.message, obj, INVALID_PARAMS, f"Invalid params for {method}")', 'return _validate(spec.message, obj, INVALID_REQUEST, f"Invalid params for {method}")', "invalid params answered -32600"),
        ("fast-params-error-code", "Registry.parse_object", 'INVALID_PARAMS, f"Invalid params for {method}", error_details(exc)', 'INVALID_REQUEST, f"Invalid params for {method}", error_details(exc)', "invalid params answered -32600 on the fast path"),
        ("batches-always", "Registry._parse_full", "if not self.batching:", "if False:", "batches accepted where the revision refuses them"),
        ("results-of-notifications", "Registry.parse_result", "if spec is None or spec.result is None:", "if spec is None:", "parse_result accepts notifications"),
        ("result-error-code", "Registry.parse_result", 'INVALID_PARAMS, f"Invalid result for {method}"', 'INVALID_REQUEST, f"Invalid result for {method}"', "invalid results answered -32600"),
        ("member-refusal-final", "Registry.check_result", "            except (ValidationError, RecursionError):\n                pass\n", "            except (ValidationError, RecursionError):\n                raise ProtocolError(INVALID_PARAMS, method)\n", "a result the other member of a plain union accepts refused"),
        ("tagged-members-none", "_deciding", "    return Deciding(frozenset(deciding), None if name == tag else tag)\n", "    return none\n", "a tagged result union always checked whole (the member's own validator, which built the result, never reused)"),
        ("tag-default-admitted", "_deciding", "        if field is None or not field.is_required():\n", "        if field is None:\n", "a member with a defaulted tag checks alone: a result without its tag sent, which the union refuses"),
        ("tag-other-name-ignored", "Registry.check_result", "(other is None or (type(result) is dict and other not in result))", "True", "a result holding its tag under both names checked by the member alone: one the union refuses sent"),
        ("member-check-skipped", "Registry.check_result", "                built.__pydantic_validator__.validate_python(result)\n", "", "a result built by a member model sent unchecked"),
        ("fast-path-embedded", "Registry.__init__", "            if not spec.embedded\n", "", "embedded requests accepted on the fast path"),
        ("params-alone-any-id", "Registry.parse_params", "            or type(obj.get(\"id\")) not in _ID_TYPES\n", "", "a request with a boolean, float or missing id read as its params alone"),
        ("params-alone-any-jsonrpc", "Registry.parse_params", "            or obj.get(\"jsonrpc\") != \"2.0\"\n", "", "a request of another JSON-RPC version read as its params alone"),
        ("envelope-optional-params", "envelope_params", "        or not all(f.is_required() for f in fields.values())\n", "", "params an envelope may omit read alone"),
        ("envelope-own-validators", "envelope_params", "        or any(getattr(decorators, f.name) for f in dataclasses.fields(decorators))\n", "", "an envelope's own validators skipped by reading its params alone"),
        ("envelope-other-params", "envelope_params", "        or fields[\"params\"].annotation is not params\n", "", "params read alone as a model other than the envelope's"),
        ("params-alone-unbounded", "Registry.parse_params", "            if spec is None:  # not kept: the table holds the revision's methods, no more\n                return None\n            model = None if spec.embedded else envelope_params(spec)\n", "            model = None if spec is None or spec.embedded else envelope_params(spec)\n", "every method name a peer sends kept by the params-alone table (memory grows per client)"),
        ("envelope-refusing-extras", "envelope_params", "        or message.model_config.get(\"extra\") == \"forbid\"\n", "", "an envelope that refuses unknown members read as its params alone"),
    ],
)

RUNTIME_ONEPASS = _group(
    "runtime/onepass.py",
    [
        ("lax", "Reader.read", "model = validate(data, strict=True)", "model = validate(data)", "lax validation in one pass: an id of true or 1.0 read as 1"),
        ("learned-never-taken", "Reader.read", '                if model["method"] in self._pending:', "                if False:", "a method's model never taken into the union: every message of it decoded twice"),
        ("numbers-unchecked", "Reader.read", "if type(data) is bytes and validate is not None and not may_not_be_finite(data):", "if type(data) is bytes and validate is not None:", "NaN, Infinity and 1e400 read in one pass"),
        ("read-notification-id-unchecked", "Reader.read", '                if "id" not in model.__pydantic_fields_set__:', "                if True:", "a notification with an id read in one pass"),
        ("notification-id-unchecked", "_envelope_left", "        return _NOTHING if request else _NO_ID_FIELD", "        return _NOTHING", "a notification with an id read in one pass"),
        ("extra-id-unchecked", "Reader.read", 'type(extra.get("id")) in _ID_TYPES if left is _EXTRA_ID', 'True if left is _EXTRA_ID', "older revisions: a request's id of any type read in one pass"),
        ("extra-notification-id-unchecked", "Reader.read", 'if left is _EXTRA_ID else "id" not in extra', "if left is _EXTRA_ID else True", "older revisions: a notification with an id read in one pass"),
        ("extra-jsonrpc-unchecked", "Reader.read", 'if extra.get("jsonrpc") == "2.0" and (', "if True and (", "older revisions: any jsonrpc version read in one pass"),
        ("unions-undecided", "_readable", "    return _union_checks(model.__pydantic_core_schema__) is not None", "    return True", "a union strict mode settles otherwise read in one pass (another member than lax mode picks)"),
        ("coercions-ignored", "_undecided", "            if len(alike) > 1 and any(_coerces(c, refs) for c in alike):", "            if False:", "a union strict mode settles otherwise read in one pass"),
        ("checked-unions-unchecked", "Reader.read", "                if not _clear(model, checks):", "                if False:", "a union of models read in one pass whatever keys its values hold (strict mode's member, not lax mode's)"),
        ("coercing-fields-ignored", "_risky", '            if _coerces(field["schema"], refs):', "            if False:", "a key another member reads by a coercion not looked for"),
        ("extra-keys-unchecked", "_clear", "            if extra and not keys.isdisjoint(extra):\n                return False\n", "", "a coerced key kept as an extra of the strict member not looked for"),
        ("fields-unchecked", "_clear", "            if fields and not fields.isdisjoint(value.__pydantic_fields_set__):\n                return False\n", "", "a key the strict member reads and another coerces not looked for"),
        ("keys-dropped-ignored", "_risky", '        if kept != "allow" or fields.get("extras_schema") is not None:', '        if fields.get("extras_schema") is not None:', "a member that drops unknown keys checked: a coerced key hidden"),
        ("paths-never-followed", "_clear", "                    value = None if held is None else held.get(name)", "                    value = None", "no value at the end of a path checked: a contested value read in one pass"),
        ("union-anywhere-checked", "_union_checks", "    if not walk(schema, (), frozenset()) or not targets <= covered:", "    if not walk(schema, (), frozenset()) and False:", "a union no path reaches (inside another union) read in one pass unchecked"),
        ("method-any", "_readable", " or method.annotation != tag:", ":", "a model whose method is any string reads another method's message"),
        ("jsonrpc-defaulted", "_readable", "    elif not jsonrpc.is_required() or jsonrpc.annotation != _JSONRPC:", "    elif False:", "a model with a default jsonrpc reads a message without one"),
        ("id-any-type", "_readable", "    elif request and (request_id is None or request_id.annotation != _REQUEST_ID):", "    elif False:", "a model whose id may be a float reads an id of 1.5"),
        ("aliases-ignored", "_readable", "        if readers not in ([], [key]) or (readers and fields[key].alias not in (None, key)):", "        if False:", "a field another key fills stands for the envelope's id"),
    ],
)

RUNTIME_REVISIONS = _group(
    "runtime/revisions.py",
    [
        ("negotiate-oldest", "Revisions.negotiate", "return requested if requested in choices else choices[-1]", "return requested if requested in choices else choices[0]", "an unsupported requested version negotiated to the oldest, not the newest"),
        ("negotiate-ignores-request", "Revisions.negotiate", "return requested if requested in choices else choices[-1]", "return choices[-1]", "a supported requested version ignored: always the newest"),
        ("newest-first-reversed", "newest_first", "return sorted(versions, reverse=True)", "return sorted(versions)", "supported versions listed oldest first in discovery and errors"),
        ("legacy-handshake-not-negotiated", "handshake_revision", 'chosen = revisions.negotiate(\n                requested if isinstance(requested, str) else "", revisions.legacy_versions\n            )', "chosen = revisions.legacy_versions[-1]", "initialize answered in the newest legacy revision whatever the client asked for"),
    ],
)

RUNTIME_CONVERT = _group(
    "runtime/convert.py",
    [
        ("dump-python-names", "dump", 'value, mode="json", by_alias=True, exclude_unset=True', 'value, mode="json", by_alias=False, exclude_unset=True', "models sent under Python names"),
        ("dump-unset", "dump", 'value, mode="json", by_alias=True, exclude_unset=True', 'value, mode="json", by_alias=True', "unset fields sent as null"),
        ("strips-skipped", "_reshaped", "value = {key: item for key, item in value.items() if key not in strip}", "value = dict(value)", "fields the target revision does not define sent anyway"),
        ("owned-strips-skipped", "_reshaped", "            for key in strip.intersection(value):\n                del value[key]\n", "            pass\n", "fields the target revision does not define left in a result of ours (changed in place)"),
        ("copy-changed-in-place", "_reshaped", "        if owned:\n", "        if True:\n", "a value not ours (a peer's params) changed in place: its holder sees the fields left out"),
        ("fills-skipped", "_reshaped", "fill(value, path, key, constant)", "pass", "required fields the target revision has and the source lacks not filled in"),
        ("fill-overwrites", "fill", "        found.setdefault(key, constant)\n", "        found[key] = constant\n", "a conversion fill overwrites a value that is there"),
        ("fill-items-skipped", "objects", "        for item in items:\n            yield from objects(item, rest)\n", "        pass\n", "a fill (or strip) under `*` (every item of a list) not made"),
        ("prune-items-skipped", "_each", "        for item in value:\n            inner(item)\n", "        pass\n", "a field an older revision lacks left in every item of a list (a tool's title sent to 2024-11-05)"),
        ("prune-disjoint-inverted", "_drop", "if isinstance(value, dict) and not keys.isdisjoint(value):", "if isinstance(value, dict) and keys.isdisjoint(value):", "fields an older revision lacks never taken out below the top level"),
        ("prune-level-steps-cut", "_steps", "    for step in steps:\n        step(value)\n", "    steps[0](value)\n", "a level that drops keys and walks below takes only its first step: an inputSchema's $schema left in a tool whose title is dropped"),
        ("prune-member-skipped", "_member", "        found = value.get(head)\n", "        found = value\n", "the walk below a member runs on the object holding it: fields below it left in, same-named ones above taken out"),
        ("result-defaults-ignored", "with_defaults", "(path, key, defaults.get(key, value) if not path else value)", "(path, key, value)", "result_defaults do not override the documented fill values"),
        ("strict-drops", "convert", '        if dropped and policy == "strict":\n', "        if False:\n", "the strict policy drops what the target cannot represent instead of refusing"),
        ("peer-newer-content-refused", "convert", "not _newer_content(value, failure.errors(include_url=False))", "True", "a peer's message with newer content (a union member its revision lacks) refused instead of repaired"),
        ("peer-invalid-repaired", "convert", "not _newer_content(value, failure.errors(include_url=False))", "False", "a peer's invalid message repaired (parts dropped) instead of refused"),
        ("drops-front-to-back", "_repair", "key=lambda d: (id(d[0]), str(d[1])), reverse=True)", "key=lambda d: (id(d[0]), str(d[1])))", "list items dropped front to back: a later index then hits the wrong item"),
        ("capabilities-unprojected", "project_capabilities", "        if key not in fields:\n            continue\n", "        if key not in fields:\n            out[key] = value\n            continue\n", "capabilities another revision does not define sent to it anyway"),
        ("capabilities-open-source-subkeys", "project_capabilities", "if inner is not None and key in theirs and written is None and isinstance(value, Mapping):", "if False:", "an older session's open capability object passes the surface's typed sub-keys (sampling.tools) to its handlers"),
    ],
)

RUNTIME_PEER = _group(
    "runtime/peer.py",
    [
        ("notification-errors-answered", "Endpoint._handle_one", "if notification and exc.code in (METHOD_NOT_FOUND, INVALID_PARAMS):", "if False:", "a bad notification gets an error response"),
        ("id-in-flight-reused", "Endpoint._handle_one", "            if request_id in self.flights:", "            if False:", "a request reusing the id of one in flight takes its place: a cancellation no longer reaches the first"),
        ("client-text-logged-raw", "Endpoint._handle_one", 'logger.warning("dropped notification %.200r: %r"', 'logger.warning("dropped notification %.200s: %s"', "a client's line breaks in a method name forge log lines"),
        ("responses-dispatched", "Endpoint._handle_one", "        if method is None:\n", "        if False:\n", "a stray response dispatched as a message"),
        ("wrong-way-silent", "Endpoint._handle_one", "return None if notification else error_response(request_id, wrong_way)", "return None", "a request for the other side gets no answer"),
        ("wrong-way-served", "Endpoint._handle_one", "if spec is not None and self.peer_side not in spec.senders:", "if False:", "a request only the other side receives is handled"),
        ("own-handle-skipped", "received", "    if type(peer).handle is Peer.handle:\n", "    if True:\n", "a server class's own `handle` not handed the messages a transport receives"),
        ("own-handle-routeless", "_handled", "    token = INBOUND.set(inbound)\n", "    token = INBOUND.set(None)\n", "a server's own `handle` answers off the route and version its message came with"),
        ("invalid-id-echoed", "Endpoint._handle_one", "if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):  # `valid_id`", "if False:", "an invalid id echoed in the error response"),
        ("cancel-ignored", "Endpoint.notified", "if method == revision.cancelled and revision.cancelled_id_key is not None:", "if False:", "notifications/cancelled does not cancel"),
        ("cancel-unmarked", "Endpoint.cancel_in_flight", "            self.cancelled.add(task)\n", "", "a cancelled request raises instead of going quiet"),
        ("release-in-flight", "Peer._mcp_release", "if endpoint is not None and not endpoint.flights:", "if endpoint is not None:", "a shared server's endpoint let go while another request is in flight on it (that request's handler loses its context)"),
        ("cancel-id-unchecked", "Endpoint.cancel_in_flight", "        if not valid_id(request_id):\n            return\n", "", "a cancellation naming no usable id used as one: `true` cancels the request with id 1"),
        ("notification-handler-errors-escape", "Endpoint.notified", "        except Exception:\n", "        except ValueError:\n", "a failing notification handler's exception escapes handle()"),
        ("results-unchecked", "Endpoint.result_to_wire", "            self.surface.registry.parse_result(method, wire)\n", "            pass\n", "a handler's invalid result sent as it is"),
        ("model-results-unchecked", "Endpoint.result_to_wire", "                self.surface.registry.check_result(method, wire, type(result))\n", "                pass\n", "a handler's changed result model sent as it is"),
        ("handler-errors-internal", "Endpoint._handle_one", '                if exc.code == INTERNAL_ERROR:\n                    if exc.message != "Internal error":  # a handler\'s own words: logged, never sent\n                        logger.error("request %r (%s) failed: %s", request_id, method, exc.message)\n                    return error_response(\n                        request_id, ProtocolError(INTERNAL_ERROR, "Internal error")\n                    )\n', '                return error_response(request_id, ProtocolError(INTERNAL_ERROR, "Internal error"))\n', "a handler's ProtocolError answered -32603"),
        ("internal-error-details-leaked", "Endpoint._handle_one", '                if exc.code == INTERNAL_ERROR:\n                    if exc.message != "Internal error":  # a handler\'s own words: logged, never sent\n                        logger.error("request %r (%s) failed: %s", request_id, method, exc.message)\n                    return error_response(\n                        request_id, ProtocolError(INTERNAL_ERROR, "Internal error")\n                    )\n', "", "a handler's -32603 ProtocolError sent with its message and data"),
        ("internal-error-code", "Endpoint._handle_one", 'return error_response(request_id, ProtocolError(INTERNAL_ERROR, "Internal error"))\n            finally:', 'return error_response(request_id, ProtocolError(INVALID_PARAMS, "Internal error"))\n            finally:', "failing handlers answered -32602"),
        ("internal-words-unlogged", "Endpoint._handle_one", 'if exc.message != "Internal error":', "if False:", "what a handler's internal error says is never logged"),
        ("invalid-result-unlogged", "Endpoint.handled", '            logger.error(\n                "%s returned an invalid %s result: %s", handler, method, exc.data or exc.message\n            )\n', "", "why a handler's result was refused is never logged"),
        ("direct-any-revision", "Endpoint.route", "                and revision is self.surface\n", "", "a request of another revision handed to the handler unconverted"),
        ("request-id-unset", "Endpoint._handle_one", "            request_token = REQUEST_ID.set(request_id)\n", "            request_token = REQUEST_ID.set(None)\n", "a handler does not see its request's id in REQUEST_ID"),
        ("empty-batch-reply", "Endpoint._handle_batch", "return [r for r in replies if r is not None] or None", "return [r for r in replies if r is not None]", "an all-notification batch answered with []"),
        ("empty-batch-accepted", "Endpoint._handle_batch", "if not allowed or not obj:", "if not allowed:", "an empty batch not refused"),
        ("batches-always-allowed", "Endpoint._handle_batch", "if not allowed or not obj:", "if not obj:", "batches handled where the revision refuses them"),
        ("inbound-of-another-peer", "Endpoint.handle", "if inbound is not None and inbound.peer is self.peer:", "if inbound is not None:", "a message handed to one peer inside another's transport call takes that transport's route"),
        ("context-not-owned", "Endpoint.context", "return found if found is not None and found.endpoint is self else None", "return found", "a server's notification sent from another server's handler goes out on that server's route"),
        ("route-ignored", "Endpoint.channel", "channel = mine.route if mine is not None and mine.route is not None else self.attached", "channel = self.attached", "a handler's messages go to the attached channel, not the stream of the request it serves"),
        ("unsupported-version-code", "Endpoint.unsupported", 'return ProtocolError(modern.unsupported_code, "Unsupported protocol version", data or None)', 'return ProtocolError(INVALID_REQUEST, "Unsupported protocol version", data or None)', "an unsupported _meta version answered without the revision's error code"),
        ("session-version-as-stateless", "Endpoint.incoming_revision", "if revision is None or revision.modern is None:", "if revision is None:", "a `_meta` naming a session-era version read as a stateless request of it"),
        ("session-ignored", "Endpoint.incoming_revision", "        if session is not None:\n            return session\n", "", "messages of a session read in the default revision, not the negotiated one"),
        ("peer-newer-message-refused", "Endpoint.peer_message", "exc.code != INVALID_PARAMS", "True", "a peer's message with content its revision lacks refused instead of dropped with a warning"),
        ("peer-newer-result-refused", "Endpoint.peer_result", 'if self.peer.conversion_policy == "strict" or not isinstance(raw, dict):', "if True:", "a peer's result with content its revision lacks refused instead of dropped with a warning"),
        ("untyped-calls", "Endpoint.peer_result", "            return revision.registry.parse_result(method, raw), raw\n", "            return raw, raw\n", "typed calls return raw dicts"),
        ("incoming-params-unconverted", "Endpoint.surface_params", "        if revision is self.surface:\n", "        if True:\n", "handlers get params of the session's revision, not the surface's types"),
        ("results-unconverted", "Endpoint.surface_result", "        if revision is self.surface:\n", "        if True:\n", "typed calls return the session's revision's model, not the surface's"),
        ("params-unconverted", "Endpoint.to_revision_params", "        if revision is self.surface or wire is None:\n", "        if True:\n", "typed-call params sent in the surface's shape to a session of another revision"),
        ("gate-either-side", "Endpoint.gate", "if spec is None or spec.embedded or not spec.sent_by(self.side):", "if spec is None or spec.embedded:", "a side sends what only the other side sends"),
        ("gate-by-surface", "Endpoint.gate", "spec = revision.registry.methods.get(method)", "spec = self.surface.registry.methods.get(method)", "calls gated by the surface revision: a session is sent a method its revision lacks"),
        ("per-request-meta-in-sessions", "Endpoint.outgoing_params", "        modern = self.revisions.modern\n", "        modern = None\n", "session-era messages carry the stateless era's per-request `_meta` keys"),
    ],
)

RUNTIME_HANDSHAKE = _group(
    "runtime/handshake.py",
    [
        ("discover-no-versions", "handshake_result", "modern.versions_key: newest_first(revisions.supported),", "modern.versions_key: [],", "discovery announces no versions"),
        ("handshake-capabilities-unprojected", "handshake_result", "    projected = project_capabilities(\n        capabilities, revision.server_capabilities, surface.server_capabilities\n    )\n", "    projected = capabilities\n", "a handshake answer announces capabilities the client's revision does not define"),
    ],
)

RUNTIME_SERVER = _group(
    "runtime/server.py",
    [
        ("handshake-no-capabilities", "ServerEndpoint.handshake", "            self.mounted_capabilities(revision, dump(self.peer.derived_capabilities())),\n", "            {},\n", "the handshake announces no capabilities"),
        ("handshake-no-instructions", "ServerEndpoint.handshake", "            self.peer.instructions,\n", "            None,\n", "instructions not sent"),
        ("initialize-forgets-peer", "ServerEndpoint.answer_handshake", '            self.peer_info = getattr(message, "params", None)\n', "", "the client's handshake params not kept"),
        ("no-server-title", "ServerBase.server_info", "return implementation_info(self, self.name, self.version, self.title)", "return implementation_info(self, self.name, self.version, None)", "serverInfo without title"),
        ("declared-ignored", "ServerBase.derived_capabilities", "        if self.capabilities is not None:\n            return self.capabilities\n", "", "declared server capabilities ignored"),
        ("no-handshake-builtin", "ServerEndpoint.builtin", "        if method == revision.handshake:\n", "        if False:\n", "the runtime does not take the handshake over: no session, peer_info not kept"),
        ("direct-handshake", "ServerEndpoint.answers_itself", "            method == revision.handshake\n            or (", "            False\n            or (", "the handshake goes straight to the stub handler: the runtime's answer skipped"),
        ("direct-past-mounts", "ServerEndpoint.serves_alone", "return not type(self.peer).mounts and not revision.extensions", "return not revision.extensions", "a core request a mount serves first handed straight to the handler"),
        ("direct-past-extensions", "ServerEndpoint.serves_alone", "return not type(self.peer).mounts and not revision.extensions", "return not type(self.peer).mounts", "a request of a revision with extensions handed to the handler without the negotiation check"),
        ("direct-completed-result", "ServerEndpoint.completes", "return bool(surface.extensions and surface.extension_results.get(method)) or (", "return False and (", "a task result goes out without the extension's negotiation check"),
        ("session-meta-missing", "ServerEndpoint.completed", "        if modern is None or revision.legacy is None or type(params) is not dict:\n            return params\n", "        return params\n", "a modern surface handler on a legacy session gets no session `_meta`"),
        ("session-meta-kept-on-reinitialize", "ServerEndpoint.answer_handshake", "            self.forget_session_meta()\n", "", "a new initialize keeps the old session's `_meta` (client info, capabilities)"),
        ("log-level-meta-stale", "ServerEndpoint._set_log_level", "        self.forget_session_meta()\n", "", "a session's logging/setLevel does not reach its later requests' `_meta`"),
        ("session-meta-unfrozen", "ServerEndpoint.session_meta_model", "_frozen(model).model_validate(", "model.model_validate(", "one request's handler may change the `_meta` every request of the session shares"),
        ("session-capabilities-unprojected", "ServerEndpoint.session_meta", "        offered = project_capabilities(\n            session.get(keys.capabilities_key) or {}, revision.client_capabilities\n        )\n", "        offered = session.get(keys.capabilities_key) or {}\n", "a session's client appears to support what its negotiated revision does not have"),
        ("session-input-not-bridged", "ServerEndpoint.fulfil_on_session", "            or revision.legacy is None\n", "            or True\n", "a stateless surface handler's input-required result sent to a session-era client, which cannot read it"),
        ("listens-outlive-input", "ServerEndpoint.input_closed", "            task.cancel()\n", "", "listen requests keep running after the client's input closed"),
        ("acknowledgement-sent-to-session", "ServerEndpoint.notify", "if mine is not None and mine.for_session and method not in revision.registry.methods:", "if False:", "the listen handler run for a session sends it the acknowledgement its revision lacks (and fails)"),
        ("listen-notifications-unnamed", "ServerEndpoint.stamped", "if listening is None or modern is None or not modern.subscription_id_key:", "if True:", "notifications sent for a listen request do not name it in `_meta`"),
        ("shortcut-ignores-extensions", "ServerEndpoint.serve", "        if not revision.extensions:", "        if True:", "the shortcut past the negotiating path serves extension methods ungated"),
        ("extension-method-ungated", "ServerEndpoint.serve_negotiated", "        if extension is not None and extension.identifier not in on:\n", "        if False:\n", "an extension method runs for a client that did not declare the extension"),
        ("task-answer-ungated", "ServerEndpoint.fulfil_on_session", "                    and extension.identifier not in self.peer.negotiated_extensions()\n", "                    and False\n", "a task answers a client that did not negotiate the tasks extension"),
        ("listen-notifications-from-other-code-unnamed", "ServerEndpoint.stamped", "        if mine is None and len(self.listens) == 1:\n", "        if False:\n", "a notification another request's handler sends through a listen request's server does not name the stream"),
    ],
)

RUNTIME_HANDLERS = _group(
    "runtime/handlers.py",
    [
        ("capabilities-of-every-handler", "overridden_capabilities", "        if overridden(peer, method) is None:\n            continue\n", "", "capabilities advertised for handlers not overridden"),
        ("capability-flags-dropped", "overridden_capabilities", "        if capability.flag is not None:\n", "        if False:\n", "capability flags dropped at run time"),
    ],
)

RUNTIME_CLIENT = _group(
    "runtime/client.py",
    [
        ("no-initialized", "ClientEndpoint._initialize", "            await self.peer.send_notification(chosen.legacy.initialized, None)\n", "            pass\n", "notifications/initialized never sent"),
        ("session-forgets-peer", "ClientEndpoint._initialize", "        self.peer_info = result\n", "", "the server's initialize answer not kept"),
        ("meta-overrides-caller", "ClientEndpoint.outgoing_params", "            meta.setdefault(key, value)\n", "            meta[key] = value\n", "the client's `_meta` overwrites the caller's"),
        ("declared-ignored", "ClientBase.derived_capabilities", "        if self.capabilities is not None:\n            return self.capabilities\n", "", "declared client capabilities ignored"),
        ("no-discovery", "ClientEndpoint.start_session", "            revisions.modern_versions\n            and self.peer.preferred_version not in revisions.legacy_versions\n", "            False\n", "start_session never sends server/discover"),
        ("discovery-forgets-peer", "ClientEndpoint._discover", "            self.peer_info = result\n", "", "the server's discovery answer not kept"),
        ("request-meta-missed", "ClientEndpoint.outgoing_params", "        out[modern.meta_key] = meta\n", "", "requests do not carry the client's `_meta`"),
        ("meta-version-not-forced", "ClientEndpoint.outgoing_params", "        meta[modern.version_key] = revision.version\n", "", "a caller's `_meta` version overrides the session's"),
        ("input-not-retried", "ClientEndpoint.fulfil_from_peer", "                answers[key] = answer\n", "                return model\n", "an input-required result never answered and retried"),
        ("input-state-dropped", "ClientEndpoint.fulfil_from_peer", "            if raw.get(need.state_key) is not None:\n                retry[need.state_key] = raw[need.state_key]\n", "", "the retry of an input-required request does not echo the server's request state"),
        ("input-unanswerable-raises", "ClientEndpoint.answer_input", "            if exc.code == METHOD_NOT_FOUND:\n                return None\n", "", "an input request no handler answers raises -32601 instead of returning the input-required result"),
        ("no-legacy-fallback", "ClientEndpoint._discover", "                if legacy_versions:\n                    return None  # not an error of the stateless era: a session-era server\n", "", "a dual-era client gives up on a session-era server that does not know discovery"),
        ("initialize-version-unchecked", "ClientEndpoint._initialize", "        if version not in legacy_versions:\n", "        if False:\n", "an initialize answer naming a version the client does not speak not refused as ProtocolError"),
        ("preferred-version-ignored", "ClientEndpoint._initialize", "proposed = revisions[preferred if preferred in legacy_versions else default]", "proposed = revisions[default]", "initialize proposes the surface's version, not the preferred one"),
        ("initialize-capabilities-unprojected", "ClientEndpoint._initialize", "            keys.capabilities_key: project_capabilities(\n                dump(self.peer.derived_capabilities()),\n                proposed.client_capabilities,\n                self.surface.client_capabilities,\n            ),\n", "            keys.capabilities_key: dump(self.peer.derived_capabilities()),\n", "initialize announces client capabilities the proposed revision does not define"),
    ],
)

RUNTIME_LISTEN = _group(
    "runtime/listen.py",
    [
        ("covers-any-prefix", "covers", 'return watched.endswith("/") or uri[len(watched)] in "/?#"', "return True", "an update of file:///ab reaches a listen stream watching file:///a"),
        ("session-subscriptions-unbounded", "ListenBridge.session_subscribe", "if len(self.uris) >= SUBSCRIBED or held > SUBSCRIBED_CHARS:", "if False:", "a session subscribes to any number of resources, each subscribe rerunning the listen handler for all"),
        ("updates-to-every-stream", "_wants", "return any(covers(watched, uri) for watched in stream.uris)", "return True", "a resource update goes to listen streams that do not watch it"),
        ("list-changes-without-capability", "ListenBridge.serve_listen", "            and (capabilities.get(flag.capability) or {}).get(flag.flag) is True\n", "", "a listen stream promised list changes the server's capabilities do not declare"),
        ("held-notifications-lost", "ListenBridge.notify_streams", "            if stream.held is not None:\n", "            if False:\n", "notifications sent while a listen stream is set up lost, not held until its acknowledgement"),
        ("subscribed-per-stream", "ListenBridge._watch", "if not self.watching.get(uri) and not await self._subscription(method, uri):", "if not await self._subscription(method, uri):", "the subscribe handler run again for every stream watching a URI already subscribed"),
        ("unsubscribed-while-watched", "ListenBridge._unwatch_all", "                if not self.watching[uri]:\n", "                if True:\n", "a URI unsubscribed while another listen stream still watches it"),
        ("session-listen-not-restarted", "ListenBridge.stop_session_listen", "            task.cancel()\n", "            pass\n", "the listen handler of a session's old subscriptions keeps running beside the new one"),
    ],
)

RUNTIME_STDIO = _group(
    "runtime/stdio.py",
    [
        ("cancel-not-sent", "Connection.request", "                    self.notify(revision.cancelled, {revision.cancelled_id_key: request_id})\n", "                    asyncio.sleep(0)\n", "cancelling a call does not tell the peer"),
        ("initialize-cancelled", "Connection.request", "                and method != revision.handshake\n", "", "cancelling the handshake request sends notifications/cancelled for it"),
        ("error-responses-dispatched", "Connection.receive", '("result" in obj or "error" in obj)', '("result" in obj)', "error responses handled as incoming messages"),
        ("parse-errors-unanswered", "Connection.receive", "            await self.send(error_response(None, exc))\n", "            pass\n", "a line that is not JSON gets no -32700"),
        ("unwritable-answer-unanswered", "Connection._reply", "            await self.send(error_response(request_id if valid_id(request_id) else None, cannot))\n", "            pass\n", "an answer JSON cannot carry (a NaN) leaves the request unanswered"),
        ("overlong-line-ends-connection", "Connection.run", "                    continue\n", "                    break\n", "a line over the limit ends the connection instead of a -32700"),
        ("reader-error-raised-again", "connect_stdio", "with contextlib.suppress(asyncio.CancelledError, ConnectionError):", "with contextlib.suppress(asyncio.CancelledError):", "a write that met the closed pipe is raised again when the connection is left, over the caller's own error"),
        ("in-flight-unbounded", "Connection.receive", "        if self._handling + weight > IN_FLIGHT:\n", "        if False:\n", "a peer's flood of requests starts a task for each: memory grows without end"),
        ("pending-hang-on-eof", "Connection.run", '                    future.set_exception(ConnectionError("MCP peer closed the connection"))\n', "                    pass\n", "requests still waiting when the peer closes never end"),
        ("cancel-notice-awaited", "Connection.request", "                self._notices.add(notice)\n", "                await notice\n", "a caller's timeout waits for the cancellation to be written, forever when the peer stopped reading"),
        ("batch-counts-one", "Connection.receive", "weight = len(obj) if isinstance(obj, list) else 1", "weight = 1", "a batch of any length counts as one message against IN_FLIGHT"),
        ("string-read-again", "Connection.receive", "if not isinstance(obj, (Mapping, list)):", "if False:", "a line that is a JSON string is decoded again and run as a message"),
        ("overlong-line-sent", "Connection.send", "if len(data) > LIMIT:", "if False:", "an answer longer than the peer reads is sent, and its call never completes"),
        ("stderr-pipe-accepted", "connect_stdio", "if stderr is asyncio.subprocess.PIPE:", "if False:", "stderr=PIPE fills, and the server stops"),
        ("closed-stdout-raises", "serve_stdio", "        except OSError as exc:  # stdout closed by the client: stop serving it\n", "        except ZeroDivisionError as exc:\n", "a server whose stdout is closed ends in tracebacks"),
        ("cancelled-exit-leaves-server", "connect_stdio", "        except BaseException:  # the caller cancelled its wait: the server does not outlive it\n", "        except ZeroDivisionError:\n", "a caller cancelled while leaving leaves the server running"),
    ],
)

RUNTIME_HTTP_COMMON = _group(
    "runtime/http/common.py",
    [
        ("param-integer-textual", "same", "    if isinstance(value, int) and not isinstance(value, bool):\n", "    if False:\n", "an integer argument's header compared as text: `42.0` or `4.2e1` refused for 42"),
        ("param-unsafe-integer-accepted", "same", "abs(value) > SAFE_INTEGER or ", "", "an integer outside JavaScript's safe range accepted in a mirrored header"),
        ("param-integer-via-float", "same", "return decimal.Decimal(text) == value", "return float(text) == value", "a mirrored integer compared through a float: a fraction a float rounds away accepted"),
        ("header-fast-path-lax", "decode_header", "printable = value.isascii() and value.isprintable()", "printable = value.isascii()", "a mirrored header with an ASCII control character (DEL, NUL) taken as a plain value"),
        ("base64-header-undecoded", "decode_header", "if value.startswith(start) and value.endswith(end) and len(value) >= len(start) + len(end):", "if False:", "an `Mcp-Name`/`Mcp-Param-*` header in the Base64 sentinel compared undecoded"),
        ("non-ascii-header-raw", "encode_header", 'plain = all(" " <= c <= "~" for c in value) and value == value.strip()', "plain = True", "a non-ASCII or space-padded header value sent as it is, not in the Base64 sentinel"),
        ("nested-header-params-missed", "header_params", "            walk(sub, (*path, key), depth + 1)\n", "            pass\n", "`x-mcp-header` on a nested property not found"),
        ("invalid-params-status-200", "eras", "        INVALID_PARAMS,\n", "", "a stateless request with invalid params answered 200 instead of 400"),
    ],
)

RUNTIME_HTTP_SERVER = _group(
    "runtime/http/server.py",
    [
        ("wrong-path-served", "StreamableHTTP.__call__", "                and paths(scope)[0] != self.path\n", "                and False\n", "requests to any path served as the MCP endpoint"),
        ("mount-ignored", "StreamableHTTP.__call__", "and (path != self.path or scope.get(\"root_path\"))", "and path != self.path", "a request to the endpoint's path under a mount point served as the endpoint (its path below the mount is another)"),
        ("metadata-unguarded", "StreamableHTTP.__call__", "            if refused is not None:\n", "            if refused is not None and not metadata:\n", "the protected-resource metadata served to a forged Host, which it reflects"),
    ],
)

RUNTIME_HTTP_PROTECTION = _group(
    "runtime/http/protection.py",
    [
        ("mount-prefix-forgotten", "Protection.endpoint", "return request.origin + root + (", "return request.origin + (", "mounted under a prefix, the challenge names metadata RFC 9728 does not place there"),
        ("root-metadata-unserved", "Protection.is_metadata", "return full == auth.metadata_path(public) or ", "return ", "the metadata not served at the RFC 9728 location of the public path"),
        ("proof-not-passed", "Protection.authenticate", "(proof,) if proof else ()", "()", "the request's DPoP proof never reaches the resource server"),
    ],
)

RUNTIME_HTTP_GUARD = _group(
    "runtime/http/guard.py",
    [
        ("rebinding-unchecked", "refusal", "if name is None or (hosts is None and not _unrebindable(name)):", "if name is None:", "a server without allow-lists admits any Host (DNS rebinding)"),
        ("origin-unchecked", "refusal", '    return None if admitted else "Forbidden: Origin not allowed"', "    return None", "a foreign Origin admitted"),
        ("host-port-refused", "_matches", " or a.lower() == name", "", "an allowed host without port refuses that host on a port"),
    ],
)

RUNTIME_HTTP_WIRE = _group(
    "runtime/http/wire.py",
    [
        ("content-type-unchecked", "refused_content", 'if media_types(content_type)[:1] != ["application/json"]:', "if False:", "a POST that is not application/json read anyway"),
        ("body-limit-unenforced", "read_json", "        if size > limit:\n", "        if False:\n", "a body over max_body read whole (no 413) when it has no Content-Length"),
        ("header-names-cased", "_headers", 'known.get(n) or n.decode("latin-1").lower()', 'known.get(n) or n.decode("latin-1")', "a header whose name the server did not write in lower case is not found"),
        ("disconnect-unwatched", "watched", "    stop = watch_disconnect(receive, gone)\n", "    stop = lambda: None\n", "a client that goes while its request's handler waits is not noticed (its stream kept attached)"),
        ("cancel-not-passed-on", "_resumed", "                waiting = coro.throw(exc)\n", "                waiting = coro.send(None)\n", "a cancellation of a waiting request never reaches its handler"),
        ("header-value-unstripped", "_value", 'raw.decode("latin-1").strip(" \\t")', 'raw.decode("latin-1")', "a header value read with the whitespace around it (a remembered one as much as a new one)"),
        ("header-values-unbounded", "_value", "        if len(_VALUES) >= _VALUES_KEPT:\n            _VALUES.clear()\n", "", "header values remembered without bound: a client sending new ones grows the server's memory"),
        ("header-lists-unbounded", "_keep", "        if len(_BLOCKS) >= _BLOCKS_KEPT:\n            _BLOCKS.clear()\n", "", "header lists remembered without bound: a client sending new ones grows the server's memory"),
        ("header-lists-keep-long", "_keep", "    if len(raw) <= _BLOCK_LONGEST and all(", "    if len(raw) <= _BLOCK_LONGEST or all(", "a header list with a long value (a token) or field flood remembered"),
        ("header-lists-mixed-up", "Request.__init__", "            headers = _BLOCKS.get(raw)\n", "            headers = _BLOCKS.get(raw) or next(iter(_BLOCKS.values()), None)\n", "a request reads the fields another list sent"),
        ("content-length-any-digits", "read_json", "if length.isascii() and length.isdigit() and (len(length) > 18 or int(length) > limit):", "if length.isdigit() and int(length) > limit:", "a Content-Length of digits int() refuses (\"\u00b2\", 5,000 of them) is a 500"),
    ],
)

RUNTIME_HTTP_VERSIONS = _group(
    "runtime/http/versions.py",
    [
        ("unsupported-version-code", "Versions._unsupported", "error_body(modern.unsupported_code, ", "error_body(INVALID_REQUEST, ", "an unsupported MCP-Protocol-Version answered without the revision's error code"),
    ],
)

RUNTIME_HTTP_STREAM = _group(
    "runtime/http/stream.py",
    [
        ("replay-all", "Stream.resume", "                if seq > after:\n", "                if True:\n", "a resumed stream replays the events the client already has"),
        ("json-claim-jumps-queue", "Stream.answer_json", "if lock is None or (not lock.locked() and not lock._waiters):", "if lock is None or not lock.locked():", "a JSON claim taken ahead of a writer already queued for the stream's lock"),
        ("ended-made-unset", "Stream.ended", "            if self._gone:\n                self._ended.set()\n", "", "a stream's `ended` first asked for after its connection went says it is still written (a GET waits for nothing)"),
        ("resumed-still-ended", "Stream.resume", "            self._gone = False\n", "", "a resumed stream's `ended`, first asked for later, says no connection writes it"),
        ("sessionless-stream-keeps", "Stream._keep", "        if self.session is None:\n            return\n", "        if self.session is None:\n            pass\n", "a stateless answer's SSE stream keeps up to replay_limit events of any size for a replay that cannot come"),
    ],
)

RUNTIME_HTTP_SESSION = _group(
    "runtime/http/session.py",
    [
        ("key-taken-late", "Answer.opened", "str(self.key)", "str(next(session.keys))", "a POST's stream numbered when it is made, not when the POST came: its event ids are not those a stream made at once carries"),
        ("late-send-answers-again", "Answer.opened", "            if self.answered:\n                stream.claim()\n", "", "what a handler sends after its JSON answer starts a second answer on the POST's connection, not the session's GET stream"),
        ("disconnect-kept-attached", "Answer._let_go", "            await self.stream.detach(self.send)\n", "            pass\n", "a client gone while the handler waits keeps its POST's stream attached: what follows is lost, not kept for `Last-Event-ID`"),
        ("endless-event-number", "Session.find", " or len(seq) > _SEQ_DIGITS", "", "a Last-Event-ID with more digits than int() reads is a 500 with a traceback"),
    ],
)

RUNTIME_HTTP_LIFECYCLE = _group(
    "runtime/http/lifecycle.py",
    [
        ("idle-sessions-kept", "Sessions._sweep", "                    await asyncio.shield(self.end(stale))\n", "                    pass\n", "sessions idle beyond session_timeout never dropped"),
        ("busy-session-displaced", "Sessions.idlest", "            if session.idle_for(now) > 0.0:\n", "            if True:\n", "a session serving a request ended to make room for a new one"),
        ("use-not-noted", "Sessions.seen", "            self.move_to_end(session.id)\n", "            pass\n", "a session in use is displaced before one idle longer"),
    ],
)

RUNTIME_HTTP_SESSION_ERA = _group(
    "runtime/http/session_era.py",
    [
        ("session-limit-unenforced", "SessionEra._new_session", "while len(self.sessions) + self._opening >= self.max_sessions:", "while False:", "sessions opened beyond max_sessions"),
        ("full-refuses-idle", "SessionEra._new_session", "idlest = self.sessions.idlest() if self.sessions else None", "idlest = None", "a handshake beyond max_sessions refused (503) while idle sessions hold every place: anyone can lock new clients out"),
        ("unknown-session-400", "SessionEra._session", 'raise Reject(404, error_body(INVALID_REQUEST, "Session not found"))', 'raise Reject(400, error_body(INVALID_REQUEST, "Session not found"))', "an unknown session answered 400: the client does not know to start a new one"),
        ("delete-keeps-session", "SessionEra.delete", "        await self.sessions.end(session)\n", "", "DELETE does not end the session"),
        ("session-batch-unchecked", "SessionEra.post", "if batch and session.version not in self.eras.batching:", "if False:", "a batch in a session whose revision has none answered 200, not refused with 400"),
        ("session-of-another-principal", "SessionEra._session", "if session is None or session.owner != (None if token is None else token.principal):", "if session is None:", "another user's token finds a session (a session not bound to its token's subject and client)"),
        ("batch-limit-unenforced", "SessionEra.post", "if batch and len(messages) > self.max_batch:", "if False:", "a batch over max_batch run"),
        ("session-version-header-unchecked", "SessionEra._session", "if version not in (None, session.version, ASSUMED_VERSION):", "if False:", "a session's request under another session-era MCP-Protocol-Version served"),
        ("null-method-response", "sort_messages", 'elif "method" not in m and ("result" in m or "error" in m):', 'elif "result" in m or "error" in m:', "a message with a non-string method and a result settled as a response instead of refused as a request"),
        ("notification-asks", "sort_messages", '            asks = asks or "id" in m\n', "            asks = True\n", "a POST of notifications answered as a request (200 with a body, not 202)"),
    ],
)

RUNTIME_HTTP_STATELESS = _group(
    "runtime/http/stateless.py",
    [
        ("server-not-released", "Stateless.post", "            server._mcp_release()\n", "            pass\n", "a stateless request's server and endpoint left to the cycle collector"),
        ("meta-version-unchecked", "Stateless._check_headers", "if claimed is not None and claimed != version:", "if False:", "a stateless request whose `_meta` version disagrees with MCP-Protocol-Version served"),
        ("method-header-unchecked", "Stateless._check_headers", "if header is not None and header != method:", "if False:", "an Mcp-Method header that disagrees with the body served"),
        ("name-header-unchecked", "Stateless._check_headers", "if decode_header(raw) != params.get(field):", "if False:", "an Mcp-Name header that disagrees with the body served"),
        ("param-header-unchecked", "Stateless._check_params", "if decoded is None or not same(decoded, value):", "if decoded is None:", "an Mcp-Param header that disagrees with the tool argument served"),
        ("param-header-optional", "Stateless._check_params", '            if sent is None:\n                raise self._mismatch(request_id, f"Mcp-Param-{header_name} header is required")\n', "            if sent is None:\n                continue\n", "a tool argument marked x-mcp-header served without its header"),
        ("kept-params-unchecked", "Stateless._check_headers", "        if annotated:  # most tools mirror no argument\n            self._check_params(request, params, request_id, annotated)\n", "", "a tools/call whose tool list is kept served without its Mcp-Param check"),
        ("param-names-learned", "malformed_param", "        elif len(NOT_PARAMS) < NOT_PARAMS_KEPT:\n            NOT_PARAMS.add(name)\n", "        NOT_PARAMS.add(name)\n", "an Mcp-Param-* header name remembered as plain: a later malformed value of it served"),
        ("param-names-unbounded", "malformed_param", "        elif len(NOT_PARAMS) < NOT_PARAMS_KEPT:\n", "        else:\n", "the header names remembered for the Mcp-Param-* scan grow without bound"),
        ("fetched-params-unchecked", "Stateless._check_fetched", "        self._check_params(request, params, request_id, await fetched)\n", "        await fetched\n", "a tools/call whose tool list is fetched served without its Mcp-Param check"),
        ("late-stream-unfinished", "Answer.opened", "            if self.answered:\n                stream.finished = True\n            else:\n", "            if False:\n                pass\n            else:\n", "a stream made after a stateless request was answered starts a second answer"),
        ("sent-then-json", "Stateless.post", "        if stream is None:  # the handler sent nothing: its answer is plain JSON\n", "        if True:\n", "the notifications a stateless handler sent before its answer lost: answered plain JSON"),
        ("unknown-method-status", "Stateless._status", "        if code == METHOD_NOT_FOUND:\n            return 404\n", "", "a stateless request for an unknown method not answered 404"),
    ],
)

RUNTIME_HTTP_TOOLTABLE = _group(
    "runtime/http/tooltable.py",
    [
        ("ttl-ignored", "ToolTable._read", "listing.expires = min(listing.expires, now + kept)", "listing.expires = now + 60.0", "a tool list declaring ttlMs 0 kept: a changed list's x-mcp-header annotations checked against the stale one"),
        ("private-shared", "ToolTable._read", "if keys.scope_key is None or result.get(keys.scope_key) != PUBLIC:", "if False:", "a private tool list reused across authorization contexts"),
        ("expired-kept", "ToolTable.kept", "if listing.expires <= now:", "if False:", "a kept tool list used after its ttlMs"),
        ("unbounded", "ToolTable.fetched", "while len(self._kept) >= LIMIT:", "while False:", "one kept tool list per authorization context, without bound"),
    ],
)

RUNTIME_HTTP_CLIENT = _group(
    "runtime/http/client.py",
    [
        ("json-body-untimed", "HttpConnection._posted", "data = await asyncio.wait_for(_body(response), self.timeout)", "data = await _body(response)", "a JSON answer whose body never ends hangs the call, whatever `timeout` says"),
        ("notification-stream-drained", "HttpConnection._posted", "if future is not None:  # a notification's", "if True:  # a notification's", "an SSE answer to a notification is read to its end: a stream that never ends hangs the client"),
        ("session-id-unchecked", "HttpConnection._posted", 'session_id.isascii() and session_id.isprintable() and " " not in session_id', "True", "a session id that is not visible ASCII is kept, and every later request fails to encode it"),
        ("httpx-errors-raw", "HttpConnection._post", "except self._transport_errors as exc:", "except ():", "a dropped connection reaches the caller as httpx's own exception, not a ConnectionError"),
        ("retry-unbounded", "_events", "event.retry = high if len(value) > len(str(high)) else min(max(int(value), low), high)", "event.retry = int(value)", "a retry of 0 spins the reconnection loop, one of 5,000 digits raises ValueError"),
        ("event-unbounded", "_events", "            if size > LIMIT:\n", "            if False:\n", "an SSE event of endless data lines grows the client's memory without end"),
        ("line-unbounded", "_lines", "        if len(pending) > limit:\n", "        if False:\n", "an SSE line that never ends grows the client's memory without end"),
        ("body-unbounded", "_body", "        if size > limit:\n", "        if False:\n", "a JSON answer of any size is read whole"),
        ("replies-unbounded", "HttpConnection._dispatch", "if len(self._tasks) >= REPLIES:", "if False:", "a flood of server requests starts a task for each"),
        ("redirect-delivers", "HttpConnection._posted", "elif response.status_code >= 300 or (", "elif response.status_code >= 400 or (", "a notification answered with a redirect is taken as delivered"),
        ("delete-untimed", "HttpConnection.aclose", "self.timeout or CLOSE_TIMEOUT,", "None,", "a DELETE the server never answers holds the client's exit"),
        ("param-headers-not-sent", "HttpConnection._headers", '                    headers[f"mcp-param-{name}"] = encode_header(text)\n', "                    pass\n", "tool arguments marked x-mcp-header not mirrored in Mcp-Param headers"),
        ("tools-not-learned", "HttpConnection._learn", "                    self._tools[tool[keys.name_key]] = header_params(tool.get(keys.schema_key))\n", "                    pass\n", "the tools' x-mcp-header annotations not learned from tools/list"),
        ("name-header-not-sent", "HttpConnection._headers", '            headers["mcp-name"] = encode_header(params[field])\n', "            pass\n", "a stateless request's Mcp-Name header not sent"),
        ("session-version-not-learned", "HttpConnection._learn", "                self.version = version\n", "                pass\n", "a session's requests lack the negotiated MCP-Protocol-Version header"),
        ("idle-connections-kept-as-long-as-uvicorn", None, "KEEPALIVE_EXPIRY = 1.0", "KEEPALIVE_EXPIRY = 5.0", "the client reuses idle connections as long as uvicorn keeps them: a request races the server's close"),
        ("keepalive-not-applied", "connect_http", "keepalive_expiry=KEEPALIVE_EXPIRY", "keepalive_expiry=5.0", "the client's own HTTP pool keeps httpx's 5 s expiry"),
    ],
)

RUNTIME_AUTH_RESOURCE = _group(
    "runtime/auth/resource.py",
    [
        ("scopes-unchecked", "ResourceServer.authorize", "        if not set(needed) <= token.scopes:\n", "        if False:\n", "a token lacking a required scope admitted"),
        ("request-scopes-ignored", "ResourceServer.authorize", "                    needed += [s for s in more if s not in needed]\n", "                    pass\n", "the scopes a request's method needs (`scopes_for`) not required"),
        ("expired-admitted", "ResourceServer.authenticate", "if verified.expires_at is not None and verified.expires_at <= time.time():", "if False:", "a token the verifier says expired an hour ago admitted"),
        ("bound-token-as-bearer", "ResourceServer.authenticate", 'if scheme == "bearer" and jkt is not None:', "if False:", "a DPoP-bound token (stolen) presented as a bearer token admitted"),
        ("unknown-binding-admitted", "ResourceServer.authenticate", "if confirmation is not None and (", "if False and (", "a token bound by mTLS (cnf x5t#S256) or with a cnf that is not an object admitted as a bearer token"),
        ("proof-unchecked", "ResourceServer.authenticate", "                dpop.check(presented.proofs, presented.method, self.resource_of(url), token, jkt)\n", "                pass\n", "a DPoP token admitted without checking its proof"),
        ("principal-without-issuer", "AccessToken.principal", "return (issuer, self.subject, self.client_id)", "return (None, self.subject, self.client_id)", "the same subject and client from another issuer continue a session"),
    ],
)

RUNTIME_AUTH_CLIENT = [
    *_group(
        "runtime/auth/destinations.py",
        [
            ("metadata-address-allowed", "Destinations._refuse", "if address in METADATA_ADDRESSES:", "if False:", "authorization traffic sent to the cloud metadata service where private addresses are allowed"),
            ("internal-allowed", "Destinations._refuse", "if internal(address) and not self.private:", "if False:", "a public MCP server sends its client into a private network (SSRF)"),
            ("cleartext-allowed", "Destinations.check", "if not secure(url) and not (document and own):", "if False:", "secrets sent to an http authorization server off loopback"),
            ("mapped-not-unwrapped", "_unwrapped", "            return address.ipv4_mapped\n", "            return address\n", "an IPv4-mapped IPv6 literal hides an internal address"),
            ("rebinding-unpinned", "Destinations.pin", "        if self.own(host, port):\n            return host\n", "        return host\n", "a name resolved public for the check connects to an internal address (DNS rebinding)"),
            ("server-always-internal", "destinations", "allow_private_network or named", "True", "every MCP server may send its client to internal addresses"),
            ("dns-name-internal", "destinations", "named = _loopback_name(host) if ip is None else", "named = True if ip is None else", "a public MCP server's DNS name opens the private network to its client, whatever it resolves to"),
        ],
    ),
    *_group(
        "runtime/auth/fetch.py",
        [
            ("size-unbounded", "_body", "    if len(body) > MAX_ANSWER:\n        raise", "    if False:\n        raise", "a 64 MiB discovery document read and used"),
            ("time-unbounded", "exchange", "return await asyncio.wait_for(read(), timeout)", "return await read()", "a document dripped a byte at a time keeps the client waiting past its timeout"),
            ("transport-error-raw", "exchange", "        if what is None:\n            raise\n", "        raise\n", "a refused connection to the token or registration endpoint reaches the caller as httpx.ConnectError"),
        ],
    ),
    *_group(
        "runtime/auth/authorization.py",
        [
            ("credentials-follow-any-issuer", "Authorization._preregistered", "            if self._bound[index] == issuer:\n", "            if True:\n", "credentials without an issuer sent to whichever authorization server an MCP server names (mix-up)"),
            ("dpop-never-asked", "Authorization._dpop_key", "if not self.dpop or dpop.ALGORITHM not in offered:", "if True:", "no DPoP proof at the token endpoint of an authorization server offering DPoP"),
            ("bearer-for-bound-tokens", "Authorization.present", "        if tokens.dpop_key is None:\n", "        if True:\n", "a DPoP-bound token sent as a bearer token without its proof"),
            ("metadata-url-unchecked", "metadata_document_url", "raise ValueError(", "return url or (", "an http client metadata document URL accepted"),
        ],
    ),
    *_group(
        "runtime/auth/grants.py",
        [
            ("authorization-endpoint-unchecked", "OAuth._authorize", "if not secure(server.authorization_endpoint):", "if False:", "a javascript: authorization URL handed to the consent step"),
        ],
    ),
    *_group(
        "runtime/auth/token_endpoint.py",
        [
            ("unasked-dpop-token-accepted", "tokens_of", 'if kind.lower() == "dpop" and dpop_key is None:', "if False:", "a DPoP token the client cannot prove sent as a bearer token"),
            ("unknown-token-type-accepted", "tokens_of", 'if kind.lower() not in ("bearer", "dpop"):', "if False:", "a token of a type the client does not understand used"),
            ("as-nonce-ignored", "post_token_request", "        nonces[where] = fresh\n", "        return answer\n", "a token request refused with use_dpop_nonce not retried with the nonce"),
            ("unsendable-token-accepted", "tokens_of", "if not _VISIBLE.fullmatch(token):", "if False:", "an access token with CR/LF or non-ASCII kept: using it raises UnicodeEncodeError or LocalProtocolError"),
        ],
    ),
    *_group(
        "runtime/auth/challenge.py",
        [
            ("bare-scheme-ends-parse", None, "(?:\\s+|$|(?=,))", "(?:\\s+|$)", "the challenges after a scheme without parameters (`Bearer, DPoP algs=...`) dropped"),
        ],
    ),
    *_group(
        "runtime/auth/flow.py",
        [
            ("rs-nonce-ignored", "flow_class", "if fresh and bound and challenge.params.get(\"error\") == USE_DPOP_NONCE:", "if False:", "an MCP request refused with use_dpop_nonce re-authorized instead of retried with the nonce"),
        ],
    ),
    *_group(
        "runtime/auth/metadata.py",
        [
            ("query-dropped", "canonical_resource", "return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, \"\"))", "return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, \"\", \"\"))", "?tenant=a and ?tenant=b share a token"),
        ],
    ),
    *_group(
        "runtime/auth/jwt.py",
        [
            ("typ-unchecked", "JwtVerifier.__call__", "if self.typ is not None and _media_type(header.get(\"typ\")) != _media_type(self.typ):", "if False:", "an ID token or any JWT accepted as an access token (typ not at+jwt)"),
            ("key-alg-ignored", "JwtVerifier._keyset", "if (a == declared if declared is not None else a.startswith(family))", "if True", "a key verifies any algorithm: HS256 with an RSA key (a 500), PS256 with a key marked RS256"),
            ("odd-claims-admitted", "JwtVerifier.__call__", "if expires is None or not _strings(scopes) or not _strings(clients):", "if expires is None:", "a scope object grants its keys, a numeric scope is a 500, a client_id object becomes the principal"),
        ],
    ),
    *_group(
        "runtime/auth/dpop_check.py",
        [
            ("replay-admitted", "DPoP._remember", "        if digest in self._seen:\n", "        if False:\n", "a DPoP proof replayed"),
            ("jkt-unchecked", "DPoP.check", 'if not isinstance(jkt, str) or thumbprint(header["jwk"]) != jkt:', "if not isinstance(jkt, str):", "a proof by any key accepted for a token bound to another"),
            ("ath-unchecked", "DPoP.check", 'if claims.get("ath") != token_hash(token):', "if False:", "a proof made for another token accepted"),
            ("htu-unchecked", "DPoP.check", 'if _normal(claims["htu"]) != _normal(url):', "if False:", "a proof made for another server accepted"),
            ("nonce-unchecked", "DPoP.check", 'if self.nonce and not self._nonce_valid(claims.get("nonce")):', "if False:", "a proof without the server's nonce accepted where nonces are required"),
            ("iat-nan-fresh", "DPoP.check", "now - self.window <= issued <= now + self.window", "not abs(now - issued) > self.window", "a DPoP proof with iat NaN taken as fresh (replayable once forgotten); a 400-digit iat raises OverflowError"),
        ],
    ),
]

RUNTIME_FANOUT = _group(
    "runtime/fanout.py",
    [
        ("backlog-unbounded", "Watch.put", "        if len(self.pending) >= self.limit:\n", "        if False:\n", "a listener far behind keeps the whole backlog instead of its watched URIs"),
        ("updates-to-every-watch", "Fanout.deliver", "        for watch in self.covering(uri):\n", "        for watch in list(self.watches):\n", "a published update goes to watches that do not cover it"),
        ("update-scans-every-uri", "Fanout.covering", "if length <= len(uri) and covers(prefix := uri[:length], uri):", "if length <= len(uri) and covers(prefix := uri[:length], uri) and not any(covers(w, uri) for w in by_uri):", "every update scans every URI any listener watches"),
        ("left-watch-indexed", "Fanout.discard", "                    del self._by_uri[uri]\n", "                    pass\n", "a watch that left stays in the URI index"),
    ],
)

RUNTIME_NEGOTIATION = _group(
    "runtime/negotiation.py",
    [
        ("extensions-on-for-one-side", "negotiated", "if e.identifier in ours and e.identifier in theirs", "if e.identifier in ours", "an extension is on for a client that did not declare it"),
        ("missing-extension-no-data", "missing_extension", "        if modern and modern.required_capabilities_key\n", "        if False\n", "the missing-capability error does not name the extension the client must declare"),
    ],
)

RUNTIME_TASKS = _group(
    "runtime/tasks.py",
    [
        ("heard-state-polled-again", "await_task", "if heard is not None and (heard.on or heard.open or heard.latest is not None):", "if heard is not None and heard.on:", "a final state heard while input requests were answered is asked for again with tasks/get when the listen has ended"),
        ("task-not-durable-before-answer", "TaskRunner.start", "            await self.store.put(record)\n", "            pass\n", "a task is answered before the store holds it: tasks/get right after the answer fails"),
        ("task-update-applied-late", "TaskRunner._apply", "            await self.change(record.task_id, status=\"input_required\", input_requests=outstanding)\n", "", "an answered input request stays outstanding after tasks/update acknowledged it"),
        ("task-cancel-not-settled", "TaskRunner.cancel", "        await self.change(task_id, status=\"cancelled\")\n", "", "a cancelled task that never started stays working"),
        ("task-owner-quota-off", "TaskRunner._claim", "        if len(mine) >= self.per_owner:\n", "        if False:\n", "one client's tasks fill the store and exhaust every other client's quota"),
        ("task-ttl-uncapped", "TaskRunner.granted_ttl", "        return min(wanted, self.max_ttl_ms)\n", "        return wanted\n", "a client keeps its task as long as it asks"),
        ("task-owner-unchecked", "TaskRunner._found", "        return record if record is not None and record.owner == owner else None\n", "        return record\n", "one client reads, cancels and answers another client's task"),
        ("task-heard-by-others", "TaskRunner.announce", "            if watch.owner == record.owner:\n", "            if True:\n", "a listener hears another owner's task"),
        ("task-input-unbounded", "TaskRunner._apply", "        if running.answered_bytes + size > self.max_input_bytes:\n", "        if False:\n", "a task holds any amount of answered input"),
        ("task-cancel-stays-local", "TaskRunner.cancel", "            await shared.signal({\"kind\": \"cancel\", \"worker\": self.worker, \"taskId\": task_id})\n", "            pass\n", "a tasks/cancel received by another worker leaves the work running"),
        ("task-notifications-unheard", "await_task", "                elif state and heard is not None:\n", "                elif False:\n", "a listening client polls instead of following the task's notifications"),
        ("task-poll-interval-ignored", "_interval", "    return min(max(seconds, POLL_BOUNDS[0]), POLL_BOUNDS[1])\n", "    return POLL_BOUNDS[1]\n", "a client waits the longest interval whatever the task suggests"),
        ("signals-not-resubscribed", "TaskRunner._hear", "            await asyncio.sleep(SIGNAL_RETRY)\n", "            return\n", "a worker whose signal subscription broke never hears the other workers again"),
        ("gap-not-caught-up", "TaskRunner._hear_once", "                await self._caught_up()\n", "                pass\n", "work another worker cancelled while the signals were down keeps running"),
        ("watch-without-signals", "TaskRunner.watch", "        await self.hear()  # the other workers' changes reach this one's listeners\n", "", "a listener on a worker that started no task hears no other worker's changes"),
        ("update-unapplied-acknowledged", "TaskRunner.update", "        raise ProtocolError(\n            INTERNAL_ERROR,", "        return\n        raise ProtocolError(\n            INTERNAL_ERROR,", "a tasks/update no worker applied is acknowledged while the task still waits"),
    ],
)

RUNTIME_REDIS_TASKS = _group(
    "runtime/redis_tasks.py",
    [
        ("unreadable-signal-breaks-subscription", "_messages", "data = load(message[\"data\"])", "data = json.loads(message[\"data\"])", "a message on the signals channel too deep (or not even text) breaks the worker's subscription"),
    ],
)

RUNTIME_SKILLS = _group(
    "runtime/skills.py",
    [
        ("skill-symlink-escapes", "SkillDirectory._add", "if not real.is_relative_to(inside) or not real.is_file():", "if not real.is_file():", "a symbolic link in a skill serves a file from outside the directory"),
        ("skill-limits-unchecked", "SkillDirectory._add", "if len(resources) >= MAX_RESOURCES or total > MAX_TOTAL_SIZE:", "if False:", "a skill over the specification's limits is mounted"),
        ("skill-name-unchecked", "SkillDirectory._add", 'if found.get("name") != name or not NAME.match(name):', "if False:", "a skill whose frontmatter name is not its folder's (or breaks the naming rule) is served"),
        ("skill-get-any-uri", "SkillDirectory.get_skill", "        if found is None:\n", "        if found is None and False:\n", "skills/get of an unknown URI answers instead of -32602"),
        ("skill-list-no-cache-hints", "SkillDirectory._complete", "        if stateless:\n", "        if False:\n", "skills/list carries no ttlMs/cacheScope on 2026-07-28"),
        ("cursor-any-digits", "_page", "not (cursor.isascii() and cursor.isdigit())", "not cursor.isdigit()", "a cursor of digits int() refuses (\"\u00b2\") is an internal error with a traceback, not -32602"),
        ("skill-resources-not-composed", "SkillDirectory.list_resources", 'result["resources"] = [*result.get("resources", ()), *self._skill_files()]', "pass", "the SKILL.md files are missing from resources/list"),
        ("link-loop-raises", "SkillDirectory._add", "                except (OSError, RuntimeError):  # a loop of links leads to no file\n", "                except OSError:\n", "a loop of links in a skill ends the mount in a RuntimeError"),
        ("stored-entry-shared", "_Skill.entry", "        return copy.deepcopy(\n", "        return (\n", "a mount editing an answer changes what every later client gets"),
    ],
)

RUNTIME_SKILLS_HOST = _group(
    "runtime/skills_host.py",
    [
        ("host-size-unchecked", "SkillsHost._read", "if listed is not None and len(data) != listed.size:", "if False:", "a file of another size than its listing entry is used"),
        ("host-digest-unchecked", "SkillsHost._read", "if listed is not None and digest(data) != listed.digest:", "if False:", "a file whose digest differs from its listing entry is used"),
        ("host-frontmatter-unchecked", "SkillsHost.load", "        if differ:\n", "        if False:\n", "a SKILL.md whose frontmatter differs from the listing entry is used"),
        ("host-unlisted-read", "SkillsHost._read", "if listed is None and entry.resources != \"dynamic\":", "if False:", "a file the skill does not list is read"),
        ("cursor-loop-followed", "SkillsHost.list", "            if page.next_cursor in seen:\n", "            if False:\n", "a server's cursors going round in a loop are followed for a hundred pages"),
        ("listing-unbounded", "SkillsHost.list", "            if len(found) > MAX_SKILLS:\n", "            if False:\n", "a host holds any number of skills a server lists"),
    ],
)

RUNTIME_FRONTMATTER = _group(
    "runtime/frontmatter.py",
    [
        ("frontmatter-unbounded", "_json", "    if budget[0] < 0:\n", "    if False:\n", "an alias bomb expands without bound"),
        ("surrogates-kept", "_text", '        value.encode("utf-8")\n', "        pass\n", "a frontmatter holding a lone surrogate mounts, and every skills/list page holding it fails -32603"),
        ("huge-integers-kept", "_json", "            float(value)  # what a JSON reader takes: a number a float can hold\n", "            pass\n", "a frontmatter integer no client can read back is served"),
        ("same-text-keys-merged", "_json", "        if len(found) < len(value):", "        if False:", "`1:` and `'1':` merge into one key without a word"),
        ("block-unbounded", "frontmatter", "    if len(found.group(1)) > MAX_CHARS:\n", "    if False:\n", "a hostile 16 MiB frontmatter takes minutes and gigabytes to read"),
    ],
)

RUNTIME_MOUNTS = _group(
    "runtime/server.py",
    [
        ("mount-not-first", "ServerEndpoint.peer_message", "            and any(method in m.methods for m in type(self.peer).mounts)\n", "            and False\n", "a method only a mount serves is refused -32601"),
        ("mount-no-declaration", "ServerEndpoint.mounted_capabilities", "            found = mount.declare(found, revision.lifecycle.extensions_key)\n", "            pass\n", "a mounted skill directory is not declared in the handshake"),
    ],
)

MUTANTS: tuple[Mutant, ...] = tuple(
    FRONTEND
    + READER
    + TYPESYS
    + PROTOCOL
    + ROLES
    + NAMING
    + PYSOURCE
    + LITERALS
    + VIEWS
    + PACKAGEVIEWS
    + PROVENANCE
    + STUBVIEWS
    + COMMIT
    + SOURCES
    + DIFF_COMMAND
    + DIFF_LOAD
    + DIFF_IGNORE
    + DIFF_EXTENSIONS
    + TAP_HTTP
    + TAP_CONFIG
    + TAP_JUDGE
    + TAP_TRANSPORT
    + MESSAGES_WIRE
    + MESSAGES_ROUNDTRIP
    + VALIDATE
    + STUBNAMES
    + COPIES
    + EXTENSION
    + EXTENSION_INPUTS
    + EXTENSION_VIEWS
    + ERRATA
    + GENERATE
    + PACKAGE_CACHE
    + FORMATTING
    + PACKAGED_RUNTIME
    + TYPES_TEMPLATE
    + CONVERSATION
    + TAP_LIVE
    + TAP_FRAMING
    + TAP_CHANNEL
    + TAP_REDACT
    + RUNTIME_JSONRPC
    + RUNTIME_REGISTRY
    + RUNTIME_ONEPASS
    + RUNTIME_REVISIONS
    + RUNTIME_CONVERT
    + RUNTIME_PEER
    + RUNTIME_HANDSHAKE
    + RUNTIME_SERVER
    + RUNTIME_HANDLERS
    + RUNTIME_CLIENT
    + RUNTIME_LISTEN
    + RUNTIME_STDIO
    + RUNTIME_HTTP_COMMON
    + RUNTIME_HTTP_SERVER
    + RUNTIME_NEGOTIATION
    + RUNTIME_TASKS
    + RUNTIME_REDIS_TASKS
    + RUNTIME_SKILLS
    + RUNTIME_SKILLS_HOST
    + RUNTIME_FRONTMATTER
    + RUNTIME_MOUNTS
    + RUNTIME_HTTP_GUARD
    + RUNTIME_HTTP_WIRE
    + RUNTIME_HTTP_VERSIONS
    + RUNTIME_HTTP_STREAM
    + RUNTIME_HTTP_SESSION
    + RUNTIME_HTTP_LIFECYCLE
    + RUNTIME_HTTP_SESSION_ERA
    + RUNTIME_HTTP_STATELESS
    + RUNTIME_HTTP_TOOLTABLE
    + RUNTIME_HTTP_CLIENT
    + RUNTIME_AUTH_RESOURCE
    + RUNTIME_FANOUT
    + RUNTIME_AUTH_CLIENT
    + RUNTIME_HTTP_PROTECTION
)
