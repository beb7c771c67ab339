#pragma once
// Opens the files researchers already have (.npz, .npy, .safetensors, .csv)
// and maps the contract's array names (docs/files.md, "Input arrays")
// onto the engine input, precomputed weights, a custom mask and token labels.
// Shapes that disagree give one error naming both arrays and their shapes.
#include <cstdint>
#include <string>
#include <vector>

#include "attn/engine.h"
#include "attn/io/npy_reader.h"
#include "attn/engine/precomputed.h"
#include "attn/status.h"

namespace attn {

struct ArrayInfo {
  std::string name;
  std::string dtype;  // as written in the file: "<f4", "BF16", "<U7", "csv"
  std::vector<int64_t> shape;
  std::string role;   // what the loader made of it, or why it was not used
};

struct LoadedInput {
  std::string path;
  std::string format;           // "npz", "npy", "safetensors", "csv"
  AttentionInput input;         // q/k/v or x (+ weights); empty when only `attn`
  PrecomputedAttention attention;
  std::vector<uint8_t> maskKeep;  // row-major [maskRows, maskCols], 1 = keep; empty: no mask
  int maskRows = 0, maskCols = 0;
  std::vector<ArrayInfo> arrays;  // every array in the file, in file order
  std::vector<std::string> warnings;

  bool hasEngineInput() const { return input.isProjected() || input.x.size() > 0; }
  bool hasAttention() const { return !attention.empty(); }
  /// The views and analyses this input can feed, in words.
  std::vector<std::string> views() const;
};

struct LoadOptions {
  /// false: an .npz's 'v' is read and checked (shape, finite values, the same
  /// errors) but not kept, for commands that never read the values (`metrics`
  /// on the streamed path: a third less memory); input.v is then
  /// empty and input.droppedV holds its shape. Other formats keep 'v'.
  bool keepValues = true;
  /// false: an .npz's 'q', when it is stored as it is (no compression,
  /// little-endian float32), is read and checked but not kept either, and
  /// input.queryFile says where to read its rows again (input.droppedQ its
  /// shape, input.q holds 0 x d_k matrices): for `metrics` on the streamed
  /// path, which then holds only k whole. Kept otherwise.
  bool keepQueries = true;
};

/// Detects the format from the extension (and magic bytes) and loads it.
Result<LoadedInput> loadInputFile(const std::string& path, const LoadOptions& options = {});

/// Maps named arrays (already read) onto a LoadedInput; `source` names the file in errors.
Result<LoadedInput> inputFromArrays(std::vector<NpyArray> arrays, const std::string& source);

/// A table of the arrays and what they feed, for `attnscope-cli info` and the GUI.
std::string describeInput(const LoadedInput& in);

/// Adapts spec sizes to loaded arrays: d_model from `x`, heads from `q`, d_k from
/// `w_q` columns / heads. Errors name the array and the option that disagree.
Status fitSpecToInput(const AttentionInput& in, AttentionSpec& spec);

}  // namespace attn
