// Trimmed copies of two tract crates for the wasm build, where every kilobyte of code is a download.
//
//   node scripts/tract-trim.mjs            prints the cargo `--config` arguments that use the copies
//
// Two registrations decide most of what the linker keeps (scripts/wasm-size/probe.py shows the call
// paths): tract_onnx::onnx() registers a builder for every ONNX op (convolutions, FFT, recurrent
// layers, ONNX-ML, …), and tract-nnef registers a model transform ("patch") at start-up through
// `inventory`, whose builder reaches the whole NNEF operator registry. Neither can be switched off from
// outside, so the build copies the two crates from cargo's registry into target/tract-trimmed/ and
// edits them: the ONNX register keeps only the operators of BERT-family sentence encoders
// (ENCODER_OPS below), and the NNEF transform registration is removed (Engram never loads NNEF).
// Native builds use the crates as published. The copies are used through `--config patch.crates-io…`
// on the wasm build only; that rewrites Cargo.lock's entries for them, so the caller restores the file.
//
// The edits are checked against the exact published sources (sha256 below): a tract upgrade fails here
// with a message instead of silently building something else.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outRoot = join(root, "target", "tract-trimmed");

// ONNX operators the wasm build can load: what all-MiniLM-L6-v2 (as exported by optimum/onnxruntime,
// fp32 or with int8 weights) uses, plus the few more that other exports of BERT-family encoders
// (bge, e5, gte) use for the same layers. Anything else fails at load with tract's "unimplemented
// operator" error in wasm; native builds keep every operator.
export const ENCODER_OPS = [
  // graph plumbing
  "Constant",
  "Identity",
  "Cast",
  "Shape",
  "Reshape",
  "Transpose",
  "Squeeze",
  "Unsqueeze",
  "Concat",
  "Slice",
  "Split",
  "Gather",
  "GatherND",
  "Expand",
  "Range",
  "ConstantOfShape",
  "Flatten",
  "Where",
  // arithmetic and activations
  "Add",
  "Sub",
  "Mul",
  "Div",
  "Pow",
  "Sqrt",
  "Neg",
  "Reciprocal",
  "Erf",
  "Tanh",
  "Exp",
  "Max",
  "Min",
  "IsNaN",
  "MatMul",
  "Gemm",
  "Relu",
  "Sigmoid",
  "Gelu",
  // comparisons for masks
  "Equal",
  "Not",
  "And",
  "Or",
  "Greater",
  "GreaterOrEqual",
  "Less",
  "LessOrEqual",
  // normalisation and attention
  "LayerNormalization",
  "Softmax",
  "ReduceMean",
  "ReduceSum",
  // int8 exports: dequantized weights, dynamically quantized activations
  "DequantizeLinear",
  "QuantizeLinear",
  "DynamicQuantizeLinear",
  "MatMulInteger",
];

const PINNED = {
  "tract-onnx": {
    version: "0.23.9",
    files: {
      "src/lib.rs": "f043a2f9e22da51779c414f7805962d9e163a1ae95b8bea5f561d12d1bcc3984",
      "src/ops/mod.rs": "23486158afd32262b5af6c5a03ac858098fca4c758d46c97ec4afde954fe72e9",
      "src/ops/math.rs": "d30c5332bc6ed979d740b311cfffb4a0f97a96d26697a5bd41e3e6f4f3f46a5d",
      "src/ops/logic.rs": "792622a7a65235ea3fbaaa341c12f2917a3d61105de617821faff63b022abf06",
      "src/ops/cast.rs": "442a569721c1f46d13b271758f8ba9056d336fadc67fc107cbfb4651c25fb6e9",
      "src/ops/array/mod.rs": "fa6fb4d8849305bde9395c74c42532335df4978016b080f1bf2eb94f0e3f91ee",
      "src/ops/nn/mod.rs": "4a3df7a28bb7a3000f8e0615182520cd8b6542bd5f730f7cb5821712b698cc5a",
      "src/ops/quant.rs": "32373eec938ecb3e92bf2747a0a2e86ee4dbbca0568c7a00bac9b2b34f589726",
    },
  },
  "tract-nnef": {
    version: "0.23.9",
    files: {
      "src/lib.rs": "477a9419ab527204d67b052c7bdcec650c4f018ce8d912d3d1ca09569c45fb50",
      "src/transform.rs": "478c7bd5dc9c0a7f1e4a42f7c5ee9f5276539bfe22f4bc1ba4cfb5399439b6be",
    },
  },
};

