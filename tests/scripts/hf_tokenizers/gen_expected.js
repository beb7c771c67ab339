// Encodes a varied multilingual list of texts with Hugging Face's own tokenizers
// library (the Rust code through npm `tokenizers`, version recorded in the output)
// for every tokenizer under tests/fixtures/hf_tokenizers/, and writes
// expected.json beside it: ids, tokens, type ids, special-token mask and offsets
// (getOffsets(): characters, i.e. code points, of the original text; a pair's second
// text counts from its own start) per text, per sentence pair, and per text without
// special tokens.
// Folders with vocab.txt or vocab.json + merges.txt are built here as transformers'
// BertTokenizerFast / GPT2TokenizerFast convert them (convert_slow_tokenizer.py).
// Run: node gen_expected.js   (after `npm install` here; outputs are committed)
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const OUT = path.join(__dirname, '..', '..', 'fixtures', 'hf_tokenizers');
const VERSION = require('tokenizers/package.json').version;

const TEXTS = [
  'Hello world',
  'The animal didn\'t cross the street because it was too tired.',
  "I'm sure they've read it; we'll see, you'd agree, she's HERE and THEY'RE Re-reading.",
  'In 2024 the model had 1234567 parameters and scored 3.14159 (or 98.6%).',
  'Café naïve résumé façade jalapeño crème brûlée Ångström',
  'Die Straße ist lang; die Mädchen lesen Bücher über Größe.',
  '我们今天学习注意力机制。',
  '北京是中国的首都，上海很大！',
  'こんにちは、世界。カタカナとひらがな',
  '한국어 텍스트는 한글로 쓰여 있습니다.',
  'Emoji: 😀👍🏽 and ❤️ in text 🚀!',
  'Prices: $5, €10, £3.50, ¥100, ₹20 and 50% off — a deal.',
  'Punctuation: (a) [b] {c} "d" \'e\' … ¿qué? ¡sí! «guillemets» – dash',
  'tabs\tand\nnewlines\r\nand   multiple    spaces  ',
  '   leading and trailing spaces   ',
  '\n\nblank lines\n\n\nhere\n',
  'A <b>bold</b> tag, an <unk-ish> thing and <|not_special|> text',
  '[CLS] written in text [SEP] and [MASK] here [PAD]',
  '<s> bos and </s> eos <unk> <pad> <mask> in text',
  '<|begin_of_text|>Hello<|eot_id|> and <|endoftext|> and <|im_start|>user<|im_end|>',
  'New York is big, new york is bigger, NEW YORK!',
  'Hello <mask> world<mask>!',
  'supercalifragilisticexpialidocious antidisestablishmentarianism',
  'x'.repeat(120),
  'MiXeD CaSe WoRdS ΑΒΓ αβγ Ωμέγα Привет мир',
  'İstanbul ǅemal ß ﬁ ligature Ⅻ ① ²',
  'Zero\u200bwidth\u00a0nbsp\u3000ideographic space\u2028line sep',
  'control\u0001chars\u007fand\ufffdreplacement',
  'def f(x):\n    return x ** 2  # square\n',
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE",
  'a',
  '',
  ' ',
  'Ġ ▁ ## <0x41> tokens-looking text',
  'Combining: e\u0301 a\u0308\u0323 n\u0303o; full width: ＡＢＣ １２３ ｶﾀｶﾅ; ㍿ ㎏ ½ İİ',
];

const PAIRS = [
  ['The cat sat on the mat.', 'It was tired.'],
  ['What is attention?', 'Attention is all you need.'],
  ['我们学习。', 'こんにちは世界'],
  ['Hello', ''],
  ['Prices: $5', 'and €10, ok?'],
];

const NO_SPECIAL = [
  ['Hello world', null],
  ['The animal didn\'t cross the street.', null],
  ['The cat sat on the mat.', 'It was tired.'],
];

function bertFromVocabTxt(dir) {
  // BertConverter: WordPiece + BertNormalizer + BertPreTokenizer + [CLS] $A [SEP] ($B [SEP]).
  const lines = fs.readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const vocab = {};
  lines.forEach((t, i) => (vocab[t.replace(/\s+$/, '')] = i));
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8'));
  const lower = cfg.do_lower_case ?? true;
  const specials = ['[UNK]', '[SEP]', '[PAD]', '[CLS]', '[MASK]'].filter((t) => t in vocab);
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: specials.map((t) => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: cfg.tokenize_chinese_chars ?? true, strip_accents: cfg.strip_accents ?? null, lowercase: lower },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

function gpt2FromFiles(dir) {
  // GPT2Converter: BPE without unk + ByteLevel(add_prefix_space) + ByteLevel post-processor.
  const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
  const merges = fs.readFileSync(path.join(dir, 'merges.txt'), 'utf8').split('\n').slice(1).filter((l) => l.length);
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8'));
  const eot = '<|endoftext|>';
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: vocab[eot], content: eot, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: cfg.add_prefix_space ?? false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
  };
}

const LOADERS = {
  bert_vocab_txt: { modelType: 'bert', build: bertFromVocabTxt },
  gpt2_files: { modelType: 'gpt2', build: gpt2FromFiles },
};

async function encodeCase(t, text, pair, addSpecialTokens) {
  const e = await t.encode(text, pair, { addSpecialTokens });
  return {
    text, pair, add_special_tokens: addSpecialTokens,
    ids: e.getIds(), tokens: e.getTokens(), type_ids: e.getTypeIds(), special_tokens_mask: e.getSpecialTokensMask(),
    offsets: e.getOffsets(),
  };
}

async function main() {
  for (const name of fs.readdirSync(OUT).sort()) {
    const dir = path.join(OUT, name);
    if (!fs.statSync(dir).isDirectory()) continue;
    const loader = LOADERS[name];
    const json = loader ? JSON.stringify(loader.build(dir)) : fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8');
    const t = tk.Tokenizer.fromString(json);
    const cases = [];
    for (const text of TEXTS) cases.push(await encodeCase(t, text, null, true));
    for (const [a, b] of PAIRS) cases.push(await encodeCase(t, a, b, true));
    for (const [a, b] of NO_SPECIAL) cases.push(await encodeCase(t, a, b, false));
    const out = {
      generator: 'tests/scripts/hf_tokenizers/gen_expected.js',
      library: `tokenizers (npm, Hugging Face's Rust library) ${VERSION}`,
      load: loader ? 'folder' : 'tokenizer.json',
      model_type: loader ? loader.modelType : null,
      cases,
    };
    fs.writeFileSync(path.join(dir, 'expected.json'), JSON.stringify(out, null, 1) + '\n');
    console.log(`${name}: ${cases.length} cases`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
