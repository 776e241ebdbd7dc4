#include "key_slot.hpp"

#include <array>

namespace bloomkit::redis {
namespace {

// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection, as Redis Cluster
// specifies. A byte-wise table computed at compile time.
constexpr std::array<std::uint16_t, 256> make_crc16_table() {
  std::array<std::uint16_t, 256> table{};
  for (unsigned byte = 0; byte < 256; ++byte) {
    std::uint16_t crc = static_cast<std::uint16_t>(byte << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<std::uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    table[byte] = crc;
  }
  return table;
}

constexpr auto crc16_table = make_crc16_table();

}  // namespace

std::uint16_t crc16(std::string_view bytes) noexcept {
  std::uint16_t crc = 0;
  for (const char c : bytes) {
    const auto index = static_cast<unsigned char>((crc >> 8) ^ static_cast<unsigned char>(c));
    crc = static_cast<std::uint16_t>((crc << 8) ^ crc16_table[index]);
  }
  return crc;
}

int key_slot(std::string_view key) noexcept {
  // Hash tag: the bytes between the first '{' and the first '}' after it, if not empty.
  if (const auto open = key.find('{'); open != std::string_view::npos) {
    if (const auto close = key.find('}', open + 1);
        close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return crc16(key) & (slot_count - 1);
}

}  // namespace bloomkit::redis
