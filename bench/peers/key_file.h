/* Chunked reading of a key file (one key per '\n'-terminated line), for the C and C++ peer
 * harnesses (bench/peers/README.md: keys are read in chunks of up to 65536 lines; reading is not
 * timed). C99 and C++ compatible; header-only (static functions).
 *
 *   key_file kf;
 *   if (key_file_open(&kf, "keys.txt") != 0) { fprintf(stderr, "%s\n", kf.error); ... }
 *   long got;
 *   while ((got = key_file_next_chunk(&kf, KEY_FILE_CHUNK)) > 0) {
 *     for (long i = 0; i < got; ++i) use(key_file_key(&kf, i), kf.lengths[i]);
 *   }
 *   if (got < 0) { fprintf(stderr, "%s\n", kf.error); ... }
 *   key_file_close(&kf);
 *
 * A chunk's keys point into one buffer (no copy, not NUL-terminated): valid until the next
 * key_file_next_chunk. A last line without '\n' counts as a line; a '\r' before '\n' is kept as
 * part of the key (the protocol forbids it); a line longer than KEY_FILE_MAX_KEY bytes is an
 * error naming the file and line. */
#ifndef BLOOMKIT_BENCH_PEERS_KEY_FILE_H
#define BLOOMKIT_BENCH_PEERS_KEY_FILE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_FILE_CHUNK 65536
#define KEY_FILE_MAX_KEY 4096
/* Room for a full chunk of keys of up to 127 bytes; longer keys just make smaller chunks. */
#define KEY_FILE_BUFFER ((size_t)KEY_FILE_CHUNK * 128 + KEY_FILE_MAX_KEY + 1)

typedef struct key_file {
  FILE* file;
  char path[1024];
  char* buffer;        /* KEY_FILE_BUFFER bytes */
  size_t filled;       /* bytes of buffer holding file data */
  size_t consumed;     /* bytes of buffer already handed out as keys */
  int at_eof;          /* fread reported end of file */
  uint32_t* offsets;   /* offsets[i]: key i of the current chunk starts at buffer + offsets[i] */
  uint32_t* lengths;   /* lengths[i]: its length in bytes, without the '\n' */
  uint64_t lines_read; /* lines handed out so far, over all chunks */
  char error[1400];
} key_file;

static inline const char* key_file_key(const key_file* kf, long i) {
  return kf->buffer + kf->offsets[i];
}

static inline void key_file_close(key_file* kf) {
  if (kf->file != NULL) fclose(kf->file);
  free(kf->buffer);
  free(kf->offsets);
  free(kf->lengths);
  kf->file = NULL;
  kf->buffer = NULL;
  kf->offsets = NULL;
  kf->lengths = NULL;
}

/* Returns 0, or -1 with kf->error set (and nothing to close). */
static inline int key_file_open(key_file* kf, const char* path) {
  memset(kf, 0, sizeof *kf);
  snprintf(kf->path, sizeof kf->path, "%s", path);
  kf->file = fopen(path, "rb");
  if (kf->file == NULL) {
    snprintf(kf->error, sizeof kf->error, "cannot open key file '%s': %s", path, strerror(errno));
    return -1;
  }
  kf->buffer = (char*)malloc(KEY_FILE_BUFFER);
  kf->offsets = (uint32_t*)malloc(sizeof(uint32_t) * KEY_FILE_CHUNK);
  kf->lengths = (uint32_t*)malloc(sizeof(uint32_t) * KEY_FILE_CHUNK);
  if (kf->buffer == NULL || kf->offsets == NULL || kf->lengths == NULL) {
    key_file_close(kf);
    snprintf(kf->error, sizeof kf->error, "out of memory reading key file '%s'", path);
    return -1;
  }
  return 0;
}

/* Reads up to `max` (at most KEY_FILE_CHUNK) keys. Returns how many (0 at end of file), or -1
 * with kf->error set (read error, overlong line). */
static inline long key_file_next_chunk(key_file* kf, long max) {
  long count = 0;
  if (max > KEY_FILE_CHUNK) max = KEY_FILE_CHUNK;
  /* Keep the unconsumed tail (a partial line) and fill the rest of the buffer. */
  memmove(kf->buffer, kf->buffer + kf->consumed, kf->filled - kf->consumed);
  kf->filled -= kf->consumed;
  kf->consumed = 0;
  if (!kf->at_eof && kf->filled < KEY_FILE_BUFFER) {
    const size_t got = fread(kf->buffer + kf->filled, 1, KEY_FILE_BUFFER - kf->filled, kf->file);
    if (got < KEY_FILE_BUFFER - kf->filled) {
      if (ferror(kf->file)) {
        snprintf(kf->error, sizeof kf->error, "cannot read key file '%s': %s", kf->path,
                 strerror(errno));
        return -1;
      }
      kf->at_eof = 1;
    }
    kf->filled += got;
  }
  while (count < max && kf->consumed < kf->filled) {
    const char* start = kf->buffer + kf->consumed;
    const size_t left = kf->filled - kf->consumed;
    const char* newline = (const char*)memchr(start, '\n', left);
    size_t length = newline != NULL ? (size_t)(newline - start) : left;
    if (length > KEY_FILE_MAX_KEY) {
      snprintf(kf->error, sizeof kf->error,
               "key file '%s', line %llu: longer than %d bytes (one key per line expected)",
               kf->path, (unsigned long long)(kf->lines_read + 1), KEY_FILE_MAX_KEY);
      return -1;
    }
    if (newline == NULL && !kf->at_eof) break; /* partial line: finish it next chunk */
    kf->offsets[count] = (uint32_t)kf->consumed;
    kf->lengths[count] = (uint32_t)length;
    ++count;
    ++kf->lines_read;
    kf->consumed += length + (newline != NULL ? 1 : 0);
  }
  return count;
}

#endif /* BLOOMKIT_BENCH_PEERS_KEY_FILE_H */
