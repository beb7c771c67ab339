#include "attn/models/weight_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "attn/io/float_convert.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/models/finite_scan.h"
#include "attn/models/model_paths.h"

#if defined(__F16C__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <cstring>

namespace attn::models {
namespace {

namespace fs = std::filesystem;

std::string shapeText(const std::vector<int64_t>& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

void convertF16(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
#endif
  for (; i < n; ++i) dst[i] = halfToFloat(src[i]);
}

struct Located {
  const SafetensorsFile* file = nullptr;
  const SafetensorsEntry* entry = nullptr;
};

struct Pending {
  Located at;
  WeightTensor* dest = nullptr;
  bool keepBf16 = false;  // a BF16 matrix stays in the mapping (see model_weights.h)
};

}  // namespace

class WeightLoader::Impl {
 public:
  Impl(const ModelConfig& c, std::string source) : cfg_(c), source_(std::move(source)) {}

  Status add(std::shared_ptr<SafetensorsFile> f) {
    for (const auto& e : f->entries()) {
      auto [it, fresh] = byName_.emplace(e.name, Located{f.get(), &e});
      if (!fresh)
        return Error{fmt::format("{}: tensor {} is also in {}", f->path(), quoteForMessage(e.name),
                                 it->second.file->path())};
    }
    out_.files.push_back(f->path());
    out_.mapped.push_back(std::move(f));
    return okStatus();
  }

  /// The prefix the checkpoint's names carry (BertForMaskedLM "bert.", GPT2LMHeadModel "transformer.", ...).
  Status choosePrefix(const std::string& probe, const std::vector<std::string>& prefixes) {
    for (const auto& p : prefixes)
      if (byName_.count(p + probe)) {
        prefix_ = p;
        return okStatus();
      }
    std::vector<std::string> tried;
    for (const auto& p : prefixes) tried.push_back(quoteForMessage(p + probe));
    return Error{
        fmt::format("{}: no tensor {} for the {} model config.json describes (is this the right "
                    "folder?)",
                    source_, fmt::join(tried, " or "), cfg_.modelType)};
  }

  /// Whether the files hold `full` (no prefix added).
  bool has(const std::string& full) const { return byName_.count(full) != 0; }

  /// Queues `name` (after the prefix unless `bare`) with the shape the config implies.
  Status need(WeightTensor& dest, const std::string& name, std::vector<int64_t> shape, bool bare = false,
              bool keepBf16 = false) {
    const std::string full = (bare ? "" : prefix_) + name;
    auto it = byName_.find(full);
    // Older BERT checkpoints name LayerNorm parameters gamma / beta (TF-era conversions).
    if (it == byName_.end() && full.find("LayerNorm.") != std::string::npos) {
      std::string legacy = full;
      if (legacy.ends_with(".weight"))
        legacy.replace(legacy.size() - 6, 6, "gamma");
      else if (legacy.ends_with(".bias"))
        legacy.replace(legacy.size() - 4, 4, "beta");
      it = byName_.find(legacy);
    }
    if (it == byName_.end())
      return Error{fmt::format("{}: tensor {} is missing (config.json: {} with {} layers, d_model {})",
                               source_, quoteForMessage(full), cfg_.modelType, cfg_.layers, cfg_.dModel)};
    const SafetensorsEntry& e = *it->second.entry;
    if (e.dtype != "F32" && e.dtype != "F16" && e.dtype != "BF16")
      return Error{fmt::format("{}: tensor {} has dtype {}; model weights must be F32, F16 or BF16",
                               it->second.file->path(), quoteForMessage(e.name), e.dtype)};
    if (e.shape != shape)
      return Error{fmt::format("{}: tensor {} has shape {} but config.json needs {}", it->second.file->path(),
                               quoteForMessage(e.name), shapeText(e.shape), shapeText(shape))};
    // Rows by the first axis (a Conv2d kernel [out, C, P, P] becomes [out, C*P*P]); a vector is one row.
    dest.rows = shape.size() >= 2 ? shape[0] : 1;
    dest.cols = 1;
    for (size_t i = shape.size() >= 2 ? 1 : 0; i < shape.size(); ++i) dest.cols *= shape[i];
    pending_.push_back({it->second, &dest, keepBf16 && shape.size() == 2});
    return okStatus();
  }
  Status needLinear(LinearWeight& l, const std::string& name, int64_t in, int64_t out, bool bias,
                    bool conv1d) {
    l.inOut = conv1d;
    // nn.Linear [out, in] stays BF16 (linear() converts panels of output rows); Conv1D is converted.
    if (auto st =
            need(l.w, name + ".weight",
                 conv1d ? std::vector<int64_t>{in, out} : std::vector<int64_t>{out, in}, false, !conv1d);
        !st)
      return st;
    return bias ? need(l.b, name + ".bias", {out}) : okStatus();
  }
  Status needNorm(NormWeight& n, const std::string& name, bool bias) {
    if (auto st = need(n.gamma, name + ".weight", {cfg_.dModel}); !st) return st;
    return bias ? need(n.beta, name + ".bias", {cfg_.dModel}) : okStatus();
  }

