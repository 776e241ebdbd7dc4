#include "batch_engine.hpp"

#include <algorithm>
#include <string>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::redis::detail {

std::uint64_t* placement_sink::add(std::uint64_t string, std::uint32_t cells, std::uint64_t mask) {
  const std::size_t first = offsets.size();
  placements.push_back({string, key_, cells, first, mask});
  offsets.resize(first + cells);
  return offsets.data() + first;
}

batch_plan batch_plan::make(const batch_layout& layout, std::span<const std::string_view> keys,
                            cell_op op, std::size_t keys_per_command) {
  placement_sink sink;
  sink.placements.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    layout.place(keys[i], op, sink);
    sink.next_key();
    // The first key tells how many placements and offsets a key takes: room for all at once.
    if (i == 0) {
      sink.placements.reserve(sink.placements.size() * keys.size());
      sink.offsets.reserve(sink.offsets.size() * keys.size());
    }
  }
  batch_plan plan;
  plan.op = op;
  plan.keys = keys.size();
  plan.placements = std::move(sink.placements);
  plan.offsets = std::move(sink.offsets);
  auto& ps = plan.placements;
  // By string, and in the order they were placed (key order) within one string.
  const auto by_string = [](const placement& a, const placement& b) {
    return a.string != b.string ? a.string < b.string : a.first < b.first;
  };
  if (!std::is_sorted(ps.begin(), ps.end(), by_string)) {
    // Placements are made in key order, so a stable sort by string alone gives that order.
    // String numbers are dense (shards, slices times shards): a counting sort, O(n), where
    // std::sort took an eighth of a window batch's client time.
    std::uint64_t top = 0;
    for (const placement& p : ps) top = std::max(top, p.string);
    if (top < 4 * ps.size() + 1024) {
      std::vector<std::size_t> start(top + 2, 0);
      for (const placement& p : ps) ++start[p.string + 1];
      for (std::size_t s = 1; s < start.size(); ++s) start[s] += start[s - 1];
      std::vector<placement> sorted(ps.size());
      for (const placement& p : ps) sorted[start[p.string]++] = p;
      ps = std::move(sorted);
    } else {
      std::sort(ps.begin(), ps.end(), by_string);
    }
  }
  const std::size_t per_command = std::max<std::size_t>(1, keys_per_command);
  std::size_t i = 0;
  while (i < ps.size()) {
    std::size_t j = i + 1;
    while (j < ps.size() && j - i < per_command && ps[j].string == ps[i].string) ++j;
    plan.groups.push_back({ps[i].string, i, j});
    i = j;
  }
  return plan;
}

batch_commands append_commands(const batch_layout& layout, const batch_plan& plan,
                               std::vector<command>& cs) {
  if (plan.op == cell_op::remove) return append_remove_commands(layout, plan, cs);
  batch_commands where;
  where.check = layout.check();
  const bool write = plan.op == cell_op::write;
  const bool lengths = where.check.how == string_check::kind::length;
  const bool guarded = where.check.how == string_check::kind::guard_bit;
  const cell_codec& codec = layout.codec();
  const bool increment = codec.write == cell_codec::write_kind::saturating_increment;
  cs.reserve(cs.size() + plan.groups.size() * (lengths ? 2 : 1));
  // STRLEN before a write (which would grow a short string) and after a read.
  auto add_checks = [&] {
    where.checks_begin = cs.size();
    for (std::size_t g = 0; lengths && g < plan.groups.size(); ++g) {
      if (g > 0 && plan.groups[g].string == plan.groups[g - 1].string) continue;
      cs.push_back(command{{"STRLEN", layout.string_key(plan.groups[g].string)}, 1});
    }
    where.checks_end = cs.size();
  };
  if (write) add_checks();
  where.bitfields_begin = cs.size();
  // The guard bit's offset, written once per string (groups of one string are adjacent).
  std::string guard_bit;
  std::uint64_t guard_string = 0;
  const bool words = !write && codec.masked_word_reads;
  const bool bits = !words && codec.type == "u1";
  const bool numbers = words || codec.cell_numbers;
  for (const auto& g : plan.groups) {
    std::size_t cells = 0;
    for (std::size_t p = g.begin; p < g.end; ++p) cells += plan.placements[p].cells;
    command c;
    c.args.reserve(5 + cells * (write ? 4 : 3));
    c.args.emplace_back(write ? "BITFIELD" : "BITFIELD_RO");
    c.args.push_back(layout.string_key(g.string));
    if (guarded) {
      if (guard_bit.empty() || g.string != guard_string) {
        guard_bit = std::to_string(layout.guard_bit_of(g.string));
        guard_string = g.string;
      }
      c.args.insert(c.args.end(), {"GET", "u1", guard_bit});
    }
    if (write && increment) c.args.insert(c.args.end(), {"OVERFLOW", "SAT"});
    for (std::size_t p = g.begin; p < g.end; ++p) {
      const placement& at = plan.placements[p];
      for (std::size_t i = at.first; i < at.first + at.cells; ++i) {
        // Arguments from literals where possible (their length is known at compile time):
        // measurably cheaper than copying strings, and this loop is most of the client's work.
        if (!write) {
          c.args.emplace_back("GET");
        } else if (increment) {
          c.args.emplace_back("INCRBY");
        } else {
          c.args.emplace_back("SET");
        }
        if (bits) {
          c.args.emplace_back("u1");
        } else if (words) {
          c.args.emplace_back("i64");  // BITFIELD has no u64
        } else {
          c.args.push_back(codec.type);
        }
        c.args.push_back(std::to_string(plan.offsets[i]));
        if (numbers) c.args.back().insert(c.args.back().begin(), '#');
        if (write) c.args.emplace_back("1");
      }
    }
    cs.push_back(std::move(c));
  }
  if (!write) add_checks();
  return where;
}

