#pragma once
// (internal; tests check it against CLUSTER KEYSLOT) Redis Cluster key -> hash slot: CRC16 (XMODEM:
// poly 0x1021, init 0) of the key, or of its hash tag (the bytes between the first '{' and the next
// '}' when that is not empty), modulo 16384.

#include <cstdint>
#include <string_view>

namespace bloomkit::redis {

inline constexpr int slot_count = 16384;

std::uint16_t crc16(std::string_view bytes) noexcept;
int key_slot(std::string_view key) noexcept;

}  // namespace bloomkit::redis
