"""The simulation server's REST/SSE API with real clients (httpx, httpx-sse) on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import json
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.rest.helpers import EVERYTHING, follow, schedule_of, serve_rest, served, validate


def test_events_have_the_specs_shapes_names_and_order(tmp_path: Path) -> None:
    async def body() -> None:
        async with served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks):
            await asyncio.gather(*tasks)
            frames = await follow(url, "everything")
        for _, name, data in frames:
            validate(data)
            assert name == data["type"]  # per-type SSE event names
        assert [int(i) for i, _, _ in frames] == list(range(1, len(frames) + 1))
        kinds = [d["type"] for _, _, d in frames]
        assert kinds[:3] == ["status", "thought", "log"]
        started = kinds.index("tool_use")
        finished = kinds.index("tool_result")
        assert started < finished
        tool = [d for _, _, d in frames[started : finished + 1]]
        assert {d["tool_execution_id"] for d in tool} == {tool[0]["tool_execution_id"]}
        lines = [d["message"] for d in tool if d["type"] == "log"]
        assert lines == [
            "ok 1",
            "ok 2",
            "warning: slow",
            "compiling",
            "exited with code 1",
        ]  # in scenario time
        assert [d["level"] for d in tool if d["type"] == "log" and d["message"] == "warning: slow"] == [
            "warn"
        ]
        assert tool[-1]["status"] == "failed"  # a non-zero exit code in toolExecution
        edit = next(d for _, _, d in frames if d["type"] == "file_edit")
        assert edit == {"type": "file_edit", "file_path": "src/a.py", "lines_added": 2, "lines_removed": 1,
                        "description": "fix the bug", "ts": edit["ts"]}  # fmt: skip
        diff = next(d for _, _, d in frames if d["type"] == "diff")
        assert (diff["oldText"], diff["newText"]) == ("a\n", "b\nc\n")
        assert kinds[-1] == "status" and frames[-1][2]["status"] == "completed"
        assert frames[0][2]["ts"] == "2025-01-01T12:00:00.000Z"

    asyncio.run(body())


def test_a_session_object_shows_status_recent_events_and_changes(tmp_path: Path) -> None:
    text = "name: two\ntimeline:\n  - agentEdits: {path: a.txt, linesAdded: 3, linesRemoved: 1}\n" \
           "  - agentEdits: {path: b.txt, linesAdded: 2}\n  - agentEdits: {path: a.txt, linesAdded: 1}\n"  # fmt: skip

    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, text), schedule_of(tmp_path, EVERYTHING, "e.yaml")]) as (
                _,
                url,
                tasks,
            ),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            listing = (await client.get(f"{url}/sessions")).json()
            assert [s["id"] for s in listing["items"]] == ["two", "everything"] and listing["total"] == 2
            two = (await client.get(f"{url}/sessions/two")).json()
            # its timeline ended without `complete`: completed all the same, as Agent Harbor's playback has
            # it (it was `running` for ever, and a client waiting for the end waited for ever)
            assert two["status"] == "completed" and two["recent_events"] == []
            assert two["changes"] == {"files_changed": 2, "lines_added": 6, "lines_removed": 1}
            frames = await follow(url, "two")
            assert [d["type"] for _, _, d in frames] == ["status", *["file_edit"] * 3, "status"]
            assert frames[-1][2]["status"] == "completed"
            done = (await client.get(f"{url}/sessions/everything")).json()
            assert (
                done["status"] == "completed" and done["recent_events"] == []
            )  # only active sessions show them
            assert done["prompt"] == "Fix the failing test"

    asyncio.run(body())


def test_late_and_concurrent_subscribers_get_history_then_live_events_each_once(tmp_path: Path) -> None:
    steps = "\n".join(f"  - log: event {i}\n  - advanceMs: 20" for i in range(40))
    text = f"name: paced\ntimeline:\n{steps}\n"

    async def body() -> None:
        async with served([schedule_of(tmp_path, text)], speed=1.0, start=False) as (server, url, _):
            from workbench.clock import VirtualClock
            from workbench.rest.player import play

            early = asyncio.create_task(follow(url, "paced"))
            await asyncio.sleep(0.2)
            player = asyncio.create_task(
                play(server.sessions["paced"], schedule_of(tmp_path, text), VirtualClock(1.0))
            )
            late: list[asyncio.Task[list]] = []  # type: ignore[type-arg]
            for _ in range(4):  # join while events are being published
                await asyncio.sleep(0.15)
                late.append(asyncio.create_task(follow(url, "paced")))
            await player
            results = [await early, *[await t for t in late]]
        expected = ["running"] + [f"event {i}" for i in range(40)] + ["completed"]
        for frames in results:
            assert [d.get("message", d.get("status")) for _, _, d in frames] == expected
            assert [int(i) for i, _, _ in frames] == list(range(1, 43))

    asyncio.run(body())


def test_last_event_id_resumes_after_that_event(tmp_path: Path) -> None:
    async def body() -> None:
        async with served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks):
            await asyncio.gather(*tasks)
            whole = await follow(url, "everything")
            rest = await follow(url, "everything", headers={"Last-Event-ID": "5"})
        assert rest == whole[5:]

    asyncio.run(body())


def test_a_reconnect_after_the_last_event_of_a_finished_session_is_a_204(tmp_path: Path) -> None:
    """A browser's EventSource reconnects whenever a stream ends, with the last id it saw: after a finished
    session's last event it came back every few seconds forever. HTTP 204 is what tells it to stop."""

    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            last = len(await follow(url, "everything"))
            events = f"{url}/sessions/everything/events"
            done = await client.get(
                events, headers={"Last-Event-ID": str(last), "Accept": "text/event-stream"}
            )
            assert (done.status_code, done.content) == (204, b"")
            one_left = await client.get(events, headers={"Last-Event-ID": str(last - 1)})
            assert one_left.status_code == 200 and f"id: {last}\n" in one_left.text

    asyncio.run(body())


