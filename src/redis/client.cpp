// Work in progress: the API compiles and links; the implementation lands next.
#include "bloomkit/redis/client.hpp"

#include "bloomkit/error.hpp"
#include "bloomkit/redis/url.hpp"

namespace bloomkit::redis {

struct client::impl {
  url target;
  client_options options;
};

client::client(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;
client::~client() = default;

client client::connect(std::string_view text, client_options options) {
  auto p = std::make_unique<impl>();
  p->target = parse_url(text);
  p->options = options;
  throw error(errc::unsupported, "bloomkit::redis::client is not implemented yet");
}

reply client::execute(const command& c) {
  return execute_many(std::span(&c, 1)).front();
}
std::vector<reply> client::execute_many(std::span<const command>) {
  throw error(errc::unsupported, "not implemented yet");
}
std::vector<reply> client::execute_on_masters(const command&) {
  throw error(errc::unsupported, "not implemented yet");
}
bool client::is_cluster() const {
  return impl_->target.cluster;
}
std::size_t client::master_count() const {
  return 1;
}
std::vector<std::string> client::masters() const {
  return {};
}
long long client::wait_replicas(int replicas, std::chrono::milliseconds) {
  return replicas;
}
std::string client::describe() const {
  return impl_->target.to_string();
}
const client_options& client::options() const {
  return impl_->options;
}
client_stats client::stats() const {
  return {};
}

}  // namespace bloomkit::redis
