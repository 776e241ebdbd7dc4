/* The peer benchmark protocol (bench/peers/README.md, docs/PERFORMANCE.md "Peers") for
 * the C and C++ harnesses: argument parsing, warm-up, the timed insert / hit / miss passes over
 * chunks of the key files, the checks and the one line of JSON. An implementation supplies
 * callbacks; only `insert` and `contains` calls are timed, one call per chunk, so the per-key
 * loop is the implementation's own code. C99 and C++ compatible; header-only.
 *
 *   <harness> <impl> --keys KEYS --misses MISSES --n N --queries Q --p P
 */
#ifndef BLOOMKIT_BENCH_PEERS_HARNESS_H
#define BLOOMKIT_BENCH_PEERS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key_file.h"

typedef struct harness_impl {
  const char* name;     /* e.g. "bloomkit-classic" */
  const char* language; /* "C++", "C" */
  const char* library;  /* "<name version>" */
  /* A filter for n keys at FPP p, or NULL with a message in err. */
  void* (*create)(uint64_t n, double p, char* err, size_t err_size);
  void (*destroy)(void* filter);
  /* Untimed, before each timed call: lets the implementation convert the chunk (may be NULL). */
  void (*prepare)(void* filter, const key_file* chunk, long count);
  void (*insert)(void* filter, const key_file* chunk, long count);
  /* Returns how many of the chunk's keys were reported present. */
  long (*contains)(void* filter, const key_file* chunk, long count);
  uint64_t (*filter_bytes)(const void* filter);
  unsigned (*hashes)(const void* filter);
  /* Kinds that delete (may be NULL): removes the chunk's keys, each inserted once; returns how
   * many removes succeeded. */
  long (*remove)(void* filter, const key_file* chunk, long count);
} harness_impl;

static inline double harness_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef enum harness_op { HARNESS_INSERT, HARNESS_CONTAINS, HARNESS_REMOVE } harness_op;

/* Runs `op` over the first `count` keys of `path`; `counted` (contains: keys reported present;
 * remove: removes that succeeded) is added to. Returns the time of the filter calls in ns, or
 * -1 after printing an error. */
static inline double harness_pass(const harness_impl* impl, void* filter, const char* path,
                                  const char* role, uint64_t count, harness_op op,
                                  uint64_t* counted) {
  key_file kf;
  double total = 0;
  uint64_t done = 0;
  if (key_file_open(&kf, path) != 0) {
    fprintf(stderr, "%s: %s file: %s\n", impl->name, role, kf.error);
    return -1;
  }
  while (done < count) {
    const uint64_t want = count - done < KEY_FILE_CHUNK ? count - done : KEY_FILE_CHUNK;
    const long got = key_file_next_chunk(&kf, (long)want);
    double start;
    if (got < 0) {
      fprintf(stderr, "%s: %s\n", impl->name, kf.error);
      key_file_close(&kf);
      return -1;
    }
    if (got == 0) {
      fprintf(stderr, "%s: %s file '%s' has %llu lines, need %llu\n", impl->name, role, path,
              (unsigned long long)done, (unsigned long long)count);
      key_file_close(&kf);
      return -1;
    }
    if (impl->prepare != NULL) impl->prepare(filter, &kf, got);
    start = harness_now_ns();
    if (op == HARNESS_INSERT) {
      impl->insert(filter, &kf, got);
    } else if (op == HARNESS_CONTAINS) {
      *counted += (uint64_t)impl->contains(filter, &kf, got);
    } else {
      *counted += (uint64_t)impl->remove(filter, &kf, got);
    }
    total += harness_now_ns() - start;
    done += (uint64_t)got;
  }
  key_file_close(&kf);
  return total;
}

static inline int harness_parse_u64(const char* text, const char* flag, uint64_t* out) {
  char* end = NULL;
  const double v = strtod(text, &end); /* accepts 1e7 as well as 10000000 */
  if (end == text || *end != '\0' || !(v >= 1) || v > 1e12 || v != (double)(uint64_t)v) {
    fprintf(stderr, "error: %s wants a positive integer (e.g. 1e7), got '%s'\n", flag, text);
    return -1;
  }
  *out = (uint64_t)v;
  return 0;
}

static inline int harness_usage(const harness_impl* const* impls, size_t count) {
  size_t i;
  fprintf(stderr,
          "usage: <harness> IMPL --keys KEYS --misses MISSES --n N --queries Q --p P\nIMPL:");
  for (i = 0; i < count; ++i) fprintf(stderr, " %s", impls[i]->name);
  fprintf(stderr, "\n");
  return 2;
}

