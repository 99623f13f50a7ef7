"""A skills server faces the internet: any JSON in any field of `skills/list`, `skills/get`,
`resources/directory/read` and `resources/read` (URIs built to escape the directory included) gets a JSON-RPC
error or a correct answer, never an exception, a logged traceback or a byte from outside the directory. A host
facing a hostile server likewise gets its typed error, never another exception."""

from __future__ import annotations

import asyncio
import json
import importlib
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared import EXTENDED, link_runtime
from skill_support import skills_server, write_skills

CODES = {-32600, -32601, -32602}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
}
SECRET = "top secret outside the skills"
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10
)
segments = st.sampled_from(["..", ".", "", "%2e%2e", "%2F", "SKILL.md", "references", "FORMS.md", "secret.txt", "pdf-processing", "\x00", "%00"])
uris = st.builds(
    lambda scheme, parts: scheme + "/".join(parts),
    st.sampled_from(["skill://", "skill:///", "SKILL://", "file://", ""]),
    st.lists(segments, max_size=6),
)


@pytest.fixture(scope="module")
def served(generated_root: Path, tmp_path_factory: pytest.TempPathFactory) -> type:
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    pkg: ModuleType = importlib.import_module(EXTENDED[2])
    base = tmp_path_factory.mktemp("hostile")
    (base / "secret.txt").write_text(SECRET)
    root = write_skills(base / "skills")
    (root / "pdf-processing" / "secret.txt").symlink_to(base / "secret.txt")
    directory = importlib.import_module(f"{pkg.__name__}.runtime.skills").SkillDirectory(root, page_size=1)
    return skills_server(pkg, directory)


class Tracebacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.found.append(self.format(record))


def answer(server: type, method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    catcher = Tracebacks()
    logging.getLogger().addHandler(catcher)
    try:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        reply: dict[str, Any] = asyncio.run(server().handle(message))
    finally:
        logging.getLogger().removeHandler(catcher)
    assert catcher.found == []
    assert ("result" in reply) != ("error" in reply), reply
    if "error" in reply:
        assert reply["error"]["code"] in CODES, reply
    else:
        assert reply["result"]["resultType"] == "complete"
        assert SECRET not in str(reply)
    return reply


METHODS = st.sampled_from(["skills/list", "skills/get", "resources/directory/read", "resources/read"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=METHODS,
    params=st.dictionaries(st.sampled_from(["uri", "cursor", "x", "_meta"]), json_values | uris, max_size=3),
)
def test_any_json_in_a_skills_request_gets_an_error_or_an_answer(served: type, method: str, params: dict[str, Any]) -> None:
    answer(served, method, {**params, "_meta": params.get("_meta", META)})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=METHODS, params=json_values, request_id=json_values)
def test_any_params_and_id_get_an_error_or_an_answer(served: type, method: str, params: Any, request_id: Any) -> None:
    catcher = Tracebacks()
    logging.getLogger().addHandler(catcher)
    try:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        reply = asyncio.run(served().handle(message))
    finally:
        logging.getLogger().removeHandler(catcher)
    assert catcher.found == []
    assert reply is None or "error" in reply or SECRET not in str(reply)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(uri=uris)
def test_a_uri_reads_a_file_of_the_directory_or_nothing(served: type, uri: str) -> None:
    reply = answer(served, "resources/read", {"uri": uri, "_meta": META})
    if "result" in reply:
        (content,) = reply["result"]["contents"]
        assert content["uri"] == uri and uri.startswith("skill://pdf-processing/") and ".." not in uri


def test_skills_pages_follow_each_other(served: type) -> None:
    first = answer(served, "skills/list", {"_meta": META})["result"]
    second = answer(served, "skills/list", {"cursor": first["nextCursor"], "_meta": META})["result"]
    assert [s["frontmatter"]["name"] for s in first["skills"] + second["skills"]] == ["pdf-processing", "unit-conversion"]
    for cursor in ["-1", "99", "1" * 30, "", " 1", "\u00b2", "\u0661"]:  # digits `isdigit` admits, `int` refuses or reads
        assert answer(served, "skills/list", {"cursor": cursor, "_meta": META})["error"]["code"] == -32602


HOSTILE_RESULTS = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"skills": st.lists(st.fixed_dictionaries({"uri": json_values | uris, "frontmatter": json_values, "resources": json_values}), max_size=2)},
        optional={"nextCursor": json_values},
    ),
)


