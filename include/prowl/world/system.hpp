// System: one part of the world under test that prowl can observe and bring back to an earlier
// state (an in-process object, a database, a service process). Each system declares what it can
// do; the World and the RestorePlanner make every strategy work with whatever is declared.
// A System is driven from one thread, and only while the code under test is idle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "prowl/core/fingerprint.hpp"
#include "prowl/core/status.hpp"

namespace prowl {

struct Capabilities {
  bool snapshot = false;  // save the whole state, restore any saved copy later, in any order
  bool stack = false;     // savepoints: only the current savepoint or an ancestor can be restored
  bool reset = false;     // only back to the state at begin()
  bool cheap = false;     // save/restore cost about as much as a memcpy of a small object
  // capture() and load(): what one copy of the system captured, another copy can load. Copies
  // are instances the model built the same way for the workers of one run (each its own service
  // and database file); a run with several workers needs every system to be portable.
  bool portable = false;
};

// A system's state as capture() saw it: immutable once made, shared between the workers'
// threads, and loadable by every copy of the system that made it. Each system type derives its
// own; an empty image (nullptr) is fine for a system with nothing to keep.
class SystemImage {
 public:
  virtual ~SystemImage() = default;
};
using SystemImagePtr = std::shared_ptr<const SystemImage>;

using SnapshotHandle = std::uint32_t;

// A system whose whole state is one fixed-size block of bytes and whose observation is exactly
// those bytes (a MemorySystem<T> of a padding-free T with the default observation). The explorer
// restores and fingerprints such a system without a virtual call per step.
struct ByteImage {
  unsigned char* live = nullptr;  // the current state's bytes
  std::size_t size = 0;
};

class System {
 public:
  explicit System(std::string name) : name_(std::move(name)) {}
  virtual ~System() = default;
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  const std::string& name() const { return name_; }
  virtual Capabilities capabilities() const = 0;

  // Adds what this system observes now (its full content, not a summary) to the fingerprint.
  virtual Status observe(Hasher& hasher) const = 0;
  // A human-readable rendering of the current state for reports; empty if not supported.
  virtual std::string describe() const { return {}; }
  // What ended this system by itself while it should have been running, for a service_crashed
  // finding: a service that exited or was killed ("exited with code 3", "was killed by signal 11
  // (Segmentation fault)"), then the last lines it wrote to stderr. Empty while the system works,
  // and always for systems that cannot die. The explorer asks after a step that failed;
  // restoring the system (which restarts it) clears it.
  virtual std::string died() const { return {}; }
  // A death this system found and recovered from by itself, which nothing has reported yet: a
  // service that died between steps (killed from outside, or crashing after it answered) and was
  // restarted by a restore. What ended it, as died() says it; taking it clears it. Empty when
  // there is none.
  virtual std::string take_unreported_death() { return {}; }

  // Called once before exploration: the current state becomes the initial state (savepoint 0).
  virtual Status begin() { return Status::ok(); }
  // Called once at the end: returns the system to the initial state and releases what it holds.
  // The default resets a system that can reset and otherwise does nothing (the World has already
  // rolled snapshot and savepoint systems back to the initial state).
  virtual Status end() { return capabilities().reset ? reset() : Status::ok(); }

  // snapshot capability.
  virtual Result<SnapshotHandle> save();
  virtual Status restore(SnapshotHandle handle);
  virtual void release(SnapshotHandle handle);

  // The byte image of this system, when it has one (see ByteImage); size 0 otherwise.
  virtual ByteImage byte_image() { return {}; }
  // With a byte image: the bytes of a saved snapshot, valid until the next save() or release().
  virtual const unsigned char* snapshot_bytes(SnapshotHandle /*handle*/) const { return nullptr; }

  // portable capability: the current state as an image, and back to an image that this system
  // or a copy of it captured. Each call runs on the thread that drives this instance; the image
  // may be read by other instances on other threads at the same time (it is immutable).
  virtual Result<SystemImagePtr> capture();
  virtual Status load(const SystemImagePtr& image);

  // stack capability. Savepoint 0 is the state at begin(); push() adds savepoint depth+1 holding
  // the current state; rollback(d) brings the state back to savepoint d and drops those above it.
  virtual Status push();
  virtual Status rollback(std::size_t depth);

  // reset capability: back to the state at begin().
  virtual Status reset();

 private:
  std::string name_;
};

}  // namespace prowl
