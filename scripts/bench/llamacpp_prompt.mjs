// llama.cpp's prompt processing of one GGUF file, timed in-process through node-llama-cpp
// (its prebuilt CPU addon; nothing is compiled). Called by gguf_vs_llamacpp.py:
//
//   node scripts/bench/llamacpp_prompt.mjs NODE_MODULES_DIR FILE.gguf TOKENS THREADS REPS
//
// Prints one JSON line: {"load_s": model load, "context_s": context creation,
// "prompt_s": [one per rep: TOKENS tokens evaluated as one batch on a fresh sequence],
// "prompt_cpu_s": [the process's user + system CPU seconds during each]}.
// The prompt is token ids 1000, 1001, ... (after BOS), so no tokenizer time is counted.
// llama.cpp's own defaults for the context (its fastest settings on this CPU), except the
// thread count and a batch holding the whole prompt.
import path from "node:path";
import {pathToFileURL} from "node:url";

const [modules, file, tokensArg, threadsArg, repsArg] = process.argv.slice(2);
if (!repsArg) {
  console.error("usage: node llamacpp_prompt.mjs NODE_MODULES_DIR FILE.gguf TOKENS THREADS REPS");
  process.exit(2);
}
const tokens = Number(tokensArg), threads = Number(threadsArg), reps = Number(repsArg);
const entry = path.join(modules, "node_modules/node-llama-cpp/dist/index.js");
const {getLlama, LlamaLogLevel} = await import(pathToFileURL(entry).href);

const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
let t0 = performance.now();
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const loadS = (performance.now() - t0) / 1000;
t0 = performance.now();
const context = await model.createContext({contextSize: tokens * 2, batchSize: tokens, threads});
const contextS = (performance.now() - t0) / 1000;
const ids = [model.tokens.bos ?? 0];
for (let i = 1; i < tokens; ++i) ids.push(1000 + i);
const promptS = [], promptCpuS = [];
for (let r = 0; r < reps; ++r) {
  const seq = context.getSequence();
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  await seq.evaluateWithoutGeneratingNewTokens(ids);
  promptS.push((performance.now() - t0) / 1000);
  const cpu = process.cpuUsage(cpu0);
  promptCpuS.push((cpu.user + cpu.system) / 1e6);
  seq.dispose();
}
console.log(JSON.stringify({load_s: loadS, context_s: contextS, prompt_s: promptS, prompt_cpu_s: promptCpuS}));
await context.dispose();
await model.dispose();
