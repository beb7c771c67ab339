#include "attn/io/json_document.h"

#include <fmt/format.h>

#include "attn/io/quote.h"
#include "attn/io/text_file.h"

namespace attn {

Status checkJsonNesting(std::string_view text, std::string_view source, int maxDepth) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return Error{fmt::format("{}: JSON nested deeper than {} levels (at byte {})", source, maxDepth, i)};
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;  // unbalanced closers are the parser's to report
    }
  }
  return okStatus();
}

Result<nlohmann::json> parseJsonText(std::string_view text, std::string_view source, int maxDepth) {
  if (auto st = checkJsonNesting(text, source, maxDepth); !st) return st.error();
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 2: why"
    std::string_view why(e.what());
    if (const size_t at = why.find(": "); at != std::string_view::npos) why.remove_prefix(at + 2);
    return Error{fmt::format("{}: not valid JSON (byte {}): {}", source, e.byte, quoteForMessage(why, 160))};
  } catch (const nlohmann::json::exception&) {  // out_of_range: a number such as 1e400 overflows a double
    return Error{fmt::format("{}: not valid JSON (a number is out of range)", source)};
  }
}

Result<nlohmann::json> readJsonFile(const std::string& path, int64_t maxBytes, int maxDepth) {
  auto text = readUtf8TextFile(path, maxBytes);
  if (!text) return text.error();
  return parseJsonText(*text, path, maxDepth);
}

std::string jsonExcerpt(const nlohmann::json& value, size_t maxBytes) {
  if (value.is_array()) return fmt::format("an array of {} items", value.size());
  if (value.is_object()) return fmt::format("an object of {} keys", value.size());
  // A scalar's dump is linear in its length (no recursion); the quote shortens it.
  return quoteForMessage(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), maxBytes);
}

}  // namespace attn
