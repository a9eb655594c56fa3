"""colony's MCP surface, split by concern.

The public entry modules are :mod:`colony.mcp_tools` (the tools as plain functions over
one kernel) and :mod:`colony.server` (the MCP server on the official SDK and the
``colony mcp`` command). This package holds their parts:

* :mod:`colony.mcp.schemas`: the declared output shapes (TypedDicts → ``outputSchema``);
* :mod:`colony.mcp.inputs`: validation of tool arguments, naming the offending field;
* :mod:`colony.mcp.toolset`: :class:`~colony.mcp.toolset.ColonyTools`, the tools bound to one kernel;
* :mod:`colony.mcp.registry`: registration on an ``MCPServer`` (signatures, annotations, descriptions);
* :mod:`colony.mcp.http`: bearer-token auth and Host/Origin checks for Streamable HTTP.
"""
