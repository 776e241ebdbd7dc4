// redis_filter with ACL users of exactly the commands docs/REDIS.md lists ("Permissions"): each
// documented user does its job, and a refused count is reported, never silently wrong.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "redis_filter_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace bloomkit::redis_filter_test;

// The arguments of the documented `ACL SETUSER urls-<role> ...` line after SETUSER, with
// PASSWORD replaced by `password`.
std::vector<std::string> documented_acl(const std::string& role, const std::string& password) {
  std::ifstream docs(BLOOMKIT_DOCS "/REDIS.md");
  std::string line;
  const std::string prefix = "ACL SETUSER urls-" + role + " ";
  while (std::getline(docs, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(4 + 8));  // past "ACL SETUSER "
    std::vector<std::string> out;
    for (std::string w; words >> w;) out.push_back(w == ">PASSWORD" ? ">" + password : w);
    return out;
  }
  ADD_FAILURE() << "docs/REDIS.md has no line starting with '" << prefix << "'";
  return {};
}

class RedisFilterAcl : public single_server_client_test {
 protected:
  // A client of the documented user `role`, minus the commands in `without`.
  client user(const std::string& role, const std::vector<std::string>& without = {}) {
    auto rules = documented_acl(role, "secret");
    std::vector<std::string> args = {"ACL", "SETUSER"};
    args.insert(args.end(), rules.begin(), rules.end());
    for (const auto& c : without) args.push_back("-" + c);
    EXPECT_EQ(server_->raw(args).str(), "OK");
    return client::connect("redis://" + args[2] + ":secret@" + server_->address());
  }
};

TEST_F(RedisFilterAcl, TheDocumentedUsersCanDoTheirJobsWithNothingMore) {
  bloomkit::test::temp_dir dir;
  auto admin = user("admin");
  auto made = redis_filter::create(admin, "urls", 20000, 0.01, 14);
  const auto keys = make_keys(1000, 80);

  auto writer_client = user("writer");
  auto writer = redis_filter::open(writer_client, "urls");
  insert_all(writer, keys);
  EXPECT_TRUE(writer.insert("one more"));
  writer.flush();
  EXPECT_EQ(writer.uncounted_inserts(), 0u);
  // A write that finds its shard missing removes what it created (the script's commands).
  const std::string victim = shard_of(writer, "another");
  const std::string bits = server_->raw({"GET", victim}).str();
  server_->raw({"DEL", victim});
  const auto m = error_of([&] { writer.insert("another"); }, errc::not_found);
  EXPECT_EQ(m.find("could not remove"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  server_->raw({"SET", victim, bits});

  auto reader_client = user("reader");
  auto reader = redis_filter::open(reader_client, "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
  EXPECT_TRUE(reader.contains("one more"));
  const auto i = reader.info();
  EXPECT_EQ(i.inserted, keys.size() + 1);
  EXPECT_EQ(i.warnings, std::vector<std::string>{});
  error_of([&] { reader.insert("x"); }, errc::server_error);  // NOPERM: a reader cannot write

  made.expire(1000s);
  made.pull(dir / "urls.bf");
  made.rebuild(views(keys));
  EXPECT_EQ(count_present(reader, keys), keys.size());
  made.drop();
  redis_filter::push(admin, dir / "urls.bf", "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
  EXPECT_EQ(redis_filter::drop(admin, "urls"), made.layout().shard_count + 1);
}

TEST_F(RedisFilterAcl, ARefusedCountIsReportedNeverSilentlyWrong) {
  auto admin = user("admin");
  redis_filter::create(admin, "urls", 20000, 0.01, 14);
  auto no_count = user("writer", {"hincrby"});
  auto f = redis_filter::open(no_count, "urls");
  const auto keys = make_keys(300, 81);
  EXPECT_EQ(insert_all(f, keys), 300u);
  EXPECT_TRUE(f.insert("single"));
  f.flush();
  EXPECT_EQ(f.uncounted_inserts(), 301u);
  EXPECT_NE(f.count_refusal().find("NOPERM"), npos) << f.count_refusal();
  const auto i = f.info();
  EXPECT_EQ(i.inserted, 0u);
  EXPECT_TRUE(i.inserted_stale);
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0].rfind("filter 'urls': inserted is too low by at least 301: the server "
                                "refused to count them (HINCRBY urls:meta: NOPERM",
                                0),
            0u)
      << i.warnings[0];
  auto reader = redis_filter::open(admin, "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
}

}  // namespace
