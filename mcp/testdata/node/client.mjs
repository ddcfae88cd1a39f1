// A third-party client check: the official TypeScript MCP SDK starts the
// agentero-context server and calls each tool, the way a Node-based agent
// would. Usage: node client.mjs <server-executable> <grant-path>
// Exit 0 when every check passes, 1 otherwise (one line per failure on
// stderr). .ci/mcp-interop.sh copies it next to the installed node_modules.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [exe, grant] = process.argv.slice(2);
if (!exe || !grant) {
  console.error("usage: node client.mjs <server-executable> <grant-path>");
  process.exit(2);
}

const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
};
const textOf = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

const transport = new StdioClientTransport({ command: exe, args: ["--agentero-context-mcp", grant], stderr: "inherit" });
const client = new Client({ name: "researchctx-node-check", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
check(info?.name === "agentero-context", `server name ${info?.name}`);
check((client.getInstructions() ?? "").includes("citationUri"), "instructions mention citationUri");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check(JSON.stringify(names) === JSON.stringify(["context_read", "context_search", "paper_relations"]), `tools ${names}`);
for (const t of tools) {
  check(t.annotations?.readOnlyHint === true && t.annotations?.openWorldHint === false, `${t.name} annotations`);
}

// The client validates structuredContent against each tool's outputSchema.
const search = await client.callTool({ name: "context_search", arguments: { query: "strided global tokens" } });
check(!search.isError && search.structuredContent?.cards?.length > 0, `context_search: ${textOf(search)}`);
check(textOf(search).includes("cite: "), "context_search text has citation URIs");

const read = await client.callTool({ name: "context_read", arguments: { target: "papers/2401.01234", mode: "page", page: 2 } });
check(!read.isError && read.structuredContent?.citationUri === "papers/2401.01234/2401.01234.pdf#page=2", `context_read: ${textOf(read)}`);
check(textOf(read).includes("Budget:"), "context_read text has the budget line");

const rel = await client.callTool({ name: "paper_relations", arguments: { paper: "papers/2401.01234" } });
check(!rel.isError && rel.structuredContent?.references?.length > 0, `paper_relations: ${textOf(rel)}`);

const refused = await client.callTool({ name: "context_read", arguments: { target: "../outside/secret.txt" } });
check(refused.isError === true, `refusal is an isError result: ${textOf(refused)}`);

const malformed = await client.callTool({ name: "context_search", arguments: { query: 42 } });
check(malformed.isError === true, "malformed arguments are an isError result");

await client.close();
for (const f of failures) console.error(`FAIL ${f}`);
console.log(`node client: ${names.length} tools, ${failures.length} failures`);
process.exit(failures.length ? 1 : 0);
