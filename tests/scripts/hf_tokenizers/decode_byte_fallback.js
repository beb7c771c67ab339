#!/usr/bin/env node
// Decodes runs of byte-fallback pieces with Hugging Face's own `tokenizers` library (npm 0.23.2:
// the ByteFallback decoder of tests/fixtures/models/llama/tokenizer.json) and writes
// tests/fixtures/models/llama/reference_decode.json: ids and the text the library gives. A run
// that is valid UTF-8 becomes its characters; an invalid run becomes one U+FFFD per byte.
//   cd tests/scripts/hf_tokenizers && npm install && node decode_byte_fallback.js
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const DIR = path.join(__dirname, '..', '..', 'fixtures', 'models', 'llama');
const PIECES = [
  ['<0xFD>'],
  ['<0xE6>', '<0x9D>', '<0xB1>'],
  ['▁Hello', '<0xE6>', '<0x9D>', '<0xB1>', '▁world'],
  ['▁Hello', '<0xE6>', '<0x9D>', '<0xB1>', '<0xFD>', '▁world'],
  ['▁Hello', '<0xE6>', '<0x9D>', '▁world'],
  ['<0x41>', '<0xC3>'],
  ['<0x41>', '▁the', '<0xC3>', '<0xA9>'],
];

async function main() {
  const t = tk.Tokenizer.fromFile(path.join(DIR, 'tokenizer.json'));
  const cases = [];
  for (const pieces of PIECES) {
    const ids = pieces.map((p) => t.tokenToId(p));
    if (ids.some((i) => i === null || i === undefined)) throw new Error(`not in the vocabulary: ${pieces}`);
    cases.push({ pieces, ids, text: await t.decode(ids, false) });
  }
  const version = require('tokenizers/package.json').version;
  const doc = { library: `tokenizers ${version} (npm)`, skip_special_tokens: false, cases };
  fs.writeFileSync(path.join(DIR, 'reference_decode.json'), JSON.stringify(doc, null, 1) + '\n');
  for (const c of cases) console.log(JSON.stringify(c.pieces), '->', JSON.stringify(c.text));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