def test_filters_paging_and_sort(tmp_path: Path) -> None:
    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            frames = await follow(url, "everything", "?type=thought,file_edit")
            assert [d["type"] for _, _, d in frames] == ["thought", "file_edit"]
            warn = await follow(url, "everything", "?level=warn")
            assert [d["message"] for _, _, d in warn] == ["warning: slow"]
            everything = (await client.get(f"{url}/sessions/everything/events",
                                           headers={"Accept": "application/json"})).json()  # fmt: skip
            total = everything["total"]
            assert (
                everything["page"] == 1 and everything["perPage"] == 50 and len(everything["items"]) == total
            )
            stamps = sorted({e["ts"] for e in everything["items"]})
            window = (await client.get(f"{url}/sessions/everything/events",
                                       params={"since": stamps[1], "until": stamps[2], "perPage": "200"})).json()  # fmt: skip
            assert window["items"] and {e["ts"] for e in window["items"]} <= {stamps[1], stamps[2]}
            assert window["total"] == sum(1 for e in everything["items"] if stamps[1] <= e["ts"] <= stamps[2])
            page2 = (
                await client.get(f"{url}/sessions/everything/events", params={"perPage": "3", "page": "2"})
            ).json()
            assert page2["items"] == everything["items"][3:6] and page2["total"] == total
            desc = (
                await client.get(f"{url}/sessions/everything/events", params={"sort": "desc", "perPage": "2"})
            ).json()
            assert desc["items"] == everything["items"][::-1][:2]
            beyond = (await client.get(f"{url}/sessions/everything/events", params={"page": "99"})).json()
            assert beyond["items"] == [] and beyond["total"] == total

    asyncio.run(body())


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        ("GET", "/sessions/nope", {}, 404, "session_not_found"),
        ("GET", "/sessions/nope/events", {}, 404, "session_not_found"),
        ("GET", "/sessions/everything/events?type=thougth", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?level=loud", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?since=yesterday", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?perPage=500", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?page=0", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?sort=up", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?colour=red", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/diff/7", {}, 404, "diff_not_found"),
        # digits to str.isdigit, none to int (or not as JSON and HTTP write them): each was a 500
        ("GET", "/sessions/everything/diff/\u00b2", {}, 404, "diff_not_found"),
        ("GET", "/sessions/everything/events?page=\u00b2", {}, 400, "invalid_query"),
        ("GET", "/sessions/everything/events?perPage=\u0663", {}, 400, "invalid_query"),
        (
            "GET",
            "/sessions/everything/events",
            {"headers": {"Last-Event-ID": "\u00b2".encode()}},
            400,
            "invalid_header",
        ),
        ("POST", "/sessions", {"content": b"{not json"}, 400, "invalid_json"),
        ("POST", "/sessions", {"content": b"[1, 2]"}, 400, "invalid_body"),
        ("POST", "/sessions", {"json": {"scenario": 3}}, 422, "invalid_field"),
        ("POST", "/sessions", {"json": {}}, 405, "method_not_allowed"),
        ("DELETE", "/sessions/everything", {}, 405, "method_not_allowed"),
        ("GET", "/nothing/here", {}, 404, "not_found"),
    ],
)
def test_bad_requests_get_json_errors_and_the_server_keeps_serving(
    tmp_path: Path,
    method: str,
    path: str,
    kwargs: dict,
    status: int,
    code: str,  # type: ignore[type-arg]
) -> None:
    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            response = await client.request(method, url + path, **kwargs)
            assert response.status_code == status
            assert response.headers["content-type"].startswith("application/json")
            error = response.json()["error"]
            assert error["status"] == status and error["code"] == code and error["message"]
            again = await client.get(f"{url}/sessions/everything")
            assert again.status_code == 200

    asyncio.run(body())


