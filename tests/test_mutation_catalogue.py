"""The mutation catalogue stays in step with the code: every mutant finds its target and really changes it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from shared import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tests" / "mutation"))

from apply import Stale, build_tree, mutate, package_dirs  # noqa: E402
from mutants import MUTANTS, Mutant  # noqa: E402
from run import check, select  # noqa: E402


def test_every_mutant_finds_its_target_exactly_once() -> None:
    stale = [f"{m.id}: {reason}" for m, reason in check(list(MUTANTS))]
    assert stale == [], "update tests/mutation/mutants.py:\n" + "\n".join(stale)


def test_mutant_ids_are_unique_and_every_mutant_changes_its_file() -> None:
    ids = [m.id for m in MUTANTS]
    assert len(ids) == len(set(ids))
    for m in MUTANTS:
        source = (REPO_ROOT / m.path).read_text("utf-8")
        assert mutate(source, m) != source, m.id


@pytest.mark.parametrize(
    "folder, package", [("generator/", "mcpgen"), ("runtime/http/", "mcpgen/runtime/http")]
)
def test_a_mutant_lands_in_the_copy_only(tmp_path: Path, folder: str, package: str) -> None:
    mutant = next(m for m in MUTANTS if m.path.startswith(folder) and m.path.endswith(".py"))
    original = (REPO_ROOT / mutant.path).read_text("utf-8")
    tree = build_tree(REPO_ROOT, tmp_path, mutant)
    copied = tree / package / mutant.path.removeprefix(folder)
    assert copied.read_text("utf-8") == mutate(original, mutant)
    ast.parse(copied.read_text("utf-8"))
    assert (REPO_ROOT / mutant.path).read_text("utf-8") == original


def test_the_copy_holds_the_runtime_where_mcpgen_imports_it(tmp_path: Path) -> None:
    """pyproject's package-dir maps `mcpgen.runtime` to runtime/: the copy has it where mcpgen imports it."""
    assert package_dirs(REPO_ROOT)["mcpgen.runtime"] == "runtime"
    tree = build_tree(REPO_ROOT, tmp_path, None)
    sources = sorted(
        p.relative_to(REPO_ROOT / "runtime") for p in (REPO_ROOT / "runtime").rglob("*.py")
    )
    assert sources and all(
        (tree / "mcpgen" / "runtime" / path).read_bytes()
        == (REPO_ROOT / "runtime" / path).read_bytes()
        for path in sources
    )
    assert (tree / "mcpgen" / "templates" / "types.py.jinja").is_file()


def test_runtime_mutants_are_chosen_by_id_or_path_prefix() -> None:
    runtime = [m for m in MUTANTS if m.path.startswith("runtime/")]
    assert runtime and select(MUTANTS, ["runtime_"]) == runtime == select(MUTANTS, ["runtime/"])
    http = select(MUTANTS, ["runtime_http"])
    assert http and all(m.path.startswith("runtime/http/") for m in http)
    assert select(MUTANTS, None) == list(MUTANTS)


def test_a_target_that_is_gone_or_ambiguous_is_stale() -> None:
    gone = Mutant("x.gone", "generator/model/ir.py", None, "text that is nowhere\x00", "", "")
    twice = Mutant("x.twice", "generator/model/ir.py", None, "from __future__", "", "")
    broken = Mutant(
        "x.broken", "generator/model/ir.py", None, "from __future__ import annotations", "(", ""
    )
    for mutant, reason in ((gone, "no occurrences"), (broken, "not valid Python")):
        with pytest.raises(Stale, match=reason):
            mutate((REPO_ROOT / mutant.path).read_text("utf-8") + "\n", mutant)
    with pytest.raises(Stale, match="2 occurrences"):
        mutate("from __future__\nfrom __future__\n", twice)
