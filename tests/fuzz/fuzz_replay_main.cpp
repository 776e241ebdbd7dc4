// Runs the loader fuzz target without libFuzzer (any compiler, any sanitizer preset): on
// deterministic mutations of real filter files, and on the files given as arguments.
// `--write-seeds DIR` writes the real files, as a seed corpus for libFuzzer.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/file.hpp"
#include "mutate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// Fills `f` with n keys, saves it as dir/name and returns the file's bytes.
template <class Filter>
std::vector<std::uint8_t> real_file(Filter f, std::uint64_t n, const std::filesystem::path& dir,
                                    const std::string& name) {
  for (std::uint64_t i = 0; i < n; ++i) f.insert("seed-" + std::to_string(i));
  const auto path = dir / name;
  bloomkit::save(f, path);
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path seed_dir = std::filesystem::temp_directory_path();
  bool keep_seeds = false;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--write-seeds" && i + 1 < argc) {
      seed_dir = argv[++i];
      keep_seeds = true;
      std::filesystem::create_directories(seed_dir);
    } else {
      inputs.push_back(arg);
    }
  }
  using bloomkit::blocked_bloom_filter;
  using bloomkit::bloom_filter;
  using bloomkit::counting_bloom_filter;
  using bloomkit::scalable_bloom_filter;
  const std::vector<std::string> names = {"seed-tiny.bloom", "seed-small.bloom",
                                          "seed-counting.bloom", "seed-scalable.bloom",
                                          "seed-blocked.bloom"};
  std::vector<std::vector<std::uint8_t>> seeds = {
      real_file(bloom_filter::for_capacity(1, 0.5), 1, seed_dir, names[0]),
      real_file(bloom_filter::for_capacity(300, 0.01), 300, seed_dir, names[1]),
      real_file(counting_bloom_filter::for_capacity(200, 0.05), 200, seed_dir, names[2]),
      real_file(scalable_bloom_filter(10, 0.05, 2, 0.5, 1 << 16), 60, seed_dir, names[3]),
      real_file(blocked_bloom_filter::for_capacity(300, 0.01), 300, seed_dir, names[4]),
  };
  if (!keep_seeds) {
    for (const auto& name : names) std::filesystem::remove(seed_dir / name);
  }
  std::size_t runs = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++runs;
  }
  std::mt19937_64 rng(20261122);
  for (const auto& seed : seeds) {
    LLVMFuzzerTestOneInput(seed.data(), seed.size());
    for (int round = 0; round < 3000; ++round) {
      auto bytes = seed;
      bloomkit::test::mutate(bytes, rng, 160);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++runs;
    }
  }
  std::printf("fuzz replay: %zu inputs, no crash\n", runs);
  return 0;
}
