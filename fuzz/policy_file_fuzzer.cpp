// libFuzzer target for policy files (prowl-policy 1, prowl/learn/policy_file.hpp): the trained
// networks learned searches save and load. Any bytes may come in: the reader must answer with a
// Status naming the file and line for what it cannot use, never crash, throw or allocate what the
// text only claims; a file it reads writes back to text that reads to the same network.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "prowl/learn/policy_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = prowl::learn::parse_policy(text, "fuzz.policy");
  if (!policy) {
    if (policy.status().message().rfind("fuzz.policy:", 0) != 0) {
      std::fprintf(stderr, "%s\n", policy.status().message().c_str());
      std::fprintf(stderr, "policy_file_fuzzer: an error that does not name the file\n");
      std::abort();
    }
    return 0;
  }
  const std::string written = prowl::learn::write_policy(*policy);
  auto again = prowl::learn::parse_policy(written, "written.policy");
  if (!again || prowl::learn::write_policy(*again) != written) {
    std::fprintf(stderr, "policy_file_fuzzer: a policy it read does not read back the same\n");
    std::abort();
  }
  return 0;
}
