"""Run the harness over a revision, write and compare golden files, summarise the outcomes."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

from .verdicts import EXACT, Outcome, check
from .classify import block_key, classify_revision
from .corpus import all_blocks
from .registry import KEY_PREFIX as METHODS
from .registry import registry_outcomes
from ..messages.table import method_table
from .unions import KEY_PREFIX as UNIONS
from .unions import union_outcomes
from ..messages.upstream import upstream

GOLDEN_NAME = "examples.json"
MAP_PATH = Path("tests") / "doc_examples_map.json"
REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class RevisionReport:
    """Every block outcome of one revision in corpus order, then the outcomes of its method registry and unions."""

    revision: str
    outcomes: tuple[Outcome, ...]
    strict_keys: frozenset[str]
    bindings: tuple[Outcome, ...]

    def golden(self) -> dict[str, Any]:
        """The golden file content: block key → definition and outcome, and the same for the bindings."""
        return {
            "revision": self.revision,
            "blocks": {o.key: o.as_golden() for o in self.outcomes},
            "bindings": {o.key: o.as_golden() for o in self.bindings},
        }

    def summary(self) -> dict[str, Any]:
        """Counts: blocks, classified, exact, schema-rejects, skipped by reason, failures, unclassified."""
        sources = Counter(o.key.split("/", 1)[0] for o in self.outcomes)
        skipped = Counter(o.outcome.removeprefix("skipped: ") for o in self.outcomes if o.outcome.startswith("skipped: "))
        return {
            "revision": self.revision,
            "blocks": len(self.outcomes),
            "by_source": dict(sources),
            "strict_json": len(self.strict_keys),
            "classified": sum(1 for o in self.outcomes if o.definition),
            "exact": sum(1 for o in self.outcomes if o.outcome == EXACT),
            "schema_rejects": sum(1 for o in self.outcomes if o.outcome.startswith("schema-rejects")),
            "skipped": dict(skipped),
            "unclassified": sum(1 for o in self.outcomes if o.outcome.startswith("unclassified")),
            "failures": sum(1 for o in self.outcomes if o.failure),
            "methods": sum(1 for o in self.bindings if o.key.startswith(METHODS)),
            "unions": sum(1 for o in self.bindings if o.key.startswith(UNIONS)),
            "binding_failures": sum(1 for o in self.bindings if o.failure),
        }


def run_revision(schema_dir: Path, revision: str, package: ModuleType, mapping: Mapping[str, Any]) -> RevisionReport:
    """Check every example block of `revision` through `package`, then its method registry and unions."""
    blocks = all_blocks(schema_dir, revision)
    schema = upstream(schema_dir, revision)
    outcomes = tuple(check(c, block_key(c.block), schema, package) for c in classify_revision(schema_dir, revision, blocks, mapping))
    strict = frozenset(block_key(b) for b in blocks if b.strict)
    bindings = (*registry_outcomes(method_table(schema_dir, revision), package), *union_outcomes(schema.definitions, package))
    return RevisionReport(revision, outcomes, strict, bindings)


def golden_path(golden_dir: Path, revision: str) -> Path:
    """`<golden_dir>/<revision>/examples.json`."""
    return golden_dir / revision / GOLDEN_NAME


def write_golden(report: RevisionReport, golden_dir: Path) -> Path:
    """Write a revision's golden file and return its path."""
    path = golden_path(golden_dir, report.revision)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.golden(), indent=1, ensure_ascii=False) + "\n", "utf-8")
    return path


def golden_differences(report: RevisionReport, golden_dir: Path) -> list[str]:
    """Every block whose outcome differs from the golden file, one line each."""
    path = golden_path(golden_dir, report.revision)
    if not path.is_file():
        return [f"{path}: missing golden file"]
    golden = json.loads(path.read_text("utf-8"))
    out: list[str] = []
    for section, got in report.golden().items():
        if section == "revision":
            continue
        want = golden.get(section, {})
        out.extend(f"{k}: golden {want[k]} but now {got.get(k, 'absent')}" for k in want if want[k] != got.get(k))
        out.extend(f"{k}: not in golden file, now {got[k]}" for k in got if k not in want)
    return out


def load_mapping(repo_root: Path = REPO_ROOT) -> dict[str, Any]:
    """The reviewed fragment map of the repository (`tests/doc_examples_map.json`)."""
    path = repo_root / MAP_PATH
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}
