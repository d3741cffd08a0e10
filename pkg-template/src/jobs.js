// The LLM jobs on the JS side, one path for extract, author and consolidate: the core plans
// (`jobPlan`), the host's llm runs the requests outside the store's queue (other calls proceed
// meanwhile; at apply the core checks again what the plan covered), the core applies the results
// as one write (`jobApply`), and a host embedder then embeds what the job wrote (host-vectors.js).
// A new job is a plan and an apply in the core and, here, nothing but its name.

import { Progress, WATCH_OPTIONS } from "./progress.js";
import { runCalls } from "./llm.js";
import { is, readOptions } from "./options.js";
import { packVectors, requireString, toJson } from "./wire.js";
import { consolidateOptions } from "./consolidate.js";

/** The options of the jobs run on one session (`extract`, `author`). */
export const SESSION_JOB_OPTIONS = Object.freeze({ ...WATCH_OPTIONS, maxLlmCalls: is.count });

/** A session job's checked arguments: `{progress, options}` (the core's plan options). */
function sessionJob(sessionId, options, what, name) {
  requireString(sessionId, `${what}: sessionId`);
  const { signal, onProgress, maxLlmCalls } = readOptions(options, what, SESSION_JOB_OPTIONS);
  const progress = new Progress(name, { signal, onProgress });
  progress.check();
  return { progress, options: maxLlmCalls === undefined ? {} : { maxLlmCalls } };
}

/** `extract(sessionId, options)`: the extract job, or without an llm the report of what is pending. */
export async function extract(store, sessionId, options) {
  const { progress, options: planOptions } = sessionJob(sessionId, options, "extract", "the extraction");
  if (!store.llm.llm) {
    progress.report("plan", 0, 1);
    const report = await store.read(async (core) => JSON.parse(core.extractWithoutLlm(sessionId)));
    progress.finish("done");
    return report;
  }
  return runJob(store, "extract", { target: sessionId, options: planOptions, progress });
}

/** `consolidate(options)`: one epoch (or its dry run), the judge steps through the llm where there is one. */
export async function consolidate(store, options) {
  const { namespace, onProgress, signal, maxLlmCalls, dryRun, bufferCap } = consolidateOptions(options);
  const progress = new Progress("the consolidation", { signal, onProgress });
  progress.check();
  const planOptions = { llmLevel: store.llm.level, hasLlm: store.llm.llm !== null, namespace, maxLlmCalls, bufferCap };
  if (dryRun) {
    progress.report("plan", 0, 1);
    const report = await store.read(async (core) => JSON.parse(core.consolidateDryRun(toJson(planOptions, "consolidate"))));
    progress.finish("done");
    return report;
  }
  return runJob(store, "consolidate", { options: planOptions, progress, ownEpoch: true });
}

/**
 * Runs one job to its report. `store` is the Engram's side of it: `read(work)` and
 * `write(prepare, commit, {ownEpoch})` on its queue, `glue()` for the reply checks, `llm` (open's
 * settings), `vectors` (host-vectors.js) and `failed(error, what)` (out-of-band.js). `target`: the session of extract
 * and author; `options`: the core's plan options. `progress` (progress.js) counts the LLM calls
 * and the apply: `plan`, `llm` after each call, `apply`, `done`; an abort before the apply applies nothing.
 */
/**
 * @param {any} store
 * @param {"extract" | "author" | "consolidate"} job
 * @param {{target?: string, options?: object, progress: Progress, ownEpoch?: boolean}} run
 */
export async function runJob(store, job, { target, options = {}, progress, ownEpoch = false }) {
  const planJson = await store.read(async (core) => core.jobPlan(job, target, toJson(options, job)));
  const requests = JSON.parse(planJson).calls.map((c) => c.request);
  const total = requests.length + 1;
  progress.report("plan", 0, total);
  progress.check();
  let results = [];
  if (requests.length > 0) {
    const glue = store.glue();
    const check = (request, text) => JSON.parse(glue.llmCheck(JSON.stringify(request), text));
    let answered = 0;
    const called = () => progress.report("llm", ++answered, total);
    results = await runCalls(store.llm.llm, requests, { check, concurrency: store.llm.concurrency, timeoutMs: store.llm.timeoutMs, signal: progress.signal, called });
  }
  progress.report("apply", requests.length, total);
  const report = await store.write(
    async () => JSON.stringify(results),
    async (core, json) => {
      progress.check(); // the last moment an abort leaves the store as it was
      return JSON.parse(await core.jobApply(job, planJson, json));
    },
    { ownEpoch },
  );
  await afterJob(store);
  progress.report("done", total, total);
  return report;
}

/**
 * Authoring: the offline rules, or (`llmLevel: "on"`) the `author@3` job through the host LLM with
 * the rules authoring the turns whose call failed or was invalid (`offlineTurns`).
 */
export async function author(store, sessionId, given) {
  const { progress, options: planOptions } = sessionJob(sessionId, given, "author", "authoring");
  const offline = async (turnIds) => {
    progress.stage();
    progress.report("author", 0, 1);
    const report = await store.write(
      async () => (turnIds === undefined ? undefined : JSON.stringify(turnIds)),
      async (core, json) => {
        progress.check();
        return JSON.parse(await core.authorOffline(sessionId, json));
      },
    );
    await afterJob(store);
    progress.finish("done");
    return report;
  };
  if (!store.llm.llm || store.llm.level !== "on") return offline(undefined);
  const report = await runJob(store, "author", { target: sessionId, options: planOptions, progress });
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

/**
 * `ingest(session, {extract, author, ...})`: the session kept by `ingest`, then those jobs over its
 * new turns, each a stage of `progress` (each its own write: an abort stops at the next stage).
 */
export async function ingestThenRun(ingest, jobs, { extract: doExtract, author: doAuthor, signal, maxLlmCalls }, progress) {
  const ingested = await ingest(progress.stage());
  const out = { ...ingested };
  if (doExtract) out.extracted = await jobs.extract(ingested.sessionId, { signal, maxLlmCalls, onProgress: progress.stage() });
  if (doAuthor) out.authored = await jobs.author(ingested.sessionId, { signal, maxLlmCalls, onProgress: progress.stage() });
  return out;
}
