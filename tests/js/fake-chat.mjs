// A local stand-in for a chat-completions server (OpenAI's format), for the recipe tests in Node and
// in Chromium (CORS allowed). Deterministic: an extraction request (response_format named extract_1)
// gets one memory per offered turn that says something about food; a chat request is answered with
// the entries of the <memory> block in its system prompt ("From memory: …"), or "Noted." without one.
import { createServer } from "node:http";
import { once } from "node:events";

const unescape = (s) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");

function extraction(body) {
  const offered = body.response_format.json_schema.schema.properties.memories.items.properties.derivedFrom.items.enum;
  const conversation = body.messages.map((m) => m.content).join("\n");
  const memories = [];
  if (/vegetarian/i.test(conversation)) {
    memories.push({ content: "The user is vegetarian", kind: "semantic", importance: 0.8, tags: ["food"], eventAt: null, derivedFrom: [offered[0]] });
  }
  return JSON.stringify({ memories });
}

function chatReply(body) {
  const system = body.messages[0]?.role === "system" ? body.messages[0].content : "";
  const entries = [...system.matchAll(/<entry[^>]*>([\s\S]*?)<\/entry>/g)].map((m) => unescape(m[1]));
  return entries.length ? `From memory: ${entries.join(" | ")}` : "Noted.";
}

/** Starts the server on 127.0.0.1; resolves to `{baseURL, requests, chats, close}`. */
export async function fakeChatServer() {
  const requests = [];
  const server = createServer((req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "POST" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      let body;
      try {
        body = JSON.parse(data);
      } catch {
        return res.writeHead(400, cors).end("bad json");
      }
      const isExtraction = body.response_format?.json_schema?.name === "extract_1";
      requests.push({ path: req.url, auth: req.headers.authorization, kind: isExtraction ? "extract" : "chat", body });
      const content = isExtraction ? extraction(body) : chatReply(body);
      res.writeHead(200, { ...cors, "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { prompt_tokens: 40, completion_tokens: 10 } }));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    /** The chat (not extraction) requests, in order. */
    chats: () => requests.filter((r) => r.kind === "chat"),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}
