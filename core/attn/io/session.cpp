#include "attn/io/session.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "attn/io/atomic_file.h"
#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"

namespace attn {
namespace {

using json = nlohmann::json;

std::string_view quantityCheck(std::string_view q) {
  for (std::string_view ok : {"weights", "scaled_logits", "raw_logits", "mask"})
    if (q == ok) return ok;
  return {};
}

// Reads optional typed fields of one object, naming "section.field" on error.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string_view source, std::string_view section)
      : obj_(obj), source_(source), section_(section) {}

  Status string(const char* key, std::string& out) const {
    if (!obj_.contains(key)) return okStatus();
    const json& v = obj_[key];
    if (!v.is_string()) return fail(key, fmt::format("must be a string (got {})", jsonExcerpt(v)));
    out = v.get<std::string>();
    return okStatus();
  }

  Status integer(const char* key, long long lo, long long hi, long long& out) const {
    if (!obj_.contains(key)) return okStatus();
    const json& v = obj_[key];
    if (!v.is_number_integer()) return fail(key, fmt::format("must be an integer (got {})", jsonExcerpt(v)));
    const long long x = v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                            ? hi + 1
                            : v.get<long long>();
    if (x < lo || x > hi)
      return fail(key, fmt::format("must be in [{}, {}] (got {})", lo, hi, jsonExcerpt(v)));
    out = x;
    return okStatus();
  }

  Status number(const char* key, double& out) const {
    if (!obj_.contains(key)) return okStatus();
    const json& v = obj_[key];
    if (!v.is_number()) return fail(key, fmt::format("must be a number (got {})", jsonExcerpt(v)));
    out = v.get<double>();
    return okStatus();
  }

  Error fail(std::string_view key, std::string_view what) const {
    return Error{fmt::format("{}: {}.{} {}", source_, section_, key, what)};
  }

 private:
  const json& obj_;
  std::string_view source_, section_;
};

// The custom term's keep bitmap as rows of '0'/'1' (readable, diffable); the
// first custom term's, as Mask::withCustom gives every custom term the same one.
json customMaskToJson(const Mask& m) {
  for (const auto& t : m.terms()) {
    if (t.kind != MaskTerm::Kind::Custom || !t.keep) continue;
    json rows = json::array();
    for (int i = 0; i < t.rows; ++i) {
      std::string row(static_cast<size_t>(t.cols), '0');
      for (int j = 0; j < t.cols; ++j)
        if ((*t.keep)[static_cast<size_t>(i) * t.cols + j]) row[static_cast<size_t>(j)] = '1';
      rows.push_back(std::move(row));
    }
    return {{"rows", t.rows}, {"cols", t.cols}, {"keep", std::move(rows)}};
  }
  return nullptr;
}

// Reads config.custom_mask back into the spec's custom term(s).
Status customMaskFromJson(const json& cf, std::string_view source, Mask& mask) {
  if (!cf.contains("custom_mask") || cf["custom_mask"].is_null()) return okStatus();
  auto fail = [&](std::string_view what) {
    return Error{fmt::format("{}: config.custom_mask{}", source, what)};
  };
  const json& cm = cf["custom_mask"];
  if (!cm.is_object()) return fail(" must be an object {rows, cols, keep}");
  FieldReader r(cm, source, "config.custom_mask");
  long long rows = -1, cols = -1;
  if (auto st = r.integer("rows", 1, 1 << 16, rows); !st) return st;
  if (auto st = r.integer("cols", 1, 1 << 16, cols); !st) return st;
  if (rows < 0 || cols < 0) return fail(": rows and cols are required");
  if (!cm.contains("keep") || !cm["keep"].is_array()) return fail(".keep must be an array of rows of '0'/'1'");
  const json& keep = cm["keep"];
  if (static_cast<long long>(keep.size()) != rows)
    return fail(fmt::format(".keep has {} rows but rows is {}", keep.size(), rows));
  std::vector<uint8_t> bits(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i].is_string()) return fail(fmt::format(".keep[{}] must be a string of '0'/'1'", i));
    const std::string& row = keep[i].get_ref<const std::string&>();
    if (static_cast<long long>(row.size()) != cols)
      return fail(fmt::format(".keep[{}] has {} characters but cols is {}", i, row.size(), cols));
    for (size_t j = 0; j < row.size(); ++j) {
      if (row[j] != '0' && row[j] != '1')
        return fail(fmt::format(".keep[{}] has {} at column {} (only '0' and '1')", i,
                                quoteForMessage(std::string_view(&row[j], 1)), j));
      bits[i * static_cast<size_t>(cols) + j] = row[j] == '1';
    }
  }
  // A bitmap with no "custom" term in the spec is left out, as the spec is what runs.
  for (const auto& t : mask.terms())
    if (t.kind == MaskTerm::Kind::Custom) {
      mask = mask.withCustom(std::move(bits), static_cast<int>(rows), static_cast<int>(cols));
      break;
    }
  return okStatus();
}

}  // namespace

