"""A round-robin load balancer for webhook posts on 127.0.0.1: Telegram allows one webhook URL,
and several instances of the bot sit behind it (tests/e2e/test_instances.py, the benchmarks'
instances part). An instance that does not answer is skipped, as a balancer would."""

from __future__ import annotations

import json
import socket
from typing import Any

import aiohttp
from aiohttp import web

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Balancer:
    """Spreads the webhook's posts over the instances' ports in turn; `handled_by` records
    which port took each update."""

    def __init__(self, ports: list[int], path: str = "/hook") -> None:
        self.ports = ports
        self.path = path
        self.port = free_port()
        self.turn = 0
        self.handled_by: list[tuple[int, dict[str, Any]]] = []
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post(self.path, self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        self._session = aiohttp.ClientSession()

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None
        body = await request.read()
        for _ in range(len(self.ports)):
            port = self.ports[self.turn % len(self.ports)]
            self.turn += 1
            try:
                async with self._session.post(
                        f"http://127.0.0.1:{port}{self.path}", data=body, headers={
                            "Content-Type": "application/json",
                            SECRET_HEADER: request.headers.get(SECRET_HEADER, "")},
                        timeout=aiohttp.ClientTimeout(total=5)) as answer:
                    if answer.status == 200:
                        self.handled_by.append((port, json.loads(body)))
                    return web.Response(status=answer.status, body=await answer.read())
            except (TimeoutError, aiohttp.ClientError):
                continue  # that instance is gone: the next one takes the post
        return web.Response(status=502)

    def port_that_handled(self, text: str) -> int:
        """The instance that took the message with this text."""
        return next(port for port, update in self.handled_by
                    if update.get("message", {}).get("text") == text)
