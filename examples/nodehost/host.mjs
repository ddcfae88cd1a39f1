// A host written in Node.js drives one research turn through the
// researchctx command, with no Go toolchain and no npm packages:
//
//   node host.mjs <path-to-researchctx> <absolute-vault-folder>
//
// 1. plan: the turn's Request → its Plan (evidence, prompt block, grant);
// 2. decide: a new agent session or the previous one, and whether to
//    attach the MCP server;
// 3. the agent's side, played here by a few lines of JSON-RPC: the server
//    the host attaches (`researchctx serve GRANT`, what an agent starts from
//    the session's MCP entry) answers one context_search;
// 4. sources: what the turn used, grouped as a host draws them;
// 5. the next turn, same scope: decide says resume.
//
// It prints a summary as JSON on stdout; errors go to stderr, exit 1.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

const [exe, vault] = process.argv.slice(2);
if (!exe || !vault) {
  console.error("usage: node host.mjs <researchctx> <absolute-vault-folder>");
  process.exit(2);
}

// researchctx runs one subcommand with JSON on stdin and returns its JSON
// output; a failure throws with the command's one-line error.
function researchctx(args, input) {
  const r = spawnSync(exe, args, { input: input === undefined ? "" : JSON.stringify(input), encoding: "utf8" });
  if (r.error) {
    throw new Error(`researchctx ${args[0]}: ${r.error.message}`);
  }
  if (r.status !== 0) {
    throw new Error(`researchctx ${args[0]} exited ${r.status}: ${r.stderr.trim()}`);
  }
  return JSON.parse(r.stdout);
}

// callTools starts the MCP server for a grant and calls tools in turn over
// newline-delimited JSON-RPC, as an agent does.
async function callTools(grantPath, calls) {
  const server = spawn(exe, ["serve", grantPath], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: server.stdout });
  const pending = new Map();
  lines.on("line", (line) => {
    const msg = JSON.parse(line);
    pending.get(msg.id)?.(msg);
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      server.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  const init = await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "node-host-example", version: "1" },
  });
  server.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const results = [];
  for (const [name, args] of calls) {
    const res = await request("tools/call", { name, arguments: args });
    results.push(res.result);
  }
  server.stdin.end();
  await new Promise((resolve) => server.on("exit", resolve));
  return { server: init.result.serverInfo.name, results };
}

const request = {
  vault,
  runtimeId: "node-chat-1", // one per running conversation
  turnId: "turn-1",
  currentPaper: "papers/2401.01234",
  selections: [{ text: "A block size of 256 tokens was the best trade-off in our experiments" }],
  mentions: ["notes"],
};

// 1. Plan the turn: the grant is written; plan.prompt goes before the
// user's message.
const plan = researchctx(["plan", "-request", "-"], request);

// 2. No session yet: a new one, with the server attached.
const first = researchctx(["decide", "-input", "-"], { previous: null, plan });

// 3. The agent searches the granted sources.
const served = first.attachServer
  ? await callTools(plan.grantPath, [["context_search", { query: "block size trade-off" }]])
  : { server: "", results: [] };
const cards = served.results[0]?.structuredContent?.cards ?? [];

// 4. After the turn: the sources to show under the answer.
const used = researchctx(["sources", "-grant", plan.grantPath, "-turn", plan.turnId]);

// 5. The next turn with the same scope continues the same session.
const plan2 = researchctx(["plan", "-request", "-"], { ...request, turnId: "turn-2" });
const record = { sessionId: "agent-session-1", fingerprint: plan.fingerprint };
const second = researchctx(["decide", "-input", "-"], { previous: record, plan: plan2 });

console.log(
  JSON.stringify(
    {
      mode: plan.mode,
      fingerprint: plan.fingerprint,
      evidence: plan.evidence.map((e) => e.citationUri),
      sources: plan.sources.map((s) => `${s.kind} ${s.path}`),
      first: first.action,
      attachServer: first.attachServer === true,
      server: served.server,
      cards: cards.map((c) => c.citationUri),
      searched: used.searched.map((u) => `${u.uri} ${u.place}`),
      calls: used.calls,
      second: second.action,
      resumeId: second.resumeId,
    },
    null,
    2,
  ),
);
