// An MCP client on the official TypeScript SDK v2
// (@modelcontextprotocol/client, which speaks MCP 2026-07-28), run by
// npm_test.go: it lists the tools, fetches the site's home page and
// executes search, and prints what it got, with the MCP version it
// negotiated, as one JSON line.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [endpoint, site] = process.argv.slice(2);
// A host that speaks 2026-07-28 probes with server/discover, and falls
// back to initialize for a server that does not.
const client = new Client({ name: "affordances-npm-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
const tools = await client.listTools();
const page = await client.callTool({ name: "fetch_affordances", arguments: { url: site + "/" } });
const search = await client.callTool({
  name: "execute_affordance",
  arguments: { url: site + "/", action: "search", input: { q: "tote" } },
});
console.log(JSON.stringify({
  version: client.getNegotiatedProtocolVersion(),
  tools: tools.tools.map((t) => t.name).sort(),
  annotations: Object.fromEntries(tools.tools.map((t) => [t.name, t.annotations])),
  page: page.structuredContent,
  pageError: page.isError ?? false,
  search: search.structuredContent,
  searchError: search.isError ?? false,
}));
await client.close();
