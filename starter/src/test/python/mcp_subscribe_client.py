"""McpIT's client for subscriptions and a confirmation: the official MCP Python SDK over stdio.

Usage: python mcp_subscribe_client.py SERVER_COMMAND_JSON WATCHED ASKER NOTE

It starts the server command (a JSON list), initializes and subscribes to colony://ant/WATCHED/live
and colony://inbox, reads the live view once and prints the step "subscribed". Then, each time
with a timeout and no sleep, it waits for the server's notifications/resources/updated:

- for WATCHED's live view, reading it again after each one, until it reads WATCHED paused (the test
  pauses it with `colony pause`): step "watched_paused";
- for the inbox, reading it again after each one, until it holds a confirmation of ASKER (the test
  starts ASKER, whose agent asks for one): step "inbox_confirmation";
- it prints colony_inbox's answer (step "inbox_tool") and waits for a line on stdin (the test has
  checked that the ant waits on that request), then approves it with ant_decide and NOTE: step
  "decided";
- for the inbox again, until ASKER's request has left it: step "inbox_cleared".

One JSON line per step on stdout ({"step": ..., ...}); every notification the client received
while waiting is in the step's "notified" (its method and URI). A wait that times out prints its
step with "timeout": true and what it saw, and exits 1.
"""

import asyncio
import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

WAIT_SECONDS = 150
OPEN = '<colony-data untrusted="true">'
CLOSE = "</colony-data>"


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def dump(result):
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def data(read):
    """The JSON data of a resource's text (inside the untrusted block, or after the summary line)."""
    text = read.contents[0].text
    if OPEN in text:
        text = text.split(OPEN, 1)[1].rsplit(CLOSE, 1)[0]
    else:
        text = text.split("\n", 1)[1]
    return json.loads(text)


def confirmation_of(inbox, ant):
    for item in inbox.get("ants", []):
        if item.get("ant") == ant and item.get("confirmation"):
            return item
    return None


class Notifications:
    def __init__(self):
        self.send, self.receive = anyio.create_memory_object_stream(1000)

    async def handler(self, message):
        if isinstance(message, Exception):
            await self.send.send({"error": repr(message)})
            return
        message = getattr(message, "root", message)
        params = getattr(message, "params", None)
        uri = getattr(params, "uri", None)
        await self.send.send({"method": getattr(message, "method", None), "uri": None if uri is None else str(uri)})


async def until(session, notes, step, uri, done):
    """Waits for notifications of uri, reading it after each, until done(data); prints step."""
    notified = []
    last = None
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        remaining = deadline - time.monotonic()
        note = None
        if remaining > 0:
            with anyio.move_on_after(remaining):
                note = await notes.receive.receive()
        if note is None:
            emit(step, timeout=True, notified=notified, data=last)
            sys.exit(1)
        notified.append(note)
        if note.get("method") == "notifications/resources/updated" and note.get("uri") == uri:
            last = data(await session.read_resource(uri))
            if done(last):
                emit(step, notified=notified, data=last)
                return last


async def main():
    command = json.loads(sys.argv[1])
    watched, asker, note = sys.argv[2:5]
    live_uri = f"colony://ant/{watched}/live"
    inbox_uri = "colony://inbox"
    notes = Notifications()
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=notes.handler,
                                 client_info=types.Implementation(name="python-sdk-it", version="1.0")) as session:
            init = await session.initialize()
            await session.subscribe_resource(live_uri)
            await session.subscribe_resource(inbox_uri)
            before = data(await session.read_resource(live_uri))
            emit("subscribed", capabilities=dump(init.capabilities), data=before)

            await until(session, notes, "watched_paused", live_uri, lambda d: d.get("paused") is True)

            inbox = await until(session, notes, "inbox_confirmation", inbox_uri,
                                lambda d: confirmation_of(d, asker) is not None)
            tool = await session.call_tool("colony_inbox", {})
            request = confirmation_of(inbox, asker)["confirmation"]["request"]
            emit("inbox_tool", result=dump(tool))
            # The test checks the ant waits on that request, unanswered, then says go on.
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

            decided = await session.call_tool("ant_decide", {"ant": asker, "decision": "approve",
                                                             "request": request, "note": note})
            emit("decided", request=request, result=dump(decided))

            await until(session, notes, "inbox_cleared", inbox_uri, lambda d: confirmation_of(d, asker) is None)


if __name__ == "__main__":
    asyncio.run(main())
