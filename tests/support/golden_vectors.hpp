#pragma once
// The golden vectors of the native formats (tests/data/golden, written by tools/golden/generate):
// one bloomkit file per vector and a text file of lines "<field> <value...>" (vector_text.hpp):
//   kind K, scheme S (their names in docs/FORMAT.md), key_type string|long, flags F,
//   bits M, hashes K, capacity N, target_fpp P, inserted I (the header's fields),
//   growth S, tightening R, memory_ceiling C, sub_filters C (scalable), shards C (scheme 20),
//   file F (the bloomkit file), or for filters too large to commit (the pipelined paths of
//   filters of 1 MiB and more) file_size N and file_xxh64 H (hex XXH64, seed 0, of its bytes),
//   insert KEY / remove KEY (the operations that made the file, in order),
//   insert_numbered PREFIX N (inserts of the text keys PREFIX0 ... PREFIX<N-1>, in order),
//   probe KEY 0|1 (contains() of the file),
//   digest KEY H[,H] (hex: h1,h2 of XXH3-128, or h of XXH3-64 for the blocked scheme),
//   block KEY B / shard KEY J (where the key's bits are: blocked, scheme 20),
//   probe_values KEY g,g,... (hex: g_i = h1 + i*h2 + (i^3 - i)/6 of XXH3-128 schemes),
//   positions KEY p,p,... (its bit or counter indices, in probe order; blocked: word 0..7),
//   sub_positions KEY I p,p,... (scalable: its bit indices in sub-filter I).
// A change to any of them is a change of the file format (docs/FORMAT.md, "Golden vectors").

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/vector_text.hpp"

namespace bloomkit::test {

struct key_operation {
  bool remove = false;
  std::string key;  // the bytes hashed
};

// Where one key's bits are.
struct key_placement {
  std::string key;
  std::vector<std::uint64_t> digest;
  std::optional<std::uint64_t> block;
  std::optional<std::uint64_t> shard;
  std::vector<std::uint64_t> probe_values;
  std::vector<std::uint64_t> positions;
  std::vector<std::vector<std::uint64_t>> sub_positions;
};

struct golden_vector {
  std::string name;
  std::string kind;
  std::string scheme;
  std::string key_type = "string";
  std::uint32_t flags = 0;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t inserted = 0;
  std::uint32_t growth = 0;
  double tightening = 0;
  std::uint64_t memory_ceiling = 0;
  std::uint64_t sub_filters = 0;
  std::uint64_t shards = 0;
  std::uint64_t window = 0;  // window: W inserts (a count window: no clock in the vector)
  std::uint32_t slices = 0;
  std::filesystem::path file;
  std::uint64_t file_size = 0;
  std::uint64_t file_xxh64 = 0;
  std::string numbered_prefix;
  std::uint64_t numbered_count = 0;
  std::vector<key_operation> operations;
  std::vector<std::pair<std::string, bool>> probes;
  std::vector<key_placement> placements;

  key_placement& placement(const std::string& key) {
    auto it = std::find_if(placements.begin(), placements.end(),
                           [&](const key_placement& p) { return p.key == key; });
    if (it != placements.end()) return *it;
    placements.push_back({key, {}, {}, {}, {}, {}, {}});
    return placements.back();
  }
};

// A key's text in a vector: hex bytes, or the signed decimal of 8 little-endian bytes.
inline std::string key_text(const std::string& key, const std::string& key_type) {
  if (key_type == "long") {
    std::uint64_t u = 0;
    for (std::size_t i = key.size(); i-- > 0;) u = (u << 8) | static_cast<unsigned char>(key[i]);
    return std::to_string(static_cast<std::int64_t>(u));
  }
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

inline std::string joined(const std::vector<std::uint64_t>& values, bool hex = false) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    char buf[24];
    std::snprintf(buf, sizeof buf, hex ? "%016" PRIx64 : "%" PRIu64, values[i]);
    if (i != 0) out += ',';
    out += buf;
  }
  return out;
}

inline std::vector<std::uint64_t> numbers(const std::string& list, int base = 10) {
  std::vector<std::uint64_t> out;
  for (const auto& p : split(list, ',')) out.push_back(std::stoull(p, nullptr, base));
  return out;
}

