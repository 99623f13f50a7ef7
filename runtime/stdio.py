"""Newline-delimited JSON-RPC over stdio for a Server or Client (asyncio, standard library only)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import selectors
import signal
import stat
import sys
from collections.abc import Mapping
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Sequence

from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    ProtocolError,
    encode,
    error_response,
    load,
    settle_answer,
    valid_id,
)
from .log import logger
from .peer import Peer

__all__ = ["LIMIT", "Connection", "Trace", "connect_stdio", "serve_stdio"]

LIMIT = 64 * 1024 * 1024
"""The longest message line read, in bytes."""
IN_FLIGHT = 16_384
"""The most of the peer's messages handled at once: a request beyond is answered -32603 at once, a
notification beyond dropped (logged), so a peer's flood cannot grow memory without end."""

Trace = Callable[[str, Any], None]
"""Called with ("in" | "out", message) for every decoded message read and every message written."""


class Connection:
    """One JSON-RPC conversation: pairs responses to our requests by id, dispatches the peer's messages to `peer.handle`."""

    def __init__(
        self, peer: Peer, write: Callable[[bytes], Awaitable[None]], trace: Trace | None = None
    ) -> None:
        self.peer = peer
        self._write = write
        self._trace = trace
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._handling = 0
        """The peer's messages being handled (a batch counts each of its messages)."""
        self._notices: set[asyncio.Future[None]] = set()
        self._closed = False

    async def send(self, message: Any) -> None:
        """Write one message as a line of JSON (ValueError, nothing written, when JSON cannot carry it)."""
        data = encode(message)
        if len(data) > LIMIT:  # the peer would refuse the line, and the answer never come
            raise ValueError(f"the message is longer than {LIMIT} bytes")
        if self._trace is not None:
            self._trace("out", message)
        await self._write(data + b"\n")

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request and wait for its result; ProtocolError for an error response."""
        if self._closed:
            raise ConnectionError("MCP connection is closed")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self.send(message)
            return await future
        except asyncio.CancelledError:
            revision = self.peer._mcp.revision()
            if (
                not self._closed
                and revision.cancelled
                and revision.cancelled_id_key
                and method != revision.handshake
            ):
                # Not waited for: a peer that stops reading would hold the caller past its timeout.
                notice = asyncio.ensure_future(
                    self.notify(revision.cancelled, {revision.cancelled_id_key: request_id})
                )
                self._notices.add(notice)
                notice.add_done_callback(_quietly(self._notices))
            raise
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def receive(self, line: bytes) -> None:
        """Take one line from the peer: settle the response it answers, or handle it in its own task."""
        try:
            obj = load(line)
        except ProtocolError as exc:
            await self.send(error_response(None, exc))
            return
        if self._trace is not None:
            self._trace("in", obj)
        if not isinstance(obj, (Mapping, list)):  # a JSON string is not read again as a message
            refused = ProtocolError(INVALID_REQUEST, "Invalid Request: not a JSON object")
            await self.send(error_response(None, refused))
            return
        if isinstance(obj, Mapping) and "method" not in obj and ("result" in obj or "error" in obj):
            settle_answer(self._pending, obj)
            return
        weight = len(obj) if isinstance(obj, list) else 1
        if self._handling + weight > IN_FLIGHT:
            request_id = obj.get("id") if isinstance(obj, Mapping) else None
            if valid_id(request_id) or isinstance(obj, list):
                busy = ProtocolError(INTERNAL_ERROR, "Too many requests in flight")
                await self.send(error_response(request_id if valid_id(request_id) else None, busy))
            else:
                logger.warning("message dropped: %d are being handled", self._handling)
            return
        self._handling += weight
        task = asyncio.ensure_future(self._reply(obj))
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._handled(done, weight))

    def _handled(self, task: asyncio.Future[Any], weight: int) -> None:
        self._tasks.discard(task)
        self._handling -= weight

    async def _reply(self, obj: Any) -> None:
        reply = await self.peer.handle(obj)
        if reply is None:
            return
        try:
            await self.send(reply)
        except ConnectionError:  # the peer is gone: nobody to answer
            return
        except ValueError as exc:
            logger.error(
                "an answer could not be written as JSON (%s): answered -32603 instead", exc
            )
            request_id = reply.get("id") if isinstance(reply, Mapping) else None
            cannot = ProtocolError(INTERNAL_ERROR, "Internal error: the answer is not valid JSON")
            await self.send(error_response(request_id if valid_id(request_id) else None, cannot))

    async def run(self, readline: Callable[[], Awaitable[bytes]]) -> None:
        """Read lines until end of input, then fail what is still waiting for an answer."""
        try:
            while True:
                try:
                    line = await readline()
                except ValueError:
                    await self.send(
                        error_response(
                            None, ProtocolError(PARSE_ERROR, "Parse error: message too long")
                        )
                    )
                    continue
                if not line:
                    break
                if line.strip():
                    await self.receive(line)
        finally:
            self._closed = True
            self.peer._mcp.input_closed()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("MCP peer closed the connection"))
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel the handlers still running."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _quietly(keep: set[asyncio.Future[None]]) -> Callable[[asyncio.Future[None]], None]:
    """A done callback that forgets a background write and whatever failed it (the peer is gone)."""

    def forget(future: asyncio.Future[None]) -> None:
        keep.discard(future)
        if not future.cancelled():
            future.exception()

    return forget


def _watchable(stream: Any) -> bool:
    """True when the event loop can watch `stream`: a pipe, a socket, or a character device the selector
    takes (a terminal; not /dev/null, which epoll refuses only once the loop starts watching it)."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return True
    if not stat.S_ISCHR(mode):
        return False
    with selectors.DefaultSelector() as probe:
        try:
            probe.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True


