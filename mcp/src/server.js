// engram-mcp: a Model Context Protocol server over stdio, one Engram store on local disk
// (NodeFSStorage: several server processes may share a directory; each write commits under the
// store's file lock after reading what the others committed). Tool arguments are checked against
// each tool's JSON Schema; every failure, Engram's or the arguments', is a tool error carrying
// Engram's error code, never a crash. SIGTERM / SIGINT / stdin closing flush the store and exit.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Engram, EngramError, openAICompatible } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { USAGE, parseArgs } from "./options.js";
import { LineTransport } from "./stdio.js";
import { availableTools } from "./tools.js";

const VERSION = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

/**
 * Whether the model package is installed where engram-wasm looks for it: the working directory's
 * node_modules, or beside this package (`npx -p engram-mcp -p engram-model-minilm-l6-int8 engram-mcp`).
 */
function modelPackageInstalled() {
  for (const from of [join(process.cwd(), "/"), import.meta.url]) {
    try {
      createRequire(from).resolve("engram-model-minilm-l6-int8/package.json");
      return true;
    } catch {
      // not installed where `from` looks
    }
  }
  return false;
}

const log = (message) => process.stderr.write(`engram-mcp: ${message}\n`);

/**
 * The host `Llm` (see engram-wasm's "Host LLM") answered by the MCP client's own model through
 * sampling (`sampling/createMessage`). Sampling has no structured-output switch, so the schema is
 * stated in the system prompt; Engram validates the reply strictly and retries once either way.
 */
export function samplingLlm(server) {
  return async (request, { signal } = {}) => {
    const reply = await server.createMessage(
      {
        systemPrompt: `${request.system}\n\nReply with only a JSON value that satisfies this JSON Schema:\n${JSON.stringify(request.schema)}`,
        messages: request.messages.map((m) => ({ role: m.role, content: { type: "text", text: m.content } })),
        maxTokens: request.maxOutputTokens,
        temperature: request.temperature,
        includeContext: "none",
        metadata: { promptId: request.promptId },
      },
      // Engram's own timeout (llmTimeoutMs) cuts the call through `signal`; the SDK's is only a backstop.
      { signal, timeout: 10 * 60_000 },
    );
    const blocks = Array.isArray(reply.content) ? reply.content : [reply.content];
    const text = blocks
      .filter((b) => b?.type === "text")
      .map((b) => b.text)
      .join("");
    if (text === "") throw new EngramError("Llm", "the MCP client's sampling reply held no text");
    return { text };
  };
}

/** A tool error: the text names Engram's code first, the structured form carries it apart. */
function toolError(code, message) {
  return { isError: true, content: [{ type: "text", text: `${code}: ${message}` }], structuredContent: { error: { code, message } } };
}

/**
 * An MCP `Server` over one store, opened once the client has initialized (sampling is known then) or
 * by the first tool call. `options` as `parseArgs` returns them; `open(openOptions)` opens the store
 * (tests pass their own).
 */