def test_a_big_diff_is_truncated_and_served_in_full(tmp_path: Path) -> None:
    old = "".join(f"old {i}\n" for i in range(2500))
    new = "".join(f"new {i}\n" for i in range(3000))
    text = "name: big\ntimeline:\n  - agentEdits:\n      path: big.txt\n      linesAdded: 3000\n      linesRemoved: 2500\n" \
           f"      oldText: {json.dumps(old)}\n      newText: {json.dumps(new)}\n"  # fmt: skip

    async def body() -> None:
        async with served([schedule_of(tmp_path, text)]) as (_, url, tasks), httpx.AsyncClient() as client:
            await asyncio.gather(*tasks)
            (diff,) = [d for _, _, d in await follow(url, "big") if d["type"] == "diff"]
            validate(diff)
            assert diff["truncated"] is True and "newText" not in diff
            assert diff["newTextHead"] == "".join(f"new {i}\n" for i in range(200))
            assert diff["newTextTail"] == "".join(f"new {i}\n" for i in range(2950, 3000))
            assert diff["oldTextHead"].count("\n") == 200 and diff["oldTextTail"].count("\n") == 50
            full = (await client.get(url.removesuffix("/api/v1") + diff["fullDiffUrl"])).json()
            assert full == {"path": "big.txt", "oldText": old, "newText": new}

    asyncio.run(body())


def test_a_small_diff_of_many_bytes_but_few_lines_is_truncated_by_size(tmp_path: Path) -> None:
    wide = "x" * 70_000
    text = f"name: wide\ntimeline:\n  - agentEdits: {{path: w.txt, linesAdded: 1, oldText: '', newText: {wide}}}\n"

    async def body() -> None:
        async with served([schedule_of(tmp_path, text)]) as (_, url, tasks):
            await asyncio.gather(*tasks)
            (diff,) = [d for _, _, d in await follow(url, "wide") if d["type"] == "diff"]
        assert diff["truncated"] is True and diff["newTextHead"] == wide and diff["oldTextHead"] == ""

    asyncio.run(body())


