// MpiRanks: Ranks on MPI (prowl/mpi/mpi.hpp). Every operation is non-blocking underneath
// (MPI_Ialltoall, MPI_Isend/MPI_Irecv, MPI_Iallreduce, MPI_Ibcast) and waited for by polling, so
// that a rank that died is noticed instead of waited for forever: between polls the ranks on this
// host are checked to be alive (their processes, learnt at the start), and once this process was
// asked to stop (a launcher stops every rank when one dies) a wait gives up after kStopWait.
// A rank is on this host when it names the same host, boot and process namespace: a container
// with the same host name is another machine to it, and its process ids are not this one's.
#include "prowl/mpi/mpi.hpp"

#include <mpi.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "prowl/core/interrupt.hpp"

namespace prowl::mpi {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kAliveCheck = std::chrono::milliseconds(20);
constexpr auto kStopWait = std::chrono::seconds(10);
constexpr int kExchangeTag = 7;

std::string mpi_error(int code) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int len = 0;
  MPI_Error_string(code, text.data(), &len);
  return std::string(text.data(), static_cast<std::size_t>(len));
}

// Whether process `pid` of this host has ended (gone, or a zombie not yet reaped).
bool ended(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// What tells this machine and process namespace from others: the host name, the kernel's boot id
// and the inode of the process namespace.
std::string place() {
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat ns {};
  const auto pid_ns = ::stat("/proc/self/ns/pid", &ns) == 0 ? ns.st_ino : 0;
  return fmt::format("{}\n{}\n{}", host.data(), boot, pid_ns);
}

}  // namespace

bool launched() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

struct MpiRanks::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<long> pids;
  std::vector<std::string> places;  // place() of every rank
  std::vector<MPI_Request> requests;
  std::vector<std::uint64_t> sizes_out, sizes_in;
  bool exchanging = false;
  bool broken = false;     // a rank died: MPI cannot be finalized with it
  bool completed = false;  // the search made every collective operation on this rank
  int exit_code = 1;

  // Waits for `requests`: OK, or the rank that died, or the MPI error.
  Status wait(const MpiRanks& self, const char* what);
  Status dead_rank(const MpiRanks& self, const std::string& why);
};

MpiRanks::MpiRanks() : impl_(std::make_unique<Impl>()) {}

MpiRanks::~MpiRanks() {
  if (impl_->broken) return;  // finalizing waits for every rank, a dead one too
  // The others may wait for this rank in an exchange it will never make: the launcher stops them.
  if (!impl_->completed) MPI_Abort(MPI_COMM_WORLD, impl_->exit_code);
  if (impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

Result<std::unique_ptr<MpiRanks>> MpiRanks::start() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Status::internal("MPI was initialized already");
  int provided = 0;
  if (int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      rc != MPI_SUCCESS) {
    return Status::environment(fmt::format("MPI did not start: {}", mpi_error(rc)));
  }
  std::unique_ptr<MpiRanks> r(new MpiRanks());
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &r->impl_->comm);
  MPI_Comm_set_errhandler(r->impl_->comm, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(r->impl_->comm, &rank);
  MPI_Comm_size(r->impl_->comm, &size);
  r->rank_ = static_cast<unsigned>(rank);
  r->size_ = static_cast<unsigned>(size);
  // Every rank's host and process, to tell which one died.
  constexpr int kName = 512;
  std::vector<char> names(static_cast<std::size_t>(kName) * r->size_, '\0');
  std::array<char, kName> mine{};
  const std::string here = place();
  here.copy(mine.data(), std::min<std::size_t>(here.size(), kName - 1));
  std::vector<long> pids(r->size_);
  const long pid = ::getpid();
  if (int rc = MPI_Allgather(mine.data(), kName, MPI_CHAR, names.data(), kName, MPI_CHAR,
                             r->impl_->comm);
      rc != MPI_SUCCESS) {
    return Status::environment(fmt::format("MPI: the ranks did not meet: {}", mpi_error(rc)));
  }
  if (int rc = MPI_Allgather(&pid, 1, MPI_LONG, pids.data(), 1, MPI_LONG, r->impl_->comm);
      rc != MPI_SUCCESS) {
    return Status::environment(fmt::format("MPI: the ranks did not meet: {}", mpi_error(rc)));
  }
  for (unsigned k = 0; k < r->size_; ++k) {
    std::string where(&names[k * kName]);
    r->hosts_.push_back(where.substr(0, where.find('\n')));
    r->impl_->places.push_back(std::move(where));
  }
  r->impl_->pids = std::move(pids);
  return r;
}

Status MpiRanks::Impl::dead_rank(const MpiRanks& self, const std::string& why) {
  for (unsigned k = 0; k < self.size_; ++k) {
    if (k == self.rank_ || places[k] != places[self.rank_] || !ended(pids[k])) continue;
    broken = true;
    return Status::environment(
        fmt::format("rank {} (process {} on {}) died; rank {} stops the search over {} processes",
                    k, pids[k], self.hosts_[k], self.rank_, self.size_));
  }
  if (why.empty()) return Status::ok();
  broken = true;
  return Status::environment(
      fmt::format("rank {}: the other ranks stopped answering ({})", self.rank_, why));
}

Status MpiRanks::Impl::wait(const MpiRanks& self, const char* what) {
  auto next_check = Clock::now() + kAliveCheck;
  Clock::time_point stopped{};
  for (;;) {
    int done = 0;
    const int rc =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
      if (Status st = dead_rank(self, fmt::format("{}: {}", what, mpi_error(rc))); !st) return st;
    }
    if (done) {
      requests.clear();
      return Status::ok();
    }
    const auto now = Clock::now();
    if (now < next_check) {
      std::this_thread::yield();
      continue;
    }
    next_check = now + kAliveCheck;
    if (Status st = dead_rank(self, {}); !st) return st;
    if (interrupts() > 0) {
      if (stopped == Clock::time_point{}) stopped = now;
      if (now - stopped >= kStopWait) {
        return dead_rank(self, fmt::format("{} did not end within {} s of the interrupt", what,
                                           kStopWait.count()));
      }
    }
  }
}

