// guard_sqlite() and SqliteSystem's recovery record: the lock file against a second process, the
// lock shared within one, and the content a killed run left changed, put back by the next guard.
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/sqlite.hpp"
#include "sqlite_helpers.hpp"

namespace prowl {
namespace {

namespace fs = std::filesystem;
using testing::Child;
using testing::Connection;
using testing::create_accounts;
using testing::dump;
using testing::is_time_between;
using testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

TEST(SqliteGuard, AnotherProcessHoldingTheFileIsNamedAndItsLockDiesWithIt) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  create_accounts(path);
  const std::time_t from = std::time(nullptr);
  Child holder([&] {
    static std::shared_ptr<DatabaseGuard> kept;
    auto guard = guard_sqlite(path);
    if (!guard) return guard.status().message();
    kept = *guard;
    return std::string("ready");
  });
  ASSERT_EQ(holder.line(), "ready");
  const std::time_t to = std::time(nullptr);
  // The lock file names its holder.
  const std::string text = read_file(path + ".prowl-lock");
  const std::string prefix = "prowl pid " + std::to_string(holder.pid()) + " since ";
  ASSERT_EQ(text.substr(0, prefix.size()), prefix) << text;
  ASSERT_EQ(text.back(), '\n');
  const std::string since = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  EXPECT_TRUE(is_time_between(since, from, to)) << since;

  auto refused = guard_sqlite(path);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(refused.status().message(), "sqlite '" + path +
                                            "' is in use by another prowl run (pid " +
                                            std::to_string(holder.pid()) + ", since " + since +
                                            "); wait for it to end, or stop it");
  // SqliteSystem takes the same lock before it opens the file.
  auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}});
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.status().message(), refused.status().message());

  // Killed, it leaves its lock file behind, which no longer blocks anyone.
  ASSERT_TRUE(holder.kill_now());
  ASSERT_TRUE(fs::exists(path + ".prowl-lock"));
  auto taken = guard_sqlite(path);
  ASSERT_TRUE(taken) << taken.status().message();
  EXPECT_EQ((*taken)->recovered(), "");
  EXPECT_EQ((*taken)->database(), "sqlite '" + path + "'");
  const std::string mine = read_file(path + ".prowl-lock");
  EXPECT_EQ(mine.substr(0, mine.find(" since ")), "prowl pid " + std::to_string(getpid()));
  taken->reset();
  // The last holder removes the lock file.
  EXPECT_FALSE(fs::exists(path + ".prowl-lock"));
}

TEST(SqliteGuard, OneProcessSharesItsLockUntilTheLastHolderLetsGo) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  create_accounts(path);
  auto first = guard_sqlite(path);
  ASSERT_TRUE(first) << first.status().message();
  // The same file by another name is the same lock.
  auto second = guard_sqlite(dir.file(".") + "/./shop.db");
  ASSERT_TRUE(second) << second.status().message();
  auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}});
  ASSERT_TRUE(sys) << sys.status().message();
  EXPECT_EQ((*sys)->recovered(), "");

  auto try_in_child = [&] {
    Child other([&] {
      auto guard = guard_sqlite(path);
      return guard ? std::string("taken") : guard.status().message();
    });
    return other.line();
  };
  const std::string busy = "sqlite '" + path + "' is in use by another prowl run (pid " +
                           std::to_string(getpid()) + ", since ";
  first->reset();
  EXPECT_EQ(try_in_child().substr(0, busy.size()), busy);
  second->reset();
  EXPECT_EQ(try_in_child().substr(0, busy.size()), busy);
  sys->reset();
  EXPECT_FALSE(fs::exists(path + ".prowl-lock"));
  EXPECT_EQ(try_in_child(), "taken");
}

TEST(SqliteGuard, LocksADatabaseThatDoesNotExistYetAndSharesItOnceItDoes) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  auto guard = guard_sqlite(path);
  ASSERT_TRUE(guard) << guard.status().message();
  EXPECT_TRUE(fs::exists(path + ".prowl-lock"));
  EXPECT_FALSE(fs::exists(path));
  create_accounts(path);  // the service creates it
  auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}}, *guard);
  ASSERT_TRUE(sys) << sys.status().message();
  EXPECT_EQ((*sys)->guard(), *guard);
}

