// Tensor::str(): PyTorch 1.13's repr(tensor) (torch/_tensor_str.py) with
// its default print options.

#include "tensor/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "tensor/print.h"

#include "tensor/cpu/dispatch.h"

namespace torchlet {
namespace {

// Python's '{:.4f}', '{:.4e}' and '{:.0f}': precision 4.
constexpr char kFixed[] = "%.4f";
constexpr char kScientific[] = "%.4e";
constexpr char kInteger[] = "%.0f";
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;
constexpr char kPrefix[] = "tensor(";
constexpr int64_t kIndent = sizeof(kPrefix) - 1;

/// The indices printed along each dim: all of them, or the first and last
/// kEdgeItems when summarizing a longer dim.
using Grid = std::vector<std::vector<int64_t>>;

Grid shown_indices(IntArrayRef sizes, bool summarize) {
  Grid grid;
  for (int64_t size : sizes) {
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < size; ++i) {
      if (!summarize || size <= 2 * kEdgeItems || i < kEdgeItems || i >= size - kEdgeItems) {
        indices.push_back(i);
      }
    }
    grid.push_back(std::move(indices));
  }
  return grid;
}

/// Element offsets (in elements from data_ptr) of the grid, row-major.
std::vector<int64_t> shown_offsets(const Tensor& t, const Grid& grid) {
  std::vector<int64_t> offsets = {0};
  for (int64_t d = 0; d < t.dim(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * grid[d].size());
    for (int64_t base : offsets) {
      for (int64_t i : grid[d]) next.push_back(base + i * t.stride(d));
    }
    offsets = std::move(next);
  }
  return offsets;
}

/// Python's '{:<fmt>}'.format(v): printf, but nan, inf and -inf spelled as
/// Python spells them (no "-nan").
std::string format_double(const char* fmt, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

/// The printed elements (unpadded, row-major) and the column width
/// (_Formatter.max_width).
struct Cells {
  std::vector<std::string> texts;
  int64_t width = 1;
};

/// _Formatter for floating dtypes: fixed, integer or scientific notation,
/// chosen from the nonzero finite values.
Cells format_floats(const std::vector<double>& values) {
  std::vector<double> magnitudes;
  bool int_mode = true;
  for (double v : values) {
    if (std::isfinite(v) && v != 0) {
      magnitudes.push_back(std::fabs(v));
      int_mode = int_mode && v == std::ceil(v);
    }
  }
  bool sci_mode = false;
  if (!magnitudes.empty()) {
    const auto [min, max] = std::minmax_element(magnitudes.begin(), magnitudes.end());
    sci_mode = *max / *min > 1000.0 || *max > 1.0e8 || (!int_mode && *min < 1.0e-4);
  }
  auto format = [&](double v) {
    if (sci_mode) return format_double(kScientific, v);
    if (int_mode) return format_double(kInteger, v) + (std::isfinite(v) ? "." : "");
    return format_double(kFixed, v);
  };

  Cells cells;
  for (double v : values) {
    cells.texts.push_back(format(v));
    if (std::isfinite(v) && v != 0) {
      cells.width = std::max<int64_t>(cells.width, cells.texts.back().size());
    }
  }
  return cells;
}

/// _Formatter for integral and bool dtypes: the plain values.
template <typename T>
Cells format_integers(const std::vector<T>& values) {
  Cells cells;
  for (T v : values) {
    if constexpr (std::is_same_v<T, bool>) {
      cells.texts.push_back(v ? "True" : "False");
    } else {
      cells.texts.push_back(std::to_string(static_cast<int64_t>(v)));
    }
    cells.width = std::max<int64_t>(cells.width, cells.texts.back().size());
  }
  return cells;
}

/// Reads the elements at `offsets` of a host tensor and formats them.
Cells format_elements(const Tensor& t, const std::vector<int64_t>& offsets) {
  return cpu::dispatch_all_and_reduced(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = static_cast<const T*>(t.data_ptr());
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>) {
      // float16 and bfloat16 print as their float32 values, as PyTorch does.
      std::vector<double> values;
      for (int64_t offset : offsets) values.push_back(static_cast<float>(data[offset]));
      return format_floats(values);
    } else {
      std::vector<T> values;
      for (int64_t offset : offsets) values.push_back(data[offset]);
      return format_integers(values);
    }
  });
}

