"""Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640) served from a directory: a server
class mounts `SkillDirectory(path)` (`mounts = (SkillDirectory("skills"),)`) and declares the extension,
answers `skills/list`, `skills/get` and `resources/directory/read`, lists each SKILL.md in
`resources/list` and serves the `skill://` files in `resources/read`, beside its own resources.

Each folder of the directory holding a SKILL.md is a skill, named by its frontmatter (which must equal
the folder's name); all its files, subfolders included, are its resources. The files are read once,
when the directory is mounted: what is served is exactly what was digested, a request never touches
the file system (no URI reaches outside the directory, whatever its dots, slashes or percent-escapes),
and a symbolic link is followed only to a file inside the skill's own folder.
"""

from __future__ import annotations

import base64
import copy
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Awaitable, Callable, Mapping, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from .frontmatter import frontmatter
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, ProtocolError, error_details
from .skill_types import (
    DIRECTORY_MIME_TYPE,
    GET_SKILL,
    IDENTIFIER,
    LIST_RESOURCES,
    LIST_SKILLS,
    LIST_TEMPLATES,
    MAX_RESOURCES,
    MAX_TOTAL_SIZE,
    READ_DIRECTORY,
    READ_RESOURCE,
    SKILL_FILE,
    GetSkillParams,
    ListSkillsParams,
    ReadDirectoryParams,
    digest,
)

NAME = re.compile(r"^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$")
"""What a skill's name may be (the specification's naming rule)."""
Params = TypeVar("Params", bound=BaseModel)


class SkillError(ValueError):
    """A skill folder the specification does not allow (its name, frontmatter or size)."""


@dataclass(frozen=True)
class _File:
    data: bytes
    mime_type: str


@dataclass(frozen=True)
class _Skill:
    name: str
    uri: str
    frontmatter: dict[str, Any]
    resources: list[dict[str, Any]]

    def entry(self) -> dict[str, Any]:
        # A copy: a mount in front may edit the answer it passes on, never what later clients get.
        return copy.deepcopy(
            {"uri": self.uri, "frontmatter": self.frontmatter, "resources": self.resources}
        )


