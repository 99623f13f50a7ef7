"""JSON-RPC 2.0 basics shared by every revision: errors, decoding, encoding, ids."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import from_json, to_json

from .log import logger

if TYPE_CHECKING:
    import asyncio

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "ProtocolError",
    "encode",
    "error_details",
    "error_location",
    "error_response",
    "load",
    "may_not_be_finite",
    "newer_content",
    "settle",
    "valid_id",
]


class ProtocolError(Exception):
    """A JSON-RPC error with its `code`, `message` and optional `data`, ready to send back."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        """The message, and what was wrong where the data says it (validation errors: place and reason)."""
        details = self.data if isinstance(self.data, list) else []
        found = [
            f"{'.'.join(str(part) for part in d['loc']) or '(top)'}: {d['msg']}"
            for d in details[:5]
            if isinstance(d, Mapping) and isinstance(d.get("loc"), list) and "msg" in d
        ]
        if not found:
            return self.message
        more = f" (and {len(details) - len(found)} more)" if len(details) > len(found) else ""
        return f"{self.message}: {'; '.join(found)}{more}"

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC `error` object for this error."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def error_details(exc: ValidationError) -> list[dict[str, Any]]:
    """The `data` of an invalid-params error: where each validation error is, what it says, its kind."""
    return [
        {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


def error_location(error: Mapping[str, Any]) -> tuple[Any, ...]:
    """Where a validation error is (pydantic's location, union member names included), missing members cut off."""
    loc = tuple(error["loc"])
    return loc[:-1] if error["type"] == "missing" else loc


def newer_content(error: Mapping[str, Any]) -> bool:
    """True for a validation error saying a value has a union member or enum value its revision lacks."""
    return error["type"] in ("union_tag_invalid", "literal_error", "enum")


def load(data: str | bytes | bytearray | Mapping[str, Any] | list[Any]) -> Any:
    """Decode a JSON-RPC message from UTF-8 text or bytes (objects pass through).

    Only what can be written back is read: strict JSON in UTF-8, numbers that fit a float, strings
    without lone surrogates. Anything else is -32700, so no handler ever sees a value the answer
    could not carry.
    """
    if isinstance(data, (str, bytes, bytearray)):
        try:
            value = from_json(data, allow_inf_nan=False)
        except (ValueError, TypeError) as exc:
            if str(exc).startswith("recursion limit exceeded"):  # valid JSON, deeper than is read
                raise ProtocolError(PARSE_ERROR, "Parse error: nested too deeply") from None
            raise ProtocolError(PARSE_ERROR, "Parse error: not valid JSON") from None
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if may_not_be_finite(raw) and not _finite(value):
            raise ProtocolError(PARSE_ERROR, "Parse error: a number is out of range")
        return value
    return data


_SHAPE = bytes.maketrans(b"123456789+ENI", b"0000000000e\0\0")
"""What a number looks like: every digit and `+` read as 0, every exponent marker as e; N and I (which
NaN and Infinity start with) as NUL, which JSON text holds nowhere else."""

_RUNS = bytes.maketrans(b"123456789+eENIfan[:, \t\r\n-", b"000000000000\0\0\0\1\1\2\2\2\2\2\2\2\2")
"""The shape with exponent markers read as digits too: a number a float cannot hold (a three-digit
exponent after a digit, or a long run of digits) then shows as a run of five zeros or more. What may
stand before a value (`[ : ,`, JSON whitespace, a minus) reads as 2 and N, I, f as NUL, a and n as 1,
so a NaN or Infinity literal shows as `_LITERAL`, which ordinary text (`clientInfo`) rarely does."""

_LITERAL = b"\2\0\1\0"
_LITERAL_FIRST = _LITERAL[1:]

_EXPONENT = re.compile(rb"[0-9][eE]\+?0*[1-9][0-9]{2,}(?![0-9A-Za-z_-])")
"""A digit, then an exponent of three digits or more that ends where a JSON number can (where a `0e000`
of the shape is hex text, such as a UUID, it does not)."""

_LONG_RUN = b"0" * 200
"""Digits enough to pass a float's range (about 1.8e308) with an exponent of at most two digits (210 do)."""


def may_not_be_finite(raw: bytes | bytearray) -> bool:
    """False when the JSON text `raw` holds no number too large for a float (which decodes as
    infinity) and no NaN or Infinity (which only a lax reader reads). Such a number has an exponent of
    three digits or more or a long run of digits."""
    # `partition`, not `in` or `find`: a bytes `in` first tries the needle as an integer and clears the
    # TypeError, `find` parses its arguments from a tuple; `partition` takes its one argument as it is.
    runs = raw.translate(_RUNS)
    return (
        (runs.partition(b"00000")[1] != b"" and _out_of_range(raw))
        or runs.partition(_LITERAL)[1] != b""
        or (runs[:1] == b"\0" and runs.startswith(_LITERAL_FIRST))
    )


def _out_of_range(raw: bytes | bytearray) -> bool:
    """True when `raw` holds an exponent of three digits or more, or a long run of digits."""
    shape = raw.translate(_SHAPE)
    at = shape.find(b"0e000")
    while at >= 0:
        if _EXPONENT.match(raw, at) is not None:
            return True
        at = shape.find(b"0e000", at + 1)
    return len(shape) >= len(_LONG_RUN) and shape.find(_LONG_RUN) >= 0


def _finite(value: Any) -> bool:
    """True when no float in `value` is infinite (iteratively: a deep value must not exhaust the stack)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def encode(message: Any) -> bytes:
    """A message as compact UTF-8 JSON; ValueError for what JSON cannot carry (a lone surrogate, a
    number that is not finite): a peer must never receive what it cannot read."""
    data = to_json(message)
    if (data.find(b"Infinity") >= 0 or data.find(b"NaN") >= 0) and not _finite(message):
        raise ValueError("a number is not finite")
    return data


def valid_id(value: Any) -> bool:
    """True for a usable JSON-RPC request id: a string or an integer (not a boolean)."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def error_response(request_id: Any, error: ProtocolError) -> dict[str, Any]:
    """A JSON-RPC error response to `request_id` (None when it could not be read)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


def settle_answer(
    pending: Mapping[Any, asyncio.Future[Any]],
    response: Mapping[str, Any],
    post: asyncio.Future[Any] | None = None,
) -> None:
    """Resolve the future in `pending` that `response` answers (our ids are integers); an error with a
    null id (the peer could not read one) resolves `post`, the request it came back for. Any other
    response answers nothing of ours: it is ignored, and logged."""
    request_id = response.get("id")
    future = pending.get(request_id) if type(request_id) is int else None
    if future is None and request_id is None and "error" in response:
        future = post
    if future is None or future.done():
        logger.warning("response to unknown request id %.100r ignored", request_id)
        return
    settle(future, response)


def settle(future: asyncio.Future[Any], response: Mapping[str, Any]) -> None:
    """Resolve `future` with a JSON-RPC response: its result, or ProtocolError for its error."""
    error = response.get("error")
    if error is None:
        future.set_result(response.get("result"))
    elif isinstance(error, Mapping) and type(error.get("code")) is int:
        future.set_exception(
            ProtocolError(error["code"], str(error.get("message", "")), error.get("data"))
        )
    else:
        future.set_exception(ProtocolError(INTERNAL_ERROR, "Malformed error response", error))
