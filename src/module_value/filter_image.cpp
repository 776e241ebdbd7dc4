// The image of a module filter (filter_image.hpp).

#include "filter_image.hpp"

#include <xxhash.h>

#include <bit>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>

#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/error.hpp"
#include "chunk_iterator.hpp"

namespace bloomkit::redis_module {

namespace {

static_assert(std::endian::native == std::endian::little,
              "images are little-endian words, written as they lie in memory");

constexpr std::uint32_t image_magic = 0x4d524b42;  // "BKRM"
constexpr std::uint32_t image_version = image_version_written;
constexpr std::size_t max_parts = 256;  // sub-filters of a chain, slots of a window
// A bound on a sub-filter's bits that no real filter reaches (2^46 bits = 8 TiB), so that a
// header cannot ask for an absurd allocation.
constexpr std::uint64_t max_part_bits = std::uint64_t{1} << 46;

class byte_writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  std::string take() && { return std::move(out_); }
  const std::string& bytes() const noexcept { return out_; }

 private:
  std::string out_;
};

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

std::string_view bytes_of(std::span<const std::uint64_t> words) {
  return {reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::uint64_t)};
}

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

template <class Filter>
std::uint8_t v1_kind_of() {
  for (std::uint8_t i = 0; i < v1_kind_count; ++i) {
    if (v1_kinds[i].kind == kind_traits<Filter>::kind &&
        v1_kinds[i].scheme == kind_traits<Filter>::scheme) {
      return i;
    }
  }
  throw image_error("a " + std::string(kind_traits<Filter>::name) + " filter with hash scheme " +
                    std::string(to_string(kind_traits<Filter>::scheme)) + " has no image");
}

// The sub-filters of a chain or window, or the filter itself, oldest first.
template <class Visit>
void for_each_part(const module_filter& f, Visit visit) {
  std::visit(
      [&]<class Filter>(const Filter& filter) {
        using parts = kind_parts<Filter>;
        v1_kind_of<Filter>();  // throws for a filter without an image
        if constexpr (parts::is_chain || parts::has_slot_filters) {
          for (const auto& part : parts::parts(filter)) visit(part);
        } else if constexpr (requires { filter.storage(); }) {
          visit(filter);
        }
      },
      f.filter);
}

std::uint64_t hash_pieces(const std::vector<std::string_view>& pieces) {
  XXH64_state_t* state = XXH64_createState();
  if (state == nullptr) throw image_error("out of memory hashing a filter image");
  XXH64_reset(state, 0);
  for (std::string_view piece : pieces) XXH64_update(state, piece.data(), piece.size());
  const std::uint64_t hash = XXH64_digest(state);
  XXH64_freeState(state);
  return hash;
}

}  // namespace

bool has_image(filter_kind kind, hash_scheme scheme) noexcept {
  for (const image_kind& k : v1_kinds) {
    if (k.kind == kind && k.scheme == scheme) return true;
  }
  return false;
}

std::vector<std::string_view> image_payload(const module_filter& f) {
  std::vector<std::string_view> pieces;
  for_each_part(f, [&](const auto& part) { pieces.push_back(bytes_of(part.storage().words())); });
  return pieces;
}

std::uint32_t image_shape_tag(const module_filter& f) {
  const auto kind =
      std::visit([]<class Filter>(const Filter&) { return v1_kind_of<Filter>(); }, f.filter);
  std::vector<std::uint64_t> part_bytes;
  for (std::string_view piece : image_payload(f)) part_bytes.push_back(piece.size());
  return chunk_shape_tag(kind, part_bytes);
}

