// An MCP client on the official TypeScript SDK with its OAuth support
// (OAuthClientProvider) and no token, run by oauth_npm_test.go against the
// demo shop's /mcp. It prints one JSON line at each step: {"callback"}, its
// loopback redirect URI (RFC 8252), before anything else; {"authorize"},
// the URL it would open in the person's browser; then {"result"}, what
// its tools returned once it signed in, with its access token, for the
// test to check what the shop refuses it.
//
//   node oauth-client.mjs ENDPOINT SITE [CLIENT_METADATA_URL]
//
// With CLIENT_METADATA_URL (an https URL) it names itself by that Client
// ID Metadata Document; without, it registers (RFC 7591).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [endpoint, site, metadataURL] = process.argv.slice(2);
const say = (v) => process.stdout.write(JSON.stringify(v) + "\n");

// The loopback callback: the person's browser brings the code here.
let gotCode;
const code = new Promise((resolve, reject) => { gotCode = { resolve, reject }; });
const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  if (u.pathname !== "/callback") { res.writeHead(404).end(); return; }
  res.writeHead(200, { "Content-Type": "text/plain" }).end("Signed in: you can close this window.");
  if (u.searchParams.get("state") !== provider.sentState) gotCode.reject(new Error("state " + u.searchParams.get("state") + ", want " + provider.sentState));
  else if (u.searchParams.get("iss") !== site) gotCode.reject(new Error("iss " + u.searchParams.get("iss") + ", want " + site));
  else if (u.searchParams.get("error")) gotCode.reject(new Error("refused: " + u.searchParams.get("error") + " " + u.searchParams.get("error_description")));
  else gotCode.resolve(u.searchParams.get("code"));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const callback = `http://127.0.0.1:${server.address().port}/callback`;
say({ callback });

// What a host keeps: its registration, the PKCE verifier, the tokens.
const provider = {
  stored: {},
  sentState: undefined,
  get redirectUrl() { return callback; },
  get clientMetadata() {
    return { client_name: "TypeScript SDK test client", redirect_uris: [callback], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientMetadataUrl: metadataURL || undefined,
  state() { this.sentState = randomUUID(); return this.sentState; },
  clientInformation() { return this.stored.client; },
  saveClientInformation(c) { this.stored.client = c; },
  tokens() { return this.stored.tokens; },
  saveTokens(t) { this.stored.tokens = t; },
  redirectToAuthorization(u) { say({ authorize: u.href }); },
  saveCodeVerifier(v) { this.stored.verifier = v; },
  codeVerifier() { return this.stored.verifier; },
};

const client = () => new Client({ name: "affordances-oauth-test", version: "1.0.0" });
let transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
try {
  await client().connect(transport);
  throw new Error("connected without signing in");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
await transport.finishAuth(await code);
server.close();

transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
const c = client();
await c.connect(transport);
const call = async (name, args) => {
  const r = await c.callTool({ name, arguments: args });
  return { structured: r.structuredContent, text: r.content?.map((x) => x.text).join("\n"), isError: r.isError ?? false };
};
const page = await call("fetch_affordances", { url: site + "/products/canvas-tote" });
const added = await call("execute_affordance", { url: site + "/products/canvas-tote", action: "addToCart", input: { sku: "TOTE-NAT", quantity: 2 } });
const order = await call("execute_affordance", { url: site + "/checkout", action: "placeOrder" });
say({ result: { registered: provider.stored.client.client_id, scope: provider.stored.tokens.scope, accessToken: provider.stored.tokens.access_token, page, added, order } });
await c.close();
