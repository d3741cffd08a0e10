// Evolving memory through the package: typed fields on add/update, and the derived reads
// recall / thread / gather (states derived on read, deleted values nowhere in the result).
import { test } from "node:test";
import assert from "node:assert/strict";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError } from "engram-wasm";

async function team() {
  const db = await Engram.open({ embedder: null });
  const ns = "team";
  await db.add({
    namespace: ns,
    content: "Seokjin Kang leads the team",
    shape: "evolving_attribute",
    thread: "Team/Team Lead",
    value: "Seokjin Kang",
    eventAt: "2023-03-10T00:00:00Z",
    area: ["team"],
  });
  await db.add({
    namespace: ns,
    content: "The weekly report goes to Hyunwoo Nam; Seokjin Kang assigned it",
    shape: "conditional_value",
    thread: "team/weekly-report-recipient",
    value: "Hyunwoo Nam",
    dependsOn: { thread: "team/team-lead", value: "Seokjin Kang" },
    consequent: "James Lee",
    eventAt: "2023-03-13T00:00:00Z",
    confidence: 0.9,
  });
  await db.add({
    namespace: ns,
    content: "Code reviews go to Seoyun Choi; Seokjin Kang assigned it",
    shape: "contingent_value",
    thread: "team/code-reviewer",
    value: "Seoyun Choi",
    dependsOn: { thread: "team/team-lead" },
    eventAt: "2023-03-13T00:00:00Z",
  });
  await db.add({
    namespace: ns,
    content: "Logs drain to stream.example.io/aurora",
    shape: "evolving_attribute",
    thread: "team/log-drain",
    value: "stream.example.io/aurora",
    eventAt: "2023-03-07T00:00:00Z",
  });
  await db.add({
    namespace: ns,
    content: "Jihoon Ryu is our new team lead",
    shape: "evolving_attribute",
    thread: "team/team-lead",
    value: "Jihoon Ryu",
    eventAt: "2023-03-17T00:00:00Z",
  });
  await db.add({ namespace: ns, content: "The user asked to forget the log drain endpoint", shape: "retraction", thread: "team/log-drain", eventAt: "2023-03-17T00:00:00Z" });
  return { db, ns };
}

test("typed fields are stored normalized and patched; derived states are never stored", async () => {
  const { db, ns } = await team();
  const all = await db.getAll({ namespace: ns });
  const lead = all.find((m) => m.value === "Seokjin Kang");
  assert.equal(lead.thread, "team/team-lead");
  assert.equal(lead.shape, "evolving_attribute");
  assert.deepEqual(lead.area, ["team"]);
  assert.ok(!("state" in lead));
  const patched = await db.update(lead.id, { area: ["Team", "people"], confidence: 0.5, pin: "pinned" });
  assert.deepEqual([patched.area, patched.confidence, patched.pin], [["team", "people"], 0.5, "pinned"]);
  const cleared = await db.update(lead.id, { confidence: null, pin: null });
  assert.equal(cleared.confidence, undefined);
  assert.equal(cleared.pin, undefined);
});

