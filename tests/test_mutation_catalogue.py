"""The mutation catalogue stays in step with the code: every mutant finds its target and really changes it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from shared import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tests" / "mutation"))

from apply import Stale, build_tree, mutate  # noqa: E402
from mutants import MUTANTS, Mutant  # noqa: E402
from run import check  # noqa: E402


def test_every_mutant_finds_its_target_exactly_once() -> None:
    stale = [f"{m.id}: {reason}" for m, reason in check(list(MUTANTS))]
    assert stale == [], "update tests/mutation/mutants.py:\n" + "\n".join(stale)


def test_mutant_ids_are_unique_and_every_mutant_changes_its_file() -> None:
    ids = [m.id for m in MUTANTS]
    assert len(ids) == len(set(ids))
    for m in MUTANTS:
        source = (REPO_ROOT / m.path).read_text("utf-8")
        assert mutate(source, m) != source, m.id


def test_a_mutant_lands_in_the_copy_only(tmp_path: Path) -> None:
    mutant = next(m for m in MUTANTS if m.path.endswith(".py"))
    original = (REPO_ROOT / mutant.path).read_text("utf-8")
    tree = build_tree(REPO_ROOT, tmp_path, mutant)
    copied = tree / "mcpgen" / mutant.path.partition("/")[2]
    assert copied.read_text("utf-8") == mutate(original, mutant)
    ast.parse(copied.read_text("utf-8"))
    assert (REPO_ROOT / mutant.path).read_text("utf-8") == original


def test_a_target_that_is_gone_or_ambiguous_is_stale() -> None:
    gone = Mutant("x.gone", "generator/model/ir.py", None, "text that is nowhere\x00", "", "")
    twice = Mutant("x.twice", "generator/model/ir.py", None, "from __future__", "", "")
    broken = Mutant("x.broken", "generator/model/ir.py", None, "from __future__ import annotations", "(", "")
    for mutant, reason in ((gone, "no occurrences"), (broken, "not valid Python")):
        with pytest.raises(Stale, match=reason):
            mutate((REPO_ROOT / mutant.path).read_text("utf-8") + "\n", mutant)
    with pytest.raises(Stale, match="2 occurrences"):
        mutate("from __future__\nfrom __future__\n", twice)