Status MpiRanks::start_exchange(std::span<Buffer> out, std::span<Buffer> in) {
  Impl& m = *impl_;
  PROWL_CHECK(!m.exchanging, "MpiRanks: an exchange started before the last one finished");
  m.sizes_out.resize(size_);
  m.sizes_in.assign(size_, 0);
  for (unsigned k = 0; k < size_; ++k) {
    if (out[k].size() > static_cast<std::size_t>(INT_MAX)) {
      return Status::internal(fmt::format("a buffer for rank {} is over 2 GiB", k));
    }
    m.sizes_out[k] = out[k].size();
  }
  m.requests.resize(1);
  if (int rc = MPI_Ialltoall(m.sizes_out.data(), 1, MPI_UINT64_T, m.sizes_in.data(), 1,
                             MPI_UINT64_T, m.comm, &m.requests[0]);
      rc != MPI_SUCCESS) {
    return m.dead_rank(*this, mpi_error(rc));
  }
  if (Status st = m.wait(*this, "an exchange's sizes"); !st) return st;
  for (unsigned k = 0; k < size_; ++k) {
    if (k == rank_) {
      in[k].swap(out[k]);
      continue;
    }
    in[k].resize(m.sizes_in[k]);
    MPI_Request recv = MPI_REQUEST_NULL;
    MPI_Request send = MPI_REQUEST_NULL;
    int rc = MPI_Irecv(in[k].data(), static_cast<int>(m.sizes_in[k]), MPI_BYTE, static_cast<int>(k),
                       kExchangeTag, m.comm, &recv);
    if (rc == MPI_SUCCESS) {
      rc = MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_BYTE, static_cast<int>(k),
                     kExchangeTag, m.comm, &send);
    }
    // Kept also after a failure: a receive under way is not freed while MPI may write into it.
    if (recv != MPI_REQUEST_NULL) m.requests.push_back(recv);
    if (send != MPI_REQUEST_NULL) m.requests.push_back(send);
    if (rc != MPI_SUCCESS) return m.dead_rank(*this, mpi_error(rc));
  }
  m.exchanging = true;
  return Status::ok();
}

Status MpiRanks::finish_exchange() {
  if (!impl_->exchanging) return Status::ok();
  impl_->exchanging = false;
  return impl_->wait(*this, "an exchange of states");
}

void MpiRanks::progress() {
  Impl& m = *impl_;
  if (!m.exchanging || m.requests.empty()) return;
  // Testing completes nothing for the caller: finish_exchange() still waits for every request.
  int flag = 0;
  MPI_Testall(static_cast<int>(m.requests.size()), m.requests.data(), &flag, MPI_STATUSES_IGNORE);
  if (flag) m.requests.clear();
}

namespace {

Status reduce(MpiRanks::Impl& m, const MpiRanks& self, std::span<std::uint64_t> values, MPI_Op op) {
  PROWL_CHECK(!m.exchanging, "MpiRanks: a reduction during an exchange");
  m.requests.resize(1);
  if (int rc = MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                              MPI_UINT64_T, op, m.comm, &m.requests[0]);
      rc != MPI_SUCCESS) {
    return m.dead_rank(self, mpi_error(rc));
  }
  return m.wait(self, "a reduction");
}

}  // namespace

Status MpiRanks::sum(std::span<std::uint64_t> values) {
  return reduce(*impl_, *this, values, MPI_SUM);
}

Status MpiRanks::max(std::span<std::uint64_t> values) {
  return reduce(*impl_, *this, values, MPI_MAX);
}

Status MpiRanks::broadcast(Buffer& data, unsigned root) {
  Impl& m = *impl_;
  PROWL_CHECK(!m.exchanging, "MpiRanks: a broadcast during an exchange");
  std::uint64_t n = data.size();
  m.requests.resize(1);
  int rc = MPI_Ibcast(&n, 1, MPI_UINT64_T, static_cast<int>(root), m.comm, &m.requests[0]);
  if (rc != MPI_SUCCESS) return m.dead_rank(*this, mpi_error(rc));
  if (Status st = m.wait(*this, "a broadcast"); !st) return st;
  if (n > static_cast<std::uint64_t>(INT_MAX)) return Status::internal("a broadcast over 2 GiB");
  data.resize(n);
  if (n == 0) return Status::ok();
  m.requests.resize(1);
  rc = MPI_Ibcast(data.data(), static_cast<int>(n), MPI_BYTE, static_cast<int>(root), m.comm,
                  &m.requests[0]);
  if (rc != MPI_SUCCESS) return m.dead_rank(*this, mpi_error(rc));
  return m.wait(*this, "a broadcast");
}

void MpiRanks::completed() { impl_->completed = true; }

bool MpiRanks::broken() const { return impl_->broken; }

void MpiRanks::end(int exit_code) { impl_->exit_code = exit_code; }

}  // namespace prowl::mpi
