"""``colony gateway``: an MCP server in front of other MCP servers that gates every tool call.

The parts, one concept each:

* :mod:`~colony.mcp.gateway.config`: ``gateway.yaml`` (upstreams, mapping rules, kernel, timeouts);
* :mod:`~colony.mcp.gateway.mapping`: which rule governs a tool, and the targets a call is gated at;
* :mod:`~colony.mcp.gateway.targets`: a path argument resolved to the real path the upstream will touch;
* :mod:`~colony.mcp.gateway.schema`: a call's arguments checked against the tool's input schema;
* :mod:`~colony.mcp.gateway.proposal`: a tool call as a proposal, from what the caller stated
  (shared with the coding-agent hook, so this package's ``__init__`` imports nothing heavy);
* :mod:`~colony.mcp.gateway.upstream`: one supervised upstream connection (reconnects with back-off);
* :mod:`~colony.mcp.gateway.forwarding`: one call — propose, apply the verdict, forward, record;
* :mod:`~colony.mcp.gateway.approval`: a HOLD released by an operator's approval, never the caller's;
* :mod:`~colony.mcp.gateway.operator`: the gateway's operator-only tools (list and approve held calls);
* :mod:`~colony.mcp.gateway.results`: the tool errors and passed-through results the gateway answers;
* :mod:`~colony.mcp.gateway.identity`: who is calling (the authenticated caller, never an argument);
* :mod:`~colony.mcp.gateway.core`: :class:`~colony.mcp.gateway.core.Gateway`, the whole of it;
* :mod:`~colony.mcp.gateway.server`: the MCP server bound to an agent;
* :mod:`~colony.mcp.gateway.serve`: the ``colony gateway`` command (stdio or Streamable HTTP).
"""
