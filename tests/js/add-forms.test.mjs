// `add` in mem0's forms: a plain string (the other fields as options) and an array of chat messages
// (kept as a session with `ingest`, and extracted into typed memories where the store has an `llm`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, EngramError } from "engram-wasm";
import { rejectsWith } from "./helpers.mjs";

test("add(string) stores the string as the content; options carry the other fields", async () => {
  const db = await Engram.open({ embedder: null });
  try {
    const a = await db.add("Ana prefers short answers");
    assert.equal(a.content, "Ana prefers short answers");
    assert.equal(a.kind, "semantic");
    const b = await db.add("Deploys run from ops/deploy.sh", { kind: "procedural", namespace: "repo", importance: 0.9, tags: ["ops"] });
    assert.deepEqual([b.kind, b.namespace, b.importance, b.tags], ["procedural", "repo", 0.9, ["ops"]]);
    assert.equal((await db.add("ana prefers short answers.")).deduplicated, true);
    assert.equal((await db.search("deploy", { namespace: "repo" }))[0].memory.id, b.id);

    await rejectsWith(db.add("x", { content: "y" }), "InvalidInput", EngramError);
    await rejectsWith(db.add("x", "semantic"), "InvalidInput", EngramError);
    await rejectsWith(db.add("x", { colour: "red" }), "InvalidInput", EngramError);
    await rejectsWith(db.add(""), "InvalidInput", EngramError);
    await rejectsWith(db.add({ content: "x" }, { kind: "semantic" }), "InvalidInput", EngramError);
    await rejectsWith(db.add(42), "InvalidInput", EngramError);
    assert.equal((await db.stats()).memories, 2, "failed calls stored nothing");
  } finally {
    await db.close();
  }
});

test("add(messages) without an llm keeps them as a session whose turns are searchable", async () => {
  const db = await Engram.open({ embedder: null });
  try {
    const messages = [
      { role: "user", content: "We moved the standup to 9:30." },
      { role: "assistant", content: "Got it, standup at 9:30 from now on." },
    ];
    const out = await db.add(messages);
    assert.match(out.sessionId, /^chat-/);
    assert.equal(out.added, 2);
    assert.equal(out.extracted, undefined);
    assert.deepEqual(
      (await db.session(out.sessionId)).map((t) => t.content),
      messages.map((m) => m.content),
    );
    const hits = await db.search("when is the standup?", { scope: "raw" });
    assert.equal(hits[0].raw.sessionId, out.sessionId);

    const second = await db.add([{ role: "user", content: "Lunch is at noon." }]);
    assert.notEqual(second.sessionId, out.sessionId, "each call without a sessionId is a new session");
    const named = await db.add([...messages, { role: "user", content: "And retro on Fridays." }], { sessionId: out.sessionId, namespace: "default" });
    assert.deepEqual([named.added, named.unchanged], [1, 2]);
    const dated = await db.add(messages, { sessionId: "team-1", namespace: "team", date: "2025-01-06" });
    assert.equal((await db.session(dated.sessionId))[0].date.slice(0, 10), "2025-01-06");
    assert.equal((await db.add(messages, { sessionId: "team-2", extract: true })).extracted.added.length, 0, "no llm: nothing extracted");

    await rejectsWith(db.add([]), "InvalidInput", EngramError);
    await rejectsWith(db.add([{ role: "user" }]), "InvalidInput", EngramError);
    await rejectsWith(db.add([{ role: "user", content: "x", mood: "happy" }]), "InvalidInput", EngramError);
    await rejectsWith(db.add(["just a string"]), "InvalidInput", EngramError);
    await rejectsWith(db.add(messages, { user: "ana" }), "InvalidInput", EngramError);
    await rejectsWith(db.add(messages, { extract: "yes" }), "InvalidInput", EngramError);
    await rejectsWith(db.add(messages, []), "InvalidInput", EngramError);
    assert.deepEqual((await db.sessions()).sort(), [out.sessionId, second.sessionId, "team-2"].sort());
  } finally {
    await db.close();
  }
});

test("add(messages) with an llm ingests and extracts typed memories citing the turns; extract: false only ingests", async () => {
  const requests = [];
  const llm = async (request) => {
    requests.push(request);
    const turn = request.schema.properties.memories.items.properties.derivedFrom.items.enum[0];
    return JSON.stringify({ memories: [{ content: "The team's standup is at 9:30", kind: "semantic", importance: 0.7, tags: ["team"], eventAt: null, derivedFrom: [turn] }] });
  };
  const db = await Engram.open({ embedder: null, llm });
  try {
    const out = await db.add([{ role: "user", content: "We moved the standup to 9:30." }], { sessionId: "chat-1" });
    assert.equal(out.added, 1);
    assert.equal(out.extracted.added.length, 1, JSON.stringify(out.extracted.skipped));
    const m = await db.get(out.extracted.added[0]);
    assert.equal(m.content, "The team's standup is at 9:30");
    assert.deepEqual(m.derivedFrom, ["chat-1#0"]);
    assert.equal(requests.length, 1);

    const only = await db.add([{ role: "user", content: "Lunch is at noon." }], { sessionId: "chat-2", extract: false });
    assert.equal(only.extracted, undefined);
    assert.equal(requests.length, 1, "no call with extract: false");
    await rejectsWith(db.add([{ role: "user", content: "x" }], { signal: "no" }), "InvalidInput", EngramError);
  } finally {
    await db.close();
  }
});

test("mem0 habits: update(id, text) is the new content; userId-style scopes are answered with the namespace form", async () => {
  const db = await Engram.open({ embedder: null });
  const added = await db.add("Ana drinks green tea", { namespace: "user:42" });
  const updated = await db.update(added.id, "Ana drinks oolong now");
  assert.equal(updated.content, "Ana drinks oolong now");
  assert.equal((await db.get(added.id)).content, "Ana drinks oolong now");
  for (const [call, what] of [
    [() => db.add("Ana likes jazz", { userId: "alice" }), /\{ namespace: "alice" \}/],
    [() => db.add({ content: "Ana likes jazz", user_id: 7 }), /\{ namespace: "7" \}/],
    [() => db.add([{ role: "user", content: "hi" }], { userId: "alice" }), /\{ namespace: "alice" \}/],
    [() => db.search("jazz", { agentId: "bot-1" }), /\{ namespace: "bot-1" \}/],
  ]) {
    const e = await call().then(
      () => assert.fail("accepted"),
      (err) => err,
    );
    assert.equal(e.code, "InvalidInput");
    assert.match(e.message, what);
  }
  assert.equal((await db.getAll({ namespace: "alice" })).length, 0, "nothing was written under a guessed scope");
  await db.close();
});
