// RedisBloom's chain as a module key's value (redisbloom_keys.hpp).

#include "redisbloom_keys.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "bloomkit/error.hpp"
#include "image_reader.hpp"

namespace bloomkit::redis_module {

redisbloom_chain make_bf_chain(double error_rate, std::uint64_t capacity, std::uint32_t expansion,
                               bool nonscaling) {
  return redisbloom::chain::reserve(capacity, error_rate, expansion, nonscaling || expansion == 0,
                                    true);
}

std::size_t add_keys(redisbloom_chain& c, std::span<const std::string_view> keys,
                     std::span<bool> added) {
  const auto answers = std::make_unique<redisbloom::add_result[]>(keys.size());
  std::string failure;
  const std::size_t answered = c.add_many(keys, {answers.get(), keys.size()}, &failure);
  for (std::size_t i = 0; i < answered; ++i) {
    switch (answers[i]) {
      case redisbloom::add_result::present:
      case redisbloom::add_result::added:
        added[i] = answers[i] == redisbloom::add_result::added;
        break;
      case redisbloom::add_result::full:
        return i;
      case redisbloom::add_result::no_memory:
        throw error(errc::too_large, failure);
      case redisbloom::add_result::cannot_grow:
        throw error(errc::too_large,
                    "the chain cannot grow: its next link cannot be sized (growth " +
                        std::to_string(c.growth()) + ")");
    }
  }
  return answered;
}

void find_keys(const redisbloom_chain& c, std::span<const std::string_view> keys,
               std::span<bool> present) {
  const auto answers = std::make_unique<std::uint8_t[]>(keys.size());
  c.contains_many(keys, {answers.get(), keys.size()});
  for (std::size_t i = 0; i < keys.size(); ++i) present[i] = answers[i] != 0;
}

std::uint64_t capacity_of(const redisbloom_chain& c) {
  return c.capacity();
}
std::uint64_t items_of(const redisbloom_chain& c) {
  return c.items();
}
std::uint64_t filter_count_of(const redisbloom_chain& c) {
  return c.filters();
}
std::optional<std::uint64_t> expansion_of(const redisbloom_chain& c) {
  return c.expansion();
}
std::size_t memory_of(const redisbloom_chain& c) {
  return static_cast<std::size_t>(c.info_size());
}

std::vector<std::uint64_t> growth_allocations(const redisbloom_chain& c, std::uint64_t keys) {
  std::vector<std::uint64_t> sizes;
  if (!c.scaling() || c.filters() == 0) return sizes;
  redisbloom::link_fields last = c.link(c.filters() - 1);
  // New keys go to the last link; RedisBloom adds a link once it holds its entries.
  std::uint64_t room = last.entries - std::min(last.entries, last.size);
  while (room < keys && c.filters() + sizes.size() < redisbloom::max_links) {
    try {
      last = redisbloom::size_link(last.entries * c.growth(),
                                   last.error * redisbloom::error_tightening, c.options());
    } catch (const error&) {
      break;  // a link that cannot exist: the add itself says so
    }
    sizes.push_back(last.bytes);
    room += last.entries;
  }
  return sizes;
}

namespace {

bool starts_with_image_magic(std::string_view data) {
  std::uint32_t magic = 0;
  if (data.size() < sizeof magic) return false;
  std::memcpy(&magic, data.data(), sizeof magic);
  return magic == image_magic;
}

redisbloom_chain redisbloom_header(std::string_view data) {
  return redisbloom::chain_from_header(
      {reinterpret_cast<const unsigned char*>(data.data()), data.size()});
}

}  // namespace

first_chunk read_first_chunk(std::string_view data) {
  // The magic says which to try first; a header that fails as one is tried as the other.
  if (starts_with_image_magic(data)) {
    try {
      return std::make_unique<image_loader>(data);
    } catch (const image_error& image) {
      try {
        return redisbloom_header(data);
      } catch (const redisbloom::chunk_error&) {
        throw image;
      }
    }
  }
  try {
    return redisbloom_header(data);
  } catch (const redisbloom::chunk_error& e) {
    throw image_error(std::string("neither a bloomkit filter image nor a RedisBloom header (") +
                      e.what() + ")");
  }
}

}  // namespace bloomkit::redis_module