@settings(max_examples=100, deadline=None)
@given(listed=HOSTILE_RESULTS, read=json_values)
def test_a_host_facing_a_hostile_server_gets_a_typed_error(generated_root: Path, listed: Any, read: Any) -> None:
    """A client whose transport answers with the given JSON (no real server sends arbitrary results)."""
    link_runtime(EXTENDED[2])
    pkg: ModuleType = importlib.import_module(EXTENDED[2])
    host_module = importlib.import_module(f"{pkg.__name__}.runtime.skills_host")
    errors = importlib.import_module(f"{pkg.__name__}.jsonrpc").ProtocolError
    entry_type = importlib.import_module(f"{pkg.__name__}.runtime.skill_types").SkillEntry

    class Hostile(pkg.Client):  # type: ignore[misc, name-defined]
        async def send_request(self, method: str, params: Any) -> Any:
            return listed if method == "skills/list" else read

    async def scenario() -> None:
        host = host_module.SkillsHost(Hostile())
        try:
            entries = await host.list()
        except errors:
            return
        assert all(isinstance(e, entry_type) for e in entries)
        for entry in entries:
            try:
                await host.load(entry)
            except (host_module.SkillVerificationError, errors):
                pass

    asyncio.run(scenario())


@settings(max_examples=300, deadline=None)
@given(body=st.text(max_size=200) | st.builds(lambda t: f"---\n{t}\n---\n", st.text(st.sampled_from("ab:-[]{}&*!|>'\"\n ?,#%@0.ex\\udf8"), max_size=80)))
def test_any_skill_md_text_gives_a_json_object_or_a_frontmatter_error(generated_root: Path, body: str) -> None:
    """What a frontmatter gives goes on the wire as it is: the runtime's own strict writer and reader
    (no lone surrogate, no number a float cannot hold) take it back unchanged."""
    link_runtime(EXTENDED[2])
    module = importlib.import_module(f"{EXTENDED[2]}.runtime.frontmatter")
    wire = importlib.import_module(f"{EXTENDED[2]}.runtime.jsonrpc")
    try:
        found = module.frontmatter(body)
    except module.FrontmatterError:
        return
    assert isinstance(found, dict) and wire.load(wire.encode(found)) == found


@pytest.mark.parametrize(
    "yaml, says",
    [
        ('name: a\ndescription: "\\ud800"', "lone surrogate"),
        ('name: a\n"\\udfff": x', "lone surrogate"),
        ("name: a\nsize: 0x" + "f" * 300, "a number JSON cannot"),
        ("name: a\n? 0x" + "f" * 4000 + "\n: x", "not a scalar"),
        ("name: a\n1: x\n'1': y", "two keys of the same text"),
        ("name: a\ndescription: " + "x" * 70_000, "longer than 65536 characters"),
    ],
    ids=["surrogate-value", "surrogate-key", "huge-integer", "huge-integer-key", "same-key-text", "too-long"],
)
def test_a_frontmatter_the_wire_cannot_carry_is_refused(generated_root: Path, yaml: str, says: str) -> None:
    link_runtime(EXTENDED[2])
    module = importlib.import_module(f"{EXTENDED[2]}.runtime.frontmatter")
    with pytest.raises(module.FrontmatterError, match=says):
        module.frontmatter(f"---\n{yaml}\n---\n")


