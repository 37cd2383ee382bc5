// The breadth-first search of an in-memory model over several processes (Options::ranks,
// docs/scale.md "Many machines").
//
// Each rank owns the states whose fingerprints hash to it (owner()): its graph holds their
// fingerprints, depths and parents (a parent is a state of any rank: its local id in the graph,
// its rank in parent_rank), and it expands them. The search goes level by level, a level in
// rounds that every rank takes together:
//   1. expand: the rank runs every enabled action of up to round_states() of its frontier states
//      and appends each successor another rank owns (fingerprint, source, action, whether the
//      source fails invariants, bytes) to the buffer of its owner;
//   2. exchange: every rank sends each its buffer (Ranks::start_exchange); the rank expands its
//      next round while the buffers travel, then takes what it received;
//   3. take: the rank goes through the successors it received, in rank order and in each rank's
//      order, and enters each whose fingerprint it does not know in its graph and its next
//      frontier, checking its after-invariants (arrive()).
// A successor the rank owns itself does not wait for the exchange: it arrives at once.
// Every buffer starts with the sender's flags (interrupted, out of time, found, out of memory),
// so every rank knows after an exchange whether all must stop, and stops at the same round.
// Findings are kept per rank, at the step that broke the invariant; at the end every rank learns
// every rank's, keeps the shortest of each (the lower rank of equally short ones), and rebuilds
// its path by asking the owner of each state on it for its parent (Ranks::broadcast), so that
// every rank reports the same findings, confirmed by a replay from the initial state.
#include <fmt/format.h>

#include "prowl/core/interrupt.hpp"
#include "rank_search.hpp"

