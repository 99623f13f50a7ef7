"""JSON-RPC basics of the runtime source: what is read, what is written, how responses settle."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic_core import from_json

from mcpgen.runtime.jsonrpc import (
    INTERNAL_ERROR,
    PARSE_ERROR,
    ProtocolError,
    encode,
    error_response,
    load,
    may_not_be_finite,
    settle,
    valid_id,
)

EDGES = [
    b'{"a":1,"a":2}', b"1e400", b"-1e999", b"1" * 400 + b".5", b"-0", b"-0.0", b"NaN", b"[Infinity,-Infinity]",
    b'"\\ud800"', b'"\\udc00x"', b'["\\ud83d\\ude00"]', b"\xef\xbb\xbf{}", "{}".encode("utf-16"),
    "{}".encode("utf-32"), b'"\t"', b"01", b"[1,]", b'"\xff"', b'"\xed\xa0\x80"', b"12345678901234567890123",
    b"[" * 150 + b"]" * 150, b"[" * 5000 + b"]" * 5000, b" \x0c{}", b'"\\u0000"', b"4.9e-324", b"1e308", b"",
    b'{"e": "1e999"}', b"[1E+400]", b"[1" + b"0" * 250 + b"e99]", b"2" + b"0" * 209 + b"e99", b"1e0400",
    b'{"id": "550e8400-e29b-41d4-a716-446655440000"}', b"[1e+308, 1.7976931348623157e308, 1.8e308]",
    b'{"id": "550e8400-e29b", "x": 1e400}',
    b"-" + b"9" * 180 + b".5e130", b"0." + b"0" * 300 + b"1e400",
]  # fmt: skip


def oracle(data: bytes) -> Any:
    """What the runtime must read: strict JSON in UTF-8 (no BOM), finite numbers, no lone surrogates,
    nesting a parser can hold; else None (a -32700 answer). Decided with the standard library alone.
    """

    def refuse(token: str) -> float:
        raise ValueError(token)

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value

    try:
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            return None
        value = json.loads(text, parse_constant=refuse, parse_float=finite)
        json.dumps(value, ensure_ascii=False).encode(
            "utf-8"
        )  # lone surrogates cannot be written back
    except (ValueError, RecursionError, UnicodeError):
        return None
    return value if _depth(value) <= 200 else None


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (the runtime's JSON reader stops at about 200)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend(
                (child, level + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


@pytest.mark.parametrize("data", EDGES, ids=[repr(e[:16]) for e in EDGES])
def test_load_reads_exactly_what_can_be_written_back(data: bytes) -> None:
    expected = oracle(data)
    if expected is None:
        with pytest.raises(ProtocolError) as caught:
            load(data)
        assert caught.value.code == PARSE_ERROR
        return
    value = load(data)
    assert value == expected and json.dumps(value) == json.dumps(expected)
    assert json.loads(encode(value)) == expected


def number_texts() -> st.SearchStrategy[bytes]:
    """JSON numbers of every shape, near and far beyond a float's range: integer digits up to 400,
    a fraction, an exponent of up to four digits (leading zeros too) and either sign."""
    digits = st.integers(0, 400).map(lambda n: b"1" + b"0" * n) | st.integers(0, 10**20).map(
        lambda n: str(n).encode()
    )
    fraction = st.none() | st.integers(0, 10**12).map(lambda n: b"." + str(n).encode())
    exponent = st.none() | st.tuples(
        st.sampled_from([b"e", b"E"]), st.sampled_from([b"", b"+", b"-"]), st.integers(0, 1200)
    ).map(lambda e: e[0] + e[1] + str(e[2]).zfill(len(str(e[2])) + e[2] % 2).encode())
    sign = st.sampled_from([b"", b"-"])
    return st.builds(
        lambda s, d, f, e: s + d + (f or b"") + (e or b""), sign, digits, fraction, exponent
    )


@given(
    st.lists(
        number_texts() | st.sampled_from([b'"1e999"', b'"550e8400-e29b"', b"true"]),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([b",", b", ", b" ,\n"]),
)
def test_load_reads_any_number_exactly_when_a_float_can_carry_it(
    parts: list[bytes], comma: bytes
) -> None:
    """`load` walks the decoded value only where the text may hold a number beyond a float's range:
    that guess must never miss one (the oracle decides with the standard library alone)."""
    data = b"[" + comma.join(parts) + b"]"
    expected = oracle(data)
    if expected is None:
        with pytest.raises(ProtocolError):
            load(data)
    else:
        assert load(data) == expected


def _carries_only_finite_numbers(data: bytes) -> bool:
    """True when the standard library reads every number of `data` as a finite float, and no NaN
    or Infinity literal."""

    def refuse(token: str) -> float:
        raise ValueError(token)

    def finite(text: str) -> float:
        if not math.isfinite(float(text)):
            raise ValueError(text)
        return 0.0

    try:
        json.loads(data, parse_constant=refuse, parse_float=finite)
    except ValueError:
        return False
    return True


@given(
    st.lists(
        number_texts()
        | st.sampled_from(
            [
                b"NaN",
                b"Infinity",
                b"-Infinity",
                b'"Ne+12345e"',
                b'"550e8400-e29b"',
                b'"See 1e4"',
                b"true",
            ]
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([b",", b", ", b" ,\n"]),
)
@example([b"1e400"], b",")  # the shortest run a three-digit exponent makes
@example([b'"x"', b"9" + b"0" * 210 + b"e99"], b", ")
@example([b'"In"', b"-Infinity"], b",")
def test_the_quick_number_test_never_misses_what_a_float_cannot_carry(
    parts: list[bytes], comma: bytes
) -> None:
    """`may_not_be_finite` answers most texts with one search for a run of digit-like bytes: where the
    standard library finds a number beyond a float's range, or a NaN or Infinity, it must say so."""
    data = b"[" + comma.join(parts) + b"]"
    if not _carries_only_finite_numbers(data):
        assert may_not_be_finite(data)
    if not _carries_only_finite_numbers(data.replace(b"NaN", b"0").replace(b"Infinity", b"0")):
        assert may_not_be_finite(data.replace(b"NaN", b"0").replace(b"Infinity", b"0"))


