// Runs the interop fuzz target without libFuzzer (replay_driver.hpp): on the peers' vector files
// (tests/data/interop, tests/data/spark), deterministic mutations of them, and the files given as
// arguments.
// `--write-seeds DIR` writes the seeds (selector byte + file), as a corpus for libFuzzer.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
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
  // RedisBloom: small chains of one and of several links, 64- and 32-bit, as DUMP payloads (less
  // their trailer, which the target adds) and as SCANDUMP header + chunk.
  namespace rb = bloomkit::redisbloom;
  std::vector<rb::chain> chains;
  chains.push_back(rb::chain::reserve(20, 0.01, 2, false));
  chains.push_back(rb::chain::reserve(10, 0.1, 1, true));
  chains.push_back(rb::chain::make(16, 0.05, 0, 2));  // 32-bit hashes, power-of-two links
  for (std::size_t c = 0; c < chains.size(); ++c) {
    for (int i = 0; i < 40; ++i) (void)chains[c].add("seed-" + std::to_string(c * 100 + i));
  }
  for (const rb::chain& c : chains) {
    auto dump = rb::write_dump(c);
    dump.resize(dump.size() - 10);
    std::vector<std::uint8_t> s{5};
    s.insert(s.end(), dump.begin(), dump.end());
    seeds.push_back(s);
    const auto header = rb::header_chunk(c);
    std::vector<std::uint8_t> chunks{6, static_cast<std::uint8_t>(header.size()),
                                     static_cast<std::uint8_t>(header.size() >> 8)};
    chunks.insert(chunks.end(), header.begin(), header.end());
    const auto first = c.link_bits(0);
    chunks.insert(chunks.end(), first.begin(), first.end());
    seeds.push_back(chunks);
  }
  seeds.push_back({7, 6, 0, 2, 'a', 'b', 'c', 0x20, 2});
  // Spark: its smallest vectors (V1, V2 of seeds 0 and 1234567), from bytes and a stream.
  for (const char* name :
       {"v1_string_n100_p0.03", "v2_seed0_string_n100_p0.03", "v2_seed1234567_string_n100_p0.03"}) {
    const auto p = std::filesystem::path(BLOOMKIT_SPARK_DATA) / (std::string(name) + ".bin");
    seeds.push_back(seed(8, p));
    seeds.push_back(seed(9, p));
  }
  return bloomkit::test::run_replay(argc, argv, seeds,
                                    {"interop fuzz replay", 20261123, 1500, 40, true});
}
