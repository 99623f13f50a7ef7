"""The fast paths give exactly what the slow ones do: chunked black, the package cache, fast parsing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgen import cache
from mcpgen.emit import render
from mcpgen.emit.formatting import chunks, format_files
from mcpgen.commands.generate import PackageRequest, package_ir, package_sources
from mcpgen.inputs.pins import revision_set
from mcpgen.emit.render import Sources
from mcpgen.inputs.sources import resolve_schema
from shared import EXTENDED, MULTI_REVISION, REVISIONS

MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=100)

TRICKY = '''# a header comment
"""Module docstring."""
from __future__ import annotations
import typing
X = 1
class A:
    """Only a docstring."""
class B: ...
Y: int = 2


# a comment that belongs to the next class
class C:
    x: int = 1
@typing.final
class D:
    pass


def f(a,b):
    return a+b
def g(): ...

ONE = 1

TWO = {'a': 1,
  'b': [2]}


THREE: int = 3
"""An attribute docstring."""

FOUR = 4



FIVE = 5
import os

SIX = os.sep
if typing.TYPE_CHECKING:
    def helper() -> None: ...
SEVEN = 7

Z = [1,2,
  3]



class E(A):
    """Doc."""
    y: str = 'single quotes'
    # trailing comment in the body


W = "after a comment"
async def h():  pass


class Methods:
    """Methods after exactly one blank line are chunks of their own."""

    def a(self) -> None: ...

    def b(self, x:int=1, *, a_rather_long_keyword_argument: str = 'quoted', another_one: bytes = b"") -> tuple[int, str]:
        return (x,a_rather_long_keyword_argument,)

    async def c(self): pass

    @property
    def d(self): return 1

    def e(self):
        pass


    def f(self):
        pass
    # a comment before g

    def g(self):
        class Inner:
            def h(self): ...

            def i(self): ...
        return Inner

    x = 1

    def j(self): ...
    def k(self): ...

    def l(self):
        """Doc string with trailing spaces   
        and a long line that is far longer than the line length of one hundred characters."""
'''


def whole(source: str) -> str:
    return black.format_str(source, mode=MODE)


def test_chunked_black_equals_whole_file_black_on_tricky_source() -> None:
    cut = chunks(TRICKY)
    members = [separator for separator, chunk in cut if chunk.startswith("class _:")]
    assert members == ["\n"] * 4  # Methods: b, c, e and l
    simple = {chunk.partition(" ")[0]: separator for separator, chunk in cut if chunk[:1].isupper()}
    # ONE follows a def; FOUR an attribute docstring; FIVE three blank lines (black: two); SIX an import
    assert simple == {"ONE": "\n\n", "TWO": "\n", "THREE:": "\n\n", "FOUR": "\n", "FIVE": "\n\n", "Z": "\n"}
    assert format_files([Sources({"m.py": TRICKY}, {})])[0]["m.py"] == whole(TRICKY)


@pytest.mark.parametrize("index", range(len(REVISIONS) + 2 * len(MULTI_REVISION) + 1))
def test_chunked_black_equals_whole_file_black_on_a_generated_package(schema_dir: Path, index: int) -> None:
    """Also proves the templates' layout: black formats only the chunks with a line too long (`settled`)."""
    raw = package_sources(every_layout(schema_dir)[index])
    formatted = format_files([raw], laid_out=True)[0]
    assert list(formatted) == [*raw.rendered, *raw.verbatim]
    for name, text in raw.rendered.items():
        assert formatted[name] == (whole(text) if name.endswith(".py") else text), name
    for name, text in raw.verbatim.items():
        assert formatted[name] == text == whole(text), name  # the runtime is written as it is: black's layout


