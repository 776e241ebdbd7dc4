#pragma once
// The batch layout of a peer's single-string filter (internal; single_string_filter.hpp): the
// one Redis string `key`, a key's k bits at the peer's offsets (u1 cells), no guard and no
// length check (the peers read a missing string as an empty filter), or a length check for a
// string that holds a header before its bits (spark_filter.cpp: Spark's writeTo bytes; its
// header's bytes are left out of BITCOUNT). A peer supplies only its offsets (go_zero_filter.cpp,
// guava_helper_filter.cpp, spark_filter.cpp).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "batch_engine.hpp"

namespace bloomkit::redis::detail {

class single_string_layout : public batch_layout {
 public:
  // `peer` names the filter's kind in messages: "go-zero" gives "go-zero filter key 'users'".
  single_string_layout(std::string peer, std::string key, std::uint64_t bits, std::uint32_t hashes)
      : peer_(std::move(peer)), key_(std::move(key)), bits_(bits), hashes_(hashes) {}
  // A string of `header_bytes` bytes before the filter's, `bytes` long in all: a missing or short
  // string is an error, never an empty filter.
  single_string_layout(std::string peer, std::string key, std::uint64_t bits, std::uint32_t hashes,
                       std::uint64_t header_bytes, std::uint64_t bytes)
      : single_string_layout(std::move(peer), std::move(key), bits, hashes) {
    header_bytes_ = header_bytes;
    check_ = {string_check::kind::length, 0, bytes};
  }

  const cell_codec& codec() const noexcept final { return codec_; }
  string_check check() const noexcept final { return check_; }
  // Bytes before the filter's bits (BITCOUNT starts after them).
  std::uint64_t header_bytes() const noexcept { return header_bytes_; }
  void place(std::string_view key, cell_op, placement_sink& out) const final {
    offsets(key, {out.add(0, hashes_), hashes_});
  }
  std::string string_key(std::uint64_t) const final { return key_; }
  std::string describe_command(std::string text) const final {
    return describe() + " (" + text + ")";
  }

  // The peer's offsets of `key`, out.size() == hashes().
  virtual void offsets(std::string_view key, std::span<std::uint64_t> out) const = 0;

  std::string describe() const { return peer_ + " filter key '" + key_ + "'"; }
  const std::string& key() const noexcept { return key_; }
  std::uint64_t bits() const noexcept { return bits_; }
  std::uint32_t hashes() const noexcept { return hashes_; }

 private:
  std::string peer_;
  std::string key_;
  std::uint64_t bits_;
  std::uint32_t hashes_;
  std::uint64_t header_bytes_ = 0;
  string_check check_;
  cell_codec codec_;
};

}  // namespace bloomkit::redis::detail
