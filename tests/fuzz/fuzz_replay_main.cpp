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

std::vector<std::uint8_t> real_file(std::uint64_t n, double p, const std::filesystem::path& dir,
                                    const std::string& name) {
  auto f = bloomkit::bloom_filter::for_capacity(n, p);
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
  std::vector<std::vector<std::uint8_t>> seeds = {
      real_file(1, 0.5, seed_dir, "seed-tiny.bloom"),
      real_file(300, 0.01, seed_dir, "seed-small.bloom"),
  };
  if (!keep_seeds) {
    std::filesystem::remove(seed_dir / "seed-tiny.bloom");
    std::filesystem::remove(seed_dir / "seed-small.bloom");
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
