#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace torchlet {

/// The exception every torchlet operation throws on bad input. Its message
/// names the operation and the offending shapes, dtypes or devices.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class DType : int8_t;
struct Device;

namespace detail {

/// Message text of the torchlet types that are not strings or numbers.
const char* message_piece(DType dtype);
std::string message_piece(const Device& device);
inline absl::string_view message_piece(char c) = delete;

/// What absl::StrCat takes for one part of a message: the value itself when
/// it is text or a number, else its message_piece() (enums too: StrCat
/// would print their underlying number).
template <typename T>
decltype(auto) message_part(const T& value) {
  if constexpr (!std::is_enum_v<T> && std::is_convertible_v<const T&, absl::AlphaNum>) {
    return (value);
  } else {
    return message_piece(value);
  }
}

/// The message parts concatenated (absl::StrCat, with torchlet's types).
template <typename... Args>
std::string str_cat(const Args&... args) {
  return absl::StrCat(message_part(args)...);
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
