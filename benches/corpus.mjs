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

/** A seeded pseudo-random unit vector (xorshift32): the same vector for the same seed, in every run. */
export function seededUnit(seed, dims = 384) {
  let s = seed >>> 0 || 1;
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    v[i] = (s >>> 0) / 2 ** 31 - 1;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return v;
}
