// engram-wasm/langchain against the real @langchain/core: the retriever is a BaseRetriever that
// composes in a chain and returns what is current; the chat history keeps a conversation as an
// Engram session that a new history object (or a reopened store) reads back, authored into memories.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseRetriever } from "@langchain/core/retrievers";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { Engram, EngramError } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { EngramChatMessageHistory, EngramRetriever } from "engram-wasm/langchain";
import { countingCalls, documentedOutput, readmeSnippet, runInProject } from "./helpers.mjs";

test("EngramRetriever: a LangChain retriever over what is current, composable in a chain", async () => {
  const memory = await Engram.open({ embedder: null });
  await memory.add({ content: "The team standup is at 9:30", thread: "team/standup", value: "9:30", shape: "evolving_attribute", eventAt: "2026-01-05" });
  await memory.add({ content: "The team standup moved to 10:15", thread: "team/standup", value: "10:15", shape: "evolving_attribute", eventAt: "2026-02-01" });
  await memory.add({ content: "Ana reviews the release notes", tags: ["release"], namespace: "work" });
  const retriever = new EngramRetriever({ memory, limit: 3 });
  assert.ok(retriever instanceof BaseRetriever);

  const docs = await retriever.invoke("when is the team standup?");
  assert.deepEqual(
    docs.map((d) => d.pageContent),
    ["The team standup moved to 10:15"],
    "the superseded time is not retrieved",
  );
  assert.equal(docs[0].metadata.type, "memory");
  assert.equal(docs[0].metadata.thread, "team/standup");
  assert.equal(docs[0].id, docs[0].metadata.id);
  assert.ok(docs[0].metadata.score > 0);

  // A chain: retrieve, then format; tag filters and namespaces reach the search.
  const chain = new EngramRetriever({ memory, namespace: "work", memoryTags: ["release"] }).pipe(RunnableLambda.from((found) => found.map((d) => d.pageContent).join("\n")));
  assert.equal(await chain.invoke("who reviews the release notes?"), "Ana reviews the release notes");
  const tenant = new EngramRetriever({ memory, namespace: "work", includeDefault: false });
  assert.deepEqual(await tenant.invoke("team standup"), [], "the shared namespace left out on request");

  assert.throws(
    () => new EngramRetriever({}),
    (e) => e instanceof EngramError && e.code === "InvalidInput",
  );
  assert.throws(
    () => new EngramRetriever({ memory, userId: "a" }),
    (e) => e instanceof EngramError && e.code === "InvalidInput",
  );
  await assert.rejects(new EngramRetriever({ memory, limit: 0 }).invoke("x"), (e) => e instanceof EngramError && e.code === "InvalidInput");
  await memory.close();
});

test("EngramChatMessageHistory: a conversation kept as a session, read back after a reopen, authored into memories", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "engram-langchain-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const memory = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const history = new EngramChatMessageHistory({ memory, sessionId: "chat-1", namespace: "user:42" });
  assert.ok(history instanceof BaseListChatMessageHistory);
  assert.deepEqual(await history.getMessages(), []);

  await history.addMessages([new SystemMessage("Be brief."), new HumanMessage("My favourite colour is green.")]);
  await history.addMessage(new AIMessage("Green it is."));
  await history.addUserMessage("Actually my favourite colour is now blue.");
  const messages = await history.getMessages();
  assert.deepEqual(
    messages.map((m) => [m.getType(), m.content]),
    [
      ["system", "Be brief."],
      ["human", "My favourite colour is green."],
      ["ai", "Green it is."],
      ["human", "Actually my favourite colour is now blue."],
    ],
  );
  assert.deepEqual(await memory.sessions({ namespace: "user:42" }), ["chat-1"]);
  // Authored as the turns arrived: the store holds typed memories cited back to the session's turns.
  const authored = await memory.getAll({ namespace: "user:42" });
  assert.ok(authored.length > 0, "memories were authored from the conversation");
  assert.ok(authored.every((m) => m.derivedFrom.every((id) => id.startsWith("chat-1#"))));
  await memory.close();

  const reopened = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const again = new EngramChatMessageHistory({ memory: reopened, sessionId: "chat-1", namespace: "user:42", author: false });
  assert.equal((await again.getMessages()).length, 4);
  await assert.rejects(again.addMessages([{ content: "no role" }]), (e) => e instanceof EngramError && e.code === "InvalidInput");
  assert.equal((await again.getMessages()).length, 4, "a refused message adds nothing");
  await again.clear();
  assert.deepEqual(await again.getMessages(), []);
  assert.deepEqual(await reopened.sessions({ namespace: "user:42" }), []);
  assert.throws(
    () => new EngramChatMessageHistory({ memory: reopened }),
    (e) => e instanceof EngramError && e.code === "InvalidInput",
  );
  await reopened.close();
});

test("EngramChatMessageHistory: messages added together are all kept, in the order they were added", async () => {
  const memory = await Engram.open({ embedder: null });
  const history = new EngramChatMessageHistory({ memory, sessionId: "chat-1", author: false });
  await Promise.all([history.addUserMessage("One."), history.addAIMessage("Two."), history.addUserMessage("Three.")]);
  assert.deepEqual(
    (await history.getMessages()).map((m) => m.content),
    ["One.", "Two.", "Three."],
  );
  await Promise.all([history.addUserMessage("Four."), history.clear()]);
  assert.deepEqual(await history.getMessages(), [], "a clear after an add removes it");
  await memory.close();
});

/** Asserts `make` throws InvalidInput with a message matching `message`. */
function refuses(make, message) {
  assert.throws(make, (e) => e instanceof EngramError && e.code === "InvalidInput" && message.test(e.message), String(message));
}

