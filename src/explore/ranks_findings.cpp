// The end of the search over several processes (rank_search.hpp): every rank's totals, and every
// rank's findings on every rank, their paths rebuilt across the ranks.
#include "rank_search.hpp"

namespace prowl {

using detail::Pending;

Status Explorer::Impl::RankSearch::totals() {
  const std::size_t na = x.coverage.size();
  std::vector<std::uint64_t> sums = {owned_states(), graph.num_transitions(), x.stats.steps,
                                     graph.memory_bytes()};
  for (const ActionCoverage& c : x.coverage) {
    sums.push_back(c.enabled);
    sums.push_back(c.executed);
    sums.push_back(c.errors);
  }
  if (Status st = ranks.sum(sums); !st) return st;
  std::uint64_t deepest[1] = {x.stats.max_depth};
  if (Status st = ranks.max(deepest); !st) return st;
  x.rank_totals = RankTotals{sums[0], sums[1], sums[3]};
  x.stats.steps = sums[2];
  x.stats.max_depth = static_cast<std::uint32_t>(deepest[0]);
  for (std::size_t a = 0; a < na; ++a) {
    ActionCoverage& c = x.coverage[a];
    c.enabled = sums[4 + 3 * a];
    c.executed = sums[5 + 3 * a];
    c.errors = sums[6 + 3 * a];
    c.ok = c.executed - c.errors;
  }
  x.actions_covered = static_cast<std::size_t>(
      std::count_if(x.coverage.begin(), x.coverage.end(),
                    [](const ActionCoverage& c) { return c.executed > 0; }));
  return Status::ok();
}

Status Explorer::Impl::RankSearch::gather_findings() {
  // Every rank's findings, on every rank: of each key the one FindingLog would keep (the highest
  // severity, then the shortest), the lowest rank's of a tie (ranks are asked in order, and a
  // later one must outrank it to replace it).
  std::map<FoundKey, Found> all;
  for (unsigned r = 0; r < n; ++r) {
    Ranks::Buffer b;
    if (r == me) {
      put(b, static_cast<std::uint64_t>(found.size()));
      for (const auto& [key, f] : found) {
        put(b, static_cast<std::int32_t>(std::get<0>(key)));
        put(b, static_cast<std::uint64_t>(std::get<1>(key)));
        put(b, std::get<2>(key));
        put(b, f.length);
        put(b, f.source_rank);
        put(b, f.source);
        put(b, f.action);
        put(b, static_cast<std::int32_t>(f.severity));
        put(b, static_cast<std::uint64_t>(f.message.size()));
        b.insert(b.end(), f.message.begin(), f.message.end());
      }
    }
    if (Status st = ranks.broadcast(b, r); !st) return st;
    const unsigned char* p = b.data();
    for (auto count = get<std::uint64_t>(p); count > 0; --count) {
      FoundKey key;
      std::get<0>(key) = get<std::int32_t>(p);
      std::get<1>(key) = get<std::uint64_t>(p);
      std::get<2>(key) = get<ActionId>(p);
      Found f;
      f.length = get<std::uint32_t>(p);
      f.source_rank = get<std::uint32_t>(p);
      f.source = get<StateId>(p);
      f.action = get<ActionId>(p);
      f.severity = static_cast<Severity>(get<std::int32_t>(p));
      const auto len = get<std::uint64_t>(p);
      f.message.assign(reinterpret_cast<const char*>(p), len);
      p += len;
      const auto it = all.find(key);
      if (it == all.end() ||
          detail::replaces(f.severity, f.length, it->second.severity, it->second.length)) {
        all[key] = std::move(f);
      }
    }
  }
  for (auto& [key, f] : all) {
    auto steps = path(f.source_rank, f.source, f.action);
    if (!steps) return steps.status();
    Pending p{static_cast<FindingKind>(std::get<0>(key)),
              std::get<1>(key),
              kNoState,
              f.action,
              kNoState,
              std::move(f.message),
              f.length};
    p.severity = f.severity;
    if (p.kind == FindingKind::kActionError) p.outcome = "error";
    x.rank_findings.push_back(x.finding_on(p, std::move(*steps)));
  }
  return Status::ok();
}

Result<std::vector<TraceStep>> Explorer::Impl::RankSearch::path(unsigned rank, StateId s,
                                                                ActionId a) {
  // From the step's source back to the root, each state's owner telling its fingerprint and
  // parent to every rank.
  std::vector<std::pair<Fingerprint, ActionId>> back;
  for (;;) {
    Ranks::Buffer b;
    if (rank == me) {
      put(b, graph.fingerprint(s));
      put(b, static_cast<std::uint32_t>(s == 0 ? 0 : parent_rank[s]));
      put(b, graph.parent(s));
      put(b, graph.parent_action(s));
    }
    if (Status st = ranks.broadcast(b, rank); !st) return st;
    const unsigned char* p = b.data();
    back.emplace_back(get<Fingerprint>(p), a);
    if (s == 0) break;  // every rank's state 0 is the root
    rank = get<std::uint32_t>(p);
    s = get<StateId>(p);
    a = get<ActionId>(p);
  }
  std::vector<TraceStep> steps;
  for (auto it = back.rbegin(); it != back.rend(); ++it) {
    steps.push_back({x.model.actions()[it->second].name,
                     x.step_rng_at(it->first, it->second).seed(),
                     {},
                     {},
                     {}});
  }
  return steps;
}

}  // namespace prowl
