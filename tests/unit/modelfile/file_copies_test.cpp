// The directories of copied database files: each names its owner, the stale ones of killed runs
// are removed before a new one is made (and only those), db_copy gives copy 0 a private copy of
// the user's file, and the copies for other workers start from that private copy.
#include "modelfile/file_copies.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile::detail {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& file, std::string_view text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// No process ever has this pid: pids are below pid_max.
long impossible_pid() { return std::stol(read("/proc/sys/kernel/pid_max")); }

// A temporary directory of the test's own, which is also TMPDIR while the test runs.
class FileCopies : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "prowl-copies-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    tmp_ = dir_ / "tmp";
    fs::create_directory(tmp_);
    if (const char* old = ::getenv("TMPDIR")) old_tmpdir_ = old;
    ::setenv("TMPDIR", tmp_.c_str(), 1);
  }
  void TearDown() override {
    if (old_tmpdir_.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A copy directory in tmp_ whose owner file names `owner`.
  fs::path owned(const std::string& name, const ProcessIdentity& owner) {
    const fs::path d = tmp_ / name;
    fs::create_directory(d);
    write(d / "0-shop.db", "pages");
    EXPECT_TRUE(write_owner(d, owner).is_ok());
    return d;
  }

  // A model whose service works on `db` (db_copy as given).
  static ModelSpec model(const fs::path& db, bool db_copy) {
    ModelSpec spec;
    spec.file = "m.yaml";
    ProcessSpec p;
    p.name = "service";
    p.options.argv = {"true"};
    p.options.db = db.string();
    p.db_copy = db_copy;
    spec.systems.emplace_back(std::move(p));
    return spec;
  }

  fs::path dir_;
  fs::path tmp_;
  std::string old_tmpdir_;
};

TEST_F(FileCopies, AProcessIsKnownByItsPidAndStartTime) {
  const ProcessIdentity self = this_process();
  EXPECT_EQ(self.pid, static_cast<long>(::getpid()));
  ASSERT_TRUE(start_time_of(self.pid).has_value());
  EXPECT_EQ(*start_time_of(self.pid), self.start_time);
  EXPECT_GT(self.start_time, 0u);
  EXPECT_FALSE(start_time_of(impossible_pid()).has_value());
  EXPECT_FALSE(self.boot_id.empty());
  EXPECT_EQ(self.pid_namespace.rfind("pid:[", 0), 0u) << self.pid_namespace;
}

TEST_F(FileCopies, TheOwnerFileNamesTheProcess) {
  const fs::path d = tmp_ / "prowl-copy1-abcdef";
  fs::create_directory(d);
  ProcessIdentity owner{42, 12345, "boot-id", "pid:[7]"};
  ASSERT_TRUE(write_owner(d, owner).is_ok());
  EXPECT_EQ(read(d / "owner"), "pid 42\nstart 12345\nboot boot-id\npidns pid:[7]\n");
  EXPECT_EQ(entries(d), std::vector<std::string>{"owner"});
}

TEST_F(FileCopies, OnlyTheCopiesOfProcessesThatAreGoneAreRemoved) {
  const ProcessIdentity self = this_process();
  ProcessIdentity dead = self;
  dead.pid = impossible_pid();
  ProcessIdentity recycled = self;  // this pid, but another process had it before
  recycled.start_time = self.start_time + 1;
  ProcessIdentity earlier_boot = self;
  earlier_boot.boot_id = "an-earlier-boot";
  ProcessIdentity elsewhere = dead;  // a pid of another pid namespace: cannot be checked
  elsewhere.pid_namespace = "pid:[1]";

  owned("prowl-copy1-dead00", dead);
  owned("prowl-copy1-live00", self);
  owned("prowl-copy12-recycl", recycled);
  owned("prowl-copy1-reboot", earlier_boot);
  owned("prowl-copy1-elsewh", elsewhere);
  // Without an owner file: being made right now, or by an older prowl. Kept for an hour.
  fs::create_directory(tmp_ / "prowl-copy1-young0");
  fs::create_directory(tmp_ / "prowl-copy1-old000");
  fs::last_write_time(tmp_ / "prowl-copy1-old000",
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  const fs::path garbled = tmp_ / "prowl-copy1-garble";
  fs::create_directory(garbled);
  write(garbled / "owner", "pid x\n");
  // Not copy directories of this user: never touched.
  owned("prowl-demo-dead00", dead);
  owned("prowl-copyX-dead00", dead);
  owned("prowl-copy1-", dead);
  write(tmp_ / "prowl-copy3-file00", "a file");
  const fs::path elsewhere_dir = owned("../linked", dead);
  fs::create_directory_symlink(elsewhere_dir, tmp_ / "prowl-copy1-link00");

  EXPECT_EQ(remove_stale_copies(tmp_),
            (std::vector<std::string>{"prowl-copy1-dead00", "prowl-copy1-old000",
                                      "prowl-copy1-reboot", "prowl-copy12-recycl"}));
  EXPECT_EQ(entries(tmp_), (std::vector<std::string>{
                               "prowl-copy1-", "prowl-copy1-elsewh", "prowl-copy1-garble",
                               "prowl-copy1-link00", "prowl-copy1-live00", "prowl-copy1-young0",
                               "prowl-copy3-file00", "prowl-copyX-dead00", "prowl-demo-dead00"}));
  EXPECT_EQ(entries(elsewhere_dir), (std::vector<std::string>{"0-shop.db", "owner"}));
  EXPECT_EQ(read(tmp_ / "prowl-copy1-live00" / "0-shop.db"), "pages");
  // With no grace at all, the ownerless ones go too; the live one stays.
  EXPECT_EQ(remove_stale_copies(tmp_, std::chrono::seconds(-1)),
            (std::vector<std::string>{"prowl-copy1-garble", "prowl-copy1-young0"}));
}

TEST_F(FileCopies, AnotherUsersCopyIsNeverTouched) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  ProcessIdentity dead = this_process();
  dead.pid = impossible_pid();
  const fs::path d = owned("prowl-copy1-theirs", dead);
  ASSERT_EQ(::chown(d.c_str(), 65534, 65534), 0);
  EXPECT_EQ(remove_stale_copies(tmp_), std::vector<std::string>{});
  EXPECT_EQ(entries(tmp_), std::vector<std::string>{"prowl-copy1-theirs"});
}

TEST_F(FileCopies, DbCopyGivesCopyZeroAPrivateCopyRemovedWithTheWorld) {
  const fs::path user = dir_ / "shop.db";
  write(user, "the user's pages");
  write(user.string() + "-wal", "the user's log");
  const auto mtime = fs::last_write_time(user);
  auto privates = std::make_shared<PrivateCopies>();
  std::string copy;
  {
    World world;
    auto placed = place_files(model(user, true), 0, world, privates);
    ASSERT_TRUE(placed.is_ok()) << placed.status().message();
    ASSERT_EQ(placed->size(), 1u);
    EXPECT_EQ((*placed)[0].first, user.string());
    copy = (*placed)[0].second;
    const fs::path copy_dir = fs::path(copy).parent_path();
    EXPECT_EQ(copy_dir.parent_path(), tmp_);
    EXPECT_EQ(copy_dir.filename().string().rfind("prowl-copy0-", 0), 0u) << copy;
    EXPECT_EQ(fs::path(copy).filename(), "0-shop.db");
    EXPECT_EQ(entries(copy_dir), (std::vector<std::string>{"0-shop.db", "0-shop.db-wal", "owner"}));
    EXPECT_EQ(read(copy), "the user's pages");
    EXPECT_EQ(read(copy + "-wal"), "the user's log");
    const ProcessIdentity self = this_process();
    EXPECT_EQ(read(copy_dir / "owner"), "pid " + std::to_string(self.pid) + "\nstart " +
                                            std::to_string(self.start_time) + "\nboot " +
                                            self.boot_id + "\npidns " + self.pid_namespace + "\n");
    EXPECT_EQ(privates->find(user.string()), copy);
    // What the service writes goes to the copy.
    write(copy, "changed by the service");
  }
  EXPECT_EQ(entries(tmp_), std::vector<std::string>{});
  EXPECT_EQ(privates->find(user.string()), "");
  EXPECT_EQ(read(user), "the user's pages");
  EXPECT_EQ(fs::last_write_time(user), mtime);
}

TEST_F(FileCopies, DbCopyOfAFileThatDoesNotExistLeavesItToTheService) {
  const fs::path user = dir_ / "new.db";
  auto privates = std::make_shared<PrivateCopies>();
  {
    World world;
    auto placed = place_files(model(user, true), 0, world, privates);
    ASSERT_TRUE(placed.is_ok()) << placed.status().message();
    ASSERT_EQ(placed->size(), 1u);
    EXPECT_FALSE(fs::exists((*placed)[0].second));
    EXPECT_EQ(entries(fs::path((*placed)[0].second).parent_path()),
              std::vector<std::string>{"owner"});
  }
  EXPECT_FALSE(fs::exists(user));
  EXPECT_EQ(entries(tmp_), std::vector<std::string>{});
}

TEST_F(FileCopies, WithoutDbCopyCopyZeroWorksOnTheUsersFile) {
  const fs::path user = dir_ / "shop.db";
  write(user, "pages");
  World world;
  auto placed = place_files(model(user, false), 0, world, std::make_shared<PrivateCopies>());
  ASSERT_TRUE(placed.is_ok()) << placed.status().message();
  EXPECT_TRUE(placed->empty());
  EXPECT_EQ(entries(tmp_), std::vector<std::string>{});
}

TEST_F(FileCopies, AWorkersCopyStartsFromCopyZerosPrivateCopy) {
  const fs::path user = dir_ / "shop.db";
  write(user, "the user's pages");
  auto privates = std::make_shared<PrivateCopies>();
  const ModelSpec spec = model(user, true);
  World world0;
  auto zero = place_files(spec, 0, world0, privates);
  ASSERT_TRUE(zero.is_ok()) << zero.status().message();
  write((*zero)[0].second, "initialised by copy 0's service");
  {
    World world1;
    auto one = place_files(spec, 1, world1, privates);
    ASSERT_TRUE(one.is_ok()) << one.status().message();
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ(fs::path((*one)[0].second).parent_path().filename().string().rfind("prowl-copy1-", 0),
              0u);
    EXPECT_EQ(read((*one)[0].second), "initialised by copy 0's service");
  }
  // Without a copy 0 (it is gone), a worker's copy is taken from the user's file.
  privates->remove((*zero)[0].second);
  World world2;
  auto two = place_files(spec, 2, world2, privates);
  ASSERT_TRUE(two.is_ok()) << two.status().message();
  EXPECT_EQ(read((*two)[0].second), "the user's pages");
}

TEST_F(FileCopies, MakingACopyDirectoryRemovesTheStaleOnesFirst) {
  ProcessIdentity dead = this_process();
  dead.pid = impossible_pid();
  owned("prowl-copy1-killed", dead);
  const fs::path user = dir_ / "shop.db";
  write(user, "pages");
  World world;
  auto placed = place_files(model(user, false), 1, world, std::make_shared<PrivateCopies>());
  ASSERT_TRUE(placed.is_ok()) << placed.status().message();
  const std::vector<std::string> left = entries(tmp_);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0], fs::path((*placed)[0].second).parent_path().filename().string());
}

TEST(DbCopy, NeedsTheFileToCopy) {
  auto spec = parse_model(
      "base_url: http://127.0.0.1:{port}\n"
      "systems:\n"
      "  - type: process\n"
      "    command: [./shop]\n"
      "    db_copy: true\n"
      "actions:\n"
      "  - {name: a, path: /a}\n",
      "m.yaml", "/models");
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().message(),
            "m.yaml:5:14: system 'service': db_copy needs the file to copy in db:\n"
            "  hint: for example db: data/shop.db, with --db \"{db}\" in the command");
}

TEST(DbCopy, IsReadFromTheProcessSystem) {
  auto spec = parse_model(
      "base_url: http://127.0.0.1:{port}\n"
      "systems:\n"
      "  - {type: process, command: [./shop], db: shop.db, db_copy: true}\n"
      "  - {type: process, name: other, command: [./other], port: 9, db: other.db}\n"
      "  - {type: sqlite, path: other.db}\n"
      "actions:\n"
      "  - {name: a, path: /a}\n",
      "m.yaml", "/models");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  EXPECT_TRUE(std::get<ProcessSpec>(spec->systems[0]).db_copy);
  EXPECT_EQ(std::get<ProcessSpec>(spec->systems[0]).options.db, "/models/shop.db");
  EXPECT_FALSE(std::get<ProcessSpec>(spec->systems[1]).db_copy);
}

}  // namespace
}  // namespace prowl::modelfile::detail