test("the adapters' options: a misspelled or wrongly typed one is InvalidInput naming the call; valid ones work", async () => {
  const memory = await Engram.open({ embedder: null });
  await memory.add({ content: "Ana reviews the release notes", namespace: "work" });
  refuses(() => new EngramRetriever({ memory, limt: 3 }), /^EngramRetriever: unknown option `limt` \(allowed: memory, namespace, /);
  refuses(() => new EngramRetriever({ memory, includeDefault: "no" }), /^EngramRetriever: `includeDefault` must be a boolean$/);
  refuses(() => new EngramRetriever({ memory, namespace: 42 }), /^EngramRetriever: `namespace` must be a string$/);
  refuses(() => new EngramRetriever({ memory, verbose: 1 }), /^EngramRetriever: `verbose` must be a boolean$/);
  refuses(() => new EngramRetriever([memory]), /^EngramRetriever: expected an options object like \{memory\}$/);
  refuses(() => new EngramRetriever({ memory, userId: "u1" }), /Engram scopes memories by namespace, any id of yours: \{ namespace: "u1" \}$/);
  refuses(
    () => new EngramChatMessageHistory({ memory, sessionId: "chat-1", autor: false }),
    /^EngramChatMessageHistory: unknown option `autor` \(allowed: memory, namespace, sessionId, author\)$/,
  );
  refuses(() => new EngramChatMessageHistory({ memory, sessionId: 7 }), /^EngramChatMessageHistory: `sessionId` must be a string$/);
  refuses(() => new EngramChatMessageHistory({ memory, sessionId: "" }), /^EngramChatMessageHistory: `sessionId` must be a non-empty string$/);
  refuses(() => new EngramChatMessageHistory({ memory, sessionId: "chat-1", author: "no" }), /^EngramChatMessageHistory: `author` must be a boolean$/);
  refuses(() => new EngramChatMessageHistory({ memory, sessionId: "chat-1", namespace: ["work"] }), /^EngramChatMessageHistory: `namespace` must be a string$/);

  const retriever = new EngramRetriever({ memory, namespace: "work", includeDefault: false, verbose: false, limit: 2 });
  assert.deepEqual(
    (await retriever.invoke("who reviews the release notes?")).map((d) => d.pageContent),
    ["Ana reviews the release notes"],
  );
  const history = new EngramChatMessageHistory({ memory, sessionId: "chat-1", namespace: "work", author: false });
  await history.addUserMessage("Ana is on leave next week.");
  assert.deepEqual(
    (await history.getMessages()).map((m) => m.content),
    ["Ana is on leave next week."],
  );
  assert.equal((await memory.getAll({ namespace: "work" })).length, 1, "author: false authors nothing");
  await memory.close();
});

test("EngramChatMessageHistory reads its one session by id: no listing of the store's sessions, whatever their number", async () => {
  const memory = await Engram.open({ embedder: null });
  const others = (n) => Array.from({ length: n }, (_, i) => ({ id: `other-${i}`, namespace: "user:42", turns: [{ role: "user", content: `note ${i}` }] }));
  await memory.ingestMany(others(40));
  const { wrapper, calls } = countingCalls(memory);
  const history = new EngramChatMessageHistory({ memory: wrapper, sessionId: "chat-1", namespace: "user:42", author: false });
  assert.deepEqual(await history.getMessages(), []);
  await history.addUserMessage("First.");
  await history.addMessages([new AIMessage("Second."), new HumanMessage("Third.")]);
  assert.deepEqual(
    (await history.getMessages()).map((m) => [m.getType(), m.content]),
    [
      ["human", "First."],
      ["ai", "Second."],
      ["human", "Third."],
    ],
  );
  // One read per call: two getMessages and two appends, with 40 or 400 other sessions alike.
  assert.equal(calls.sessions, undefined, "sessions() is never listed");
  assert.equal(calls.session, 4);
  assert.equal(calls.ingest, 2);
  await memory.ingestMany(others(400));
  await history.addUserMessage("Fourth.");
  assert.equal(calls.session, 5);
  assert.equal(calls.sessions, undefined);

  // A session of the same id in another namespace stays out of reach, as when sessions were listed.
  await memory.ingest({ id: "shared", namespace: "team", turns: [{ role: "user", content: "team only" }] });
  const outsider = new EngramChatMessageHistory({ memory: wrapper, sessionId: "shared", namespace: "user:42" });
  assert.deepEqual(await outsider.getMessages(), []);
  await outsider.clear();
  assert.equal(calls.deleteSession, undefined, "clear() leaves another namespace's session alone");
  await assert.rejects(outsider.addUserMessage("hi"), (e) => e instanceof EngramError && e.code === "InvalidInput");
  assert.deepEqual(
    (await memory.session("shared")).map((t) => t.content),
    ["team only"],
  );
  // And one of the default namespace is reached by a history without a namespace.
  await memory.ingest({ id: "plain", turns: [{ role: "user", content: "kept" }] });
  const plain = new EngramChatMessageHistory({ memory: wrapper, sessionId: "plain" });
  assert.deepEqual(
    (await plain.getMessages()).map((m) => m.content),
    ["kept"],
  );
  await plain.clear();
  assert.deepEqual(await memory.sessions(), []);
  assert.deepEqual(await plain.getMessages(), []);
  await memory.close();
});

test("the README's LangChain example prints its documented output", async () => {
  const code = readmeSnippet("<!-- example: executed by tests/js/langchain.test.mjs -->");
  const expected = documentedOutput(code);
  assert.equal(expected.length, 2);
  // A throwaway project depending on the package; @langchain/core resolves beside it, as a host's would.
  assert.deepEqual(await runInProject(code), expected);
});