export function createEngramServer(options, { open = (o) => Engram.open(o), env = process.env } = {}) {
  const tools = availableTools(Engram);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const validators = new Map();
  const ajv = new AjvJsonSchemaValidator();
  for (const t of tools) validators.set(t.name, ajv.getValidator(t.inputSchema));

  const server = new Server(
    { name: "engram-mcp", title: "Engram memory", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Long-term memory for this user and their work. Call `recall` with the task or question before answering anything that may depend on " +
        "earlier sessions; call `remember` for durable facts, preferences and decisions worth keeping; `resume` at the start of a session.",
    },
  );

  let llmMode = "none";
  let opening = null;
  let opened = null;
  /** The open store; a failed open is retried by the next call (a lock held too long, a fixed directory). */
  function engine() {
    if (opening) return opening;
    opening = (async () => {
      await mkdir(options.dir, { recursive: true }).catch((e) => {
        throw new EngramError("Storage", `cannot create the store directory ${options.dir}: ${e.message}`);
      });
      let llm = null;
      if (options.llmUrl) {
        llm = openAICompatible({ fetch, baseURL: options.llmUrl, model: options.llmModel, apiKey: env.ENGRAM_LLM_API_KEY || undefined, structured: options.llmStructured });
        llmMode = `openai-compatible ${options.llmUrl} (${options.llmModel})`;
      } else if (options.sampling && server.getClientCapabilities()?.sampling) {
        llm = samplingLlm(server);
        llmMode = "client sampling";
      } else {
        llmMode = "none";
      }
      // undefined: engram-wasm's default, the model in ENGRAM_MODEL_DIR or the installed model package.
      const embedder = options.keywordOnly || !(env.ENGRAM_MODEL_DIR || modelPackageInstalled()) ? null : undefined;
      const db = await open({
        storage: new NodeFSStorage(options.dir, { durability: options.durability }),
        embedder,
        includeDefault: options.includeDefault,
        ...(llm ? { llm, llmLevel: options.llmLevel, ...(options.llmTimeoutMs ? { llmTimeoutMs: options.llmTimeoutMs } : {}) } : {}),
      });
      opened = db;
      log(`store ${options.dir} open (${embedder === null ? "keyword-only" : "local embedder"}; LLM: ${llmMode})`);
      return db;
    })();
    const attempt = opening;
    attempt.catch((e) => {
      log(`opening the store failed: ${e.code ?? ""} ${e.message}`);
      if (opening === attempt) opening = null;
    });
    return attempt;
  }

  server.oninitialized = () => {
    engine().catch(() => {}); // reported to the first tool call
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    // A tool result, not a protocol error: the agent's model reads it and can pick a listed tool.
    if (!tool) return toolError("NotFound", `unknown tool ${request.params.name} (tools: ${[...byName.keys()].join(", ")})`);
    const args = request.params.arguments ?? {};
    const verdict = validators.get(tool.name)(args);
    if (!verdict.valid) return toolError("InvalidInput", `${tool.name}: ${verdict.errorMessage}`);
    try {
      const db = await engine();
      return await tool.run(db, args, { namespace: options.namespace, hasLlm: llmMode !== "none", llmLevel: options.llmLevel, llmMode, dir: options.dir, signal: extra.signal });
    } catch (e) {
      const code = typeof e?.code === "string" ? e.code : "Internal";
      if (code === "Internal") log(`${tool.name} failed: ${e?.stack ?? e}`);
      return toolError(code, String(e?.message ?? e));
    }
  });

  let closing = null;
  /** Flushes and closes the store (after the calls in flight), then the connection; resolves to whether all went well. */
  function close() {
    closing ??= (async () => {
      let ok = true;
      const db = opened ?? (opening ? await opening.catch(() => null) : null);
      if (db) {
        try {
          await db.close(); // waits for queued calls, then syncs, flushes and releases the store
        } catch (e) {
          ok = false;
          log(`closing the store failed: ${e.code ?? ""} ${e.message}`);
        }
      }
      await server.close().catch(() => {});
      return ok;
    })();
    return closing;
  }

  return { server, close, engine, tools };
}

/** The command: parse options, serve over stdio until the client goes away or a signal arrives. */
export async function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`engram-mcp: ${e.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const { server, close } = createEngramServer(options);
  const stop = (why) => {
    log(`${why}: flushing and exiting`);
    close().then((ok) => process.exit(ok ? 0 : 1));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  process.stdin.once("end", () => stop("stdin closed"));
  // A bug must not take the store down mid-write unseen: log it and exit through the same path.
  process.on("uncaughtException", (e) => {
    log(`unexpected error: ${e?.stack ?? e}`);
    stop("unexpected error");
  });
  process.on("unhandledRejection", (e) => log(`unhandled rejection: ${e?.stack ?? e}`));
  server.onerror = (e) => log(`protocol error: ${e?.message ?? e}`);
  await server.connect(new LineTransport({ maxMessageBytes: options.maxMessageMib * 1024 * 1024, log }));
  log(`serving over stdio (store: ${options.dir})`);
}
