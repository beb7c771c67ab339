#pragma once
// tokenizer.json "added_tokens": the tokens the library splits out of the text
// before the normalizer runs (special and normalized: false ones, on the raw
// text) and after it (normalized: true ones, on each normalized piece), with
// leftmost-longest matching and the lstrip / rstrip / single_word rules.
#include <string>
#include <string_view>
#include <vector>

namespace attn::models {

struct AddedToken {
  std::string content;
  int id = 0;
  bool special = false;
  bool normalized = true;
  bool lstrip = false;
  bool rstrip = false;
  bool singleWord = false;
};

/// A piece of text: either an added token (id >= 0) or text for the model (id < 0).
struct AddedSplit {
  size_t start, end;  // bytes in the text searched
  int token = -1;     // index into AddedVocabulary::tokens()
};

class AddedVocabulary {
 public:
  /// `normalizedForms[i]` is token i's content after the normalizer (used when it is normalized).
  void build(std::vector<AddedToken> tokens, const std::vector<std::string>& normalizedForms);

  /// The library's AddedVocabulary::find_matches over `text` with the raw set
  /// (special or normalized: false) or the normalized set.
  std::vector<AddedSplit> split(std::string_view text, bool normalizedSet) const;

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  bool empty() const { return tokens_.empty(); }

 private:
  struct Pattern {
    std::string text;
    int token;
  };
  std::vector<AddedToken> tokens_;
  std::vector<Pattern> raw_, normalized_;
};

}  // namespace attn::models
