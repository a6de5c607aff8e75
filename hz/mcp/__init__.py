"""`hz mcp`: the operations of hz.ops as MCP tools and resources (hz.mcp.server builds the server)."""