  /// Points every queued tensor at its data, converting F16/BF16 to f32.
  Status materialize(const ProgressFn& progress) {
    int64_t total = 0, done = 0;
    for (const auto& p : pending_) total += p.at.entry->end - p.at.entry->begin;
    std::unordered_map<const SafetensorsEntry*, const WeightTensor*> seen;  // a tied tensor is loaded once
    std::set<std::string> dtypes;
    std::vector<FiniteSpan> checks;
    std::vector<const Pending*> checked;
    for (const auto& p : pending_) {
      const SafetensorsEntry& e = *p.at.entry;
      if (auto it = seen.find(&e); it != seen.end()) {
        p.dest->data = it->second->data;
        p.dest->bf16 = it->second->bf16;
        continue;
      }
      const int64_t n = p.dest->rows * p.dest->cols;
      out_.parameters += n;
      dtypes.insert(e.dtype);
      const std::string_view bytes = p.at.file->bytes(e);
      const bool aligned = reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) == 0;
      if (e.dtype == "F32" && aligned) {
        p.dest->data = reinterpret_cast<const float*>(bytes.data());
      } else if (e.dtype == "BF16" && p.keepBf16) {
        p.dest->bf16 = bytes.data();
      } else {
        FloatBuffer buf = allocateWeightBuffer(n);
        if (!buf)
          return Error{fmt::format("{}: tensor {}: out of memory converting {} MB of {} weights to f32",
                                   p.at.file->path(), quoteForMessage(e.name), n * 4 >> 20, e.dtype)};
        float* dst = buf.get();
        const char* src = bytes.data();
        const std::string dtype = e.dtype;
        constexpr int64_t kChunk = int64_t{1} << 16;
        const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 4)
        for (int64_t c = 0; c < chunks; ++c) {
          const int64_t i0 = c * kChunk, m = std::min(kChunk, n - i0);
          if (dtype == "F32") {
            std::memcpy(dst + i0, src + i0 * 4, static_cast<size_t>(m) * 4);
          } else {
            // The mapping may not be 2-byte aligned either: copy through an aligned scratch.
            uint16_t tmp[4096];
            for (int64_t j = 0; j < m; j += 4096) {
              const int64_t k = std::min<int64_t>(4096, m - j);
              std::memcpy(tmp, src + (i0 + j) * 2, static_cast<size_t>(k) * 2);
              if (dtype == "F16")
                convertF16(tmp, dst + i0 + j, k);
              else
                bf16ToFloat(reinterpret_cast<const char*>(tmp), dst + i0 + j, k);
            }
          }
        }
        p.at.file->release(e);
        p.dest->data = dst;
        out_.converted.push_back(std::move(buf));
      }
      FiniteSpan span;
      span.f32 = p.dest->bf16 ? nullptr : p.dest->data;
      span.bf16 = p.dest->bf16;
      span.n = n;
      checks.push_back(span);
      checked.push_back(&p);
      seen.emplace(&e, p.dest);
      done += e.end - e.begin;
      if (progress && !progress(total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0,
                                "converting weights"))
        return Error{source_ + ": cancelled"};
    }
    if (auto st = checkFinite(checks, checked); !st) return st;
    out_.dtype = dtypes.size() == 1 ? *dtypes.begin() : dtypes.empty() ? "F32" : "mixed";
    return okStatus();
  }

  ModelWeights& out() { return out_; }

