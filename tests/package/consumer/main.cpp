// A project that uses an installed bloomkit through find_package(bloomkit).
#include <bloomkit/bloomkit.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
#ifdef BLOOMKIT_EXPECTED_VERSION
  if (std::strcmp(bloomkit::version_string, BLOOMKIT_EXPECTED_VERSION) != 0) {
    std::fprintf(stderr, "consumer: bloomkit/version.hpp says %s, the package %s\n",
                 bloomkit::version_string, BLOOMKIT_EXPECTED_VERSION);
    return 1;
  }
#endif
  auto filter = bloomkit::bloom_filter::for_capacity(1000, 0.01);
  filter.insert("installed");
  bloomkit::save(filter, argv[1]);
  const auto mapped = bloomkit::map(argv[1]);
  if (!mapped.contains("installed") || mapped.inserted() != 1) {
    std::fprintf(stderr, "consumer: wrong answer from the installed library\n");
    return 1;
  }
  std::printf("consumer: ok (%llu bits, %u hashes)\n",
              static_cast<unsigned long long>(mapped.bits()), mapped.hashes());
  return 0;
}
