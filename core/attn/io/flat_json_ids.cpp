#include "attn/io/flat_json_ids.h"

#include "attn/io/utf8.h"

namespace attn {
namespace {

class FlatReader {
 public:
  explicit FlatReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void skipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool take(char c) {
    skipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool atEnd() {
    skipSpace();
    return p_ == end_;
  }

  /// A JSON string (RFC 8259 section 7) into out, its escapes decoded.
  bool string(std::string& out) {
    out.clear();
    if (!take('"')) return false;
    for (;;) {
      const char* run = p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) ++p_;
      out.append(run, static_cast<size_t>(p_ - run));
      if (p_ == end_ || static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_++ == '"') return true;
      if (p_ == end_) return false;
      switch (*p_++) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          if (!codePoint(out)) return false;
          break;
        default:
          return false;
      }
    }
  }

  /// A non-negative integer without sign, fraction, exponent or leading zero, at most maxId.
  bool id(int64_t maxId, int& out) {
    skipSpace();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    int64_t v = 0;
    const char* first = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      v = v * 10 + (*p_++ - '0');
      if (v > maxId) return false;
    }
    if (*first == '0' && p_ - first > 1) return false;
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    out = static_cast<int>(v);
    return true;
  }

 private:
  bool hex4(uint32_t& v) {
    if (end_ - p_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char c = *p_;
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<uint32_t>(d);
    }
    return true;
  }
  bool codePoint(std::string& out) {
    uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate first
    if (cp >= 0xD800 && cp <= 0xDBFF) {              // a high one: its low partner must follow
      uint32_t low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<std::unordered_map<std::string, int>> parseFlatJsonIds(std::string_view text, int64_t maxId) {
  if (!isValidUtf8(text)) return std::nullopt;
  FlatReader r(text);
  if (!r.take('{')) return std::nullopt;
  std::unordered_map<std::string, int> ids;
  ids.reserve(text.size() / 16);
  std::string key;
  if (!r.take('}')) {
    do {
      int id = 0;
      if (!r.string(key) || !r.take(':') || !r.id(maxId, id)) return std::nullopt;
      ids.insert_or_assign(key, id);
    } while (r.take(','));
    if (!r.take('}')) return std::nullopt;
  }
  if (!r.atEnd()) return std::nullopt;
  return ids;
}

}  // namespace attn
