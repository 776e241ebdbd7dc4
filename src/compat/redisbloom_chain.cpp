// bloomkit::redisbloom::chain: making, copying and releasing a chain, its links' storage and its
// figures (redisbloom.hpp). Adds and lookups are in redisbloom_probe.cpp.

#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

[[noreturn]] void chain_corrupt(const std::string& what) {
  throw error(errc::corrupt_file, "RedisBloom filter: " + what);
}

std::string link_name(std::size_t i) {
  return "link " + std::to_string(i) + ": ";
}

}  // namespace

void chain::append_link(const link_fields& f) {
  if (filters() >= max_chain_links) {
    throw error(errc::too_large,
                "RedisBloom filter: more than " + std::to_string(max_chain_links) + " links");
  }
  if (auto problem = storage_problem(f)) chain_corrupt(link_name(filters()) + *problem);
  storage_allocator& allocator = allocator_ != nullptr ? *allocator_ : current_storage_allocator();
  const std::uint64_t words = (f.bytes + 7) / 8;
  // Room for the new table first: a failure leaves the chain as it was.
  const std::size_t n = filters();
  auto* table = static_cast<link_slot*>(::operator new(sizeof(link_slot) * (n + 1)));
  storage_block block;
  try {
    block = allocator.allocate(static_cast<std::size_t>(words * 8));
  } catch (...) {
    ::operator delete(table);
    throw;
  }
  if (block.bytes > link_slot::low48) {
    allocator.deallocate(block);
    ::operator delete(table);
    throw error(errc::too_large,
                "RedisBloom filter: an allocation of " + std::to_string(block.bytes) + " bytes");
  }
  if (n != 0) std::memcpy(static_cast<void*>(table), links_, sizeof(link_slot) * n);
  link_slot& s = table[n];
  s = link_slot{};
  s.words = block.words;
  s.base = block.base;
  s.held_hashes = block.bytes | static_cast<std::uint64_t>(f.hashes) << 48;
  s.bytes_n2_gap = f.bytes | static_cast<std::uint64_t>(f.n2) << 48 | (f.bytes * 8 - f.bits) << 56;
  s.entries = f.entries;
  s.size = f.size;
  s.error = f.error;
  s.bpe = f.bpe;
  ::operator delete(links_);
  links_ = table;
  allocator_ = &allocator;
  count_options_ = (count_options_ & ~max_chain_links) | static_cast<std::uint32_t>(n + 1);
}

void chain::release() noexcept {
  for (std::size_t i = 0; i < filters(); ++i) {
    const link_slot& s = links_[i];
    allocator_->deallocate(storage_block{s.words, s.base, static_cast<std::size_t>(s.held())});
  }
  ::operator delete(links_);
  links_ = nullptr;
  count_options_ &= ~max_chain_links;
}

chain chain::make(std::uint64_t capacity, double error_rate, std::uint32_t options,
                  std::uint32_t growth) {
  if ((options & ~known_options) != 0) {
    throw error(errc::invalid_argument,
                "RedisBloom filter: unknown options " + std::to_string(options));
  }
  const double tightening = (options & option_no_scaling) != 0 ? 1 : error_tightening;
  link_fields first = size_link(capacity, error_rate * tightening, options);
  chain c = chain_access::empty(0, options, growth);
  c.append_link(first);
  return c;
}

chain chain::reserve(std::uint64_t capacity, double error_rate, std::uint32_t expansion,
                     bool non_scaling, bool bloomkit_hashing) {
  // RedisBloom caps a scaling filter's rate at 0.25 before halving it for the first link.
  if (!non_scaling && error_rate > 0.25) error_rate = 0.25;
  return make(capacity, error_rate,
              created_options | (non_scaling ? option_no_scaling : 0) |
                  (bloomkit_hashing ? option_bloomkit_hash : 0),
              expansion);
}

chain chain::from_fields(std::uint64_t size, std::uint32_t options, std::uint32_t growth,
                         std::span<const link_fields> links) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (auto problem = link_problem(links[i])) chain_corrupt(link_name(i) + *problem);
    if (links[i].size > UINT64_MAX - total) chain_corrupt("item counts overflow");
    total += links[i].size;
  }
  if (total != size) {
    chain_corrupt(std::to_string(size) + " items, but its links hold " + std::to_string(total));
  }
  return detail::chain_of_links(size, options, growth, links);
}

namespace detail {
chain chain_of_links(std::uint64_t size, std::uint32_t options, std::uint32_t growth,
                     std::span<const link_fields> links) {
  if (links.empty()) chain_corrupt("no links");
  if (links.size() > max_links) {
    chain_corrupt(std::to_string(links.size()) + " links: more than " + std::to_string(max_links));
  }
  if ((options & ~known_options) != 0) chain_corrupt("unknown options " + std::to_string(options));
  // Every link is checked before any bits are allocated.
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (auto problem = storage_problem(links[i])) chain_corrupt(link_name(i) + *problem);
  }
  chain c = chain_access::empty(size, options, growth);
  for (const link_fields& f : links) chain_access::append(c, f);
  return c;
}
}  // namespace detail

