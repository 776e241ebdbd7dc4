#pragma once
// scoped_env: sets (or unsets) environment variables for one scope and restores them after, for
// tests of what reads the environment (BLOOMKIT_REDIS_URL, REDISCLI_AUTH) in-process or in the
// child processes a test starts. setenv is not thread-safe: use it only while the test process
// has one thread (CTest runs tests in parallel processes, never threads).

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bloomkit::test {

class scoped_env {
 public:
  // nullopt unsets the variable.
  explicit scoped_env(
      std::initializer_list<std::pair<std::string, std::optional<std::string>>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old == nullptr ? std::nullopt : std::optional<std::string>(old));
      set(name, value);
    }
  }
  ~scoped_env() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) set(it->first, it->second);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  static void set(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace bloomkit::test