STATEMENTS = (
    "import os",
    "from typing import Any",
    "X = 1",
    "Y: dict[str, int] = {'a': 1,\n  'b': 2}",
    "Z += [1,\n2]",
    "'''A string expression.'''",
    "# a comment\nC = 3",
    "def f(a,b): return a",
    "@decorator\ndef g(): ...",
    "class K(Base):\n    x: int = 1\n\n    def m(self): ...",
    "if X:\n    def h(): ...",
    "if X:\n    Y = 2",
    "print(1)",
    "...",
    "A = 1; B = 2",
    "class S: ...",
    "W = 5  # fmt: skip",
    "# fmt: off\nV = [1,\n  2]\n# fmt: on",
    "U = 1 \\\n",
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(['', '"""Module docstring."""']),
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(STATEMENTS)), max_size=12),
)
def test_chunked_black_equals_whole_file_black_for_any_sequence_of_top_level_statements(
    docstring: str, statements: list[tuple[int, str]]
) -> None:
    source = docstring + "".join("\n" * (1 + blank) + text for blank, text in statements) + "\n"
    assert format_files([Sources({"m.py": source}, {})])[0]["m.py"] == whole(source)


def every_layout(schema_dir: Path) -> list[PackageRequest]:
    """One request per revision, one per committed multi-revision package (both surfaces of the widest),
    and the committed package with extensions."""
    from mcpgen.inputs.extensions import resolve_extension

    single = [PackageRequest((resolve_schema(r, schema_dir=schema_dir),), r) for r in REVISIONS]
    multi = []
    for spec in MULTI_REVISION:
        sources = tuple(resolve_schema(r, schema_dir=schema_dir) for r in revision_set(spec))
        multi += [PackageRequest(sources, s.revision) for s in sources[-2:]]
    revision, names, _ = EXTENDED
    extensions = tuple(resolve_extension(name, schema_dir=schema_dir) for name in names)
    extended = PackageRequest((resolve_schema(revision, schema_dir=schema_dir),), revision, extensions=extensions)
    return single + multi + [extended]


@pytest.mark.parametrize("index", [REVISIONS.index("2024-11-05"), len(REVISIONS)])
def test_the_pool_renders_and_formats_what_one_process_does(schema_dir: Path, index: int) -> None:
    """Workers render a package in two halves (or several packages, one each) and format the chunks;
    the result is what one process rendering and formatting everything gives."""
    from mcpgen.commands.generate import _render_in_pool, package_files

    request = every_layout(schema_dir)[index]
    alone = package_files(request)
    assert [r.files for r in _render_in_pool([request], 2)] == [alone]
    assert list(_render_in_pool([request], 2)[0].files) == list(alone)  # the files in the same order too
    other = every_layout(schema_dir)[REVISIONS.index("2025-06-18")]
    assert [r.files for r in _render_in_pool([request, other], 2)] == [alone, package_files(other)]


def test_a_package_s_shared_and_revision_files_are_its_files(schema_dir: Path) -> None:
    for request in (every_layout(schema_dir)[0], every_layout(schema_dir)[-2], every_layout(schema_dir)[-1]):
        package = package_ir(request)
        shared, own = render.render_sources(package, "shared"), render.render_sources(package, "revisions")
        whole_package = render.render_sources(package)
        assert not set(shared.rendered) & set(own.rendered) and not own.verbatim
        assert {**shared.rendered, **own.rendered} == whole_package.rendered
        assert shared.verbatim == whole_package.verbatim
        assert "types.py" in own.rendered and "server.py" in shared.rendered
        assert "runtime/peer.py" in shared.verbatim


@pytest.mark.parametrize("sizes", [[], [10], [1000] * 118, [30000, 5, 5, 5], [5] * 3000, [7000, 100, 9000] * 20])
def test_format_batches_keep_the_chunks_in_order_and_shrink(sizes: list[int]) -> None:
    from mcpgen.emit.formatting import _SMALLEST_BATCH, _batches

    texts = [str(i).ljust(n, "x") for i, n in enumerate(sizes)]
    batches = _batches(texts, 2)
    assert [t for b in batches for t in b] == texts and all(batches)
    totals = [sum(map(len, b)) for b in batches]
    assert all(total >= _SMALLEST_BATCH for total in totals[:-1])
    big = [total for total in totals if total > 2 * _SMALLEST_BATCH + max(sizes, default=0)]
    assert big == sorted(big, reverse=True)
    assert len(batches) <= 4 + sum(sizes) // _SMALLEST_BATCH


