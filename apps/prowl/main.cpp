#include <cstdio>

int main() {
  std::puts("prowl");
  return 0;
}
