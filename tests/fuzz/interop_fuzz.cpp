// Fuzz target for the interop codecs: the first byte picks the reader, the rest is its input.
//   0 Guava stream (bytes)        1 Guava stream (istream)
//   2 bits-and-blooms WriteTo     3 bits-and-blooms JSON
//   4 go-zero Redis string (bits = 8 * size minus the second byte % 8)
// Any input must end in a filter or a bloomkit::error. A filter must then be usable and survive
// its own writer: write, read back, equal.

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <variant>

#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"

namespace {

using namespace bloomkit;

template <class Filter>
void use(Filter& f) {
  f.insert("fuzz");
  if (!f.contains("fuzz")) std::abort();
  (void)f.estimated_count();
}

void guava_round_trip(guava::any_filter& any) {
  std::visit(
      [](auto& f) {
        use(f);
        const auto bytes = guava::write(f);
        const auto again = guava::read(bytes, "round trip");
        if (again.index() != (f.scheme() == hash_scheme::guava_murmur128_mitz_32 ? 0u : 1u)) {
          std::abort();
        }
        if (!(std::get<std::decay_t<decltype(f)>>(again) == f)) std::abort();
      },
      any);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const unsigned char> input(data + 1, size - 1);
  const std::string text(input.begin(), input.end());
  try {
    switch (data[0] % 5) {
      case 0: {
        auto f = guava::read(input, "fuzz");
        guava_round_trip(f);
        break;
      }
      case 1: {
        std::istringstream in(text);
        auto f = guava::read(in, "fuzz");
        guava_round_trip(f);
        break;
      }
      case 2:
      case 3: {
        auto f = data[0] % 5 == 2 ? bits_and_blooms::read(input, "fuzz")
                                  : bits_and_blooms::read_json(text, "fuzz");
        use(f);
        if (!(bits_and_blooms::read(bits_and_blooms::write(f), "rt") == f)) std::abort();
        if (!(bits_and_blooms::read_json(bits_and_blooms::write_json(f), "rt") == f)) std::abort();
        break;
      }
      default: {
        if (input.empty()) break;
        const std::uint64_t bits = 8 * input.size() - input[0] % 8;
        auto f = go_zero::from_redis(input.subspan(1), bits, "fuzz");
        use(f);
        if (!(go_zero::from_redis(go_zero::to_redis(f), bits, "rt") == f)) std::abort();
        break;
      }
    }
  } catch (const error&) {
  }
  return 0;
}