inline std::string exact(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

inline void write_vector(const golden_vector& v, std::ostream& out) {
  out << "# bloomkit golden vector, written by tools/golden/generate: do not edit. A change to\n"
      << "# it, or to the filter it describes, is a change of the file format (docs/FORMAT.md).\n";
  out << "kind " << v.kind << "\nscheme " << v.scheme << "\nkey_type " << v.key_type << "\nflags "
      << v.flags << "\nbits " << v.bits << "\nhashes " << v.hashes << "\ncapacity " << v.capacity
      << "\ntarget_fpp " << exact(v.target_fpp) << "\ninserted " << v.inserted << "\n";
  if (v.kind == "scalable") {
    out << "growth " << v.growth << "\ntightening " << exact(v.tightening) << "\nmemory_ceiling "
        << v.memory_ceiling << "\nsub_filters " << v.sub_filters << "\n";
  }
  if (v.kind == "window") out << "window " << v.window << "\nslices " << v.slices << "\n";
  if (v.shards != 0) out << "shards " << v.shards << "\n";
  if (v.file_size != 0) {
    out << "file_size " << v.file_size << "\nfile_xxh64 " << joined({v.file_xxh64}, true) << "\n";
  } else {
    out << "file " << v.file.filename().string() << "\n";
  }
  const auto text = [&](const std::string& key) { return key_text(key, v.key_type); };
  if (v.numbered_count != 0) {
    out << "insert_numbered " << v.numbered_prefix << " " << v.numbered_count << "\n";
  } else {
    for (const auto& op : v.operations) {
      out << (op.remove ? "remove " : "insert ") << text(op.key) << "\n";
    }
  }
  for (const auto& [key, answer] : v.probes) out << "probe " << text(key) << " " << answer << "\n";
  for (const auto& p : v.placements) {
    out << "digest " << text(p.key) << " " << joined(p.digest, true) << "\n";
    if (p.block) out << "block " << text(p.key) << " " << *p.block << "\n";
    if (p.shard) out << "shard " << text(p.key) << " " << *p.shard << "\n";
    if (!p.probe_values.empty()) {
      out << "probe_values " << text(p.key) << " " << joined(p.probe_values, true) << "\n";
    }
    if (!p.positions.empty()) {
      out << "positions " << text(p.key) << " " << joined(p.positions) << "\n";
    }
    for (std::size_t i = 0; i < p.sub_positions.size(); ++i) {
      out << "sub_positions " << text(p.key) << " " << i << " " << joined(p.sub_positions[i])
          << "\n";
    }
  }
}

inline golden_vector read_golden(const std::filesystem::path& path) {
  golden_vector v;
  v.name = path.stem().string();
  for_each_line(path, [&](const std::vector<std::string>& parts) {
    const std::string& field = parts[0];
    const auto key = [&] { return key_bytes(parts.at(1), v.key_type); };
    if (field == "kind") v.kind = parts.at(1);
    if (field == "scheme") v.scheme = parts.at(1);
    if (field == "key_type") v.key_type = parts.at(1);
    if (field == "flags") v.flags = static_cast<std::uint32_t>(std::stoul(parts.at(1)));
    if (field == "bits") v.bits = std::stoull(parts.at(1));
    if (field == "hashes") v.hashes = static_cast<std::uint32_t>(std::stoul(parts.at(1)));
    if (field == "capacity") v.capacity = std::stoull(parts.at(1));
    if (field == "target_fpp") v.target_fpp = std::stod(parts.at(1));
    if (field == "inserted") v.inserted = std::stoull(parts.at(1));
    if (field == "growth") v.growth = static_cast<std::uint32_t>(std::stoul(parts.at(1)));
    if (field == "tightening") v.tightening = std::stod(parts.at(1));
    if (field == "memory_ceiling") v.memory_ceiling = std::stoull(parts.at(1));
    if (field == "sub_filters") v.sub_filters = std::stoull(parts.at(1));
    if (field == "shards") v.shards = std::stoull(parts.at(1));
    if (field == "window") v.window = std::stoull(parts.at(1));
    if (field == "slices") v.slices = static_cast<std::uint32_t>(std::stoul(parts.at(1)));
    if (field == "file") v.file = path.parent_path() / parts.at(1);
    if (field == "file_size") v.file_size = std::stoull(parts.at(1));
    if (field == "file_xxh64") v.file_xxh64 = std::stoull(parts.at(1), nullptr, 16);
    if (field == "insert_numbered") {
      v.numbered_prefix = parts.at(1);
      v.numbered_count = std::stoull(parts.at(2));
      for (std::uint64_t i = 0; i < v.numbered_count; ++i) {
        v.operations.push_back({false, v.numbered_prefix + std::to_string(i)});
      }
    }
    if (field == "insert" || field == "remove") v.operations.push_back({field == "remove", key()});
    if (field == "probe") v.probes.emplace_back(key(), parts.at(2) == "1");
    if (field == "digest") v.placement(key()).digest = numbers(parts.at(2), 16);
    if (field == "block") v.placement(key()).block = std::stoull(parts.at(2));
    if (field == "shard") v.placement(key()).shard = std::stoull(parts.at(2));
    if (field == "probe_values") v.placement(key()).probe_values = numbers(parts.at(2), 16);
    if (field == "positions") v.placement(key()).positions = numbers(parts.at(2));
    if (field == "sub_positions") {
      auto& subs = v.placement(key()).sub_positions;
      subs.resize(std::max<std::size_t>(subs.size(), std::stoull(parts.at(2)) + 1));
      subs[std::stoull(parts.at(2))] = numbers(parts.at(3));
    }
  });
  if (v.kind.empty() || v.scheme.empty() || v.bits == 0 || (v.file.empty() && v.file_size == 0) ||
      v.probes.empty()) {
    throw std::runtime_error(path.string() + ": incomplete golden vector");
  }
  return v;
}

}  // namespace bloomkit::test