def test_the_collector_pause_leaves_the_collector_as_it_found_it() -> None:
    import gc

    from mcpgen.emit.formatting import collected, paused_collector

    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    with paused_collector():
        assert not gc.isenabled() and gc.get_freeze_count() > frozen
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.freeze()  # a caller's frozen objects (before forking, say) stay frozen
    try:
        before = gc.get_freeze_count()
        with paused_collector():
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() == before > 0
    finally:
        gc.unfreeze()
    collections: list[str] = []
    gc.callbacks.append(lambda phase, info: collections.append(phase))
    try:
        assert collected(len)("abc") == 3 and "start" in collections
    finally:
        gc.callbacks.pop()


def test_generating_through_click_leaves_automatic_collection_on(tmp_path: Path, schema_dir: Path) -> None:
    """Only the console script, whose process ends with the command, turns collection off for good."""
    import gc

    from click.testing import CliRunner

    from mcpgen.cli import main

    args = ["-r", "2024-11-05", "-o", str(tmp_path / "out"), "--schema-dir", str(schema_dir), "-q"]
    frozen = gc.get_freeze_count()
    result = CliRunner().invoke(main, args, env={"MCPGEN_NO_CACHE": "1"})
    assert result.exit_code == 0, result.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen and (tmp_path / "out" / "types.py").exists()


def test_syntax_error_is_a_schema_error() -> None:
    from mcpgen.errors import SchemaError

    with pytest.raises(SchemaError, match="not valid Python"):
        format_files([Sources({"bad.py": "class :\n"}, {})])


def test_cache_round_trip_and_integrity(tmp_path: Path) -> None:
    one = (("2025-11-25", "0" * 64),)
    key = cache.package_key(one, "2025-11-25")
    assert key != cache.package_key(one, "2025-11-25", (("PingRequest", "EmptyResult"),))
    assert key != cache.package_key((("2025-11-25", "1" * 64),), "2025-11-25")
    assert key != cache.package_key((("2025-06-18", "0" * 64),), "2025-06-18")
    both = (("2025-06-18", "0" * 64), ("2025-11-25", "0" * 64))
    assert cache.package_key(both, "2025-11-25") != cache.package_key(both, "2025-06-18")
    assert cache.load(tmp_path, key) is None
    files = {"__init__.py": "# x\n", "py.typed": ""}
    cache.store(tmp_path, key, files, ("a warning",))
    assert cache.load(tmp_path, key) == (files, ("a warning",))
    entry = next((tmp_path / "packages").glob("*.json"))
    entry.write_text(entry.read_text().replace("# x", "# y"))
    assert cache.load(tmp_path, key) is None


def outcome(fn: Any, arg: Any) -> Any:
    try:
        return ("ok", repr(fn(arg)))
    except Exception as exc:
        return ("error", type(exc).__name__, getattr(exc, "code", None), getattr(exc, "data", None))


def variants(message: dict[str, Any]) -> list[Any]:
    """The message and copies with the envelope bent in every way parse_object distinguishes."""
    out: list[Any] = [message]
    for key, value in [("id", True), ("id", 1.0), ("id", None), ("id", "x"), ("id", 3), ("jsonrpc", "1.0")]:
        out.append({**message, key: value})
    out.append({k: v for k, v in message.items() if k != "id"})
    out.append({**message, "method": message["method"] + "/nope"})
    out.append({**message, "params": 5})
    return out


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_parse_object_fast_path_matches_the_full_path(packages: dict[str, Any], schema_dir: Path, revision: str) -> None:
    methods = packages[revision].methods
    root = schema_dir / revision / "doc-examples"
    checked = 0
    for entry in json.loads((root / "index.json").read_text("utf-8")):
        if not entry.get("strict_json"):
            continue
        obj = json.loads((root / entry["file"]).read_bytes())
        if not (isinstance(obj, dict) and isinstance(obj.get("method"), str)):
            continue
        for variant in variants(obj):
            fast, full = outcome(methods.parse_object, variant), outcome(methods.REGISTRY._parse_any, variant)
            assert fast == full, variant
            checked += 1
    assert checked > 50


