// examples/cache_guard end to end: cache_guard seeds a SQLite database, serves it with a real
// redis-server as cache and filter store, and cache_guard_load floods it. Every process is
// started here and stopped by its PID.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "support/redis_server.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using bloomkit::test::redis_server;

// Under sanitizers every request costs several times more: fewer ids, same checks.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::int64_t seeded_items = 5000;
#else
constexpr std::int64_t seeded_items = 20000;
#endif
constexpr std::int64_t absent_base = 1'000'000'000'000;  // far above every seeded id
constexpr double target_fpp = 0.01;

std::string read_text(const fs::path& p) {
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
  bool exited() {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid_;
  }
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

stats parse_stats(const std::string& json) {
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

TEST_F(CacheGuard, ServesExistingIdsAndStopsAbsentOnesAtTheFilter) {
  start();
  const std::string log = service_->err();
  EXPECT_NE(log.find("loading filter: " + std::to_string(seeded_items) + "/" +
                     std::to_string(seeded_items) + " ids (100%)"),
            std::string::npos)
      << log;

  std::string body;
  EXPECT_EQ(get(7, &body), 200);
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get(7, &body), 200);  // now from the cache
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get("0007", &body), 200);  // the same item: keys are canonical
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get("abc"), 400);
  EXPECT_EQ(get("-3"), 400);
  EXPECT_EQ(get("0"), 400);
  EXPECT_EQ(get("99999999999999999999999"), 400);

  // No false negatives: every seeded id is served with its value (4 connections at once).
  std::atomic<std::int64_t> wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      for (std::int64_t id = 1 + t; id <= seeded_items; id += 4) {
        const auto res = c.Get("/item/" + std::to_string(id));
        if (!res || res->status != 200 || res->body != "item-" + std::to_string(id)) ++wrong;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(wrong.load(), 0);

  // Absent ids: all 404, and only about p of them reach the database.
  const stats before = read_stats();
  constexpr int absent = 3000;
  int not_404 = 0;
  for (int i = 0; i < absent; ++i) {
    if (get(absent_base + i * 7919) != 404) ++not_404;
  }
  EXPECT_EQ(not_404, 0);
  const stats after = read_stats();
  const double reached = after["db_not_found"] - before["db_not_found"];
  const double rejected = after["filter_rejections"] - before["filter_rejections"];
  EXPECT_EQ(reached + rejected, absent);
  // The filter holds `capacity` ids, so its false-positive rate is p; 5 p is far out of reach
  // (mean 30, standard deviation about 5.5).
  EXPECT_LT(reached, 5 * target_fpp * absent) << "reached " << reached;
  EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 0);
  EXPECT_EQ(after["guard_enabled"], 1);
  EXPECT_EQ(after["target_fpp"], target_fpp);

  // With the guard off, every absent id reaches the database.
  auto res = http_->Post("/admin/guard?enabled=0", "", "text/plain");
  ASSERT_TRUE(res && res->status == 200);
  const stats off_before = read_stats();
  EXPECT_EQ(off_before["guard_enabled"], 0);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(get(absent_base + 1 + i * 7919), 404);
  EXPECT_EQ(read_stats()["db_not_found"] - off_before["db_not_found"], 50);
  res = http_->Post("/admin/guard?enabled=1", "", "text/plain");
  ASSERT_TRUE(res && res->status == 200);
  res = http_->Post("/admin/guard?enabled=2", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);

  // An insert is in the database and the filter at once.
  res = http_->Post("/item", "a new item", "text/plain");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201) << res->body;
  const std::string id = res->body.substr(0, res->body.find('\n'));
  EXPECT_EQ(id, std::to_string(seeded_items + 1));
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "a new item");
  const stats end = read_stats();
  for (const char* name : {"requests", "filter_rejections", "cache_hits", "db_queries", "db_found",
                           "db_not_found", "inserts", "rebuilds", "guard_enabled", "uptime"}) {
    EXPECT_EQ(end.values.count(name), 1u) << name;
  }
  EXPECT_EQ(end["db_queries"], end["db_found"] + end["db_not_found"]);
  EXPECT_EQ(end["inserts"], 1);
  EXPECT_GT(end["uptime"], 0);
  stop_service();
}

