#include "bloomkit/redis/go_zero_filter.hpp"

#include <memory>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "single_string_layout.hpp"

namespace bloomkit::redis {

namespace {

// go-zero's layout: a key's k bits at go-zero's positions (compat/go_zero.hpp).
class go_zero_layout final : public detail::single_string_layout {
 public:
  using single_string_layout::single_string_layout;
  void offsets(std::string_view key, std::span<std::uint64_t> out) const override {
    go_zero::positions(key, bits(), out);
  }
};

std::unique_ptr<const detail::single_string_layout> make_layout(std::string key, std::uint64_t bits,
                                                                std::uint32_t hashes) {
  bloomkit::detail::with_context([&] { return "go-zero filter key '" + key + "': "; },
                                 [&] { go_zero::check_any_k_params(bits, hashes); });
  return std::make_unique<go_zero_layout>("go-zero", std::move(key), bits, hashes);
}

}  // namespace

go_zero_filter::go_zero_filter(client& c, std::string key, std::uint64_t bits,
                               go_zero_options options)
    : single_string_filter(c, make_layout(std::move(key), bits, options.hashes),
                           options.keys_per_command) {}

}  // namespace bloomkit::redis
