"""McpIT's client: the official MCP Python SDK drives `colony mcp` over stdio.

Usage: python mcp_client.py SERVER_COMMAND_JSON ANT

It starts the server command (a JSON list), initializes, lists the tools, reads the inbox, reads
ANT's live session as a resource, gets the why_is_ant_stuck prompt for it and pauses ANT, printing one JSON line per step on stdout ({"step": ..., ...}); then it waits for a
line on stdin (the test has checked `colony status`) and resumes ANT. Every answer is printed as
the SDK parsed it (camelCase, as on the wire). Exit 0 when every step ran.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def dump(result):
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main():
    command = json.loads(sys.argv[1])
    ant = sys.argv[2]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=types.Implementation(name="python-sdk-it", version="1.0")) as session:
            init = await session.initialize()
            emit("initialize", result=dump(init))
            tools = await session.list_tools()
            emit("tools", tools=[dump(t) for t in tools.tools])
            inbox = await session.call_tool("colony_inbox", {})
            emit("inbox", result=dump(inbox))
            live = await session.read_resource(f"colony://ant/{ant}/live")
            emit("resource", result=dump(live))
            prompt = await session.get_prompt("why_is_ant_stuck", {"ant": ant})
            emit("prompt", result=dump(prompt))
            bad = await session.call_tool("ant_pause", {"ant": "not an ant!"})
            emit("bad", result=dump(bad))
            paused = await session.call_tool("ant_pause", {"ant": ant})
            emit("paused", result=dump(paused))
            # The test checks `colony status` now, then says go on.
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            resumed = await session.call_tool("ant_resume", {"ant": ant})
            emit("resumed", result=dump(resumed))


if __name__ == "__main__":
    asyncio.run(main())
