#!/usr/bin/env python3
# heavy_cc.py OUT [regex]: a C++ file whose -O2 compile keeps clang++ in
# libLLVM and libclang-cpp for seconds (templates of the standard
# library, deep call chains): the benchmarks' large real program.  With
# "regex", 24 functions that also build std::regex (ui_latency.sh's),
# else 40 that also use unordered_map and std::function.
import sys

regex = len(sys.argv) > 2 and sys.argv[2] == "regex"
headers = ["map", "vector", "string", "algorithm", "sstream", "functional", "unordered_map"]
out = ["#include <%s>\n" % h for h in headers + (["regex"] if regex else [])]
for i in range(24 if regex else 40):
    if regex:
        body = """int f%d(int n) { std::vector<S%d> v; std::map<std::string, S%d> m; std::regex r("[a-z]+%d");
  for (int k = 0; k < n; k++) { v.push_back({k, std::to_string(k)}); m[std::to_string(k)] = v.back(); }
  std::sort(v.begin(), v.end()); std::ostringstream os; for (auto &e : m) os << e.first;
  return (int)os.str().size() + (int)std::regex_match(os.str(), r); }
""" % ((i,) * 4)
    else:
        body = """int f%d(int n) { std::vector<S%d> v; std::map<std::string, S%d> m; std::unordered_map<int, S%d> u;
  for (int k = 0; k < n; k++) { v.push_back({k, std::to_string(k)}); m[v.back().b] = v.back(); u[k] = v.back(); }
  std::sort(v.begin(), v.end()); std::ostringstream os; for (auto &e : m) os << e.first;
  std::function<int(int)> g = [&](int x) { return x + (int)u.size(); }; return (int)os.str().size() + g(n); }
""" % ((i,) * 4)
    out.append("struct S%d { int a; std::string b; bool operator<(const S%d &o) const "
               "{ return a < o.a; } };\n" % (i, i) + body)
if regex:
    out.append("int main() { int s = 0;\n%s return s; }\n" % "".join(" s += f%d(3);\n" % i for i in range(24)))
open(sys.argv[1], "w").write("".join(out))
