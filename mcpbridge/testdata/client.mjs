// An MCP client on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk, which speaks MCP up to 2025-11-25), run by
// npm_test.go: it lists the tools, fetches the site's home page and
// executes search, and prints what it got, with the MCP version it
// negotiated, as one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [endpoint, site] = process.argv.slice(2);
const client = new Client({ name: "affordances-npm-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(endpoint));
await client.connect(transport);
const tools = await client.listTools();
const page = await client.callTool({ name: "fetch_affordances", arguments: { url: site + "/" } });
const search = await client.callTool({
  name: "execute_affordance",
  arguments: { url: site + "/", action: "search", input: { q: "tote" } },
});
console.log(JSON.stringify({
  version: transport.protocolVersion,
  tools: tools.tools.map((t) => t.name).sort(),
  annotations: Object.fromEntries(tools.tools.map((t) => [t.name, t.annotations])),
  page: page.structuredContent,
  pageError: page.isError ?? false,
  search: search.structuredContent,
  searchError: search.isError ?? false,
}));
await client.close();
