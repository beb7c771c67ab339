// attnscope-cli corpus: per-head measures averaged over a text corpus, one line
// (or --max-tokens chunk) at a time through a model (core/attn/models/experiments/corpus_stats.h);
// corpus-merge: shard outputs combined into the result of one run.
//
// The .jsonl output holds state lines {"type":"corpus_stats", ...}: a checkpoint
// every --checkpoint-every lines (complete: false) and the final one (complete:
// true). Each is the whole accumulator, so an interrupted run leaves valid JSON
// lines and --resume continues after the last checkpoint's "lines_read".
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "attn/cuda/device.h"
#include "attn/io/atomic_file.h"
#include "attn/io/json_document.h"
#include "attn/io/regular_file.h"
#include "attn/models/device/device_corpus.h"
#include "attn/models/experiments/corpus_stats.h"
#include "attn/models/model.h"
#include "commands.h"
#include "model_request.h"

namespace attn::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Shard {
  int64_t index = 1, count = 1;  // 1-based, as `split -n l/K/N`
  std::string text() const { return fmt::format("{}/{}", index, count); }
  bool takes(int64_t line) const { return (line - 1) % count == index - 1; }
};

struct CorpusOptions {
  std::string modelDir, textFile, out, measure = "entropy", shard = "1/1", backend = "cpu";
  int maxTokens = 0, top = 5;
  int64_t checkpointEvery = 1000;
  double coverage = 0.9;
  bool resume = false, force = false;
};

Result<Shard> parseShard(const std::string& s) {
  Shard sh;
  const auto slash = s.find('/');
  const auto bad = Error{fmt::format("--shard '{}': expected i/n with 1 <= i <= n (e.g. 2/8)", s)};
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) return bad;
  try {
    size_t a = 0, b = 0;
    sh.index = std::stoll(s.substr(0, slash), &a);
    sh.count = std::stoll(s.substr(slash + 1), &b);
    if (a != slash || b != s.size() - slash - 1) return bad;
  } catch (const std::exception&) {
    return bad;
  }
  if (sh.count < 1 || sh.index < 1 || sh.index > sh.count) return bad;
  return sh;
}

// The last line of `path` that is a corpus state; its byte end (to truncate after).
struct StateLine {
  json doc;
  std::string text;
  uint64_t end = 0;
};

Result<std::optional<StateLine>> lastStateLine(const std::string& path) {
  // The state file is ours, but whatever sits at the path is not: a FIFO or a device is refused unread.
  if (auto f = RegularFile::open(path, std::numeric_limits<int64_t>::max(), /*allowEmpty=*/true); !f)
    return f.error();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot open for reading", path)};
  std::optional<StateLine> last;
  std::string line;
  uint64_t pos = 0;
  while (std::getline(in, line)) {
    const bool terminated = !in.eof();  // a last line without '\n' was cut off mid-write
    pos += line.size() + (terminated ? 1 : 0);
    if (!terminated) break;
    if (line.size() > static_cast<size_t>(file_limit::kCorpusState)) continue;
    auto j = parseJsonText(line, path);
    if (!j || !j->is_object()) continue;
    const auto type = j->find("type");  // value() would throw for a non-string type
    if (type == j->end() || !type->is_string() || type->get_ref<const std::string&>() != "corpus_stats")
      continue;
    last = StateLine{std::move(*j), line, pos};
  }
  return last;
}

bool stderrIsTerminal() { return isatty(fileno(stderr)) != 0; }

std::string formatSeconds(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  const auto t = static_cast<int64_t>(s);
  return t >= 3600 ? fmt::format("{}h{:02}m", t / 3600, t / 60 % 60) : fmt::format("{}m{:02}s", t / 60, t % 60);
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n\v\f");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r\n\v\f");
  return s.substr(a, b - a + 1);
}

class CorpusRun {
 public:
  explicit CorpusRun(const CorpusOptions& o) : o_(o) {}

