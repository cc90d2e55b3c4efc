#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace torchlet {

/// The exception every torchlet operation throws on bad input. Its message
/// names the operation and the offending shapes, dtypes or devices.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

[[noreturn]] void throw_error(std::string message);
[[noreturn]] void throw_internal_error(const char* file, int line, const char* cond,
                                       std::string message);

}  // namespace detail
}  // namespace torchlet

/// Throws torchlet::Error with the concatenated message parts unless `cond`.
#define TORCHLET_CHECK(cond, ...)                                        \
  do {                                                                   \
    if (__builtin_expect(!(cond), 0)) {                                  \
      ::torchlet::detail::throw_error(::torchlet::detail::str_cat(__VA_ARGS__)); \
    }                                                                    \
  } while (false)

/// Guards an internal invariant: failing it is a bug in torchlet, not in the
/// caller. Throws torchlet::Error naming the file and line.
#define TORCHLET_INTERNAL_ASSERT(cond, ...)                                   \
  do {                                                                        \
    if (__builtin_expect(!(cond), 0)) {                                       \
      ::torchlet::detail::throw_internal_error(                               \
          __FILE__, __LINE__, #cond, ::torchlet::detail::str_cat("", ##__VA_ARGS__)); \
    }                                                                         \
  } while (false)
