"""A session-era POST's messages are sorted (runtime/http/session_era.py `sort_messages`) exactly as
`is_response` and `is_request` sort them, one message at a time: responses apart, whether any is a
handshake, whether any is a request, and a 400 for anything that is not a JSON object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http.common import is_request, is_response
from mcpgen.runtime.http.session_era import sort_messages
from mcpgen.runtime.http.wire import Reject

HANDSHAKES = frozenset({"initialize"})
VALUES = st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.just({})
MESSAGES = (
    st.dictionaries(
        st.sampled_from(["jsonrpc", "method", "id", "result", "error", "params"]),
        st.sampled_from(["initialize", "tools/call", "notifications/initialized"]) | VALUES,
        max_size=4,
    )
    | VALUES
    | st.lists(st.integers(), max_size=1)
)
"""Objects with any of a message's keys holding methods or any other values, and values that are not objects."""


def sorted_as_before(messages: list[Any]) -> Any:
    """The loop `sort_messages` replaced, with the checks it inlines."""
    responses: list[Any] = []
    rest: list[Any] = []
    initialize = asks = False
    for m in messages:
        if not isinstance(m, Mapping):
            return 400
        method = m.get("method")
        initialize = initialize or (isinstance(method, str) and method in HANDSHAKES)
        if is_response(m):
            responses.append(m)
        else:
            rest.append(m)
            asks = asks or is_request(m)
    return responses, rest, initialize, asks


@settings(max_examples=500, deadline=None)
@given(messages=st.lists(MESSAGES, max_size=4))
def test_messages_are_sorted_as_the_checks_sort_them(messages: list[Any]) -> None:
    try:
        found: Any = sort_messages(messages, HANDSHAKES)
    except Reject as reject:
        found = reject.status
    assert found == sorted_as_before(messages)
