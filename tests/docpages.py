"""The documentation as tests read it: README.md and the site's pages in docs/, their sections and
their ```python blocks, each with the mark the comment line before it gives (what covers it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shared import REPO_ROOT

DOCS = REPO_ROOT / "docs"
README = REPO_ROOT / "README.md"
_MARK = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is, its code, and its mark ("" when the line before is no comment)."""

    document: Path
    line: int
    code: str
    mark: str

    @property
    def where(self) -> str:
        """`path:line` of the fence, relative to the repository."""
        return f"{self.document.relative_to(REPO_ROOT)}:{self.line}"

    @property
    def runner(self) -> str | None:
        """The test file a `run: tests/FILE.py` mark names."""
        return self.mark.split(":", 1)[1].strip() if self.mark.startswith("run:") else None


def documents() -> list[Path]:
    """README.md and every Markdown page of the site (the hooks' folder holds no page)."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "plugins" not in p.relative_to(DOCS).parts)
    return [README, *pages]


def page(name: str) -> Path:
    """A page of docs/ by its file name (`http.md`)."""
    path = DOCS / name
    assert path.is_file(), f"docs/{name} is missing"
    return path


def blocks(document: Path) -> list[Block]:
    """Every ```python block of a document, in order, indented ones included."""
    lines = document.read_text("utf-8").splitlines()
    found = []
    index = 0
    while index < len(lines):
        fence = lines[index]
        if fence.strip().startswith("```python"):
            indent = len(fence) - len(fence.lstrip())
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            code = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
            before = _MARK.match(lines[index - 1]) if index > 0 else None
            found.append(Block(document, index + 1, code, before.group(1) if before else ""))
            index = end
        index += 1
    return found


def run_by(test_file: str, document: Path) -> list[str]:
    """The code of the blocks of `document` marked as run by `test_file` (a path from the repository root)."""
    return [block.code for block in blocks(document) if block.runner == test_file]


def section(document: Path, heading: str) -> str:
    """The text under a heading (any level, matched exactly) up to the next heading of its level or above."""
    text = document.read_text("utf-8")
    found = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    assert found, f"{document.name} has no heading {heading!r}"
    level = len(found.group(1))
    rest = text[found.end() :]
    following = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: following.start()] if following else rest