TEST_F(CacheGuard, RebuildsWithoutDowntime) {
  start();
  // A first request from this thread: cpp-httplib's client initializes a function-local static
  // regex in its (uninstrumented) library, which TSan would otherwise report as a race between
  // the first two client threads.
  EXPECT_EQ(get(1), 200);
  std::atomic<bool> done{false};
  std::atomic<std::int64_t> served{0}, failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      std::int64_t id = 1 + t;
      while (!done.load()) {
        const auto res = c.Get("/item/" + std::to_string(id));
        if (!res || res->status != 200) failures.fetch_add(1);
        served.fetch_add(1);
        id = id % seeded_items + 1 + t;
        const auto absent = c.Get("/item/" + std::to_string(absent_base + id));
        if (!absent || absent->status != 404) failures.fetch_add(1);
      }
    });
  }
  while (served.load() < 50) std::this_thread::sleep_for(5ms);
  const auto res = http_->Post("/admin/rebuild", "", "text/plain");
  // An insert right after the rebuild, while lookups go on.
  const auto inserted = http_->Post("/item", "after rebuild", "text/plain");
  const std::int64_t served_during = served.load();
  done = true;
  for (auto& r : readers) r.join();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->body.find("\"ids\": " + std::to_string(seeded_items)), std::string::npos)
      << res->body;
  EXPECT_NE(res->body.find("\"generation\": 2"), std::string::npos) << res->body;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(served_during, 50);
  ASSERT_TRUE(inserted && inserted->status == 201);
  EXPECT_EQ(get(inserted->body.substr(0, inserted->body.find('\n'))), 200);
  // Every seeded id is still in the rebuilt filter.
  std::int64_t wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 7) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(read_stats()["rebuilds"], 1);
  const std::string log = service_->err();
  EXPECT_NE(log.find("rebuilding filter: " + std::to_string(seeded_items) + "/"), std::string::npos)
      << log;
  stop_service();
}

TEST_F(CacheGuard, RestartSkipsTheLoadOrLoadsOnlyNewerIds) {
  start();
  stop_service();
  start("second.err");
  EXPECT_NE(service_->err().find("already holds every id of sqlite:"), std::string::npos)
      << service_->err();
  const auto res = http_->Post("/item", "x", "text/plain");
  ASSERT_TRUE(res && res->status == 201);
  stop_service();
  // Rows added behind the service's back (or while it was down) are loaded at the next start.
  start("third.err");
  EXPECT_NE(
      service_->err().find("up to " + std::to_string(seeded_items) + ": loading the 1 newer ones"),
      std::string::npos)
      << service_->err();
  EXPECT_EQ(get(seeded_items + 1), 200);
  stop_service();

  // Another database: the filter is rebuilt from it (its ids only).
  db_ = at("other.db").string();
  process seed({CACHE_GUARD_EXE, "seed", "--db", db_, "--items", "100"}, at("seed2.out"),
               at("seed2.err"));
  ASSERT_EQ(seed.wait(), 0) << seed.err();
  start("fourth.err");
  EXPECT_NE(
      service_->err().find("exists but was not loaded from sqlite:" + db_ + ": rebuilding it"),
      std::string::npos)
      << service_->err();
  EXPECT_EQ(get(100), 200);
  const stats before = read_stats();
  EXPECT_EQ(get(seeded_items), 404);  // an id of the first database only
  EXPECT_EQ(read_stats()["filter_rejections"] - before["filter_rejections"], 1);
  stop_service();
}

// A SIGTERM sent as soon as "listening on" is printed may come before the accept loop runs.
TEST_F(CacheGuard, StopsOnASignalSentRightAfterListening) {
  for (int round = 0; round < 10; ++round) {
    start("round" + std::to_string(round) + ".err");
    stop_service();
  }
}

TEST_F(CacheGuard, LoadToolComparesGuardOffAndOn) {
  start();
  process load({CACHE_GUARD_LOAD_EXE, "--url", "http://127.0.0.1:" + std::to_string(port_),
                "--items", std::to_string(seeded_items), "--requests", "1500", "--threads", "3"},
               at("load.out"), at("load.err"));
  ASSERT_EQ(load.wait(), 0) << load.out() << load.err();
  const std::string out = load.out();
  EXPECT_NE(out.find("guard   requests  requests/s  DB queries/s  non-existent sent  reached DB"),
            std::string::npos)
      << out;
  // Rows: guard requests requests/s queries/s sent reached share%.
  std::map<std::string, std::pair<double, double>> rows;  // guard -> (sent, reached)
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string guard, share;
    double requests = 0, rate = 0, queries = 0, sent = 0, reached = 0;
    if (!(fields >> guard >> requests >> rate >> queries >> sent >> reached >> share)) continue;
    if (guard != "off" && guard != "on") continue;
    EXPECT_EQ(requests, 1500) << line;
    EXPECT_EQ(share.back(), '%') << line;
    rows[guard] = {sent, reached};
  }
  ASSERT_EQ(rows.size(), 2u) << out;
  EXPECT_GT(rows["off"].first, 500);                        // about half of 1500
  EXPECT_EQ(rows["off"].second, rows["off"].first) << out;  // without the guard: all reach the DB
  EXPECT_LT(rows["on"].second, 5 * target_fpp * rows["on"].first + 5) << out;
  EXPECT_EQ(read_stats()["guard_enabled"], 1);  // left as it was
  stop_service();
}

