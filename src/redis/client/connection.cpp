#include "connection.hpp"

#include <hiredis/hiredis.h>

#include <charconv>
#include <limits>

#include "bloomkit/error.hpp"
#include "hiredis_reply.hpp"
#include "tls_context.hpp"

namespace bloomkit::redis::detail {
namespace {

constexpr std::size_t read_chunk = 64 * 1024;

// What one reply may hold (connection::reply_guard). From a Redis server: at most 2^24 elements
// in all its arrays (128 MiB of pointers that hiredis allocates as the arrays are announced; the
// client's own largest replies, a batch's BITFIELD or CLUSTER SLOTS's 16384 ranges, hold far
// fewer), any number of bytes (each reply still arrives within the read timeout). From a
// Sentinel, whose replies are an address or a few short strings: 1 MiB, so at most a third as
// many elements (the shortest element, "+\r\n", is 3 bytes): more could not arrive.
constexpr std::size_t redis_max_elements = std::size_t{1} << 24;
constexpr std::size_t sentinel_max_bytes = std::size_t{1} << 20;
constexpr std::size_t sentinel_max_elements = sentinel_max_bytes / 3;

// hiredis's createArray, refusing an array that would take the reply past its element limit
// before hiredis allocates it (hiredis then fails the read with an "out of memory" error, which
// next_reply replaces by the limit's).
void* guarded_array(const redisReadTask* task, int elements) {
  auto& guard = *static_cast<connection::reply_guard*>(task->privdata);
  if (task->parent == nullptr) guard.elements = 0;  // a new reply
  guard.elements += static_cast<std::size_t>(std::max(elements, 0));
  if (guard.elements > guard.max_elements) {
    guard.refused = elements;
    return nullptr;
  }
  return guard.base->createArray(task, elements);
}

struct reply_deleter {
  void operator()(void* r) const { freeReplyObject(r); }
};
using reply_ptr = std::unique_ptr<void, reply_deleter>;

// Appends a command, RESP-encoded in one pass (hiredis's redisAppendCommandArgv built an sds
// string argument by argument: about 30% of the client's CPU on BITFIELD commands of a hundred
// arguments).
void append(std::string& resp, const command& c) {
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
}

}  // namespace

reply to_reply(const redisReply* r) {
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
      for (std::size_t i = 0; i < r->elements; ++i) elements.push_back(to_reply(r->element[i]));
      return reply::make_array(std::move(elements));
    }
    default:
      return reply::make_nil();
  }
}

connection::connection(endpoint where, const credentials& auth, const client_options& options,
                       std::shared_ptr<const tls_context> tls, peer kind)
    : where_(std::move(where)),
      auth_(auth),
      options_(options),
      tls_(std::move(tls)),
      kind_(kind),
      read_timeout_(options.command_timeout) {
  if (kind_ == peer::sentinel) {
    guard_.max_elements = sentinel_max_elements;
    guard_.max_bytes = sentinel_max_bytes;
  } else {
    guard_.max_elements = redis_max_elements;
    guard_.max_bytes = std::numeric_limits<std::size_t>::max();
  }
}

std::string connection::who() const {
  return (kind_ == peer::sentinel ? "Sentinel at " : "Redis at ") + where_.to_string();
}

connection::~connection() {
  drop();
}

void connection::drop() {
  stream_.close();
  if (reader_ != nullptr) {
    redisReaderFree(reader_);
    reader_ = nullptr;
  }
  out_.clear();
}

io_result connection::failure(std::string_view what, transfer t) {
  io_result result;
  if (t.status == io_status::timeout) {
    result.status = io_status::timeout;
    result.message = "Redis at " + where_.to_string() + " did not answer within " +
                     std::to_string(options_.command_timeout.count()) + " ms";
  } else {
    result.status = io_status::broken;
    result.message = std::string(what) + " Redis at " + where_.to_string() + ": " + t.reason;
  }
  drop();
  return result;
}

io_result connection::failure(std::string message) {
  drop();
  return {io_status::broken, std::move(message)};
}

