#pragma once
// The harness of the examples/cache_guard tests: the CacheGuard fixture seeds a SQLite database,
// starts cache_guard (CACHE_GUARD_EXE) against its own redis-server and talks HTTP to it; child
// processes are stopped by their PID.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/redis_server.hpp"
#include "support/spawn.hpp"
#include "support/temp_dir.hpp"

namespace cache_guard_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using bloomkit::test::redis_server;

// Under sanitizers every request costs several times more: fewer ids, same checks.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::int64_t seeded_items = 5000;
#else
inline constexpr std::int64_t seeded_items = 20000;
#endif
inline constexpr std::int64_t absent_base = 1'000'000'000'000;  // far above every seeded id
inline constexpr double target_fpp = 0.01;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A child process with stdout and stderr in files; killed with the test process (PDEATHSIG).
class process {
 public:
  process(const std::vector<std::string>& args, const fs::path& out, const fs::path& err)
      : out_(out), err_(err) {
    std::vector<std::string> storage = args;
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(out_fd, 1);
      ::dup2(err_fd, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out_fd);
    ::close(err_fd);
  }
  ~process() {
    if (pid_ > 0) stop();
  }
  process(const process&) = delete;
  process& operator=(const process&) = delete;

  // Waits for the exit (SIGKILL after `limit`); returns the exit code or 128 + signal.
  int wait(std::chrono::seconds limit = 120s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (true) {
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        ADD_FAILURE() << "process " << pid_ << " did not end within " << limit.count() << " s";
        break;
      }
      std::this_thread::sleep_for(20ms);
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // SIGTERM (the service shuts down cleanly), then waits.
  int stop() {
    ::kill(pid_, SIGTERM);
    return wait(30s);
  }
  // Whether it ended (without reaping it, so wait() still gets its status).
  bool exited() { return bloomkit::test::child_ended(pid_); }
  std::string out() const { return read_text(out_); }
  std::string err() const { return read_text(err_); }

 private:
  fs::path out_, err_;
  pid_t pid_ = -1;
};

struct stats {
  std::map<std::string, double> values;
  double operator[](const std::string& name) const { return values.at(name); }
};

inline stats parse_stats(const std::string& json) {
  stats s;
  // {"name": value, ...}: numbers and booleans (the string fields are skipped).
  std::size_t at = 0;
  while ((at = json.find('"', at)) != std::string::npos) {
    const std::size_t end = json.find('"', at + 1);
    if (end == std::string::npos || json.compare(end + 1, 2, ": ") != 0) break;
    const std::string name = json.substr(at + 1, end - at - 1);
    const std::size_t value_start = end + 3;
    const std::size_t value_end = json.find_first_of(",}", value_start);
    const std::string v = json.substr(value_start, value_end - value_start);
    if (v == "true" || v == "false") {
      s.values[name] = v == "true";
    } else if (!v.empty() && v[0] != '"') {
      s.values[name] = std::stod(v);
    }
    at = value_end;
  }
  return s;
}

class CacheGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    BLOOMKIT_REQUIRE_REDIS();
    redis_ = std::make_unique<redis_server>();
    db_ = (dir_.path() / "items.db").string();
    process seed(
        {CACHE_GUARD_EXE, "seed", "--db", "sqlite:" + db_, "--items", std::to_string(seeded_items)},
        at("seed.out"), at("seed.err"));
    ASSERT_EQ(seed.wait(), 0) << seed.err();
    EXPECT_NE(seed.out().find("seeded " + std::to_string(seeded_items) + " items"),
              std::string::npos)
        << seed.out();
  }

  fs::path at(const std::string& name) const { return dir_.path() / name; }

  // Starts the service on a free port; `more` options replace the usual ones of the same name
  // or come after them. Waits until it listens. Without --redis (redis_from_env), the service
  // finds its server in BLOOMKIT_REDIS_URL and REDISCLI_AUTH.
  void start(const std::string& log = "service.err", const std::vector<std::string>& more = {},
             bool redis_from_env = false) {
    std::vector<std::pair<std::string, std::string>> options{
        {"--db", db_},
        {"--redis", redis_->url()},
        {"--listen", "127.0.0.1:0"},
        {"--capacity", std::to_string(seeded_items)},
        {"--p", "0.01"},
        {"--threads", "6"}};
    for (std::size_t i = 0; i + 1 < more.size(); i += 2) {
      const auto same = std::find_if(options.begin(), options.end(),
                                     [&](const auto& o) { return o.first == more[i]; });
      if (same != options.end()) {
        same->second = more[i + 1];
      } else {
        options.emplace_back(more[i], more[i + 1]);
      }
    }
    std::vector<std::string> args{CACHE_GUARD_EXE};
    for (const auto& [name, value] : options) {
      if (name != "--redis" || !redis_from_env) args.insert(args.end(), {name, value});
    }
    service_ = std::make_unique<process>(args, at("service.out"), at(log));
    const std::string listening = "listening on http://127.0.0.1:";
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (true) {
      const std::string err = service_->err();
      const auto at = err.find(listening);
      if (at != std::string::npos && err.find('\n', at) != std::string::npos) {
        port_ = std::stoi(err.substr(at + listening.size()));
        break;
      }
      ASSERT_FALSE(service_->exited()) << "cache_guard ended:\n" << err;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << err;
      std::this_thread::sleep_for(20ms);
    }
    http_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    http_->set_read_timeout(60, 0);
  }
  void stop_service() {
    EXPECT_EQ(service_->stop(), 0) << service_->err();
    EXPECT_NE(service_->err().find("stopped"), std::string::npos) << service_->err();
  }

  int get(std::int64_t id, std::string* body = nullptr) { return get(std::to_string(id), body); }
  int get(const std::string& id, std::string* body = nullptr) {
    const auto res = http_->Get("/item/" + id);
    if (!res) return -1;
    if (body) *body = res->body;
    return res->status;
  }
  stats read_stats() {
    const auto res = http_->Get("/stats");
    EXPECT_TRUE(res && res->status == 200);
    return res ? parse_stats(res->body) : stats{};
  }

  // Waits until the service has reloaded its filter `reloads` times in all and trusts it again.
  void wait_until_reloaded(double reloads) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (true) {
      const stats s = read_stats();
      if (s.values.count("filter_reloads") != 0 && s["filter_reloads"] >= reloads &&
          s["filter_bypassed"] == 0) {
        return;
      }
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the filter was not reloaded; log:\n"
                                                            << service_->err();
      std::this_thread::sleep_for(20ms);
    }
  }
  // Absent ids are answered 404, and the filter (not the database) answers nearly all of them.
  void expect_filter_blocks_absent_ids(std::int64_t first) {
    const stats before = read_stats();
    constexpr int absent = 300;
    int not_404 = 0;
    for (int i = 0; i < absent; ++i) not_404 += get(first + i * 7919) != 404;
    EXPECT_EQ(not_404, 0);
    const stats after = read_stats();
    EXPECT_LT(after["db_not_found"] - before["db_not_found"], 5 * target_fpp * absent + 3);
    EXPECT_GT(after["filter_rejections"] - before["filter_rejections"], absent * 0.9);
  }
  // Every key of the filter cache_guard:items (not its stamp, not the cache).
  std::vector<std::string> filter_keys() const {
    std::vector<std::string> keys;
    const auto found = redis_->raw({"KEYS", "cache_guard:items:*"});
    for (const auto& k : found.elements()) {
      if (k.str() != "cache_guard:items:cache_guard") keys.push_back(k.str());
    }
    return keys;
  }

  bloomkit::test::temp_dir dir_;
  std::unique_ptr<redis_server> redis_;
  std::string db_;
  std::unique_ptr<process> service_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> http_;
};

}  // namespace cache_guard_test
