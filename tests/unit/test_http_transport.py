"""The bot's Bot API transport (bot/http.py) against real sockets: what it sends, what it returns,
and how each failure reaches PTB and the retry rules (`surely_not_sent`)."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from aiohttp import web
from telegram import InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.http import AiohttpRequest
from bot.telegram_limits import surely_not_sent


@pytest.fixture
async def server():
    """A local server: /echo returns what it got, /refuse a 400, /slow answers after 2 s, /cut
    closes the connection without an answer."""
    async def echo(request: web.Request) -> web.Response:
        form = await request.post()
        got = {name: (value.filename, value.file.read().hex(), value.content_type)
               if isinstance(value, web.FileField) else value for name, value in form.items()}
        return web.json_response({"ok": True, "result": got,
                                  "agent": request.headers.get("User-Agent", "")})

    async def refuse(_: web.Request) -> web.Response:
        return web.json_response({"ok": False, "error_code": 400,
                                  "description": "Bad Request: no"}, status=400)

    async def slow(_: web.Request) -> web.Response:
        await asyncio.sleep(2)
        return web.json_response({"ok": True, "result": True})

    async def cut(request: web.Request) -> web.Response:
        assert request.transport is not None
        request.transport.close()
        await asyncio.sleep(1)
        return web.json_response({})

    app = web.Application()
    for path, handler in (("/echo", echo), ("/refuse", refuse), ("/slow", slow), ("/cut", cut)):
        app.router.add_post(path, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


@pytest.fixture
async def transport():
    request = AiohttpRequest(read_timeout=0.5, connect_timeout=0.5, pool_timeout=0.2,
                             connection_pool_size=1)
    await request.initialize()
    yield request
    await request.shutdown()


def data(**values: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in values.items()])


async def test_form_fields_files_and_statuses_reach_ptb_as_httpx_gave_them(server, transport):
    status, body = await transport.do_request(f"{server}/echo", "POST",
                                              data(chat_id=5, text="héllo", reply_markup=None))
    answer = json.loads(body)
    assert status == 200 and answer["result"] == {"chat_id": "5", "text": "héllo"}
    assert answer["agent"].startswith("python-telegram-bot")
    photo = InputFile(b"\x89PNG fake", filename="chart.png")
    status, body = await transport.do_request(f"{server}/echo", "POST",
                                              data(chat_id=5, photo=photo))
    result = json.loads(body)["result"]
    assert result["chat_id"] == "5"
    [(filename, content, mimetype)] = [v for k, v in result.items() if k != "chat_id"]
    assert (filename, bytes.fromhex(content), mimetype) == ("chart.png", b"\x89PNG fake",
                                                            "image/png")
    # An error status is PTB's to read (it raises BadRequest from the body), not the transport's.
    status, body = await transport.do_request(f"{server}/refuse", "POST", data(chat_id=5))
    assert status == 400 and json.loads(body)["description"] == "Bad Request: no"


async def test_a_late_answer_is_a_timeout_that_may_have_arrived(server, transport):
    with pytest.raises(TimedOut) as raised:
        await transport.do_request(f"{server}/slow", "POST", data(chat_id=5))
    assert not surely_not_sent(raised.value)


async def test_a_cut_connection_may_have_arrived(server, transport):
    with pytest.raises(NetworkError) as raised:
        await transport.do_request(f"{server}/cut", "POST", data(chat_id=5))
    assert not isinstance(raised.value, TimedOut) and not surely_not_sent(raised.value)


async def test_no_connection_or_no_free_one_surely_did_not_send(server, transport):
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(NetworkError) as raised:
        await transport.do_request(f"http://127.0.0.1:{port}/x", "POST", data(chat_id=5))
    assert surely_not_sent(raised.value)
    # The one connection is busy with a slow call: the next one waits 0.2 s for it, then gives up.
    busy = asyncio.create_task(transport.do_request(f"{server}/slow", "POST", data(chat_id=5),
                                                    read_timeout=5.0))
    await asyncio.sleep(0.05)
    with pytest.raises(TimedOut) as raised:
        await transport.do_request(f"{server}/echo", "POST", data(chat_id=5),
                                   read_timeout=5.0)
    assert surely_not_sent(raised.value)
    assert (await busy)[0] == 200


async def test_it_refuses_before_initialize_and_after_shutdown():
    request = AiohttpRequest()
    with pytest.raises(RuntimeError):
        await request.do_request("http://127.0.0.1:1/x", "POST")
    await request.initialize()
    await request.shutdown()
    with pytest.raises(RuntimeError):
        await request.do_request("http://127.0.0.1:1/x", "POST")
    await request.initialize()  # PTB may initialize an Application again after a shutdown
    await request.shutdown()


async def test_a_proxy_set_in_the_environment_is_used_as_httpx_used_it(server, monkeypatch):
    """HTTP_PROXY from the environment (as PTB's default httpx client read it): the request for
    a host that does not exist goes to the proxy, which answers it."""
    seen: list[str] = []

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        seen.append(head.split(b"\r\n", 1)[0].decode())
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        await reader.readexactly(length)
        body = b'{"ok": true, "result": "via the proxy"}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    port = proxy.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    request = AiohttpRequest()
    await request.initialize()
    try:
        status, body = await request.do_request("http://telegram.invalid/bot1:x/getMe", "POST")
    finally:
        await request.shutdown()
        proxy.close()
    assert status == 200 and json.loads(body)["result"] == "via the proxy"
    assert seen == ["POST http://telegram.invalid/bot1:x/getMe HTTP/1.1"]