def test_pty_streams_the_tools_terminal_output(tmp_path: Path) -> None:
    async def body() -> None:
        quiet = schedule_of(tmp_path, "name: quiet\ntimeline:\n  - log: nothing to show\n", "q.yaml")
        async with (
            served([schedule_of(tmp_path, EVERYTHING), quiet]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            frames = []
            from httpx_sse import aconnect_sse

            async with aconnect_sse(client, "GET", f"{url}/sessions/everything/pty") as source:
                async for sse in source.aiter_sse():
                    assert sse.event == "pty"
                    frames.append(json.loads(sse.data))
            assert frames[0] == {"type": "terminal_resize", "cols": 80, "rows": 24, "timestamp": 0}
            data = b"".join(base64.b64decode(f["data"]) for f in frames[1:])
            assert data == b"ok 1\r\nok 2\r\nwarning: slow\r\n"
            assert all(f["encoding"] == "base64" for f in frames[1:])
            none = await client.get(f"{url}/sessions/quiet/pty")
            assert none.status_code == 404 and none.json()["error"]["code"] == "no_terminal"

    asyncio.run(body())


def test_an_idle_stream_gets_keep_alive_comments(tmp_path: Path) -> None:
    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)], keepalive_s=0.05, start=False) as (_, url, _tasks),
            httpx.AsyncClient(timeout=10) as client,
            client.stream("GET", f"{url}/sessions/everything/events") as response,
        ):
            seen = b""
            async for chunk in response.aiter_bytes():
                seen += chunk
                if seen.count(b": keep-alive\n\n") >= 2:
                    break
            assert seen.startswith(b"id: 1\nevent: status\n")

    asyncio.run(body())


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_post_creates_a_session_that_plays_and_listings_show_its_status(stop: signal.Signals) -> None:
    """`serve rest`'s own creator: a new playback per POST, its status changing as it plays; it stops
    cleanly on SIGTERM and on SIGHUP (its terminal closed: that killed it)."""
    from tests.conftest import SCENARIOS

    with serve_rest(SCENARIOS / "simulation" / "build-status.yaml", "max", stop) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/api/v1")
        created = httpx.post(f"{url}/sessions", json={"scenario": "build-status"})
        assert created.status_code == 201
        sid = created.json()["id"]
        assert sid == "build-status-2"
        deadline = time.monotonic() + 30
        while httpx.get(f"{url}/sessions/{sid}").json()["status"] != "completed":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        missing = httpx.post(f"{url}/sessions", json={"scenario": "nope"})
        assert missing.status_code == 404 and "build-status" in missing.json()["error"]["message"]


def test_an_llm_error_is_an_error_event_and_fails_the_session(tmp_path: Path) -> None:
    text = """\
name: broken
timeline:
  - llmResponse:
      - error: {errorType: overloaded_error, message: Try again later, statusCode: 529}
"""

    async def body() -> None:
        async with served([schedule_of(tmp_path, text)]) as (_, url, tasks), httpx.AsyncClient() as client:
            await asyncio.gather(*tasks)
            frames = [d for _, _, d in await follow(url, "broken")]
            session = (await client.get(f"{url}/sessions/broken")).json()
        for event in frames:
            validate(event)
        assert [(e["type"], e.get("message", e.get("status"))) for e in frames] == [
            ("status", "running"), ("error", "Try again later"), ("status", "failed")]  # fmt: skip
        assert session["status"] == "failed"

    asyncio.run(body())


