#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/core.h>

namespace bloomkit::cli {

namespace {

constexpr auto redraw_interval = std::chrono::milliseconds(200);
constexpr int bar_width = 20;  // the whole line stays under 80 columns

// 1234 -> "1234", 12345678 -> "12.35M"
std::string short_count(std::uint64_t n) {
  if (n < 10'000) return fmt::format("{}", n);
  if (n < 10'000'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  if (n < 10'000'000'000) return fmt::format("{:.2f}M", static_cast<double>(n) / 1e6);
  return fmt::format("{:.2f}G", static_cast<double>(n) / 1e9);
}

std::string duration(double seconds) {
  const auto s = static_cast<std::uint64_t>(std::max(0.0, seconds) + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace

progress_bar::progress_bar(std::optional<std::uint64_t> total_bytes)
    : progress_bar(total_bytes, stderr_is_terminal()) {}

progress_bar::progress_bar(std::optional<std::uint64_t> total_bytes, bool enabled)
    : total_(total_bytes), enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { run(); });
}

progress_bar::~progress_bar() {
  finish();
}

bool progress_bar::stderr_is_terminal() noexcept {
  return ::isatty(STDERR_FILENO) == 1;
}

void progress_bar::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::fputs("\r\033[K", stderr);  // erase the bar
  std::fflush(stderr);
}

void progress_bar::run() {
  std::unique_lock lock(mutex_);
  do {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string text = line(seconds);
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  } while (!wake_.wait_for(lock, redraw_interval, [this] { return stop_; }));
}

std::string progress_bar::line(double seconds) const {
  const std::uint64_t keys = keys_.load(std::memory_order_relaxed);
  const std::uint64_t bytes = bytes_.load(std::memory_order_relaxed);
  const double rate = seconds > 0 ? static_cast<double>(bytes) / seconds : 0;  // bytes/s
  std::string out = "\r\033[K";
  if (total_ && *total_ > 0) {
    const double fraction =
        std::min(1.0, static_cast<double>(bytes) / static_cast<double>(*total_));
    const int filled = static_cast<int>(fraction * bar_width);
    out += '[';
    out.append(static_cast<std::size_t>(filled), '#');
    out.append(static_cast<std::size_t>(bar_width - filled), '.');
    out += fmt::format("] {:5.1f}%  ", fraction * 100);
  }
  out += fmt::format("{} keys  ", short_count(keys));
  if (!total_) out += fmt::format("{:.1f} MB  ", static_cast<double>(bytes) / 1e6);
  out += fmt::format("{:.1f} MB/s", rate / 1e6);
  if (total_ && rate > 0 && bytes < *total_) {
    out += fmt::format("  ETA {}", duration(static_cast<double>(*total_ - bytes) / rate));
  }
  return out;
}

}  // namespace bloomkit::cli