// Files whose `reg.insert("Op", …);` statements are filtered, and the operator families (modules of
// tract-onnx's ops/) whose register functions stay called at all.
const REGISTER_FILES = ["src/ops/mod.rs", "src/ops/math.rs", "src/ops/logic.rs", "src/ops/cast.rs", "src/ops/quant.rs", "src/ops/array/mod.rs", "src/ops/nn/mod.rs"];
const KEPT_FAMILIES = new Set(["array", "cast", "logic", "math", "nn", "quant"]);

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// Where cargo keeps the published sources of a locked package (fetching them if needed).
function registrySources() {
  const meta = JSON.parse(
    execFileSync("cargo", ["metadata", "--format-version", "1", "--locked", "--features", "embedder", "--filter-platform", "wasm32-unknown-unknown"], {
      cwd: root,
      maxBuffer: 1 << 28,
      encoding: "utf8",
    }),
  );
  const found = {};
  for (const name of Object.keys(PINNED)) {
    const pkgs = meta.packages.filter((p) => p.name === name);
    if (pkgs.length !== 1) throw new Error(`tract-trim: expected one ${name} in the dependency graph, found ${pkgs.length}`);
    const [pkg] = pkgs;
    if (pkg.version !== PINNED[name].version || !pkg.source?.startsWith("registry+")) {
      throw new Error(`tract-trim: ${name} is ${pkg.version} from ${pkg.source}; scripts/tract-trim.mjs edits ${PINNED[name].version} from crates.io: review its edits and pins`);
    }
    found[name] = dirname(pkg.manifest_path);
  }
  return found;
}

// Removes each `reg.insert("Name", …);` statement (and `#[cfg]` lines right above it) whose operator is
// not kept, and each `family::register_all_ops(reg);` call of a family not kept. Returns the kept names.
function filterRegistrations(text, file) {
  const kept = [];
  let out = "";
  let at = 0;
  for (;;) {
    const start = text.indexOf("reg.insert(", at);
    if (start < 0) break;
    let depth = 0;
    let end = start + "reg.insert".length;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    if (end >= text.length) throw new Error(`tract-trim: unbalanced register statement in ${file}`);
    end += text[end + 1] === ";" ? 2 : 1; // the last one may be the function's tail expression
    const name = /^reg\.insert\(\s*"([^"]+)"/.exec(text.slice(start))?.[1];
    if (!name) throw new Error(`tract-trim: register statement without a literal name in ${file}`);
    let before = text.slice(at, start);
    if (ENCODER_OPS.includes(name)) {
      kept.push(name);
      out += before + text.slice(start, end);
    } else {
      // Drop the statement's own line (indentation and attributes included).
      before = before.replace(/(\n[ \t]*#\[cfg\([^\n]*\)\])*\n[ \t]*$/, "");
      out += before;
    }
    at = end;
  }
  out += text.slice(at);
  out = out.replace(/^([ \t]*)(\w+)::register_all_ops\(reg\);$/gm, (line, indent, family) => (KEPT_FAMILIES.has(family) ? line : `${indent}// (trimmed: ${family})`));
  return { text: out, kept };
}

function removeNnefPatchTransform(text) {
  const marker = 'inventory::submit! {\n    ModelTransformFactory {\n        name: "patch",';
  const start = text.indexOf(marker);
  if (start < 0 || text.indexOf(marker, start + 1) >= 0) throw new Error("tract-trim: tract-nnef's patch transform registration not found once");
  const end = text.indexOf("\n}\n", start);
  return text.slice(0, start) + '// (trimmed: the "patch" transform registration)' + text.slice(end + 2);
}

const allowWarnings = (lib) => "#![allow(warnings)] // trimmed copy for Engram's wasm build; see scripts/tract-trim.mjs\n" + lib;

export function trimTract() {
  const sources = registrySources();
  const stamp = sha256(readFileSync(fileURLToPath(import.meta.url)));
  const args = [];
  for (const [name, dir] of Object.entries(sources)) {
    const dest = join(outRoot, name);
    args.push("--config", `patch.crates-io.${name}.path=${JSON.stringify(dest)}`);
    const stampFile = join(dest, ".engram-trim");
    // Re-copying would touch every file and make cargo rebuild the crate.
    if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) continue;
    for (const [file, want] of Object.entries(PINNED[name].files)) {
      const got = sha256(readFileSync(join(dir, file)));
      if (got !== want) throw new Error(`tract-trim: ${name}/${file} differs from the published ${PINNED[name].version} this script edits (sha256 ${got})`);
    }
    rmSync(dest, { recursive: true, force: true });
    cpSync(dir, dest, { recursive: true });
    const edit = (file, fn) => writeFileSync(join(dest, file), fn(readFileSync(join(dest, file), "utf8")));
    edit("src/lib.rs", allowWarnings);
    if (name === "tract-onnx") {
      const kept = [];
      for (const file of REGISTER_FILES)
        edit(file, (text) => {
          const r = filterRegistrations(text, file);
          kept.push(...r.kept);
          return r.text;
        });
      const missing = ENCODER_OPS.filter((op) => kept.filter((k) => k === op).length !== 1);
      if (missing.length) throw new Error(`tract-trim: operators not registered exactly once: ${missing.join(", ")}`);
    } else {
      edit("src/transform.rs", removeNnefPatchTransform);
    }
    writeFileSync(stampFile, stamp);
  }
  return args;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(trimTract().join(" "));
