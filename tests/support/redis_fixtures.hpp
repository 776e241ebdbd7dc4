#pragma once
// GoogleTest fixtures over the real servers of redis_server.hpp: one server (or cluster) per test
// suite, emptied before every test. Tests skip when redis-server is not installed.

#include <gtest/gtest.h>

#include <memory>

#include "bloomkit/redis/client.hpp"
#include "support/redis_server.hpp"

namespace bloomkit::test {

class single_server_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (redis_server::available()) server_ = std::make_unique<redis_server>();
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override {
    BLOOMKIT_REQUIRE_REDIS();
    server_->raw({"FLUSHALL"});
  }
  static inline std::unique_ptr<redis_server> server_;
};

// single_server_test with a client of the server for every test.
class single_server_client_test : public single_server_test {
 protected:
  void SetUp() override {
    single_server_test::SetUp();
    if (IsSkipped()) return;
    client_ = std::make_unique<redis::client>(redis::client::connect(server_->url()));
  }
  void TearDown() override { client_.reset(); }
  std::unique_ptr<redis::client> client_;
};

// A Redis Cluster of redis_cluster's default shape per suite; every master emptied per test.
class cluster_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (redis_server::available()) cluster_ = std::make_unique<redis_cluster>();
  }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    BLOOMKIT_REQUIRE_REDIS();
    for (const auto m : cluster_->masters()) cluster_->node(m).raw({"FLUSHALL"});
  }
  static inline std::unique_ptr<redis_cluster> cluster_;
};

}  // namespace bloomkit::test
