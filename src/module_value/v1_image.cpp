// Version 1 images (image_reader.hpp): written by the module before the file format became its
// image (docs/REDIS.md, "Version 1 images"); read and converted to the registry's filter, then
// saved as version 2. A header (magic, version, kind byte, nonscaling, the chain's or window's
// parameters, each sub-filter's config, count and bits, payload length and XXH64, then the XXH64
// of the header itself), then every sub-filter's words in order, little-endian.

#include <xxhash.h>

#include <bit>
#include <cstring>
#include <iterator>
#include <optional>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/kind_parts.hpp"
#include "chunk_iterator.hpp"
#include "image_reader.hpp"

namespace bloomkit::redis_module {

namespace {

static_assert(std::endian::native == std::endian::little,
              "images are little-endian words, written as they lie in memory");

constexpr std::size_t max_parts = 256;  // sub-filters of a chain, slots of a window
// A bound on a sub-filter's bits that no real filter reaches (2^46 bits = 8 TiB), so that a
// header cannot ask for an absurd allocation.
constexpr std::uint64_t max_part_bits = std::uint64_t{1} << 46;

class byte_reader {
 public:
  explicit byte_reader(std::string_view in) : in_(in) {}
  template <class T>
  T get() {
    if (in_.size() < sizeof(T)) throw image_error("filter image header is truncated");
    T value;
    std::memcpy(&value, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return value;
  }
  std::size_t left() const noexcept { return in_.size(); }

 private:
  std::string_view in_;
};

// The kinds of version 1 images, by their kind byte: the registry's kind and hash scheme.
struct image_kind {
  filter_kind kind;
  hash_scheme scheme;
};
constexpr image_kind v1_kinds[] = {
    {filter_kind::scalable, hash_scheme::xxh3_64_split_block},
    {filter_kind::blocked, hash_scheme::xxh3_64_split_block},
    {filter_kind::classic, hash_scheme::xxh3_128},
    {filter_kind::counting, hash_scheme::xxh3_128},
    {filter_kind::window, hash_scheme::xxh3_64_split_block},
};
constexpr std::uint8_t v1_kind_count = std::size(v1_kinds);

std::uint64_t hash_pieces(const std::vector<std::string_view>& pieces) {
  XXH64_state_t* state = XXH64_createState();
  if (state == nullptr) throw image_error("out of memory hashing a filter image");
  XXH64_reset(state, 0);
  for (std::string_view piece : pieces) XXH64_update(state, piece.data(), piece.size());
  const std::uint64_t hash = XXH64_digest(state);
  XXH64_freeState(state);
  return hash;
}

class v1_reader final : public image_loader::reader {
 public:
  explicit v1_reader(std::string_view header);
  std::size_t allocated_bytes() const noexcept override;
  std::vector<std::uint64_t> allocations_for(std::uint64_t bytes) const override;
  std::uint32_t shape_tag() const noexcept override;
  std::vector<std::string_view> loaded_payload() const override;
  void append(std::string_view bytes) override;
  module_filter finish() override;

