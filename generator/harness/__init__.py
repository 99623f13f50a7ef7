"""Golden round-trip harness: classify every documented example and round-trip it through the bindings."""

from __future__ import annotations

from .check import Finding, Outcome, check
from .classify import Classified, Target, classify, classify_revision
from .corpus import Block, all_blocks, doc_blocks, parse_block, seed_blocks, type_examples
from .golden import RevisionReport, golden_differences, run_revision, write_golden
from .package import generated_package, import_files
from .roundtrip import RoundTrip, json_diff, round_trip, same_json
from .table import Method, MethodTable, method_table
from .upstream import Upstream, upstream

__all__ = [
    "Block", "Classified", "Finding", "Method", "MethodTable", "Outcome", "RevisionReport", "RoundTrip", "Target",
    "Upstream", "all_blocks", "check", "classify", "classify_revision", "doc_blocks", "generated_package",
    "golden_differences", "import_files", "json_diff", "method_table", "parse_block", "round_trip", "run_revision",
    "same_json", "seed_blocks", "type_examples", "upstream", "write_golden",
]
