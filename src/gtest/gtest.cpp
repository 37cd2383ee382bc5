#include "prowl/gtest.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/report/console.hpp"
#include "prowl/strategy/factory.hpp"

namespace prowl::gtest {

Result<std::uint64_t> seed_of(const Settings& settings) {
  const char* text = std::getenv("PROWL_SEED");
  if (text == nullptr || *text == '\0') return settings.options.seed;
  std::uint64_t seed = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, seed);
  if (ec != std::errc() || ptr != end) {
    return Status::invalid(fmt::format(
        "PROWL_SEED='{}' is not a seed: give a whole number from 0 to 18446744073709551615, or "
        "unset it to use the test's own",
        text));
  }
  return seed;
}

::testing::AssertionResult no_findings(const Model& model, const Settings& settings) {
  const auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure()
           << "prowl could not explore '" << model.name() << "': " << why;
  };
  Result<std::uint64_t> seed = seed_of(settings);
  if (!seed) return fail(seed.status().message());
  Result<std::unique_ptr<Strategy>> strategy = make_strategy(settings.strategy, model, *seed);
  if (!strategy) return fail(strategy.status().message());
  Options options = settings.options;
  options.seed = *seed;
  Result<RunReport> report = explore(model, **strategy, options);
  if (!report) return fail(report.status().message());
  const std::string rerun = fmt::format("rerun this exploration with PROWL_SEED={}", *seed);
  if (!report->findings.empty()) {
    std::ostringstream text;
    write_console_report(text, *report);
    return ::testing::AssertionFailure()
           << "prowl found " << findings_text(*report) << " exploring '" << model.name()
           << "' with " << settings.strategy << " (" << rerun << "):\n"
           << text.str();
  }
  if (settings.require_exhausted && report->termination != Termination::kExhausted) {
    return ::testing::AssertionFailure()
           << "prowl found nothing, but a limit ended the run before it explored everything ("
           << summary_line(*report) << "); raise the limits or drop require_exhausted (" << rerun
           << ")";
  }
  return ::testing::AssertionSuccess() << summary_line(*report);
}

}  // namespace prowl::gtest
