"""McpIT's client over Streamable HTTP: the official MCP Python SDK against the console's /mcp.

Usage: python mcp_http_client.py URL OPERATOR_TOKEN READ_TOKEN ANT

With the operator token it initializes, lists the tools, reads the inbox and pauses ANT; with the
read-only token it lists the tools and is refused ant_pause; with no token it is refused at
initialize. One JSON line per step on stdout ({"step": ..., ...}). Exit 0 when every step ran.
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


def client_info():
    return types.Implementation(name="python-sdk-http-it", version="1.0")


async def main():
    url, operator, reader, ant = sys.argv[1:5]
    # The operator names themself as on the console's API (X-Colony-Operator): the actor of the pause.
    operator_headers = {"Authorization": "Bearer " + operator, "X-Colony-Operator": "dana"}
    async with create_mcp_http_client(headers=operator_headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=client_info()) as session:
                init = await session.initialize()
                emit("initialize", result=dump(init))
                tools = await session.list_tools()
                emit("tools", tools=[t.name for t in tools.tools])
                inbox = await session.call_tool("colony_inbox", {})
                emit("inbox", result=dump(inbox))
                paused = await session.call_tool("ant_pause", {"ant": ant})
                emit("paused", result=dump(paused))
    async with create_mcp_http_client(headers={"Authorization": "Bearer " + reader}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=client_info()) as session:
                await session.initialize()
                tools = await session.list_tools()
                emit("reader_tools", tools=[t.name for t in tools.tools])
                try:
                    result = await session.call_tool("ant_resume", {"ant": ant})
                    emit("reader_write", result=dump(result))
                except Exception as e:  # the SDK raises the server's JSON-RPC error
                    emit("reader_write", error=str(e))
    try:
        with anyio.fail_after(30):
            async with create_mcp_http_client() as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write, client_info=client_info()) as session:
                        await session.initialize()
                        emit("anonymous", error="")
    except BaseException as e:  # an ExceptionGroup from the task group, or a timeout
        emit("anonymous", error=repr(e)[:2000])


if __name__ == "__main__":
    asyncio.run(main())