// A row whose filter insert failed must still be found: lookups bypass the filter until a
// reload (started at once) has added it.
TEST_F(CacheGuard, FailedFilterInsertBypassesTheFilterUntilAReload) {
  start();
  EXPECT_EQ(get(absent_base), 404);
  // Break shard 0 of generation 1: every BITFIELD on it now fails with WRONGTYPE.
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  redis_->raw({"RPUSH", "cache_guard:items:1:0", "not a bitmap"});
  auto res = http_->Post("/item", "unlucky", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  const std::string id = std::to_string(seeded_items + 1);
  EXPECT_NE(res->body.find("item " + id + " is stored, but adding it to the filter failed"),
            std::string::npos)
      << res->body;
  std::string body;
  EXPECT_EQ(get(id, &body), 200);  // not a false negative
  EXPECT_EQ(body, "unlucky");
  EXPECT_EQ(get(3, &body), 200);
  EXPECT_EQ(get(absent_base + 1), 404);

  wait_until_reloaded(1);
  EXPECT_EQ(redis_->raw({"TYPE", "cache_guard:items:1:0"}).str(), "string");
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "unlucky");
  expect_filter_blocks_absent_ids(absent_base + 2);
  res = http_->Post("/admin/rebuild", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(get(id), 200);
  stop_service();
}

// Credentials off the command line, where `ps` shows them: BLOOMKIT_REDIS_URL names the server,
// REDISCLI_AUTH gives the password; no message shows it.
TEST_F(CacheGuard, StartsWithCredentialsFromTheEnvironment) {
  using bloomkit::test::scoped_env;
  bloomkit::test::redis_server_options o;
  o.requirepass = "Guard7-pass";
  redis_ = std::make_unique<redis_server>(o);  // instead of the fixture's password-less server
  const std::string url = "redis://" + redis_->address();
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", url}, {"REDISCLI_AUTH", "Guard7-pass"}});
    start("service.err", {}, /*redis_from_env=*/true);
  }
  EXPECT_EQ(get(1), 200);
  EXPECT_EQ(get(absent_base + 1), 404);
  EXPECT_EQ(redis_->raw({"EXISTS", "cache_guard:items:meta"}).integer(), 1);
  stop_service();
  EXPECT_EQ(service_->err().find("Guard7"), std::string::npos) << service_->err();

  // A wrong password, from the environment or --redis: exit 1 naming the server, not the password.
  const auto refused = [&](const std::vector<std::string>& redis_args) {
    std::vector<std::string> args{CACHE_GUARD_EXE, "--db", db_, "--listen", "127.0.0.1:0"};
    args.insert(args.end(), redis_args.begin(), redis_args.end());
    process p(args, at("bad.out"), at("bad.err"));
    EXPECT_EQ(p.wait(), 1) << p.err();
    const std::string err = p.err();
    EXPECT_EQ(err.rfind("cache_guard: error: Redis at " + redis_->address() + " refused AUTH", 0),
              0u)
        << err;
    EXPECT_EQ(err.find("Wrong7"), std::string::npos) << err;
  };
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", url}, {"REDISCLI_AUTH", "Wrong7-pass"}});
    refused({});
  }
  refused({"--redis", "redis://:Wrong7-pass@" + redis_->address()});
}