class SkillDirectory:
    """The skills of a directory, mounted on a server class (`Mount`): `page_size` skills or directory
    entries a page, list and get results cacheable `ttl_ms` in `cache_scope` (2026-07-28 and later).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        page_size: int = 50,
        ttl_ms: int = 0,
        cache_scope: str = "public",
        directory_read: bool = True,
    ) -> None:
        self.page_size, self.ttl_ms, self.cache_scope = page_size, ttl_ms, cache_scope
        self.directory_read = directory_read
        self.skills: dict[str, _Skill] = {}
        self.files: dict[str, _File] = {}
        self.directories: dict[str, list[dict[str, Any]]] = {}
        base = Path(root)
        if not base.is_dir():
            raise SkillError(f"{root} is not a directory")
        for folder in sorted(base.iterdir()):
            if folder.is_dir() and not folder.is_symlink() and (folder / SKILL_FILE).exists():
                try:
                    self._add(folder)
                except RecursionError:  # os.walk recurses once a folder level
                    raise SkillError(f"{folder}: folders nested too deeply") from None
        self.methods: Mapping[str, Callable[..., Awaitable[Any]]] = {
            LIST_SKILLS: self.list_skills,
            GET_SKILL: self.get_skill,
            LIST_RESOURCES: self.list_resources,
            READ_RESOURCE: self.read_resource,
            LIST_TEMPLATES: self.list_templates,
            **({READ_DIRECTORY: self.read_directory} if directory_read else {}),
        }

    def _add(self, folder: Path) -> None:
        """Read one skill's files (bounded by the specification's limits), index them by URI, and
        check its SKILL.md's frontmatter."""
        name, root = folder.name, f"skill://{folder.name}"
        resources: list[dict[str, Any]] = []
        inside, total = folder.resolve(), 0
        self.directories[root] = []
        for here, dirs, names in os.walk(folder):
            at = Path(here)
            dirs[:] = sorted(d for d in dirs if not (at / d).is_symlink())
            parent = _uri(root, at.relative_to(folder))
            for d in dirs:
                uri = _uri(root, (at / d).relative_to(folder))
                self.directories[uri] = []
                self.directories[parent].append(
                    {"uri": uri, "name": d, "mimeType": DIRECTORY_MIME_TYPE}
                )
            for n in sorted(names):
                path = at / n
                try:
                    real = path.resolve()
                except (OSError, RuntimeError):  # a loop of links leads to no file
                    continue
                if not real.is_relative_to(inside) or not real.is_file():
                    continue
                size = path.stat().st_size
                total += size
                if len(resources) >= MAX_RESOURCES or total > MAX_TOTAL_SIZE:
                    raise SkillError(
                        f"{folder}: a skill holds at most {MAX_RESOURCES} files and "
                        f"{MAX_TOTAL_SIZE} bytes"
                    )
                with path.open("rb") as opened:
                    data = opened.read(size)
                uri = _uri(root, path.relative_to(folder))
                self.files[uri] = _File(data, _mime_type(n))
                resources.append({"uri": uri, "digest": digest(data), "size": len(data)})
                self.directories[parent].append(
                    {"uri": uri, "name": n, "mimeType": _mime_type(n), "size": len(data)}
                )
        uri = f"{root}/{SKILL_FILE}"
        try:
            found = frontmatter(self.files[uri].data.decode("utf-8"))
        except (KeyError, UnicodeDecodeError, ValueError) as exc:
            raise SkillError(f"{folder}: no readable SKILL.md frontmatter ({exc})") from None
        if found.get("name") != name or not NAME.match(name):
            raise SkillError(f"{folder}: the frontmatter name must be the folder's name, {name!r}")
        if not isinstance(found.get("description"), str) or not found["description"]:
            raise SkillError(f"{folder}: the frontmatter needs a description")
        resources.sort(key=lambda r: (r["uri"] != uri, r["uri"]))
        self.skills[name] = _Skill(name, uri, found, resources)

    def declare(self, capabilities: dict[str, Any], extensions_key: str | None) -> dict[str, Any]:
        """Resources, and the extension (with `directoryRead`) where the revision has extensions."""
        found = {**capabilities, "resources": capabilities.get("resources") or {}}
        if extensions_key is not None:
            settings = {"directoryRead": True} if self.directory_read else {}
            found[extensions_key] = {
                **(capabilities.get(extensions_key) or {}),
                IDENTIFIER: settings,
            }
        return found

    async def list_skills(self, params: Any, own: Any, stateless: bool) -> dict[str, Any]:
        """`skills/list`: a page of skill entries."""
        request = _params(ListSkillsParams, {} if params is None else params)
        page, after = _page(list(self.skills.values()), request.cursor, self.page_size)
        result: dict[str, Any] = {"skills": [s.entry() for s in page]}
        if after is not None:
            result["nextCursor"] = after
        return self._complete(result, stateless)

    async def get_skill(self, params: Any, own: Any, stateless: bool) -> dict[str, Any]:
        """`skills/get`: the entry of the skill whose SKILL.md URI is given; -32602 for another."""
        uri = _params(GetSkillParams, params).uri
        found = next((s for s in self.skills.values() if s.uri == uri), None)
        if found is None:
            raise ProtocolError(INVALID_PARAMS, "Unknown skill", {"uri": uri[:200]})
        return self._complete({"skill": found.entry()}, stateless)

    async def read_directory(self, params: Any, own: Any, stateless: bool) -> dict[str, Any]:
        """`resources/directory/read`: a page of a skill directory's direct children; -32602 for a
        URI that is not one."""
        request = _params(ReadDirectoryParams, params)
        children = self.directories.get(request.uri)
        if children is None:
            raise ProtocolError(INVALID_PARAMS, "Not a directory", {"uri": request.uri[:200]})
        page, after = _page(children, request.cursor, self.page_size)
        result: dict[str, Any] = {"resources": [dict(child) for child in page]}
        if after is not None:
            result["nextCursor"] = after
        return {**result, "resultType": "complete"}

    async def list_resources(self, params: Any, own: Any, stateless: bool) -> dict[str, Any]:
        """`resources/list`: the server's own resources, then (on its last page) each SKILL.md."""
        result = dict(await _own_or(own, self._complete({"resources": []}, stateless)))
        if result.get("nextCursor") is None:
            result["resources"] = [*result.get("resources", ()), *self._skill_files()]
        return result

    async def list_templates(self, params: Any, own: Any, stateless: bool) -> Any:
        """`resources/templates/list`: the server's own templates (none, when it has no handler)."""
        return await _own_or(own, self._complete({"resourceTemplates": []}, stateless))

    def _skill_files(self) -> list[dict[str, Any]]:
        return [
            {
                "uri": s.uri,
                "name": s.name,
                "description": s.frontmatter["description"],
                "mimeType": self.files[s.uri].mime_type,
                "size": len(self.files[s.uri].data),
            }
            for s in self.skills.values()
        ]

    async def read_resource(self, params: Any, own: Any, stateless: bool) -> Any:
        """`resources/read` of a `skill://` file (text when it is UTF-8, else base64); any other URI
        goes to the server's own handler."""
        uri = params.get("uri") if isinstance(params, Mapping) else None
        if not isinstance(uri, str) or not uri.startswith("skill://"):
            unknown = ProtocolError(INVALID_PARAMS, "Unknown resource")
            return await _own_or(own, unknown)
        found = self.files.get(uri)
        if found is None:
            raise ProtocolError(INVALID_PARAMS, "Unknown skill resource", {"uri": uri[:200]})
        content: dict[str, Any] = {"uri": uri, "mimeType": found.mime_type}
        try:
            content["text"] = found.data.decode("utf-8")
        except UnicodeDecodeError:
            content["blob"] = base64.b64encode(found.data).decode("ascii")
        return self._complete({"contents": [content]}, stateless)

    def _complete(self, result: dict[str, Any], stateless: bool) -> dict[str, Any]:
        """A result marked complete, with its caching hints in the stateless era."""
        result["resultType"] = "complete"
        if stateless:
            result.update(ttlMs=self.ttl_ms, cacheScope=self.cache_scope)
        return result


