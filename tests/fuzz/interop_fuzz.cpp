// Fuzz target for the interop codecs: the first byte picks the reader, the rest is its input.
//   0 Guava stream (bytes)        1 Guava stream (istream)
//   2 bits-and-blooms WriteTo     3 bits-and-blooms JSON
//   4 go-zero Redis string (bits = 8 * size minus the second byte % 8)
//   5 RedisBloom DUMP payload (the input is the payload before its trailer, which is added)
//   6 RedisBloom BF.SCANDUMP chunks (u16 LE header length, the header, then one data chunk)
//   7 LZF data (u16 LE declared size, then the compressed bytes)
//   8 Spark BloomFilter writeTo bytes (bytes)   9 the same (istream)
// Any input must end in a filter or a bloomkit::error. A filter must then be usable and survive
// its own writer: write, read back, equal.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/compat/spark.hpp"

namespace {

using namespace bloomkit;

template <class Filter>
void use(Filter& f) {
  f.insert("fuzz");
  if (!f.contains("fuzz")) std::abort();
  (void)f.estimated_count();
}

void guava_round_trip(guava::any_filter& any) {
  std::visit(
      [](auto& f) {
        use(f);
        const auto bytes = guava::write(f);
        const auto again = guava::read(bytes, "round trip");
        if (again.index() != (f.scheme() == hash_scheme::guava_murmur128_mitz_32 ? 0u : 1u)) {
          std::abort();
        }
        if (!(std::get<std::decay_t<decltype(f)>>(again) == f)) std::abort();
      },
      any);
}

void spark_round_trip(spark::any_filter& any) {
  std::visit(
      [&](auto& f) {
        use(f);
        f.insert(std::int64_t{-42});
        if (!f.contains(std::int64_t{-42})) std::abort();
        const auto again = spark::read(spark::write(f), "round trip");
        if (again.index() != any.index()) std::abort();
        if (!(std::get<std::decay_t<decltype(f)>>(again) == f)) std::abort();
      },
      any);
}

// A decoded chain must answer, take an add and survive its own encoders.
void use_chain(redisbloom::chain& c) {
  // A full newest link makes the add grow the chain by a link a hostile header sized (entries x
  // growth, up to terabytes): its bits would be mapped, then read and written by every check
  // below (minutes under ASan, or past the fuzzer's memory limit). Such chains are only looked up.
  const redisbloom::link_fields last = c.link(c.filters() - 1);
  const long double next_entries = static_cast<long double>(last.entries) * c.growth();
  if (last.size >= last.entries && next_entries > (1 << 20)) {
    (void)c.contains("fuzz");
    return;
  }
  const redisbloom::add_result r = c.add("fuzz");
  if ((r == redisbloom::add_result::added || r == redisbloom::add_result::present) &&
      !c.contains("fuzz")) {
    std::abort();
  }
  (void)c.debug_lines();
  (void)c.estimated_count();
  if (!(redisbloom::read_dump(redisbloom::write_dump(c), "rt") == c)) std::abort();
  redisbloom::chain again = redisbloom::chain_from_header(redisbloom::header_chunk(c));
  for (std::int64_t iter = 1; iter != 0;) {
    const redisbloom::data_chunk d = redisbloom::next_chunk(c, iter, 4096);
    if (d.next != 0) redisbloom::apply_chunk(again, d.next, d.data);
    iter = d.next;
  }
  if (!(again == c)) std::abort();
}

// The bytes a SCANDUMP header declares for its links (0 when it is too short to say).
std::uint64_t declared_bytes(std::span<const unsigned char> header) {
  std::uint64_t total = 0;
  for (std::size_t at = 20; at + 53 <= header.size(); at += 53) {
    std::uint64_t bytes = 0;
    for (int i = 7; i >= 0; --i) bytes = bytes << 8 | header[at + static_cast<std::size_t>(i)];
    total += std::min<std::uint64_t>(bytes, std::uint64_t{1} << 40);
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const unsigned char> input(data + 1, size - 1);
  const std::string text(input.begin(), input.end());
  try {
    switch (data[0] % 10) {
      case 0: {
        auto f = guava::read(input, "fuzz");
        guava_round_trip(f);
        break;
      }
      case 1: {
        std::istringstream in(text);
        auto f = guava::read(in, "fuzz");
        guava_round_trip(f);
        break;
      }
      case 2:
      case 3: {
        auto f = data[0] % 8 == 2 ? bits_and_blooms::read(input, "fuzz")
                                  : bits_and_blooms::read_json(text, "fuzz");
        use(f);
        if (!(bits_and_blooms::read(bits_and_blooms::write(f), "rt") == f)) std::abort();
        if (!(bits_and_blooms::read_json(bits_and_blooms::write_json(f), "rt") == f)) std::abort();
        break;
      }
      case 5: {
        std::vector<unsigned char> payload(input.begin(), input.end());
        payload.push_back(10);
        payload.push_back(0);
        const std::uint64_t crc = redisbloom::crc64_jones(0, payload);
        for (int i = 0; i < 8; ++i) payload.push_back(static_cast<unsigned char>(crc >> (8 * i)));
        auto c = redisbloom::read_dump(payload, "fuzz");
        use_chain(c);
        break;
      }
      case 6: {
        if (input.size() < 2) break;
        const std::size_t length =
            std::min<std::size_t>(input[0] | input[1] << 8, input.size() - 2);
        const auto header = input.subspan(2, length);
        // Bits a mutation declares past 64 MiB would only be zeros to allocate.
        if (declared_bytes(header) > (std::uint64_t{1} << 26)) break;
        auto c = redisbloom::chain_from_header(header);
        const auto chunk = input.subspan(2 + length);
        try {
          redisbloom::apply_chunk(c, static_cast<std::int64_t>(1 + chunk.size()), chunk);
        } catch (const redisbloom::chunk_error&) {
        }
        use_chain(c);
        break;
      }
      case 8: {
        auto f = spark::read(input, "fuzz");
        spark_round_trip(f);
        break;
      }
      case 9: {
        std::istringstream in(text);
        auto f = spark::read(in, "fuzz");
        spark_round_trip(f);
        break;
      }
      case 7: {
        if (input.size() < 2) break;
        const std::size_t declared = input[0] | input[1] << 8;
        (void)redisbloom::lzf_decompress(input.subspan(2), declared);
        break;
      }
      default: {
        if (input.empty()) break;
        const std::uint64_t bits = 8 * input.size() - input[0] % 8;
        auto f = go_zero::from_redis(input.subspan(1), bits, "fuzz");
        use(f);
        if (!(go_zero::from_redis(go_zero::to_redis(f), bits, "rt") == f)) std::abort();
        break;
      }
    }
  } catch (const error&) {
  }
  return 0;
}
