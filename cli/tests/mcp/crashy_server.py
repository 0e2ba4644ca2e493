"""A small MCP server built with the real `mcp` SDK, for what the filesystem server cannot
show: a tool that crashes the server mid-call and a tool that stays busy (cancellation)."""

import os
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("crashy")


@server.tool()
def crash() -> str:
    """Exits the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def slow(seconds: float = 30.0) -> str:
    """Stays busy."""
    time.sleep(seconds)
    return "done"


if __name__ == "__main__":
    server.run()