// Each bad setup ends with exit 1 and one clear message.
TEST_F(CacheGuard, ClearErrorsForBadSetups) {
  const auto fails_with = [&](const std::vector<std::string>& args, const std::string& message) {
    std::vector<std::string> argv{CACHE_GUARD_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    process p(argv, at("bad.out"), at("bad.err"));
    EXPECT_EQ(p.wait(), 1) << p.err();
    const std::string err = p.err();
    EXPECT_EQ(err.rfind("cache_guard: error: ", 0), 0u) << err;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  };
  // Nothing listens on the port of a stopped server.
  redis_server gone;
  const std::string gone_url = gone.url();
  const std::string gone_address = gone.address();
  gone.stop();
  fails_with({"--db", db_, "--redis", gone_url, "--listen", "127.0.0.1:0"}, gone_address);
  fails_with({"--db", at("missing.db").string(), "--redis", redis_->url()}, "cannot open sqlite:");
  std::ofstream(at("empty.db")).close();
  fails_with({"--db", "sqlite:" + at("empty.db").string(), "--redis", redis_->url()},
             "has no table items (create it with: cache_guard seed");
  fails_with({"--db", "postgres://cache_guard@127.0.0.1:1/items", "--redis", redis_->url()},
             "cannot connect to postgres://cache_guard@127.0.0.1:1/items");
  fails_with({"--redis", "redis://127.0.0.1:99999", "--db", db_}, "99999");
  fails_with({"seed", "--db", db_, "--items", "10"}, "has a table items already");
}

// --- The filter disappears (issue 11 item 14) ----------------------------------------------

// Reads existing and absent ids from two clients and inserts from a third until stopped;
// records every wrong answer (a 500, a 404 for an existing id, a 200 for an absent one).
class traffic {
 public:
  explicit traffic(int port) {
    for (int t = 0; t < 2; ++t) {
      threads_.emplace_back([this, port, t] {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(30, 0);
        std::int64_t id = 1 + t * 4999;
        while (!done_.load()) {
          const auto res = c.Get("/item/" + std::to_string(id));
          if (!res || res->status != 200 || res->body != "item-" + std::to_string(id)) {
            wrong("GET " + std::to_string(id), res);
          }
          const std::int64_t absent = absent_base + 13 * id;
          const auto none = c.Get("/item/" + std::to_string(absent));
          if (!none || none->status != 404) wrong("GET " + std::to_string(absent), none);
          id = id % seeded_items + 1;
          reads_.fetch_add(1);
        }
      });
    }
    threads_.emplace_back([this, port] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(30, 0);
      for (int n = 0; !done_.load(); ++n) {
        const std::string value = "inserted-" + std::to_string(n);
        const auto res = c.Post("/item", value, "text/plain");
        if (!res || res->status != 201) {
          wrong("POST " + value, res);
          continue;
        }
        std::lock_guard lock(mutex_);
        inserted_.emplace_back(std::stoll(res->body), value);
      }
    });
  }
  ~traffic() { stop(); }
  void stop() {
    done_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  std::int64_t reads() const { return reads_.load(); }
  std::vector<std::string> wrong_answers() {
    std::lock_guard lock(mutex_);
    return wrong_;
  }
  std::vector<std::pair<std::int64_t, std::string>> inserted() {
    std::lock_guard lock(mutex_);
    return inserted_;
  }

 private:
  void wrong(const std::string& what, const httplib::Result& res) {
    std::lock_guard lock(mutex_);
    if (wrong_.size() < 10) {
      wrong_.push_back(what + ": " +
                       (res ? std::to_string(res->status) + " " + res->body
                            : "no answer (" + httplib::to_string(res.error()) + ")"));
    } else {
      wrong_.back() = "... and more";
    }
  }

  std::atomic<bool> done_{false};
  std::atomic<std::int64_t> reads_{0};
  std::mutex mutex_;
  std::vector<std::string> wrong_;
  std::vector<std::pair<std::int64_t, std::string>> inserted_;
  std::vector<std::thread> threads_;
};

// Redis restarted without persistence (how examples/cache_guard/serve runs it) loses the filter:
// the service answers from the database, recreates and reloads the filter in the background,
// keeps the rows inserted meanwhile, and then guards again. It also starts again cleanly.
TEST_F(CacheGuard, RedisRestartWithoutPersistence) {
  start();
  EXPECT_EQ(get(1), 200);  // see RebuildsWithoutDowntime (TSan and httplib's static regex)
  redis_->restart();
  ASSERT_TRUE(filter_keys().empty());
  // The first lookup finds the filter gone: answered by the database.
  std::string body;
  EXPECT_EQ(get(2, &body), 200);
  EXPECT_EQ(body, "item-2");
  traffic load(port_);
  wait_until_reloaded(1);
  while (load.reads() < 100) std::this_thread::sleep_for(5ms);
  load.stop();
  EXPECT_EQ(load.wrong_answers(), std::vector<std::string>{});
  // The rows inserted while the filter was missing or loading are in the new filter.
  const auto inserted = load.inserted();
  ASSERT_FALSE(inserted.empty());
  for (const auto& [id, value] : inserted) {
    EXPECT_EQ(get(id, &body), 200) << id;
    EXPECT_EQ(body, value);
  }
  expect_filter_blocks_absent_ids(absent_base + 5);
  const stats s = read_stats();
  EXPECT_EQ(s["filter_reloads"], 1);
  EXPECT_GE(s["bypassed_lookups"], 1);
  EXPECT_EQ(s["reloading"], 0);
  const std::string log = service_->err();
  EXPECT_NE(log.find("filter cache_guard:items is missing"), std::string::npos) << log;
  EXPECT_NE(log.find("reloading filter: "), std::string::npos) << log;
  stop_service();

  // The reload wrote the stamp: a restart loads at most the ids inserted after the reload.
  start("second.err");
  EXPECT_NE(service_->err().find("filter cache_guard:items "), std::string::npos)
      << service_->err();
  EXPECT_EQ(service_->err().find("created filter"), std::string::npos) << service_->err();
  EXPECT_EQ(service_->err().find("rebuilding"), std::string::npos) << service_->err();
  EXPECT_EQ(get(inserted.back().first), 200);
  stop_service();
}

// The filter's keys deleted behind the service's back (`bloomkit redis drop`, or evicted): the
// meta alone, then every key.
TEST_F(CacheGuard, ReloadsAFilterDroppedOrEvicted) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->raw({"DEL", "cache_guard:items:meta"});
  EXPECT_EQ(get(3), 200);
  EXPECT_EQ(get(absent_base), 404);
  {
    traffic load(port_);
    wait_until_reloaded(1);
    load.stop();
    EXPECT_EQ(load.wrong_answers(), std::vector<std::string>{});
  }
  expect_filter_blocks_absent_ids(absent_base + 1);

  for (const auto& key : filter_keys()) redis_->raw({"DEL", key});
  EXPECT_EQ(get(4), 200);
  wait_until_reloaded(2);
  expect_filter_blocks_absent_ids(absent_base + 2);
  std::int64_t wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 97) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  stop_service();
}

