"""What only a live session shows: requests in flight (an id reused, a response that never comes) and
messages sent before the handshake ends."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ...messages.conversation import Verdict
from ...messages.targets import id_key
from ...messages.wire import OTHER
from ...runtime.facts import Lifecycle

MAX_IN_FLIGHT = 10_000
"""Requests followed per conversation; beyond, the oldest are forgotten (they time out unreported)."""
# The transport-independent names the lifecycle facts do not hold (the spec's Progress and Logging pages).
PROGRESS = "notifications/progress"
LOGGING = "notifications/message"


@dataclass
class Request:
    """A request in flight: who sent it, its method, when it was relayed (monotonic seconds), its message number."""

    direction: str
    method: str
    since: float
    number: int
    shown: str
    token: str | None = None
    late: bool = False  # reported as unanswered already


@dataclass(frozen=True)
class Problem:
    """A live rule broken: the rule and why (the message it concerns is the caller's)."""

    rule: str
    error: str


class Live:
    """The requests in flight of one conversation and where its handshake stands."""

    def __init__(self, timeout: float, from_start: bool = True) -> None:
        self.timeout = timeout
        self.in_flight: OrderedDict[tuple[str, str], Request] = OrderedDict()
        self._tokens: dict[str, tuple[str, str]] = {}
        # start, asked (initialize sent), answered (its response came), ready (the client is initialized);
        # a conversation seen from its middle (an HTTP session the tap did not see begin) is ready.
        self._phase = "start" if from_start else "ready"
        self._initialize = ""

    def arrive(self, direction: str, value: Any, number: int, now: float, shown: str) -> list[Problem]:
        """Follow a message as it is relayed: a request goes in flight (an id already in flight is reused),
        a response takes its request out."""
        if not isinstance(value, dict) or "id" not in value:
            return []
        if isinstance(value.get("method"), str):
            key = (direction, id_key(value["id"]))
            earlier = self.in_flight.pop(key, None)
            token = self._token(value)
            self.in_flight[key] = Request(direction, value["method"], now, number, shown, token)
            if token is not None:
                self._tokens[token] = key
            while len(self.in_flight) > MAX_IN_FLIGHT:
                self._forget(next(iter(self.in_flight)))
            if earlier is not None and not earlier.late:
                return [Problem("id-reused", f"id {id_key(value['id'])[:60]} is reused while the {earlier.method} request {number - earlier.number} messages before is still in flight")]
            return []
        if "result" in value or "error" in value:
            self.settle(OTHER[direction], value["id"])
        return []

    def settle(self, direction: str, ident: Any) -> None:
        """The request `direction` sent with id `ident` is answered (or refused by the transport)."""
        self._forget((direction, id_key(ident)))

    def _forget(self, key: tuple[str, str]) -> None:
        request = self.in_flight.pop(key, None)
        if request is not None and request.token is not None:
            self._tokens.pop(request.token, None)

    @staticmethod
    def _token(value: dict[str, Any]) -> str | None:
        params = value.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        return None if token is None else id_key(token)

    def judged(self, verdict: Verdict, lifecycle: Lifecycle | None, now: float) -> list[Problem]:
        """The rules that need the revision: cancellation and progress (which stop or restart a request's
        clock) and messages sent before the handshake ends (session-era revisions)."""
        msg = verdict.message
        value = msg.value if msg.unreadable is None else None
        if not isinstance(value, dict) or msg.direction is None or lifecycle is None:
            return []
        method = value.get("method")
        params: dict[str, Any] = value["params"] if isinstance(value.get("params"), dict) else {}
        if method == lifecycle.cancelled and lifecycle.cancelled_id_key and lifecycle.cancelled_id_key in params:
            self._forget((msg.direction, id_key(params[lifecycle.cancelled_id_key])))  # the requester cancels
        elif method == PROGRESS and "progressToken" in params:
            found = self.in_flight.get(self._tokens.get(id_key(params["progressToken"]), ("", "")))
            if found is not None:
                found.since = max(found.since, now)
        legacy = lifecycle.legacy
        if legacy is None:
            return []
        return self._handshake(msg.direction, value, legacy.method, legacy.initialized, lifecycle.ping)

    def _handshake(self, direction: str, value: dict[str, Any], initialize: str, initialized: str | None, ping: str | None) -> list[Problem]:
        method = value.get("method")
        if direction == "c2s" and method == initialize:
            self._phase, self._initialize = "asked", id_key(value.get("id"))
            return []
        if direction == "c2s" and method == initialized:
            self._phase = "ready"
            return []
        if "method" not in value:  # a response answers what was asked
            if direction == "s2c" and self._phase == "asked" and id_key(value.get("id")) == self._initialize:
                self._phase = "answered" if initialized else "ready"
            return []
        if self._phase == "ready" or method == ping:
            return []
        if direction == "c2s":
            return [] if self._phase == "answered" else [Problem("handshake", f"sent before the server answered {initialize}")]
        if method == LOGGING:
            return []
        return [Problem("handshake", f"sent before the client's {initialized or initialize}")]

    def overdue(self, now: float) -> list[Request]:
        """The requests in flight longer than the timeout, each reported once."""
        if not self.timeout:
            return []
        out = []
        for request in self.in_flight.values():
            if not request.late and now - request.since > self.timeout:
                request.late = True
                out.append(request)
        return out
