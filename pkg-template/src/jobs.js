// The LLM jobs on the JS side, one path for extract, author and consolidate: the core plans
// (`jobPlan`), the host's llm runs the requests outside the store's queue (other calls proceed
// meanwhile; at apply the core checks again what the plan covered), the core applies the results
// as one write (`jobApply`), and a host embedder then embeds what the job wrote (host-vectors.js).
// A new job is a plan and an apply in the core and, here, nothing but its name.

import { EngramError } from "./errors.js";
import { runCalls } from "./llm.js";
import { is, readOptions } from "./options.js";
import { packVectors, requireString, toJson } from "./wire.js";
import { consolidateOptions } from "./consolidate.js";

/** The options of the jobs run on one session (`extract`, `author`). */
export const SESSION_JOB_OPTIONS = Object.freeze({ signal: is.signal, maxLlmCalls: is.count });

/** A session job's checked arguments: `{signal, options}` (the core's plan options). */
function sessionJob(sessionId, options, what, aborted) {
  requireString(sessionId, `${what}: sessionId`);
  const { signal, maxLlmCalls } = readOptions(options, what, SESSION_JOB_OPTIONS);
  if (signal?.aborted) throw new EngramError("Aborted", aborted);
  return { signal: signal ?? undefined, options: maxLlmCalls === undefined ? {} : { maxLlmCalls } };
}

/** `extract(sessionId, options)`: the extract job, or without an llm the report of what is pending. */
export async function extract(store, sessionId, options) {
  const { signal, options: planOptions } = sessionJob(sessionId, options, "extract", "the extraction was aborted before it started");
  if (!store.llm.llm) return store.read(async (core) => JSON.parse(core.extractWithoutLlm(sessionId)));
  return runJob(store, "extract", { target: sessionId, options: planOptions, signal });
}

/** `consolidate(options)`: one epoch (or its dry run), the judge steps through the llm where there is one. */
export async function consolidate(store, options) {
  const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = consolidateOptions(options);
  if (signal?.aborted) throw new EngramError("Aborted", "the consolidation was aborted before it started");
  const planOptions = { llmLevel: store.llm.level, hasLlm: store.llm.llm !== null, namespace, maxLlmCalls, bufferCap };
  if (dryRun) return store.read(async (core) => JSON.parse(core.consolidateDryRun(toJson(planOptions, "consolidate"))));
  return runJob(store, "consolidate", { options: planOptions, signal, onProgress: onProgress ?? undefined, ownEpoch: true });
}

/**
 * Runs one job to its report. `store` is the Engram's side of it: `read(work)` and
 * `write(prepare, commit, {ownEpoch})` on its queue, `glue()` for the reply checks, `llm` (open's
 * settings), `vectors` (host-vectors.js) and `failed(error, what)` (out-of-band.js). `target`: the session of extract
 * and author; `options`: the core's plan options; `onProgress` gets planned / applying / done.
 */
/**
 * @param {any} store
 * @param {"extract" | "author" | "consolidate"} job
 * @param {{target?: string, options?: object, signal?: AbortSignal, onProgress?: (event: object) => void, ownEpoch?: boolean}} run
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
  await afterJob(store);
  onProgress?.({ status: "done" });
  return report;
}

/**
 * Authoring: the offline rules, or (`llmLevel: "on"`) the `author@2` job through the host LLM with
 * the rules authoring the turns whose call failed or was invalid (`offlineTurns`).
 */
export async function author(store, sessionId, given) {
  const { signal, options: planOptions } = sessionJob(sessionId, given, "author", "authoring was aborted before it started");
  const offline = async (turnIds) => {
    const report = await store.write(
      async () => (turnIds === undefined ? undefined : JSON.stringify(turnIds)),
      async (core, json) => JSON.parse(await core.authorOffline(sessionId, json)),
    );
    await afterJob(store);
    return report;
  };
  if (!store.llm.llm || store.llm.level !== "on") return offline(undefined);
  const report = await runJob(store, "author", { target: sessionId, options: planOptions, signal });
  const failed = report.skipped.flatMap((s) => s.turns);
  if (failed.length === 0) return report;
  const rules = await offline(failed);
  report.pendingTurns = report.pendingTurns.filter((t) => !rules.authoredTurns.includes(t));
  for (const key of ["added", "reinforced", "retracted", "skipped"]) report[key].push(...rules[key]);
  report.offlineTurns.push(...rules.authoredTurns);
  report.authoredTurns.push(...rules.authoredTurns);
  return report;
}

/** Vectors for what a job wrote, when the host embeds; a failure is reported, the job's report stands. */
async function afterJob(store) {
  try {
    await store.vectors.catchUp((itemsJson, made) => {
      const { vectors, dims } = packVectors(made);
      return store.write(
        async () => undefined,
        (core) => core.setVectors(itemsJson, vectors, dims),
        { ownEpoch: true },
      );
    });
  } catch (e) {
    store.failed(e, "embedding the memories a job wrote");
  }
}

/** `ingest(session, {extract, author, ...})`: the session kept by `ingest`, then those jobs over its new turns. */
export async function ingestThenRun(ingest, jobs, { extract: doExtract, author: doAuthor, ...rest }) {
  const ingested = await ingest();
  const out = { ...ingested };
  if (doExtract) out.extracted = await jobs.extract(ingested.sessionId, rest);
  if (doAuthor) out.authored = await jobs.author(ingested.sessionId, rest);
  return out;
}
