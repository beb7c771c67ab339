#pragma once
// NumPy .npy (format versions 1-3) and .npz (zip, stored or deflated) readers.
// Every number comes from an untrusted file: sizes are checked against the
// bytes actually present and against a limit before anything is allocated.
// Files are read member by member into the arrays (byte_stream.h), never
// whole.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/io/byte_stream.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct NpyArray {
  std::string name;    // member name without ".npy" (npz) or the file name
  std::string descr;   // dtype as written, e.g. "<f4", "<U5"
  std::vector<int64_t> shape;
  bool isText = false;               // a '<U' unicode array
  Tensor values;                     // numeric arrays, converted to float32, C order
  std::vector<std::string> strings;  // text arrays, UTF-8, C order
  // Numeric arrays the reader was asked to decode as planes: the [R, C]
  // row-major slices of the last two axes, in C order, and `values.data` stays
  // empty (values.shape is set). Per-head q/k/v move from here into the engine.
  std::vector<Mat> planes;
  // The planes went to a PlaneDrop's sink one at a time and none were kept:
  // `values.shape` is set, `values.data` and `planes` are empty.
  bool dropped = false;
  // Of a dropped array whose data is stored in the file as it is (an npz
  // member without compression, little-endian float32, C order): the file
  // offset of its first value, so that a reader can read rows of it again
  // (the streamed analysis' queries); 0 otherwise.
  uint64_t rereadOffset = 0;

  std::string shapeString() const;
};

struct ReadLimits {
  int64_t maxElements = int64_t{1} << 31;  // per array
  int64_t maxBytes = int64_t{8} << 30;     // per array, decoded
};

/// An array read plane by plane into `sink` and not kept (`metrics`
/// checks 'v' but never reads it). The sink gets each [R, C] plane of a
/// numeric array of rank >= 2 in C order, in one buffer reused between calls;
/// an array of another rank or kind is decoded and kept as usual.
struct PlaneDrop {
  std::string name;  // the array (npz member without ".npy"); empty: none
  std::function<void(int64_t plane, const Mat& values)> sink;
  // Drop the array only when it can be read again from the file (its
  // rereadOffset is set); otherwise it is kept as usual.
  bool onlyRereadable = false;
};

/// Decodes one .npy from a stream (a zip member or a whole file) straight into
/// its array; `source` names it in errors ("a.npz:q.npy"). `asPlanes`: numeric
/// arrays of rank >= 2 go to NpyArray::planes; with `drop`, to drop->sink instead.
Result<NpyArray> decodeNpy(ByteStream& in, const std::string& source, const ReadLimits& limits = {},
                           bool asPlanes = false, const PlaneDrop* drop = nullptr);
/// Parses the bytes of one .npy; `source` names it in errors ("a.npz:q.npy").
Result<NpyArray> parseNpy(std::string_view bytes, const std::string& source,
                          const ReadLimits& limits = {});
/// Parses an .npz archive's bytes into its arrays, in archive order; arrays
/// named in `planeNames` are decoded as planes, those `drops` name into their sinks.
Result<std::vector<NpyArray>> parseNpz(std::string_view bytes, const std::string& source,
                                       const ReadLimits& limits = {}, const std::vector<std::string>& planeNames = {},
                                       const std::vector<PlaneDrop>& drops = {});

Result<NpyArray> readNpyFile(const std::string& path, const ReadLimits& limits = {});
/// Reads the zip directory, then each member from the file into its array.
Result<std::vector<NpyArray>> readNpzFile(const std::string& path, const ReadLimits& limits = {},
                                          const std::vector<std::string>& planeNames = {},
                                          const std::vector<PlaneDrop>& drops = {});

/// Reads a whole file, refusing files larger than maxBytes.
Result<std::string> readFileBytes(const std::string& path, int64_t maxBytes = int64_t{16} << 30);

}  // namespace attn