io_result connection::ensure_connected() {
  if (stream_.is_open()) return {};
  transfer opened = stream_.open(where_, tls_.get(), options_.connect_timeout);
  if (opened.status != io_status::ok) {
    if (opened.reason.find("timed out") != std::string::npos) {
      opened.reason +=
          " (connect timeout " + std::to_string(options_.connect_timeout.count()) + " ms)";
    }
    return {io_status::broken,
            "cannot connect to Redis at " + where_.to_string() + ": " + opened.reason};
  }
  reader_ = redisReaderCreate();
  if (reader_ == nullptr) throw std::bad_alloc();
  if (!functions_) {
    guard_.base = reader_->fn;  // hiredis's defaults (static: they outlive every reader)
    functions_ = std::make_unique<redisReplyObjectFunctions>(*reader_->fn);
    functions_->createArray = guarded_array;
  }
  reader_->fn = functions_.get();
  reader_->privdata = &guard_;
  guard_.elements = 0;
  guard_.bytes = 0;
  guard_.refused = -1;
  answered_ = false;
  read_timeout_ = options_.command_timeout;

  if (!auth_.password.empty()) {
    command auth{{"AUTH"}, 0};
    if (!auth_.user.empty()) auth.args.push_back(auth_.user);
    auth.args.push_back(auth_.password);
    std::vector<reply> replies;
    if (auto r = round_trip(auth, replies); r.status != io_status::ok) return r;
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
    if (auto r = round_trip(select, replies); r.status != io_status::ok) return r;
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

io_result connection::round_trip(const command& c, std::vector<reply>& replies) {
  const std::vector<outgoing> batch{{&c, false}};
  if (auto r = send(batch); r.status != io_status::ok) return r;
  return read(batch, replies);
}

io_result connection::send(const std::vector<outgoing>& batch) {
  if (auto r = ensure_connected(); r.status != io_status::ok) return r;
  static const command asking{{"ASKING"}, 0};
  out_.clear();
  for (const auto& item : batch) {
    if (item.asking) append(out_, asking);
    append(out_, *item.cmd);
  }
  transfer sent = stream_.write_all(out_, options_.command_timeout);
  out_.clear();
  if (out_.capacity() > (std::size_t{1} << 24)) out_.shrink_to_fit();  // after a huge batch
  if (sent.status != io_status::ok) {
    if (!answered_ && sent.status == io_status::broken) sent.reason += unanswered_hint();
    return failure("lost the connection to", sent);
  }
  return {};
}

std::string connection::unanswered_hint() const {
  // A server that hangs up on a new connection before any answer: a TLS port for a plaintext
  // client; with TLS 1.3, a server refusing the client's certificate after the handshake (its
  // alert can be lost to the reset when our first command crosses it).
  if (tls_ == nullptr) return " before answering (is it a TLS port? then use rediss://)";
  return tls_->has_client_certificate()
             ? " before answering (does the server refuse the client certificate?)"
             : " before answering (does the server require a client certificate? then give "
               "--tls-cert and --tls-key)";
}

void connection::check_not_tls(char first_byte) {
  // 0x15: a TLS alert (a TLS server's answer to plaintext), 0x16: a handshake record.
  if (tls_ == nullptr && (first_byte == 0x15 || first_byte == 0x16)) {
    drop();
    throw error(errc::unreachable, "cannot connect to Redis at " + where_.to_string() +
                                       ": the server speaks TLS; use rediss:// (or "
                                       "rediss-cluster://, rediss-sentinel://)");
  }
}

void* connection::next_reply(io_result& outcome) {
  // The whole reply within the read timeout: a server trickling it in a byte at a time must not
  // hold the client for longer.
  const auto until = std::chrono::steady_clock::now() + read_timeout_;
  while (true) {
    void* raw = nullptr;
    if (redisReaderGetReply(reader_, &raw) != REDIS_OK) {
      if (guard_.refused >= 0) {
        outcome = failure(who() + " sent a reply announcing " + std::to_string(guard_.refused) +
                          " elements (more than the " + std::to_string(guard_.max_elements) +
                          " that one reply " + (kind_ == peer::sentinel ? "from a sentinel " : "") +
                          "may hold)");
      } else {
        outcome = failure("protocol error from",
                          {io_status::broken, std::string(redisReaderGetError(reader_))});
      }
      return nullptr;
    }
    if (raw != nullptr) {
      guard_.bytes = reader_->len - reader_->pos;  // the next replies' bytes read so far
      return raw;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome = failure("", {io_status::timeout, {}});
      return nullptr;
    }
    if (in_.size() < read_chunk) in_.resize(read_chunk);
    std::size_t got = 0;
    transfer t = stream_.read_some(in_.data(), in_.size(), got, left);
    if (t.status != io_status::ok) {
      if (!answered_ && t.status == io_status::broken) t.reason += unanswered_hint();
      outcome = failure("lost the connection to", t);
      return nullptr;
    }
    if (!answered_) check_not_tls(in_[0]);
    answered_ = true;
    guard_.bytes += got;
    if (guard_.bytes > guard_.max_bytes) {
      outcome = failure(who() + " sent a reply of more than " + std::to_string(guard_.max_bytes) +
                        " bytes (more than a " + (kind_ == peer::sentinel ? "sentinel" : "server") +
                        " sends)");
      return nullptr;
    }
    if (redisReaderFeed(reader_, in_.data(), got) != REDIS_OK) throw std::bad_alloc();
  }
}

io_result connection::read(const std::vector<outgoing>& batch, std::vector<reply>& replies) {
  if (!stream_.is_open()) return {io_status::broken, "not connected to " + where_.to_string()};
  replies.reserve(replies.size() + batch.size());
  io_result outcome;
  for (const auto& item : batch) {
    for (int part = item.asking ? 0 : 1; part < 2; ++part) {
      const reply_ptr owned(next_reply(outcome));
      if (!owned) return outcome;
      if (part == 1) replies.push_back(to_reply(static_cast<const redisReply*>(owned.get())));
    }
  }
  return {};
}

reply connection::call(const command& c) {
  std::vector<reply> replies;
  const io_result r = round_trip(c, replies);
  if (r.status == io_status::timeout) throw error(errc::timeout, r.message);
  if (r.status != io_status::ok) throw error(errc::unreachable, r.message);
  return std::move(replies.front());
}

}  // namespace bloomkit::redis::detail
