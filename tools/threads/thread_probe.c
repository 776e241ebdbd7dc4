// Preloaded into every process of a test run (tools/threads/find): on a process's first
// pthread_create it appends one line to $THREAD_PROBE_LOG, the command lines of the process and
// of its ancestors, so a thread started by a child (the tool run by a test) names its test too.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*create_fn)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

// Reads /proc/<pid>/<what> into out (NULs as spaces); returns its length.
static size_t read_proc(pid_t pid, const char* what, char* out, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
  const int fd = open(path, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, out, size - 1) : 0;
  if (fd >= 0) close(fd);
  if (n < 0) n = 0;
  for (ssize_t i = 0; i < n; ++i) {
    if (out[i] == '\0') out[i] = ' ';
  }
  out[n] = '\0';
  return (size_t)n;
}

static void log_ancestry(const char* log) {
  char line[16384];
  size_t used = 0;
  pid_t pid = getpid();
  for (int level = 0; level < 6 && pid > 1 && used < sizeof line - 2; ++level) {
    char cmdline[2048], stat[1024];
    read_proc(pid, "cmdline", cmdline, sizeof cmdline);
    used += (size_t)snprintf(line + used, sizeof line - used, "%s\t", cmdline);
    if (read_proc(pid, "stat", stat, sizeof stat) == 0) break;
    const char* after_name = strrchr(stat, ')');  // the name may hold spaces and parentheses
    int parent = 0;
    if (after_name == NULL || sscanf(after_name + 2, "%*c %d", &parent) != 1) break;
    pid = parent;
  }
  if (used >= sizeof line - 1) used = sizeof line - 2;
  line[used++] = '\n';
  const int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  if (write(fd, line, used) < 0) {
    // Nothing to do: the probe must never change what the test sees.
  }
  close(fd);
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                   void* arg) {
  static create_fn real;
  static int logged;
  if (real == NULL) {
    void* found = dlsym(RTLD_NEXT, "pthread_create");
    memcpy(&real, &found, sizeof real);  // POSIX: a data pointer to a function pointer
  }
  const char* log = getenv("THREAD_PROBE_LOG");
  if (!logged && log != NULL) {
    logged = 1;
    log_ancestry(log);
  }
  return real(thread, attr, start, arg);
}
