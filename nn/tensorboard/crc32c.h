#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace torchlet::tensorboard {

// Note [CRC32C]
// TFRecord framing checks lengths and payloads with CRC-32C (Castagnoli,
// reflected polynomial 0x82F63B78). Debian 12's Abseil (20220623) has no
// absl/crc, so this is a table-driven implementation (one byte per step; the
// records are small and written once), tested against the RFC 3720 vectors.

/// CRC-32C of `data`, continuing from `crc` (0 to start).
uint32_t crc32c(std::string_view data, uint32_t crc = 0);

/// TensorFlow's masked CRC, stored in TFRecord files so that a CRC of data
/// that itself contains CRCs does not degenerate:
/// ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t masked_crc32c(std::string_view data);

}  // namespace torchlet::tensorboard