  int exec() {
    auto shard = parseShard(o_.shard);
    if (!shard) return fail(shard.error().message);
    shard_ = *shard;
    const auto measure = models::parseCorpusMeasure(o_.measure);
    if (!measure) return fail(fmt::format("--measure '{}': expected one of {}", o_.measure, models::corpusMeasureList()));
    if (o_.top < 0 || o_.top > 1000) return fail(fmt::format("--top must be in 0..1000 (got {})", o_.top));
    if (o_.checkpointEvery < 1) return fail(fmt::format("--checkpoint-every must be at least 1 (got {})", o_.checkpointEvery));
    if (!(o_.coverage > 0.0 && o_.coverage <= 1.0)) return fail(fmt::format("--coverage must be in (0, 1] (got {:g})", o_.coverage));
    if (auto st = checkCorpusFile(); !st) return fail(st.error().message);
    std::error_code ec;
    if (fs::exists(o_.out, ec) && !fs::is_regular_file(o_.out, ec))
      return fail(fmt::format("{}: not a regular file", o_.out));
    if (fs::exists(o_.out) && !o_.resume && !o_.force)
      return fail(fmt::format("{}: file exists (use --resume to continue it or --force to overwrite)", o_.out));

    auto model = models::Model::open(o_.modelDir);
    if (!model) return fail(model.error().message);
    model_ = *model;
    const auto& info = model_->info();
    int maxTokens = o_.maxTokens > 0 ? o_.maxTokens : (info.maxPositions > 0 ? info.maxPositions : 512);
    if (o_.maxTokens < 0) return fail(fmt::format("--max-tokens must be at least 1 (got {})", o_.maxTokens));
    if (info.maxPositions > 0 && maxTokens > info.maxPositions)
      return fail(fmt::format("--max-tokens {} exceeds the model's context of {} tokens", maxTokens, info.maxPositions));
    // Planned once for the longest chunk: each sentence then runs where the plan puts it.
    const auto kind = parseBackend(o_.backend);
    if (!kind)
      return fail(fmt::format("--backend: unknown backend '{}' (expected cpu, cuda or auto)", o_.backend));
    backend_ = models::chooseModelBackend(*kind, info, maxTokens, models::corpusRunOptions());
    if (!backend_.plan.note.empty()) fmt::print(stderr, "warning: {}\n", backend_.plan.note);
    models::CorpusConfig config{info.name, info.layers, info.heads, *measure, o_.top, maxTokens, o_.coverage};
    stats_ = models::CorpusStats(config);

    if (auto st = openOutput(); !st) return fail(st.error().message);
    if (complete_) {
      fmt::print(stderr, "{}: already complete ({} lines read)\n", o_.out, linesRead_);
      return 0;
    }
    if (auto st = process(); !st) return fail(st.error().message);
    const auto& c = stats_.counts();
    fmt::print(stderr, "{}: {} lines, {} sentences, {} tokens; {} lines split into chunks of {} tokens, {} skipped\n",
               o_.out, c.lines, c.sentences, c.tokens, c.splitLines, maxTokens, c.skippedLines);
    if (backend_.plan.onDevice)
      fmt::print(stderr, "{}: {} of the {} sentences run in this session ran on {}\n", o_.out, onDevice_,
                 sentencesRun_, backend_.device->description());
    return 0;
  }

 private:
  // Readable, and not empty: one non-empty line somewhere (a shard may still get none).
  Status checkCorpusFile() {
    std::error_code ec;
    if (!fs::is_regular_file(o_.textFile, ec))
      return Error{fmt::format("{}: {}", o_.textFile, fs::exists(o_.textFile, ec) ? "not a regular file" : "no such file")};
    std::ifstream in(o_.textFile, std::ios::binary);
    if (!in) return Error{fmt::format("{}: cannot open for reading", o_.textFile)};
    std::string line;
    while (std::getline(in, line))
      if (!trimmed(line).empty()) return okStatus();
    if (in.bad()) return Error{fmt::format("{}: read error", o_.textFile)};
    return Error{fmt::format("{}: empty corpus (no non-empty line)", o_.textFile)};
  }

  json stateDoc(bool complete) const {
    json j = json::parse(stats_.toJsonLine());
    json out{{"type", "corpus_stats"}, {"complete", complete}, {"lines_read", linesRead_},
             {"shard", shard_.text()},  {"text_file", o_.textFile}};
    out.update(j);
    return out;
  }