 private:
  std::uint8_t kind_ = 0;
  bool nonscaling_ = false;
  scalable_config chain_;
  window_config window_;
  std::uint64_t window_inserts_ = 0;
  std::vector<filter_config> configs_;
  std::vector<std::uint64_t> inserted_;
  std::vector<std::uint64_t> slot_slices_;
  std::vector<std::uint64_t> part_bits_;
  std::vector<std::uint64_t> part_bytes_;
  // The parts allocated so far: one per part whose first byte has arrived (append).
  std::vector<bit_array> words_;
  std::uint64_t payload_hash_ = 0;
};

v1_reader::v1_reader(std::string_view header) : reader(header) {
  if (header.size() < sizeof(std::uint64_t)) throw image_error("filter image header is truncated");
  const std::string_view body = header.substr(0, header.size() - sizeof(std::uint64_t));
  std::uint64_t stored_hash = 0;
  std::memcpy(&stored_hash, header.data() + body.size(), sizeof stored_hash);
  if (XXH64(body.data(), body.size(), 0) != stored_hash) {
    throw image_error("filter image header checksum mismatch");
  }
  byte_reader r(body);
  if (r.get<std::uint32_t>() != image_magic) throw image_error("not a bloomkit filter image");
  if (const auto version = r.get<std::uint32_t>(); version != 1) {
    throw image_error("filter image version " + std::to_string(version) + " is not supported");
  }
  kind_ = r.get<std::uint8_t>();
  if (kind_ >= v1_kind_count) {
    throw image_error("filter image of unknown kind " + std::to_string(kind_));
  }
  nonscaling_ = r.get<std::uint8_t>() != 0;
  const filter_kind kind = v1_kinds[kind_].kind;
  if (kind == filter_kind::scalable) {
    chain_.initial_capacity = r.get<std::uint64_t>();
    chain_.target_fpp = r.get<double>();
    chain_.growth = r.get<std::uint32_t>();
    chain_.tightening = r.get<double>();
    chain_.memory_ceiling = r.get<std::uint64_t>();
  }
  if (kind == filter_kind::window) {
    window_.capacity = r.get<std::uint64_t>();
    window_.target_fpp = r.get<double>();
    window_.length = r.get<std::uint64_t>();
    window_.unit = static_cast<window_unit>(r.get<std::uint32_t>());
    window_.slices = r.get<std::uint32_t>();
    window_inserts_ = r.get<std::uint64_t>();
  }
  const auto parts = r.get<std::uint32_t>();
  const bool composite = kind == filter_kind::scalable || kind == filter_kind::window;
  if (parts == 0 || parts > max_parts || (!composite && parts != 1)) {
    throw image_error("filter image has " + std::to_string(parts) + " sub-filters");
  }
  std::uint64_t expected_bytes = 0;
  for (std::uint32_t i = 0; i < parts; ++i) {
    filter_config c;
    c.cells = r.get<std::uint64_t>();
    c.hashes = r.get<std::uint32_t>();
    c.capacity = r.get<std::uint64_t>();
    c.target_fpp = r.get<double>();
    configs_.push_back(c);
    inserted_.push_back(r.get<std::uint64_t>());
    const auto bits = r.get<std::uint64_t>();
    if (bits == 0 || bits > max_part_bits) {
      throw image_error("filter image sub-filter of " + std::to_string(bits) + " bits");
    }
    if (kind == filter_kind::window) slot_slices_.push_back(r.get<std::uint64_t>());
    part_bits_.push_back(bits);
    part_bytes_.push_back(bit_array::word_count_for(bits) * sizeof(std::uint64_t));
    expected_bytes += part_bytes_.back();
  }
  payload_bytes_ = r.get<std::uint64_t>();
  payload_hash_ = r.get<std::uint64_t>();
  if (r.left() != 0) throw image_error("filter image header has trailing bytes");
  if (payload_bytes_ != expected_bytes) {
    throw image_error("filter image payload length does not match its sub-filters");
  }
  // No part is allocated yet: append() allocates each when its first byte arrives, so a header
  // alone (a hostile BF.LOADCHUNK, a corrupt RDB value) never gets the memory it declares.
}

std::size_t v1_reader::allocated_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const bit_array& words : words_) bytes += words.allocated_bytes();
  return bytes;
}

std::vector<std::uint64_t> v1_reader::allocations_for(std::uint64_t bytes) const {
  std::vector<std::uint64_t> sizes;
  const std::uint64_t end = loaded_ + std::min(bytes, payload_bytes_ - loaded_);
  std::uint64_t start = 0;
  for (std::size_t i = 0; i < part_bytes_.size() && start < end; ++i) {
    if (i >= words_.size()) sizes.push_back(part_bytes_[i]);
    start += part_bytes_[i];
  }
  return sizes;
}

std::uint32_t v1_reader::shape_tag() const noexcept {
  return chunk_shape_tag(kind_, part_bytes_);
}

std::vector<std::string_view> v1_reader::loaded_payload() const {
  std::vector<std::string_view> pieces;
  std::uint64_t left = loaded_;
  for (const bit_array& words : words_) {
    if (left == 0) break;
    const std::string_view all = bytes_of(words.words());
    pieces.push_back(all.substr(0, std::min<std::uint64_t>(left, all.size())));
    left -= pieces.back().size();
  }
  return pieces;
}

void v1_reader::append(std::string_view bytes) {
  if (bytes.size() > payload_bytes_ - loaded_) {
    throw image_error("filter image payload is longer than its header says");
  }
  std::uint64_t skip = loaded_;
  for (std::size_t i = 0; i < part_bytes_.size() && !bytes.empty(); ++i) {
    const std::uint64_t size = part_bytes_[i];
    if (skip >= size) {
      skip -= size;
      continue;
    }
    if (i == words_.size()) {  // the part's first byte: bytes arrive in order
      try {
        words_.emplace_back(part_bits_[i]);
      } catch (const error& e) {
        throw image_error(std::string("filter image cannot be allocated: ") + e.what());
      }
    }
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - skip, bytes.size()));
    std::memcpy(reinterpret_cast<char*>(words_[i].mutable_words().data()) + skip, bytes.data(), n);
    bytes.remove_prefix(n);
    loaded_ += n;
    skip = 0;
  }
}