test("recall derives cascade, uncertainty and deletion; thread and gather expose them", async () => {
  const { db, ns } = await team();
  const weekly = await db.recall("Who receives the weekly report?", { namespace: ns, maxTokens: 600 });
  assert.equal(weekly.route, "trail");
  assert.equal(weekly.answers[0].state, "cascaded");
  assert.equal(weekly.answers[0].value, "James Lee");
  assert.equal(weekly.answers[0].because.now, "Jihoon Ryu");
  assert.ok(weekly.context.text.startsWith("<memory>") && weekly.context.tokens <= 600);

  const review = await db.recall("Who reviews our code?", { namespace: ns, maxTokens: 600 });
  assert.equal(review.answers[0].state, "uncertain");
  assert.equal(review.answers[0].value, null);
  assert.match(review.context.text, /Uncertain: .*Seoyun Choi.*no longer the team lead \(team lead changed to Jihoon Ryu on 2023-03-17\)/);

  const drain = await db.recall("What's our log drain endpoint?", { namespace: ns, maxTokens: 600 });
  assert.equal(drain.answers[0].state, "deleted");
  assert.ok(!JSON.stringify(drain).includes("stream.example.io"));
  assert.match(drain.context.text, /Deleted at the user's request on 2023-03-17/);

  // As of before the change and the retraction, everything held.
  const past = await db.recall("Who reviews our code?", { namespace: ns, maxTokens: 600, at: new Date("2023-03-15T00:00:00Z") });
  assert.equal(past.answers[0].state, "current");
  assert.equal(past.answers[0].value, "Seoyun Choi");

  const t = await db.thread("Team / Team Lead", { namespace: ns });
  assert.equal(t.thread, "team/team-lead");
  assert.deepEqual(
    t.values.map((v) => [v.state, v.value]),
    [
      ["superseded", "Seokjin Kang"],
      ["current", "Jihoon Ryu"],
    ],
  );
  assert.equal(t.values[0].replacedBy.at, "2023-03-17T00:00:00.000Z");
  const before = await db.thread("team/team-lead", { namespace: ns, at: "2023-03-01T00:00:00Z" });
  assert.deepEqual([before.state, before.values], [null, []]);
  const g = await db.gather("team", { namespace: ns });
  assert.deepEqual(
    g.answers.map((a) => a.value),
    ["Jihoon Ryu"],
  );
});

test("a value that corrects a mistaken one takes its place; the mistaken value leaves the history", async () => {
  const db = await Engram.open({ embedder: null });
  const at = (day) => `2024-05-${String(day).padStart(2, "0")}T09:00:00Z`;
  const slot = { shape: "evolving_attribute", thread: "trip/ferry-time" };
  await db.add({ ...slot, content: "The ferry leaves at 9:30", value: "9:30", eventAt: at(1) });
  const wrong = await db.add({ ...slot, content: "The ferry now leaves at 9:00", value: "9:00", eventAt: at(3) });
  await db.add({ ...slot, content: "I misspoke: the ferry now leaves at 8:30", value: "8:30", corrects: "9:00", eventAt: at(4) });
  const t = await db.thread("trip/ferry-time");
  assert.deepEqual(
    t.values.map((v) => [v.state, v.value]),
    [
      ["superseded", "9:30"],
      ["current", "8:30"],
    ],
  );
  assert.equal((await db.get(wrong.id)).value, "9:00", "the mistaken memory is kept as written");
  const r = await db.recall("When does the ferry leave?");
  assert.equal(r.answers[0].value, "8:30");
  assert.ok(!r.context.text.includes("9:00"), r.context.text);
});

test("bad input is a typed error naming the field, and changes nothing", async () => {
  const { db, ns } = await team();
  const before = (await db.stats()).memories;
  const bad = [
    { content: "x", thread: "über" },
    { content: "x", shape: "rumor" },
    { content: "x", confidence: 2 },
    { content: "x", area: ["a", "b", "c", "d"] },
    { content: "x", dependsOn: { thread: "a", since: 1 } },
    { content: "x", dependsOn: "team lead" },
    { content: "x", shape: "retraction" },
    { content: "x", pin: "sticky" },
    { content: "x", value: "" },
    { content: "x", signature: 5 },
    { content: "x", thread: "t", value: "v", corrects: "" },
    { content: "x", thread: "t", value: "v", corrects: 5 },
    { content: "x", value: "v", corrects: "w" },
    { content: "x", thread: "t", corrects: "w" },
  ];
  for (const input of bad) await rejectsWith(db.add({ namespace: ns, ...input }), "InvalidInput", EngramError);
  assert.equal((await db.stats()).memories, before);
  await rejectsWith(db.recall(5), "InvalidInput", EngramError);
  await rejectsWith(db.recall("x", { maxTokens: 0 }), "InvalidInput", EngramError);
  await rejectsWith(db.recall("x", { at: "last week" }), "InvalidInput", EngramError);
  await rejectsWith(db.recall("x", { limit: 3 }), "InvalidInput", EngramError);
  await rejectsWith(db.thread(null), "InvalidInput", EngramError);
  await rejectsWith(db.thread("  "), "InvalidInput", EngramError);
  await rejectsWith(db.thread("x", { maxTokens: 5 }), "InvalidInput", EngramError);
  await rejectsWith(db.gather("x", "team"), "InvalidInput", EngramError);
  await rejectsWith(db.gather("ünïcode"), "InvalidInput", EngramError);
});
