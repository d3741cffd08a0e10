// Recipe: a Node agent whose memory persists on disk across runs (NodeFSStorage).
//
//   node examples/node-agent.mjs "I'm vegetarian, by the way." "/remember My sister is Ines"
//   node examples/node-agent.mjs                      (no arguments: an interactive prompt)
//
// Each message goes through examples/chat-memory.mjs (recallContext → system prompt → LLM → ingest).
// "/remember <text>" stores a memory directly (add with a plain string, mem0-style). When the run
// ends, `add(messages)` hands the session to the same LLM to extract typed memories from it, so the
// next run recalls "The user is vegetarian" rather than only the raw turn.
//
// LLM_BASE_URL (default http://localhost:11434/v1, Ollama), LLM_MODEL (default llama3.1),
// LLM_API_KEY (hosted APIs); ENGRAM_AGENT_DIR: the store (default target/agent-store).
import { createInterface } from "node:readline/promises";
import { Engram, openAICompatible } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { chatWithMemory } from "./chat-memory.mjs";

const baseURL = process.env.LLM_BASE_URL ?? "http://localhost:11434/v1";
const model = process.env.LLM_MODEL ?? "llama3.1";
const apiKey = process.env.LLM_API_KEY || undefined;
const dir = process.env.ENGRAM_AGENT_DIR ?? "target/agent-store";

// The same endpoint extracts memories; Engram validates every reply and never applies a bad one.
const llm = openAICompatible({ fetch, baseURL, model, apiKey });
let memory;
try {
  memory = await Engram.open({ storage: new NodeFSStorage(dir), llm }); // the local model from ENGRAM_MODEL_DIR or ./models
} catch (e) {
  if (e.code !== "Embedder") throw e;
  console.log("(no local embedding model: keyword-only recall)");
  memory = await Engram.open({ storage: new NodeFSStorage(dir), llm, embedder: null });
}

const sessionId = `agent-${new Date().toISOString().replace(/[:.]/g, "-")}`;
const chat = chatWithMemory({ memory, fetch, baseURL, model, apiKey, sessionId, system: "You are a concise personal assistant." });

async function handle(line) {
  const text = line.trim();
  if (text === "") return;
  if (text.startsWith("/remember ")) {
    const m = await memory.add(text.slice("/remember ".length), { importance: 0.8 });
    console.log(`(${m.deduplicated ? "already known" : "remembered"}: ${m.content})`);
    return;
  }
  const { reply, context } = await chat.send(text);
  console.log(`> ${text}\n< ${reply}\n  (memory in the prompt: ${context.ids.length} items, ${context.tokens} tokens)`);
}

try {
  const messages = process.argv.slice(2);
  if (messages.length > 0) {
    for (const m of messages) await handle(m);
  } else {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    for (;;) {
      const line = await rl.question("you: ").catch(() => null); // null: stdin closed (Ctrl-D)
      if (line === null || line === "/quit") break;
      await handle(line);
    }
    rl.close();
  }
  if (chat.turns.length > 0) {
    // mem0-style: the conversation as messages. Already ingested turn by turn, so this only extracts.
    const { extracted } = await memory.add(chat.turns, { sessionId });
    console.log(`(session ${sessionId}: ${extracted.added.length} memories extracted, ${extracted.skipped.length} steps skipped)`);
  }
} finally {
  await memory.close();
}
