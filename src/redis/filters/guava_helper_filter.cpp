#include "bloomkit/redis/guava_helper_filter.hpp"

#include <memory>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "single_string_layout.hpp"

namespace bloomkit::redis {

namespace {

// The helper's layout: a key's k bits at the helper's murmurHashOffset (compat/guava_helper.hpp).
class guava_helper_layout final : public detail::single_string_layout {
 public:
  guava_helper_layout(std::string key, std::uint64_t bits, std::uint32_t hashes,
                      guava_helper::funnel funnel)
      : single_string_layout("guava-helper", std::move(key), bits, hashes), funnel_(funnel) {}
  void offsets(std::string_view key, std::span<std::uint64_t> out) const override {
    guava_helper::offsets(key, funnel_, bits(), out);
  }

 private:
  guava_helper::funnel funnel_;
};

std::unique_ptr<const detail::single_string_layout> make_layout(std::string key, std::uint64_t bits,
                                                                std::uint32_t hashes,
                                                                guava_helper::funnel funnel) {
  bloomkit::detail::with_context([&] { return "guava-helper filter key '" + key + "': "; },
                                 [&] { guava_helper::check_params(bits, hashes); });
  return std::make_unique<guava_helper_layout>(std::move(key), bits, hashes, funnel);
}

}  // namespace

guava_helper_filter::guava_helper_filter(client& c, std::string key, std::uint64_t bits,
                                         std::uint32_t hashes, guava_helper_options options)
    : single_string_filter(c, make_layout(std::move(key), bits, hashes, options.funnel),
                           options.keys_per_command) {}

}  // namespace bloomkit::redis
