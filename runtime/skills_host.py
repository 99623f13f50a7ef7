"""A host's side of skills (SEP-2640): list a server's skills, load one only when asked (its SKILL.md
read then, never on connecting or listing), read a supporting file only when asked, and verify every
file against the listing entry (size, digest; the SKILL.md's frontmatter too) before handing it out.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from dataclasses import dataclass
from typing import Any, Mapping

from pydantic import ValidationError

from .convert import dump
from .frontmatter import FrontmatterError, frontmatter
from .jsonrpc import INVALID_PARAMS, ProtocolError, error_details
from .skill_types import LIST_SKILLS, MAX_TOTAL_SIZE, ListSkillsResult, SkillEntry, digest

MAX_PAGES = 100
"""The most `skills/list` pages a listing follows."""
MAX_SKILLS = 10_000
"""The most skills a listing holds."""


class SkillVerificationError(Exception):
    """A skill file that does not match its listing entry (size, digest or frontmatter): not to be used."""


@dataclass(frozen=True)
class LoadedSkill:
    """A skill whose SKILL.md was read and verified against its listing entry."""

    entry: SkillEntry
    text: str
    """The SKILL.md, frontmatter included."""
    frontmatter: dict[str, Any]


class SkillsHost:
    """The skills of the server `client` is connected to (a generated Client with a session)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def list(self) -> list[SkillEntry]:
        """Every skill `skills/list` lists (following its pages); no skill file is read."""
        found: list[SkillEntry] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {} if cursor is None else {"cursor": cursor}
            raw = await self._request(LIST_SKILLS, params)
            try:
                page = ListSkillsResult.model_validate(raw)
            except ValidationError as exc:
                raise ProtocolError(
                    INVALID_PARAMS, "Invalid skills/list result", error_details(exc)
                ) from None
            found += page.skills
            if len(found) > MAX_SKILLS:
                raise ProtocolError(
                    INVALID_PARAMS, f"skills/list lists more than {MAX_SKILLS} skills"
                )
            if not page.next_cursor or page.next_cursor == cursor:
                return found
            if page.next_cursor in seen:
                raise ProtocolError(INVALID_PARAMS, "skills/list gave a cursor it gave before")
            seen.add(page.next_cursor)
            cursor = page.next_cursor
        raise ProtocolError(INVALID_PARAMS, f"skills/list went on for more than {MAX_PAGES} pages")

    async def load(self, entry: SkillEntry) -> LoadedSkill:
        """Read the skill's SKILL.md and verify its size, digest and frontmatter against `entry`;
        SkillVerificationError when any differs."""
        data = await self._read(entry, entry.uri)
        try:
            text = data.decode("utf-8")
            found = await asyncio.to_thread(frontmatter, text)  # pure-Python YAML: not on the loop
        except (UnicodeDecodeError, FrontmatterError) as exc:
            raise SkillVerificationError(f"{entry.uri}: {exc}") from None
        differ = sorted(
            k for k in {*found, *entry.frontmatter} if found.get(k) != entry.frontmatter.get(k)
        )
        if differ:
            raise SkillVerificationError(
                f"{entry.uri}: frontmatter differs from the listing entry in {differ}"
            )
        return LoadedSkill(entry, text, found)

    async def read(self, skill: LoadedSkill, uri: str) -> bytes:
        """A supporting file of a loaded skill, verified against its listing entry."""
        return await self._read(skill.entry, uri)

    async def _read(self, entry: SkillEntry, uri: str) -> bytes:
        """`resources/read` of one of `entry`'s files: its bytes, once their size and digest match the
        entry's (a "dynamic" entry lists none: the bytes are only bounded)."""
        listed = (
            None
            if entry.resources == "dynamic"
            else next((r for r in entry.resources if r.uri == uri), None)
        )
        if listed is None and entry.resources != "dynamic":
            raise SkillVerificationError(f"{uri} is not a file of skill {entry.uri}")
        result = dump(await self.client._mcp.call("resources/read", {"uri": uri}))
        contents = result.get("contents") if isinstance(result, Mapping) else None
        content = next(
            (c for c in contents or () if isinstance(c, Mapping) and c.get("uri") == uri), None
        )
        if content is None:
            raise SkillVerificationError(f"{uri}: the server sent no content for it")
        data = _bytes(content)
        if listed is not None and len(data) != listed.size:
            raise SkillVerificationError(
                f"{uri}: {len(data)} bytes, the listing entry says {listed.size}"
            )
        if listed is not None and digest(data) != listed.digest:
            raise SkillVerificationError(f"{uri}: digest differs from the listing entry")
        if len(data) > MAX_TOTAL_SIZE:
            raise SkillVerificationError(f"{uri}: larger than a skill may be")
        return data

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request of a method outside the core schema, with what the revision's requests carry."""
        endpoint = self.client._mcp
        wire = endpoint.outgoing_params(endpoint.revision(), method, params)
        return await self.client.send_request(method, wire)


def _bytes(content: Mapping[str, Any]) -> bytes:
    """The bytes a resource content carries: its text's UTF-8, or its decoded blob."""
    try:
        if isinstance(content.get("text"), str):
            return str(content["text"]).encode("utf-8")
        return base64.b64decode(str(content.get("blob")), validate=True)
    except (binascii.Error, ValueError):
        raise SkillVerificationError(
            f"{content.get('uri')}: neither text nor a base64 blob"
        ) from None
