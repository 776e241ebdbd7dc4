#pragma once
// The harness of the bloomkit tool's end-to-end tests: the `Cli` fixture runs the real binary
// (BLOOMKIT_EXE) on files in a fresh temp dir and captures stdout, stderr and the exit code;
// helpers parse its `name: value` and JSON output. Shared by every tests/cli/*_test.cpp.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "support/spawn.hpp"

#ifndef BLOOMKIT_EXE
#error "BLOOMKIT_EXE must be the path of the bloomkit binary"
#endif

extern char** environ;

namespace bloomkit::cli_test {

namespace fs = std::filesystem;

struct result {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

inline std::ostream& operator<<(std::ostream& os, const result& r) {
  return os << "status " << r.status << "\n--- stdout ---\n"
            << r.out << "\n--- stderr ---\n"
            << r.err;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

// The message of the bloomkit::error that `f` throws.
template <class F>
std::string library_message(F&& f) {
  try {
    f();
  } catch (const bloomkit::error& e) {
    return e.what();
  }
  return "<no error thrown>";
}

// n distinct URL-like keys, one per line, with a '\n' after each.
inline std::string make_keys(const std::string& prefix, std::size_t n) {
  std::string out;
  std::uint64_t x = 0x9e3779b97f4a7c15ull ^ std::hash<std::string>{}(prefix);
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out += "https://" + prefix + ".example.com/item/" + std::to_string(i) +
           "?q=" + std::to_string(x % 1000000007) + "\n";
  }
  return out;
}

inline std::size_t count_char(const std::string& s, char c) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

// Matches `text` against `pattern`, in which "{N}" stands for a run of digits (appended to
// `numbers`) and "{S}" for seconds with three decimals ("0.123"); everything else is literal.
inline bool matches(const std::string& text, const std::string& pattern,
                    std::vector<std::uint64_t>* numbers = nullptr) {
  std::size_t t = 0;
  std::size_t p = 0;
  const auto digits = [&] {
    const std::size_t start = t;
    while (t < text.size() && text[t] >= '0' && text[t] <= '9') ++t;
    return t - start;
  };
  while (p < pattern.size()) {
    if (pattern.compare(p, 3, "{N}") == 0) {
      const std::size_t start = t;
      if (digits() == 0) return false;
      if (numbers) numbers->push_back(std::stoull(text.substr(start, t - start)));
      p += 3;
    } else if (pattern.compare(p, 3, "{S}") == 0) {
      if (digits() == 0 || t >= text.size() || text[t++] != '.' || digits() != 3) return false;
      p += 3;
    } else {
      if (t >= text.size() || text[t] != pattern[p]) return false;
      ++t;
      ++p;
    }
  }
  return t == text.size();
}

// A JSON number literal.
inline bool is_json_number(const std::string& s) {
  if (s.empty() || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && s.find_first_of("xXiInN") == std::string::npos;
}

// A flat JSON object: name -> value; strings are unquoted (escapes decoded), other values kept
// as their literal text. Fails the test on anything malformed.
struct json_value {
  bool is_string = false;
  std::string text;
};
inline std::map<std::string, json_value> parse_flat_json(const std::string& s) {
  std::map<std::string, json_value> out;
  std::size_t i = 0;
  const auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  };
  const auto fail = [&](const char* what) {
    ADD_FAILURE() << "bad JSON (" << what << ") at offset " << i << ": " << s;
    return std::map<std::string, json_value>{};
  };
  const auto string = [&](std::string& into) {
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (++i >= s.size()) return false;
        switch (s[i]) {
          case 'n':
            into += '\n';
            break;
          case 't':
            into += '\t';
            break;
          case 'r':
            into += '\r';
            break;
          case 'u':
            into += static_cast<char>(std::stoi(s.substr(i + 1, 4), nullptr, 16));
            i += 4;
            break;
          default:
            into += s[i];
        }
      } else {
        into += s[i];
      }
      ++i;
    }
    if (i >= s.size()) return false;
    ++i;
    return true;
  };
  ws();
  if (i >= s.size() || s[i++] != '{') return fail("no {");
  ws();
  if (i < s.size() && s[i] == '}') return out;
  while (true) {
    ws();
    std::string name;
    if (!string(name)) return fail("name");
    ws();
    if (i >= s.size() || s[i++] != ':') return fail("no :");
    ws();
    json_value v;
    if (i < s.size() && s[i] == '"') {
      v.is_string = true;
      if (!string(v.text)) return fail("string value");
    } else {
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != '\n' && s[i] != ' ') {
        v.text += s[i++];
      }
      const bool literal = v.text == "null" || v.text == "true" || v.text == "false";
      if (!literal && !is_json_number(v.text)) {
        return fail("value");
      }
    }
    if (out.count(name)) return fail("duplicate name");
    out[name] = v;
    ws();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') {
      ++i;
      break;
    }
    return fail("no , or }");
  }
  ws();
  if (i != s.size()) return fail("trailing bytes");
  return out;
}