/// Lays out the cells as nested brackets (_tensor_str_with_formatter).
class Layout {
 public:
  Layout(const Cells& cells, const Grid& grid, IntArrayRef sizes)
      : cells_(cells), grid_(grid), sizes_(sizes) {}

  std::string str() { return grid_.empty() ? cell() : block(0, kIndent); }

 private:
  /// The next cell, left-padded to the column width.
  std::string cell() {
    const std::string& text = cells_.texts[next_++];
    const int64_t pad = cells_.width - static_cast<int64_t>(text.size());
    return std::string(std::max<int64_t>(pad, 0), ' ') + text;
  }

  bool summarized(size_t d) const { return static_cast<int64_t>(grid_[d].size()) < sizes_[d]; }

  /// Dims d.. starting at column `indent`.
  std::string block(size_t d, int64_t indent) {
    const bool innermost = d + 1 == grid_.size();
    std::vector<std::string> items;
    for (size_t i = 0; i < grid_[d].size(); ++i) {
      if (summarized(d) && static_cast<int64_t>(i) == kEdgeItems) {
        items.push_back(innermost ? " ..." : "...");
      }
      items.push_back(innermost ? cell() : block(d + 1, indent + 1));
    }
    if (innermost) return vector_str(items, indent);
    const size_t newlines = grid_.size() - d - 1;
    return "[" + join(items, "," + std::string(newlines, '\n') + std::string(indent + 1, ' ')) +
           "]";
  }

  /// _vector_str: as many elements per line as fit in kLineWidth.
  std::string vector_str(const std::vector<std::string>& items, int64_t indent) const {
    const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (cells_.width + 2));
    std::vector<std::string> lines;
    for (size_t i = 0; i < items.size(); i += per_line) {
      const size_t end = std::min(items.size(), i + per_line);
      lines.push_back(join(std::vector<std::string>(items.begin() + i, items.begin() + end), ", "));
    }
    return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out;
  }

  const Cells& cells_;
  const Grid& grid_;
  IntArrayRef sizes_;
  size_t next_ = 0;
};

/// Python's str(tuple(sizes)) for two or more sizes: "(0, 3)".
std::string tuple_str(IntArrayRef sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + ")";
}

/// _add_suffixes: ", suffix" on the last line while it fits in kLineWidth,
/// else on a new line at kIndent.
std::string add_suffixes(std::string out, const std::vector<std::string>& suffixes) {
  const size_t newline = out.rfind('\n');
  int64_t last_line_len =
      static_cast<int64_t>(out.size()) - (newline == std::string::npos ? -1 : int64_t(newline)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      out += ",\n" + std::string(kIndent, ' ') + suffix;
      last_line_len = kIndent + len;
    } else {
      out += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

std::string dtype_suffix(DType dtype) { return std::string("dtype=torchlet.") + dtype_name(dtype); }

}  // namespace

std::string tensor_repr(const Tensor& t, const std::vector<std::string>& extra_suffixes) {
  std::vector<std::string> suffixes;
  if (t.device() != Device(kCPU, 0)) suffixes.push_back("device='" + t.device().str() + "'");
  std::string body;
  if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back("size=" + tuple_str(t.sizes()));
    if (t.dtype() != kFloat32) suffixes.push_back(dtype_suffix(t.dtype()));
    body = "[]";
  } else {
    if (t.dtype() != kFloat32 && t.dtype() != kInt64 && t.dtype() != kBool) {
      suffixes.push_back(dtype_suffix(t.dtype()));
    }
    const Tensor host = t.is_cuda() ? t.to(Device(kCPU, 0)) : t;
    const Grid grid = shown_indices(t.sizes(), t.numel() > kThreshold);
    const Cells cells = format_elements(host, shown_offsets(host, grid));
    body = Layout(cells, grid, t.sizes()).str();
  }
  suffixes.insert(suffixes.end(), extra_suffixes.begin(), extra_suffixes.end());
  return add_suffixes(kPrefix + body, suffixes);
}

std::string Tensor::str() const { return tensor_repr(*this, {}); }

}  // namespace torchlet
