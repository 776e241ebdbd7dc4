// A writer stopped halfway, for file_writer_test's signal tests:
//
//   file_writer_probe named|unnamed [own-handler] PATH
//
// starts replacing PATH through the one writer (src/file/atomic_file.hpp) with a named temp
// file or an O_TMPFILE one, writes some bytes, prints "writing" and waits to be signalled. With
// own-handler, the program has its own SIGTERM handler (installed before the writer's), so the
// signal does not end it: it then finishes the write ("new contents") and exits 0.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "file/atomic_file.hpp"
#include "file/temp_file.hpp"

namespace {

volatile sig_atomic_t terminated = 0;

extern "C" void on_term(int) {
  terminated = 1;
}

std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const bool named = std::strcmp(argv[1], "named") == 0;
  const bool own_handler = argc == 4 && std::strcmp(argv[2], "own-handler") == 0;
  const char* path = argv[argc - 1];
  if (own_handler) {
    struct sigaction action {};
    action.sa_handler = on_term;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGTERM, &action, nullptr);
  }
  bloomkit::detail::use_named_temp_files(named);
  bloomkit::detail::atomic_file out(path);
  out.write(bytes_of("new "));
  std::printf("writing\n");
  std::fflush(stdout);
  while (terminated == 0) ::pause();
  out.write(bytes_of("contents"));
  out.commit();
  return 0;
}
