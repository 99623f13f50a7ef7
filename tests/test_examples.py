"""Golden round trip of every documented example, per-type example and seed example."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from mcpgen.harness.classify import block_key
from mcpgen.harness.corpus import Block, all_blocks, parse_block, strip_comments
from mcpgen.harness.golden import RevisionReport, golden_differences, load_mapping, run_revision
from mcpgen.harness.package import REPO_GENERATED, import_package
from mcpgen.harness.roundtrip import json_diff, same_json
from mcpgen.revisions import KNOWN_REVISIONS

REPO_ROOT = Path(__file__).resolve().parent.parent
GOLDEN = REPO_ROOT / "tests" / "golden"
REGEN = "python -m mcpgen.harness --regen tests/golden"

# Examples the corrected upstream schema rejects although they are typed examples; each is an example bug.
EXAMPLE_BUGS = {
    ("2026-07-28", "examples/ReadResourceResultResponse/read-resource-result-response.json"): (
        "omits cacheScope and ttlMs, required by ReadResourceResult; the raw schema accepts it only "
        "through the open InputRequiredResult branch that erratum input-required-result-type closes"
    ),
}


@lru_cache(maxsize=None)
def _report(schema_dir: Path, revision: str) -> RevisionReport:
    package = import_package(revision, REPO_GENERATED, schema_dir)
    return run_revision(schema_dir, revision, package, load_mapping(REPO_ROOT))


@pytest.fixture(params=KNOWN_REVISIONS)
def report(request: pytest.FixtureRequest, schema_dir: Path) -> RevisionReport:
    """The harness outcome of one revision, through the repository's generated package."""
    return _report(schema_dir, request.param)


def test_outcomes_match_golden_files(report: RevisionReport) -> None:
    diffs = golden_differences(report, GOLDEN)
    assert not diffs, f"outcomes differ from the golden file (after review, regenerate with `{REGEN}`):\n" + "\n".join(diffs)


def test_no_block_fails_the_round_trip(report: RevisionReport) -> None:
    failures = [f"{o.key} [{o.definition}] {o.outcome}" for o in report.outcomes if o.failure]
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


def test_same_json_tells_int_float_and_bool_apart() -> None:
    assert same_json({"a": [1, "x", None]}, {"a": [1, "x", None]})
    assert not same_json(1, 1.0)
    assert not same_json(True, 1)
    assert not same_json({"a": 1}, {"a": 1, "b": None})
    assert json_diff({"a": 1, "b": 2}, {"a": 1.0}) == ["/a: 1 became 1.0", "/b: dropped 2"]


def test_comments_are_stripped_outside_strings_only() -> None:
    text = '{"url": "http://x//y", /* c */ "n": 1 // tail\n}'
    assert json.loads(strip_comments(text)) == {"url": "http://x//y", "n": 1}
    block = Block("doc-examples", "2025-06-18", "x.jsonc", "p", (), None, False, '{"a": [...]}')
    assert parse_block(block).skip == "not JSON: '...' placeholder"