def test_the_fast_version_lookup_agrees_with_importlib_metadata() -> None:
    from importlib import metadata

    for library, module in cache._LIBRARIES.items():
        assert cache.installed_version(library, module) == metadata.version(library)
    assert cache.installed_version("no-such-library", "no_such_module") == "missing"


def documented_requests(schema_dir: Path, revision: str) -> list[dict[str, Any]]:
    """Every request the revision's documents show (and, for 2026-07-28, its per-type examples)."""
    root = schema_dir / revision
    index = json.loads((root / "doc-examples" / "index.json").read_text("utf-8"))
    files = [root / "doc-examples" / e["file"] for e in index if e.get("strict_json")]
    files += sorted((root / "examples").glob("*Request/*.json"))
    found = []
    for path in files:
        obj = json.loads(path.read_bytes())
        if isinstance(obj, dict) and isinstance(obj.get("method"), str) and "id" in obj:
            found.append(obj)
    return found


def params_outcome(registry: Any, obj: Any) -> Any:
    """What `parse_object` makes of `obj`: its params (their type and wire data), or its error."""
    try:
        message = registry.parse_object(obj)
    except Exception as exc:
        return ("error", type(exc).__name__, getattr(exc, "code", None))
    params = getattr(message, "params", None)
    return ("ok", type(params), params.model_dump(by_alias=True, exclude_unset=True) if params is not None else None)


def alone_outcome(params: Any) -> Any:
    """`params_outcome`'s answer for params read alone."""
    return ("ok", type(params), params.model_dump(by_alias=True, exclude_unset=True))


def params_variants(message: dict[str, Any]) -> list[Any]:
    """`variants`, and copies whose params are missing, null, not an object, lose a member or hold a number
    in its place, and one with a member the envelope does not name."""
    out = variants(message)
    out.append({k: v for k, v in message.items() if k != "params"})
    out += [{**message, "params": p} for p in (None, [], "x", {})]
    params = message.get("params")
    if isinstance(params, dict):
        out += [{**message, "params": {k: v for k, v in params.items() if k != key}} for key in params]
        out += [{**message, "params": {**params, key: 7}} for key in params]
    out.append({**message, "extra": {"kept": True}})
    return out


@pytest.mark.parametrize("revision", REVISIONS)
def test_params_read_alone_are_what_the_whole_message_would_give(
    packages: dict[str, Any], schema_dir: Path, revision: str
) -> None:
    """`Registry.parse_params` answers only where `parse_object` accepts, and with its params exactly."""
    registry = packages[revision].methods.REGISTRY
    answered = 0
    for obj in documented_requests(schema_dir, revision):
        for variant in params_variants(obj):
            alone = registry.parse_params(variant)
            if alone is not None:
                answered += 1
                assert params_outcome(registry, variant) == alone_outcome(alone), variant
    assert answered >= 10


def objects_in(value: Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every JSON object in `value` (itself first)."""
    found = [at] if isinstance(value, dict) else []
    for key, item in value.items() if isinstance(value, dict) else ():
        found += objects_in(item, (*at, key))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    revision=st.sampled_from(REVISIONS),
    pick=st.integers(min_value=0),
    where=st.integers(min_value=0),
    key=st.none() | st.text(max_size=8),
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    ),
)
def test_params_read_alone_agree_on_any_bent_request(
    packages: dict[str, Any], schema_dir: Path, revision: str, pick: int, where: int, key: str | None, value: Any
) -> None:
    """A documented request with any JSON value put in any of its objects (over a member it has, or as a
    new one): params read alone, where they are, are the whole message's params, and never where the
    whole message is refused."""
    registry = packages[revision].methods.REGISTRY
    requests = documented_requests(schema_dir, revision)
    obj = json.loads(json.dumps(requests[pick % len(requests)]))
    paths = objects_in(obj)
    node = obj
    for step in paths[where % len(paths)]:
        node = node[step]
    members = sorted(node)
    node[key if key is not None or not members else members[where % len(members)]] = value
    alone = registry.parse_params(obj)
    if alone is not None:
        assert params_outcome(registry, obj) == alone_outcome(alone), obj