 private:
  /// A NaN or Inf weight would spread through every later layer (or, clamped, look like a fully
  /// masked row): refused here, with the first such tensor named. Files scanned before and
  /// unchanged since are not read again (verified_weights.h).
  Status checkFinite(const std::vector<FiniteSpan>& checks, const std::vector<const Pending*>& checked) {
    WeightsIdentity id;
    for (const auto& f : out_.mapped) id.files.push_back(f->stamp());
    uint64_t h = kDigestStart;
    int64_t bytes = 0;
    for (const Pending* p : checked) {
      const SafetensorsEntry& e = *p->at.entry;
      uint64_t file = 0;
      while (file < out_.mapped.size() && out_.mapped[file].get() != p->at.file) ++file;
      const int64_t range[2] = {e.begin, e.end};
      h = digestStep(h, &file, sizeof file);
      h = digestStep(h, e.name.data(), e.name.size() + 1);  // with the terminator: names stay apart
      h = digestStep(h, e.dtype.data(), e.dtype.size() + 1);
      h = digestStep(h, range, sizeof range);
      bytes += e.end - e.begin;
    }
    id.tensors = h;
    const auto bad = firstNonFinite(checks, id, bytes);
    if (!bad) return okStatus();
    const Pending& p = *checked[bad->span];
    return Error{fmt::format("{}: tensor {} has {} non-finite values (NaN or Inf) among its {}",
                             p.at.file->path(), quoteForMessage(p.at.entry->name), bad->count,
                             checks[bad->span].n)};
  }

  const ModelConfig& cfg_;
  std::string source_;  // the safetensors file, or the index for shards
  std::string prefix_;
  std::unordered_map<std::string, Located> byName_;
  std::vector<Pending> pending_;
  ModelWeights out_;
};

WeightLoader::WeightLoader(const ModelConfig& c, std::string source)
    : impl_(std::make_unique<Impl>(c, std::move(source))) {}
WeightLoader::~WeightLoader() = default;
Status WeightLoader::add(std::shared_ptr<SafetensorsFile> f) { return impl_->add(std::move(f)); }
Status WeightLoader::choosePrefix(const std::string& probe, const std::vector<std::string>& prefixes) {
  return impl_->choosePrefix(probe, prefixes);
}
bool WeightLoader::has(const std::string& full) const { return impl_->has(full); }
Status WeightLoader::need(WeightTensor& dest, const std::string& name, std::vector<int64_t> shape, bool bare,
                          bool keepBf16) {
  return impl_->need(dest, name, std::move(shape), bare, keepBf16);
}
Status WeightLoader::needLinear(LinearWeight& l, const std::string& name, int64_t in, int64_t out, bool bias,
                                bool conv1d) {
  return impl_->needLinear(l, name, in, out, bias, conv1d);
}
Status WeightLoader::needNorm(NormWeight& n, const std::string& name, bool bias) {
  return impl_->needNorm(n, name, bias);
}
Status WeightLoader::materialize(const ProgressFn& progress) { return impl_->materialize(progress); }
ModelWeights& WeightLoader::out() { return impl_->out(); }

Result<std::unique_ptr<WeightLoader>> openWeightFiles(const std::string& dir, const ModelConfig& cfg,
                                                      const ProgressFn& progress) {
  const fs::path d(dir);
  const fs::path single = d / "model.safetensors", index = d / "model.safetensors.index.json";
  std::error_code ec;
  std::vector<std::string> files;
  std::string source;
  if (fs::exists(single, ec)) {
    if (auto st = checkModelFilePath(dir, single.string()); !st) return st.error();
    files.push_back(single.string());
    source = single.string();
  } else if (fs::exists(index, ec)) {
    source = index.string();
    if (auto st = checkModelFilePath(dir, source); !st) return st.error();
    auto text = readRegularFile(source, file_limit::kShardIndex);
    if (!text) return text.error();
    auto shards = parseSafetensorsIndex(*text, source);
    if (!shards) return shards.error();
    for (const auto& s : *shards) {
      if (!fs::exists(fs::symlink_status(d / s, ec)))  // a FIFO or device is refused when opened
        return Error{fmt::format("{}: shard {} is missing ({} not found)", source, quoteForMessage(s),
                                 (d / s).string())};
      if (auto st = checkModelFilePath(dir, (d / s).string()); !st) return st.error();
      files.push_back((d / s).string());
    }
  } else {
    const bool bin =
        fs::exists(d / "pytorch_model.bin", ec) || fs::exists(d / "pytorch_model.bin.index.json", ec);
    return Error{fmt::format("{}: no such file{}", single.string(),
                             bin ? " (only PyTorch .bin weights found: convert them to safetensors)"
                                 : " (nor model.safetensors.index.json)")};
  }
  auto l = std::make_unique<WeightLoader>(cfg, source);
  for (size_t i = 0; i < files.size(); ++i) {
    if (progress && !progress(0.0, "mapping weights")) return Error{source + ": cancelled"};
    auto f = SafetensorsFile::open(files[i]);
    if (!f) return f.error();
    if (auto st = l->add(std::move(*f)); !st) return st.error();
  }
  return l;
}

}  // namespace attn::models