async def _own_or(own: Callable[[], Awaitable[Any]], otherwise: Any) -> Any:
    """The server's own answer; where it has no handler, `otherwise` (a result, or an error raised)."""
    try:
        return await own()
    except ProtocolError as exc:
        if exc.code != METHOD_NOT_FOUND:
            raise
    if isinstance(otherwise, ProtocolError):
        raise otherwise
    return otherwise


def _params(model: type[Params], params: Any) -> Params:
    """The request's params as `model`; -32602 when they are not."""
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise ProtocolError(INVALID_PARAMS, "Invalid params", error_details(exc)) from None


def _page(items: list[Any], cursor: str | None, size: int) -> tuple[list[Any], str | None]:
    """The page of `items` a cursor (an offset) starts, and the cursor of the next page, if any."""
    start = 0
    if cursor is not None:
        if (
            not (cursor.isascii() and cursor.isdigit())
            or len(cursor) > 9
            or int(cursor) > len(items)
        ):
            raise ProtocolError(INVALID_PARAMS, "Invalid cursor")
        start = int(cursor)
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _uri(root: str, relative: Path) -> str:
    """The `skill://` URI of a file or folder of a skill (each path segment percent-encoded)."""
    parts = PurePosixPath(relative.as_posix()).parts
    try:
        return "/".join([root, *(quote(p, safe="") for p in parts if p != ".")])
    except UnicodeEncodeError:  # a name the file system holds as bytes that are not UTF-8
        raise SkillError(f"{root}: a file or folder name is not UTF-8: {str(relative)!r}") from None


def _mime_type(name: str) -> str:
    if name.lower().endswith(".md"):
        return "text/markdown"
    return mimetypes.guess_type(name)[0] or "application/octet-stream"
