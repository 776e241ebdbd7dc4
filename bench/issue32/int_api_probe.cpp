// Compiled at configure time (CMakeLists.txt): does the library have issue 32's integer-key API
// in the form int_keys_native.hpp calls it? If this does not compile, the harness measures
// integer keys through the string API.
#include <cstdint>
#include <vector>

#include "int_keys_native.hpp"

int main() {
  auto f = bloomkit::bench::issue32::make_int_filter(1000, 0.01);
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  bool results[3] = {};
  bloomkit::bench::issue32::insert_int_span(f, keys);
  return static_cast<int>(bloomkit::bench::issue32::contains_int_span(f, keys, results)) == 3 ? 0
                                                                                              : 1;
}
