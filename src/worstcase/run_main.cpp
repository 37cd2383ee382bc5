#include "prowl/worstcase/run_main.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "prowl/core/escape.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/worstcase/pyse.hpp"
#include "prowl/worstcase/search.hpp"
#include "prowl/worstcase/witness.hpp"

namespace prowl::wc {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kPyseDefaultPaths = 1000;

struct Flags {
  std::string program;
  std::string sizes = "";
  std::string search = "exhaustive";
  std::string train = "3";
  int pretrain = 5;
  int history = 2;
  std::uint64_t max_paths = 0;
  std::uint32_t max_depth = 100000;
  double time_limit = 0;
  std::string objective = "decisions";
  std::string json;
  std::string trace_dir;
  bool list = false;
  std::uint64_t seed = 1;
  int seeds = 1;
  std::string policy_in, policy_out;
};

// "3,4,5" into sizes of 1 or more.
Result<std::vector<int>> parse_sizes(const std::string& flag, const std::string& text) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    int n = 0;
    if (!CLI::detail::lexical_cast(item, n) || n < 1 || n > 100000) {
      return Status::invalid(flag + " " + text + ": '" + item +
                             "' is not a size (an integer from 1 to 100000; sizes are "
                             "comma-separated, as in 3,4,5)");
    }
    out.push_back(n);
    at = comma + 1;
  }
  return out;
}

