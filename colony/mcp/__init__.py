"""colony's MCP surface, split by concern.

The seed's entry modules stay as thin shims: :mod:`colony.mcp_tools` (the tools as plain
functions over one kernel) and :mod:`colony.server` (``python -m colony.server``). This
package holds the parts:

* :mod:`colony.mcp.tools`: each tool written once, and :data:`~colony.mcp.tools.TOOLS`, the one table;
* :mod:`colony.mcp.spec`: what a row of the table is, and what its annotated signature gives
  (the MCP argument model, the checks of a plain call, the identity argument);
* :mod:`colony.mcp.schemas`: the declared output shapes (TypedDicts → ``outputSchema``);
* :mod:`colony.mcp.inputs`: the argument checks an annotation cannot state, naming the offending field;
* :mod:`colony.mcp.toolset`: :class:`~colony.mcp.toolset.ColonyTools`, the tools bound to one kernel;
* :mod:`colony.mcp.registry`: registration on an ``MCPServer``, one loop over the table;
* :mod:`colony.mcp.server`: the colony MCP server, and serving it (``colony mcp``);
* :mod:`colony.mcp.auth`: bearer-token verifiers (per-agent or shared) and :func:`~colony.mcp.auth.caller`,
  who is calling the current tool;
* :mod:`colony.mcp.access`: who may call what (identity arguments, operator-only tools, registry-only mode);
* :mod:`colony.mcp.ratelimit`: failed authentication slowed per client address;
* :mod:`colony.mcp.http`: Host/Origin checks, loopback binding and session limits for Streamable HTTP;
* :mod:`colony.mcp.options`: :class:`~colony.mcp.options.ServeOptions` and the serving defaults
  ``colony mcp`` and ``colony gateway`` share (their command lines are in :mod:`colony.commands`);
* :mod:`colony.mcp.serving`: starting a server (stdio binding, HTTP authentication mode, uvicorn), for
  ``colony mcp`` and ``colony gateway`` alike;
* :mod:`colony.mcp.gateway`: ``colony gateway``, an MCP server in front of other MCP servers.
"""
