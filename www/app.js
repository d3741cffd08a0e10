// The demo page: Engram and its local embedder in a module worker, a chat whose turns become a
// session, and panels over what the store derives from it. No framework; every stored string is
// rendered with textContent (render.js).
import { openInWorker, openAICompatible } from "engram-wasm";
import { config } from "./config.js";
import { EXAMPLE_SESSIONS } from "./sample.js";
import { loadSettings, readForm, storeSettings } from "./settings.js";
import { answerItem, consolidationReport, day, el, hitItem, memoryItem, removedReport } from "./render.js";

const $ = (id) => document.getElementById(id);
/** What the page did, for people reading the console and for the browser test. */
const demo = (window.engramDemo = { ready: false, offlineReady: false, progress: [], modelFromCache: null, usableMs: null, errors: [] });

let db = null;
let llmSettings = loadSettings();
/** This visit's conversation: one session, dated now; earlier visits' sessions stay in the store. */
let session = newSession();

function newSession() {
  const now = new Date();
  return { id: `chat-${now.toISOString().replace(/[:.]/g, "-")}`, date: now.toISOString(), turns: [] };
}

const controls = [
  "chat-input",
  "chat-send",
  "sample",
  "new-session",
  "recall-input",
  "recall-go",
  "thread-select",
  "thread-go",
  "thread-forget",
  "consolidate",
  "export",
  "import-file",
  "llm-save",
  "llm-clear",
];
const setEnabled = (on) => controls.forEach((id) => ($(id).disabled = !on));

/**
 * Runs a UI action; a failure is shown where the action's output goes (`out`: an element, or a
 * function given the message), never thrown away.
 */
async function act(out, fn) {
  setEnabled(false);
  try {
    await fn();
  } catch (e) {
    const message = `${e?.code ?? e?.name ?? "Error"}: ${e?.message ?? e}`;
    demo.errors.push(message);
    if (typeof out === "function") out(message);
    else out.replaceChildren(el("p", { class: "error", text: message }));
  } finally {
    setEnabled(true);
  }
}

// --- opening the store in a worker, with the model download's progress ---------------------------

function progressReporter() {
  const files = new Map();
  return (event) => {
    demo.progress.push(event.status);
    if (event.status === "done") {
      files.set(event.file, { loaded: event.loaded, total: event.total });
      if (event.file === "model.onnx") demo.modelFromCache = event.cached === true;
    } else if (event.status === "progress") {
      files.set(event.file, { loaded: event.loaded, total: event.total });
    }
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded ?? 0;
      total += f.total ?? 0;
    }
    const bar = $("progress");
    if (total > 0) bar.value = Math.min(100, (100 * loaded) / total);
    const mb = (n) => (n / 1048576).toFixed(1);
    $("progress-label").textContent =
      event.status === "ready"
        ? "Model ready"
        : demo.modelFromCache
          ? "Model loaded from this browser's cache"
          : total > 0
            ? `Downloading the embedding model: ${mb(loaded)} of ${mb(total)} MB`
            : "Fetching the embedding model…";
  };
}

async function openStore() {
  $("loading").hidden = false;
  $("progress").removeAttribute("value"); // indeterminate until bytes arrive
  const options = { indexedDB: config.db, workerUrl: config.worker, vectorIndex: { workerUrl: config.vectorWorker } };
  if (!config.keywordOnly) Object.assign(options, { model: config.model, tokenizer: config.tokenizer, onProgress: progressReporter() });
  if (llmSettings) {
    // The function stays in this page; the worker sends each request here (openInWorker relays it).
    options.llm = openAICompatible({ fetch: (...args) => fetch(...args), baseURL: llmSettings.baseURL, model: llmSettings.model, apiKey: llmSettings.apiKey });
    options.llmLevel = "on";
  }
  db = await openInWorker(options);
  $("loading").hidden = true;
  $("llm-status").textContent = llmSettings
    ? `Authoring through ${llmSettings.model} at ${llmSettings.baseURL} (offline rules for any call that fails).`
    : "Offline rules author memories (no LLM configured).";
}

// --- panels ----------------------------------------------------------------------------------------

async function refresh() {
  const [stats, memories] = await Promise.all([db.stats(), db.getAll({ limit: 1000 })]);
  for (const layer of ["buffer", "working", "core"]) {
    $(`layer-${layer}`).replaceChildren(...memories.filter((m) => m.layer === layer).map((m) => memoryItem(m, forget)));
  }
  const threads = [...new Set(memories.map((m) => m.thread).filter(Boolean))].sort();
  const chosen = $("thread-select").value;
  $("thread-select").replaceChildren(...threads.map((t) => el("option", { value: t, text: t, selected: t === chosen })));
  const model = stats.embedder ? stats.embedder.split("@")[0] : "keyword-only";
  $("status").textContent =
    `${stats.memories} memories · ${stats.rawEntries} turns in ${stats.sessions} sessions · ${model} · ` + `IndexedDB “${config.db}”${demo.offlineReady ? " · works offline" : ""}`;
}