const Program* find_program(const std::vector<Program>& programs, const std::string& name) {
  for (const Program& p : programs) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string program_list(const std::vector<Program>& programs) {
  std::string out;
  for (const Program& p : programs) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

std::string input_text(const SearchResult& r) {
  std::string out;
  for (const auto& [name, value] : r.input) out += (out.empty() ? "" : " ") + name + "=" + value;
  return escape_text(out);
}

nlohmann::json result_json(const SearchResult& r, const std::string& trace) {
  nlohmann::json input = nlohmann::json::object();
  for (const auto& [name, value] : r.input) input[name] = value;
  nlohmann::json out = {{"n", r.n},
                        {"longest", r.longest},
                        {"paths", r.paths},
                        {"paths_to_longest", r.paths_to_longest},
                        {"runs", r.runs},
                        {"runs_to_longest", r.runs_to_longest},
                        {"cut", r.cut},
                        {"seconds", r.seconds},
                        {"input", input},
                        {"unknown", r.unknown},
                        {"end", std::string(to_string(r.end))}};
  if (!trace.empty()) out["trace"] = trace;
  return out;
}

bool write_text(const std::string& path, const std::string& text, std::string_view command) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  std::cerr << command << ": " << path << ": cannot write the file\n";
  return false;
}

class Session {
 public:
  Session(const Flags& flags, const Program& program, std::string_view command)
      : flags_(flags), program_(program), command_(command) {}

  // Searches each size: by `policy` when given, else by every PySE of `pyses` (one per seed,
  // reported as their median when there are several), else exhaustively.
  int run(const std::vector<int>& sizes, const std::optional<BranchPolicy>& policy,
          const std::vector<std::unique_ptr<Pyse>>& pyses = {}) {
    const Clock::time_point start = Clock::now();
    bool stopped = false;
    for (int n : sizes) {
      std::vector<SearchResult> each;
      for (std::size_t k = 0; k < std::max<std::size_t>(pyses.size(), 1); ++k) {
        SearchOptions options = options_for(start);
        if (options.time_limit < 0 || interrupts() > 0) break;
        Result<SearchResult> r = !pyses.empty() ? pyses[k]->search(n, options)
                                 : policy       ? guided(program_, n, *policy, options)
                                                : exhaustive(program_, n, options);
        if (!r) {
          std::cerr << command_ << ": " << r.status().message() << '\n';
          return kExitUsage;
        }
        each.push_back(std::move(*r));
      }
      if (each.empty()) {
        std::cout << fmt::format("  n={}: not run ({})\n", n,
                                 interrupts() > 0 ? "interrupted" : "time limit");
        stopped = true;
        continue;
      }
      for (const SearchResult& r : each) stopped = stopped || r.end != SearchEnd::kComplete;
      if (pyses.size() > 1 && each.size() < pyses.size()) stopped = true;
      if (!(pyses.size() > 1 ? report_seeds(each) : report(each.front()))) written_ = false;
    }
    if (!flags_.json.empty() && !write_json()) written_ = false;
    if (interrupts() > 0) return interrupt_exit_code();
    if (!written_) return kExitEnvironment;
    return stopped ? kExitInconclusive : kExitOk;
  }

  void set_learned(const std::string& text) { learned_ = text; }

 private:
  SearchOptions options_for(Clock::time_point start) const {
    SearchOptions o;
    o.max_paths = flags_.max_paths;
    // PySE cannot tell it has the longest path until its tree is run: it stops at a budget.
    if (flags_.search == "pyse" && o.max_paths == 0) o.max_paths = kPyseDefaultPaths;
    o.max_depth = flags_.max_depth;
    o.objective = flags_.objective == "cost" ? Objective::kCost : Objective::kDecisions;
    if (flags_.time_limit > 0) {
      const double left =
          flags_.time_limit - std::chrono::duration<double>(Clock::now() - start).count();
      o.time_limit = left > 0 ? left : -1;
    }
    return o;
  }

  // Prints one size's result and writes its trace; false when the trace could not be written.
  bool report(const SearchResult& r, const std::string& note = "") {
    std::string trace;
    bool ok = true;
    if (!flags_.trace_dir.empty() && r.paths > 0) {
      std::error_code ec;
      std::filesystem::create_directories(flags_.trace_dir, ec);
      trace = (std::filesystem::path(flags_.trace_dir) /
               fmt::format("{}-n{}.trace", program_.name, r.n))
                  .string();
      const Objective objective =
          flags_.objective == "cost" ? Objective::kCost : Objective::kDecisions;
      if (Status st =
              trace::write_trace_file(trace, witness_trace(program_, r, flags_.search, objective));
          !st) {
        std::cerr << command_ << ": " << st.message() << '\n';
        trace.clear();
        ok = false;
      }
    }
    std::cout << fmt::format(
        "  n={}: longest {} in {} path{} (first at path {}), {} run{}, {:.3f} s, {}{}\n", r.n,
        r.longest, r.paths, r.paths == 1 ? "" : "s",
        r.paths_to_longest > 0 || r.paths == 0 ? std::to_string(r.paths_to_longest) : "-", r.runs,
        r.runs == 1 ? "" : "s", r.seconds, to_string(r.end),
        r.unknown > 0 ? fmt::format(", {} unknown", r.unknown) : "");
    std::cout << note;
    if (r.cut > 0) std::cout << fmt::format("    {} paths cut at --max-depth\n", r.cut);
    if (r.paths > 0) std::cout << "    input: " << input_text(r) << '\n';
    if (!trace.empty()) std::cout << "    trace: " << trace << '\n';
    results_.push_back(result_json(r, trace));
    return ok;
  }

  // One size searched with several seeds: the witness of the seed that reached the longest in
  // the fewest paths, and the median of each count over the seeds, a seed's count to the longest
  // being "not reached" (above every count) when its longest is shorter than the best.
  bool report_seeds(const std::vector<SearchResult>& each) {
    std::uint64_t longest = 0;
    for (const SearchResult& r : each) longest = std::max(longest, r.longest);
    constexpr std::uint64_t kNotReached = UINT64_MAX;
    // The median of a count; `to_longest`: a seed short of the best longest counts as above all.
    const auto median = [&](auto field, bool to_longest) {
      std::vector<std::uint64_t> v;
      for (const SearchResult& r : each) {
        v.push_back(!to_longest || r.longest == longest ? field(r) : kNotReached);
      }
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];  // the upper middle of an even count
    };
    const auto best = std::min_element(each.begin(), each.end(), [&](const auto& a, const auto& b) {
      return std::pair(a.longest != longest, a.paths_to_longest) <
             std::pair(b.longest != longest, b.paths_to_longest);
    });
    SearchResult shown = *best;
    shown.paths_to_longest = median([](const SearchResult& r) { return r.paths_to_longest; }, true);
    shown.runs_to_longest = median([](const SearchResult& r) { return r.runs_to_longest; }, true);
    shown.paths = median([](const SearchResult& r) { return r.paths; }, false);
    shown.runs = median([](const SearchResult& r) { return r.runs; }, false);
    shown.unknown = 0;
    shown.seconds = 0;
    nlohmann::json seeds = nlohmann::json::array();
    std::string list;
    for (std::size_t k = 0; k < each.size(); ++k) {
      const SearchResult& r = each[k];
      shown.unknown += r.unknown;
      shown.seconds += r.seconds;
      const bool reached = r.longest == longest;
      list += fmt::format(
          "{}{}", k == 0 ? "" : ", ",
          reached ? std::to_string(r.paths_to_longest) : fmt::format("not in {}", r.paths));
      seeds.push_back({{"seed", flags_.seed + k},
                       {"longest", r.longest},
                       {"paths", r.paths},
                       {"paths_to_longest", reached ? nlohmann::json(r.paths_to_longest) : nullptr},
                       {"runs", r.runs},
                       {"seconds", r.seconds},
                       {"end", std::string(to_string(r.end))}});
    }
    const bool median_reached = shown.paths_to_longest != kNotReached;
    const std::string note =
        fmt::format("    seeds {}..{}: longest first at path {} (median {}); witness of seed {}\n",
                    flags_.seed, flags_.seed + each.size() - 1, list,
                    median_reached ? std::to_string(shown.paths_to_longest) : "not reached",
                    flags_.seed + static_cast<std::uint64_t>(best - each.begin()));
    if (!median_reached) shown.paths_to_longest = shown.runs_to_longest = 0;
    const bool ok = report(shown, note);
    results_.back()["seeds"] = std::move(seeds);
    results_.back()["seconds"] = shown.seconds;
    if (!median_reached) {
      results_.back()["paths_to_longest"] = nullptr;
      results_.back()["runs_to_longest"] = nullptr;
    }
    return ok;
  }

  bool write_json() const {
    nlohmann::json out = {{"version", 1},
                          {"model", program_.name},
                          {"program", program_.name},
                          {"search", flags_.search},
                          {"objective", flags_.objective},
                          {"results", results_}};
    if (flags_.search == "spf-wca" || flags_.search == "pyse") out["history"] = flags_.history;
    if (!learned_.empty()) out["learned"] = learned_;
    if (interrupts() > 0) out["interrupted_by"] = std::string(signal_name(interrupt_signal()));
    return write_text(flags_.json, out.dump(2) + "\n", command_);
  }

  const Flags& flags_;
  const Program& program_;
  std::string_view command_;
  nlohmann::json results_ = nlohmann::json::array();
  std::string learned_;
  bool written_ = true;
};

