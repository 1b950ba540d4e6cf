"""The webhook server: Telegram's updates in, health endpoints out, so that several instances can
run behind a load balancer. `python -m bot` uses it when WEBHOOK_URL is set (bot/cli.py).

POST <path of WEBHOOK_URL>  an update, with the secret in X-Telegram-Bot-Api-Secret-Token
GET  /healthz               200 while the process serves (liveness)
GET  /readyz                200 when the database answers and the bank is loaded; 503 with a
                            reason otherwise, and from the moment a drain begins
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import signal
from urllib.parse import urlparse

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.app import ALLOWED_UPDATES, stop_app
from bot.settings import Settings

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Telegram's updates are a few kB; a megabyte leaves room for the largest and refuses floods.
MAX_BODY_BYTES = 1024 * 1024
# After SIGTERM the instance keeps serving this long with /readyz at 503, so that the balancer
# sees it go unready and sends elsewhere before the port closes (a second signal cuts it short).
DRAIN_SECONDS = 5.0
# In-flight requests get this long to finish once the port is closed.
CLOSE_SECONDS = 5.0
READY_DB_SECONDS = 2.0


class CannotListen(RuntimeError):
    """The webhook server's address is taken or not ours (one line for `python -m bot`)."""


class _Endpoints:
    """The HTTP side of one running Application: the webhook and the two health checks."""

    def __init__(self, app: Application, path: str, secret: str) -> None:
        self.app = app
        self.secret = secret.encode()
        self.draining = False
        self.web_app = web.Application(client_max_size=MAX_BODY_BYTES)
        self.web_app.router.add_post(path, self.receive_update)
        self.web_app.router.add_get("/healthz", self.healthz)
        self.web_app.router.add_get("/readyz", self.readyz)

    async def receive_update(self, request: web.Request) -> web.Response:
        """One update from Telegram onto the Application's queue. The body holds what users
        typed: it is never logged, also not when it is refused."""
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, self.secret):
            return web.Response(status=403, text="forbidden")
        if not self.app.running:
            # The queue is no longer read: a 200 would lose the update; Telegram retries a 503.
            return web.Response(status=503, text="stopping")
        try:
            data = json.loads(await request.read())
        except ValueError:  # also UnicodeDecodeError
            log.warning("webhook: refused a body that is not JSON")
            return web.Response(status=400, text="bad json")
        update = None
        if isinstance(data, dict) and isinstance(data.get("update_id"), int):
            try:
                update = Update.de_json(data, self.app.bot)
            except Exception as exc:  # noqa: BLE001 - any malformed part: a 400, not a 500
                log.warning("webhook: refused a malformed update (%s)", type(exc).__name__)
        if update is None:
            return web.Response(status=400, text="not an update")
        await self.app.update_queue.put(update)
        return web.Response(text="ok")

    async def healthz(self, request: web.Request) -> web.Response:
        """Liveness: the process answers."""
        return web.Response(text="ok")

    async def readyz(self, request: web.Request) -> web.Response:
        """Readiness: worth sending updates to (not draining, database and bank usable)."""
        if self.draining:
            return web.Response(status=503, text="draining")
        services = self.app.bot_data.get("services")
        if not self.app.running or services is None:
            return web.Response(status=503, text="not started")
        bank = getattr(services, "bank", None)
        if bank is None or len(bank) == 0:
            return web.Response(status=503, text="no questions loaded")
        try:
            async with asyncio.timeout(READY_DB_SECONDS):
                await services.db.fetchone("SELECT 1")
        except TimeoutError:
            return web.Response(status=503, text="database timed out")
        except Exception as exc:  # noqa: BLE001 - any database error means not ready
            log.warning("readyz: database unavailable (%s)", type(exc).__name__)
            return web.Response(status=503, text="database unavailable")
        return web.Response(text="ready")


async def serve(app: Application, settings: Settings, *, stop: asyncio.Event | None = None,
                drain_seconds: float = DRAIN_SECONDS) -> None:
    """What PTB's run_webhook does, on the caller's loop and on our own server: start the bot,
    set the webhook, serve until SIGTERM/SIGINT (or `stop` is set when given), then drain.

    The webhook is left set on exit: other instances behind the same URL keep serving it.
    """
    if not settings.webhook_url or settings.webhook_secret is None:
        raise ValueError("serve() needs WEBHOOK_URL and WEBHOOK_SECRET")
    secret = settings.webhook_secret.get_secret_value()
    endpoints = _Endpoints(app, urlparse(settings.webhook_url).path or "/", secret)
    hurry = asyncio.Event()  # a second signal: skip the rest of the drain's grace
    loop = asyncio.get_running_loop()
    own_signals: list[signal.Signals] = []
    if stop is None:
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
                loop.add_signal_handler(sig, _on_signal, stop, hurry)
                own_signals.append(sig)
    runner: web.AppRunner | None = None
    try:
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        if stop.is_set():
            return
        await app.bot.set_webhook(url=settings.webhook_url, secret_token=secret,
                                  allowed_updates=ALLOWED_UPDATES)
        await app.start()
        runner = web.AppRunner(endpoints.web_app, access_log=None,
                               shutdown_timeout=CLOSE_SECONDS)
        await runner.setup()
        site = web.TCPSite(runner, settings.webhook_listen, settings.webhook_port)
        try:
            await site.start()
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise CannotListen(f"cannot listen on {settings.webhook_listen}:"
                               f"{settings.webhook_port} (WEBHOOK_LISTEN, WEBHOOK_PORT): "
                               f"{reason}") from exc
        log.info("webhook mode on %s:%d", settings.webhook_listen, settings.webhook_port)
        await stop.wait()
        endpoints.draining = True
        log.info("draining: /readyz answers 503, closing the port in %.0f s", drain_seconds)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(hurry.wait(), drain_seconds)
    finally:
        # Close the port before stopping the Application: an update accepted after app.stop()
        # would be answered 200 and never processed.
        if runner is not None:
            endpoints.draining = True
            await runner.cleanup()
        # As run_webhook does it; app.stop() processes what is queued.
        try:
            await stop_app(app)
        finally:
            for sig in own_signals:
                loop.remove_signal_handler(sig)


def _on_signal(stop: asyncio.Event, hurry: asyncio.Event) -> None:
    if stop.is_set():
        hurry.set()
    stop.set()


def run(app: Application, settings: Settings) -> None:
    """`serve` on a new event loop, until SIGTERM or SIGINT (for `python -m bot`)."""
    asyncio.run(serve(app, settings))