async def _stdin_reader() -> Callable[[], Awaitable[bytes]]:
    if _watchable(sys.stdin):
        reader = asyncio.StreamReader(limit=LIMIT)
        protocol = asyncio.StreamReaderProtocol(reader)
        with contextlib.suppress(ValueError, OSError):
            await asyncio.get_running_loop().connect_read_pipe(lambda: protocol, sys.stdin)
            return reader.readline
    # Regular files, /dev/null and other non-pipes: read them in a worker thread instead.
    return lambda: asyncio.to_thread(sys.stdin.buffer.readline)


async def serve_stdio(server: Peer, trace: Trace | None = None) -> None:
    """Serve `server` on this process's stdin and stdout until stdin closes, or until SIGINT or SIGTERM
    (then it returns quietly: the handlers still running are cancelled); requests run concurrently.
    """
    readline = await _stdin_reader()
    out = sys.stdout.buffer

    async def write(data: bytes) -> None:
        try:
            out.write(data)
            out.flush()
        except OSError as exc:  # stdout closed by the client: stop serving it
            reading.cancel()
            raise ConnectionError("the client closed its end of stdout") from exc

    connection = Connection(server, write, trace)
    server.attach(connection)
    reading = asyncio.ensure_future(connection.run(readline))
    try:
        with _stopped_by_signals(reading):
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await reading
    finally:
        server.attach(None)
        await connection.aclose()


@contextlib.contextmanager
def _stopped_by_signals(task: asyncio.Future[None]) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM cancel `task` instead of interrupting the program (where the
    event loop can take signals: the main thread, not Windows)."""
    loop = asyncio.get_running_loop()
    taken = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        taken.append(signum)
    try:
        yield
    finally:
        for signum in taken:
            loop.remove_signal_handler(signum)


@contextlib.asynccontextmanager
async def connect_stdio(
    client: Peer,
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stderr: Any = None,
    trace: Trace | None = None,
) -> AsyncIterator[Connection]:
    """Start the server `command` as a subprocess and connect `client` to its stdin and stdout
    (`stderr` goes where you say, a file or DEVNULL; not PIPE: nothing would read it)."""
    if stderr is asyncio.subprocess.PIPE:
        raise ValueError("stderr=PIPE would fill and stop the server: give a file or DEVNULL")
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        limit=LIMIT,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def write(data: bytes) -> None:
        stdin.write(data)
        await stdin.drain()

    connection = Connection(client, write, trace)
    client.attach(connection)
    reader = asyncio.ensure_future(connection.run(stdout.readline))
    try:
        yield connection
    finally:
        client.attach(None)
        with contextlib.suppress(Exception):
            stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        except BaseException:  # the caller cancelled its wait: the server does not outlive it
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(BaseException):  # reaped, a moment after SIGKILL
                await asyncio.wait_for(process.wait(), 5)
            raise
        reader.cancel()
        # a reader whose last write met the closed pipe ended with ConnectionError: what was waiting
        # has been failed with it already, so it is not raised again over the caller's own exception
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await reader
        await connection.aclose()
