#pragma once
// Running a model on a text in tests: the steps every comparison of two runs starts with.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "attn/models/model.h"

namespace attn::test {

/// `text` through m with the full logits kept and llama.cpp's quantized products on or off
/// (GGUF). A failed encode or run fails the test and gives an empty run.
inline models::ModelRun runWithLogitsOrFail(const models::Model& m, const std::string& text,
                                            bool quantizedDot = true) {
  auto enc = m.encode(text, std::nullopt, "text");
  EXPECT_TRUE(enc.ok()) << (enc.ok() ? "" : enc.error().message);
  if (!enc.ok()) return {};
  models::RunOptions o;
  o.keepFullLogits = true;
  o.quantizedDot = quantizedDot;
  auto run = m.run(*enc, o);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
  return run.ok() ? std::move(*run) : models::ModelRun{};
}

}  // namespace attn::test
