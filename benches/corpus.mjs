// Benchmark corpus from a LongMemEval-style file (.json or .json.gz): every distinct line (≥ 20
// characters) of every haystack turn, in file order, as documents; the questions as queries. Real
// conversational text, so term statistics look like an agent's memory rather than random words.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

export function loadCorpus(path, n) {
  const raw = readFileSync(path);
  const data = JSON.parse((path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8"));
  const seen = new Set();
  const docs = [];
  outer: for (const q of data) {
    for (const session of q.haystack_sessions) {
      for (const turn of session) {
        for (let line of turn.content.split("\n")) {
          line = line.trim().slice(0, 8192);
          if (line.length < 20 || seen.has(line)) continue;
          seen.add(line);
          docs.push(line);
          if (docs.length === n) break outer;
        }
      }
    }
  }
  if (docs.length < n) throw new Error(`corpus has only ${docs.length} distinct lines; asked for ${n}`);
  const queries = data.map((q) => q.question);
  return { docs, queries };
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
