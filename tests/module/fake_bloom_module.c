/* A stand-in for RedisBloom in the coexistence tests (test_registration.py): a second module that
 * registers bf.add and bf.exists and a data type named MBbloom--, as RedisBloom does, and answers
 * in a way no bloomkit command does. Its name is `bf` (RedisBloom's) unless loaded with
 * `NAME <name>`. Like bloomkit's module it resolves the module API by name (no redismodule.h). */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleIO RedisModuleIO;
typedef int (*command_fn)(RedisModuleCtx*, RedisModuleString**, int);

/* Data type callbacks, layout version 1. */
typedef struct {
  uint64_t version;
  void* (*rdb_load)(RedisModuleIO*, int);
  void (*rdb_save)(RedisModuleIO*, void*);
  void (*aof_rewrite)(RedisModuleIO*, RedisModuleString*, void*);
  size_t (*mem_usage)(const void*);
  void (*digest)(void*, void*);
  void (*free)(void*);
  void* aux_load;
  void* aux_save;
  int aux_save_triggers;
} type_methods;

enum { ok = 0, err = 1, open_read = 1, open_write = 2, keytype_empty = 0, keytype_module = 6 };

static int (*get_api)(const char*, void*);
static int (*is_module_name_busy)(const char*);
static void (*set_module_attribs)(RedisModuleCtx*, const char*, int, int);
static int (*create_command)(RedisModuleCtx*, const char*, command_fn, const char*, int, int, int);
static RedisModuleType* (*create_data_type)(RedisModuleCtx*, const char*, int, type_methods*);
static int (*wrong_arity)(RedisModuleCtx*);
static int (*reply_with_simple_string)(RedisModuleCtx*, const char*);
static int (*reply_with_error)(RedisModuleCtx*, const char*);
static const char* (*string_ptr_len)(const RedisModuleString*, size_t*);
static void* (*open_key)(RedisModuleCtx*, RedisModuleString*, int);
static void (*close_key)(RedisModuleKey*);
static int (*key_type)(RedisModuleKey*);
static RedisModuleType* (*module_type_get_type)(RedisModuleKey*);
static void* (*module_type_get_value)(RedisModuleKey*);
static int (*module_type_set_value)(RedisModuleKey*, RedisModuleType*, void*);
static void* (*alloc)(size_t);
static void (*release)(void*);
static void (*save_unsigned)(RedisModuleIO*, uint64_t);
static uint64_t (*load_unsigned)(RedisModuleIO*);
static void (*emit_aof)(RedisModuleIO*, const char*, const char*, ...);

static RedisModuleType* fake_type;

/* A value: how many items BF.ADD received. */
typedef struct {
  uint64_t adds;
} fake_value;

static void* fake_load(RedisModuleIO* io, int encver) {
  (void)encver;
  fake_value* v = alloc(sizeof *v);
  v->adds = load_unsigned(io);
  return v;
}
static void fake_save(RedisModuleIO* io, void* value) {
  save_unsigned(io, ((fake_value*)value)->adds);
}
static void fake_free(void* value) {
  release(value);
}
/* An AOF rewrite recreates the key with one BF.ADD (its count is not kept: a stand-in). */
static void fake_rewrite(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  (void)value;
  emit_aof(aof, "BF.ADD", "sc", key, "rewritten");
}

/* BF.ADD key item: counts the add in the key's value, replies +fakebloom:add. */
static int fake_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return wrong_arity(ctx);
  RedisModuleKey* key = open_key(ctx, argv[1], open_read | open_write);
  const int type = key_type(key);
  fake_value* v = NULL;
  if (type == keytype_empty) {
    v = alloc(sizeof *v);
    v->adds = 0;
    module_type_set_value(key, fake_type, v);
  } else if (type == keytype_module && module_type_get_type(key) == fake_type) {
    v = module_type_get_value(key);
  } else {
    close_key(key);
    return reply_with_error(ctx, "WRONGTYPE fakebloom: not a fakebloom key");
  }
  v->adds++;
  close_key(key);
  return reply_with_simple_string(ctx, "fakebloom:add");
}

/* BF.EXISTS key item: replies +fakebloom:exists. */
static int fake_exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  (void)argv;
  if (argc != 3) return wrong_arity(ctx);
  return reply_with_simple_string(ctx, "fakebloom:exists");
}

#define RESOLVE(slot, name) \
  if (get_api("RedisModule_" name, (void*)&slot) != ok) return err

__attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                              RedisModuleString** argv, int argc) {
  memcpy(&get_api, (void*)ctx, sizeof get_api);
  RESOLVE(set_module_attribs, "SetModuleAttribs");
  RESOLVE(create_command, "CreateCommand");
  RESOLVE(create_data_type, "CreateDataType");
  RESOLVE(wrong_arity, "WrongArity");
  RESOLVE(reply_with_simple_string, "ReplyWithSimpleString");
  RESOLVE(reply_with_error, "ReplyWithError");
  RESOLVE(string_ptr_len, "StringPtrLen");
  RESOLVE(open_key, "OpenKey");
  RESOLVE(close_key, "CloseKey");
  RESOLVE(key_type, "KeyType");
  RESOLVE(module_type_get_type, "ModuleTypeGetType");
  RESOLVE(module_type_get_value, "ModuleTypeGetValue");
  RESOLVE(module_type_set_value, "ModuleTypeSetValue");
  RESOLVE(alloc, "Alloc");
  RESOLVE(release, "Free");
  RESOLVE(save_unsigned, "SaveUnsigned");
  RESOLVE(load_unsigned, "LoadUnsigned");
  RESOLVE(emit_aof, "EmitAOF");
  RESOLVE(is_module_name_busy, "IsModuleNameBusy");

  const char* name = "bf";
  if (argc == 2 && strcasecmp(string_ptr_len(argv[0], NULL), "NAME") == 0) {
    name = string_ptr_len(argv[1], NULL);
  }
  if (is_module_name_busy(name)) return err;
  set_module_attribs(ctx, name, 1, 1);

  type_methods methods;
  memset(&methods, 0, sizeof methods);
  methods.version = 1;
  methods.rdb_load = fake_load;
  methods.rdb_save = fake_save;
  methods.aof_rewrite = fake_rewrite;
  methods.free = fake_free;
  fake_type = create_data_type(ctx, "MBbloom--", 4, &methods);
  if (fake_type == NULL) return err;
  if (create_command(ctx, "bf.add", fake_add, "write deny-oom", 1, 1, 1) != ok) return err;
  if (create_command(ctx, "bf.exists", fake_exists, "readonly fast", 1, 1, 1) != ok) return err;
  return ok;
}