// A run killed between begin() and end(): the file holds a state from the middle of the run
// (a snapshot restored, more changes, a transaction left open), and the next guard puts the
// initial content back, in a rollback-journal file and in a WAL file.
class SqliteRecovery : public testing::AccountsFileInBothJournalModes {};

TEST_P(SqliteRecovery, TheNextGuardPutsBackWhatARunKilledMidwayLeftChanged) {
  Connection(path_).exec("PRAGMA user_version = 3");
  const std::string original = dump(path_);
  const std::time_t from = std::time(nullptr);
  Child run([&] {
    auto sys = SqliteSystem::open("db", {.path = path_, .tables = {"accounts", "audit"}});
    if (!sys) return sys.status().message();
    // Nothing of the run may end cleanly: the system and the service's connection are never
    // destroyed.
    SqliteSystem* db = sys->release();
    if (Status st = db->begin(); !st) return st.message();
    auto* service = new Connection(path_);
    service->exec("INSERT INTO accounts (name, balance) VALUES ('carol', 1)");
    auto h = db->save();
    if (!h) return h.status().message();
    service->exec("DELETE FROM accounts WHERE name = 'alice'; INSERT INTO audit VALUES ('x')");
    if (Status st = db->restore(*h); !st) return st.message();
    service->exec("PRAGMA user_version = 7; UPDATE accounts SET balance = 99 WHERE name = 'bob'");
    service->exec("BEGIN; DELETE FROM accounts; INSERT INTO audit VALUES ('uncommitted')");
    return std::string("ready");
  });
  ASSERT_EQ(run.line(), "ready");
  const std::time_t to = std::time(nullptr);
  const pid_t child = run.pid();
  ASSERT_TRUE(run.kill_now());
  ASSERT_TRUE(fs::exists(path_ + ".prowl-recovery"));
  // What the run left (read from a copy: reading the file itself would already roll back the
  // transaction it left open).
  TempDir left;
  for (const char* suffix : {"", "-journal", "-wal"}) {
    if (fs::exists(path_ + suffix)) fs::copy_file(path_ + suffix, left.file("app.db") + suffix);
  }
  ASSERT_NE(dump(left.file("app.db")), original);

  auto guard = guard_sqlite(path_);
  ASSERT_TRUE(guard) << guard.status().message();
  const std::string& line = (*guard)->recovered();
  const std::string head =
      "recovered " + path_ + ": put back its content from before the run of pid ";
  ASSERT_EQ(line.substr(0, head.size()), head) << line;
  const std::string tail = ") that did not end";
  ASSERT_GT(line.size(), head.size() + tail.size());
  EXPECT_EQ(line.substr(line.size() - tail.size()), tail);
  const std::string middle = line.substr(head.size(), line.size() - head.size() - tail.size());
  const std::size_t begun = middle.find(" (begun ");
  ASSERT_NE(begun, std::string::npos) << line;
  EXPECT_EQ(middle.substr(0, begun), std::to_string(child));
  EXPECT_TRUE(is_time_between(middle.substr(begun + 8), from, to)) << line;
  // No journal, WAL or record is left: only the file and the lock the guard holds.
  EXPECT_EQ(files_in(fs::path(path_).parent_path()),
            (std::set<std::string>{"app.db", "app.db.prowl-lock"}));
  EXPECT_EQ(dump(path_), original);
  // Recovered once: the next guard has nothing to do.
  guard->reset();
  auto again = guard_sqlite(path_);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->recovered(), "");
}

