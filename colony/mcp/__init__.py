"""colony's MCP surface, split by concern.

The public entry modules are :mod:`colony.mcp_tools` (the tools as plain functions over
one kernel) and :mod:`colony.server` (the MCP server on the official SDK and the
``colony mcp`` command). This package holds their parts:

* :mod:`colony.mcp.schemas`: the declared output shapes (TypedDicts → ``outputSchema``);
* :mod:`colony.mcp.inputs`: validation of tool arguments, naming the offending field;
* :mod:`colony.mcp.toolset`: :class:`~colony.mcp.toolset.ColonyTools`, the tools bound to one kernel;
* :mod:`colony.mcp.registry`: registration on an ``MCPServer`` (signatures, annotations, descriptions);
* :mod:`colony.mcp.auth`: bearer-token verifiers (per-agent or shared) and :func:`~colony.mcp.auth.caller`,
  who is calling the current tool;
* :mod:`colony.mcp.access`: who may call what (identity arguments, operator-only tools, registry-only mode);
* :mod:`colony.mcp.ratelimit`: failed authentication slowed per client address;
* :mod:`colony.mcp.http`: Host/Origin checks, loopback binding and session limits for Streamable HTTP;
* :mod:`colony.mcp.http_options`: the HTTP command-line options ``colony mcp`` and ``colony gateway`` share;
* :mod:`colony.mcp.serving`: starting a server (stdio binding, HTTP authentication mode, uvicorn), for
  ``colony mcp`` and ``colony gateway`` alike;
* :mod:`colony.mcp.gateway`: ``colony gateway``, an MCP server in front of other MCP servers.
"""