def test_a_directory_with_odd_files_mounts_or_is_refused_in_one_error(generated_root: Path, tmp_path: Path) -> None:
    """A loop of links is skipped like any link leading to no file of the skill; a name that is not
    UTF-8 and folders nested past Python's recursion are one SkillError each."""
    import os

    link_runtime(EXTENDED[2])
    skills = importlib.import_module(f"{EXTENDED[2]}.runtime.skills")
    looped = write_skills(tmp_path / "looped")
    (looped / "pdf-processing" / "a").symlink_to(looped / "pdf-processing" / "b")
    (looped / "pdf-processing" / "b").symlink_to(looped / "pdf-processing" / "a")
    mounted = skills.SkillDirectory(looped)
    assert sorted(mounted.files) == ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md", "skill://unit-conversion/SKILL.md"]
    named = write_skills(tmp_path / "named")
    os.close(os.open(os.fsencode(named / "pdf-processing") + b"/caf\xe9.txt", os.O_CREAT | os.O_WRONLY))
    with pytest.raises(skills.SkillError, match="not UTF-8"):
        skills.SkillDirectory(named)
    deep = write_skills(tmp_path / "deep")
    here, made = os.getcwd(), 0
    os.chdir(deep / "unit-conversion")  # 1,200 levels, made one at a time (os.makedirs recurses too)
    try:
        for made in range(1, 1201):
            os.mkdir("d")
            os.chdir("d")
        os.chdir(here)
        if sys.version_info < (3, 12):  # os.walk recurses once a level there
            with pytest.raises(skills.SkillError, match="nested too deeply"):
                skills.SkillDirectory(deep)
        else:
            assert "unit-conversion" in skills.SkillDirectory(deep).skills
    finally:  # removed one level at a time too: pytest's own clean-up recurses
        os.chdir(os.path.join(deep, "unit-conversion", *["d"] * (made - 1)) if made else here)
        for _ in range(made):
            os.rmdir("d")
            os.chdir("..")
        os.chdir(here)


def test_what_a_client_is_answered_is_a_copy(generated_root: Path, tmp_path: Path) -> None:
    """A mount in front of the directory may edit the answer it passes on; the next client's is whole."""
    link_runtime(EXTENDED[2])
    skills = importlib.import_module(f"{EXTENDED[2]}.runtime.skills")
    directory = skills.SkillDirectory(write_skills(tmp_path / "skills"), directory_read=True)

    async def scenario() -> tuple[Any, Any]:
        listed = await directory.list_skills({}, None, True)
        listed["skills"][0]["frontmatter"].clear()
        listed["skills"][0]["resources"].clear()
        read = await directory.read_directory({"uri": "skill://pdf-processing"}, None, True)
        read["resources"][0].clear()
        return await directory.list_skills({}, None, True), await directory.read_directory({"uri": "skill://pdf-processing"}, None, True)

    again, read_again = asyncio.run(scenario())
    assert again["skills"][0]["frontmatter"]["name"] == "pdf-processing" and len(again["skills"][0]["resources"]) == 2
    assert read_again["resources"][0]["uri"].startswith("skill://pdf-processing/")


def test_a_host_refuses_a_listing_without_end(generated_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cursor given twice, or more skills than a listing holds, ends the listing with the typed error."""
    link_runtime(EXTENDED[2])
    pkg: ModuleType = importlib.import_module(EXTENDED[2])
    host_module = importlib.import_module(f"{pkg.__name__}.runtime.skills_host")
    errors = importlib.import_module(f"{pkg.__name__}.jsonrpc").ProtocolError
    monkeypatch.setattr(host_module, "MAX_SKILLS", 5)
    entry = {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"}

    def pages(next_of: dict[Any, Any], per_page: int) -> Any:
        class Hostile(pkg.Client):  # type: ignore[misc, name-defined]
            async def send_request(self, method: str, params: Any) -> Any:
                return {"skills": [entry] * per_page, "nextCursor": next_of[(params or {}).get("cursor")]}

        return Hostile()

    async def refusal(client: Any) -> str:
        with pytest.raises(errors) as refused:
            await host_module.SkillsHost(client).list()
        return str(refused.value)

    assert "a cursor it gave before" in asyncio.run(refusal(pages({None: "A", "A": "B", "B": "A"}, 1)))
    assert "more than 5 skills" in asyncio.run(refusal(pages({None: "A", "A": "B", "B": "C", "C": None}, 2)))


def test_an_alias_bomb_is_refused(generated_root: Path) -> None:
    link_runtime(EXTENDED[2])
    module = importlib.import_module(f"{EXTENDED[2]}.runtime.frontmatter")
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"{c}: &{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcdefg", "bcdefgh")]
    with pytest.raises(module.FrontmatterError, match="more than 10000 values"):
        module.frontmatter("---\n" + "\n".join(levels) + "\n---\n")
