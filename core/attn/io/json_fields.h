#pragma once
// Typed, bounded fields of a JSON object (a model's config.json, generation_config.json):
// each look-up checks the value's type and range, and every error names the file and the key.
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "attn/io/json_document.h"
#include "attn/status.h"

namespace attn {

struct JsonFields {
  const nlohmann::json& doc;
  const std::string& src;

  const nlohmann::json* find(std::string_view key) const {
    auto it = doc.find(std::string(key));
    return it == doc.end() || it->is_null() ? nullptr : &*it;
  }
  Result<int> integer(std::string_view key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) const {
    const nlohmann::json* v = find(key);
    if (!v) {
      if (fallback) return static_cast<int>(*fallback);
      return Error{fmt::format("{}: missing '{}'", src, key)};
    }
    if (!v->is_number_integer())
      return Error{fmt::format("{}: '{}' must be an integer, not {}", src, key, jsonExcerpt(*v))};
    const auto x = v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                       ? INT64_MAX
                       : v->get<int64_t>();
    if (x < lo || x > hi) return Error{fmt::format("{}: '{}' is {}, expected {} to {}", src, key, x, lo, hi)};
    return static_cast<int>(x);
  }
  Result<double> number(std::string_view key, double fallback, double lo, double hi) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number())
      return Error{fmt::format("{}: '{}' must be a number, not {}", src, key, jsonExcerpt(*v))};
    const double x = v->get<double>();
    if (!(x >= lo && x <= hi))
      return Error{fmt::format("{}: '{}' is {}, expected {} to {}", src, key, x, lo, hi)};
    return x;
  }
  Result<bool> boolean(std::string_view key, bool fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) return Error{fmt::format("{}: '{}' must be true or false", src, key)};
    return v->get<bool>();
  }
  Result<std::string> string(std::string_view key, std::string fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) return Error{fmt::format("{}: '{}' must be a string", src, key)};
    return v->get<std::string>();
  }
};

}  // namespace attn