std::string image_header(const module_filter& f) {
  byte_writer w;
  w.put(image_magic);
  w.put(image_version);
  std::span<const std::uint64_t> slot_slices;
  std::visit(
      [&]<class Filter>(const Filter& filter) {
        w.put(v1_kind_of<Filter>());
        w.put(static_cast<std::uint8_t>(f.nonscaling));
        if constexpr (kind_parts<Filter>::is_chain) {
          const scalable_config& p = filter.params();
          w.put(p.initial_capacity);
          w.put(p.target_fpp);
          w.put(p.growth);
          w.put(p.tightening);
          w.put(p.memory_ceiling);
        } else if constexpr (kind_parts<Filter>::has_slot_filters) {
          const window_config& c = filter.config();
          w.put(c.capacity);
          w.put(c.target_fpp);
          w.put(c.length);
          w.put(static_cast<std::uint32_t>(c.unit));
          w.put(c.slices);
          w.put(filter.insert_count());
          slot_slices = filter.slot_slices();
        }
      },
      f.filter);
  std::uint32_t parts = 0;
  for_each_part(f, [&](const auto&) { ++parts; });
  w.put(parts);
  std::size_t index = 0;
  for_each_part(f, [&](const auto& part) {
    w.put(part.cells());
    w.put(part.hashes());
    w.put(part.capacity());
    w.put(part.target_fpp());
    w.put(part.inserted());
    w.put(part.storage().size());
    if (!slot_slices.empty()) w.put(slot_slices[index]);
    ++index;
  });
  const std::vector<std::string_view> payload = image_payload(f);
  std::uint64_t payload_bytes = 0;
  for (std::string_view piece : payload) payload_bytes += piece.size();
  w.put(payload_bytes);
  w.put(hash_pieces(payload));
  w.put(static_cast<std::uint64_t>(XXH64(w.bytes().data(), w.bytes().size(), 0)));
  return std::move(w).take();
}

image_loader::image_loader(std::string_view header) : header_(header) {
  if (header.size() < sizeof(std::uint64_t)) throw image_error("filter image header is truncated");
  const std::string_view body = header.substr(0, header.size() - sizeof(std::uint64_t));
  std::uint64_t stored_hash = 0;
  std::memcpy(&stored_hash, header.data() + body.size(), sizeof stored_hash);
  if (XXH64(body.data(), body.size(), 0) != stored_hash) {
    throw image_error("filter image header checksum mismatch");
  }
  byte_reader r(body);
  if (r.get<std::uint32_t>() != image_magic) throw image_error("not a bloomkit filter image");
  if (const auto version = r.get<std::uint32_t>(); version != image_version) {
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

std::size_t image_loader::allocated_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const bit_array& words : words_) bytes += words.allocated_bytes();
  return bytes;
}

std::vector<std::uint64_t> image_loader::allocations_for(std::uint64_t bytes) const {
  std::vector<std::uint64_t> sizes;
  const std::uint64_t end = loaded_ + std::min(bytes, payload_bytes_ - loaded_);
  std::uint64_t start = 0;
  for (std::size_t i = 0; i < part_bytes_.size() && start < end; ++i) {
    if (i >= words_.size()) sizes.push_back(part_bytes_[i]);
    start += part_bytes_[i];
  }
  return sizes;
}

std::uint32_t image_loader::shape_tag() const noexcept {
  return chunk_shape_tag(kind_, part_bytes_);
}

std::vector<std::string_view> image_loader::loaded_payload() const {
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

void image_loader::append(std::string_view bytes) {
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

module_filter image_loader::finish() {
  if (!complete()) throw image_error("filter image payload is incomplete");
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
        out.emplace(filter_access::make_chain<Filter>(chain_, build_all.template operator()<sub>()),
                    nonscaling_);
      } else if constexpr (parts::has_slot_filters) {
        using sub = typename Filter::sub_filter_type;
        out.emplace(
            filter_access::make_window<Filter>(window_, build_all.template operator()<sub>(),
                                               slot_slices_, window_inserts_),
            nonscaling_);
      } else if constexpr (kind_traits<Filter>::kind != filter_kind::window) {
        out.emplace(build.template operator()<Filter>(0), nonscaling_);
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

}  // namespace bloomkit::redis_module
