// Writes the small tokenizers under tests/fixtures/hf_tokenizers/<name>/ in the
// styles of real models (BERT uncased, a Chinese-capable cased BERT, a bare BERT
// vocab.txt, GPT-2 vocab.json + merges.txt and tokenizer.json, RoBERTa, Llama 3,
// Qwen2, Llama 2 SentencePiece-style with byte fallback, a Metaspace one), each
// trained by Hugging Face's own trainers (npm `tokenizers`) on corpus.txt, then
// cut to part of its merges so that unseen words split into pieces.
// Run: node gen_fixtures.js && node gen_expected.js   (outputs are committed)
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const tk = require('tokenizers');

const OUT = path.join(__dirname, '..', '..', 'fixtures', 'hf_tokenizers');
const CORPUS = path.join(__dirname, 'corpus.txt');

function train(model, { normalizer, preTokenizer, preTokenizerJson } = {}) {
  let t;
  if (preTokenizerJson) {
    // A regex Split pre-tokenizer is only reachable through JSON in the Node binding.
    const base = new tk.Tokenizer(model);
    const file0 = path.join(os.tmpdir(), `attn_tok0_${process.pid}.json`);
    base.save(file0);
    const j0 = JSON.parse(fs.readFileSync(file0, 'utf8'));
    fs.unlinkSync(file0);
    j0.pre_tokenizer = preTokenizerJson;
    if (normalizer) j0.normalizer = normalizer;
    t = tk.Tokenizer.fromString(JSON.stringify(j0));
  } else {
    t = new tk.Tokenizer(model);
    if (normalizer) t.setNormalizer(normalizer);
    if (preTokenizer) t.setPreTokenizer(preTokenizer);
  }
  t.train([CORPUS]);
  const file = path.join(os.tmpdir(), `attn_tok_${process.pid}.json`);
  t.save(file);
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.unlinkSync(file);
  return j;
}

function byId(vocab) {
  return Object.entries(vocab).sort((a, b) => a[1] - b[1]).map(([t]) => t);
}

// Keeps the alphabet and the first `fraction` of the merges, renumbered after `head`.
function cutBpe(model, fraction, head = [], extraAlphabet = []) {
  const tokens = byId(model.vocab);
  const merges = model.merges.map((m) => (Array.isArray(m) ? m : m.split(' ')));
  const alphabet = tokens.length - merges.length;
  const keep = Math.floor(merges.length * fraction);
  const kept = tokens.slice(0, alphabet + keep);
  const list = [...head];
  for (const t of [...kept.slice(0, alphabet), ...extraAlphabet, ...kept.slice(alphabet)])
    if (!list.includes(t)) list.push(t);
  model.vocab = Object.fromEntries(list.map((t, i) => [t, i]));
  model.merges = merges.slice(0, keep);
  return model;
}

function cutWordPiece(model, fraction, head) {
  const tokens = byId(model.vocab);
  const singles = tokens.filter((t) => [...t.replace(/^##/, '')].length === 1);
  const words = tokens.filter((t) => !singles.includes(t));
  const list = [...head, ...singles, ...words.slice(0, Math.floor(words.length * fraction))];
  model.vocab = Object.fromEntries([...new Set(list)].map((t, i) => [t, i]));
  return model;
}

function added(content, id, special, extra = {}) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: !special, special, ...extra };
}

function template(single, pair, specials) {
  const parse = (s) =>
    s.split(' ').map((p) => {
      const [id, type] = p.split(':');
      return id.startsWith('$')
        ? { Sequence: { id: id.slice(1), type_id: Number(type) } }
        : { SpecialToken: { id, type_id: Number(type) } };
    });
  const special_tokens = {};
  for (const [t, id] of specials) special_tokens[t] = { id: t, ids: [id], tokens: [t] };
  return { type: 'TemplateProcessing', single: parse(single), pair: parse(pair), special_tokens };
}

function write(name, files) {
  const dir = path.join(OUT, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files))
    fs.writeFileSync(path.join(dir, file), typeof content === 'string' ? content : JSON.stringify(content, null, 1) + '\n');
}

