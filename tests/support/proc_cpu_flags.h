#pragma once
// The CPU's feature flags as the kernel reports them (/proc/cpuinfo), read
// independently of the program's own cpuid checks; empty where there is none.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace attn::test {

inline std::set<std::string> procCpuFlags() {
  std::ifstream f("/proc/cpuinfo");
  std::set<std::string> flags;
  for (std::string line; std::getline(f, line);)
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string w; words >> w;) flags.insert(w);
      break;
    }
  return flags;
}

}  // namespace attn::test