  Status writeState(bool complete) {
    const std::string line = stateDoc(complete).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), out_.get()) != line.size() || std::fflush(out_.get()) != 0)
      return Error{fmt::format("{}: write failed", o_.out)};
    return okStatus();
  }

  // Fresh: a new file with an empty state line. --resume: the file cut after its last
  // state line, whose accumulator and position are taken up again.
  Status openOutput() {
    std::optional<StateLine> last;
    if (o_.resume && fs::exists(o_.out)) {
      auto l = lastStateLine(o_.out);
      if (!l) return l.error();
      last = std::move(*l);
    }
    if (!last && o_.resume && fs::exists(o_.out) && fs::file_size(o_.out) > 0)
      return Error{fmt::format("{}: --resume: no corpus statistics line in it (use --force to start over)", o_.out)};
    if (last) {
      auto prev = models::CorpusStats::fromJsonLine(last->text, o_.out);
      if (!prev) return prev.error();
      const auto& a = prev->config();
      const auto& b = stats_.config();
      const std::string shard = last->doc.value("shard", "");
      if (a.model != b.model || a.layers != b.layers || a.heads != b.heads || a.measure != b.measure ||
          a.topK != b.topK || a.maxTokens != b.maxTokens || a.coverageLevel != b.coverageLevel || shard != shard_.text())
        return Error{fmt::format("{}: --resume: the file was written with other options (model {}, measure {}, top {}, "
                                 "max tokens {}, coverage {:g}, shard {})", o_.out, a.model, models::corpusMeasureName(a.measure),
                                 a.topK, a.maxTokens, a.coverageLevel, shard)};
      stats_ = std::move(prev).value();
      linesRead_ = last->doc.value("lines_read", int64_t{0});
      complete_ = last->doc.value("complete", false);
      std::error_code ec;
      fs::resize_file(o_.out, last->end, ec);
      if (ec) return Error{fmt::format("{}: cannot truncate after the last checkpoint: {}", o_.out, ec.message())};
      out_.reset(std::fopen(o_.out.c_str(), "ab"));
      if (!out_) return Error{fmt::format("{}: cannot open for appending", o_.out)};
      return okStatus();
    }
    out_.reset(std::fopen(o_.out.c_str(), "wb"));
    if (!out_) return Error{fmt::format("{}: cannot create", o_.out)};
    return writeState(false);
  }

  // A line encoded and split into chunks; measured with the rest of its batch.
  struct Pending {
    int64_t lineNo = 0;
    std::string text, skipReason;
    size_t first = 0, count = 0;  // its chunks in the batch's encodings
  };

  Pending prepare(std::string text, int64_t lineNo, std::vector<models::Encoding>& encodings) {
    Pending p{lineNo, std::move(text), "", encodings.size(), 0};
    auto enc = model_->encode(p.text, std::nullopt, fmt::format("{} line {}", o_.textFile, lineNo));
    if (!enc) {
      p.skipReason = enc.error().message;
      return p;
    }
    auto chunks = models::splitEncoding(*enc, stats_.config().maxTokens);
    if (!chunks) {
      p.skipReason = fmt::format("{} line {}: {}", o_.textFile, lineNo, chunks.error().message);
      return p;
    }
    p.count = chunks->size();
    for (auto& c : *chunks) encodings.push_back(std::move(c));
    return p;
  }

  // Measures the batch (several sentences at once), then adds its lines in order; every chunk
  // of a line is measured before any is added, so a line counts whole or not at all.
  Status flush(std::vector<Pending>& batch, std::vector<models::Encoding>& encodings, int64_t& sinceCheckpoint) {
    auto batchRun = models::measureSentencesOn(*model_, backend_, encodings, stats_.config().coverageLevel);
    const auto& measured = batchRun.sentences;
    onDevice_ += batchRun.onDevice;
    sentencesRun_ += static_cast<int64_t>(measured.size());
    if (!batchRun.note.empty() && !fallbackSaid_) {  // once, not once per sentence
      fmt::print(stderr, "warning: {}\n", batchRun.note);
      fallbackSaid_ = true;
    }
    for (auto& p : batch) {
      for (size_t k = 0; k < p.count && p.skipReason.empty(); ++k)
        if (!measured[p.first + k].error.empty())
          p.skipReason = fmt::format("{} line {}: {}", o_.textFile, p.lineNo, measured[p.first + k].error);
      if (!p.skipReason.empty()) {
        skip(p.skipReason);
      } else {
        for (size_t k = 0; k < p.count; ++k) {
          std::string shown = p.text;
          if (p.count > 1) {
            shown.clear();
            const auto& c = encodings[p.first + k];
            for (size_t t = 0; t < c.ids.size(); ++t)
              if (t >= c.special.size() || !c.special[t]) shown += model_->tokenizer().displayText(c.ids[t]);
          }
          if (auto st = stats_.add(measured[p.first + k].measures, p.lineNo, static_cast<int>(k), shown); !st) return st;
        }
        ++stats_.counts().lines;
        stats_.counts().splitLines += p.count > 1 ? 1 : 0;
      }
      linesRead_ = p.lineNo;
      if (++sinceCheckpoint >= o_.checkpointEvery) {
        if (auto st = writeState(false); !st) return st;
        sinceCheckpoint = 0;
      }
    }
    batch.clear();
    encodings.clear();
    return okStatus();
  }

  void skip(const std::string& why) {
    if (++stats_.counts().skippedLines <= 5) fmt::print(stderr, "warning: skipped: {}\n", why);
  }

  int64_t countLines() const {
    std::ifstream in(o_.textFile, std::ios::binary);
    int64_t n = 0;
    std::string line;
    while (std::getline(in, line)) ++n;
    return n;
  }

  Status process() {
    std::ifstream in(o_.textFile, std::ios::binary);
    if (!in) return Error{fmt::format("{}: cannot open for reading", o_.textFile)};
    const bool tty = stderrIsTerminal();
    const int64_t total = tty ? countLines() : 0;
    const auto start = std::chrono::steady_clock::now();
    const int64_t startSentences = stats_.counts().sentences, startLine = linesRead_;
    auto lastShown = start;
    constexpr size_t kBatch = 16;  // lines measured together: constant memory, both cores busy
    std::vector<Pending> batch;
    std::vector<models::Encoding> encodings;
    std::string line;
    int64_t lineNo = 0, sinceCheckpoint = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (lineNo <= linesRead_ || !shard_.takes(lineNo) || trimmed(line).empty()) continue;
      if (line.back() == '\r') line.pop_back();
      batch.push_back(prepare(std::move(line), lineNo, encodings));
      line.clear();
      if (batch.size() < kBatch) continue;
      if (auto st = flush(batch, encodings, sinceCheckpoint); !st) return st;
      const auto now = std::chrono::steady_clock::now();
      if (tty && now - lastShown > std::chrono::milliseconds(500)) {
        lastShown = now;
        const double s = std::chrono::duration<double>(now - start).count();
        const double rate = static_cast<double>(stats_.counts().sentences - startSentences) / s;
        const double linesPerS = static_cast<double>(lineNo - startLine) / s;
        fmt::print(stderr, "\r{} / {} lines, {:.1f} sentences/s, {} left   ", lineNo, total, rate,
                   formatSeconds(static_cast<double>(total - lineNo) / linesPerS));
      }
    }
    if (auto st = flush(batch, encodings, sinceCheckpoint); !st) return st;
    if (in.bad()) return Error{fmt::format("{}: read error after line {}", o_.textFile, lineNo)};
    if (tty) fmt::print(stderr, "\r{:70}\r", "");
    linesRead_ = lineNo;
    return writeState(true);
  }

  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const CorpusOptions& o_;
  Shard shard_;
  std::shared_ptr<const models::Model> model_;
  models::ModelBackend backend_;  // the CPU unless --backend cuda|auto planned the device
  bool fallbackSaid_ = false;
  int64_t onDevice_ = 0, sentencesRun_ = 0;  // this session's sentences: on the device, in all
  models::CorpusStats stats_;
  std::unique_ptr<std::FILE, FileCloser> out_;
  int64_t linesRead_ = 0;
  bool complete_ = false;
};

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool force = false;
};

