// engram-wasm/ai against the real Vercel AI SDK (`ai`, with its own mock model from `ai/test`): the
// middleware puts the recalled `<memory>` block into the prompt after the caller's system message,
// keeps each exchange (generated or streamed) as turns of the session, authored into memories that
// the next call recalls, and never sends a value a later statement replaced as if it held.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Engram, EngramError } from "engram-wasm";
import { engramMiddleware } from "engram-wasm/ai";
import { countingCalls, readmeSnippet, runInProject } from "./helpers.mjs";

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 3, text: 3, reasoning: undefined } };

/** A mock model answering `reply` and recording each prompt it was sent. */
function recordingModel(reply) {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      return { content: [{ type: "text", text: reply }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      const parts = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...reply.split(" ").map((word, i) => ({ type: "text-delta", id: "t", delta: (i ? " " : "") + word })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  });
  return { model, prompts };
}

const systemTexts = (prompt) => prompt.filter((m) => m.role === "system").map((m) => m.content);

test("engramMiddleware: recalled memory in the prompt, exchanges kept and authored, streamed ones too", async () => {
  const memory = await Engram.open({ embedder: null });
  const { model, prompts } = recordingModel("Noted.");
  const wrapped = wrapLanguageModel({ model, middleware: engramMiddleware({ memory, sessionId: "chat-1", namespace: "user:42" }) });

  // Nothing recalled yet: the prompt goes through as the caller wrote it.
  await generateText({ model: wrapped, system: "Be brief.", prompt: "Our team standup is at 9:30." });
  assert.deepEqual(systemTexts(prompts[0]), ["Be brief."]);
  // A streamed exchange is kept once the stream ends.
  const streamed = streamText({ model: wrapped, system: "Be brief.", prompt: "Our team standup moved to 10:15." });
  assert.equal(await streamed.text, "Noted.");
  const turns = await memory.session("chat-1");
  assert.deepEqual(
    turns.map((t) => [t.role, t.content]),
    [
      ["user", "Our team standup is at 9:30."],
      ["assistant", "Noted."],
      ["user", "Our team standup moved to 10:15."],
      ["assistant", "Noted."],
    ],
  );
  assert.ok((await memory.getAll({ namespace: "user:42" })).length > 0, "the exchanges were authored into memories");

  // The next call is sent the memory block after the caller's system message, with the current time.
  await generateText({ model: wrapped, system: "Be brief.", prompt: "When is the team standup?" });
  const [instructions, block, ...rest] = systemTexts(prompts[2]);
  assert.equal(instructions, "Be brief.");
  assert.deepEqual(rest, []);
  assert.match(block, /^<memory>/);
  assert.match(block, /10:15/);
  assert.match(block, /10:15 \(current/);
  for (const line of block.split("\n").filter((l) => l.includes("9:30"))) assert.doesNotMatch(line, /current/, `9:30 is shown only as replaced: ${line}`);
  assert.equal(prompts[2].at(-1).role, "user");
  await memory.close();
});

test("engramMiddleware: without a sessionId nothing is kept; bad options are InvalidInput", async () => {
  const memory = await Engram.open({ embedder: null });
  await memory.add({ content: "Ana prefers short answers", namespace: "team" });
  const { model, prompts } = recordingModel("Sure.");
  const wrapped = wrapLanguageModel({ model, middleware: engramMiddleware({ memory, namespace: "team", includeDefault: false }) });
  await generateText({ model: wrapped, prompt: "How does Ana like her answers?" });
  assert.match(systemTexts(prompts[0])[0], /Ana prefers short answers/);
  assert.deepEqual(await memory.sessions({ namespace: "team" }), []);
  for (const bad of [{}, { memory: {} }, { memory, sessionId: "" }, { memory, author: "yes" }, { memory, userId: "a" }])
    assert.throws(
      () => engramMiddleware(bad),
      (e) => e instanceof EngramError && e.code === "InvalidInput",
      JSON.stringify(Object.keys(bad)),
    );
  await memory.close();
});

test("engramMiddleware: a misspelled or wrongly typed option is InvalidInput naming the call; valid ones work", async () => {
  const memory = await Engram.open({ embedder: null });
  const refused = [
    [{ memory, sesionId: "chat-1" }, /^engramMiddleware: unknown option `sesionId` \(allowed: memory, namespace, sessionId, author, includeDefault, maxTokens\)$/],
    [{ memory, maxTokens: "800" }, /^engramMiddleware: `maxTokens` must be a non-negative integer$/],
    [{ memory, maxTokens: 1.5 }, /^engramMiddleware: `maxTokens` must be a non-negative integer$/],
    [{ memory, includeDefault: 0 }, /^engramMiddleware: `includeDefault` must be a boolean$/],
    [{ memory, namespace: { id: "team" } }, /^engramMiddleware: `namespace` must be a string$/],
    [{ memory, sessionId: 42 }, /^engramMiddleware: `sessionId` must be a string$/],
    [{ memory, sessionId: "chat-1", author: null }, /^engramMiddleware: `author` must be a boolean$/],
    ["memory", /^engramMiddleware: expected an options object like \{memory\}$/],
  ];
  for (const [bad, message] of refused)
    assert.throws(
      () => engramMiddleware(bad),
      (e) => e instanceof EngramError && e.code === "InvalidInput" && message.test(e.message),
      String(message),
    );

  await memory.add({ content: "Ana prefers short answers", namespace: "team" });
  const { model, prompts } = recordingModel("Sure.");
  const middleware = engramMiddleware({ memory, namespace: "team", includeDefault: true, maxTokens: 200, sessionId: "chat-2", author: false });
  await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: "How does Ana like her answers?" });
  assert.match(systemTexts(prompts[0])[0], /Ana prefers short answers/);
  assert.deepEqual(
    (await memory.session("chat-2")).map((t) => [t.role, t.content]),
    [
      ["user", "How does Ana like her answers?"],
      ["assistant", "Sure."],
    ],
  );
  assert.equal((await memory.getAll({ namespace: "team" })).length, 1, "author: false authors nothing");
  await memory.close();
});

