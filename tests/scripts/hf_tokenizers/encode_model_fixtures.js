#!/usr/bin/env node
// Encodes the model fixtures' texts with Hugging Face's own `tokenizers` library (the Rust code
// through its Node binding, npm tokenizers 0.23.2) and writes
// tests/fixtures/models/<name>/reference_tokens.json, the token ids the PyTorch references
// (tests/scripts/gen_model_fixtures.py) run on and the C++ tokenizer must reproduce.
//
//   cd tests/scripts/hf_tokenizers && npm install && node encode_model_fixtures.js [FIXTURE_ROOT]
//
// (gen_model_fixtures.py runs it between writing the folders and computing the references.)
// Folders with a tokenizer.json are loaded from it as they are. The older vocabulary files are
// built into the same pipeline that transformers' converters (convert_slow_tokenizer.py:
// BertConverter, GPT2Converter) give BertTokenizerFast / GPT2TokenizerFast:
//   vocab.txt           WordPiece(unk [UNK], "##", 100 chars) + BertNormalizer(clean_text, CJK,
//                       strip_accents = lowercase = do_lower_case) + BertPreTokenizer
//                       + "[CLS] $A [SEP] ($B [SEP])" + the five special tokens
//   vocab.json+merges   BPE + ByteLevel(add_prefix_space false) pre-tokenizer and post-processor,
//                       <|endoftext|> a special added token, no BOS
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const CASES = {
  gpt2: [
    { text: "The animal didn't cross the street because it was too tired." },
    { text: 'On 12/03/2024, GPT-2 scored 3.14 points -- wow!!' },
    { text: 'Café naïve résumé — 東京 👋' },
  ],
  bert: [
    { text: 'The cat sat on the mat.', pair: 'It was very happy!' },
    { text: 'Hello, World! 42 apples cost $3.50.', pad_to: 24 },
    { text: 'Héllo NAÏVE café, 中文 東京 🙂.' },
  ],
  bert_legacy: [
    { text: 'The cat sat on the mat.', pair: 'It was very happy!' },
    { text: 'Hello, World! 42 apples cost $3.50.', pad_to: 20 },
  ],
  // tests/scripts/gen_encoder_fixtures.py: DistilBERT (vocab.txt) and XLM-R (Unigram tokenizer.json)
  distilbert: [
    { text: 'The cat sat on the [MASK].', pair: 'It was very happy!' },
    { text: 'Hello, World! 42 apples cost $3.50.', pad_to: 24 },
    { text: 'Héllo NAÏVE café, 中文 東京 🙂.' },
  ],
  distilbert_sin: [
    { text: "The animal didn't cross the street because it was too tired." },
    { text: 'Hello there, how are you?', pad_to: 12 },
  ],
  xlmr: [
    { text: 'The cat sat on the <mask>.' },
    { text: 'Die Mädchen lesen Bücher über Größe.', pad_to: 36 },
    { text: '我们今天学习注意力机制。こんにちは 😀', pair: 'Hello world' },
  ],
  llama: [
    { text: "The animal didn't cross the street because it was too tired." },
    { text: "In 2024, 3 + 4 = 7; isn't it?" },
    { text: 'Café déjà vu,\n東京 😀' },  // byte fallback: \n, 東, 😀
  ],
  llama3: [
    { text: "The animal didn't cross the street because it was too tired." },
    // \p{N}{1,3}: digits in groups of three
    { text: 'In 2024, 1234567 apples cost $3.50!' },
    { text: 'Café naïve 東京 👋\n' },
  ],
  qwen2: [
    { text: "The animal didn't cross the street because it was too tired." },
    { text: 'Call 555-0123 at 10:30, OK?' },
    // "Cafe" + U+0301: the NFC normalizer composes it to "Café".
    { text: 'Cafe\u0301 naïve 你好，世界！' },
    // added special tokens are matched before the pre-tokenizer
    { text: '<|im_start|>user\nHi there!<|im_end|>' },
  ],
};

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