/** The latest sessions' turns, each followed by the memories authored from it. */
async function showConversation() {
  const [ids, memories] = await Promise.all([db.sessions(), db.getAll({ limit: 1000 })]);
  const sessions = await Promise.all(ids.map((id) => db.session(id)));
  sessions.sort((a, b) => String(a[0]?.date).localeCompare(String(b[0]?.date)));
  const fromTurn = new Map();
  for (const m of memories) for (const turn of m.derivedFrom ?? []) fromTurn.set(turn, [...(fromTurn.get(turn) ?? []), m]);
  const log = $("chat-log");
  log.replaceChildren();
  for (const turns of sessions.slice(-6)) {
    for (const turn of turns) {
      log.append(el("li", { class: turn.role === "user" ? "user" : "memory" }, turn.content, el("span", { class: "when", text: `${day(turn.date)} · ${turn.id}` })));
      const authored = fromTurn.get(turn.id);
      if (authored) log.append(el("li", { class: "memory", text: authored.map(describeMemory).join("\n") }));
    }
  }
  log.scrollTop = log.scrollHeight;
}

const describeMemory = (m) =>
  m.thread ? `${m.shape === "retraction" ? "Retraction" : "Noted"}: ${m.thread}${m.value ? ` = ${m.value}` : ""} (${m.shape})` : `Noted: ${m.content}`;

function say(cls, ...content) {
  const item = el("li", { class: cls }, ...content);
  $("chat-log").append(item);
  $("chat-log").scrollTop = $("chat-log").scrollHeight;
  return item;
}

/** What authoring a turn did, in words. */
async function describeAuthoring(report) {
  const lines = [];
  for (const id of report.added) {
    const m = await db.get(id);
    if (!m) continue;
    lines.push(describeMemory(m));
  }
  if (report.reinforced.length) lines.push(`Reinforced ${report.reinforced.length} memor${report.reinforced.length === 1 ? "y" : "ies"} already known.`);
  for (const r of report.retracted) lines.push(removedReport(r));
  if (report.calls.length)
    lines.push(`${report.author}: ${report.calls.length} LLM call(s)${report.offlineTurns.length ? `; offline rules for ${report.offlineTurns.join(", ")}` : ""}.`);
  return lines;
}

async function send(text) {
  say("user", text, el("span", { class: "when", text: `${day(session.date)} · ${session.id}#${session.turns.length}` }));
  session.turns.push({ role: "user", content: text });
  const { authored } = await db.ingest({ id: session.id, date: session.date, turns: session.turns }, { author: true });
  const lines = await describeAuthoring(authored);
  if (text.trim().endsWith("?")) {
    const { answers } = await db.recall(text);
    lines.push(...answers.slice(0, 3).map((a) => answerText(a)));
    if (answers.length === 0) lines.push("Nothing in memory answers that yet.");
  }
  if (lines.length === 0) lines.push("Kept as a turn; nothing explicit to turn into a memory.");
  say("memory", lines.join("\n"));
  await refresh();
}

const answerText = (a) =>
  a.state === "current"
    ? `${a.thread ?? "answer"}: ${a.value ?? a.content}`
    : a.state === "superseded"
      ? `${a.thread}: was ${a.value}${a.replacedBy ? `, now ${a.replacedBy.value}` : ""}`
      : a.state === "deleted"
        ? `${a.thread}: forgotten on request`
        : a.state === "cascaded"
          ? `${a.thread}: ${a.value} (was ${a.previous}; ${a.because?.thread} changed)`
          : `${a.thread}: uncertain (was ${a.previous}; ${a.because?.thread} changed)`;

async function recall(query) {
  const [result, hits] = await Promise.all([db.recall(query), db.search(query, { explain: true, limit: 5, dryRun: true, scope: "all" })]);
  $("recall-out").replaceChildren(
    el("p", {}, "Route: ", el("strong", { text: result.route }), ` · ${result.answers.length} answer${result.answers.length === 1 ? "" : "s"}`),
    el("ol", { class: "answers", id: "recall-answers" }, result.answers.map(answerItem)),
    el("h3", { text: "Search hits and their scores" }),
    el("ol", { class: "hits" }, hits.map(hitItem)),
    el("h3", { text: `The <memory> block for a prompt · ${result.context.tokens} tokens (of ${result.context.maxTokens})` }),
    el("pre", { class: "block", id: "memory-block", text: result.context.text || "(empty: nothing relevant)" }),
  );
}

async function forget(memory) {
  await act($("forget-out"), async () => {
    await db.delete(memory.id);
    $("forget-out").replaceChildren(
      el("p", { text: `Deleted memory ${memory.id.slice(0, 8)} (“${memory.content}”). Its history keeps the events, without the text; the turns it came from stay.` }),
    );
    await refresh();
  });
}

