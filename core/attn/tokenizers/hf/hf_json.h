#pragma once
// Lenient field reads for tokenizer.json: a missing or mistyped optional field
// takes the library's default instead of throwing (nlohmann's get<> would).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace attn::models::hfjson {

/// Largest token id accepted from a file: ids are ints here (the library's are u32);
/// one past it must still fit.
inline constexpr int64_t kMaxTokenId = 0x7FFFFFFE;

/// Deepest nesting of Sequence normalizers, pre-tokenizers or post-processors
/// accepted: the library's own files nest one level; each level is a stack frame
/// of the loader here and of every call at encode time.
inline constexpr int kMaxSequenceDepth = 8;

inline std::string str(const nlohmann::json& j, const char* key, std::string fallback = {}) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

inline bool boolean(const nlohmann::json& j, const char* key, bool fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

inline bool hasString(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return false;
  const auto it = j.find(key);
  return it != j.end() && it->is_string();
}

}  // namespace attn::models::hfjson
