// The refund example as a program: `refund --help` lists the flags (see prowl/cli/run_main.hpp).
#include "prowl/cli/run_main.hpp"
#include "refund.hpp"

int main(int argc, char** argv) {
  prowl::MainSettings settings;
  settings.description =
      "Explores a small shop whose checkout charges at once and whose orders can be refunded or\n"
      "cancelled. Seeded bug: refund() refuses only cancelled orders, so an order can be refunded\n"
      "twice (create_order -> refund -> refund).";
  return prowl::run_main(examples::make_refund_model(), argc, argv, std::move(settings));
}