chain::chain(const chain& other)
    : size_(other.size_),
      count_options_(other.count_options_ & ~max_chain_links),
      growth_(other.growth_) {
  try {
    for (std::size_t i = 0; i < other.filters(); ++i) {
      append_link(other.link(i));
      std::memcpy(links_[i].words, other.links_[i].words, (other.links_[i].bytes() + 7) / 8 * 8);
    }
  } catch (...) {
    release();
    throw;
  }
}

chain& chain::operator=(const chain& other) {
  if (this != &other) *this = chain(other);
  return *this;
}

chain::chain(chain&& other) noexcept
    : links_(other.links_),
      size_(other.size_),
      allocator_(other.allocator_),
      count_options_(other.count_options_),
      growth_(other.growth_) {
  other.links_ = nullptr;
  other.count_options_ &= ~max_chain_links;
}

chain& chain::operator=(chain&& other) noexcept {
  if (this != &other) {
    release();
    links_ = other.links_;
    size_ = other.size_;
    allocator_ = other.allocator_;
    count_options_ = other.count_options_;
    growth_ = other.growth_;
    other.links_ = nullptr;
    other.count_options_ &= ~max_chain_links;
  }
  return *this;
}

chain::~chain() {
  release();
}

std::uint64_t chain::capacity() const noexcept {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < filters(); ++i) total += links_[i].entries;
  return total;
}

std::optional<std::uint32_t> chain::expansion() const noexcept {
  if (!scaling()) return std::nullopt;
  return growth_;
}

std::uint64_t chain::info_size() const noexcept {
  // RedisBloom's sizeof(SBChain) and sizeof(SBLink) on 64-bit builds.
  return 32 + 64 * static_cast<std::uint64_t>(filters()) + bit_bytes();
}

std::uint64_t chain::bit_bytes() const noexcept {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < filters(); ++i) total += links_[i].bytes();
  return total;
}

std::uint64_t chain::memory_bytes() const noexcept {
  std::uint64_t total = sizeof(chain) + sizeof(link_slot) * static_cast<std::uint64_t>(filters());
  for (std::size_t i = 0; i < filters(); ++i) total += (links_[i].bytes() + 7) / 8 * 8;
  return total;
}

std::vector<std::string> chain::debug_lines() const {
  std::vector<std::string> lines;
  lines.reserve(filters() + 1);
  lines.push_back("size:" + std::to_string(size_));
  for (std::size_t i = 0; i < filters(); ++i) {
    const link_slot& s = links_[i];
    char ratio[40];
    std::snprintf(ratio, sizeof ratio, "%g", s.error);
    // RedisBloom prints bits, or 2^n2 for a link without a bit count.
    const std::uint64_t bits = s.bits() != 0 ? s.bits() : std::uint64_t{1} << s.n2();
    lines.push_back("bytes:" + std::to_string(s.bytes()) + " bits:" + std::to_string(bits) +
                    " hashes:" + std::to_string(s.hashes()) +
                    " hashwidth:" + ((options() & option_force64) != 0 ? "64" : "32") +
                    " capacity:" + std::to_string(s.entries) + " size:" + std::to_string(s.size) +
                    " ratio:" + ratio);
  }
  return lines;
}

link_fields chain::link(std::size_t i) const noexcept {
  const link_slot& s = links_[i];
  link_fields f;
  f.entries = s.entries;
  f.error = s.error;
  f.bpe = s.bpe;
  f.hashes = s.hashes();
  f.bytes = s.bytes();
  f.bits = s.bits();
  f.n2 = static_cast<std::uint8_t>(s.n2());
  f.size = s.size;
  return f;
}

std::span<const unsigned char> chain::link_bits(std::size_t i) const noexcept {
  return {links_[i].data(), static_cast<std::size_t>(links_[i].bytes())};
}

std::span<unsigned char> chain::mutable_link_bits(std::size_t i) noexcept {
  return {links_[i].data(), static_cast<std::size_t>(links_[i].bytes())};
}

bool operator==(const chain& x, const chain& y) noexcept {
  if (x.size_ != y.size_ || x.count_options_ != y.count_options_ || x.growth_ != y.growth_) {
    return false;
  }
  for (std::size_t i = 0; i < x.filters(); ++i) {
    if (x.link(i) != y.link(i)) return false;
    const auto a = x.link_bits(i);
    const auto b = y.link_bits(i);
    if (std::memcmp(a.data(), b.data(), a.size()) != 0) return false;
  }
  return true;
}

}  // namespace bloomkit::redisbloom