std::string sessionToJson(const Session& s) {
  const AttentionSpec& c = s.spec;
  json j;
  j["format"] = "attnscope-session";
  j["version"] = kSessionVersion;
  j["input"] = {{"text", s.input.text},
                {"key_text", s.input.keyText},
                {"tokenizer", s.input.tokenizer},
                {"file", s.input.file}};
  if (!s.input.model.empty()) j["input"]["model"] = s.input.model;  // older readers ignore it
  j["config"] = {{"mechanism", std::string(mechanismName(c.mechanism))},
                 {"heads", c.heads},
                 {"d_model", c.dModel},
                 {"d_k", c.dK},
                 {"hidden", c.hidden},
                 {"temperature", c.temperature},
                 {"mask", c.mask.spec()},
                 {"positional", std::string(positionalName(c.positional))},
                 {"init", std::string(initSchemeName(c.init))},
                 {"seed", c.seed},
                 {"exec", std::string(execPathName(c.exec))},
                 {"backend", std::string(backendName(c.backend))}};
  if (c.deviceInputs != DeviceInputs::F32)  // older files have none: fp32
    j["config"]["gpu_inputs"] = std::string(deviceInputsName(c.deviceInputs));
  if (json custom = customMaskToJson(c.mask); !custom.is_null()) j["config"]["custom_mask"] = std::move(custom);
  j["view"] = {{"head", s.view.head},
               {"pinned_row", s.view.pinnedRow},
               {"quantity", s.view.quantity},
               {"colormap", s.view.colormap}};
  if (s.view.layer != 0) j["view"]["layer"] = s.view.layer;
  // Invalid UTF-8 in text is replaced rather than aborting the save.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<Session> sessionFromJson(std::string_view text, std::string_view source) {
  auto parsed = parseJsonText(text, source);
  if (!parsed) return parsed.error();
  json& j = *parsed;
  if (!j.is_object()) return Error{fmt::format("{}: a session must be a JSON object", source)};
  // j.value() would throw type_error for a non-string 'format' (fuzz finding).
  if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != "attnscope-session")
    return Error{fmt::format("{}: field 'format' must be \"attnscope-session\"", source)};
  if (!j.contains("version") || !j["version"].is_number_integer())
    return Error{fmt::format("{}: field 'version' is missing or not an integer", source)};
  if (j["version"].get<long long>() > kSessionVersion || j["version"].get<long long>() < 1)
    return Error{fmt::format("{}: session version {} is not supported (this build reads 1..{})", source,
                             j["version"].dump(), kSessionVersion)};  // an integer: checked above
  for (const char* sec : {"input", "config", "view"})
    if (j.contains(sec) && !j[sec].is_object())
      return Error{fmt::format("{}: field '{}' must be an object", source, sec)};

  Session s;
  static const json empty = json::object();
  const json& in = j.contains("input") ? j["input"] : empty;
  const json& cf = j.contains("config") ? j["config"] : empty;
  const json& vw = j.contains("view") ? j["view"] : empty;

  FieldReader ri(in, source, "input");
  for (auto [key, out] : {std::pair{"text", &s.input.text}, {"key_text", &s.input.keyText},
                          {"tokenizer", &s.input.tokenizer}, {"file", &s.input.file},
                          {"model", &s.input.model}})
    if (auto st = ri.string(key, *out); !st) return st.error();

  FieldReader rc(cf, source, "config");
  AttentionSpec& c = s.spec;
  std::string name;
  auto named = [&](const char* key, auto parse, auto& field) -> Status {
    name.clear();
    if (auto st = rc.string(key, name); !st) return st;
    if (name.empty()) return okStatus();
    auto v = parse(name);
    if (!v) return rc.fail(key, fmt::format("has unknown value {}", quoteForMessage(name)));
    field = *v;
    return okStatus();
  };
  if (auto st = named("mechanism", parseMechanism, c.mechanism); !st) return st.error();
  if (auto st = named("positional", parsePositional, c.positional); !st) return st.error();
  if (auto st = named("init", parseInitScheme, c.init); !st) return st.error();
  if (auto st = named("exec", parseExecPath, c.exec); !st) return st.error();
  if (auto st = named("backend", parseBackend, c.backend); !st) return st.error();
  if (auto st = named("gpu_inputs", parseDeviceInputs, c.deviceInputs); !st) return st.error();
  long long v = 0;
  v = c.heads;
  if (auto st = rc.integer("heads", 1, 4096, v); !st) return st.error();
  c.heads = static_cast<int>(v);
  v = c.dModel;
  if (auto st = rc.integer("d_model", 1, 1 << 16, v); !st) return st.error();
  c.dModel = static_cast<int>(v);
  v = c.dK;
  if (auto st = rc.integer("d_k", 0, 1 << 16, v); !st) return st.error();
  c.dK = static_cast<int>(v);
  v = c.hidden;
  if (auto st = rc.integer("hidden", 0, 1 << 16, v); !st) return st.error();
  c.hidden = static_cast<int>(v);
  v = static_cast<long long>(c.seed);
  if (auto st = rc.integer("seed", 0, std::numeric_limits<long long>::max(), v); !st) return st.error();
  c.seed = static_cast<uint64_t>(v);
  double t = c.temperature;
  if (auto st = rc.number("temperature", t); !st) return st.error();
  if (!(t > 0.0) || !std::isfinite(t) || t > 1e6)
    return rc.fail("temperature", fmt::format("must be a positive number (got {})", t));
  c.temperature = static_cast<float>(t);
  std::string mask = "none";
  if (auto st = rc.string("mask", mask); !st) return st.error();
  auto m = Mask::parse(mask);
  if (!m) return rc.fail("mask", m.error().message);
  c.mask = *m;
  if (auto st = customMaskFromJson(cf, source, c.mask); !st) return st.error();

  FieldReader rv(vw, source, "view");
  v = s.view.head;
  if (auto st = rv.integer("head", 0, 4095, v); !st) return st.error();
  s.view.head = static_cast<int>(v);
  v = s.view.pinnedRow;
  if (auto st = rv.integer("pinned_row", -1, std::numeric_limits<int>::max(), v); !st) return st.error();
  s.view.pinnedRow = static_cast<int>(v);
  v = s.view.layer;
  if (auto st = rv.integer("layer", 0, 4095, v); !st) return st.error();
  s.view.layer = static_cast<int>(v);
  if (auto st = rv.string("quantity", s.view.quantity); !st) return st.error();
  if (quantityCheck(s.view.quantity).empty())
    return rv.fail("quantity", fmt::format("has unknown value {} (weights, scaled_logits, raw_logits, mask)",
                                           quoteForMessage(s.view.quantity)));
  if (auto st = rv.string("colormap", s.view.colormap); !st) return st.error();
  return s;
}

Status saveSession(const std::string& path, const Session& s) {
  return writeFileAtomic(path, sessionToJson(s));
}

Result<Session> loadSession(const std::string& path) {
  auto text = readRegularFile(path, file_limit::kSession);
  if (!text) return text.error();
  return sessionFromJson(*text, path);
}

}  // namespace attn