TEST_P(SqliteRecovery, ACleanRunLeavesNoFileButTheDatabaseWithItsContent) {
  Connection(path_).exec("PRAGMA user_version = 3");
  const std::string original = dump(path_);
  {
    Connection service(path_);
    auto sys = SqliteSystem::open("db", {.path = path_, .tables = {"accounts"}});
    ASSERT_TRUE(sys) << sys.status().message();
    ASSERT_TRUE((*sys)->begin());
    // The record is there (and synced) before the first change.
    EXPECT_TRUE(fs::exists(path_ + ".prowl-recovery"));
    EXPECT_TRUE(fs::exists(path_ + ".prowl-lock"));
    for (int i = 0; i < 200; ++i) {
      service.exec("INSERT INTO audit VALUES ('" + std::string(1000, 'x') + "')");
    }
    auto h = (*sys)->save();
    ASSERT_TRUE(h);
    service.exec("DELETE FROM accounts; PRAGMA user_version = 5");
    ASSERT_TRUE((*sys)->restore(*h));
    ASSERT_TRUE((*sys)->end());
    EXPECT_FALSE(fs::exists(path_ + ".prowl-recovery"));
    // The service still has the file open: its WAL stays, truncated.
    if (GetParam() == "wal") {
      EXPECT_EQ(fs::file_size(path_ + "-wal"), 0u);
    }
    EXPECT_EQ(dump(path_), original);
  }
  EXPECT_EQ(files_in(fs::path(path_).parent_path()), std::set<std::string>{"app.db"});
  EXPECT_EQ(dump(path_), original);
}

TEST_P(SqliteRecovery, ASystemDestroyedBeforeEndLeavesTheRecordForTheNextGuard) {
  const std::string original = dump(path_);
  {
    auto sys = SqliteSystem::open("db", {.path = path_, .tables = {"accounts"}});
    ASSERT_TRUE(sys);
    ASSERT_TRUE((*sys)->begin());
    Connection(path_).exec("UPDATE accounts SET name = 'mallory'");
  }
  EXPECT_TRUE(fs::exists(path_ + ".prowl-recovery"));
  auto guard = guard_sqlite(path_);
  ASSERT_TRUE(guard) << guard.status().message();
  const std::string pid = std::to_string(getpid());
  EXPECT_NE((*guard)->recovered().find("from before the run of pid " + pid + " (begun "),
            std::string::npos)
      << (*guard)->recovered();
  EXPECT_EQ(dump(path_), original);
}

// A record left long ago, and a database used since (its file changed after the dead run's last
// sign of life, the record's modification time): putting the old content back would undo that
// work, so it is refused, saying both ways out; with force it is done.
TEST_P(SqliteRecovery, RefusesToUndoChangesMadeAfterTheRunThatLeftTheRecord) {
  const std::string original = dump(path_);
  {
    auto sys = SqliteSystem::open("db", {.path = path_, .tables = {"accounts"}});
    ASSERT_TRUE(sys);
    ASSERT_TRUE((*sys)->begin());
    Connection(path_).exec("UPDATE accounts SET name = 'mallory'");
  }
  // The run's last sign of life a minute ago; the user's change now.
  const std::string record = path_ + ".prowl-recovery";
  const timespec a_minute_ago[2] = {{std::time(nullptr) - 60, 0}, {std::time(nullptr) - 60, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, record.c_str(), a_minute_ago, 0), 0);
  Connection(path_).exec("INSERT INTO accounts (name, balance) VALUES ('users own', 5)");
  const std::string changed = dump(path_);
  auto refused = guard_sqlite(path_);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), StatusCode::kEnvironment);
  const std::string message = refused.status().message();
  EXPECT_NE(message.find("left the recovery record " + record +
                         ", but the database was changed "
                         "at "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(", after that run's last sign of life at "), std::string::npos);
  EXPECT_NE(message.find("To put it back anyway: prowl recover --force MODEL; to keep the "
                         "database as it is: rm '" +
                         record + "'"),
            std::string::npos)
      << message;
  EXPECT_EQ(dump(path_), changed);  // untouched
  EXPECT_TRUE(fs::exists(record));
  auto forced = guard_sqlite(path_, {.force_recovery = true});
  ASSERT_TRUE(forced) << forced.status().message();
  EXPECT_NE((*forced)->recovered(), "");
  EXPECT_EQ(dump(path_), original);
  EXPECT_FALSE(fs::exists(record));
}

