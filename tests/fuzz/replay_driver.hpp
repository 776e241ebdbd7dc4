#pragma once
// The main of the fuzz targets' replay drivers (no libFuzzer needed, any compiler, any sanitizer
// preset): each driver builds its seeds from real inputs and hands them here.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "mutate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace bloomkit::test {

struct replay_plan {
  const char* name;            // printed: "<name>: N inputs, no crash"
  std::uint64_t rng_seed;      // the mutations are deterministic
  int rounds;                  // mutations per seed
  std::size_t head;            // mutate.hpp: the bytes where the headers are
  bool keep_selector = false;  // the first byte picks the decoder: mutate the rest only
};

// `--write-seeds DIR` writes the seeds to DIR as seed-<i> (a corpus for libFuzzer) and returns 0.
// Otherwise runs the target on the files given as arguments, then on every seed and plan.rounds
// mutations of each. Returns 1 when there are no seeds (the real inputs were not found).
inline int run_replay(int argc, char** argv, const std::vector<std::vector<std::uint8_t>>& seeds,
                      const replay_plan& plan) {
  if (seeds.empty()) {
    std::fprintf(stderr, "%s: no seeds\n", plan.name);
    return 1;
  }
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "--write-seeds" || i + 1 >= argc) {
      inputs.push_back(arg);
      continue;
    }
    const std::filesystem::path dir = argv[++i];
    std::filesystem::create_directories(dir);
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      std::ofstream out(dir / ("seed-" + std::to_string(s)), std::ios::binary);
      out.write(reinterpret_cast<const char*>(seeds[s].data()),
                static_cast<std::streamsize>(seeds[s].size()));
    }
    return 0;
  }
  std::size_t runs = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++runs;
  }
  std::mt19937_64 rng(plan.rng_seed);
  for (const auto& seed : seeds) {
    LLVMFuzzerTestOneInput(seed.data(), seed.size());
    ++runs;
    for (int round = 0; round < plan.rounds; ++round) {
      auto bytes = seed;
      mutate(bytes, rng, plan.head);
      if (plan.keep_selector) {
        if (bytes.empty()) bytes.push_back(seed[0]);
        bytes[0] = seed[0];
      }
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++runs;
    }
  }
  std::printf("%s: %zu inputs, no crash\n", plan.name, runs);
  return 0;
}

}  // namespace bloomkit::test