std::size_t batch_answers::count() const noexcept {
  return static_cast<std::size_t>(std::count(answers.begin(), answers.end(), 1));
}

batch_answers decode(const batch_layout& layout, const batch_plan& plan,
                     const batch_commands& where, std::span<const command> cs,
                     std::span<const reply> replies) {
  if (plan.op == cell_op::remove) return decode_removes(plan, where, cs, replies);
  batch_answers out;
  out.answers.assign(plan.keys, 0);
  auto& broken = out.broken;
  for (std::size_t i = where.checks_begin; i < where.checks_end; ++i) {
    const std::string& key = cs[i].args[1];
    const auto length = as_integer(replies[i], layout.describe_command("STRLEN " + key));
    if (static_cast<std::uint64_t>(length) < where.check.min_bytes) broken.push_back(key);
  }
  const bool write = plan.op == cell_op::write;
  const bool guarded = where.check.how == string_check::kind::guard_bit;
  // What makes a placement answer true: read, every cell non-zero; write, some cell was 0 (its
  // old value 0, or its new value 1 after an increment).
  const long long marker =
      layout.codec().write == cell_codec::write_kind::saturating_increment ? 1 : 0;
  const std::size_t skip = guarded ? 1 : 0;
  const bool words = !write && layout.codec().masked_word_reads;
  const bool xors = !write && layout.codec().xor_reads;
  std::vector<std::uint64_t> sums(xors ? plan.keys : 0, 0);  // per key: XOR of its cells
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const reply& r = replies[where.bitfields_begin + g];
    const std::string& key = cs[where.bitfields_begin + g].args[1];
    const std::string what =
        layout.describe_command(std::string(write ? "BITFIELD " : "BITFIELD_RO ") + key);
    check_reply(r, what);
    const auto& values = r.elements();
    const auto& grp = plan.groups[g];
    std::size_t expected = skip;
    for (std::size_t p = grp.begin; p < grp.end; ++p) expected += plan.placements[p].cells;
    if (values.size() != expected) {
      throw error(errc::server_error, what + ": " + std::to_string(values.size()) + " values for " +
                                          std::to_string(expected) + " fields");
    }
    if (guarded && values[0].integer() == 0) {
      if (broken.empty() || broken.back() != key) broken.push_back(key);
      continue;
    }
    if (std::find(broken.begin(), broken.end(), key) != broken.end()) continue;
    std::size_t at = skip;
    for (std::size_t p = grp.begin; p < grp.end; ++p) {
      const placement& pl = plan.placements[p];
      if (xors) {
        for (std::uint32_t i = 0; i < pl.cells; ++i) {
          sums[pl.key] ^= static_cast<std::uint64_t>(values[at++].integer());
        }
        continue;
      }
      bool hit = !write;
      for (std::uint32_t i = 0; i < pl.cells; ++i) {
        const long long v = values[at++].integer();
        if (write) {
          hit |= v == marker;
        } else if (words) {
          hit &= (static_cast<std::uint64_t>(v) & pl.mask) == pl.mask;
        } else {
          hit &= v != 0;
        }
      }
      out.answers[pl.key] |= hit;
    }
  }
  // Every placement of a key carries its fingerprint; a key in a broken string has no answer
  // (the caller reports the string).
  if (xors) {
    for (const placement& pl : plan.placements) out.answers[pl.key] = sums[pl.key] == pl.mask;
  }
  return out;
}

batch_answers run_batch(client& c, const batch_layout& layout,
                        std::span<const std::string_view> keys, cell_op op,
                        std::size_t keys_per_command) {
  const batch_plan plan = batch_plan::make(layout, keys, op, keys_per_command);
  std::vector<command> cs;
  const batch_commands where = append_commands(layout, plan, cs);
  const auto replies = c.execute_many(cs);
  return decode(layout, plan, where, cs, replies);
}

}  // namespace bloomkit::redis::detail