// A record is for the file it was written beside: another file put in its place is not given the
// old content.
TEST_P(SqliteRecovery, RefusesToPutARecordIntoAFileThatReplacedItsOwn) {
  {
    auto sys = SqliteSystem::open("db", {.path = path_, .tables = {"accounts"}});
    ASSERT_TRUE(sys);
    ASSERT_TRUE((*sys)->begin());
  }
  TempDir other;
  fs::copy_file(path_, other.file("new.db"));
  fs::rename(other.file("new.db"), path_);
  auto refused = guard_sqlite(path_);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find(", but the database file was replaced since: "),
            std::string::npos)
      << refused.status().message();
}

INSTANTIATE_TEST_SUITE_P(SqliteJournalModes, SqliteRecovery, ::testing::Values("delete", "wal"),
                         [](const auto& info) { return info.param; });

TEST(SqliteRecoveryRecord, ThatCannotBeReadIsAnErrorNamingItAndIsKept) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  create_accounts(path);
  const std::string record = fs::weakly_canonical(path).string() + ".prowl-recovery";
  auto message = [&](const std::string& why) {
    return "sqlite '" + path + "': the recovery record " + record +
           " of a run that did not end cannot be read (" + why +
           "); the file may still hold that run's changes: check it, then remove the record by "
           "hand (rm '" +
           record + "')";
  };
  std::ofstream(record) << "not a record";
  auto wrong = guard_sqlite(path);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(wrong.status().message(), message("wrong magic"));
  EXPECT_TRUE(fs::exists(record));
  // The failed guard let go of the lock: the same error again, not "in use".
  EXPECT_EQ(guard_sqlite(path).status().message(), message("wrong magic"));

  // A real record, cut short.
  fs::remove(record);
  {
    auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}});
    ASSERT_TRUE(sys);
    ASSERT_TRUE((*sys)->begin());
  }
  const std::string full = read_file(record);
  const std::size_t image = full.size() - full.find("\n\n") - 2;
  fs::resize_file(record, full.size() - 10);
  EXPECT_EQ(guard_sqlite(path).status().message(),
            message("truncated: " + std::to_string(image - 10) + " bytes of a " +
                    std::to_string(image) + " byte image"));
  // One byte changed.
  std::string flipped = full;
  flipped[flipped.size() - 100] ^= 1;
  std::ofstream(record, std::ios::binary) << flipped;
  EXPECT_EQ(guard_sqlite(path).status().message(), message("its image does not match its hash"));
  // The original, whole again, is recovered.
  std::ofstream(record, std::ios::binary) << full;
  auto guard = guard_sqlite(path);
  ASSERT_TRUE(guard) << guard.status().message();
  EXPECT_NE((*guard)->recovered(), "");
}

TEST(SqliteRecoveryRecord, WithoutItsDatabaseIsAnErrorThatSaysWhatToDo) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  create_accounts(path);
  {
    auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}});
    ASSERT_TRUE(sys);
    ASSERT_TRUE((*sys)->begin());
  }
  fs::remove(path);
  const std::string record = fs::weakly_canonical(path).string() + ".prowl-recovery";
  auto guard = guard_sqlite(path);
  ASSERT_FALSE(guard);
  EXPECT_EQ(guard.status().code(), StatusCode::kEnvironment);
  const std::string message = guard.status().message();
  EXPECT_EQ(message.substr(0, message.find(" (begun ")),
            "sqlite '" + path + "': a run of pid " + std::to_string(getpid()));
  EXPECT_EQ(message.substr(message.find(") did not end")),
            ") did not end and left the recovery record " + record +
                ", but the database file is gone: put it back to have its content recovered, or "
                "remove the record by hand (rm '" +
                record + "')");
}

TEST(SqliteSystemCopy, WithoutARecoveryRecordStillLocks) {
  TempDir dir;
  const std::string path = dir.file("copy.db");
  create_accounts(path);
  auto sys =
      SqliteSystem::open("db", {.path = path, .tables = {"accounts"}, .recovery_record = false});
  ASSERT_TRUE(sys) << sys.status().message();
  ASSERT_TRUE((*sys)->begin());
  EXPECT_FALSE(fs::exists(path + ".prowl-recovery"));
  EXPECT_TRUE(fs::exists(path + ".prowl-lock"));
  ASSERT_TRUE((*sys)->end());
}

}  // namespace
}  // namespace prowl
