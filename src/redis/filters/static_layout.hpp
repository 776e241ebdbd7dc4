#pragma once
// The batch layout of a static generation's tables (internal; docs/REDIS.md, "Static filters"):
// a key's three b-bit cells, read with BITFIELD_RO GET u<b> #<cell> from the strings of its
// table (one to three strings; each command reads the string's guard bit first), answering
// present when the three values XOR to the key's fingerprint (cell_codec::xor_reads). The
// delta beside it (delta_layout) is a word-blocked filter over strings 0 .. D-1 of the same
// generation.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "batch_engine.hpp"
#include "static_meta.hpp"
#include "window_layout.hpp"

namespace bloomkit::redis::detail {

class static_layout final : public batch_layout {
 public:
  static_layout(std::string name, std::uint64_t generation,
                std::shared_ptr<const static_generation> g);

  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return {string_check::kind::guard_bit, 0, 0}; }
  // Reads only: a static table takes no writes.
  void place(std::string_view key, cell_op op, placement_sink& out) const override;
  std::string string_key(std::uint64_t string) const override;
  std::uint64_t guard_bit_of(std::uint64_t string) const override;

 private:
  std::string name_;
  std::uint64_t generation_;
  std::shared_ptr<const static_generation> g_;
  cell_codec codec_;
};

// The delta of a static generation: a word-blocked filter of 64-bit words (the words format of
// window filters, window_layout.hpp, as one slice: generation g's strings N:g:0 .. D-1), so a
// lookup reads one `GET i64` per key where a native delta would read k bits; every command
// reads the shard's guard bit first.
class delta_layout final : public batch_layout {
 public:
  delta_layout(std::string name, const shard_layout& delta, std::uint64_t generation)
      : words_(std::move(name), delta, {generation}, window_slice_format::words),
        guard_bit_(delta.guard_bit()) {}

  const cell_codec& codec() const noexcept override { return words_.codec(); }
  string_check check() const noexcept override {
    return {string_check::kind::guard_bit, guard_bit_, 0};
  }
  void place(std::string_view key, cell_op op, placement_sink& out) const override {
    words_.place(key, op, out);
  }
  std::string string_key(std::uint64_t string) const override { return words_.string_key(string); }

 private:
  window_layout words_;
  std::uint64_t guard_bit_;
};

// The guard bit of a string of `bits` bits: its last bit (shard_layout::guard_bit).
constexpr std::uint64_t string_guard_bit(std::uint64_t bits) noexcept {
  return (bits / 8 + 1) * 8 - 1;
}

}  // namespace bloomkit::redis::detail