@given(
    st.sampled_from([b"NaN", b"Infinity", b"-Infinity"]),
    st.text(alphabet=" \t\r\n", max_size=3).map(str.encode),
    st.sampled_from(
        [
            (b"", b""),
            (b"[", b"]"),
            (b"[1,", b"]"),
            (b'{"clientInfo":', b"}"),
            (b'{"a":[true,', b"]}"),
            (b'{"Name":"Inf","b":', b"}"),
        ]
    ),
)
def test_the_quick_literal_test_sees_a_literal_wherever_the_reader_takes_one(
    literal: bytes, space: bytes, around: tuple[bytes, bytes]
) -> None:
    """A NaN or Infinity the one-pass reader's JSON parser takes stands at the start, or after
    `[ : ,`, whitespace or a minus: wherever it stands, and beside text that spells its letters, the
    quick test sees it."""
    data = around[0] + space + literal + around[1]
    assert not math.isfinite(_first_non_finite(from_json(data)))
    assert may_not_be_finite(data)


def _first_non_finite(value: Any) -> float:
    """The first float of `value` that is not finite (depth first), or 0.0."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return 0.0


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=10,
    )
)
def test_encode_writes_json_or_refuses(value: Any) -> None:
    try:
        data = encode(value)
    except ValueError:
        assert not _writable(value)
        return
    assert _writable(value)
    assert json.loads(data, parse_constant=lambda c: pytest.fail(f"wrote {c}")) == json.loads(
        json.dumps(value)
    )


def _writable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeError):
        return False
    return True


def test_strings_passed_in_are_read_like_bytes() -> None:
    assert load('{"a":"é"}') == {"a": "é"}
    assert load({"already": "decoded"}) == {"already": "decoded"}
    with pytest.raises(ProtocolError):
        load('"\ud800"')


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (1, True),
        ("x", True),
        (0, True),
        (True, False),
        (1.0, False),
        (None, False),
        ([1], False),
        ({}, False),
    ],
)
def test_valid_id(value: Any, ok: bool) -> None:
    assert valid_id(value) is ok


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"result": {"a": 1}}, {"a": 1}),
        ({"result": None}, None),
        (
            {"error": {"code": -32602, "message": "bad", "data": [1]}},
            ProtocolError(-32602, "bad", [1]),
        ),
        (
            {"error": {"code": True, "message": "bad"}},
            ProtocolError(INTERNAL_ERROR, "Malformed error response"),
        ),
        ({"error": "oops"}, ProtocolError(INTERNAL_ERROR, "Malformed error response")),
        ({"error": {"code": 1.5}}, ProtocolError(INTERNAL_ERROR, "Malformed error response")),
    ],
)
def test_settle_resolves_with_the_result_or_a_protocol_error(
    response: dict[str, Any], expected: Any
) -> None:
    async def settled() -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        settle(future, response)
        return future.exception() or future.result()

    got = asyncio.run(settled())
    if isinstance(expected, ProtocolError):
        assert isinstance(got, ProtocolError) and (got.code, got.message) == (
            expected.code,
            expected.message,
        )
    else:
        assert got == expected


def test_error_response_carries_code_message_and_data_only_when_given() -> None:
    assert error_response(7, ProtocolError(-32601, "nope")) == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32601, "message": "nope"},
    }
    assert error_response(None, ProtocolError(1, "m", {"x": 1}))["error"]["data"] == {"x": 1}