int mergeShards(const MergeOptions& o) {
  if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  struct Part {
    models::CorpusStats stats;
    Shard shard;
    int64_t linesRead = 0;
    std::string textFile, name;
  };
  std::vector<Part> parts;
  for (const auto& path : o.inputs) {
    if (!fs::is_regular_file(path)) return fail(fmt::format("{}: no such file", path));
    auto last = lastStateLine(path);
    if (!last) return fail(last.error().message);
    if (!*last) return fail(fmt::format("{}: no corpus statistics line (not an `attnscope-cli corpus` output)", path));
    const auto& doc = (*last)->doc;
    if (!doc.value("complete", false))
      return fail(fmt::format("{}: the run is incomplete (continue it with `corpus --resume` first)", path));
    auto s = models::CorpusStats::fromJsonLine((*last)->text, path);
    if (!s) return fail(s.error().message);
    auto shard = parseShard(doc.value("shard", "1/1"));
    if (!shard) return fail(fmt::format("{}: {}", path, shard.error().message));
    parts.push_back({std::move(s).value(), *shard, doc.value("lines_read", int64_t{0}), doc.value("text_file", ""), path});
  }
  // A fixed order (by shard index), so the same shards always merge to the same sums.
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.shard.index < b.shard.index; });
  for (size_t k = 1; k < parts.size(); ++k) {
    if (parts[k].shard.count != parts[0].shard.count)
      return fail(fmt::format("{}: shard {} does not belong with {}'s shard {}", parts[k].name, parts[k].shard.text(),
                              parts[0].name, parts[0].shard.text()));
    if (parts[k].shard.index == parts[k - 1].shard.index && parts[0].shard.count > 1)
      return fail(fmt::format("{} and {}: both are shard {}", parts[k - 1].name, parts[k].name, parts[k].shard.text()));
  }
  models::CorpusStats all = parts[0].stats;
  int64_t linesRead = parts[0].linesRead;
  for (size_t k = 1; k < parts.size(); ++k) {
    if (auto st = all.merge(parts[k].stats); !st) return fail(fmt::format("{}: {}", parts[k].name, st.error().message));
    linesRead = std::max(linesRead, parts[k].linesRead);
  }
  std::string shards;
  for (const auto& p : parts) shards += (shards.empty() ? "" : ",") + p.shard.text();
  if (parts[0].shard.count > 1 && static_cast<int64_t>(parts.size()) < parts[0].shard.count)
    fmt::print(stderr, "warning: {} of {} shards merged ({})\n", parts.size(), parts[0].shard.count, shards);
  json out{{"type", "corpus_stats"}, {"complete", true},          {"lines_read", linesRead},
           {"shard", "1/1"},         {"merged_shards", shards},  {"text_file", parts[0].textFile}};
  out.update(json::parse(all.toJsonLine()));
  if (auto st = writeFileAtomic(o.out, out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"); !st)
    return fail(st.error().message);
  fmt::print(stderr, "{}: {} shard outputs merged: {} lines, {} sentences\n", o.out, parts.size(), all.counts().lines,
             all.counts().sentences);
  return 0;
}

}  // namespace

