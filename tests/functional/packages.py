"""Generate a tiny schema's package through the library, import it, and wire peers back to back."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Coroutine, Iterator

import pytest

from mcpgen.inputs import errata, sources as source
from mcpgen.commands.generate import GeneratedPackage, GenerateConfig, generate
from mcpgen.inputs.pins import Pin
from shared import load_package

from .schemas import Schema

REVISION = "2099-01-01"


def schema_bytes(schema: Schema) -> bytes:
    """The bytes `generate_package` writes for `schema` (what its sha256 is computed over)."""
    return json.dumps(schema).encode("utf-8")


def generate_package(
    directory: Path, schema: Schema, alias: str, pairings: tuple[tuple[str, str], ...] = ()
) -> ModuleType:
    """Write `schema` to `directory`, generate its package there with `mcpgen.commands.generate`, import it as `alias`."""
    return generate_extended(directory, schema, alias, (), pairings)[0]


def generate_extended(
    directory: Path,
    schema: Schema,
    alias: str,
    extensions: tuple[Schema, ...],
    pairings: tuple[tuple[str, str], ...] = (),
) -> tuple[ModuleType, GeneratedPackage]:
    """`generate_package` with extension schemas (written beside the schema, given as `--extension FILE`):
    the imported package and what generation reported."""
    schema_file = directory / "schema.json"
    schema_file.write_bytes(schema_bytes(schema))
    files = []
    for index, extension in enumerate(extensions):
        files.append(directory / f"extension{index}.json")
        files[-1].write_bytes(schema_bytes(extension))
    config = GenerateConfig(
        schema_file=schema_file,
        revision=REVISION,
        output=directory / alias,
        package=alias,
        pairings=pairings,
        extensions=tuple(str(f) for f in files),
    )
    (made,) = generate(config)
    return load_package(directory / alias, alias), made


@contextlib.contextmanager
def shipped(catalogue: dict[str, list[dict[str, Any]]]) -> Iterator[None]:
    """Ship the errata of `catalogue` (by revision) instead of mcpgen's own errata files."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            errata,
            "load_errata",
            lambda revision: errata.parse_errata(revision, catalogue.get(revision, []), "functional"),
        )
        patch.setenv("MCPGEN_NO_CACHE", "1")  # the cache key covers the shipped errata, not these
        yield


@contextlib.contextmanager
def pinned(schema: Schema, entries: list[dict[str, Any]] | None = None) -> Iterator[None]:
    """Pin REVISION to the bytes of `schema` (a released revision, not a draft) with `entries` as its errata."""
    sha = hashlib.sha256(schema_bytes(schema)).hexdigest()
    pin = Pin(REVISION, "0" * 40, "schema.json", sha, "https://example.invalid/{commit}/{path}")
    with shipped({REVISION: entries or []}), pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "get_pin", lambda revision: pin)
        yield


def headers(pkg: ModuleType) -> list[str]:
    """The comment header of every module of a generated package."""
    folder = Path(str(pkg.__file__)).parent
    return [path.read_text("utf-8").split('"""')[0] for path in sorted(folder.glob("*.py"))]


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to completion, failing after ten seconds."""
    return asyncio.run(asyncio.wait_for(coro, 10))


class Wire:
    """Two peers connected back to back through in-memory `stdio.Connection`s, recording what each side sends."""

    def __init__(self, pkg: ModuleType, client: Any, server: Any) -> None:
        connection = importlib.import_module(f"{pkg.__name__}.stdio").Connection
        self.sent: dict[str, list[Any]] = {"client": [], "server": []}
        self.client = connection(
            client, self._to("server"), lambda way, m: self._trace("client", way, m)
        )
        self.server = connection(
            server, self._to("client"), lambda way, m: self._trace("server", way, m)
        )
        client.attach(self.client)
        server.attach(self.server)

    def _to(self, side: str) -> Any:
        async def write(data: bytes) -> None:
            await (self.server if side == "server" else self.client).receive(data)

        return write

    def _trace(self, side: str, way: str, message: Any) -> None:
        if way == "out":
            self.sent[side].append(message)