async function loadTokenizer(dir) {
  const json = path.join(dir, 'tokenizer.json');
  if (fs.existsSync(json)) {
    const tok = tk.Tokenizer.fromFile(json);
    return { tok, how: 'tokenizer.json', pad: tok.tokenToId('<pad>') === null ? undefined : '<pad>' };
  }
  const cfgFile = path.join(dir, 'tokenizer_config.json');
  const cfg = fs.existsSync(cfgFile) ? readJson(cfgFile) : {};
  if (fs.existsSync(path.join(dir, 'vocab.txt'))) {
    const lower = cfg.do_lower_case === undefined ? true : !!cfg.do_lower_case;  // BertTokenizer's default
    const model = await tk.WordPiece.fromFile(path.join(dir, 'vocab.txt'),
      { unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100 });
    const tok = new tk.Tokenizer(model);
    tok.setNormalizer(tk.bertNormalizer({ cleanText: true, handleChineseChars: true,
      stripAccents: lower, lowercase: lower }));
    tok.setPreTokenizer(tk.bertPreTokenizer());
    tok.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    tok.setPostProcessor(tk.templateProcessing('[CLS]:0 $A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1',
      [['[CLS]', tok.tokenToId('[CLS]')], ['[SEP]', tok.tokenToId('[SEP]')]]));
    tok.setDecoder(tk.wordPieceDecoder('##', true));
    return { tok, how: `vocab.txt (WordPiece, do_lower_case ${lower})`, pad: '[PAD]' };
  }
  if (fs.existsSync(path.join(dir, 'vocab.json'))) {
    const model = await tk.BPE.fromFile(path.join(dir, 'vocab.json'), path.join(dir, 'merges.txt'), {});
    const tok = new tk.Tokenizer(model);
    tok.setPreTokenizer(tk.byteLevelPreTokenizer(false, true));
    tok.setPostProcessor(tk.byteLevelProcessing(false));
    tok.addSpecialTokens(['<|endoftext|>']);
    return { tok, how: 'vocab.json + merges.txt (byte-level BPE)' };
  }
  throw new Error(`${dir}: no tokenizer.json, vocab.txt or vocab.json`);
}

async function main() {
  const root = process.argv[2] || path.join(__dirname, '..', '..', 'fixtures', 'models');
  const version = readJson(path.join(__dirname, 'node_modules', 'tokenizers', 'package.json')).version;
  for (const [name, cases] of Object.entries(CASES)) {
    const dir = path.join(root, name);
    if (!fs.existsSync(dir)) {
      console.log(`skip ${name}: ${dir} absent`);
      continue;
    }
    const { tok, how, pad } = await loadTokenizer(dir);
    const out = [];
    for (const c of cases) {
      const enc = await tok.encode(c.text, c.pair === undefined ? null : c.pair, { addSpecialTokens: true });
      if (c.pad_to) {
        enc.pad(c.pad_to, { padId: tok.tokenToId(pad), padToken: pad, padTypeId: 0, direction: 'right' });
      }
      out.push({
        text: c.text,
        pair: c.pair === undefined ? null : c.pair,
        pad_to: c.pad_to || 0,
        ids: enc.getIds(),
        tokens: enc.getTokens(),
        type_ids: enc.getTypeIds(),
        attention_mask: enc.getAttentionMask(),
        special_tokens_mask: enc.getSpecialTokensMask(),
        offsets: enc.getOffsets(),  // characters (code points) of the text; of the pair for its tokens
      });
    }
    const doc = { library: `tokenizers ${version} (npm, the Node binding of Hugging Face's Rust library)`,
      tokenizer: how, cases: out };
    fs.writeFileSync(path.join(dir, 'reference_tokens.json'), JSON.stringify(doc, null, 1) + '\n');
    console.log(`${name}: ${out.map((c) => c.ids.length).join(', ')} tokens (${how})`);
  }
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
