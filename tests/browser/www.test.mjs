// The offline demo (www/) in real headless Chromium: first visit with the model download's progress,
// turns authored into memories, recall with derived states and score breakdowns, consolidation,
// export → import, forget, a reload from IndexedDB + the Cache API, and a reload with the static
// server stopped (only the service worker and the caches answer). No console errors throughout.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { repo, serveStatic } from "../../scripts/serve-static.mjs";
import { startBrowser } from "./harness.mjs";
import { decodePng, distinctColours } from "./png.mjs";

const haveModel = existsSync(join(repo, "models", "model.onnx")) && existsSync(join(repo, "models", "tokenizer.json"));
const skip = !haveModel && !process.env.ENGRAM_REQUIRE_MODEL && "model files absent (bash scripts/fetch-models.sh)";

let server;
let browser;
/** A scripted OpenAI-compatible server (a test double): records each request, answers with text that is not the JSON asked for. */
let llmServer;
const llmRequests = [];
before(async () => {
  if (skip) return;
  server = await serveStatic();
  llmServer = createServer((req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "POST" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      llmRequests.push({ auth: req.headers.authorization, body: JSON.parse(body) });
      res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { content: "Sure! Here are the memories." } }] }));
    });
  });
  await new Promise((ok) => llmServer.listen(0, "127.0.0.1", ok));
  browser = await startBrowser();
  await browser.setWindowSize(1280, 1000);
});
after(async () => {
  await browser?.close();
  await server?.close();
  llmServer?.close();
});

