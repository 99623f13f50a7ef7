"""A skills server (SEP-2640): a generated Server that mounts `SkillDirectory(path)` declares the extension and
`resources`, answers `skills/list` (paged, cacheable), `skills/get` and `resources/directory/read`, lists each
SKILL.md beside its own resources and serves the `skill://` files with the digest and size of the bytes it
sends; no URI reaches outside the directory, and the specification's limits hold. Oracles: the bytes this test
writes, hashed with hashlib, and the frontmatter as written."""

from __future__ import annotations

import asyncio
import base64
import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from httpserve import serve
from shared import EXTENDED, link_runtime, package_name
from skill_support import FORMS_MD, OTHER_MD, OWN, SKILL_MD, sha256, skills_server, write_skills

SKILLS = "io.modelcontextprotocol/skills"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
PDF = "skill://pdf-processing"


@pytest.fixture(scope="module")
def pkg(generated_root: Path) -> ModuleType:
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    return importlib.import_module(EXTENDED[2])


def directory(pkg: ModuleType, root: Path, **options: Any) -> Any:
    return importlib.import_module(f"{pkg.__name__}.runtime.skills").SkillDirectory(root, **options)


def call(server_class: type, method: str, params: Any) -> dict[str, Any]:
    """One request of the stateless 2026-07-28 wire, handled in process; the JSON-RPC reply."""
    if isinstance(params, dict):
        params = {**params, "_meta": META}
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply: dict[str, Any] = asyncio.run(server_class().handle(message))
    return reply


@pytest.fixture()
def server(pkg: ModuleType, tmp_path: Path) -> type:
    return skills_server(pkg, directory(pkg, write_skills(tmp_path / "skills")))


def test_the_server_declares_the_extension_and_resources(server: type) -> None:
    capabilities = call(server, "server/discover", {})["result"]["capabilities"]
    assert capabilities["extensions"] == {SKILLS: {"directoryRead": True}}
    assert isinstance(capabilities["resources"], dict)


def test_skills_list_describes_each_skill_by_the_bytes_it_serves(server: type) -> None:
    result = call(server, "skills/list", {})["result"]
    assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", 0, "public")
    assert "nextCursor" not in result
    assert result["skills"] == [
        {
            "uri": f"{PDF}/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                {"uri": f"{PDF}/SKILL.md", "digest": sha256(SKILL_MD), "size": len(SKILL_MD)},
                {"uri": f"{PDF}/references/FORMS.md", "digest": sha256(FORMS_MD), "size": len(FORMS_MD)},
            ],
        },
        {
            "uri": "skill://unit-conversion/SKILL.md",
            "frontmatter": {"name": "unit-conversion", "description": "Convert units: metres, feet", "version": 2},
            "resources": [{"uri": "skill://unit-conversion/SKILL.md", "digest": sha256(OTHER_MD), "size": len(OTHER_MD)}],
        },
    ]
    for entry in result["skills"]:
        for resource in entry["resources"]:
            text = call(server, "resources/read", {"uri": resource["uri"]})["result"]["contents"][0]["text"]
            assert (sha256(text.encode()), len(text.encode())) == (resource["digest"], resource["size"])


def test_skills_list_pages(pkg: ModuleType, tmp_path: Path) -> None:
    paged = skills_server(pkg, directory(pkg, write_skills(tmp_path / "skills"), page_size=1))
    first = call(paged, "skills/list", {})["result"]
    second = call(paged, "skills/list", {"cursor": first["nextCursor"]})["result"]
    assert [s["frontmatter"]["name"] for s in first["skills"] + second["skills"]] == ["pdf-processing", "unit-conversion"]
    assert "nextCursor" not in second
    assert call(paged, "skills/list", {"cursor": "not-a-cursor"})["error"]["code"] == -32602


def test_skills_get_answers_a_listed_skill_and_refuses_another(server: type) -> None:
    result = call(server, "skills/get", {"uri": f"{PDF}/SKILL.md"})["result"]
    assert result["skill"] == call(server, "skills/list", {})["result"]["skills"][0]
    assert "nextCursor" not in result and result["ttlMs"] == 0
    for uri in ["skill://nope/SKILL.md", f"{PDF}/references/FORMS.md", f"{PDF}"]:
        assert call(server, "skills/get", {"uri": uri})["error"]["code"] == -32602


