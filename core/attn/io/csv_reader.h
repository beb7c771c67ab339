#pragma once
// A numeric matrix in CSV (RFC 4180 quoting, comma separated, UTF-8, optional
// BOM, LF or CRLF). An optional header row holds column tokens and an optional
// first column holds row tokens, as spreadsheets and our own CSV export write
// them; either is recognised by a cell that is not a number.
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct CsvMatrix {
  Mat values;
  std::vector<std::string> columnTokens;  // header row (empty: none)
  std::vector<std::string> rowTokens;     // first column (empty: none)
};

Result<CsvMatrix> parseCsvMatrix(std::string_view text, const std::string& source);
Result<CsvMatrix> readCsvMatrixFile(const std::string& path);

}  // namespace attn