int replay_command(const std::vector<Program>& programs, const std::string& path,
                   std::string_view command) {
  Result<trace::Trace> t = trace::read_trace_file(path);
  if (!t) {
    std::cerr << command << ": " << t.status().message() << '\n';
    return kExitUsage;
  }
  Result<WitnessReplay> r = replay_witness(programs, *t, path);
  if (!r) {
    std::cerr << command << ": " << r.status().message() << '\n';
    return kExitUsage;
  }
  const char* unit = r->objective == Objective::kCost ? "cost" : "decisions";
  std::string sides;
  for (const PathStep& d : r->path) sides += d.taken ? 'T' : 'F';
  std::cout << fmt::format("trace     {}\nprogram   {} n={}\nrecorded  {} {}\nreplayed  {} {}",
                           path, r->program, r->n, r->recorded, unit, r->replayed, unit);
  std::cout << (sides.empty() ? "\n" : ": " + sides + "\n");
  if (r->reproduced()) {
    std::cout << fmt::format("reproduced: the input takes a path of {} {}, as recorded\n",
                             r->replayed, unit);
    return kExitFindings;
  }
  std::cout << (r->replayed != r->recorded
                    ? fmt::format("not reproduced: the input gives {} {}, the trace records {}\n",
                                  r->replayed, unit, r->recorded)
                    : std::string("not reproduced: the decisions differ from the trace's\n"));
  return kExitOk;
}

