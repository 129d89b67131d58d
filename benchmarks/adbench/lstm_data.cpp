#include "lstm_data.hpp"

#include <fstream>
#include <stdexcept>

namespace rml::adbench {

LstmInput read_lstm(const std::string &path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open");
  LstmInput in;
  if (!(f >> in.l >> in.c >> in.b) || in.l < 1 || in.l > 64 || in.c < 2 || in.c > 1000000 || in.b < 1 || in.b > 4096)
    throw std::runtime_error(path + ": not an ADBench LSTM file (header 'l c b')");
  auto rows = [&](std::vector<double> &v, size_t n, const char *what) {
    v.resize(n);
    for (auto &x : v)
      if (!(f >> x)) throw std::runtime_error(path + ": too few numbers in " + what);
  };
  const size_t l = static_cast<size_t>(in.l), b = static_cast<size_t>(in.b), c = static_cast<size_t>(in.c);
  rows(in.main, 8 * l * b, "main_params");
  rows(in.extra, 3 * b, "extra_params");
  rows(in.state, 2 * l * b, "state");
  rows(in.seq, c * b, "sequence");
  double extra;
  if (f >> extra) throw std::runtime_error(path + ": more numbers than l c b say");
  return in;
}

}  // namespace rml::adbench