async function showThread(label) {
  const { state, values } = await db.thread(label);
  $("thread-out").replaceChildren(el("p", {}, "Now: ", state ? answerItem(state) : "nothing on this thread"), el("ol", { class: "trail" }, values.map(answerItem)));
}

function download(bytes) {
  const url = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
  const link = el("a", { href: url, download: `engram-${new Date().toISOString().slice(0, 10)}.engram` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// --- wiring --------------------------------------------------------------------------------------

function wire() {
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-input").value;
    $("chat-input").value = "";
    act(
      (message) => say("error", message),
      () => send(text),
    ).then(() => $("chat-input").focus());
  });
  $("sample").addEventListener("click", () =>
    act($("lifecycle-out"), async () => {
      for (const s of EXAMPLE_SESSIONS) {
        await db.ingest({ id: s.id, date: s.date, turns: s.turns.map((content) => ({ role: "user", content })) }, { author: true });
      }
      await showConversation();
      await refresh();
      $("lifecycle-out").replaceChildren(
        el("p", { text: `Loaded ${EXAMPLE_SESSIONS.length} dated sessions. Ask: “what test runner do we use?”, “what is my pharmacy?”, “what is our release day?”` }),
      );
    }),
  );
  $("new-session").addEventListener("click", () => {
    session = newSession();
    say("memory", `New session ${session.id}.`);
  });
  $("recall-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act($("recall-out"), () => recall($("recall-input").value));
  });
  $("thread-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if ($("thread-select").value) act($("thread-out"), () => showThread($("thread-select").value));
  });
  $("thread-forget").addEventListener("click", () => {
    const label = $("thread-select").value;
    if (!label) return;
    act($("thread-out"), async () => {
      const removed = await db.retract(label);
      $("thread-out").replaceChildren(el("p", { text: removedReport(removed) }));
      await refresh();
    });
  });
  $("consolidate").addEventListener("click", () =>
    act($("lifecycle-out"), async () => {
      $("lifecycle-out").replaceChildren(...consolidationReport(await db.consolidate()));
      await refresh();
    }),
  );
  $("export").addEventListener("click", () =>
    act($("lifecycle-out"), async () => {
      const bytes = await db.export();
      download(bytes);
      $("lifecycle-out").replaceChildren(el("p", { text: `Exported the whole store: ${bytes.length.toLocaleString("en")} bytes (memories, turns, history, vectors).` }));
    }),
  );
  $("import-file").addEventListener("change", () =>
    act($("lifecycle-out"), async () => {
      const file = $("import-file").files[0];
      if (!file) return;
      const r = await db.import(new Uint8Array(await file.arrayBuffer()));
      $("import-file").value = "";
      $("lifecycle-out").replaceChildren(
        el("p", { text: `Imported ${file.name}: ${r.added} memories added, ${r.replaced} replaced, ${r.rawEntries} turns, ${r.historyEvents} history events.` }),
      );
      await showConversation();
      await refresh();
    }),
  );
  const form = { url: $("llm-url"), model: $("llm-model"), key: $("llm-key"), remember: $("llm-remember") };
  if (llmSettings) {
    form.url.value = llmSettings.baseURL;
    form.model.value = llmSettings.model;
    form.key.value = llmSettings.apiKey ?? "";
    form.remember.checked = true;
  }
  const reopen = async (settings) => {
    llmSettings = settings;
    storeSettings(settings);
    await db.close();
    await openStore();
    await refresh();
  };
  $("settings-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act($("llm-status"), () => reopen(readForm(form)));
  });
  $("llm-clear").addEventListener("click", () => act($("llm-status"), () => reopen(null)));
}

async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  // The package's location comes from the import map, so the worker caches what the page really loads.
  const pkg = new URL(".", import.meta.resolve("engram-wasm")).href;
  await navigator.serviceWorker.register(`${config.serviceWorker}?pkg=${encodeURIComponent(pkg)}`);
  await navigator.serviceWorker.ready;
  demo.offlineReady = true;
}

async function main() {
  wire();
  const offline = registerServiceWorker().catch((e) => demo.errors.push(`service worker: ${e.message}`));
  try {
    await openStore();
  } catch (e) {
    demo.errors.push(`${e?.code}: ${e?.message}`);
    $("progress-label").textContent = "Could not open the memory";
    $("status").replaceChildren(el("span", { class: "error", text: `${e?.code ?? e?.name}: ${e?.message} — open the page with ?embedder=none for keyword-only` }));
    return;
  }
  await showConversation();
  await refresh();
  setEnabled(true);
  demo.usableMs = performance.now();
  demo.ready = true;
  $("chat-input").focus();
  await offline;
  await refresh();
}

main();