// "name: value" lines -> map.
inline std::map<std::string, std::string> parse_lines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << line;
    if (colon == std::string::npos) continue;
    out[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return out;
}

enum class stdin_kind {
  file,  // a regular file
  pipe,  // a pipe the test writes into
};

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { std::signal(SIGPIPE, SIG_IGN); }

  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "bloomkit-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A path in the test's temp dir.
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& contents) {
    write_file(dir_ / name, contents);
  }
  std::string read(const std::string& name) const { return read_file(dir_ / name); }
  bool exists(const std::string& name) const { return fs::exists(dir_ / name); }

  // Runs bloomkit with `args` (file arguments should come from at()), stdin from `input`.
  // stdout and stderr go to files (or to `stdout_path` / `stderr_path` when given).
  result run(const std::vector<std::string>& args, const std::string& input = "",
             stdin_kind kind = stdin_kind::file, const std::string& stdout_path = "",
             const std::string& stderr_path = "") {
    const std::string in_path = at(".stdin");
    const std::string out_path = stdout_path.empty() ? at(".stdout") : stdout_path;
    const std::string err_path = stderr_path.empty() ? at(".stderr") : stderr_path;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int pipe_fds[2] = {-1, -1};
    if (kind == stdin_kind::file) {
      write_file(in_path, input);
      posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    } else {
      EXPECT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
      posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
    }
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY, 0644);
    // The test ignores SIGPIPE; the tool gets the default disposition.
    pid_t pid = -1;
    const int spawn_error =
        bloomkit::test::spawn_with_default_signals(&pid, BLOOMKIT_EXE, args, &actions);
    posix_spawn_file_actions_destroy(&actions);
    result r;
    if (spawn_error != 0) {
      ADD_FAILURE() << "posix_spawn " << BLOOMKIT_EXE << ": " << std::strerror(spawn_error);
      return r;
    }
    if (kind == stdin_kind::pipe) {
      ::close(pipe_fds[0]);
      std::size_t done = 0;
      while (done < input.size()) {
        const ssize_t n = ::write(pipe_fds[1], input.data() + done, input.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;  // EPIPE: the tool stopped reading (an error it reports)
        done += static_cast<std::size_t>(n);
      }
      ::close(pipe_fds[1]);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (stdout_path.empty()) r.out = read_file(out_path);
    if (stderr_path.empty()) r.err = read_file(err_path);
    return r;
  }

  // Runs a command that must succeed silently on stderr; returns its stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& input = "",
                 stdin_kind kind = stdin_kind::file) {
    const result r = run(args, input, kind);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    return r.out;
  }

  // Expects exit 2 with exactly "bloomkit: error: <message>" and the --help hint for `command`.
  void expect_usage_error(const result& r, const std::string& message, const std::string& command) {
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(r.out, "") << r;
    const std::string hint = command.empty() ? "Run 'bloomkit --help' for usage.\n"
                                             : "Run 'bloomkit " + command + " --help' for usage.\n";
    EXPECT_EQ(r.err, "bloomkit: error: " + message + "\n" + hint) << r;
  }

  // Expects exit 1, nothing on stdout, and one line "bloomkit: error: ..." naming `file`.
  void expect_error_naming(const result& r, const std::string& file) {
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.out, "") << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: ", 0), 0u) << r;
    EXPECT_EQ(count_char(r.err, '\n'), 1u) << r;
    EXPECT_NE(r.err.find(file), std::string::npos) << "message should name " << file << "\n" << r;
  }

  fs::path dir_;
};

}  // namespace bloomkit::cli_test
