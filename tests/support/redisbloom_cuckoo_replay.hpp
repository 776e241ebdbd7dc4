#pragma once
// Replays the RedisBloom cuckoo vectors' command logs (tests/data/redisbloom-cuckoo) through the
// compat filter: CF.* parsed as RedisBloom's cf.c / rebloom.c parse them, each answer built as
// RedisBloom builds it, so that a test compares them with the logged replies. Argument arity and
// key types are the module's (skipped: run() answers nothing for them).

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"
#include "support/json.hpp"
#include "support/redisbloom_vectors.hpp"

namespace bloomkit::test {

// A RESP reply: RESP3 booleans read as integers 1 / 0 and maps as flat arrays.
struct resp_reply {
  enum class kind { integer, simple, error, bulk, null, array };
  kind type = kind::null;
  long long number = 0;
  std::string text;
  std::vector<resp_reply> items;
  friend bool operator==(const resp_reply&, const resp_reply&) = default;

  static resp_reply integer(long long n) { return {kind::integer, n, {}, {}}; }
  static resp_reply simple(std::string_view s) { return {kind::simple, 0, std::string(s), {}}; }
  static resp_reply error(std::string_view s) { return {kind::error, 0, std::string(s), {}}; }
  static resp_reply bulk(std::string_view s) { return {kind::bulk, 0, std::string(s), {}}; }
  static resp_reply nil() { return {}; }
  static resp_reply array(std::vector<resp_reply> items) {
    return {kind::array, 0, {}, std::move(items)};
  }

  static resp_reply from_json(const json& j) {
    switch (j.kind) {
      case json::type::null:
        return nil();
      case json::type::boolean:
        return integer(j.flag ? 1 : 0);
      case json::type::number:
        return integer(std::stoll(j.text));
      case json::type::array: {
        std::vector<resp_reply> items;
        for (const json& x : j.items) items.push_back(from_json(x));
        return array(std::move(items));
      }
      case json::type::object:
        if (j.has("simple")) return simple(j["simple"].str());
        if (j.has("error")) return error(j["error"].str());
        if (j.has("bulk_hex")) return bulk(unhex(j["bulk_hex"].str()));
        if (j.has("map")) {
          std::vector<resp_reply> items;
          for (const json& pair : j["map"].items) {
            items.push_back(from_json(pair[0]));
            items.push_back(from_json(pair[1]));
          }
          return array(std::move(items));
        }
        break;
      case json::type::string:
        break;
    }
    throw std::runtime_error("reply of an unknown form");
  }

  std::string show() const {
    std::string s;
    switch (type) {
      case kind::integer:
        s = std::to_string(number);
        break;
      case kind::simple:
        s.append(1, '+').append(text);
        break;
      case kind::error:
        s.append(1, '-').append(text);
        break;
      case kind::bulk:
        s.append(1, '$').append(std::to_string(text.size()));
        break;
      case kind::null:
        s = "nil";
        break;
      case kind::array:
        s.append(1, '[');
        for (const auto& x : items) s.append(x.show()).append(1, ' ');
        s.append(1, ']');
        break;
    }
    return s;
  }
};

class cuckoo_replay {
 public:
  using filter = redisbloom::cuckoo::filter;
  std::map<std::string, filter, std::less<>> keys;

