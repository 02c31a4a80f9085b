"""What a misbehaving client cannot do to `serve rest`: the same guard as `serve llm` (workbench.httpguard),
each finding of a hostile run reproduced at a small, bounded scale against 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Coroutine, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tests.llm.test_abuse import closed, raw, status_and_json, wait_until
from tests.rest.helpers import EVERYTHING, schedule_of
from workbench.httpguard import Limits
from workbench.rest.player import new_session
from workbench.rest.server import RestServer
from workbench.rest.session import RestSession

T = TypeVar("T")


class Served:
    """A RestServer on a loop of its own thread (so a test can hold raw sockets while it serves)."""

    def __init__(self, server: RestServer) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.api = self.call(server.start())
        self.url = self.api.removesuffix("/api/v1")

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def held(self) -> int:
        """The connections the server holds."""
        runner = self.server._runner
        assert runner is not None and runner.server is not None
        return len([h for h in runner.server.connections if not h._force_close])

    def close(self) -> None:
        self.call(self.server.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()


@pytest.fixture
def rest(tmp_path: Path) -> Iterator[Served]:
    schedule = schedule_of(tmp_path, EVERYTHING)

    def create(body: Mapping[str, Any]) -> RestSession:
        return new_session(f"s{len(server.sessions)}", schedule.scenario, schedule)

    server = RestServer(creator=create, limits=Limits(header_timeout=0.3, body_timeout=0.3))
    served = Served(server)
    yield served
    served.close()


def post_raw(url: str, body: bytes, length: int | None = None) -> bytes:
    head = (
        "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
    )
    head += f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    return raw(url, head.encode() + body, timeout=10)


def test_a_deeply_nested_body_is_a_400_in_the_apis_shape(rest: Served) -> None:
    status, body = status_and_json(post_raw(rest.url, b"[" * 100_000))
    assert (
        status == 400
        and body["error"]["code"] == "invalid_json"
        and "nested too deeply" in body["error"]["message"]
    )
    assert httpx.post(rest.api + "/sessions", json={}, timeout=30).status_code == 201


def test_a_body_shorter_than_its_length_is_a_408(rest: Served) -> None:
    status, body = status_and_json(post_raw(rest.url, b'{"scenario"', length=100))
    assert status == 408 and body["error"]["status"] == 408 and "did not arrive" in body["error"]["message"]


def test_parser_level_garbage_gets_the_apis_error_shape(rest: Served) -> None:
    status, body = status_and_json(raw(rest.url, b"GARBAGE\x00 / HTTP/1.1\r\n\r\n"))
    assert status == 400 and body["error"]["status"] == 400 and body["error"]["message"]
    status, body = status_and_json(
        raw(rest.url, b"GET /api/v1 HTTP/1.1\r\nX-Long: " + b"a" * 20000 + b"\r\n\r\n")
    )
    assert status == 400 and body["error"]["code"] == "bad_request"


def test_silent_and_slow_connections_are_closed_and_bounded(rest: Served) -> None:
    host, port = rest.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as silent:
        assert closed(silent)  # after the 0.3 s head timeout
    held = []
    try:
        for i in range(600):
            sock = socket.create_connection((host, int(port)), timeout=30)
            held.append(sock)
            if i % 2:
                sock.sendall(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\n")
        assert rest.held() <= 512
        assert httpx.get(rest.api + "/sessions", timeout=30).status_code == 200
    finally:
        for sock in held:
            sock.close()
    wait_until(lambda: rest.held() == 0)


def test_the_rest_server_uses_the_shared_guard() -> None:
    """One guard for both servers, not a copy: the REST server's runner is the LLM server's kind."""
    from workbench.httpguard import GuardedRunner

    server = RestServer()

    async def kind() -> type:
        await server.start()
        try:
            return type(server._runner)
        finally:
            await server.stop()

    assert asyncio.run(kind()) is GuardedRunner


def test_finished_sessions_beyond_the_limit_are_let_go_oldest_first() -> None:
    """A client that creates sessions for hours (the soak: 2,600 a minute) grew the server's memory and every
    listing without bound; past MAX_SESSIONS the oldest finished sessions go, live ones always stay."""
    from workbench.rest.server import MAX_SESSIONS

    async def fill() -> RestServer:
        server = RestServer()
        live = server.add(RestSession("live", "s", "p", 80, 24))
        for n in range(MAX_SESSIONS + 200):
            session = RestSession(f"done-{n}", "s", "p", 80, 24)
            session.close()
            server.add(session)
        assert live.id in server.sessions
        return server

    server = asyncio.run(fill())
    assert len(server.sessions) == MAX_SESSIONS
    assert "done-0" not in server.sessions and f"done-{MAX_SESSIONS + 199}" in server.sessions
    assert list(server.sessions)[:2] == ["live", "done-201"]


def test_past_the_limit_of_live_sessions_a_post_is_a_429_and_the_server_keeps_serving() -> None:
    """Live sessions always stay, so a client POSTing in a loop against a long scenario grew the server
    without bound (3,000 sessions in 10 s, 67 MB); past MAX_SESSIONS live ones, a POST is refused."""
    from workbench.rest.server import MAX_SESSIONS

    made: list[RestSession] = []

    def create(body: Mapping[str, Any]) -> RestSession:
        made.append(RestSession(f"live-{len(made)}", "s", "p", 80, 24))  # never finishes
        return made[-1]

    async def body() -> None:
        server = RestServer(creator=create)
        url = await server.start()
        try:
            async with httpx.AsyncClient() as client:
                for _ in range(MAX_SESSIONS):
                    assert (await client.post(f"{url}/sessions", json={})).status_code == 201
                refused = await client.post(f"{url}/sessions", json={})
                assert refused.status_code == 429
                error = refused.json()["error"]
                assert (
                    error["code"] == "too_many_sessions"
                    and f"{MAX_SESSIONS} sessions are live" in error["message"]
                )
                assert len(made) == MAX_SESSIONS, "the creator was not asked"
                made[0].close()  # one finishes: room for another
                assert (await client.post(f"{url}/sessions", json={})).status_code == 201
                assert (await client.get(f"{url}/sessions")).status_code == 200
        finally:
            await server.stop()

    asyncio.run(body())


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity"])
def test_a_number_json_does_not_have_is_a_400_and_the_server_keeps_serving(
    rest: Served, number: bytes
) -> None:
    """Python's json reads NaN and Infinity, which JSON (RFC 8259) does not have: a client that sends them
    would be told its body was fine by the mock and refused by the real service."""
    status, body = status_and_json(post_raw(rest.url, b'{"scenario": "s", "n": ' + number + b"}"))
    assert status == 400 and body["error"]["code"] == "invalid_json"
    assert number.decode() in body["error"]["message"] and "JSON has no" in body["error"]["message"]
    assert httpx.post(rest.api + "/sessions", json={}, timeout=30).status_code == 201


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_a_body_that_is_not_said_to_be_json_is_a_415_that_names_what_is_allowed(
    rest: Served, kind: str
) -> None:
    """`curl -d '{}'` sends a form; the real service takes JSON only, so the mock says so (415) rather than
    guess, and goes on serving."""
    refused = httpx.post(rest.api + "/sessions", content=b"{}", headers={"Content-Type": kind}, timeout=30)
    assert refused.status_code == 415
    error = refused.json()["error"]
    assert error["status"] == 415 and error["code"] == "unsupported_media_type"
    assert kind.split(";")[0] in error["message"] and "application/json" in error["message"]
    for allowed in ("application/json", "application/json; charset=utf-8", "application/merge-patch+json"):
        created = httpx.post(
            rest.api + "/sessions", content=b"{}", headers={"Content-Type": allowed}, timeout=30
        )
        assert created.status_code == 201, (allowed, created.text)
    assert httpx.post(rest.api + "/sessions", timeout=30).status_code == 201  # no body, no type: `{}`
