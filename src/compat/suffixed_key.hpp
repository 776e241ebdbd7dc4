#pragma once
// Internal: a key followed by one byte, as go-zero (byte(i)) and bits-and-blooms (1) hash it;
// keys under 256 bytes are copied to the stack, not the heap.

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace bloomkit::compat::detail {

class suffixed_key {
 public:
  explicit suffixed_key(std::string_view key) : size_(key.size()) {
    if (size_ + 1 > sizeof small_) {
      large_.resize(size_ + 1);
      buffer_ = large_.data();
    }
    if (size_ != 0) std::memcpy(buffer_, key.data(), size_);
  }
  suffixed_key(const suffixed_key&) = delete;
  suffixed_key& operator=(const suffixed_key&) = delete;

  // The key's bytes followed by `last`; valid until the next call.
  std::string_view with(char last) noexcept {
    buffer_[size_] = last;
    return {buffer_, size_ + 1};
  }

 private:
  char small_[256];
  std::string large_;
  char* buffer_ = small_;
  std::size_t size_;
};

}  // namespace bloomkit::compat::detail
