"""The wire data of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640) as pydantic
models: the extension publishes no JSON Schema for the generator to read, so they are written here
after its specification (`modelcontextprotocol/ext-skills`, `specification/stable/skills.mdx`)."""

from __future__ import annotations

import hashlib
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, StrictStr

IDENTIFIER = "io.modelcontextprotocol/skills"
"""The extension's identifier under `capabilities.extensions`."""
LIST_SKILLS, GET_SKILL, READ_DIRECTORY = "skills/list", "skills/get", "resources/directory/read"
"""The methods the extension adds."""
READ_RESOURCE, LIST_RESOURCES, LIST_TEMPLATES = (
    "resources/read",
    "resources/list",
    "resources/templates/list",
)
"""The core methods of the `resources` capability a skills server declares."""
DIRECTORY_MIME_TYPE = "inode/directory"
"""The `mimeType` of a directory's entry in `resources/directory/read`."""
SKILL_FILE = "SKILL.md"
MAX_RESOURCES = 512
"""The most files one skill may hold (the specification's limit)."""
MAX_TOTAL_SIZE = 16 * 1024 * 1024
"""The most bytes one skill's files may hold together (the specification's limit)."""


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class SkillResource(_Wire):
    """One file of a skill as its listing entry states it: what a host verifies the file against."""

    uri: StrictStr
    digest: StrictStr = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    size: NonNegativeInt


class SkillEntry(_Wire):
    """A skill as `skills/list` and `skills/get` describe it."""

    uri: StrictStr
    frontmatter: dict[str, Any]
    resources: Union[list[SkillResource], Literal["dynamic"]]

    @property
    def name(self) -> Any:
        """The skill's name (its frontmatter's)."""
        return self.frontmatter.get("name")


class ListSkillsParams(_Wire):
    """The params of `skills/list`."""

    cursor: StrictStr | None = None


class ListSkillsResult(_Wire):
    """The result of `skills/list`: a page of skills."""

    skills: list[SkillEntry]
    next_cursor: StrictStr | None = Field(default=None, alias="nextCursor")


class GetSkillParams(_Wire):
    """The params of `skills/get`: the skill's SKILL.md URI."""

    uri: StrictStr


class GetSkillResult(_Wire):
    """The result of `skills/get`."""

    skill: SkillEntry


class ReadDirectoryParams(_Wire):
    """The params of `resources/directory/read`: a directory's URI (no trailing slash)."""

    uri: StrictStr
    cursor: StrictStr | None = None


def digest(data: bytes) -> str:
    """The `digest` of a file's bytes: `sha256:` and the lowercase hex SHA-256."""
    return "sha256:" + hashlib.sha256(data).hexdigest()
