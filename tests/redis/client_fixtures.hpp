#pragma once
// What the bloomkit::redis::client tests share: their names (using-declarations), cmd() to write
// a command, and elapsed_ms() to time one.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "support/errors.hpp"
#include "support/redis_server.hpp"

namespace bloomkit::redis_client_test {

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::client_options;
using bloomkit::redis::command;
using bloomkit::redis::reply;
using bloomkit::test::error_of;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;
using bloomkit::test::redis_server_options;
using clock_type = std::chrono::steady_clock;

inline command cmd(std::vector<std::string> args, std::size_t key_index = 1) {
  return command{std::move(args), key_index};
}

inline long long elapsed_ms(clock_type::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start).count();
}

}  // namespace bloomkit::redis_client_test