Action addCorpusCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("corpus", "Per-head measures averaged over a corpus, one line per sentence");
  auto o = std::make_shared<CorpusOptions>();
  cmd->add_option("--model", o->modelDir, "Hugging Face model folder (or cache directory)")->required();
  cmd->add_option("--text-file", o->textFile, "UTF-8 corpus, one sentence per line (empty lines skipped)")->required();
  cmd->add_option("--out", o->out, "Statistics as JSON lines (.jsonl); the last line is the result")->required();
  cmd->add_option("--max-tokens", o->maxTokens, "Longer lines are split into chunks of this many tokens "
                                                "(default: the model's context)");
  cmd->add_option("--measure", o->measure, "Measure ranking each head's top sentences: " + models::corpusMeasureList())
      ->capture_default_str();
  cmd->add_option("--top", o->top, "Top sentences kept per head")->capture_default_str();
  cmd->add_option("--coverage", o->coverage, "coverage_k: share of a row's mass its k largest weights cover")
      ->capture_default_str();
  cmd->add_option("--shard", o->shard, "Process lines i, i+n, i+2n, ... (1-based i/n), for parallel runs merged "
                                       "with corpus-merge")
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", o->checkpointEvery, "Write a resumable state line every this many lines")
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "Backend: cpu, cuda, auto")->capture_default_str();
  cmd->add_flag("--resume", o->resume, "Continue --out after its last state line");
  cmd->add_flag("--force", o->force, "Overwrite an existing --out file");

  auto* merge = app.add_subcommand("corpus-merge", "Combine `corpus --shard` outputs into the result of one run");
  auto m = std::make_shared<MergeOptions>();
  merge->add_option("INPUTS", m->inputs, "Shard outputs (.jsonl)")->required();
  merge->add_option("--out", m->out, "Merged statistics (.jsonl)")->required();
  merge->add_flag("--force", m->force, "Overwrite an existing --out file");
  return [cmd, merge, o, m]() -> int {
    if (cmd->parsed()) return CorpusRun(*o).exec();
    if (merge->parsed()) return mergeShards(*m);
    return -1;
  };
}

}  // namespace attn::cli