def test_streams_are_paced_at_speed_1_and_identical_at_max(tmp_path: Path) -> None:
    text = "name: paced\ntimeline:\n  - log: first\n  - advanceMs: 400\n  - log: second\n  - advanceMs: 400\n  - log: third\n"

    async def arrivals(speed: float | None) -> tuple[list[dict], list[float]]:  # type: ignore[type-arg]
        async with served([schedule_of(tmp_path, text)], speed=speed, start=False) as (server, url, _):
            from workbench.clock import VirtualClock
            from workbench.rest.player import play

            events: list[dict] = []  # type: ignore[type-arg]
            times: list[float] = []
            started = time.monotonic()
            player = asyncio.create_task(
                play(server.sessions["paced"], schedule_of(tmp_path, text), VirtualClock(speed))
            )
            async with httpx.AsyncClient(timeout=30) as client:
                from httpx_sse import aconnect_sse

                async with aconnect_sse(client, "GET", f"{url}/sessions/paced/events") as source:
                    async for sse in source.aiter_sse():
                        events.append(json.loads(sse.data))
                        times.append(time.monotonic() - started)
            await player
            return events, times

    paced, times = asyncio.run(arrivals(1.0))
    fast, _ = asyncio.run(arrivals(None))
    assert paced == fast  # the same events, the same virtual `ts`, at every speed
    assert [e.get("message", e.get("status")) for e in paced[1:]] == ["first", "second", "third", "completed"]
    # Lower bounds only (a loaded machine may be later, never earlier): scenario time is real time at speed 1.
    assert times[2] >= 0.4 and times[3] >= 0.8


def test_a_client_that_polls_the_listing_ends_the_wait_for_a_stream_follower(tmp_path: Path) -> None:
    """Simulation waits for the client to follow the events before it reads a screen; a client that polls the
    JSON listing never will, and must not be waited for (it was: 10 s per run)."""

    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)], start=False) as (server, url, _),
            httpx.AsyncClient() as client,
        ):
            session = server.sessions["everything"]
            assert not await session.wait_subscribed(0)
            await client.get(f"{url}/sessions/everything", headers={"Accept": "application/json"})
            # reading the session object is not polling its events
            assert not await session.wait_subscribed(0)
            await client.get(f"{url}/sessions/everything/events", params={"perPage": "5"})
            assert await session.wait_subscribed(0)

    asyncio.run(body())


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/sessions/", "GET /api/v1/sessions/: no such route; without the trailing slash: /api/v1/sessions"),
        ("/sessions/everything/events/", "without the trailing slash: /api/v1/sessions/everything/events"),
        ("/../v2/sessions", "GET /api/v2/sessions: no such route; the routes are GET /api/v1, GET|POST /api/v1/sessions,"),
    ],
)  # fmt: skip
def test_an_unknown_path_says_which_routes_there_are(tmp_path: Path, path: str, said: str) -> None:
    """A front-end's URL joined with a trailing slash, or another API version, got a bare 'Not Found'."""

    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            response = await client.get(url + path)
            assert response.status_code == 404
            error = response.json()["error"]
            assert error["code"] == "not_found" and said in error["message"], error

    asyncio.run(body())


def test_a_list_filter_given_as_repeated_parameters_takes_every_value(tmp_path: Path) -> None:
    """`?type=status&type=log` (what httpx, requests and URLSearchParams make of a list) kept only `status`:
    the logs were dropped without a word. A parameter that takes one value, given twice, is a 400."""

    async def body() -> None:
        async with (
            served([schedule_of(tmp_path, EVERYTHING)]) as (_, url, tasks),
            httpx.AsyncClient() as client,
        ):
            await asyncio.gather(*tasks)
            events = f"{url}/sessions/everything/events"
            both = (await client.get(events, params={"type": ["status", "log"], "perPage": 200})).json()
            joined = (await client.get(events, params={"type": "status,log", "perPage": 200})).json()
            assert both == joined and {e["type"] for e in both["items"]} == {"status", "log"}
            twice = await client.get(events, params={"page": ["1", "2"]})
            assert twice.status_code == 400
            assert twice.json()["error"]["message"] == "`page` is given 2 times; give it once"

    asyncio.run(body())
