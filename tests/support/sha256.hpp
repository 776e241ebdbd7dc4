#pragma once
// SHA-256 as lowercase hex, for test vectors that record digests of bytes (the RedisBloom cuckoo
// vectors' slot bytes): OpenSSL's libcrypto, which the project already depends on (rediss://).

#include <openssl/sha.h>

#include <cstdint>
#include <span>
#include <string>

namespace bloomkit::test {

inline std::string sha256_hex(std::span<const std::uint8_t> data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(data.data(), data.size(), digest);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof digest);
  for (const unsigned char b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace bloomkit::test