def test_directory_read_lists_direct_children(server: type) -> None:
    top = call(server, "resources/directory/read", {"uri": PDF})["result"]
    assert top["resources"] == [
        {"uri": f"{PDF}/references", "name": "references", "mimeType": "inode/directory"},
        {"uri": f"{PDF}/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": len(SKILL_MD)},
    ]
    below = call(server, "resources/directory/read", {"uri": f"{PDF}/references"})["result"]["resources"]
    assert [r["uri"] for r in below] == [f"{PDF}/references/FORMS.md"]
    for uri in [f"{PDF}/SKILL.md", f"{PDF}/", "skill://nope", f"{PDF}/references/../references"]:
        assert call(server, "resources/directory/read", {"uri": uri})["error"]["code"] == -32602


def test_resources_list_and_read_compose_with_the_servers_own(server: type) -> None:
    listed = call(server, "resources/list", {})["result"]["resources"]
    assert listed[0] == OWN
    assert listed[1:] == [
        {
            "uri": f"{PDF}/SKILL.md",
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "mimeType": "text/markdown",
            "size": len(SKILL_MD),
        },
        {
            "uri": "skill://unit-conversion/SKILL.md",
            "name": "unit-conversion",
            "description": "Convert units: metres, feet",
            "mimeType": "text/markdown",
            "size": len(OTHER_MD),
        },
    ]
    assert call(server, "resources/read", {"uri": OWN["uri"]})["result"]["contents"][0]["text"] == "mine"
    forms = call(server, "resources/read", {"uri": f"{PDF}/references/FORMS.md"})["result"]
    assert forms["contents"] == [{"uri": f"{PDF}/references/FORMS.md", "mimeType": "text/markdown", "text": FORMS_MD.decode()}]
    assert forms["resultType"] == "complete"


def test_a_binary_file_is_served_as_a_blob(pkg: ModuleType, tmp_path: Path) -> None:
    root = write_skills(tmp_path / "skills")
    (root / "pdf-processing" / "logo.png").write_bytes(b"\x89PNG\xff\x00")
    served = skills_server(pkg, directory(pkg, root))
    content = call(served, "resources/read", {"uri": f"{PDF}/logo.png"})["result"]["contents"][0]
    assert base64.b64decode(content["blob"]) == b"\x89PNG\xff\x00" and content["mimeType"] == "image/png"
    entry = call(served, "skills/list", {})["result"]["skills"][0]
    assert {"uri": f"{PDF}/logo.png", "digest": sha256(b"\x89PNG\xff\x00"), "size": 6} in entry["resources"]


ESCAPES = [
    "skill://pdf-processing/../../etc/passwd",
    "skill://pdf-processing/references/../../../secret.txt",
    "skill://pdf-processing/%2e%2e/%2e%2e/secret.txt",
    "skill://pdf-processing/..%2F..%2Fsecret.txt",
    "skill://pdf-processing//etc/passwd",
    "skill://../secret.txt",
    "skill://pdf-processing/outside.txt",
    "skill://pdf-processing/linked/secret.txt",
]


def test_no_uri_reaches_outside_the_directory(pkg: ModuleType, tmp_path: Path) -> None:
    root = write_skills(tmp_path / "skills")
    (tmp_path / "secret.txt").write_text("top secret")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.txt").write_text("top secret")
    os.symlink(tmp_path / "secret.txt", root / "pdf-processing" / "outside.txt")
    os.symlink(tmp_path / "elsewhere", root / "pdf-processing" / "linked")
    os.symlink(root / "pdf-processing" / "references" / "FORMS.md", root / "pdf-processing" / "inside.md")
    served = skills_server(pkg, directory(pkg, root))
    for uri in ESCAPES:
        assert call(served, "resources/read", {"uri": uri})["error"]["code"] == -32602, uri
    uris = [r["uri"] for r in call(served, "skills/list", {})["result"]["skills"][0]["resources"]]
    assert f"{PDF}/inside.md" in uris and not any("secret" in u or "linked" in u or "outside" in u for u in uris)
    listing = call(served, "resources/directory/read", {"uri": PDF})["result"]["resources"]
    assert not any("linked" in r["uri"] or "outside" in r["uri"] for r in listing)
    assert call(served, "resources/read", {"uri": f"{PDF}/inside.md"})["result"]["contents"][0]["text"] == FORMS_MD.decode()


