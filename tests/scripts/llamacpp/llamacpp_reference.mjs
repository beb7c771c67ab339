// llama.cpp's own tokens and next-token probabilities on the GGUF fixtures, the reference no one
// here wrote, through node-llama-cpp (its prebuilt CPU addon; nothing is compiled):
//
//   mkdir /tmp/llamacpp && cd /tmp/llamacpp && npm init -y && npm i -E node-llama-cpp@3.21.1
//   node tests/scripts/llamacpp/llamacpp_reference.mjs /tmp/llamacpp
//
// writes tests/fixtures/gguf/llamacpp/<file>.json, per text llama.cpp's tokens (BOS added when
// the model asks for it), and <file>.f32: after each position of each text in turn, the
// probability of every vocabulary token (little-endian float32, [positions, vocab] per text).
// The context has flash attention off and an F32 KV cache: with its defaults llama.cpp rounds K
// and V to F16 and agrees only to ~2e-3.
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../fixtures/gguf");
const modules = process.argv[2];
if (!modules) {
  console.error("usage: node llamacpp_reference.mjs DIR (where npm i -E node-llama-cpp@3.21.1 ran)");
  process.exit(2);
}
const entry = path.join(modules, "node_modules/node-llama-cpp/dist/index.js");
const {getLlama, LlamaLogLevel} = await import(pathToFileURL(entry).href);

// The texts of tests/core/models/gguf/gguf_model_test.cpp (kGgufTexts).
const TEXTS = [
  "The animal didn't cross the street because it was too tired.",
  "When Mary and John went to the store, John gave a drink to",
  "  two  spaces, digits 12345 and caf\u00e9 \u2014 ok?\nNew line.",
];
const FILES = ["llama-F32.gguf", "llama3-F32.gguf", "qwen2-F32.gguf", "gpt2-F32.gguf", "llama-Q8_0.gguf",
               "llama-Q4_0.gguf", "qwen2-Q8_0.gguf", "gpt2-Q4_0.gguf", "llama256-F32.gguf", "llama256-Q4_K_M.gguf"];

const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
fs.mkdirSync(path.join(root, "llamacpp"), {recursive: true});
for (const file of FILES) {
  const model = await llama.loadModel({modelPath: path.join(root, "models", file), gpuLayers: 0});
  const cases = [], rows = [];
  let vocab = 0;
  for (const text of TEXTS) {
    let tokens = model.tokenize(text, false);
    if (model.tokens.shouldPrependBosToken && model.tokens.bos != null) tokens = [model.tokens.bos, ...tokens];
    const context = await model.createContext({contextSize: 128, batchSize: 128, threads: 2, flashAttention: false,
      experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"});
    const seq = context.getSequence();
    const out = await seq.controlledEvaluate(tokens.map((t) => [t, {generateNext: {probabilities: true,
      options: {temperature: 1, topK: 0, topP: 1, minP: 0}}}]));
    vocab = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
    for (const o of out) {
      const row = new Float32Array(vocab);
      for (const [t, p] of o.next.probabilities) row[t] = p;
      rows.push(Buffer.from(row.buffer));
    }
    cases.push({text, ids: Array.from(tokens)});
    await context.dispose();
  }
  const stem = file.replace(/\.gguf$/, "");
  fs.writeFileSync(path.join(root, "llamacpp", stem + ".json"), JSON.stringify({
    library: "node-llama-cpp 3.21.1 (llama.cpp, CPU, flash attention off, F32 KV cache)", vocab, cases}, null, 1) + "\n");
  fs.writeFileSync(path.join(root, "llamacpp", stem + ".f32"), Buffer.concat(rows));
  console.log(stem, cases.map((c) => c.ids.length));
  await model.dispose();
}
