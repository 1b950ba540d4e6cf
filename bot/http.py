"""The bot's requests to the Bot API over aiohttp, in place of python-telegram-bot's default
httpx client.

Measured (`make bench`, the e2e part): httpx with httpcore's connection pool and anyio cost about
1.5 ms of CPU per call on the project's machine (the pool checks every connection with two
system calls on each request), aiohttp's client about 0.3 ms; at four calls and a share of a
poll per answer that was about a third of the bot's CPU. aiohttp is already the webhook
server's.

Errors keep PTB's meaning: a timeout is `TimedOut`, anything else on the way is
`NetworkError`, and the aiohttp exception is the `__cause__`, which
`telegram_limits.surely_not_sent` reads to tell a request that never left from one that may
have arrived.
"""

from __future__ import annotations

import ssl
from typing import Any

import aiohttp
import certifi
from telegram._utils.defaultvalue import DefaultValue
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

# Failures after which the request surely did not reach Telegram: no connection was made.
NOT_SENT = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)


class AiohttpRequest(BaseRequest):
    """A `BaseRequest` on one aiohttp session, with PTB's timeouts and defaults: 5 s to connect,
    write and read, 1 s to wait for a free connection, 20 s to write a file."""

    __slots__ = ("_connect", "_media_write", "_pool", "_pool_size", "_read", "_session",
                 "_write")

    def __init__(self, connection_pool_size: int = 256, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0, media_write_timeout: float | None = 20.0,
                 ) -> None:
        self._pool_size = connection_pool_size
        self._read, self._write = read_timeout, write_timeout
        self._connect, self._pool = connect_timeout, pool_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            # Made here, not in __init__: a session belongs to the running event loop.
            # The certificates httpx (PTB's default) trusted: certifi's, not whatever the
            # system has (a slim container image may have none).
            tls = ssl.create_default_context(cafile=certifi.where())
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size, ssl=tls),
                headers={"User-Agent": self.USER_AGENT},
                # PTB reads the body whatever the status; aiohttp must not raise on 4xx/5xx.
                raise_for_status=False,
                # HTTPS_PROXY / NO_PROXY from the environment, as httpx (PTB's default) read them:
                # a bot that reaches Telegram through a proxy keeps doing so.
                trust_env=True)

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    def _timeout(self, read: Any, write: Any, connect: Any, pool: Any,
                 files: bool) -> aiohttp.ClientTimeout:
        """PTB's four timeouts in aiohttp's terms: waiting for a free connection and making one
        (`connect`), making one (`sock_connect`), each read (`sock_read`); aiohttp has no write
        timeout, so a whole request is bounded by the sum of all four."""
        read = self._read if isinstance(read, DefaultValue) else read
        connect = self._connect if isinstance(connect, DefaultValue) else connect
        pool = self._pool if isinstance(pool, DefaultValue) else pool
        if isinstance(write, DefaultValue):
            write = self._media_write if files else self._write
        parts = (read, write, connect, pool)
        total = None if any(p is None for p in parts) else sum(parts)
        acquire = None if connect is None or pool is None else connect + pool
        return aiohttp.ClientTimeout(total=total, connect=acquire, sock_connect=connect,
                                     sock_read=read)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        data: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            form = aiohttp.FormData(fields or {})
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            data = form
        timeout = self._timeout(read_timeout, write_timeout, connect_timeout, pool_timeout,
                                bool(files))
        try:
            async with self._session.request(method, url, data=data, timeout=timeout) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's own timeouts are TimeoutErrors too
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc
