// CF.RESERVE, CF.ADD, CF.ADDNX, CF.INSERT, CF.INSERTNX, CF.DEL and CF.COMPACT with RedisBloom's
// arguments, replies (RESP3 booleans where RedisBloom sends them) and error texts.

#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "cf_arguments.hpp"
#include "commands.hpp"
#include "module_settings.hpp"
#include "module_stats.hpp"
#include "redisbloom_cuckoo_type.hpp"
#include "replies.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr const char* filter_full = "Filter is full";

// How an add command answers each item: CF.ADD / CF.ADDNX one boolean ("Filter is full" when
// there is no room), CF.INSERT an array of booleans with -1 for no room (RESP2; false in
// RESP3), CF.INSERTNX integers (-1 for no room in both).
enum class add_form { single, booleans, integers };

// Stores a new filter made with `o` in the empty key; false, having replied the error (OOM when
// maxmemory refuses its slots, nothing created), when it cannot be made.
bool create_filter(RedisModuleCtx* ctx, cuckoo_key& key, const cf_create_options& o) {
  memory_budget budget(ctx);
  if (!budget.admits(cuckoo_slot_bytes(o.capacity, o.bucket_size))) {
    reply_error(ctx, budget.refusal());
    return false;
  }
  try {
    key.create(make_cuckoo(o.capacity, o.bucket_size, o.max_iterations, o.expansion));
  } catch (const error& e) {
    reply_failure(ctx, budget, e);
    return false;
  }
  return true;
}

// No room is -1, but a RESP3 client of CF.INSERT gets false (RedisBloom's booleans).
void reply_added(RedisModuleCtx* ctx, cuckoo_insert result, add_form form) {
  const bool boolean =
      form != add_form::integers && (result != cuckoo_insert::no_space || speaks_resp3(ctx));
  if (boolean) return void(reply_bool(ctx, result == cuckoo_insert::inserted));
  RedisModule_ReplyWithLongLong(ctx, result == cuckoo_insert::no_space   ? -1
                                     : result == cuckoo_insert::inserted ? 1
                                                                         : 0);
}

// After an add some of whose items maxmemory refused (they changed nothing here): replicas get
// the command with only the other items, in order, so that they end in this filter's state
// (replicated commands are never refused). CF.ADD / CF.ADDNX of a refused item replicate nothing.
void replicate_accepted(RedisModuleCtx* ctx, RedisModuleString* name,
                        std::span<RedisModuleString* const> items, const std::vector<bool>& refused,
                        const cf_create_options& o, bool unique, add_form form, const char* event) {
  std::vector<RedisModuleString*> accepted;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!refused[i]) accepted.push_back(items[i]);
  }
  if (form == add_form::single || accepted.empty()) return;
  RedisModule_Replicate(ctx, unique ? "CF.INSERTNX" : "CF.INSERT", "sclcv", name, "CAPACITY",
                        static_cast<long long>(o.capacity), "ITEMS", accepted.data(),
                        accepted.size());
  RedisModule_NotifyKeyspaceEvent(ctx, notify_generic, event, name);
}

// RedisBloom's cfInsertCommon: opens (and with `o.create`, creates) the key, refuses a filter at
// cf-max-expansions sub-filters, then adds each item in order.
int add_items(RedisModuleCtx* ctx, RedisModuleString* name,
              std::span<RedisModuleString* const> items, const cf_create_options& o, bool unique,
              add_form form, const char* event) {
  cuckoo_key key(ctx, name, open_read | open_write);
  bool created = false;
  if (key.empty() && o.create) {
    if (!create_filter(ctx, key, o)) return module_ok;
    created = true;
  } else if (key.filter() == nullptr) {
    return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
  }
  cuckoo_value& f = *key.filter();
  if (figures_of(f).filters >= current_cf_defaults().max_expansions) {
    RedisModule_ReplyWithError(ctx, "Maximum expansions reached");
    // A key made just now exists on this server: its replicas must make it too.
    if (created) announce_write(ctx, event, name);
    return module_ok;
  }
  memory_budget budget(ctx);
  if (form != add_form::single) RedisModule_ReplyWithArray(ctx, static_cast<long>(items.size()));
  std::uint64_t added = 0;
  std::vector<bool> refused;  // sized at the first refusal
  for (std::size_t i = 0; i < items.size(); ++i) {
    cuckoo_insert result{};
    try {
      result = insert_item(f, view_of(items[i]), unique);
    } catch (const error&) {
      // A sub-filter maxmemory (or the allocator) refuses: this item is not added, the filter is
      // as it was, and the items before it stay.
      reply_error(ctx,
                  budget.refusal().empty() ? std::string(cuckoo_no_memory_text) : budget.refusal());
      refused.resize(items.size());
      refused[i] = true;
      continue;
    }
    if (result == cuckoo_insert::inserted) ++added;
    if (form == add_form::single && result == cuckoo_insert::no_space) {
      RedisModule_ReplyWithError(ctx, filter_full);
      if (created) announce_write(ctx, event, name);
      return module_ok;
    }
    reply_added(ctx, result, form);
  }
  note_adds(added);
  if (refused.empty()) {
    announce_write(ctx, event, name);
  } else {
    replicate_accepted(ctx, name, items, refused, o, unique, form, event);
  }
  return module_ok;
}

int add_one(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool unique,
            const char* event) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  return add_items(ctx, argv[1], {argv + 2, 1}, default_cf_options(), unique, add_form::single,
                   event);
}

int insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool unique,
           const char* event) {
  std::size_t items = 0;
  const auto read = read_cf_insert({argv, static_cast<std::size_t>(argc)}, items);
  if (const auto* refusal = std::get_if<argument_refusal>(&read)) {
    return reply_refusal(ctx, *refusal);
  }
  return add_items(ctx, argv[1], {argv + items, static_cast<std::size_t>(argc) - items},
                   std::get<cf_create_options>(read), unique,
                   unique ? add_form::integers : add_form::booleans, event);
}

}  // namespace

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
int cf_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  const auto read = read_cf_reserve({argv, static_cast<std::size_t>(argc)});
  if (const auto* refusal = std::get_if<argument_refusal>(&read)) {
    return reply_refusal(ctx, *refusal);
  }
  cuckoo_key key(ctx, argv[1], open_read | open_write);
  if (!key.empty()) return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
  if (!create_filter(ctx, key, std::get<cf_create_options>(read))) return module_ok;
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "cf.reserve", argv[1]);
  return module_ok;
}

// CF.ADD key item
int cf_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return add_one(ctx, argv, argc, false, "cf.add");
}

// CF.ADDNX key item: added only when the item may not be there yet.
int cf_addnx(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return add_one(ctx, argv, argc, true, "cf.addnx");
}

// CF.INSERT key [CAPACITY c] [NOCREATE] ITEMS item [item ...]
int cf_insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return insert(ctx, argv, argc, false, "cf.insert");
}

// CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...]
int cf_insertnx(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return insert(ctx, argv, argc, true, "cf.insertnx");
}

// CF.DEL key item: removes one copy of the item's fingerprint; 0, changing nothing, when no
// candidate bucket holds it.
int cf_del(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read | open_write);
  if (key.filter() == nullptr) return RedisModule_ReplyWithError(ctx, "Not found");
  const bool deleted = delete_item(*key.filter(), view_of(argv[2]));
  reply_bool(ctx, deleted);
  announce_write(ctx, "cf.del", argv[1]);
  return module_ok;
}

// CF.COMPACT key
int cf_compact(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read | open_write);
  if (key.filter() == nullptr) {
    return RedisModule_ReplyWithError(ctx, "Cuckoo filter was not found");
  }
  compact(*key.filter());
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "cf.compact", argv[1]);
  return module_ok;
}

}  // namespace bloomkit::redis_module
