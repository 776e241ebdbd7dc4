#pragma once
// The RDB value of a module key (encoding version 1), apart from Redis's RedisModuleIO so that
// it can be decoded without a server (tests/fuzz/module_fuzz.cpp): a state (0: a filter; 1: a
// BF.LOADCHUNK still receiving), the image header (filter_image.hpp), the number of payload
// bytes that follow, then those bytes in strings of at most a piece size (Redis strings stop at
// 512 MB; filters need not). filter_type.cpp binds the source and sink to RedisModuleIO.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "module_value.hpp"

namespace bloomkit::redis_module {

// Where a value's fields are read from. Each read throws image_error when it fails or is short.
class value_source {
 public:
  virtual ~value_source() = default;
  virtual std::uint64_t read_unsigned() = 0;
  // Valid until the next read.
  virtual std::string_view read_string() = 0;
};

class value_sink {
 public:
  virtual ~value_sink() = default;
  virtual void write_unsigned(std::uint64_t value) = 0;
  virtual void write_string(std::string_view bytes) = 0;
};

// The header of a value and the pieces of payload it has (all of a filter's, or what a load has
// received so far): the image BF.SCANDUMP, DEBUG DIGEST and the RDB value carry.
std::string header_of(const module_value& v);
image_pieces payload_of(const module_value& v);

void encode_value(const module_value& v, value_sink& out, std::size_t piece_bytes);
// Throws image_error when the value is malformed: a bad state, header, length or checksum.
std::unique_ptr<module_value> decode_value(value_source& in);

}  // namespace bloomkit::redis_module