/* The whole protocol; returns the process exit status. */
static inline int harness_main(int argc, char** argv, const harness_impl* const* impls,
                               size_t impl_count) {
  const harness_impl* impl = NULL;
  const char *keys = NULL, *misses = NULL;
  uint64_t n = 0, queries = 0, hits, warm_n, warm_q, hit_positives = 0, miss_positives = 0;
  uint64_t bytes, warm_positives = 0, removed = 0;
  double p = 0, insert_ns, hit_ns, miss_ns, remove_ns = -1;
  char remove_field[64] = "null";
  char err[512] = "";
  void* filter;
  int i;
  size_t j;
  if (argc < 2) return harness_usage(impls, impl_count);
  for (j = 0; j < impl_count; ++j) {
    if (strcmp(argv[1], impls[j]->name) == 0) impl = impls[j];
  }
  if (impl == NULL) {
    fprintf(stderr, "error: unknown implementation '%s'\n", argv[1]);
    return harness_usage(impls, impl_count);
  }
  for (i = 2; i < argc; i += 2) {
    const char* flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (value == NULL) {
      fprintf(stderr, "error: %s wants a value\n", flag);
      return harness_usage(impls, impl_count);
    }
    if (strcmp(flag, "--keys") == 0) {
      keys = value;
    } else if (strcmp(flag, "--misses") == 0) {
      misses = value;
    } else if (strcmp(flag, "--n") == 0) {
      if (harness_parse_u64(value, flag, &n) != 0) return 2;
    } else if (strcmp(flag, "--queries") == 0) {
      if (harness_parse_u64(value, flag, &queries) != 0) return 2;
    } else if (strcmp(flag, "--p") == 0) {
      char* end = NULL;
      p = strtod(value, &end);
      if (end == value || *end != '\0' || !(p > 0 && p < 1)) {
        fprintf(stderr, "error: --p wants a probability in (0, 1), got '%s'\n", value);
        return 2;
      }
    } else {
      fprintf(stderr, "error: unknown option '%s'\n", flag);
      return harness_usage(impls, impl_count);
    }
  }
  if (keys == NULL || misses == NULL || n == 0 || queries == 0 || p == 0) {
    fprintf(stderr, "error: --keys, --misses, --n, --queries and --p are all required\n");
    return harness_usage(impls, impl_count);
  }
  hits = n < queries ? n : queries;
  warm_n = n < (1u << 20) ? n : (1u << 20);
  warm_q = queries < (1u << 20) ? queries : (1u << 20);

  /* Warm-up, untimed: a scratch filter, dropped. */
  filter = impl->create(warm_n, p, err, sizeof err);
  if (filter == NULL) {
    fprintf(stderr, "%s: %s\n", impl->name, err);
    return 1;
  }
  if (harness_pass(impl, filter, keys, "KEYS", warm_n, HARNESS_INSERT, NULL) < 0 ||
      harness_pass(impl, filter, misses, "MISSES", warm_q, HARNESS_CONTAINS, &warm_positives) < 0) {
    impl->destroy(filter);
    return 1;
  }
  impl->destroy(filter);

  filter = impl->create(n, p, err, sizeof err);
  if (filter == NULL) {
    fprintf(stderr, "%s: %s\n", impl->name, err);
    return 1;
  }
  insert_ns = harness_pass(impl, filter, keys, "KEYS", n, HARNESS_INSERT, NULL);
  hit_ns = insert_ns < 0
               ? -1
               : harness_pass(impl, filter, keys, "KEYS", hits, HARNESS_CONTAINS, &hit_positives);
  miss_ns = hit_ns < 0 ? -1
                       : harness_pass(impl, filter, misses, "MISSES", queries, HARNESS_CONTAINS,
                                      &miss_positives);
  if (miss_ns < 0) {
    impl->destroy(filter);
    return 1;
  }
  bytes = impl->filter_bytes(filter); /* before the removes (a kind may shrink) */
  if (impl->remove != NULL) {
    /* The hit keys again, each removed once: every remove must succeed. */
    remove_ns = harness_pass(impl, filter, keys, "KEYS", hits, HARNESS_REMOVE, &removed);
    if (remove_ns < 0) {
      impl->destroy(filter);
      return 1;
    }
    snprintf(remove_field, sizeof remove_field, "%.3f", remove_ns / (double)hits);
  }
  printf(
      "{\"impl\": \"%s\", \"language\": \"%s\", \"library\": \"%s\", \"n\": %llu, "
      "\"queries\": %llu, \"p\": %g, \"insert_ns\": %.3f, \"hit_ns\": %.3f, \"miss_ns\": %.3f, "
      "\"fpp\": %.6f, \"false_negatives\": %llu, \"false_positives\": %llu, "
      "\"filter_bytes\": %llu, \"hashes\": %u, \"bits_per_key\": %.4f, \"remove_ns\": %s, "
      "\"failed_removes\": %llu}\n",
      impl->name, impl->language, impl->library, (unsigned long long)n, (unsigned long long)queries,
      p, insert_ns / (double)n, hit_ns / (double)hits, miss_ns / (double)queries,
      (double)miss_positives / (double)queries, (unsigned long long)(hits - hit_positives),
      (unsigned long long)miss_positives, (unsigned long long)bytes, impl->hashes(filter),
      (double)bytes * 8.0 / (double)n, remove_field,
      (unsigned long long)(impl->remove != NULL ? hits - removed : 0));
  fflush(stdout);
  impl->destroy(filter);
  if (impl->remove != NULL && removed != hits) {
    fprintf(stderr, "%s: %llu of %llu removes of inserted keys failed\n", impl->name,
            (unsigned long long)(hits - removed), (unsigned long long)hits);
    return 1;
  }
  if (hit_positives != hits) {
    fprintf(stderr, "%s: FALSE NEGATIVES: %llu of %llu inserted keys reported absent\n", impl->name,
            (unsigned long long)(hits - hit_positives), (unsigned long long)hits);
    return 1;
  }
  return 0;
}

#endif /* BLOOMKIT_BENCH_PEERS_HARNESS_H */
