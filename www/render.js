// Builds the demo's DOM from Engram's results. Stored text is data: every string goes in through
// textContent (never innerHTML), so a memory holding markup shows as the characters it is.

/** An element with attributes/properties and children (strings become text nodes). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export const day = (iso) => (iso ? iso.slice(0, 10) : "undated");
const fixed = (x, digits = 2) => (typeof x === "number" ? x.toFixed(digits) : "–");

export function stateBadge(state) {
  return el("span", { class: `state ${state}`, text: state });
}

/** One derived slot answer in words: state, value, and why (replaced by / undermined by). */
export function answerItem(a) {
  const parts = [stateBadge(a.state)];
  if (a.thread) parts.push(el("strong", { text: a.thread }), " ");
  switch (a.state) {
    case "current":
      parts.push(`= ${a.value ?? ""}`, el("span", { class: "meta", text: `since ${day(a.since)}` }));
      break;
    case "superseded":
      parts.push(
        `was ${a.value ?? ""}`,
        el("span", { class: "meta", text: `stated ${day(a.since)}${a.replacedBy ? `; replaced by ${a.replacedBy.value} on ${day(a.replacedBy.at)}` : ""}` }),
      );
      break;
    case "deleted":
      parts.push("(value withheld)", el("span", { class: "meta", text: `forgotten at the user's request on ${day(a.since)}` }));
      break;
    case "cascaded":
      parts.push(`= ${a.value ?? ""} (was ${a.previous ?? "?"})`, because(a));
      break;
    case "uncertain":
      parts.push(`previously ${a.previous ?? "?"}; no current value known`, because(a));
      break;
  }
  if (!a.thread && a.content) parts.push(a.content);
  return el("li", {}, parts);
}

function because(a) {
  if (!a.because) return null;
  const b = a.because;
  return el("span", { class: "meta", text: `${b.thread} changed ${b.was ? `from ${b.was} ` : ""}to ${b.now ?? "?"} on ${day(b.changedAt)}` });
}

/** A search hit with its score breakdown (`explain: true`). */
export function hitItem(hit) {
  const text = hit.type === "memory" ? hit.memory.content : hit.raw.content;
  const what = hit.type === "memory" ? `memory · ${hit.memory.layer} · ${hit.memory.kind}` : `turn ${hit.raw.id} · ${hit.raw.role} · ${day(hit.raw.date)}`;
  const x = hit.explain ?? {};
  const cols = [
    ["score", x.score],
    ["relevance", x.relevance],
    ["keyword", x.keyword],
    ["vector", x.vector],
    ["importance", x.importance],
    ["reinforcement", x.reinforcement],
    ["recency", x.recency],
    ["weight", x.weight],
  ];
  const table = el(
    "table",
    { class: "explain" },
    el(
      "tr",
      {},
      cols.map(([name]) => el("th", { scope: "col", text: name })),
    ),
    el(
      "tr",
      {},
      cols.map(([, v]) => el("td", { text: fixed(v, 3) })),
    ),
  );
  return el("li", {}, text, el("span", { class: "meta", text: what }), table);
}

/** A memory card for the layer columns; `onForget(memory)` is its button's action. */
export function memoryItem(m, onForget) {
  const fields = [m.kind, `importance ${fixed(m.importance)}`, `reinforced ${m.repetitionCount}× · recalled ${m.accessCount}×`];
  if (m.shape) fields.push(m.shape);
  if (m.thread) fields.push(`thread ${m.thread}${m.value ? ` = ${m.value}` : ""}`);
  if (m.eventAt) fields.push(day(m.eventAt));
  if (m.flags) fields.push(`flags: ${m.flags.join(", ")}`);
  return el(
    "li",
    { "data-id": m.id },
    m.content,
    el("span", { class: "meta", text: fields.join(" · ") }),
    el("button", { type: "button", onclick: () => onForget(m), "aria-label": `Forget: ${m.content.slice(0, 60)}`, text: "Forget" }),
  );
}

/** What a consolidation epoch did. */
export function consolidationReport(report) {
  const epochs =
    Object.entries(report.epochs)
      .map(([ns, n]) => `${ns}: epoch ${n}`)
      .join(", ") || "no namespace yet";
  const actions = report.actions.filter((a) => a.action !== "decay");
  return [
    el("p", {
      text: `Epoch done (${epochs}). ${actions.length} action${actions.length === 1 ? "" : "s"}, ${report.skipped.length} skipped, ${report.calls.length} LLM call${report.calls.length === 1 ? "" : "s"}.`,
    }),
    el(
      "ol",
      { class: "actions" },
      report.actions.map((a) =>
        el("li", { text: `${a.action}${a.layer ? ` → ${a.layer}` : ""}: ${a.reason}${a.ids.length ? ` (${a.ids.map((id) => id.slice(0, 8)).join(", ")})` : ""}` }),
      ),
    ),
    report.skipped.length
      ? el(
          "ol",
          { class: "actions" },
          report.skipped.map((s) => el("li", { text: `skipped ${s.step}: ${s.reason}` })),
        )
      : null,
  ];
}

/** What a retraction or deletion removed. */
export function removedReport(r) {
  const lines = [];
  if (r.thread)
    lines.push(
      `Forgot thread “${r.thread}”: ${r.deleted.length} memor${r.deleted.length === 1 ? "y" : "ies"} deleted (${r.deleted.map((id) => id.slice(0, 8)).join(", ") || "none"})`,
    );
  if (r.redactedMemories?.length) lines.push(`${r.redactedMemories.length} other memor${r.redactedMemories.length === 1 ? "y" : "ies"} redacted`);
  if (r.redactedTurns?.length) lines.push(`turns redacted in place: ${r.redactedTurns.join(", ")}`);
  return lines.join("; ") + ".";
}
