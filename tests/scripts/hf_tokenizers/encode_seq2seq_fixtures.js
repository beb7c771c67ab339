#!/usr/bin/env node
// Encodes the encoder-decoder fixtures' source and target texts with Hugging Face's own
// `tokenizers` library (npm tokenizers 0.23.2, the Rust code through its Node binding) and
// writes tests/fixtures/models/<name>/reference_tokens.json: the ids the PyTorch reference
// (tests/scripts/gen_seq2seq_fixtures.py) runs on and the C++ tokenizer must reproduce.
//
//   cd tests/scripts/hf_tokenizers && npm install && node encode_seq2seq_fixtures.js [FIXTURE_ROOT [NAME...]]
//
// Each folder has a tokenizer.json, loaded as it is. A target is encoded as the source is
// (BartTokenizer's text_target: the same pipeline, <s> ... </s>). Each source also gets its
// offsets (getOffsets(): characters, i.e. code points, of the text; [0, 0] for the special tokens
// the post-processor adds), and OFFSET_TEXTS, sources with accents, curly quotes and CJK that no
// PyTorch reference runs on, are encoded for their ids, tokens and offsets only.
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const CASES = {
  bart: [
    { source: 'The animal didn\'t cross the street because it was too tired.',
      target: 'The cat sat on the mat.' },
    { source: 'Hello, world! Attention is all you need.', target: 'Hello there, how are you?' },
  ],
  // T5's tokenizer.json (T5Converter): the pieces then </s>; the target the same way.
  flan_t5: [
    { source: 'translate English to German: The cat sat on the mat.', target: 'Die Katze saß auf der Matte.' },
    { source: 'summarize: Attention is all you need, and every head looks at the words it finds useful.',
      target: 'Every head looks at words.' },
  ],
  // mBART-50 (MBart50TokenizerFast): the source as tokenizer.json has it (en_XX ... </s>); the
  // target as text_target with tgt_lang ro_RO: ro_RO, the pieces, </s>.
  mbart: [
    { source: 'The animal didn\'t cross the street because it was too tired.',
      target: 'Animalul nu a traversat strada.', targetLang: 'ro_RO' },
    { source: 'Hello, world! Attention is all you need.', target: 'Salut, lume!', targetLang: 'ro_RO' },
  ],
};

const OFFSET_TEXTS = [
  'The café’s menu — naïve 中文 test.',
  'Größe: 東京 😀, déjà vu!',
];

async function main() {
  const root = process.argv[2] || path.join(__dirname, '..', '..', 'fixtures', 'models');
  const version = JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', 'tokenizers',
    'package.json'), 'utf8')).version;
  const only = process.argv.slice(3);  // folder names; all of CASES when none
  for (const [name, cases] of Object.entries(CASES)) {
    if (only.length && !only.includes(name)) continue;
    const dir = path.join(root, name);
    if (!fs.existsSync(dir)) {
      console.log(`skip ${name}: ${dir} absent`);
      continue;
    }
    const tok = tk.Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    const out = [];
    for (const c of cases) {
      const src = await tok.encode(c.source, null, { addSpecialTokens: true });
      const tgt = await tok.encode(c.target, null, { addSpecialTokens: !c.targetLang });
      let [ids, tokens] = [tgt.getIds(), tgt.getTokens()];
      if (c.targetLang) {
        ids = [tok.tokenToId(c.targetLang), ...ids, tok.tokenToId('</s>')];
        tokens = [c.targetLang, ...tokens, '</s>'];
      }
      out.push({ source: c.source, target: c.target, source_ids: src.getIds(), source_tokens: src.getTokens(),
        source_offsets: src.getOffsets(), target_ids: ids, target_tokens: tokens });
    }
    const offsetCases = [];
    for (const text of OFFSET_TEXTS) {
      const e = await tok.encode(text, null, { addSpecialTokens: true });
      offsetCases.push({ text, ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets() });
    }
    const doc = { library: `tokenizers ${version} (npm, the Node binding of Hugging Face's Rust library)`,
      tokenizer: 'tokenizer.json', cases: out, offset_cases: offsetCases };
    fs.writeFileSync(path.join(dir, 'reference_tokens.json'), JSON.stringify(doc, null, 1) + '\n');
    console.log(`${name}: ${out.map((c) => `${c.source_ids.length}+${c.target_ids.length}`).join(', ')} tokens`);
  }
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
