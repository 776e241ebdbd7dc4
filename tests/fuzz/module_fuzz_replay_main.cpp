// Runs the module fuzz target (module_fuzz.cpp) without libFuzzer (replay_driver.hpp): on real RDB
// values and BF.LOADCHUNK chunk streams of every kind of module filter, on
// deterministic mutations of them, and on the files given as arguments. `--write-seeds DIR`
// writes the real inputs, as a seed corpus for libFuzzer.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "module_bytes.hpp"
#include "module_value/chunk_loading.hpp"
#include "replay_driver.hpp"

namespace {

using namespace bloomkit;
using namespace bloomkit::redis_module;

std::vector<module_filter> filters() {
  std::vector<module_filter> out;
  out.push_back({bloom_filter::for_capacity(500, 0.01), true});  // NONSCALING
  out.push_back({bloom_filter::for_capacity(300, 0.01), false});
  out.push_back({counting_bloom_filter::for_capacity(300, 0.01), false});
  out.push_back(
      {blocked_window_filter(window_config{300, 0.01, 1000, window_unit::inserts, 4}), false});
  scalable_config chain;
  chain.initial_capacity = 50;
  chain.target_fpp = 0.01;
  out.push_back({scalable_bloom_filter(chain), false});
  out.push_back({window_filter(window_config{300, 0.01, 1000, window_unit::inserts, 4}), false});
  out.push_back(
      {classic_window_filter(window_config{300, 0.01, 1000, window_unit::inserts, 4}), false});
  for (module_filter& f : out) {
    std::vector<std::string> keys;
    for (int i = 0; i < 200; ++i) keys.push_back("seed-" + std::to_string(i));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    const auto added = std::make_unique<bool[]>(keys.size());
    add_keys(f, views, {added.get(), keys.size()});
  }
  return out;
}

// An input of the target: its mode byte, then the bytes.
std::vector<std::uint8_t> input(std::uint8_t mode, const std::string& bytes) {
  std::vector<std::uint8_t> out(bytes.size() + 1, mode);
  std::copy(bytes.begin(), bytes.end(), out.begin() + 1);
  return out;
}

// The RDB values of `f`: whole, and still receiving BF.LOADCHUNK's chunks (half its payload).
std::vector<std::string> rdb_values(const module_filter& f) {
  module_value whole;
  whole.filter = f;
  test::byte_sink a;
  encode_value(whole, a, 100);
  module_value partial;
  partial.loading = std::make_unique<image_loader>(image_header(f));
  const std::string payload = [&] {
    std::string all;
    for (std::string_view piece : image_payload(f)) all.append(piece);
    return all;
  }();
  partial.loading->append(std::string_view(payload).substr(0, payload.size() / 2));
  test::byte_sink b;
  encode_value(partial, b, 100);
  return {a.out, b.out};
}

// BF.SCANDUMP's chunks of `f`, as BF.LOADCHUNK receives them: (1, header), then the payload in
// chunks of `chunk` bytes, each with 1 + the offset after it.
std::string chunk_stream(const std::string& header, const std::string& payload, std::size_t chunk) {
  test::byte_sink out;
  out.write_unsigned(1);
  out.write_string(header);
  for (std::size_t at = 0; at < payload.size(); at += chunk) {
    const std::string_view data = std::string_view(payload).substr(at, chunk);
    out.write_unsigned(at + data.size() + 1);
    out.write_string(data);
  }
  return out.out;
}

std::string payload_of(const module_filter& f) {
  std::string payload;
  for (std::string_view piece : image_payload(f)) payload.append(piece);
  return payload;
}

std::string chunk_stream(const module_filter& f, std::size_t chunk) {
  return chunk_stream(image_header(f), payload_of(f), chunk);
}

// The committed version 1 images (tests/data/golden/module): their header and payload.
std::vector<std::pair<std::string, std::string>> v1_images() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : std::filesystem::directory_iterator(BLOOMKIT_GOLDEN_DATA "/module")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("v1_", 0) != 0 || entry.path().extension() != ".txt") continue;
    std::size_t header_bytes = 0;
    std::ifstream text(entry.path());
    for (std::string field; text >> field;) {
      if (field == "header_bytes") text >> header_bytes;
    }
    auto image_path = entry.path();
    std::ifstream in(image_path.replace_extension(".bkimage"), std::ios::binary);
    const std::string image{std::istreambuf_iterator<char>(in), {}};
    out.emplace_back(image.substr(0, header_bytes), image.substr(header_bytes));
  }
  return out;
}

// The RDB value of a whole image.
std::string rdb_value(const std::string& header, const std::string& payload) {
  test::byte_sink out;
  out.write_unsigned(0);
  out.write_string(header);
  out.write_unsigned(payload.size());
  out.write_string(payload);
  return out.out;
}

// The unmutated inputs must load: a filter from a whole value and from its chunks, so that the
// mutations start from inputs that reach the decoders' depths.
bool loads(const std::string& value, const std::string& chunks) {
  test::byte_source rdb(value);
  if (!decode_value(rdb)->filter) return false;
  test::byte_source in(chunks);
  in.read_unsigned();
  module_value v;
  v.loading = std::make_unique<image_loader>(in.read_string());
  while (!in.empty()) {
    const std::uint64_t iterator = in.read_unsigned();
    if (!load_chunk(v, iterator, in.read_string())) return false;
  }
  return v.filter.has_value();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::vector<std::uint8_t>> seeds;
  for (const module_filter& f : filters()) {
    for (const std::string& value : rdb_values(f)) {
      seeds.push_back(input(0, value));
      seeds.push_back(input(2, value));
    }
    if (!loads(rdb_values(f)[0], chunk_stream(f, 256))) {
      std::fprintf(stderr, "a real value or chunk stream does not load\n");
      return 1;
    }
    seeds.push_back(input(1, chunk_stream(f, 256)));
    seeds.push_back(input(3, chunk_stream(f, 97)));
  }
  for (const auto& [header, payload] : v1_images()) {
    const std::string value = rdb_value(header, payload);
    if (!loads(value, chunk_stream(header, payload, 256))) {
      std::fprintf(stderr, "a committed version 1 image does not load\n");
      return 1;
    }
    seeds.push_back(input(0, value));
    seeds.push_back(input(2, value));
    seeds.push_back(input(1, chunk_stream(header, payload, 256)));
    seeds.push_back(input(3, chunk_stream(header, payload, 97)));
  }
  // The mode byte is kept: mutate the value, not what it is.
  return test::run_replay(argc, argv, seeds, {"module fuzz replay", 20261127, 400, 160, true});
}
