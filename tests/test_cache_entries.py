"""The package cache's entries (generator/cache.py): what is stored is what is loaded, and an entry
altered anywhere is a miss, never other files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen import cache

_names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
_files = st.dictionaries(_names, st.text(st.characters(codec="utf-8"), max_size=40), max_size=5)
_warnings = st.lists(st.text(st.characters(codec="utf-8"), max_size=20), max_size=3).map(tuple)


@settings(max_examples=200, deadline=None)
@given(files=_files, warnings=_warnings, data=st.data())
def test_an_entry_loads_as_stored_and_any_altered_byte_misses_or_loads_the_same(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], warnings: tuple[str, ...], data: st.DataObject
) -> None:
    root = tmp_path_factory.mktemp("cache")
    key = "k" * 64
    cache.store(root, key, files, warnings)
    assert cache.load(root, key) == (files, warnings)
    entry = next((root / "packages").iterdir())
    raw = entry.read_bytes()
    (entry.parent / f"{'j' * 64}.json").write_bytes(raw)
    assert cache.load(root, "j" * 64) is None  # an entry of another key, under this key's name
    at = data.draw(st.integers(0, len(raw) - 1))
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != raw[at]))
    entry.write_bytes(raw[:at] + bytes([byte]) + raw[at + 1 :])
    assert cache.load(root, key) in (None, (files, warnings))  # a header still naming the same, at most
    entry.write_bytes(raw[:at])
    assert cache.load(root, key) is None  # cut short
