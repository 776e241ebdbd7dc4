#pragma once
// A fresh temporary directory, removed with everything in it when the object dies.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bloomkit::test {

class temp_dir {
 public:
  temp_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "bloomkit-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// In one read: the test programs compile without optimization, where a byte at a time through
// istreambuf_iterator is a few calls per byte (seconds for the vectors' megabytes under ASan).
inline std::vector<unsigned char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<unsigned char> bytes;
  std::vector<char> chunk(1 << 16);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + in.gcount());
  }
  return bytes;
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

}  // namespace bloomkit::test