function finish(j) {
  // Check that the library itself loads what we wrote.
  tk.Tokenizer.fromString(JSON.stringify(j));
  return j;
}

const BERT_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const LLAMA3_RE =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2_RE =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const byteAlphabet = tk.byteLevelAlphabet();

// --- BERT uncased (tokenizer.json, TemplateProcessing) ---
{
  const j = train(tk.WordPiece.empty(), {
    normalizer: tk.bertNormalizer({ cleanText: true, handleChineseChars: true, lowercase: true }),
    preTokenizer: tk.bertPreTokenizer(),
  });
  j.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true };
  cutWordPiece(j.model, 0.5, BERT_SPECIALS);
  j.added_tokens = BERT_SPECIALS.map((t, i) => added(t, i, true));
  // A normalized, non-special added token: matched after lowercasing.
  j.model.vocab['new york'] = Object.keys(j.model.vocab).length;
  j.added_tokens.push(added('New York', j.model.vocab['new york'], false));
  delete j.model.vocab['new york'];
  j.added_tokens[j.added_tokens.length - 1].id = Object.keys(j.model.vocab).length;
  j.post_processor = template('[CLS]:0 $A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1', [['[CLS]', 2], ['[SEP]', 3]]);
  write('bert_uncased', { 'tokenizer.json': finish(j) });
}

// --- BERT Chinese-capable, cased (tokenizer.json, BertProcessing) ---
{
  const j = train(tk.WordPiece.empty(), {
    normalizer: tk.bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents: false, lowercase: false }),
    preTokenizer: tk.bertPreTokenizer(),
  });
  j.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false };
  cutWordPiece(j.model, 0.6, BERT_SPECIALS);
  j.added_tokens = BERT_SPECIALS.map((t, i) => added(t, i, true));
  j.post_processor = { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] };
  write('bert_chinese', { 'tokenizer.json': finish(j) });
}

// --- bare vocab.txt (cased, do_lower_case false), as BertTokenizerFast converts it ---
{
  const j = train(tk.WordPiece.empty(), {
    normalizer: tk.bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents: false, lowercase: false }),
    preTokenizer: tk.bertPreTokenizer(),
  });
  cutWordPiece(j.model, 0.4, BERT_SPECIALS);
  write('bert_vocab_txt', {
    'vocab.txt': byId(j.model.vocab).join('\n') + '\n',
    'tokenizer_config.json': { do_lower_case: false, model_max_length: 512, tokenizer_class: 'BertTokenizer' },
  });
}

// --- GPT-2: one byte-level BPE, as vocab.json + merges.txt and as tokenizer.json ---
{
  const j = train(tk.BPE.empty(), { preTokenizer: tk.byteLevelPreTokenizer(false, true) });
  cutBpe(j.model, 0.6, [], byteAlphabet);
  const eot = Object.keys(j.model.vocab).length;
  j.model.vocab['<|endoftext|>'] = eot;
  j.added_tokens = [added('<|endoftext|>', eot, true)];
  j.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  j.post_processor = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true };
  j.decoder = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
  write('gpt2_json', { 'tokenizer.json': finish(j) });
  write('gpt2_files', {
    'vocab.json': JSON.stringify(j.model.vocab),
    'merges.txt': '#version: 0.2\n' + j.model.merges.map((m) => m.join(' ')).join('\n') + '\n',
    'tokenizer_config.json': { add_prefix_space: false, bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>', model_max_length: 1024 },
  });
}

// --- RoBERTa: ByteLevel + RobertaProcessing, <mask> with lstrip ---
{
  const j = train(tk.BPE.empty(), { preTokenizer: tk.byteLevelPreTokenizer(false, true) });
  cutBpe(j.model, 0.5, ['<s>', '<pad>', '</s>', '<unk>'], byteAlphabet);
  const mask = Object.keys(j.model.vocab).length;
  j.model.vocab['<mask>'] = mask;
  j.added_tokens = [
    added('<s>', 0, true), added('<pad>', 1, true), added('</s>', 2, true), added('<unk>', 3, true),
    added('<mask>', mask, true, { lstrip: true }),
  ];
  j.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  j.post_processor = { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false };
  write('roberta', { 'tokenizer.json': finish(j) });
}

