#!/usr/bin/env node
// Encodes texts with Hugging Face's own `tokenizers` library (npm tokenizers, the Rust code)
// using the tokenizer.json of every model in resources/models/, and writes
// tests/fixtures/bundled/tokens.json: the ids the C++ tokenizer must reproduce
// (tests/core/models/bundled_models_test.cpp).
//
//   cd tests/scripts/hf_tokenizers && npm install && node encode_bundled_models.js
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const ROOT = process.env.ATTN_ROOT || path.join(__dirname, '..', '..', '..');
const TEXTS = [
  'the cat sat on the hill. the cat sat on the hill.',
  'The Dog RAN, to the old red house; zebra xylophone!',
  'It was a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.',
  '"Oh! Mr. Darcy," said she -- "I\'ll never forget it;\n\nyou\'re too kind."  Captain Wentworth\'s letter: £20,000.',
  'Café naïve — 東京 😀 1817 and 3.14',
  '',
  // tang-poems-gpt2: its example poems, half-width punctuation and line breaks, characters
  // outside its vocabulary (Latin, a traditional form, an ideograph beyond the BMP).
  '床前明月光，疑是地上霜。举头望明月，低头思故乡。',
  '黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。',
  '国破山河在，城春草木深。\n感时花溅泪，恨别鸟惊心。',
  '白日依山尽,黄河入海流.\n欲穷千里目?更上一层楼!',
  '《静夜思》 李白 Li Bai：舉頭望明月；𡵓 ok、',
  'She was the [MASK] of a very clever man, and [MASK] well.',
];
// Sentence pairs (BERT's segments A and B: token type ids 0 and 1).
const PAIRS = [
  ['It was a truth universally acknowledged.', 'Mr. [MASK] bowed.'],
  ['Anne said nothing; Captain Wentworth\'s letter was in her hand.', ''],
];

async function main() {
  const out = { library: 'tokenizers ' + require('tokenizers/package.json').version, models: {} };
  const dir = path.join(ROOT, 'resources', 'models');
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'tokenizer.json');
    if (!fs.existsSync(file)) continue;
    const tok = tk.Tokenizer.fromFile(file);
    out.models[name] = [];
    for (const text of TEXTS) {
      const enc = await tok.encode(text, null, { addSpecialTokens: true });
      out.models[name].push({ text, ids: enc.getIds(), tokens: enc.getTokens() });
    }
    for (const [text, pair] of PAIRS) {
      const enc = await tok.encode(text, pair, { addSpecialTokens: true });
      out.models[name].push({ text, pair, ids: enc.getIds(), type_ids: enc.getTypeIds(), tokens: enc.getTokens() });
    }
  }
  const dest = path.join(ROOT, 'tests', 'fixtures', 'bundled', 'tokens.json');
  fs.writeFileSync(dest, JSON.stringify(out, null, 1) + '\n');
}

main();
