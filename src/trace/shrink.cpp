#include "prowl/trace/shrink.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

namespace prowl::trace {
namespace {

class Shrinker {
 public:
  Shrinker(const Reproduces& reproduces, ShrinkOptions options)
      : reproduces_(reproduces), options_(options) {}

  bool exhausted() const {
    return options_.max_candidates != 0 && candidates_ >= options_.max_candidates;
  }
  std::size_t candidates() const { return candidates_; }

  bool accept(const Trace& candidate) {
    if (exhausted()) return false;
    ++candidates_;
    return reproduces_(candidate);
  }

  // ddmin over the steps: tries dropping each of n chunks, n growing until chunks are single
  // steps. True if any step went.
  bool remove_chunks(Trace& trace) {
    bool changed = false;
    std::size_t n = 2;
    while (!trace.steps.empty() && !exhausted()) {
      const std::size_t size = trace.steps.size();
      n = std::min(n, size);
      const std::size_t chunk = (size + n - 1) / n;
      bool removed = false;
      for (std::size_t start = 0; start < size && !exhausted(); start += chunk) {
        Trace candidate;
        candidate.header = trace.header;
        for (std::size_t i = 0; i < size; ++i) {
          if (i < start || i >= start + chunk) candidate.steps.push_back(trace.steps[i]);
        }
        if (accept(candidate)) {
          trace = std::move(candidate);
          removed = changed = true;
          n = std::max<std::size_t>(n - 1, 2);
          break;
        }
      }
      if (removed) continue;
      if (n >= size) break;
      n = std::min(n * 2, size);
    }
    return changed;
  }

  // Replaces every reference to a handle by an earlier handle of the same kind, so the step that
  // produced it may go.
  bool merge_handles(Trace& trace) {
    constexpr std::size_t kTriesPerHandle = 8;
    bool changed = false;
    std::vector<std::string> earlier;
    for (std::size_t p = 0; p < trace.steps.size() && !exhausted(); ++p) {
      for (const std::string& name : std::vector<std::string>(trace.steps[p].returns)) {
        const std::string_view kind = *handle_kind(name);
        std::size_t tries = 0;
        for (std::size_t h = 0; h < earlier.size() && tries < kTriesPerHandle && !exhausted();
             ++h) {
          if (handle_kind(earlier[h]) != kind) continue;
          Trace candidate = trace;
          bool used = false;
          for (std::size_t s = p + 1; s < candidate.steps.size(); ++s) {
            for (std::string& arg : candidate.steps[s].args) {
              if (arg == name) {
                arg = earlier[h];
                used = true;
              }
            }
          }
          if (!used) break;
          ++tries;
          if (accept(candidate)) {
            trace = std::move(candidate);
            changed = true;
            break;
          }
        }
        earlier.push_back(name);
      }
    }
    return changed;
  }

  // Replaces single handle arguments by handles returned earlier, earliest first.
  bool substitute_handles(Trace& trace) {
    constexpr std::size_t kTriesPerArgument = 8;
    bool changed = false;
    for (std::size_t s = 0; s < trace.steps.size() && !exhausted(); ++s) {
      // Handles returned before step s, in order, and where each was returned.
      std::vector<std::string> earlier;
      std::unordered_map<std::string, std::size_t> index;
      for (std::size_t p = 0; p < s; ++p) {
        for (const std::string& name : trace.steps[p].returns) {
          index.emplace(name, earlier.size());
          earlier.push_back(name);
        }
      }
      for (std::size_t a = 0; a < trace.steps[s].args.size() && !exhausted(); ++a) {
        const std::string current = trace.steps[s].args[a];
        auto found = index.find(current);
        if (found == index.end()) continue;
        const std::string_view kind = *handle_kind(current);
        std::size_t tries = 0;
        for (std::size_t h = 0; h < found->second && tries < kTriesPerArgument; ++h) {
          if (handle_kind(earlier[h]) != kind) continue;
          ++tries;
          Trace candidate = trace;
          candidate.steps[s].args[a] = earlier[h];
          if (accept(candidate)) {
            trace = std::move(candidate);
            changed = true;
            break;
          }
        }
      }
    }
    return changed;
  }

  bool simplify_integers(Trace& trace) {
    bool changed = false;
    for (std::size_t s = 0; s < trace.steps.size() && !exhausted(); ++s) {
      for (std::size_t a = 0; a < trace.steps[s].args.size() && !exhausted(); ++a) {
        for (;;) {
          const std::string& arg = trace.steps[s].args[a];
          long long value = 0;
          auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), value);
          if (ec != std::errc() || ptr != arg.data() + arg.size() || value == 0) break;
          bool simpler = false;
          for (long long next : {0LL, 1LL, value / 2}) {
            if (next == value ||
                (next != 0 && (next < 0 ? -next : next) >= (value < 0 ? -value : value))) {
              continue;
            }
            Trace candidate = trace;
            candidate.steps[s].args[a] = std::to_string(next);
            if (accept(candidate)) {
              trace = std::move(candidate);
              simpler = changed = true;
              break;
            }
          }
          if (!simpler) break;
        }
      }
    }
    return changed;
  }

 private:
  const Reproduces& reproduces_;
  ShrinkOptions options_;
  std::size_t candidates_ = 0;
};

}  // namespace

Trace shrink_trace(Trace trace, const Reproduces& reproduces, ShrinkOptions options,
                   ShrinkStats* stats) {
  trace.trailing_comments.clear();
  for (Step& step : trace.steps) step.comments_before.clear();
  const std::size_t before = trace.steps.size();
  Shrinker shrinker(reproduces, options);
  for (bool changed = true; changed && !shrinker.exhausted();) {
    changed = shrinker.remove_chunks(trace);
    changed = shrinker.merge_handles(trace) || changed;
    changed = shrinker.substitute_handles(trace) || changed;
    changed = shrinker.simplify_integers(trace) || changed;
  }
  if (stats != nullptr) {
    stats->steps_before = before;
    stats->steps_after = trace.steps.size();
    stats->candidates = shrinker.candidates();
  }
  return trace;
}

}  // namespace prowl::trace