namespace prowl {

using detail::Clock;

std::string Explorer::Impl::ranks_refused() const {
  if (std::string why = levels_refused(); !why.empty()) return why;
  if (model.invariants().size() > 64) return "the model has more than 64 invariants";
  if (options.ranks->size() > kMaxRanks) {
    return fmt::format("it runs on at most {} processes, not {}", kMaxRanks, options.ranks->size());
  }
  return {};
}

Status Explorer::Impl::run_ranks(Clock::time_point start, Termination& termination) {
  RankSearch search(*this, *options.ranks);
  search.start();
  if (Status st = search.search(start, termination); !st) return st;
  if (Status st = search.totals(); !st) return st;
  if (Status st = search.gather_findings(); !st) return st;
  options.ranks->completed();  // the replays that confirm the findings are each rank's own
  // The explorer's world ends at the root, for the replays.
  std::memcpy(image.live, search.root.data(), search.size);
  planner->invalidate();
  return Status::ok();
}

void Explorer::Impl::RankSearch::start() {
  x.image_system = &x.world->system(0);
  x.image = x.image_system->byte_image();
  x.image_hash = fingerprint_fn(x.image.size);
  hash = x.image_hash;
  live = x.image.live;
  root.assign(live, live + size);
  own_bytes.resize(kBatch * size);
  scratch.emplace(size);
  batch.reserve(kBatch);
  for (auto& o : out) o.resize(n);
  in.resize(n);
  used.resize(n);
  // Every rank has the root as its state 0 (explore_and_report() added and expanded it), but
  // only its owner expands it and counts it; the others' enabled counts forget it.
  std::vector<ActionId> root_actions;
  graph.take_unexplored(0, root_actions);
  root_owner = owner(graph.fingerprint(0));
  if (me != root_owner) {
    for (ActionId a : root_actions) --x.coverage[a].enabled;
  }
  parent_rank.push_back(0);
  Violations v;
  x.exec->check(false, [&](std::size_t i, const std::string& msg) {
    v.mask |= std::uint64_t{1} << i;
    v.failures.emplace_back(i, msg);
  });
  if (v.mask != 0) violating.emplace(0, std::move(v));
  if (me == root_owner) {
    frontier.grow(1);
    std::memcpy(frontier.at(0), root.data(), size);
  }
}

Status Explorer::Impl::RankSearch::search(Clock::time_point start, Termination& termination) {
  std::uint64_t count = me == root_owner ? 1 : 0;
  for (;; ++depth) {
    if (x.options.max_depth > 0 && depth >= x.options.max_depth) break;
    std::uint64_t rounds[1] = {(count + round_states() - 1) / round_states()};
    if (Status st = ranks.max(rounds); !st) return st;
    if (rounds[0] == 0) break;
    next_first = static_cast<StateId>(graph.num_states());
    level_states = count;
    auto go_on = level(rounds[0], start);
    if (!go_on) return go_on.status();
    if (!*go_on) {
      if (flags & kFound) {
        termination = Termination::kFirstFinding;
      } else if (flags & kInterrupted) {
        termination = Termination::kInterrupted;
        if (x.interrupted_at == Clock::time_point{}) x.interrupted_at = Clock::now();
      } else if (flags & kMemory) {
        termination = Termination::kMemory;
      } else {
        termination = Termination::kTimeLimit;
      }
      return Status::ok();
    }
    count = graph.num_states() - next_first;
    level_first = next_first;
    frontier.clear();
    frontier.swap(next);
  }
  return Status::ok();
}

Result<bool> Explorer::Impl::RankSearch::level(std::uint64_t rounds, Clock::time_point start) {
  const std::size_t per = round_states();
  for (std::uint64_t r = 0; r < rounds; ++r) {
    std::vector<Ranks::Buffer>& buffers = out[r % 2];
    const std::uint64_t first = std::min<std::uint64_t>(level_states, r * per);
    const std::uint64_t end = std::min<std::uint64_t>(level_states, first + per);
    for (unsigned k = 0; k < n; ++k) {
      if (buffers[k].size() < kHeader) buffers[k].resize(kHeader);
      used[k] = kHeader;
    }
    expand(static_cast<StateId>(level_first + first), static_cast<StateId>(level_first + end),
           buffers, start);
    // The flags as they are once the round was expanded (an interrupt may have cut it short).
    const Header header = local_header(start);
    for (unsigned k = 0; k < n; ++k) {
      buffers[k].resize(used[k]);
      std::memcpy(buffers[k].data(), &header, kHeader);
    }
    // The previous round's successors arrived while this one was expanded.
    if (in_flight) {
      if (Status st = finish(start); !st) return st;
      if (flags != 0) return false;
    }
    frontier.release_below(first);
    if (Status st = exchange(buffers); !st) return st;
  }
  if (Status st = finish(start); !st) return st;
  return flags == 0;
}

Header Explorer::Impl::RankSearch::local_header(Clock::time_point start) {
  Header h;
  h.states = owned_states();
  h.transitions = graph.num_transitions();
  h.steps = x.stats.steps;
  h.findings = found.size();
  std::uint64_t& f = h.flags;
  if (interrupts() > 0) f |= kInterrupted;
  if (out_of_time(start)) f |= kTimeUp;
  if (x.options.stop_on_first && (!found.empty() || !x.findings.pending().empty())) f |= kFound;
  if (x.over_memory(0, /*force=*/true)) f |= kMemory;
  return h;
}

void Explorer::Impl::RankSearch::show_progress(Clock::time_point start) {
  if (!x.options.on_progress || detail::seconds_since(start) < next_progress) return;
  next_progress = detail::seconds_since(start) + x.options.progress_interval;
  Progress p;
  for (const Ranks::Buffer& b : in) {
    Header h;
    std::memcpy(&h, b.data(), kHeader);
    p.states += h.states;
    p.transitions += h.transitions;
    p.steps += h.steps;
    p.findings = std::max(p.findings, h.findings);  // several ranks may have met the same one
  }
  p.seconds = detail::seconds_since(start);
  x.options.on_progress(p);
}

void Explorer::Impl::RankSearch::expand(StateId first, StateId end,
                                        std::vector<Ranks::Buffer>& buffers,
                                        Clock::time_point start) {
  const auto ran = [&](const unsigned char* bytes, const Step& step) {
    send(hash(bytes, size), step.from, step.action, step.mask, bytes, buffers);
  };
  for (StateId s = first; s < end; ++s) {
    if ((s & 63) == 0) {
      if (in_flight) ranks.progress();
      // Stopping: the round goes no further, and its flags tell the others to stop after it.
      if (interrupts() > 0 || out_of_time(start)) break;
    }
    const unsigned char* src = frontier.at(s - level_first);
    const std::uint64_t mask = mask_of(s);  // the state's after-invariants
    detail::copy_state(live, src, size);
    x.exec->enabled_actions({}, nullptr, enabled);
    if (s != 0) {  // the root's were counted when it was expanded first
      for (ActionId a : enabled) ++x.coverage[a].enabled;
    }
    for (ActionId a : enabled) {
      unsigned char* at = scratch->fresh(src);
      ++x.stats.steps;
      ++x.coverage[a].executed;
      if (x.exec->run_typed_on(a, at)) {
        scratch->hold(at, {s, a, mask}, ran);
      } else {
        scratch->release(ran);
        error(s, a, mask, src, buffers);
      }
    }
  }
  scratch->release(ran);
  flush();
}

void Explorer::Impl::RankSearch::send(Fingerprint fp, StateId s, ActionId a, std::uint64_t mask,
                                      const unsigned char* state,
                                      std::vector<Ranks::Buffer>& buffers) {
  graph.count_transitions(1);
  const unsigned to = owner(fp);
  if (to == me) {  // this rank's own: known, or new and added now
    unsigned char* bytes = own_bytes.data() + batch.size() * size;
    detail::copy_state(bytes, state, size);
    queue(fp, me, s, a, mask, bytes);
    return;
  }
  Ranks::Buffer& b = buffers[to];
  const std::size_t at = used[to];
  const std::size_t length = kRecordHead + (mask != 0 ? sizeof mask : 0) + size;
  if (at + length > b.size()) b.resize(std::max(2 * b.size(), at + length));
  used[to] = at + length;
  unsigned char* p = b.data() + at;
  const auto action = static_cast<std::uint16_t>(a);
  const std::uint16_t bits = mask != 0 ? kViolates : 0;
  std::memcpy(p, &fp, sizeof fp);
  std::memcpy(p + 16, &s, 4);
  std::memcpy(p + 20, &action, 2);
  std::memcpy(p + 22, &bits, 2);
  p += kRecordHead;
  if (mask != 0) {
    std::memcpy(p, &mask, sizeof mask);
    p += sizeof mask;
  }
  detail::copy_state(p, state, size);
}

void Explorer::Impl::RankSearch::error(StateId s, ActionId a, std::uint64_t mask,
                                       const unsigned char* src,
                                       std::vector<Ranks::Buffer>& buffers) {
  // Run it again the general way, which says what it threw.
  std::memcpy(live, src, size);
  Outcome outcome = x.exec->run(a, [&] { return x.step_rng(s, a); });
  if (outcome.kind != Outcome::Kind::kError) {
    send(hash(live, size), s, a, mask, live, buffers);
    return;
  }
  if (interrupts() > 0) {  // failed while the run was stopping: not the system's fault
    --x.stats.steps;
    --x.coverage[a].executed;
    return;
  }
  ++x.coverage[a].errors;
  std::vector<std::pair<std::size_t, std::string>> broken;
  if (x.exec->has_after()) {
    x.exec->check(false, [&](std::size_t i, const std::string& msg) {
      if (!((mask >> i) & 1)) broken.emplace_back(i, msg);
    });
  }
  auto [severity, text] =
      detail::error_with_invariants(x.model, std::move(outcome.message), broken);
  note({static_cast<int>(FindingKind::kActionError), a, a},
       {depth + 1, me, s, a, severity, std::move(text)});
}

Status Explorer::Impl::RankSearch::exchange(std::vector<Ranks::Buffer>& buffers) {
  // Each buffer grows as records are written (send()): keep its bytes for the next round.
  if (Status st = ranks.start_exchange(buffers, in); !st) return st;
  in_flight = true;
  return Status::ok();
}

Status Explorer::Impl::RankSearch::finish(Clock::time_point start) {
  if (!in_flight) return Status::ok();
  in_flight = false;
  if (Status st = ranks.finish_exchange(); !st) return st;
  flags = 0;
  for (const Ranks::Buffer& b : in) {
    if (b.size() < kHeader) return Status::internal("a rank sent a buffer without its header");
    const unsigned char* p = b.data();
    flags |= get<std::uint64_t>(p);
  }
  if (me == 0) show_progress(start);
  take();
  return Status::ok();
}

void Explorer::Impl::RankSearch::take() {
  each_record([&](unsigned from, const Record& r) {
    queue(r.fp, from, r.source, r.action, r.mask, r.bytes);
  });
  flush();
}

void Explorer::Impl::RankSearch::queue(Fingerprint fp, unsigned from, StateId source,
                                       ActionId action, std::uint64_t mask,
                                       const unsigned char* bytes) {
  graph.prefetch(fp);
  Arrival& a = batch.emplace_back();
  a.fp = fp;
  a.from = from;
  a.source = source;
  a.action = action;
  a.mask = mask;
  a.bytes = bytes;
  if (batch.size() == kBatch) flush();
}

void Explorer::Impl::RankSearch::flush() {
  // The table's slots were fetched as the arrivals queued; now their states' fingerprints.
  for (const Arrival& b : batch) graph.prefetch_state(b.fp);
  for (const Arrival& b : batch) arrive(b.fp, b.from, b.source, b.action, b.mask, b.bytes);
  batch.clear();
}

void Explorer::Impl::RankSearch::arrive(const Fingerprint& fp, unsigned from, StateId s, ActionId a,
                                        std::uint64_t source_mask, const unsigned char* bytes) {
  if (const StateId known_state = graph.find(fp); known_state != kNoState) {
    known(known_state, from, s, a, source_mask);
    return;
  }
  const StateId t = graph.append(fp, s, a, depth + 1);
  parent_rank.push_back(static_cast<std::uint16_t>(from));
  next.grow(1);
  detail::copy_state(next.at(t - next_first), bytes, size);
  x.stats.max_depth = std::max(x.stats.max_depth, depth + 1);
  if (!x.exec->has_after()) return;
  if (bytes != live) detail::copy_state(live, bytes, size);
  Violations v;
  x.exec->check(false, [&](std::size_t i, const std::string& msg) {
    v.mask |= std::uint64_t{1} << i;
    v.failures.emplace_back(i, msg);
  });
  if (v.mask == 0) return;
  for (const auto& [i, msg] : v.failures) {
    if ((source_mask >> i) & 1) continue;  // broken before this step
    note({static_cast<int>(FindingKind::kInvariant), i, a},
         {depth + 1, from, s, a, x.model.invariants()[i].severity, msg});
  }
  violating.emplace(t, std::move(v));
}

void Explorer::Impl::RankSearch::known(StateId t, unsigned from, StateId s, ActionId a,
                                       std::uint64_t source_mask) {
  if (violating.empty()) return;
  const auto it = violating.find(t);
  if (it == violating.end()) return;
  for (const auto& [i, msg] : it->second.failures) {
    if ((source_mask >> i) & 1) continue;
    note({static_cast<int>(FindingKind::kInvariant), i, a},
         {depth + 1, from, s, a, x.model.invariants()[i].severity, msg});
  }
}

void Explorer::Impl::RankSearch::note(FoundKey key, Found f) {
  // Levels come in order, so only a higher severity replaces the first of a key.
  auto [it, added] = found.try_emplace(key, std::move(f));
  if (!added && detail::replaces(f.severity, f.length, it->second.severity, it->second.length)) {
    it->second = std::move(f);
  }
}

}  // namespace prowl
