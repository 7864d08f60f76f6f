"""A client nobody on the team wrote: the official MCP Python SDK drives `geo-probe mcp`.

Usage: client.py GEO_PROBE_BINARY EXPORT_FILE CALLS_JSON

CALLS_JSON is a list of {"key", "tool", "arguments"}. The script connects over stdio the way
an MCP host does, checks every tool's input schema against the JSON Schema 2020-12
meta-schema (and each call's arguments against its tool's schema, unless the call is meant
to be wrong), makes the calls and prints one JSON report on stdout:
{"protocolVersion", "serverName", "tools": [{"name", "description", "inputSchema",
"readOnlyHint"}], "calls": {key: {"isError", "structuredContent", "text"}}}.
"""

import asyncio
import json
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, export: str, calls: list[dict]) -> dict:
    params = StdioServerParameters(command=binary, args=["mcp", export])
    report: dict = {"calls": {}}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            report["protocolVersion"] = init.protocol_version
            report["serverName"] = init.server_info.name
            tools = (await session.list_tools()).tools
            schemas = {}
            report["tools"] = []
            for tool in tools:
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
                schemas[tool.name] = tool.input_schema
                report["tools"].append(
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "inputSchema": tool.input_schema,
                        "readOnlyHint": tool.annotations.read_only_hint if tool.annotations else None,
                    }
                )
            for call in calls:
                arguments = call.get("arguments") or {}
                if call.get("valid", True):
                    jsonschema.validate(arguments, schemas[call["tool"]], cls=jsonschema.Draft202012Validator)
                result = await session.call_tool(call["tool"], arguments)
                texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
                report["calls"][call["key"]] = {
                    "isError": result.is_error,
                    "structuredContent": result.structured_content,
                    "text": texts,
                }
    return report


if __name__ == "__main__":
    binary, export, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    print(json.dumps(asyncio.run(main(binary, export, calls)), ensure_ascii=False))
