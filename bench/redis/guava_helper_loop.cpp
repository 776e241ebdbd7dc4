// bloomkit_guava_helper_loop: the Guava-based Redis helper's own bulk-load pattern, for
// bench/redis/run_guava_helper to compare `bloomkit redis --layout guava-helper add` with: for
// each key (one per line of stdin), the helper's murmurHashOffset (the same offsets:
// compat/guava_helper.hpp), then one synchronous `SETBIT key offset 1` round trip per offset, as
// a Redis template's setBit does. Prints one JSON line: keys, seconds, keys_per_second.
//
//   bloomkit_guava_helper_loop --url redis://127.0.0.1:6379 --key users --bits M --hashes K
//                              [--keys N] < keys.txt

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/redis/client.hpp"

namespace {

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bloomkit_guava_helper_loop --url URL --key KEY --bits M --hashes K "
               "[--keys N] < keys.txt\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string url, key;
  std::uint64_t bits = 0, limit = ~std::uint64_t{0};
  std::uint32_t hashes = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i], value = argv[i + 1];
    if (name == "--url") {
      url = value;
    } else if (name == "--key") {
      key = value;
    } else if (name == "--bits") {
      bits = std::stoull(value);
    } else if (name == "--hashes") {
      hashes = static_cast<std::uint32_t>(std::stoul(value));
    } else if (name == "--keys") {
      limit = std::stoull(value);
    } else {
      usage();
    }
  }
  if (url.empty() || key.empty() || argc % 2 == 0) usage();
  bloomkit::guava_helper::check_params(bits, hashes);
  std::vector<std::string> keys;
  for (std::string line; keys.size() < limit && std::getline(std::cin, line);) keys.push_back(line);

  auto c = bloomkit::redis::client::connect(url);
  std::vector<std::uint64_t> offsets(hashes);
  const auto start = std::chrono::steady_clock::now();
  for (const auto& k : keys) {
    bloomkit::guava_helper::offsets(k, bloomkit::guava_helper::funnel::string, bits, offsets);
    for (const auto o : offsets) {
      c.execute(bloomkit::redis::command{{"SETBIT", key, std::to_string(o), "1"}});
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"keys\": %zu, \"seconds\": %.3f, \"keys_per_second\": %.1f}\n", keys.size(),
              seconds, static_cast<double>(keys.size()) / seconds);
}
