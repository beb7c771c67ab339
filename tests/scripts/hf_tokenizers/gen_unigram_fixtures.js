// Writes tokenizer.json fixtures with Unigram and WordLevel models under
// tests/fixtures/hf_tokenizers/, built from the SentencePiece Unigram model that
// tests/scripts/spm/gen_spm_fixtures.py trained (tests/fixtures/spm/unigram/spiece.model),
// as transformers' T5Converter converts a spiece.model (convert_slow_tokenizer.py):
//   t5_unigram     Precompiled (the model's nmt_nfkc charsmap) + Replace(" {2,}", " "),
//                  Metaspace prepend_scheme "always", split; "$A </s>" / "$A </s> $B </s>"
//   unigram_bytes  the same pieces plus <0x00>..<0xFF>, byte_fallback (for what Viterbi leaves unknown),
//                  Metaspace prepend_scheme "first", no split
//   wordlevel      WordLevel over the corpus's lowercased words, Metaspace "never"
//   xlmr_unigram   as XLMRobertaConverter lays out xlm-roberta-base's tokenizer.json: <s> <pad> </s> <unk>
//                  first (fairseq's order, every later piece one id up), <mask> last (lstrip), unk_id 3,
//                  Precompiled alone, Metaspace add_prefix_space (the older field), "<s> $A </s>" /
//                  "<s> $A </s> </s> $B </s>"
// Each tokenizer is loaded once by Hugging Face's library (npm `tokenizers`) to
// check it; `node gen_expected.js` then writes expected.json beside each.
// Run: node gen_unigram_fixtures.js && node gen_expected.js   (outputs are committed)
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');
const OUT = path.join(FIXTURES, 'hf_tokenizers');

// Protobuf wire format (protobuf.dev/programming-guides/encoding), enough for ModelProto.
function* fields(buf) {
  let at = 0;
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[at++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const number = key >> 3, type = key & 7;
    if (type === 0) yield { number, value: varint() };
    else if (type === 1) { yield { number, bytes: buf.subarray(at, at + 8) }; at += 8; }
    else if (type === 5) { yield { number, bytes: buf.subarray(at, at + 4) }; at += 4; }
    else if (type === 2) { const n = Number(varint()); yield { number, bytes: buf.subarray(at, at + n) }; at += n; }
    else throw new Error(`wire type ${type}`);
  }
}

function readSpm(file) {
  const pieces = [];
  let charsmap = null;
  for (const f of fields(fs.readFileSync(file))) {
    if (f.number === 1) {  // SentencePiece { piece = 1; score = 2; type = 3; }
      const p = { piece: '', score: 0, type: 1 };
      for (const g of fields(f.bytes)) {
        if (g.number === 1) p.piece = Buffer.from(g.bytes).toString('utf8');
        else if (g.number === 2) p.score = Buffer.from(g.bytes).readFloatLE(0);
        else if (g.number === 3) p.type = Number(g.value);
      }
      pieces.push(p);
    } else if (f.number === 3) {  // NormalizerSpec { precompiled_charsmap = 2; }
      for (const g of fields(f.bytes)) if (g.number === 2) charsmap = Buffer.from(g.bytes).toString('base64');
    }
  }
  return { pieces, charsmap };
}

const added = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

function t5Unigram(spm) {
  const vocab = spm.pieces.map((p) => [p.piece, p.score]);
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '<pad>'), added(1, '</s>'), added(2, '<unk>')],
    normalizer: { type: 'Sequence', normalizers: [
      { type: 'Precompiled', precompiled_charsmap: spm.charsmap },
      { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      special_tokens: { '</s>': { id: '</s>', ids: [1], tokens: ['</s>'] } },
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 2, vocab, byte_fallback: false },
  };
}

function unigramBytes(spm) {
  const j = t5Unigram(spm);
  const worst = Math.min(...spm.pieces.map((p) => p.score));
  for (let b = 0; b < 256; ++b)
    j.model.vocab.push([`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, worst - 1]);
  j.model.byte_fallback = true;
  j.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false };
  j.decoder = null;
  return j;
}

function xlmrUnigram(spm) {
  // spiece.model's own <unk>, <s>, </s> (ids 0..2) give way to fairseq's four specials.
  const vocab = [['<s>', 0], ['<pad>', 0], ['</s>', 0], ['<unk>', 0]];
  for (const p of spm.pieces.slice(3)) vocab.push([p.piece, p.score]);
  vocab.push(['<mask>', 0]);
  const mask = vocab.length - 1;
  const tpl = (pair) => {
    const s = (id) => ({ SpecialToken: { id, type_id: 0 } }), q = (id) => ({ Sequence: { id, type_id: 0 } });
    return pair ? [s('<s>'), q('A'), s('</s>'), s('</s>'), q('B'), s('</s>')] : [s('<s>'), q('A'), s('</s>')];
  };
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '<s>'), added(1, '<pad>'), added(2, '</s>'), added(3, '<unk>'),
      { ...added(mask, '<mask>'), lstrip: true }],
    normalizer: { type: 'Precompiled', precompiled_charsmap: spm.charsmap },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', add_prefix_space: true },
    post_processor: {
      type: 'TemplateProcessing', single: tpl(false), pair: tpl(true),
      special_tokens: { '<s>': { id: '<s>', ids: [0], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } },
    },
    decoder: { type: 'Metaspace', replacement: '▁', add_prefix_space: true },
    model: { type: 'Unigram', unk_id: 3, vocab, byte_fallback: false },
  };
}

function wordLevel() {
  const text = fs.readFileSync(path.join(__dirname, 'corpus.txt'), 'utf8').toLowerCase();
  const words = ['[UNK]', '[PAD]'];
  for (const w of text.split(/\s+/)) if (w && !words.includes('▁' + w) && words.length < 300) words.push('▁' + w);
  for (const w of text.split(/\s+/)) if (w && !words.includes(w) && words.length < 400) words.push(w);
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '[UNK]'), added(1, '[PAD]')],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'never', split: true },
    post_processor: null, decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(words.map((w, i) => [w, i])), unk_token: '[UNK]' },
  };
}

function main() {
  const spm = readSpm(path.join(FIXTURES, 'spm', 'unigram', 'spiece.model'));
  if (!spm.charsmap) throw new Error('spiece.model has no precompiled charsmap');
  const outputs = { t5_unigram: t5Unigram(spm), unigram_bytes: unigramBytes(spm), wordlevel: wordLevel(),
    xlmr_unigram: xlmrUnigram(spm) };
  for (const [name, json] of Object.entries(outputs)) {
    const text = JSON.stringify(json, null, 1) + '\n';
    tk.Tokenizer.fromString(text);  // the library accepts it
    fs.mkdirSync(path.join(OUT, name), { recursive: true });
    fs.writeFileSync(path.join(OUT, name, 'tokenizer.json'), text);
    console.log(`${name}: ${Object.keys(json.model.vocab).length} entries`);
  }
}

main();
