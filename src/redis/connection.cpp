#include "connection.hpp"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "bloomkit/error.hpp"

namespace bloomkit::redis::detail {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  const auto count = std::max<long long>(ms.count(), 1);
  return timeval{static_cast<time_t>(count / 1000), static_cast<suseconds_t>(count % 1000 * 1000)};
}

reply convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STRING:
      return reply::make_string(std::string(r->str, r->len));
    case REDIS_REPLY_STATUS:
      return reply::make_status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return reply::make_error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER:
      return reply::make_integer(r->integer);
    case REDIS_REPLY_ARRAY: {
      std::vector<reply> elements;
      elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) elements.push_back(convert(r->element[i]));
      return reply::make_array(std::move(elements));
    }
    default:
      return reply::make_nil();
  }
}

// hiredis writes with write(2): a server that closed the connection would raise SIGPIPE and kill
// the process. A library must not change the process's signal handling, so SIGPIPE is blocked in
// this thread while writing and a SIGPIPE raised meanwhile is consumed (EPIPE still reports it).
class sigpipe_guard {
 public:
  sigpipe_guard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &old_) == 0;
  }
  ~sigpipe_guard() {
    if (!blocked_) return;
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) == -1 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
  bool blocked_ = false;
};

struct reply_deleter {
  void operator()(void* r) const { freeReplyObject(r); }
};
using reply_ptr = std::unique_ptr<void, reply_deleter>;

// Appends a command to the context's output buffer, RESP-encoded here in one pass into one
// reused buffer: hiredis's redisAppendCommandArgv builds an sds string argument by argument,
// which was about 30% of the client's CPU on BITFIELD commands of a hundred arguments.
bool append(redisContext* ctx, const command& c) {
  thread_local std::string resp;
  resp.clear();
  char digits[24];
  auto put_count = [&](char type, std::size_t n) {
    resp += type;
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    resp.append(digits, end);
    resp += "\r\n";
  };
  put_count('*', c.args.size());
  for (const auto& a : c.args) {
    put_count('$', a.size());
    resp.append(a.data(), a.size());
    resp += "\r\n";
  }
  return redisAppendFormattedCommand(ctx, resp.data(), resp.size()) == REDIS_OK;
}

}  // namespace

connection::connection(endpoint where, const credentials& auth, const client_options& options)
    : where_(std::move(where)), auth_(auth), options_(options) {}

connection::~connection() {
  drop();
}

void connection::drop() {
  if (context_ != nullptr) {
    redisFree(context_);
    context_ = nullptr;
  }
}

io_result connection::failure(std::string_view what, int saved_errno) {
  io_result result;
  const bool timed_out =
      context_ != nullptr && context_->err == REDIS_ERR_IO &&
      (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == ETIMEDOUT);
  std::string reason = context_ != nullptr && context_->errstr[0] != '\0'
                           ? std::string(context_->errstr)
                           : std::string(std::strerror(saved_errno));
  if (timed_out) {
    result.status = io_status::timeout;
    result.message = "Redis at " + where_.to_string() + " did not answer within " +
                     std::to_string(options_.command_timeout.count()) + " ms";
  } else {
    result.status = io_status::broken;
    result.message = std::string(what) + " Redis at " + where_.to_string() + ": " + reason;
  }
  drop();
  return result;
}

io_result connection::ensure_connected() {
  if (context_ != nullptr) return {};
  redisContext* ctx = redisConnectWithTimeout(where_.host.c_str(), where_.port,
                                              to_timeval(options_.connect_timeout));
  if (ctx == nullptr) {
    return {io_status::broken,
            "cannot connect to Redis at " + where_.to_string() + ": out of memory"};
  }
  if (ctx->err != 0) {
    std::string reason = ctx->errstr;
    redisFree(ctx);
    if (reason.find("timed out") != std::string::npos) {
      reason += " (connect timeout " + std::to_string(options_.connect_timeout.count()) + " ms)";
    }
    return {io_status::broken, "cannot connect to Redis at " + where_.to_string() + ": " + reason};
  }
  redisSetTimeout(ctx, to_timeval(options_.command_timeout));
  redisEnableKeepAlive(ctx);  // a peer that vanished without a FIN is noticed on idle connections
  context_ = ctx;

  if (!auth_.password.empty()) {
    command auth{{"AUTH"}, 0};
    if (!auth_.user.empty()) auth.args.push_back(auth_.user);
    auth.args.push_back(auth_.password);
    std::vector<reply> replies;
    const std::vector<outgoing> batch{{&auth, false}};
    if (auto r = send(batch); r.status != io_status::ok) return r;
    if (auto r = read(batch, replies); r.status != io_status::ok) return r;
    if (replies.front().is_error()) {
      drop();
      throw error(errc::auth_failed,
                  "Redis at " + where_.to_string() + " refused AUTH" +
                      (auth_.user.empty() ? std::string() : " of user \"" + auth_.user + "\"") +
                      ": " + replies.front().str());
    }
  }
  if (auth_.db != 0) {
    const command select{{"SELECT", std::to_string(auth_.db)}, 0};
    std::vector<reply> replies;
    const std::vector<outgoing> batch{{&select, false}};
    if (auto r = send(batch); r.status != io_status::ok) return r;
    if (auto r = read(batch, replies); r.status != io_status::ok) return r;
    if (replies.front().is_error()) {
      drop();
      const auto& text = replies.front().str();
      if (text.starts_with("NOAUTH")) {
        throw error(errc::auth_failed,
                    "Redis at " + where_.to_string() + " requires a password: " + text);
      }
      throw error(errc::invalid_argument, "Redis at " + where_.to_string() + " refused SELECT " +
                                              std::to_string(auth_.db) + ": " + text);
    }
  }
  ++generation_;
  return {};
}

io_result connection::send(const std::vector<outgoing>& batch) {
  if (auto r = ensure_connected(); r.status != io_status::ok) return r;
  static const command asking{{"ASKING"}, 0};
  for (const auto& item : batch) {
    if ((item.asking && !append(context_, asking)) || !append(context_, *item.cmd)) {
      return failure("cannot send to", errno);
    }
  }
  sigpipe_guard guard;
  int done = 0;
  while (done == 0) {
    if (redisBufferWrite(context_, &done) != REDIS_OK) {
      return failure("lost the connection to", errno);
    }
  }
  return {};
}

io_result connection::read(const std::vector<outgoing>& batch, std::vector<reply>& replies) {
  if (context_ == nullptr) return {io_status::broken, "not connected to " + where_.to_string()};
  replies.reserve(replies.size() + batch.size());
  for (const auto& item : batch) {
    for (int part = item.asking ? 0 : 1; part < 2; ++part) {
      void* raw = nullptr;
      errno = 0;
      if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
        return failure("lost the connection to", errno);
      }
      const reply_ptr owned(raw);
      if (part == 1) replies.push_back(convert(static_cast<const redisReply*>(raw)));
    }
  }
  return {};
}

reply connection::call(const command& c) {
  const std::vector<outgoing> batch{{&c, false}};
  std::vector<reply> replies;
  io_result r = send(batch);
  if (r.status == io_status::ok) r = read(batch, replies);
  if (r.status == io_status::timeout) throw error(errc::timeout, r.message);
  if (r.status != io_status::ok) throw error(errc::unreachable, r.message);
  return std::move(replies.front());
}

void connection::set_read_timeout(std::chrono::milliseconds timeout) {
  if (context_ != nullptr) redisSetTimeout(context_, to_timeval(timeout));
}

}  // namespace bloomkit::redis::detail
