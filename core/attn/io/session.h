#pragma once
// A saved explorer session: the input, the attention configuration and the
// view, as a versioned JSON file. Written atomically; every read error names
// the file and the field ("session.json: config.heads: ...").
//
//   { "format": "attnscope-session", "version": 1,
//     "input":  { "text": "...", "key_text": "", "tokenizer": "words", "file": "",
//                 "model": "/models/gpt2" },   (optional: a model folder)
//     "config": { "mechanism": "scaled_dot", "heads": 4, "d_model": 64, "d_k": 0, "hidden": 0,
//                 "temperature": 1.0, "mask": "causal", "positional": "none",
//                 "init": "xavier", "seed": 42, "exec": "auto", "backend": "cpu",
//                 "custom_mask": { "rows": 2, "cols": 2, "keep": ["10", "11"] } },
//     "view":   { "head": 0, "pinned_row": -1, "quantity": "weights", "colormap": "viridis",
//                 "layer": 0 } }   (optional: the layer shown)
//
// "custom_mask" (optional) is the bitmap of a "custom" mask term, one string of
// '0'/'1' per query row (1 = keep); without it a "custom" term waits for the
// input file's 'mask' array.
#include <string>
#include <string_view>

#include "attn/engine/exec_path.h"  // execPathName / parseExecPath
#include "attn/spec.h"
#include "attn/status.h"

namespace attn {

struct SessionInput {
  std::string text;
  std::string keyText;
  std::string tokenizer = "words";
  std::string file;  // a loaded input file, empty when the text is the input
  std::string model;  // a Hugging Face model folder the text runs through; empty: none (written only when set)
};

struct SessionView {
  int head = 0;
  int pinnedRow = -1;
  int layer = 0;  // 0-based layer of a model or a layered file (written only when not 0)
  std::string quantity = "weights";  // weights, scaled_logits, raw_logits, mask
  std::string colormap = "viridis";
};

struct Session {
  SessionInput input;
  AttentionSpec spec;
  SessionView view;
};

inline constexpr int kSessionVersion = 1;

/// Pretty-printed JSON text of a session.
std::string sessionToJson(const Session& s);
/// Parses session JSON; `source` (a file name) prefixes every error.
/// Missing optional fields take their defaults; unknown fields are ignored.
Result<Session> sessionFromJson(std::string_view json, std::string_view source);

Status saveSession(const std::string& path, const Session& s);
Result<Session> loadSession(const std::string& path);

}  // namespace attn
