// Runs the interop fuzz target without libFuzzer (replay_driver.hpp): on the peers' vector files
// (tests/data/interop), deterministic mutations of them, and the files given as arguments.
// `--write-seeds DIR` writes the seeds (selector byte + file), as a corpus for libFuzzer.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "replay_driver.hpp"

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
  return bloomkit::test::run_replay(argc, argv, seeds,
                                    {"interop fuzz replay", 20261123, 1500, 40, true});
}
