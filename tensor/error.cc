#include "tensor/error.h"

#include "tensor/device.h"
#include "tensor/dtype.h"

namespace torchlet::detail {

const char* message_piece(DType dtype) { return dtype_name(dtype); }
std::string message_piece(const Device& device) { return device.str(); }

void throw_error(std::string message) { throw Error(std::move(message)); }

void throw_internal_error(const char* file, int line, const char* cond, std::string message) {
  throw Error(str_cat("Internal error in torchlet at ", file, ":", line, ": expected ", cond,
                      message.empty() ? "" : ": ", message,
                      " (this is a bug in torchlet, please report it)"));
}

}  // namespace torchlet::detail
