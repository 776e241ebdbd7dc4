#include "bloomkit/redis/spark_filter.hpp"

#include <memory>
#include <string>
#include <utility>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "single_string_layout.hpp"

namespace bloomkit::redis {

namespace {

std::uint64_t header_size(spark::version v) noexcept {
  return v == spark::version::v1 ? 12 : 16;
}

// Spark's bits at their BITFIELD offsets in the string of its writeTo() bytes.
class spark_layout final : public detail::single_string_layout {
 public:
  spark_layout(std::string key, spark::version v, std::uint32_t hashes, std::int32_t seed,
               std::uint64_t words)
      : single_string_layout("spark", std::move(key), words * 64, hashes, header_size(v),
                             header_size(v) + words * 8),
        version_(v),
        seed_(seed) {}

  void offsets(std::string_view key, std::span<std::uint64_t> out) const override {
    const spark::hash_pair h = spark::hash_pair_of(key, seed_);
    if (version_ == spark::version::v1) {
      spark::v1_sequence s(h, bits());
      for (std::uint64_t& o : out) o = offset_of(s.next());
    } else {
      spark::v2_sequence s(h, bits());
      for (std::uint64_t& o : out) o = offset_of(s.next());
    }
  }

 private:
  // LSB-first bits in big-endian words; BITFIELD counts from each byte's most significant bit.
  std::uint64_t offset_of(std::uint64_t x) const noexcept {
    const std::uint64_t byte = header_bytes() + 8 * (x >> 6) + 7 - ((x & 63) >> 3);
    return 8 * byte + 7 - (x & 7);
  }

  spark::version version_;
  std::int32_t seed_;
};

std::uint32_t be32(std::string_view b, std::size_t at) noexcept {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

std::string named(const std::string& key) {
  return "spark filter key '" + key + "'";
}

}  // namespace

spark_filter::spark_filter(client& c, std::string key, spark::version v, std::uint32_t hashes,
                           std::int32_t seed, std::uint64_t words, std::size_t keys_per_command)
    : single_string_filter(c,
                           std::make_unique<spark_layout>(std::move(key), v, hashes, seed, words),
                           keys_per_command),
      version_(v),
      seed_(seed) {}

spark_filter spark_filter::push(client& c, const spark::any_filter& filter, std::string key,
                                std::size_t keys_per_command) {
  const std::vector<unsigned char> bytes = spark::write(filter);
  const reply r = c.execute(command{
      {"SET", key, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "NX"},
      1});
  detail::check_reply(r, named(key) + " (SET)");
  if (r.is_nil()) throw error(errc::already_exists, named(key) + " exists already");
  return open(c, std::move(key), keys_per_command);
}

spark_filter spark_filter::open(client& c, std::string key, std::size_t keys_per_command) {
  // The header (V2's is the longer), and the length the words make it.
  const reply head = c.execute(command{{"GETRANGE", key, "0", "15"}, 1});
  detail::check_reply(head, named(key) + " (GETRANGE)");
  const reply length = c.execute(command{{"STRLEN", key}, 1});
  detail::check_reply(length, named(key) + " (STRLEN)");
  const std::string h = head.str();
  if (length.integer() == 0) throw error(errc::not_found, named(key) + " does not exist");
  const auto corrupt = [&](const std::string& why) {
    return error(errc::corrupt_file,
                 named(key) + " does not hold a Spark BloomFilter's writeTo() bytes: " + why);
  };
  if (h.size() < 12) throw corrupt("shorter than a header");
  const auto v = static_cast<std::int32_t>(be32(h, 0));
  if (v != 1 && v != 2) throw corrupt("version " + std::to_string(v) + " (1 is V1, 2 is V2)");
  const auto version = static_cast<spark::version>(v);
  if (h.size() < header_size(version)) throw corrupt("shorter than a V2 header");
  const auto hashes = static_cast<std::int32_t>(be32(h, 4));
  const auto seed = version == spark::version::v2 ? static_cast<std::int32_t>(be32(h, 8)) : 0;
  const auto words = static_cast<std::int32_t>(be32(h, header_size(version) - 4));
  if (hashes <= 0 || words <= 0) {
    throw corrupt("numHashFunctions " + std::to_string(hashes) + ", numWords " +
                  std::to_string(words));
  }
  bloomkit::detail::with_context([&] { return named(key) + ": "; },
                                 [&] {
                                   spark::check_params(static_cast<std::uint64_t>(words) * 64,
                                                       static_cast<std::uint32_t>(hashes));
                                 });
  const std::uint64_t expected = header_size(version) + static_cast<std::uint64_t>(words) * 8;
  if (static_cast<std::uint64_t>(length.integer()) != expected) {
    throw corrupt(std::to_string(length.integer()) + " bytes where its header makes " +
                  std::to_string(expected));
  }
  return spark_filter(c, std::move(key), version, static_cast<std::uint32_t>(hashes), seed,
                      static_cast<std::uint64_t>(words), keys_per_command);
}

}  // namespace bloomkit::redis