// A shard evicted or deleted while the meta survives.
TEST_F(CacheGuard, ReloadsAFilterThatLostAShard) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  std::string body;
  EXPECT_EQ(get(5, &body), 200);
  EXPECT_EQ(body, "item-5");
  wait_until_reloaded(1);
  expect_filter_blocks_absent_ids(absent_base + 3);
  stop_service();

  // The same at startup: the stamp says "loaded", but a shard is gone.
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  start("second.err");
  EXPECT_EQ(get(6, &body), 200);
  EXPECT_EQ(body, "item-6");
  wait_until_reloaded(0);
  expect_filter_blocks_absent_ids(absent_base + 4);
  stop_service();
}

// While Redis is down every lookup is answered by the database (no 500); an insert stores its row;
// once Redis is back (empty) the filter is reloaded with every row, the new one included.
TEST_F(CacheGuard, AnswersFromTheDatabaseWhileRedisIsDown) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->kill();
  const auto started = std::chrono::steady_clock::now();
  std::string body;
  for (std::int64_t id = 10; id < 30; ++id) {
    EXPECT_EQ(get(id, &body), 200) << body;
    EXPECT_EQ(body, "item-" + std::to_string(id));
    EXPECT_EQ(get(absent_base + id), 404);
  }
  // Redis is not asked again for every request while it is down.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);
  auto res = http_->Post("/item", "stored while Redis was down", "text/plain");
  ASSERT_TRUE(res);
  const std::string id = std::to_string(seeded_items + 1);
  EXPECT_NE(res->body.find("item " + id), std::string::npos) << res->status << " " << res->body;
  stats s = read_stats();
  EXPECT_EQ(s["filter_bypassed"], 1);
  EXPECT_GT(s["redis_errors"], 0);
  redis_->restart();
  wait_until_reloaded(1);
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "stored while Redis was down");
  expect_filter_blocks_absent_ids(absent_base + 7);
  stop_service();
}