test("engramMiddleware keeps each exchange with one read of its session by id, however many sessions the store holds", async () => {
  const memory = await Engram.open({ embedder: null });
  await memory.ingestMany(Array.from({ length: 300 }, (_, i) => ({ id: `other-${i}`, namespace: "user:42", turns: [{ role: "user", content: `note ${i}` }] })));
  const { wrapper, calls } = countingCalls(memory);
  const { model } = recordingModel("Noted.");
  const wrapped = wrapLanguageModel({ model, middleware: engramMiddleware({ memory: wrapper, sessionId: "chat-1", namespace: "user:42", author: false }) });
  // Two exchanges finishing together are both kept, one after the other.
  await Promise.all([generateText({ model: wrapped, prompt: "First." }), generateText({ model: wrapped, prompt: "Second." })]);
  await generateText({ model: wrapped, prompt: "Third." });
  const turns = (await memory.session("chat-1")).map((t) => t.content);
  assert.deepEqual([turns[0], turns[2]].sort(), ["First.", "Second."], "in whichever order they finished");
  assert.deepEqual([turns[1], turns[3], ...turns.slice(4)], ["Noted.", "Noted.", "Third.", "Noted."]);
  assert.equal(calls.sessions, undefined, "sessions() is never listed");
  assert.equal(calls.session, 3, "one read per exchange");
  assert.equal(calls.ingest, 3);
  await memory.close();
});

test("the README's AI SDK example runs as pasted, given `memory` and `yourModel`", async () => {
  const snippet = readmeSnippet("<!-- example: executed by tests/js/ai-sdk.test.mjs -->");
  // What the README leaves to the reader: an open Engram holding the current fact, and a model (the
  // SDK's mock, which records the prompt it is sent).
  const given = `import { Engram } from "engram-wasm";
import { MockLanguageModelV4 } from "ai/test";
const memory = await Engram.open({ embedder: null });
await memory.add("The team standup is at 10:15", { namespace: "user:42" });
const prompts = [];
const usage = ${JSON.stringify(usage)};
const yourModel = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => (prompts.push(prompt), { content: [{ type: "text", text: "10:15." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
});
`;
  const report = `
console.log(text);
console.log(JSON.stringify(prompts[0].filter((m) => m.role === "system").map((m) => m.content)));
console.log(JSON.stringify((await memory.session("chat-1")).map((t) => [t.role, t.content])));
await memory.close();
`;
  const [text, systems, turns] = await runInProject(given + snippet + report, { packages: ["ai"] });
  assert.equal(text, "10:15.");
  const [own, recalled] = JSON.parse(systems);
  assert.equal(own, "Be brief.");
  assert.match(recalled, /<memory>[\s\S]*The team standup is at 10:15/);
  assert.deepEqual(JSON.parse(turns), [
    ["user", "When is the team standup?"],
    ["assistant", "10:15."],
  ]);
});
