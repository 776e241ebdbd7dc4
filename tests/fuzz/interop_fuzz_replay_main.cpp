// Runs the interop fuzz target without libFuzzer (any compiler, any sanitizer preset): on the
// peers' vector files (tests/data/interop) and deterministic mutations of them.
// `--write-seeds DIR` writes the seeds (selector byte + file), as a corpus for libFuzzer.

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

namespace {

std::vector<std::uint8_t> seed(std::uint8_t selector, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes{selector};
  bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in), {});
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path data = BLOOMKIT_INTEROP_DATA;
  std::vector<std::vector<std::uint8_t>> seeds;
  for (const char* peer : {"guava", "bits_and_blooms", "go_zero"}) {
    for (const auto& entry : std::filesystem::directory_iterator(data / peer)) {
      const auto& p = entry.path();
      // The small files: mutations of a few hundred bytes reach every field.
      if (std::filesystem::file_size(p) > 1300) continue;
      if (p.extension() == ".bin" && std::string(peer) == "guava") {
        seeds.push_back(seed(0, p));
        seeds.push_back(seed(1, p));
      }
      if (p.extension() == ".bin" && std::string(peer) == "bits_and_blooms")
        seeds.push_back(seed(2, p));
      if (p.extension() == ".json") seeds.push_back(seed(3, p));
      if (p.extension() == ".redis") seeds.push_back(seed(4, p));
    }
  }
  if (argc == 3 && std::string(argv[1]) == "--write-seeds") {
    std::filesystem::create_directories(argv[2]);
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      std::ofstream out(std::filesystem::path(argv[2]) / ("seed-" + std::to_string(i)),
                        std::ios::binary);
      out.write(reinterpret_cast<const char*>(seeds[i].data()),
                static_cast<std::streamsize>(seeds[i].size()));
    }
    return 0;
  }
  std::size_t runs = 0;
  std::mt19937_64 rng(20261123);
  for (const auto& s : seeds) {
    LLVMFuzzerTestOneInput(s.data(), s.size());
    for (int round = 0; round < 1500; ++round) {
      auto bytes = s;
      bloomkit::test::mutate(bytes, rng, 40);
      if (!bytes.empty()) bytes[0] = s[0];  // keep the reader
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++runs;
    }
  }
  std::printf("interop fuzz replay: %zu seeds, %zu mutations, no crash\n", seeds.size(), runs);
  return seeds.empty() ? 1 : 0;
}
