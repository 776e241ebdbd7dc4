#pragma once
// Internal: a reply as hiredis's parser builds it, as bloomkit's reply (the client's connections
// and the tests' raw hiredis calls share this one conversion).

#include "bloomkit/redis/client.hpp"

struct redisReply;

namespace bloomkit::redis::detail {

// Strings, statuses, errors, integers and arrays (recursively); any other type as nil.
reply to_reply(const redisReply* r);

}  // namespace bloomkit::redis::detail
