"""The spec's example corpus as golden files: classify every documented example and round-trip it through the bindings."""

from __future__ import annotations

from ..messages.findings import Finding
from ..messages.targets import Target
from .classify import Classified, classify, classify_revision
from .corpus import Block, all_blocks, doc_blocks, parse_block, seed_blocks, type_examples
from .golden import RevisionReport, golden_differences, run_revision, write_golden
from .verdicts import Outcome, check
from ..messages.bindings import generated_package, import_files
from ..messages.roundtrip import RoundTrip, json_diff, round_trip, same_json
from ..messages.table import Method, MethodTable, method_table
from ..messages.upstream import Upstream, upstream

__all__ = [
    "Block", "Classified", "Finding", "Method", "MethodTable", "Outcome", "RevisionReport", "RoundTrip", "Target",
    "Upstream", "all_blocks", "check", "classify", "classify_revision", "doc_blocks", "generated_package",
    "golden_differences", "import_files", "json_diff", "method_table", "parse_block", "round_trip", "run_revision",
    "same_json", "seed_blocks", "type_examples", "upstream", "write_golden",
]
