// A project that uses an installed bloomkit::redis through find_package(bloomkit); no server is
// needed: it parses a URL and checks that connecting to a closed port is
// a clean bloomkit::error.
#include <bloomkit/error.hpp>
#include <bloomkit/redis/client.hpp>
#include <bloomkit/redis/url.hpp>

#include <cstdio>

int main() {
  const auto u = bloomkit::redis::parse_url("redis-cluster://127.0.0.1:7000,127.0.0.1:7001");
  const auto tls = bloomkit::redis::parse_url("rediss://127.0.0.1:6380");
  if (!u.cluster || u.nodes.size() != 2 || !tls.tls) {
    std::fprintf(stderr, "redis_consumer: wrong answer from the installed library\n");
    return 1;
  }
  try {
    bloomkit::redis::client_options options;
    options.max_retries = 0;
    bloomkit::redis::client::connect("redis://127.0.0.1:1", options);
    std::fprintf(stderr, "redis_consumer: connected to port 1?\n");
    return 1;
  } catch (const bloomkit::error& e) {
    if (e.code() != bloomkit::errc::unreachable) {
      std::fprintf(stderr, "redis_consumer: unexpected error: %s\n", e.what());
      return 1;
    }
  }
  std::printf("redis_consumer: ok\n");
  return 0;
}
