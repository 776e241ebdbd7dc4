#pragma once
// The golden images of module values (tests/data/golden/module, written by tools/golden/generate
// with bloomkit_module_golden_writer): for each type a module key can hold, a small filter of
// fixed keys as the image RDB values, AOF rewrites, DUMP and BF.SCANDUMP carry (its header, then
// its payload), and a text file of lines "<field> <value...>" (vector_text.hpp):
//   image F (the image's bytes), version V, header_bytes N (the header's part of them),
//   nonscaling 0|1, capacity N, items N, filters N, expansion N|none (BF.INFO's figures),
//   insert KEY / remove KEY (the operations that made it, in order), probe KEY 0|1 (its answers).
// Images live in users' RDB files for ever: a change to any of them is a format change.

#include <cstdint>
#include <string>
#include <vector>

#include "module_value/module_filter.hpp"
#include "support/vector_text.hpp"

namespace bloomkit::test {

struct module_golden_case {
  std::string name;
  std::uint64_t inserts = 0;  // keys "golden-0" ... in order
  std::uint64_t removes = 0;  // then removals of the first keys (counting only)
};

// The cases, one per type a module value can hold (and NONSCALING). Version 1 images exist of
// the first six (the types the module held then).
inline std::vector<module_golden_case> module_golden_cases() {
  return {{"scalable_blocked", 200, 0}, {"blocked_nonscaling", 100, 0},
          {"blocked", 150, 0},          {"classic", 150, 0},
          {"counting", 150, 20},        {"blocked_window", 300, 0},
          {"scalable", 200, 0},         {"window", 300, 0},
          {"classic_window", 300, 0}};
}

inline std::string module_golden_key(std::uint64_t i) {
  return "golden-" + std::to_string(i);
}
inline std::string module_golden_absent(std::uint64_t i) {
  return "absent-" + std::to_string(i);
}

// The empty filter of a case, as the module's commands make it.
inline redis_module::module_filter module_golden_empty(const std::string& name) {
  using namespace redis_module;
  // BF.RESERVE's layouts before issue 29 (keys saved then still load): since then BF.* makes
  // RedisBloom's chain with bloomkit's hashing (make_bf_chain, redisbloom_keys.hpp).
  if (name == "scalable_blocked") {
    return {scalable_blocked_bloom_filter(scalable_config{50, 0.01, 2}), false};
  }
  if (name == "blocked_nonscaling") return {blocked_bloom_filter::for_capacity(100, 0.01), true};
  if (name == "blocked") return {blocked_bloom_filter::for_capacity(100, 0.01)};
  if (name == "classic") return {bloom_filter::for_capacity(100, 0.01)};
  if (name == "counting") return {counting_bloom_filter::for_capacity(100, 0.01)};
  if (name == "blocked_window") {
    return {blocked_window_filter(window_config{100, 0.01, 100, window_unit::inserts, 4})};
  }
  if (name == "scalable") {
    kind_request r;
    r.initial_capacity = 50;
    r.target_fpp = 0.01;
    return {kind_traits<scalable_bloom_filter>::create(r)};
  }
  const window_config window{100, 0.01, 100, window_unit::inserts, 4};
  if (name == "window") return {window_filter(window)};
  if (name == "classic_window") return {classic_window_filter(window)};
  throw std::runtime_error("no module golden case " + name);
}

}  // namespace bloomkit::test
