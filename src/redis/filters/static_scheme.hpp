#pragma once
// bloomkit::static_filter seen from Redis (internal; docs/REDIS.md, "Static filters"): the one
// place that knows how a static table finds a key's cells and how a static_filter becomes the
// strings of a generation and back. Everything else works on static_generation.

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/static_filter.hpp"
#include "static_meta.hpp"

namespace bloomkit::redis::detail {

// The hash scheme a static filter's meta records (that of its files).
inline constexpr std::uint32_t static_scheme_number =
    static_cast<std::uint32_t>(hash_scheme::xxh3_64_binary_fuse);

struct static_probe {
  std::uint64_t fingerprint = 0;         // as the table stores it (low bit first)
  std::array<std::uint64_t, 3> cells{};  // ascending cell numbers in the table
};
// Key hash h (XXH3-64) in a table of b-bit cells.
static_probe probe_table(const static_table& t, std::uint32_t bits, std::uint64_t h) noexcept;

// A static filter as the material of a generation: its tables (the generation's fields, delta
// left empty) and each table's cells packed low bit first, exactly ceil(cells * b / 8) bytes.
struct static_image {
  static_generation generation;
  double target_fpp = 0;
  std::vector<std::vector<unsigned char>> cells;  // one per table
};
static_image image_of(const bloomkit::static_filter& f);
// A static filter of target p built from the keys of `source` (duplicates allowed), as an
// image; `given` counts the keys the source gave.
static_image build_image(const key_source& source, double fpp, std::uint64_t& given);
// The filter back from its image (pull).
bloomkit::static_filter filter_of(const static_image& image);

// A static filter file as an image (push), and an image as a file (pull; atomically, as
// bloomkit saves every file). Loading errors are the file loader's; another kind of file is
// errc::unsupported naming it.
static_image load_static_file(const std::filesystem::path& file);
void save_static_file(const static_image& image, const std::filesystem::path& file);

// The fingerprint bits a static filter of target p takes, and the FPP they give.
std::uint32_t fingerprint_bits_for(double fpp);
double fingerprint_fpp(std::uint32_t bits);

}  // namespace bloomkit::redis::detail
