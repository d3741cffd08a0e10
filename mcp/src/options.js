// Command-line options of engram-mcp and where its store lives by default.
import { homedir } from "node:os";
import { join } from "node:path";

export const USAGE = `engram-mcp: an MCP server (stdio) over an Engram memory store

Usage: engram-mcp [options]

  --dir DIR            the store directory (default: the user's data directory, see below)
  --namespace NS       the namespace tools use when a call names none (default "default")
  --no-default         reads see only their namespace, not the shared "default" one as well
                       (one store, tenants kept apart)
  --llm-url URL        an OpenAI-compatible chat-completions endpoint for extraction, e.g.
                       http://localhost:11434/v1 (the key, if any, from ENGRAM_LLM_API_KEY)
  --llm-model MODEL    the model name sent to --llm-url (required with it)
  --llm-structured M   json_schema (default) | json_object | none: how replies are constrained
  --llm-level L        how much the LLM is asked: auto (default; it extracts plain memories from
                       conversations and decides where consolidation's heuristics are unsure) |
                       on (it also authors the typed memories in place of the offline rules) | off
  --no-sampling        never ask the MCP client's own model (sampling) to act as the LLM
  --llm-timeout-ms N   how long one LLM call may take (default 60000; a client that asks the
                       person to approve each sampling request may need more)
  --keyword-only       no embedder, even where a model is found
  --durability D       strict (default: every write fsynced) | relaxed
  --max-message-mib N  the largest JSON-RPC message read (default 64); a larger one is answered
                       with an error and skipped, and the server goes on
  --help, --version

The local embedder (model.onnx + tokenizer.json) is loaded from ENGRAM_MODEL_DIR when it is set,
else from the package engram-model-minilm-l6-int8 when it is installed (in the working directory's
node_modules or beside engram-mcp); without either the store is keyword-only. The LLM, when there is one, is --llm-url, else the client's
model through MCP sampling where the client offers it.

Default store directory: $XDG_DATA_HOME/engram-mcp (~/.local/share/engram-mcp) on Linux,
~/Library/Application Support/engram-mcp on macOS, %APPDATA%\\engram-mcp on Windows.`;

/** The per-user data directory of this platform, with `engram-mcp` appended. */
export function defaultStoreDir(env = process.env, platform = process.platform, home = homedir()) {
  if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "engram-mcp");
  if (platform === "darwin") return join(home, "Library", "Application Support", "engram-mcp");
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "engram-mcp");
}

const VALUED = new Map([
  ["--dir", "dir"],
  ["--namespace", "namespace"],
  ["--llm-url", "llmUrl"],
  ["--llm-model", "llmModel"],
  ["--llm-structured", "llmStructured"],
  ["--llm-level", "llmLevel"],
  ["--durability", "durability"],
  ["--llm-timeout-ms", "llmTimeoutMs"],
  ["--max-message-mib", "maxMessageMib"],
]);

/**
 * `{dir, namespace, llmUrl, llmModel, llmStructured, llmLevel, llmTimeoutMs, maxMessageMib, sampling, keywordOnly, durability, help, version}`
 * from argv; throws an Error whose message is for the person who typed the command.
 */
export function parseArgs(argv, env = process.env) {
  const out = {
    dir: null,
    namespace: null,
    llmUrl: null,
    llmModel: null,
    llmStructured: "json_schema",
    llmLevel: "auto",
    sampling: true,
    keywordOnly: false,
    includeDefault: true,
    durability: "strict",
    llmTimeoutMs: null,
    maxMessageMib: 64,
    help: false,
    version: false,
  };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) [arg, value] = [arg.slice(0, eq), arg.slice(eq + 1)];
    if (VALUED.has(arg)) {
      if (value === undefined) {
        value = argv[++i];
        if (value === undefined || value.startsWith("--")) throw new Error(`${arg} needs a value`);
      }
      if (value === "") throw new Error(`${arg} needs a non-empty value`);
      out[VALUED.get(arg)] = value;
    } else if (value !== undefined) {
      throw new Error(`${arg} takes no value`);
    } else if (arg === "--no-sampling") out.sampling = false;
    else if (arg === "--keyword-only") out.keywordOnly = true;
    else if (arg === "--no-default") out.includeDefault = false;
    else if (arg === "--help" || arg === "-h") out.help = true;
    else if (arg === "--version") out.version = true;
    else throw new Error(`unknown option ${arg}`);
  }
  if ((out.llmUrl === null) !== (out.llmModel === null)) throw new Error("--llm-url and --llm-model go together");
  if (!["json_schema", "json_object", "none"].includes(out.llmStructured)) throw new Error("--llm-structured must be json_schema, json_object or none");
  if (!["off", "auto", "on"].includes(out.llmLevel)) throw new Error("--llm-level must be off, auto or on");
  if (!["strict", "relaxed"].includes(out.durability)) throw new Error("--durability must be strict or relaxed");
  if (out.namespace !== null && !(out.namespace.length > 0 && out.namespace.trim() === out.namespace && !/\p{Cc}/u.test(out.namespace))) {
    throw new Error("--namespace must be non-empty, without control characters or spaces at either end");
  }
  if (out.llmTimeoutMs !== null) {
    if (!/^[1-9][0-9]{0,8}$/.test(out.llmTimeoutMs)) throw new Error("--llm-timeout-ms must be a positive whole number of milliseconds");
    out.llmTimeoutMs = Number(out.llmTimeoutMs);
  }
  if (typeof out.maxMessageMib === "string") {
    // A line is decoded as one string: V8 strings stop short of 1 GiB.
    if (!/^[1-9][0-9]{0,2}$/.test(out.maxMessageMib)) throw new Error("--max-message-mib must be a whole number of MiB from 1 to 999");
    out.maxMessageMib = Number(out.maxMessageMib);
  }
  out.dir ??= defaultStoreDir(env);
  return out;
}
