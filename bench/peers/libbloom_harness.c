/* bench_harness_libbloom: Debian's libbloom (the classic C filter) under the peer protocol
 * (harness.h): bloom_init(&b, n, p), then bloom_add / bloom_check one key at a time. libbloom
 * 1.6 has no bloom_init2; bloom_init takes an int entry count, so n must be below 2^31. */
#include <bloom.h>
#include <limits.h>

#include "harness.h"

static char library_name[64];

static void* libbloom_create(uint64_t n, double p, char* err, size_t err_size) {
  struct bloom* b;
  if (n > (uint64_t)INT_MAX) {
    snprintf(err, err_size, "libbloom takes an int entry count; n = %llu is too large",
             (unsigned long long)n);
    return NULL;
  }
  b = (struct bloom*)calloc(1, sizeof *b);
  if (b == NULL || bloom_init(b, (int)n, p) != 0) {
    snprintf(err, err_size, "bloom_init failed for n = %llu, p = %g", (unsigned long long)n, p);
    free(b);
    return NULL;
  }
  return b;
}

static void libbloom_destroy(void* filter) {
  bloom_free((struct bloom*)filter);
  free(filter);
}

static void libbloom_insert(void* filter, const key_file* chunk, long count) {
  struct bloom* b = (struct bloom*)filter;
  long i;
  for (i = 0; i < count; ++i) bloom_add(b, key_file_key(chunk, i), (int)chunk->lengths[i]);
}

static long libbloom_contains(void* filter, const key_file* chunk, long count) {
  struct bloom* b = (struct bloom*)filter;
  long i, present = 0;
  for (i = 0; i < count; ++i) {
    present += bloom_check(b, key_file_key(chunk, i), (int)chunk->lengths[i]) == 1;
  }
  return present;
}

static uint64_t libbloom_bytes(const void* filter) {
  return (uint64_t)((const struct bloom*)filter)->bytes;
}

static unsigned libbloom_hashes(const void* filter) {
  return (unsigned)((const struct bloom*)filter)->hashes;
}

int main(int argc, char** argv) {
  static harness_impl impl = {"libbloom",
                              "C",
                              library_name,
                              libbloom_create,
                              libbloom_destroy,
                              NULL,
                              libbloom_insert,
                              libbloom_contains,
                              libbloom_bytes,
                              libbloom_hashes,
                              NULL};
  const harness_impl* impls[1];
  snprintf(library_name, sizeof library_name, "libbloom %s", bloom_version());
  impls[0] = &impl;
  return harness_main(argc, argv, impls, 1);
}