  // The reply RedisBloom gives, or nothing where the module decides (arity, other commands).
  std::optional<resp_reply> run(const std::vector<std::string>& argv) {
    namespace cf = redisbloom::cuckoo;
    using r = resp_reply;
    if (argv.size() < 2) return std::nullopt;
    const std::string cmd = upper(argv[0]);
    const std::string& key = argv[1];
    auto it = keys.find(key);
    filter* f = it == keys.end() ? nullptr : &it->second;
    const std::size_t argc = argv.size();
    if (cmd == "DEL") return r::integer(static_cast<long long>(keys.erase(key)));
    if (cmd == "CF.RESERVE") {
      if (argc < 3 || argc % 2 == 0) return std::nullopt;
      long long capacity = 0;
      if (!to_ll(argv[2], capacity)) return r::error("Bad capacity");
      long long mi = cf::default_max_iterations, bs = cf::default_bucket_size,
                ex = cf::default_expansion;
      for (auto [name, value] : {std::pair<const char*, long long*>{"MAXITERATIONS", &mi},
                                 {"BUCKETSIZE", &bs},
                                 {"EXPANSION", &ex}}) {
        const std::size_t at = arg_index(argv, name);
        if (at != 0 && !to_ll(argv[at + 1], *value)) {
          return r::error(std::string("Couldn't parse ") + name);
        }
      }
      if (auto problem = cf::reserve_problem(capacity, bs, mi, ex)) return r::error(*problem);
      if (f != nullptr) return r::error("ERR item exists");
      keys.emplace(
          key, filter::make(static_cast<std::uint64_t>(capacity), static_cast<std::uint16_t>(bs),
                            static_cast<std::uint16_t>(mi), static_cast<std::uint16_t>(ex)));
      return r::simple("OK");
    }
    if (cmd == "CF.ADD" || cmd == "CF.ADDNX") {
      if (argc != 3) return std::nullopt;
      return insert(key, f, {argv[2]}, cmd.back() == 'X', false, true, cf::default_capacity);
    }
    if (cmd == "CF.INSERT" || cmd == "CF.INSERTNX") {
      if (argc < 4) return std::nullopt;
      long long capacity = static_cast<long long>(cf::default_capacity);
      bool create = true;
      std::size_t at = 2, items = 0;
      while (at < argc && items == 0) {
        switch (std::tolower(static_cast<unsigned char>(argv[at].empty() ? '\0' : argv[at][0]))) {
          case 'c':
            if (++at == argc) return std::nullopt;
            if (!to_ll(argv[at++], capacity)) return r::error("Bad capacity");
            if (auto problem = cf::insert_capacity_problem(capacity)) return r::error(*problem);
            break;
          case 'i':
            items = ++at;
            break;
          case 'n':
            create = false;
            ++at;
            break;
          default:
            return r::error("Unknown argument received");
        }
      }
      if (items == 0 || items == argc) return std::nullopt;
      return insert(key, f, {argv.begin() + static_cast<std::ptrdiff_t>(items), argv.end()},
                    cmd.back() == 'X', true, create, static_cast<std::uint64_t>(capacity));
    }
    if (cmd == "CF.EXISTS" || cmd == "CF.COUNT" || cmd == "CF.MEXISTS") {
      const bool multi = cmd == "CF.MEXISTS";
      if (multi ? argc < 3 : argc != 3) return std::nullopt;
      std::vector<r> answers;
      for (std::size_t i = 2; i < argc; ++i) {
        long long n = 0;
        if (f != nullptr) {
          n = cmd == "CF.COUNT" ? static_cast<long long>(f->count(argv[i]))
                                : static_cast<long long>(f->contains(argv[i]));
        }
        answers.push_back(r::integer(n));
      }
      return multi ? r::array(std::move(answers)) : answers.front();
    }
    if (cmd == "CF.DEL") {
      if (argc != 3) return std::nullopt;
      if (f == nullptr) return r::error("Not found");
      return r::integer(f->remove(argv[2]) ? 1 : 0);
    }
    if (cmd == "CF.COMPACT") {
      if (argc != 2) return std::nullopt;
      if (f == nullptr) return r::error("Cuckoo filter was not found");
      f->compact(true);
      return r::simple("OK");
    }
    if (cmd == "CF.INFO" || cmd == "CF.DEBUG") {
      if (argc != 2) return std::nullopt;
      if (f == nullptr) return r::error("ERR not found");
      if (cmd == "CF.DEBUG") return r::bulk(f->debug_text());
      std::vector<r> lines;
      for (const auto& field : f->info()) {
        lines.push_back(r::simple(field.name));
        lines.push_back(r::integer(static_cast<long long>(field.value)));
      }
      return r::array(std::move(lines));
    }
    if (cmd == "CF.SCANDUMP") {
      if (argc != 3) return std::nullopt;
      long long pos = 0;
      if (!to_ll(argv[2], pos) || pos < 0) return r::error("Invalid position");
      if (f == nullptr) return r::error("ERR not found");
      if (f->num_items() == 0) return r::array({r::integer(0), r::nil()});
      if (pos == 0) {
        const auto h = cf::header_chunk(*f);
        return r::array({r::integer(1), r::bulk(std::string(h.begin(), h.end()))});
      }
      const auto chunk = cf::next_chunk(*f, pos);
      if (chunk.data.empty()) return r::array({r::integer(0), r::nil()});
      return r::array(
          {r::integer(chunk.next), r::bulk(std::string(chunk.data.begin(), chunk.data.end()))});
    }
    if (cmd == "CF.LOADCHUNK") {
      if (argc != 4) return std::nullopt;
      long long pos = 0;
      if (!to_ll(argv[2], pos) || pos == 0) return r::error("Invalid position");
      const auto* data = reinterpret_cast<const unsigned char*>(argv[3].data());
      const std::span<const unsigned char> bytes(data, argv[3].size());
      try {
        if (pos == 1) {
          if (f != nullptr) return r::error("ERR item exists");
          keys.emplace(key, cf::filter_from_header(bytes));
          return r::simple("OK");
        }
        if (f == nullptr) return r::error("ERR not found");
        cf::apply_chunk(*f, pos, bytes);
        return r::simple("OK");
      } catch (const cf::chunk_error& e) {
        return r::error(cf::redisbloom_text(e.problem()));
      }
    }
    return std::nullopt;
  }

 private:
  static std::string upper(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }
  // RedisModule_StringToLongLong: the whole string, a decimal integer in range.
  static bool to_ll(std::string_view s, long long& out) {
    if (s.empty() || s.front() == '+') return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
  }
  // RMUtil_ArgIndex: the first argument equal to `name` ignoring case (0: none; argv[0] is the
  // command, never an option).
  static std::size_t arg_index(const std::vector<std::string>& argv, std::string_view name) {
    for (std::size_t i = 1; i + 1 < argv.size(); ++i) {
      if (upper(argv[i]) == name) return i;
    }
    return 0;
  }

  std::optional<resp_reply> insert(const std::string& key, filter* f,
                                   std::vector<std::string> items, bool nx, bool multi, bool create,
                                   std::uint64_t capacity) {
    namespace cf = redisbloom::cuckoo;
    using r = resp_reply;
    if (f == nullptr) {
      if (!create) return r::error("ERR not found");
      f = &keys.emplace(key, filter::make(capacity, cf::default_bucket_size,
                                          cf::default_max_iterations, cf::default_expansion))
               .first->second;
    }
    if (f->max_expansions_reached()) return r::error(cf::max_expansions_text);
    std::vector<r> answers;
    for (const std::string& item : items) {
      const auto status = nx ? f->insert_unique(item) : f->insert(item);
      switch (status) {
        case cf::insert_status::no_space:
          if (!multi) return r::error(cf::full_text);
          answers.push_back(r::integer(-1));
          break;
        case cf::insert_status::no_memory:
          answers.push_back(r::error(cf::no_memory_text));
          break;
        default:
          answers.push_back(r::integer(static_cast<int>(status)));
      }
    }
    return multi ? r::array(std::move(answers)) : answers.front();
  }
};

}  // namespace bloomkit::test