// Leftovers that used to stop the service from starting ("remove it first", "has other
// parameters"): it removes them, recreates the filter and loads it.
TEST_F(CacheGuard, StartsOverABrokenFilter) {
  const auto starts_and_guards = [&](const std::string& log, const std::string& message,
                                     const std::vector<std::string>& more = {}) {
    start(log, more);
    if (HasFatalFailure()) return;
    EXPECT_NE(service_->err().find(message), std::string::npos) << service_->err();
    EXPECT_NE(service_->err().find("loading filter: " + std::to_string(seeded_items) + "/"),
              std::string::npos)
        << service_->err();
    std::string body;
    EXPECT_EQ(get(seeded_items, &body), 200);
    EXPECT_EQ(body, "item-" + std::to_string(seeded_items));
    expect_filter_blocks_absent_ids(absent_base);
    stop_service();
  };
  // An orphan shard without a meta (a write through a stale handle after a restart).
  redis_->raw({"SETBIT", "cache_guard:items:1:0", "7", "1"});
  starts_and_guards("orphan.err", "created filter cache_guard:items");
  EXPECT_EQ(redis_->raw({"EXISTS", "cache_guard:items:meta"}).integer(), 1);
  // A filter of other parameters than --capacity asks for.
  starts_and_guards("capacity.err", "recreating it",
                    {"--capacity", std::to_string(2 * seeded_items)});
  // A meta of the wrong type, and one with missing fields.
  redis_->raw({"DEL", "cache_guard:items:meta"});
  redis_->raw({"SET", "cache_guard:items:meta", "not a hash"});
  starts_and_guards("wrongtype.err", "recreating it");
  redis_->raw({"HDEL", "cache_guard:items:meta", "hashes"});
  starts_and_guards("fields.err", "recreating it");
}

// --- Slow clients (issue 11 item 15) --------------------------------------------------------

// A TCP connection to 127.0.0.1:port (raw: the test controls every byte).
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ADD_FAILURE() << "cannot connect to port " << port;
  }
  return fd;
}

// Whether the peer closed `fd` within `limit` (reads and discards what it sent before).
bool closed_by_peer(int fd, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buffer[512];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return true;
  }
  return false;
}

// Slowloris: more connections than workers, each sending one header byte every 0.5 s, never
// finishing. A normal request must still be answered within the read deadline plus a margin,
// and the server closes the slow connections.
TEST_F(CacheGuard, SlowClientsDoNotHoldTheWorkers) {
  start("service.err", {"--threads", "2", "--read-timeout", "1", "--keep-alive-timeout", "1"});
  EXPECT_EQ(get(1), 200);
  std::vector<int> slow;
  for (int i = 0; i < 6; ++i) slow.push_back(connect_to(port_));
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string header = "GET /item/1 HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
    for (std::size_t at = 0; at < header.size() && !done.load(); ++at) {
      for (const int fd : slow) ::send(fd, &header[at], 1, MSG_NOSIGNAL);
      for (int i = 0; i < 25 && !done.load(); ++i) std::this_thread::sleep_for(20ms);
    }
  });
  std::this_thread::sleep_for(300ms);  // every worker is now reading a slow request
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(6, 0);
  const auto started = std::chrono::steady_clock::now();
  const auto res = c.Get("/item/2");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_TRUE(res && res->status == 200 && res->body == "item-2")
      << (res ? res->body : httplib::to_string(res.error()));
  EXPECT_LT(took, 2500ms) << "answered after " << std::chrono::duration<double>(took).count()
                          << " s";
  int closed = 0;
  for (const int fd : slow) closed += closed_by_peer(fd, 2000ms);
  EXPECT_EQ(closed, static_cast<int>(slow.size()));
  done = true;
  trickle.join();
  for (const int fd : slow) ::close(fd);
  stop_service();
}

// Connections beyond --max-connections (queued or served) are answered 503 at once and closed.
TEST_F(CacheGuard, ConnectionsBeyondTheLimitAreRefused) {
  start("service.err", {"--threads", "2", "--max-connections", "3", "--read-timeout", "2"});
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connect_to(port_));
  std::this_thread::sleep_for(100ms);
  const int extra = connect_to(port_);
  const auto started = std::chrono::steady_clock::now();
  std::string reply;
  char buffer[512];
  pollfd p{extra, POLLIN, 0};
  while (::poll(&p, 1, 1500) > 0) {
    const ssize_t n = ::recv(extra, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  EXPECT_EQ(reply.rfind("HTTP/1.1 503 ", 0), 0u) << reply;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1000ms);
  ::close(extra);
  for (const int fd : idle) ::close(fd);
  // Once they are gone, requests are served again.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  int status = -1;
  while (status != 200 && std::chrono::steady_clock::now() < deadline) {
    status = get(1);
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200);
  EXPECT_GE(read_stats()["refused_connections"], 1);
  stop_service();
}

}  // namespace
