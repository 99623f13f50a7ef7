"""`malformed_param` (runtime/http/stateless.py), which finds a stateless request's malformed `Mcp-Param-*`
header and remembers the names that are no `Mcp-Param-*` header to skip the scan: over any sequence of
requests' header sets it names exactly the first header the mirroring rule refuses (the `mcp-param-`
prefix, `decode_header`'s rule as its independent oracle says), whatever was remembered before."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http import stateless
from test_runtime_header_decode import oracle as decoded

NAMES = st.sampled_from(
    [
        "host",
        "accept",
        "mcp-name",
        "mcp-param-region",
        "mcp-param-other",
        "mcp-params",
        "x-mcp-param-a",
    ]
) | st.text(alphabet="abcmp-", max_size=14)
VALUES = st.sampled_from(["eu", "=?base64?ZXU=?=", "e\x01u", "=?base64?!?=", " ", "\xe9"])
HEADERS = st.dictionaries(NAMES, VALUES, max_size=8)


def first_refused(headers: dict[str, str]) -> str | None:
    """The first header, in order, that is an `Mcp-Param-*` header whose value the rule refuses."""
    return next(
        (n for n, v in headers.items() if n.startswith("mcp-param-") and decoded(v) is None), None
    )


@settings(max_examples=400, deadline=None)
@given(sequence=st.lists(HEADERS, max_size=6))
@example(sequence=[{"mcp-param-region": "eu"}, {"mcp-param-region": "e\x01u"}])
def test_any_sequence_of_header_sets_is_checked_as_the_rule_says(
    sequence: list[dict[str, str]],
) -> None:
    """What a header set before taught the check never lets a later malformed `Mcp-Param-*` header pass."""
    stateless.NOT_PARAMS.clear()
    for headers in sequence:
        assert stateless.malformed_param(headers) == first_refused(headers)
    assert not any(n.startswith("mcp-param-") for n in stateless.NOT_PARAMS)


def test_the_names_remembered_are_bounded() -> None:
    """However many distinct header names clients send, at most `NOT_PARAMS_KEPT` are remembered."""
    stateless.NOT_PARAMS.clear()
    for k in range(3 * stateless.NOT_PARAMS_KEPT):
        assert stateless.malformed_param({f"x-{k}": "v", "mcp-param-a": "\x01"}) == "mcp-param-a"
    assert len(stateless.NOT_PARAMS) == stateless.NOT_PARAMS_KEPT
    stateless.NOT_PARAMS.clear()
