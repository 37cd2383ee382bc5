// Redaction of secret values, shared by ProcessSystem and HttpClient.
#include "systems/secrets.hpp"

#include <gtest/gtest.h>

namespace prowl {
namespace {

using detail::longest_first;
using detail::redact_secrets;

TEST(Secrets, OrdersSecretsLongestFirstWithoutEmptyOrRepeatedOnes) {
  EXPECT_EQ(longest_first({"pass", "", "passphrase", "pass", "zz", "aa"}),
            (std::vector<std::string>{"passphrase", "pass", "aa", "zz"}));
}

TEST(Secrets, ReplacesEveryOccurrenceTheLongestWhole) {
  const auto secrets = longest_first({"pass", "passphrase"});
  EXPECT_EQ(redact_secrets("passphrase=pass; passpass", secrets),
            "[REDACTED]=[REDACTED]; [REDACTED][REDACTED]");
  EXPECT_EQ(redact_secrets("nothing here", secrets), "nothing here");
  EXPECT_EQ(redact_secrets("", secrets), "");
  EXPECT_EQ(redact_secrets("pass", {}), "pass");
}

TEST(Secrets, DoesNotSearchTheTextItInserts) {
  // "RED" would match inside "[REDACTED]" if the replacement were searched again.
  EXPECT_EQ(redact_secrets("token RED", longest_first({"token", "RED"})), "[REDACTED] [REDACTED]");
}

}  // namespace
}  // namespace prowl
