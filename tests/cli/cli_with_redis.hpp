#pragma once
// The Cli fixture (cli_support.hpp) with one redis-server per suite: started once, flushed before
// each test, the test skipped where no redis-server is installed. (redis_cli_fixture.hpp is the
// older harness of the `bloomkit redis` tests, without Cli's helpers.)

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "support/redis_server.hpp"

namespace bloomkit::cli_test {

class CliWithRedis : public Cli {
 protected:
  static void SetUpTestSuite() {
    Cli::SetUpTestSuite();
    if (test::redis_server::available()) server_ = std::make_unique<test::redis_server>();
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override {
    BLOOMKIT_REQUIRE_REDIS();
    Cli::SetUp();
    server_->raw({"FLUSHALL"});
  }
  // bloomkit redis --url <server> args...
  std::vector<std::string> redis_args(std::vector<std::string> args) const {
    args.insert(args.begin(), {"redis", "--url", server_->url()});
    return args;
  }
  result redis(std::vector<std::string> args, const std::string& input = "") {
    return run(redis_args(std::move(args)), input);
  }
  static inline std::unique_ptr<test::redis_server> server_;
};

}  // namespace bloomkit::cli_test
