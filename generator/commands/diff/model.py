"""What a diff reports: one frozen Change per difference, gathered in a Report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Impact = Literal["breaking", "compatible"]
Category = Literal["envelope", "method", "capability", "definition", "field", "deprecation"]

# Render and sort order of the categories.
CATEGORIES: tuple[Category, ...] = ("envelope", "method", "capability", "definition", "field", "deprecation")
JSON_FORMAT = "mcpgen-diff/2"


@dataclass(frozen=True)
class Change:
    """One difference between two revisions, with its impact on an OLD client and an OLD server.

    `kind` is the rule id; `old`/`new` are JSON values (a schema node, a name, a list of sides);
    `where` lists the other definitions one change of a shared shape applies to.
    """

    category: Category
    kind: str
    subject: str
    detail: str
    client: Impact
    server: Impact
    old: Any = None
    new: Any = None
    direction: str | None = None
    cosmetic: bool = False
    where: tuple[str, ...] = ()

    @property
    def breaking(self) -> bool:
        """True when the change breaks a client or a server written against OLD."""
        return "breaking" in (self.client, self.server)

    def sort_key(self) -> tuple[int, str, str, str]:
        """Stable report order: category, subject, kind, detail."""
        return (CATEGORIES.index(self.category), self.subject, self.kind, self.detail)


@dataclass(frozen=True)
class Side:
    """One compared revision: its name, the sha256 of its schema and the errata applied to it."""

    revision: str
    sha256: str
    errata: tuple[str, ...] = ()


@dataclass(frozen=True)
class ErratumNote:
    """An erratum (mcpgen's correction of an upstream defect) applied to one side only: the changes at
    its definitions compare a corrected schema with one as upstream wrote it."""

    id: str
    applied_to: Literal["old", "new"]
    revision: str
    definitions: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Report:
    """Every change between OLD and NEW in report order, and the errata applied to one side only."""

    old: Side
    new: Side
    changes: tuple[Change, ...]
    ignored: int = 0
    errata: tuple[ErratumNote, ...] = ()

    def visible(self, verbose: bool) -> tuple[Change, ...]:
        """The changes shown to a reader: cosmetic ones only when verbose."""
        return tuple(c for c in self.changes if verbose or not c.cosmetic)

    def counts(self) -> dict[str, int]:
        """Totals for the summary line and the JSON `summary` object."""
        real = [c for c in self.changes if not c.cosmetic]
        return {
            "changes": len(real),
            "cosmetic": len(self.changes) - len(real),
            "breaking_client": sum(c.client == "breaking" for c in real),
            "breaking_server": sum(c.server == "breaking" for c in real),
            "breaking": sum(c.breaking for c in real),
            "ignored": self.ignored,
        }