module_filter v1_reader::finish() {
  if (loaded_ != payload_bytes_) throw image_error("filter image payload is incomplete");
  if (hash_pieces(loaded_payload()) != payload_hash_) {
    throw image_error("filter image payload checksum mismatch");
  }
  using detail::filter_access;
  try {
    std::optional<module_filter> out;
    const auto build = [&]<class Filter>(std::size_t i) {
      return filter_access::make<Filter>(configs_[i], std::move(words_[i]), inserted_[i]);
    };
    const auto build_all = [&]<class Filter>() {
      std::vector<Filter> parts;
      for (std::size_t i = 0; i < configs_.size(); ++i) {
        parts.push_back(build.template operator()<Filter>(i));
      }
      return parts;
    };
    // The registry's filter of the image's kind and scheme.
    const auto try_one = [&]<class Filter>() {
      if (out || kind_traits<Filter>::kind != v1_kinds[kind_].kind ||
          kind_traits<Filter>::scheme != v1_kinds[kind_].scheme) {
        return;
      }
      using parts = kind_parts<Filter>;
      if constexpr (parts::is_chain) {
        using sub = typename Filter::sub_filter_type;
        out = module_filter{
            filter_access::make_chain<Filter>(chain_, build_all.template operator()<sub>()),
            nonscaling_};
      } else if constexpr (parts::has_slot_filters) {
        using sub = typename Filter::sub_filter_type;
        out = module_filter{
            filter_access::make_window<Filter>(window_, build_all.template operator()<sub>(),
                                               slot_slices_, window_inserts_),
            nonscaling_};
      } else if constexpr (kind_traits<Filter>::kind != filter_kind::window &&
                           kind_traits<Filter>::kind != filter_kind::static_set &&
                           kind_traits<Filter>::kind != filter_kind::cuckoo) {
        // (v1 images predate windows of grouped words, static and cuckoo filters)
        out = module_filter{build.template operator()<Filter>(0), nonscaling_};
      }
    };
    [&]<class... Filters>(filter_list<Filters...>) {
      (try_one.template operator()<Filters>(), ...);
    }(native_filters{});
    return std::move(*out);
  } catch (const error& e) {
    throw image_error(std::string("filter image fields are inconsistent: ") + e.what());
  }
}

}  // namespace

std::unique_ptr<image_loader::reader> read_v1_image(std::string_view header) {
  return std::make_unique<v1_reader>(header);
}

}  // namespace bloomkit::redis_module
