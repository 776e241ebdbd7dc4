// A project that uses an installed bloomkit::compat through find_package(bloomkit): a Guava
// filter saved as a bloomkit file and opened by compat::map_any.
#include <bloomkit/compat/any_filter.hpp>

#include <cstdio>
#include <variant>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto filter = bloomkit::guava::mitz_64_filter::for_capacity(1000, 0.01);
  filter.insert("installed");
  bloomkit::save(filter, argv[1]);
  const bloomkit::compat::any_filter mapped = bloomkit::compat::map_any(argv[1]);
  const auto* f = std::get_if<bloomkit::guava::mitz_64_filter>(&mapped);
  if (f == nullptr || !f->contains("installed")) {
    std::fprintf(stderr, "compat_consumer: wrong answer from the installed library\n");
    return 1;
  }
  std::printf("compat_consumer: ok\n");
  return 0;
}
