"""McpIT's client of a console off loopback: the official MCP Python SDK against its /mcp.

Usage: python mcp_http_token_client.py URL TOKEN ANT

Without a token: the SDK's initialize (step "anonymous", the error it raised) and the same POST as
plain HTTP through the SDK's own HTTP client (step "anonymous_http", the status and body). With
the token: initialize, list the tools, subscribe to ANT's live view and pause ANT (steps
"initialize", "tools", "paused"), then wait (150 s at most) for notifications/resources/updated of
that view, reading it after each, until it reads ANT paused (step "told", with the notifications
received; "timeout": true if none led there, exit 1). One JSON line per step on stdout
({"step": ..., ...}). Exit 0 when every step ran.
"""

import asyncio
import json
import sys

import anyio
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def dump(result):
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


WAIT_SECONDS = 150
OPEN = '<colony-data untrusted="true">'
CLOSE = "</colony-data>"


def data(read):
    """The JSON data of a resource's text (inside the untrusted block, or after the summary line)."""
    text = read.contents[0].text
    if OPEN in text:
        text = text.split(OPEN, 1)[1].rsplit(CLOSE, 1)[0]
    else:
        text = text.split("\n", 1)[1]
    return json.loads(text)


class Notifications:
    def __init__(self):
        self.send, self.receive = anyio.create_memory_object_stream(1000)

    async def handler(self, message):
        if isinstance(message, Exception):
            await self.send.send({"error": repr(message)})
            return
        message = getattr(message, "root", message)
        uri = getattr(getattr(message, "params", None), "uri", None)
        await self.send.send({"method": getattr(message, "method", None), "uri": None if uri is None else str(uri)})


def client_info():
    return types.Implementation(name="python-sdk-http-it", version="1.0")


async def main():
    url, token, ant = sys.argv[1:4]
    try:
        with anyio.fail_after(30):
            async with create_mcp_http_client() as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write, client_info=client_info()) as session:
                        await session.initialize()
                        emit("anonymous", error="")
    except BaseException as e:  # an ExceptionGroup from the task group, or a timeout
        emit("anonymous", error=repr(e)[:2000])
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client_info().model_dump()}}
    async with create_mcp_http_client() as http:
        r = await http.post(url, json=initialize, headers={"Accept": "application/json, text/event-stream"})
        emit("anonymous_http", status=r.status_code, body=r.text[:2000])
    notes = Notifications()
    async with create_mcp_http_client(headers={"Authorization": "Bearer " + token, "X-Colony-Operator": "dana"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, message_handler=notes.handler, client_info=client_info()) as session:
                init = await session.initialize()
                emit("initialize", result=dump(init))
                tools = await session.list_tools()
                emit("tools", tools=[t.name for t in tools.tools])
                live = f"colony://ant/{ant}/live"
                await session.subscribe_resource(live)
                paused = await session.call_tool("ant_pause", {"ant": ant})
                emit("paused", result=dump(paused))
                # Told over the session's event stream: read again after each notification until paused.
                notified = []
                with anyio.move_on_after(WAIT_SECONDS):
                    while True:
                        note = await notes.receive.receive()
                        notified.append(note)
                        if note.get("uri") == live and data(await session.read_resource(live)).get("paused") is True:
                            emit("told", notified=notified)
                            return
                emit("told", timeout=True, notified=notified)
                sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
