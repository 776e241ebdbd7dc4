#pragma once
// Reads the interop vectors under tests/data/interop/ (written by the real peers:
// tools/interop/generate). A vector is a text file of lines "<field> <value...>", fields separated
// by exactly one space (an empty key is an empty field):
//   scheme S, key_type string|long, funnel F (the Guava-based Redis helper's), expected_insertions
//   N, fpp P, bits M, hashes K,
//   file F (the peer's bytes), json F (bits-and-blooms MarshalJSON),
//   insert KEY, probe KEY 0|1 (the peer's answer),
//   positions KEY i,j,... (Guava: the set bits of a filter holding KEY alone),
//   locations KEY l0,l1,... (bits-and-blooms / go-zero / the helper: the peer's probe values, in
//   order; for the helper, the SETBIT offsets its add sent).
// KEY is hex UTF-8 for key_type string, a signed decimal for key_type long (hashed as its 8
// little-endian bytes, as Guava's longFunnel does); keys below are those bytes.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"  // read_bytes
#include "support/vector_text.hpp"

#ifndef BLOOMKIT_INTEROP_DATA
#error "BLOOMKIT_INTEROP_DATA must name tests/data/interop"
#endif

namespace bloomkit::test {

inline std::filesystem::path interop_data() {
  return BLOOMKIT_INTEROP_DATA;
}

struct interop_vector {
  std::string name;
  std::string scheme;
  std::string key_type = "string";
  std::string funnel;
  std::uint64_t expected_insertions = 0;
  double fpp = 0;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::filesystem::path file;
  std::filesystem::path json;
  std::vector<std::string> inserted;
  std::vector<std::pair<std::string, bool>> probes;
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> positions;
  std::vector<std::int64_t> long_keys;   // key_type long: the inserted keys as numbers
  std::vector<std::string> probe_texts;  // the probe keys as the CLI reads them (text, decimal)
};

inline interop_vector read_vector(const std::filesystem::path& path) {
  interop_vector v;
  v.name = path.stem().string();
  for_each_line(path, [&](const std::vector<std::string>& parts) {
    const std::string& field = parts[0];
    if (field == "scheme") v.scheme = parts.at(1);
    if (field == "key_type") v.key_type = parts.at(1);
    if (field == "funnel") v.funnel = parts.at(1);
    if (field == "expected_insertions") v.expected_insertions = std::stoull(parts.at(1));
    if (field == "fpp") v.fpp = std::stod(parts.at(1));
    if (field == "bits") v.bits = std::stoull(parts.at(1));
    if (field == "hashes") v.hashes = static_cast<std::uint32_t>(std::stoul(parts.at(1)));
    if (field == "file") v.file = path.parent_path() / parts.at(1);
    if (field == "json") v.json = path.parent_path() / parts.at(1);
    if (field == "insert") v.inserted.push_back(key_bytes(parts.at(1), v.key_type, &v.long_keys));
    if (field == "probe") {
      v.probes.emplace_back(key_bytes(parts.at(1), v.key_type), parts.at(2) == "1");
      v.probe_texts.push_back(v.key_type == "long" ? parts.at(1) : v.probes.back().first);
    }
    if (field == "positions" || field == "locations") {
      std::vector<std::uint64_t> values;
      for (const auto& p : split(parts.at(2), ',')) values.push_back(std::stoull(p));
      v.positions.emplace_back(key_bytes(parts.at(1), v.key_type), std::move(values));
    }
  });
  if (v.scheme.empty() || v.bits == 0 || v.hashes == 0 || v.file.empty()) {
    throw std::runtime_error(path.string() + ": incomplete vector");
  }
  return v;
}

// Every vector (*.txt but the sizing tables) of one peer's directory, sorted by name.
// The vector's file as the string value a Redis key holds.
inline std::string redis_bytes(const interop_vector& v) {
  const auto bytes = read_bytes(v.file);
  return {bytes.begin(), bytes.end()};
}

inline std::vector<std::filesystem::path> vector_files(const std::string& peer) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(interop_data() / peer)) {
    const auto& p = entry.path();
    if (p.extension() == ".txt" && p.stem().string().find("sizing") == std::string::npos) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "n p bits hashes" lines of a sizing table.
struct sizing_row {
  std::uint64_t n;
  double p;
  std::uint64_t bits;
  std::uint32_t hashes;
};
inline std::vector<sizing_row> read_sizing(const std::filesystem::path& path) {
  std::vector<sizing_row> rows;
  for_each_line(path, [&](const std::vector<std::string>& parts) {
    rows.push_back({std::stoull(parts.at(0)), std::stod(parts.at(1)), std::stoull(parts.at(2)),
                    static_cast<std::uint32_t>(std::stoul(parts.at(3)))});
  });
  return rows;
}

}  // namespace bloomkit::test