// The command line's options, on `app`.
void add_flags(CLI::App& app, Flags& flags, const std::string& name) {
  app.add_option("PROGRAM", flags.program, "the program (--list shows them)");
  app.add_flag("--list", flags.list, "list the programs");
  app.add_option("--n", flags.sizes, "the input sizes, comma-separated (3,4,5,10)")
      ->type_name("SIZES");
  app.add_option("--search", flags.search, "exhaustive (default), wise, spf-wca or pyse")
      ->check(CLI::IsMember({"exhaustive", "wise", "spf-wca", "pyse"}));
  app.add_option("--pretrain-n", flags.pretrain,
                 "pyse: the size it learns at first, every path run (default 5)")
      ->type_name("N0")
      ->check(CLI::Range(1, 100000));
  app.add_option("--train-n", flags.train,
                 "the sizes wise and spf-wca learn their policy at, exhaustively (default 3)")
      ->type_name("SIZES");
  app.add_option("--history", flags.history,
                 "spf-wca: the decisions before a branch its policy reads (default 2)")
      ->check(CLI::Range(0, 64));
  app.add_option("--seed", flags.seed, "pyse: the seed of its network and choices (default 1)");
  app.add_option("--seeds", flags.seeds,
                 "pyse: run with K seeds from --seed on and report the median (default 1)")
      ->type_name("K")
      ->check(CLI::Range(1, 1000));
  app.add_option("--policy-in", flags.policy_in,
                 "pyse: start from this policy file instead of pre-training")
      ->type_name("FILE");
  app.add_option("--policy-out", flags.policy_out,
                 "pyse: write the network as a policy file after the last size")
      ->type_name("FILE");
  app.add_option("--max-paths", flags.max_paths, "stop a search after P runs (0: no limit)")
      ->type_name("P");
  app.add_option("--max-depth", flags.max_depth, "cut a path after D decisions (default 100000)")
      ->type_name("D")
      ->check(CLI::Range(1u, 100000000u));
  app.add_option("--time-limit", flags.time_limit, "stop after S seconds in all (0: none)")
      ->type_name("S")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--objective", flags.objective, "decisions (default) or cost (SymExec::cost)")
      ->check(CLI::IsMember({"decisions", "cost"}));
  app.add_option("--json", flags.json, "write the results as JSON")->type_name("FILE");
  app.add_option("--trace-dir", flags.trace_dir, "write each size's witness as a trace here")
      ->type_name("DIR");
  app.footer(
      "Replay a witness: " + name +
      " replay TRACE.\n"
      "Exit codes: 0 every search ran to its end, 2 bad usage, 3 a file could not be written,\n"
      "4 a limit stopped a search, 130/143/129 a signal; replay: 1 the worst case reproduces,\n"
      "0 it does not, 2 a bad trace.");
}

// Learns the policy of a guided search (printing where); nullopt and `code` set when it cannot.
std::optional<BranchPolicy> learn(const Flags& flags, const Program& program,
                                  const std::vector<int>& train, const std::string& name,
                                  Session& session, int& code) {
  const int history = flags.search == "wise" ? 0 : flags.history;
  std::vector<SearchResult> trained;
  SearchOptions o;
  o.max_depth = flags.max_depth;
  Result<BranchPolicy> learned = learn_policy(program, train, history, o, &trained);
  if (!learned) {
    std::cout << '\n';
    std::cerr << name << ": " << learned.status().message() << '\n';
    code = interrupts() > 0 ? interrupt_exit_code() : kExitUsage;
    return std::nullopt;
  }
  std::string at;
  for (const SearchResult& t : trained) {
    at += fmt::format("{}n={} (longest {}, {} paths)", at.empty() ? "" : ", ", t.n, t.longest,
                      t.paths);
  }
  std::cout << fmt::format(" (history {}, learned at {}: {} rules)", history, at,
                           learned->rules.size());
  session.set_learned(at);
  return std::move(*learned);
}

