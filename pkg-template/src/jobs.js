// The LLM jobs on the JS side, one path for extract, author and consolidate: the core plans
// (`jobPlan`), the host's llm runs the requests outside the store's queue (other calls proceed
// meanwhile; at apply the core checks again what the plan covered), the core applies the results
// as one write (`jobApply`), and a host embedder then embeds what the job wrote (host-vectors.js).
// A new job is a plan and an apply in the core and, here, nothing but its name.

import { runCalls } from "./llm.js";
import { toJson } from "./wire.js";

/**
 * Runs one job to its report. `store` is the Engram's side of it: `read(work)` and
 * `write(prepare, commit, {ownEpoch})` on its queue, `glue()` for the reply checks, `llm` (open's
 * settings) and `afterJob()` (vectors for what the job wrote). `target`: the session of extract
 * and author; `options`: the core's plan options; `onProgress` gets planned / applying / done.
 */
export async function runJob(store, job, { target, options = {}, signal, onProgress, ownEpoch = false }) {
  const planJson = await store.read(async (core) => core.jobPlan(job, target, toJson(options, job)));
  const requests = JSON.parse(planJson).calls.map((c) => c.request);
  onProgress?.({ status: "planned", calls: requests.length });
  let results = [];
  if (requests.length > 0) {
    const glue = store.glue();
    const check = (request, text) => JSON.parse(glue.llmCheck(JSON.stringify(request), text));
    results = await runCalls(store.llm.llm, requests, { check, concurrency: store.llm.concurrency, timeoutMs: store.llm.timeoutMs, signal });
  }
  onProgress?.({ status: "applying" });
  const report = await store.write(
    async () => JSON.stringify(results),
    async (core, json) => JSON.parse(await core.jobApply(job, planJson, json)),
    { ownEpoch },
  );
  await store.afterJob();
  onProgress?.({ status: "done" });
  return report;
}

/**
 * Authoring: the offline rules, or (`llmLevel: "on"`) the `author@1` job through the host LLM with
 * the rules authoring the turns whose call failed or was invalid (`offlineTurns`).
 */
export async function author(store, sessionId, { signal, maxLlmCalls }) {
  const offline = async (turnIds) => {
    const report = await store.write(
      async () => (turnIds === undefined ? undefined : JSON.stringify(turnIds)),
      async (core, json) => JSON.parse(await core.authorOffline(sessionId, json)),
    );
    await store.afterJob();
    return report;
  };
  if (!store.llm.llm || store.llm.level !== "on") return offline(undefined);
  const report = await runJob(store, "author", { target: sessionId, options: maxLlmCalls === undefined ? {} : { maxLlmCalls }, signal });
  const failed = report.skipped.flatMap((s) => s.turns);
  if (failed.length === 0) return report;
  const rules = await offline(failed);
  report.pendingTurns = report.pendingTurns.filter((t) => !rules.authoredTurns.includes(t));
  for (const key of ["added", "reinforced", "retracted", "skipped"]) report[key].push(...rules[key]);
  report.offlineTurns.push(...rules.authoredTurns);
  report.authoredTurns.push(...rules.authoredTurns);
  return report;
}
