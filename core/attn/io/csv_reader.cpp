#include "attn/io/csv_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "attn/io/npy_reader.h"
#include "attn/io/utf8.h"
#include "attn/io/quote.h"

namespace attn {
namespace {

// Splits into rows of cells. Quoted cells may hold commas, quotes ("") and newlines.
Result<std::vector<std::vector<std::string>>> splitCsv(std::string_view t, const std::string& src) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, cellWasQuoted = false;
  int line = 1;
  auto endCell = [&] {
    row.push_back(std::move(cell));
    cell.clear();
    cellWasQuoted = false;
  };
  auto endRow = [&] {
    endCell();
    // Blank lines (one empty unquoted cell) are skipped.
    if (!(row.size() == 1 && row[0].empty())) rows.push_back(std::move(row));
    row.clear();
  };
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < t.size() && t[i + 1] == '"') { cell.push_back('"'); ++i; }
        else quoted = false;
      } else {
        if (c == '\n') ++line;
        cell.push_back(c);
      }
    } else if (c == '"' && cell.empty() && !cellWasQuoted) {
      quoted = cellWasQuoted = true;
    } else if (c == ',') {
      endCell();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < t.size() && t[i + 1] == '\n') ++i;
      endRow();
      ++line;
    } else {
      cell.push_back(c);
    }
  }
  if (quoted) return Error{fmt::format("{}: line {}: a quoted cell is never closed", src, line)};
  endRow();
  return rows;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool parseNumber(const std::string& raw, float& out) {
  const std::string s = trim(raw);
  if (s.empty()) return false;
  double d = 0;
  const char* first = s.data() + (s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(first, s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  out = static_cast<float>(d);
  return true;
}

}  // namespace

Result<CsvMatrix> parseCsvMatrix(std::string_view text, const std::string& src) {
  if (text.empty()) return Error{src + ": file is empty"};
  if (auto bad = firstInvalidUtf8(text); bad >= 0)
    return Error{fmt::format("{}: not valid UTF-8 text (byte offset {})", src, bad)};
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  auto rowsR = splitCsv(text, src);
  if (!rowsR) return rowsR.error();
  auto& rows = *rowsR;
  if (rows.empty()) return Error{src + ": no rows in the CSV"};

  float tmp = 0;
  bool header = false;
  for (const auto& c : rows[0])
    if (!parseNumber(c, tmp)) header = true;
  const size_t firstData = header ? 1 : 0;
  if (firstData >= rows.size()) return Error{src + ": the CSV has a header row but no numbers"};
  // A label column: the first cell of every data row is not a number.
  bool labels = true;
  for (size_t r = firstData; r < rows.size(); ++r)
    if (parseNumber(rows[r][0], tmp)) labels = false;

  const size_t cols = rows[firstData].size() - (labels ? 1 : 0);
  if (cols == 0) return Error{src + ": the CSV rows have no numeric columns"};
  // Every row is checked before the matrix is allocated: a wide first row over
  // many short rows must not claim rows x cols floats.
  for (size_t r = firstData; r < rows.size(); ++r)
    if (rows[r].size() != cols + (labels ? 1 : 0))
      return Error{fmt::format("{}: row {} has {} cells but row {} has {}", src, r + 1, rows[r].size(),
                               firstData + 1, cols + (labels ? 1 : 0))};
  CsvMatrix m;
  m.values.resize(static_cast<Eigen::Index>(rows.size() - firstData), static_cast<Eigen::Index>(cols));
  for (size_t r = firstData; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const size_t line = r + 1;
    if (labels) m.rowTokens.push_back(trim(row[0]));
    for (size_t c = 0; c < cols; ++c) {
      const std::string& cell = row[c + (labels ? 1 : 0)];
      float v = 0;
      if (!parseNumber(cell, v))
        return Error{fmt::format("{}: row {}, column {}: {} is not a number", src, line, c + 1 + (labels ? 1 : 0),
                                 quoteForMessage(cell, 40))};
      if (!std::isfinite(v))
        return Error{fmt::format("{}: row {}, column {}: non-finite value {}", src, line, c + 1 + (labels ? 1 : 0),
                                 quoteForMessage(cell, 40))};
      m.values(static_cast<Eigen::Index>(r - firstData), static_cast<Eigen::Index>(c)) = v;
    }
  }
  if (header) {
    const auto& h = rows[0];
    // With a label column the header may start with a corner cell ("query\key"), or not.
    size_t start = 0;
    if (h.size() == cols + 1) start = 1;
    else if (h.size() != cols)
      return Error{fmt::format("{}: header row has {} cells for {} numeric columns", src, h.size(), cols)};
    for (size_t c = start; c < h.size(); ++c) m.columnTokens.push_back(trim(h[c]));
  }
  return m;
}

Result<CsvMatrix> readCsvMatrixFile(const std::string& path) {
  auto bytes = readFileBytes(path, int64_t{2} << 30);
  if (!bytes) return bytes.error();
  return parseCsvMatrix(*bytes, path);
}

}  // namespace attn