// PySE, once per seed: pre-trained at --pretrain-n (or from --policy-in), then each size with the
// same network.
int run_pyse(const Flags& flags, const Program& program, const std::vector<int>& sizes,
             const std::string& name, Session& session) {
  const int largest = *std::max_element(sizes.begin(), sizes.end());
  if (flags.policy_in.empty() && flags.pretrain > largest) {
    std::cout << '\n';
    std::cerr << name << ": --pretrain-n " << flags.pretrain << " is larger than every size of --n"
              << " (the largest is " << largest
              << "): pre-train at a size no larger than the largest searched\n";
    return kExitUsage;
  }
  std::optional<learn::PolicyFile> policy;
  if (!flags.policy_in.empty()) {
    Result<learn::PolicyFile> read = learn::read_policy_file(flags.policy_in);
    if (!read) {
      std::cout << '\n';
      std::cerr << name << ": " << read.status().message() << '\n';
      return kExitUsage;
    }
    policy = std::move(*read);
  }
  std::vector<std::unique_ptr<Pyse>> pyses;
  std::string at;
  for (int k = 0; k < flags.seeds && interrupts() == 0; ++k) {
    PyseOptions po;
    po.history = flags.history;
    po.seed = flags.seed + static_cast<std::uint64_t>(k);
    auto pyse = std::make_unique<Pyse>(program, po);
    if (policy) {
      if (Status loaded = pyse->load_policy(*policy, flags.policy_in); !loaded) {
        std::cout << '\n';
        std::cerr << name << ": " << loaded.message() << '\n';
        return kExitUsage;
      }
      at = "policy from " + flags.policy_in;
      for (const auto& [key, value] : policy->header) {
        if (key == "trained") at += " (trained at n=" + value + ")";
      }
    } else {
      SearchOptions o;
      o.max_depth = flags.max_depth;
      o.max_paths = flags.max_paths > 0 ? flags.max_paths : kPyseDefaultPaths;
      Result<SearchResult> pre = pyse->search(flags.pretrain, o);
      if (!pre) {
        std::cout << '\n';
        std::cerr << name << ": " << pre.status().message() << '\n';
        return kExitUsage;
      }
      at = flags.seeds == 1 ? fmt::format("pre-trained at n={} (longest {}, {} runs)",
                                          flags.pretrain, pre->longest, pre->runs)
                            : fmt::format("each pre-trained at n={}", flags.pretrain);
    }
    pyses.push_back(std::move(pyse));
  }
  const std::string seeds =
      flags.seeds == 1 ? fmt::format("seed {}", flags.seed)
                       : fmt::format("seeds {}..{}", flags.seed,
                                     flags.seed + static_cast<std::uint64_t>(flags.seeds) - 1);
  std::cout << fmt::format(" (history {}, {}, {})\n", flags.history, seeds, at);
  session.set_learned(at);
  if (pyses.size() < static_cast<std::size_t>(flags.seeds)) return session.run({}, std::nullopt);
  int code = session.run(sizes, std::nullopt, pyses);
  if (!flags.policy_out.empty()) {
    if (Status st = learn::write_policy_file(flags.policy_out, pyses.front()->to_policy()); !st) {
      std::cerr << name << ": " << st.message() << '\n';
      return code == kExitOk || code == kExitInconclusive ? kExitEnvironment : code;
    }
    std::cout << "policy written to " << flags.policy_out << '\n';
  }
  return code;
}

}  // namespace

int run_main(const std::vector<Program>& programs, int argc, char** argv,
             std::string_view command) {
  const std::string name =
      command.empty() ? std::string(argc > 0 ? argv[0] : "worst-case") : std::string(command);
  if (argc >= 2 && std::string_view(argv[1]) == "replay") {
    if (argc != 3) {
      std::cerr << "usage: " << name << " replay TRACE\n";
      return kExitUsage;
    }
    return replay_command(programs, argv[2], name);
  }
  Flags flags;
  CLI::App app(
      "Worst-case input search: the feasible path of a program with the most symbolic decisions\n"
      "at each input size, and an input that takes it (Z3). See docs/worst-case.md.\n",
      name);
  add_flags(app, flags, name);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (flags.list) {
    for (const Program& p : programs) std::cout << p.name << "  " << p.description << '\n';
    return kExitOk;
  }
  const Program* program = find_program(programs, flags.program);
  if (program == nullptr) {
    std::cerr << name << ": "
              << (flags.program.empty() ? "no program given"
                                        : "unknown program '" + escape_text(flags.program) + "'")
              << " (the programs: " << program_list(programs) << ")\n";
    return kExitUsage;
  }
  if (flags.sizes.empty()) {
    std::cerr << name << ": --n is required: the input sizes, as in --n 3,4,5\n";
    return kExitUsage;
  }
  Result<std::vector<int>> sizes = parse_sizes("--n", flags.sizes);
  Result<std::vector<int>> train = parse_sizes("--train-n", flags.train);
  for (const Status& st : {sizes.status(), train.status()}) {
    if (!st) {
      std::cerr << name << ": " << st.message() << '\n';
      return kExitUsage;
    }
  }
  if (flags.seeds > 1 && flags.search != "pyse") {
    std::cerr << name << ": --seeds " << flags.seeds << " needs --search pyse: the other searches "
              << "have no seed (drop --seeds)\n";
    return kExitUsage;
  }
  if (flags.seeds > 1 && !flags.policy_out.empty()) {
    std::cerr << name << ": --policy-out writes one network, and --seeds " << flags.seeds
              << " trains " << flags.seeds
              << ": run the seed you want with --seed S --policy-out\n";
    return kExitUsage;
  }
  install_interrupt_handlers();
  std::cout << fmt::format("{}: {}, search {}", name, program->name, flags.search);
  std::optional<BranchPolicy> policy;
  Session session(flags, *program, name);
  if (flags.search == "pyse") return run_pyse(flags, *program, *sizes, name, session);
  if (flags.search != "exhaustive") {
    int code = kExitOk;
    policy = learn(flags, *program, *train, name, session, code);
    if (!policy) return code;
  }
  std::cout << '\n';
  return session.run(*sizes, policy);
}

}  // namespace prowl::wc
