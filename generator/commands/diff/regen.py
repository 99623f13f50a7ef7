"""Rewrite tests/golden/diff/<old>_<new>.json for each consecutive pair of pinned revisions, and for the
drift of each extension pair (a revision against an extension's copies of its definitions).

Run from the repository root: `python -m mcpgen.commands.diff.regen [--schema-dir DIR]`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ...inputs.pins import known_revisions
from .compare import diff_revisions
from .pair import load_pair
from .report import render_json

GOLDEN_DIR = Path("tests") / "golden" / "diff"
EXTENSION_PAIRS = (("2025-11-25", "tasks"), ("2026-07-28", "tasks"))
"""Revision → extension pairs whose drift has a golden report: the tasks extension against the revision
whose own tasks it replaces, and against the revision it was cut from."""


def consecutive_pairs() -> list[tuple[str, str]]:
    """(older, newer) for every two neighbouring pinned revisions."""
    revs = known_revisions()
    return list(zip(revs, revs[1:]))


def golden_path(root: Path, old: str, new: str) -> Path:
    """Where the golden report of one pair lives."""
    return root / GOLDEN_DIR / f"{old}_{new}.json"


def main(argv: list[str] | None = None) -> None:
    """Regenerate every golden diff report."""
    parser = argparse.ArgumentParser(prog="python -m mcpgen.commands.diff.regen", description=__doc__)
    parser.add_argument("--schema-dir", type=Path, default=None)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root (default: current directory)")
    args = parser.parse_args(argv)
    schema_dir = args.schema_dir or (Path(os.environ["MCPGEN_SCHEMA_DIR"]) if os.environ.get("MCPGEN_SCHEMA_DIR") else None)
    for old, new in [*consecutive_pairs(), *EXTENSION_PAIRS]:
        report = diff_revisions(*load_pair(old, new, schema_dir))
        path = golden_path(args.root, old, new)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_json(report), encoding="utf-8")
        print(f"{path}: {report.counts()['changes']} changes ({report.counts()['cosmetic']} cosmetic)")


if __name__ == "__main__":
    main()
