"""Golden round trip of every documented example, per-type example and seed example, through the
package the code under test generates, with oracles read from the upstream schema."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from mcpgen.examples.classify import block_key
from mcpgen.examples.corpus import Block, all_blocks, parse_block, strip_comments
from mcpgen.examples.golden import RevisionReport, golden_differences, load_mapping, run_revision
from mcpgen.messages.bindings import generated_package
from mcpgen.messages.roundtrip import json_diff, same_json
from mcpgen.messages.table import read_table
from mcpgen.examples.unions import tagged_unions
from mcpgen.inputs.pins import KNOWN_REVISIONS

REPO_ROOT = Path(__file__).resolve().parent.parent
GOLDEN = REPO_ROOT / "tests" / "golden"
REGEN = "python -m mcpgen.examples --regen tests/golden"

# Examples the corrected upstream schema rejects although they are typed examples; each is an example bug.
EXAMPLE_BUGS = {
    ("2026-07-28", "examples/ReadResourceResultResponse/read-resource-result-response.json"): (
        "omits cacheScope and ttlMs, required by ReadResourceResult; the raw schema accepts it only "
        "through the open InputRequiredResult branch that erratum input-required-result-type closes"
    ),
}

# Deliberate generator breaks, run in a child process before mcpgen's CLI (the package cache is off there).
BREAKS = {
    "swapped-list-results": (
        "import mcpgen.model.roles as roles\n"
        "pair = roles.pair_result\n"
        "swap = {'ListResourcesRequest': 'ListResourceTemplatesRequest', 'ListResourceTemplatesRequest': 'ListResourcesRequest'}\n"
        "roles.pair_result = lambda model, defs, *rest: pair(defs[swap.get(model.name, model.name)], defs, *rest)\n"
    ),
    "number-as-float": (
        "import mcpgen.emit.pysource as pysource, mcpgen.emit.views as views\n"
        "annotation = pysource.annotation\n"
        "def as_float(t, sym, prefix='', core=''):\n"
        "    return 'float' if type(t).__name__ == 'Primitive' and t.name == 'number' else annotation(t, sym, prefix, core)\n"
        "pysource.annotation = views.annotation = as_float\n"
    ),
    "no-discriminators": "import mcpgen.model.protocol as protocol\nprotocol._discriminator = lambda members, defs: None\n",
}


def run_broken(generator_break: str, entry: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `entry` (a `module:function` CLI) with `args` in a child process whose generator is broken on purpose."""
    module, function = entry.split(":")
    code = f"{BREAKS[generator_break]}from {module} import {function}\n{function}()\n"
    env = {**os.environ, "MCPGEN_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@lru_cache(maxsize=None)
def _report(schema_dir: Path, revision: str) -> RevisionReport:
    return run_revision(schema_dir, revision, generated_package(revision, schema_dir), load_mapping(REPO_ROOT))


@pytest.fixture(params=KNOWN_REVISIONS)
def report(request: pytest.FixtureRequest, schema_dir: Path) -> RevisionReport:
    """The harness outcome of one revision, through the package the code under test generates."""
    return _report(schema_dir, request.param)


def test_outcomes_match_golden_files(report: RevisionReport) -> None:
    diffs = golden_differences(report, GOLDEN)
    assert not diffs, f"outcomes differ from the golden file (after review, regenerate with `{REGEN}`):\n" + "\n".join(diffs)


def test_no_block_fails_the_round_trip(report: RevisionReport) -> None:
    failures = [f"{o.key} [{o.definition}] {o.outcome}" for o in report.outcomes if o.failure]
    assert not failures, "\n".join(failures)


def test_method_registry_and_tagged_unions_match_the_schema(report: RevisionReport) -> None:
    assert {o.key.split("/", 1)[0] for o in report.bindings} == {"methods", "unions"}
    failures = [f"{o.key} [{o.definition}] {o.outcome}" for o in report.bindings if o.failure]
    assert not failures, "\n".join(failures)


def test_every_strict_json_block_is_classified(report: RevisionReport) -> None:
    strict = [o for o in report.outcomes if o.key in report.strict_keys]
    assert strict
    assert [o.key for o in strict if o.definition is None and not o.outcome.startswith("skipped: not an MCP schema type")] == []


def test_typed_and_seed_examples_round_trip_exactly(report: RevisionReport) -> None:
    typed = [o for o in report.outcomes if not o.key.startswith("doc-examples/")]
    bad = [f"{o.key}: {o.outcome}" for o in typed if o.outcome != "exact" and (report.revision, o.key) not in EXAMPLE_BUGS]
    assert not bad, "\n".join(bad)
    for (revision, key) in EXAMPLE_BUGS:
        if revision == report.revision:
            assert next(o for o in typed if o.key == key).outcome.startswith("schema-rejects:")


def test_corpus_counts(schema_dir: Path) -> None:
    counts = {r: sum(1 for o in _report(schema_dir, r).outcomes if o.key.startswith("examples/")) for r in KNOWN_REVISIONS}
    assert counts["2026-07-28"] == 129
    seeds = sum(1 for r in KNOWN_REVISIONS for o in _report(schema_dir, r).outcomes if o.key.startswith("seed-examples/"))
    assert seeds == len(json.loads((schema_dir.parent / "seed-examples" / "index.json").read_text("utf-8")))


def test_every_map_entry_names_a_block_and_a_definition(schema_dir: Path) -> None:
    mapping = load_mapping(REPO_ROOT)
    for revision, entries in mapping.items():
        keys = {block_key(b) for b in all_blocks(schema_dir, revision)}
        assert set(entries) <= keys, sorted(set(entries) - keys)
        for key, entry in entries.items():
            assert ("skip" in entry) != ("definition" in entry), key
            assert entry.get("reason") or entry.get("skip"), key


@pytest.mark.parametrize(
    ("generator_break", "expected"),
    [
        ("swapped-list-results", ["methods/resources/list [ListResourcesRequest] FAIL: result is ListResourceTemplatesResult", "doc-examples/server/resources/06.json [ListResourcesResult] FAIL"]),
        ("number-as-float", ["doc-examples/basic/utilities/progress/02.json [ProgressNotification] FAIL", "50 became 50.0"]),
        ("no-discriminators", ["unions/ContentBlock [ContentBlock] FAIL: mcpgen does not dispatch on 'type'", "unions/ClientRequest [ClientRequest] FAIL"]),
    ],
)
def test_a_broken_generator_fails_the_harness(generator_break: str, expected: list[str], schema_dir: Path, tmp_path: Path) -> None:
    result = run_broken(generator_break, "mcpgen.examples.__main__:main", ["--failures", "--revision", "2025-06-18", "--schema-dir", str(schema_dir)], tmp_path)
    assert result.returncode == 1, result.stderr
    for text in expected:
        assert text in result.stdout, f"{text!r} not reported:\n{result.stdout}{result.stderr}"


def test_method_table_comes_from_role_unions_result_names_and_pairings() -> None:
    obj = {"type": "object"}
    defs = {
        "JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/Req"}, {"$ref": "#/$defs/Note"}, {"$ref": "#/$defs/Res"}, {"$ref": "#/$defs/Err"},
                                     {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/Req"}, {"$ref": "#/$defs/Note"}]}}]},
        "Req": {**obj, "required": ["jsonrpc", "id", "method"]},
        "Note": {**obj, "required": ["jsonrpc", "method"]},
        "Res": {**obj, "required": ["jsonrpc", "id", "result"]},
        "Err": {**obj, "required": ["jsonrpc", "id", "error"]},
        "ClientRequest": {"anyOf": [{"$ref": "#/$defs/CallToolRequest"}, {"$ref": "#/$defs/PingRequest"}, {"$ref": "#/$defs/ListThingsRequest"}]},
        "ServerRequest": {"$ref": "#/$defs/PingRequest"},
        "ClientNotification": {"properties": {"method": {"const": "notifications/cancelled"}}},  # an inlined copy
        "InputRequest": {"anyOf": [{"$ref": "#/$defs/ElicitRequest"}]},
        "CallToolRequest": {"properties": {"method": {"const": "tools/call"}}},
        "CallToolResultResponse": {"properties": {"result": {"anyOf": [{"$ref": "#/$defs/InputRequiredResult"}, {"$ref": "#/$defs/CallToolResult"}]}}},
        "PingRequest": {"properties": {"method": {"const": "ping"}}},
        "ListThingsRequest": {"properties": {"method": {"enum": ["things/list"]}}},
        "ListThingsResult": obj,
        "ElicitRequest": {"properties": {"method": {"const": "elicitation/create"}}},
        "ElicitResult": obj,
        "CancelledNotification": {"properties": {"method": {"const": "notifications/cancelled"}}},
    }
    table = read_table(defs)
    call, ping, things = table.methods["tools/call"], table.methods["ping"], table.methods["things/list"]
    assert (call.results, call.response) == (("CallToolResult", "InputRequiredResult"), "CallToolResultResponse")
    assert (ping.senders, ping.results) == (frozenset({"client", "server"}), ("EmptyResult",))  # schema/pairings.json
    assert (things.results, things.response) == (("ListThingsResult",), None)
    cancelled = table.methods["notifications/cancelled"]
    assert (cancelled.message, cancelled.kind, cancelled.results) == ("CancelledNotification", "notification", ())
    assert table.methods["elicitation/create"].embedded and not call.embedded
    env = table.envelope
    assert (env.request, env.notification, env.result, env.error) == ("Req", "Note", "Res", "Err")
    assert env.batches == (frozenset({"Req", "Note"}),)


def test_tagged_unions_need_distinct_required_constants() -> None:
    def tagged(type_value: object, **extra: object) -> dict[str, object]:
        return {"type": "object", "properties": {"type": {"const": type_value}, "text": {"type": "string"}}, "required": ["type"], **extra}

    defs = {
        "A": tagged("a"), "B": tagged("b"), "AlsoA": tagged("a"), "Loose": {"properties": {"type": {"const": "c"}}},
        "Block": {"anyOf": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}]},
        "Holder": {"properties": {
            "one": {"$ref": "#/definitions/Block"},
            "many": {"items": {"anyOf": [{"$ref": "#/definitions/Block"}, tagged("inline")]}},
            "either": {"anyOf": [{"$ref": "#/definitions/Block"}, {"type": "array"}]},
            "clash": {"anyOf": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/AlsoA"}]},
            "optional": {"anyOf": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/Loose"}]},
        }},
    }
    found = {(u.definition, u.path): u.tags for u in tagged_unions(defs)}
    assert found == {("Block", ()): ("type",), ("Holder", ("many", 0)): ("type",), ("Holder", ("either",)): ("type",)}


def test_examples_messages_and_validate_define_nothing_unused() -> None:
    sources = [*(REPO_ROOT / "generator").rglob("*.py"), *(REPO_ROOT / "tests").glob("*.py")]
    text = "\n".join(p.read_text("utf-8") for p in sources)
    generator = REPO_ROOT / "generator"
    mine = [
        *(generator / "examples").glob("*.py"),
        *(generator / "messages").glob("*.py"),
        generator / "commands" / "validate.py",
    ]
    unused = []
    for path in mine:
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and len(re.findall(rf"\b{node.name}\b", text)) < 2:
                unused.append(f"{path.relative_to(REPO_ROOT)}: {node.name}")
    assert unused == []


def test_same_json_tells_int_float_and_bool_apart() -> None:
    assert same_json({"a": [1, "x", None]}, {"a": [1, "x", None]})
    assert not same_json(1, 1.0)
    assert not same_json(True, 1)
    assert not same_json({"a": 1}, {"a": 1, "b": None})
    assert json_diff({"a": 1, "b/c": 2}, {"a": 1.0}) == [("/a", "1 became 1.0"), ("/b~1c", "dropped 2")]


def test_comments_are_stripped_outside_strings_only() -> None:
    text = '{"url": "http://x//y", /* c */ "n": 1 // tail\n}'
    assert json.loads(strip_comments(text)) == {"url": "http://x//y", "n": 1}
    block = Block("doc-examples", "2025-06-18", "x.jsonc", "p", (), None, False, '{"a": [...]}')
    assert parse_block(block).skip == "not JSON: '...' placeholder"