def test_a_file_name_is_percent_encoded_in_its_uri(pkg: ModuleType, tmp_path: Path) -> None:
    root = write_skills(tmp_path / "skills")
    (root / "pdf-processing" / "my notes#1.md").write_bytes(b"notes")
    served = skills_server(pkg, directory(pkg, root))
    uri = f"{PDF}/my%20notes%231.md"
    assert call(served, "resources/read", {"uri": uri})["result"]["contents"][0]["text"] == "notes"
    assert call(served, "resources/read", {"uri": f"{PDF}/my notes#1.md"})["error"]["code"] == -32602


def test_the_specifications_limits_and_rules_are_enforced_when_mounting(pkg: ModuleType, tmp_path: Path) -> None:
    errors = importlib.import_module(f"{pkg.__name__}.runtime.skills").SkillError
    cases = {
        "too-many": lambda d: [(d / f"f{i}.txt").write_bytes(b"x") for i in range(512)],
        "too-large": lambda d: os.truncate(_touch(d / "big.bin"), 16 * 1024 * 1024),
        "wrong-name": None,
        "Bad--Name": None,
    }
    for name, grow in cases.items():
        root = tmp_path / name / "skills"
        folder = root / name
        folder.mkdir(parents=True)
        declared = "another-name" if name == "wrong-name" else name
        (folder / "SKILL.md").write_text(f"---\nname: {declared}\ndescription: d\n---\n")
        if grow is not None:
            grow(folder)
        with pytest.raises(errors):
            directory(pkg, root)
    root = tmp_path / "no-frontmatter" / "skills"
    (root / "plain").mkdir(parents=True)
    (root / "plain" / "SKILL.md").write_text("# no frontmatter\n")
    with pytest.raises(errors):
        directory(pkg, root)
    with pytest.raises(errors):
        directory(pkg, tmp_path / "missing")


def _touch(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def test_the_limits_are_exactly_the_specifications(pkg: ModuleType, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = root / "at-limit"
    folder.mkdir(parents=True)
    header = b"---\nname: at-limit\ndescription: d\n---\n"
    (folder / "SKILL.md").write_bytes(header)
    for i in range(510):
        (folder / f"f{i}.txt").write_bytes(b"x")
    with (folder / "big.bin").open("wb") as big:
        big.truncate(16 * 1024 * 1024 - 510 - len(header))
    entry = call(skills_server(pkg, directory(pkg, root)), "skills/list", {})["result"]["skills"][0]
    assert len(entry["resources"]) == 512 and sum(r["size"] for r in entry["resources"]) == 16 * 1024 * 1024


def test_a_session_era_server_serves_skills_without_the_extension_declaration(
    generated_root: Path, tmp_path: Path
) -> None:
    link_runtime(package_name("2025-11-25"))
    old = importlib.import_module(package_name("2025-11-25"))
    served = skills_server(old, directory(old, write_skills(tmp_path / "skills")))
    http = importlib.import_module(f"{old.__name__}.http")

    async def scenario(url: str) -> tuple[Any, Any, Any]:
        client = old.Client()
        async with http.connect_http(client, url):
            hello = await client.start_session()
            listed = await client.send_request("skills/list", {})
            read = await client.read_resource({"uri": f"{PDF}/SKILL.md"})
            return hello, listed, read

    with serve(http.streamable_http_app(served)) as running:
        hello, listed, read = running.run(scenario(running.url))
    assert hello.capabilities.resources is not None
    assert [s["uri"] for s in listed["skills"]] == [f"{PDF}/SKILL.md", "skill://unit-conversion/SKILL.md"]
    assert "ttlMs" not in listed and read.contents[0].text == SKILL_MD.decode()


def test_a_server_with_no_resources_of_its_own_still_answers_every_resources_method(pkg: ModuleType, tmp_path: Path) -> None:
    class Bare(pkg.Server):  # type: ignore[misc, name-defined]
        mounts = (directory(pkg, write_skills(tmp_path / "skills")),)

    listed = call(Bare, "resources/list", {})["result"]
    assert [r["uri"] for r in listed["resources"]] == [f"{PDF}/SKILL.md", "skill://unit-conversion/SKILL.md"]
    assert (listed["resultType"], listed["ttlMs"]) == ("complete", 0)
    assert call(Bare, "resources/templates/list", {})["result"]["resourceTemplates"] == []
    assert call(Bare, "resources/read", {"uri": "file:///etc/passwd"})["error"]["code"] == -32602
    assert call(Bare, "server/discover", {})["result"]["capabilities"]["resources"] == {}