/** Polls `expr` (a page expression) until it is truthy; resolves to its value. */
const until = (expr, what, ms = 45_000) =>
  browser
    .evalAsync(
      `const end = Date.now() + ${ms};
    (function poll() {
      let v; try { v = (${expr}); } catch (e) { v = undefined; }
      if (v) done(v); else if (Date.now() > end) done({ timeout: ${JSON.stringify(what)}, page: document.getElementById("status")?.textContent ?? document.body?.textContent?.slice(0, 200), demo: window.engramDemo }); else setTimeout(poll, 25);
    })();`,
    )
    .then(async (v) => {
      if (v?.timeout) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(v)}; console: ${JSON.stringify(await browser.browserLog())}`);
      return v;
    });

const demo = () => browser.evalAsync("done(JSON.parse(JSON.stringify(window.engramDemo)))");
const text = (selector) => browser.evalAsync(`done(document.querySelector(${JSON.stringify(selector)})?.textContent ?? null)`);
const memoryReplies = () => browser.evalAsync(`done([...document.querySelectorAll("#chat-log li.memory")].length)`);

async function say(message) {
  const before = await memoryReplies();
  await browser.evalAsync(`document.getElementById("chat-input").value = ${JSON.stringify(message)};
    document.getElementById("chat-form").requestSubmit(); done(true);`);
  await until(`document.querySelectorAll("#chat-log li.memory").length > ${before} && !document.getElementById("chat-send").disabled`, `a reply to "${message}"`);
  return browser.evalAsync(`done([...document.querySelectorAll("#chat-log li.memory, #chat-log li.error")].at(-1).textContent)`);
}

async function recall(question) {
  await browser.evalAsync(`document.getElementById("recall-out").replaceChildren();
    document.getElementById("recall-input").value = ${JSON.stringify(question)};
    document.getElementById("recall-form").requestSubmit(); done(true);`);
  await until(`document.getElementById("memory-block") || document.querySelector("#recall-out .error")`, `recall of "${question}"`);
  return browser.evalAsync(`done({
    error: document.querySelector("#recall-out .error")?.textContent ?? null,
    route: document.querySelector("#recall-out strong")?.textContent,
    answers: [...document.querySelectorAll("#recall-answers > li")].map((li) => li.textContent),
    states: [...document.querySelectorAll("#recall-answers .state")].map((s) => s.textContent),
    explained: document.querySelectorAll("#recall-out table.explain").length,
    block: document.getElementById("memory-block").textContent,
    heading: [...document.querySelectorAll("#recall-out h3")].at(-1).textContent,
  })`);
}

const click = (id) => browser.evalAsync(`document.getElementById(${JSON.stringify(id)}).click(); done(true);`);

/** Console entries at warning level or above, except the network failures the offline phase causes on purpose. */
async function consoleProblems({ offline = false } = {}) {
  const entries = await browser.browserLog();
  return entries.filter((e) => (e.level === "SEVERE" || e.level === "WARNING") && !(offline && /ERR_CONNECTION_REFUSED/.test(e.message)));
}

test("the demo page: first load with progress, authoring, recall, lifecycle, files, forget; reload; offline reload", { skip, timeout: 120_000 }, async () => {
  const page = `${server.origin}/www/index.html?db=www-test`;
  const start = Date.now();

  // First visit: the model is downloaded with byte progress, then the page is usable.
  await browser.goto(page);
  await until("window.engramDemo?.ready && window.engramDemo.offlineReady", "the first load");
  let d = await demo();
  assert.deepEqual(d.errors, []);
  assert.equal(d.modelFromCache, false, "the first visit downloads the model");
  assert.ok(d.progress.filter((s) => s === "progress").length >= 2, `byte progress events: ${d.progress.join(",")}`);
  assert.deepEqual([...new Set(d.progress)], ["initiate", "progress", "done", "ready"]);
  assert.equal(await browser.evalAsync(`done(document.getElementById("loading").hidden)`), true, "the progress bar goes away once loaded");
  assert.match(await text("#status"), /^0 memories · 0 turns in 0 sessions · all-MiniLM-L6-v2-int8 · IndexedDB “www-test” · works offline$/);

  // Turns become a session; explicit statements become typed memories; questions are answered.
  assert.match(await say("My dentist is Dr. Ortega."), /Noted: dentist = Dr\. Ortega \(evolving_attribute\)/);
  assert.match(await say("My pharmacy is Greenleaf Chemists."), /Noted: pharmacy = Greenleaf Chemists/);
  assert.match(await say("Please forget my pharmacy."), /Forgot thread “pharmacy”: 1 memory deleted/);
  assert.match(await say("Who is my dentist?"), /dentist: Dr\. Ortega/);
  assert.match(await say("The weather was lovely today."), /Kept as a turn; nothing explicit/);

  // Stored text is shown as text: markup in a turn creates no element.
  await say('<img src=x onerror="window.__owned=1"> my <b>bold</b> note');
  assert.equal(await browser.evalAsync(`done(document.querySelectorAll("#chat-log img, #chat-log b").length + (window.__owned ?? 0))`), 0);
  assert.match(
    await browser.evalAsync(`done([...document.querySelectorAll("#chat-log li.user")].at(-1).textContent)`),
    /^<img src=x onerror="window.__owned=1"> my <b>bold<\/b> note/,
  );

  // The example history: every derived state, by recall.
  await click("sample");
  await until(`document.getElementById("lifecycle-out").textContent.startsWith("Loaded 3 dated sessions")`, "the example history");
  let r = await recall("what test runner do we use?");
  assert.equal(r.error, null);
  assert.equal(r.route, "trail");
  assert.match(r.answers[0], /^cascadedtest-runner = Vitest \(was Jest\)team-lead changed from Seokjin Kang to Jihoon Ryu on 2024-05-20$/);
  assert.ok(r.states.includes("uncertain"), `states: ${r.states}`);
  assert.ok(r.explained >= 1, "each hit shows its score breakdown");
  assert.match(r.block, /^<memory>\n[\s\S]*Vitest[\s\S]*<\/memory>\n$/);
  assert.match(r.heading, /^The <memory> block for a prompt · \d+ tokens \(of 1000\)$/);
  r = await recall("what do we use for package management?");
  assert.match(r.answers[0], /^currentpackage-management = pnpmsince 2024-03-02$/);

  // A thread's dated trail.
  await browser.evalAsync(`document.getElementById("thread-select").value = "package-management"; document.getElementById("thread-form").requestSubmit(); done(true);`);
  await until(`document.querySelectorAll("#thread-out .trail li").length === 2`, "the package-management trail");
  const trail = await browser.evalAsync(`done([...document.querySelectorAll("#thread-out .trail li")].map((li) => li.textContent))`);
  assert.deepEqual(trail, ["supersededpackage-management was npmstated 2024-01-10; replaced by pnpm on 2024-03-02", "currentpackage-management = pnpmsince 2024-03-02"]);

  // Memories by layer; consolidation's report; export, then import of that file (merged by id).
  const layerCounts = () => browser.evalAsync(`done(["buffer", "working", "core"].map((l) => document.querySelectorAll("#layer-" + l + " li").length))`);
  const counts = await layerCounts();
  assert.ok(counts[0] >= 10, `buffer memories: ${counts}`);
  await click("consolidate");
  await until(`document.getElementById("lifecycle-out").textContent.startsWith("Epoch done (default: epoch 1)")`, "consolidation");
  // The file the export button downloads is caught on its way to the download link.
  await browser.evalAsync(`const original = URL.createObjectURL;
    URL.createObjectURL = (blob) => { window.__exported = blob; return original.call(URL, blob); }; done(true);`);
  await click("export");
  await until(`/^Exported the whole store: [\\d,]+ bytes/.test(document.getElementById("lifecycle-out").textContent)`, "export");
  const exportedBytes = await browser.evalAsync(`done(window.__exported.size)`);
  assert.equal(await text("#lifecycle-out"), `Exported the whole store: ${exportedBytes.toLocaleString("en")} bytes (memories, turns, history, vectors).`);
  await browser.evalAsync(`const input = document.getElementById("import-file");
    const transfer = new DataTransfer();
    transfer.items.add(new File([window.__exported], "backup.engram"));
    input.files = transfer.files;
    input.dispatchEvent(new Event("change"));
    done(true);`);
  await until(`document.getElementById("lifecycle-out").textContent.startsWith("Imported backup.engram")`, "import");
  assert.match(await text("#lifecycle-out"), /^Imported backup\.engram: 0 memories added, \d+ replaced, \d+ turns, \d+ history events\.$/);
  assert.deepEqual(await layerCounts(), counts, "importing the store's own export changes no layer");

  // Forget one memory: the page says what was removed.
  const forgotten = await browser.evalAsync(
    `const li = [...document.querySelectorAll("#layer-buffer li")].find((li) => li.firstChild.textContent.includes("favourite editor")); const content = li.firstChild.textContent; li.querySelector("button").click(); done(content);`,
  );
  await until(`document.getElementById("forget-out").textContent.startsWith("Deleted memory")`, "forget");
  assert.ok((await text("#forget-out")).includes(forgotten));
  // The optional LLM: the page's settings reach an OpenAI-compatible server through the worker's
  // relay; its unusable reply leaves the turn to the offline rules, which the reply says.
  await browser.evalAsync(`document.getElementById("llm-url").value = "http://127.0.0.1:${llmServer.address().port}/v1";
    document.getElementById("llm-model").value = "scripted"; document.getElementById("llm-key").value = "test-key";
    document.getElementById("settings-form").requestSubmit(); done(true);`);
  await until(`document.getElementById("llm-status").textContent.startsWith("Authoring through scripted")`, "the LLM settings");
  assert.match(await say("My gym is Iron Temple."), /Noted: gym = Iron Temple[\s\S]*author@3: 1 LLM call\(s\); offline rules for chat-/);
  assert.ok(llmRequests.length >= 1 && llmRequests.every((r) => r.auth === "Bearer test-key" && r.body.model === "scripted"));
  assert.ok(JSON.stringify(llmRequests[0].body.messages).includes("Iron Temple"));
  assert.equal(await browser.evalAsync(`done(localStorage.getItem("engram-www-llm"))`), null, "the key is not kept unless asked");
  await click("llm-clear");
  await until(`document.getElementById("llm-status").textContent.startsWith("Offline rules")`, "back to the offline rules");
  const afterForget = await text("#status");
  assert.deepEqual(await consoleProblems(), []);

  // Reload: everything comes back from IndexedDB, the model from the Cache API.
  await browser.goto(page);
  await until("window.engramDemo?.ready", "the reload");
  d = await demo();
  assert.equal(d.modelFromCache, true);
  assert.equal((await text("#status")).split(" · works")[0], afterForget.split(" · works")[0]);
  assert.ok(await browser.evalAsync(`done([...document.querySelectorAll("#chat-log li.user")].some((li) => li.textContent.startsWith("My dentist is Dr. Ortega.")))`));
  assert.ok(
    await browser.evalAsync(`done([...document.querySelectorAll("#chat-log li.memory")].some((li) => li.textContent === "Noted: dentist = Dr. Ortega (evolving_attribute)"))`),
    "the conversation shows what each turn was authored into",
  );

  // Offline: the static server is stopped; the service worker serves the page and the package, the
  // Cache API the model, IndexedDB the store.
  await server.close();
  await browser.goto(page);
  await until("window.engramDemo?.ready", "the offline reload");
  d = await demo();
  assert.deepEqual(d.errors, []);
  assert.equal(d.modelFromCache, true);
  r = await recall("what do we use for package management?");
  assert.match(r.answers[0], /^currentpackage-management = pnpm/);
  assert.match(await say("Our release day is now Thursday."), /Noted: release-day = Thursday/);
  assert.deepEqual(await consoleProblems({ offline: true }), []);

  // A screenshot of the working page that is not blank (showing every derived state).
  r = await recall("what test runner do we use?");
  assert.deepEqual(r.states.slice(0, 1), ["cascaded"]);
  await browser.evalAsync(`window.scrollTo(0, 0); done(true);`);
  const png = await browser.screenshot();
  const image = decodePng(png);
  assert.equal(image.width, 1280);
  const colours = distinctColours(image);
  assert.ok(colours > 200, `the screenshot has ${colours} distinct colours`);
  if (process.env.ENGRAM_WWW_SCREENSHOT) writeFileSync(process.env.ENGRAM_WWW_SCREENSHOT, png);
  console.log(`# www demo: ${Math.round((Date.now() - start) / 1000)} s in Chromium; screenshot ${image.width}×${image.height}, ${colours} colours`);
});
