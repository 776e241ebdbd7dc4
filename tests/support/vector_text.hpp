#pragma once
// The text of test vectors (tests/data/interop, tests/data/golden): lines "<field> <value...>",
// fields separated by exactly one space (an empty key is an empty field). A key is hex bytes for
// key_type string, a signed decimal for key_type long (hashed as its 8 little-endian bytes).

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace bloomkit::test {

inline std::string key_bytes(const std::string& text, const std::string& key_type,
                             std::vector<std::int64_t>* numbers = nullptr) {
  std::string out;
  if (key_type == "long") {
    const std::int64_t v = std::stoll(text);
    if (numbers) numbers->push_back(v);
    auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i, u >>= 8) out.push_back(static_cast<char>(u & 0xff));
    return out;
  }
  if (text.size() % 2 != 0) throw std::runtime_error("odd hex key " + text);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

inline std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(sep, start);
    parts.push_back(line.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// The name of a vector file, for test names: letters and digits only.
inline std::string test_name(const std::filesystem::path& p) {
  std::string out;
  for (char c : p.stem().string())
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

}  // namespace bloomkit::test