// --- Llama 3: Split with its regex, ByteLevel without regex, ignore_merges, <|begin_of_text|> ---
{
  const pre = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: LLAMA3_RE }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  };
  const j = train(tk.BPE.empty(), { preTokenizerJson: pre });
  cutBpe(j.model, 0.55, [], byteAlphabet);
  // Whole words in the vocabulary without the merges that build them: ignore_merges takes them as is.
  for (const w of ['Ġattention', 'Ġtransformer', 'Ġheads']) if (!(w in j.model.vocab)) j.model.vocab[w] = Object.keys(j.model.vocab).length;
  j.model.ignore_merges = true;
  const n = Object.keys(j.model.vocab).length;
  const specials = ['<|begin_of_text|>', '<|end_of_text|>', '<|reserved_special_token_0|>', '<|eot_id|>'];
  j.added_tokens = specials.map((t, i) => added(t, n + i, true));
  j.pre_tokenizer = pre;
  j.post_processor = {
    type: 'Sequence',
    processors: [
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
      template('<|begin_of_text|>:0 $A:0', '<|begin_of_text|>:0 $A:0 <|begin_of_text|>:1 $B:1', [['<|begin_of_text|>', n]]),
    ],
  };
  write('llama3', { 'tokenizer.json': finish(j) });
}

// --- Qwen2: NFC, Split with its regex (single digits), ByteLevel, no BOS ---
{
  const pre = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: QWEN2_RE }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    ],
  };
  const j = train(tk.BPE.empty(), { normalizer: { type: 'NFC' }, preTokenizerJson: pre });
  cutBpe(j.model, 0.6, [], byteAlphabet);
  const n = Object.keys(j.model.vocab).length;
  j.added_tokens = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'].map((t, i) => added(t, n + i, true));
  j.normalizer = { type: 'NFC' };
  j.pre_tokenizer = pre;
  j.post_processor = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
  write('qwen2', { 'tokenizer.json': finish(j) });
}

// --- SentencePiece-style BPE: <unk> <s> </s>, <0x00>..<0xFF>, then the pieces ---
function sentencePiece(fraction) {
  const j = train(tk.BPE.empty(), { preTokenizer: tk.metaspacePreTokenizer('▁', 'always', true) });
  const bytes = [...Array(256).keys()].map((b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  cutBpe(j.model, fraction, ['<unk>', '<s>', '</s>', ...bytes]);
  j.model.unk_token = '<unk>';
  j.model.fuse_unk = true;
  j.model.byte_fallback = true;
  j.added_tokens = [added('<unk>', 0, true), added('<s>', 1, true), added('</s>', 2, true)];
  return j;
}

// Llama 2 / TinyLlama / Mistral (legacy): normalizer Prepend("▁") + Replace(" ", "▁"), no pre-tokenizer.
{
  const j = sentencePiece(0.6);
  j.normalizer = {
    type: 'Sequence',
    normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }],
  };
  j.pre_tokenizer = null;
  j.post_processor = template('<s>:0 $A:0', '<s>:0 $A:0 <s>:1 $B:1', [['<s>', 1]]);
  j.decoder = {
    type: 'Sequence',
    decoders: [
      { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
      { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 },
    ],
  };
  write('llama2', { 'tokenizer.json': finish(j) });
}

// The newer form: Metaspace pre-tokenizer, prepend_scheme "first", no split; here without
// byte fallback so that unknown characters fuse into one <unk>.
{
  const j = sentencePiece(0.5);
  j.model.byte_fallback = false;
  j.normalizer = null;
  j.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false };
  j.post_processor = template('<s>:0 $A:0 </s>:0', '<s>:0 $A:0 </s>:0 $B:1 </s>:1', [['<s>', 1], ['</s>', 2]]);
  write('sp_metaspace', { 'tokenizer.json': finish(j) });
}
console.log('wrote', fs.readdirSync(OUT).join(', '));
