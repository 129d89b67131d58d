// ADBench LSTM files (data/adbench/lstm, format in data/adbench/FORMAT.md) and the
// diagonal LSTM objective written directly as loops (docs/design/anchors-ad.md §2): the
// baselines of bench_lstm. The loops are a template so that ADOL-C's adouble tapes them.
#pragma once
#include <cmath>
#include <string>
#include <vector>

namespace rml::adbench {

struct LstmInput {
  int l = 0, c = 0, b = 0;
  std::vector<double> main, extra, state, seq;  // 2l x 4b, 3 x b, 2l x b, c x b (row-major)
  size_t num_params() const { return main.size() + extra.size(); }
};

// Reads FILE (l c b, then the blocks); throws std::runtime_error naming the file.
LstmInput read_lstm(const std::string &path);

// The objective: for t < c - 1, the layers' gates (forget and outgate from the layer's
// input, ingate and change from its previous hidden state), the prediction
// y = h * out_weight + out_bias, and -(1 / ((c - 1) b)) sum_t sum_i gold_(t+1),i (y_i -
// log(sum exp y + 2)). `params` is main then extra (the gradient's order).
template <class T>
T lstm_objective_loops(const LstmInput &in, const T *params) {
  using std::exp;
  using std::log;
  using std::tanh;
  const int l = in.l, b = in.b;
  const T *main = params, *extra = params + in.main.size();
  auto sig = [](const T &x) { return T(1.0) / (T(1.0) + exp(-x)); };
  std::vector<T> h(static_cast<size_t>(l * b)), c(static_cast<size_t>(l * b)), x(static_cast<size_t>(b)),
      y(static_cast<size_t>(b));
  for (int k = 0; k < l; ++k)
    for (int i = 0; i < b; ++i) {
      h[k * b + i] = in.state[(2 * k) * b + i];
      c[k * b + i] = in.state[(2 * k + 1) * b + i];
    }
  T total = 0.0;
  for (int t = 0; t + 1 < in.c; ++t) {
    for (int i = 0; i < b; ++i) x[i] = in.seq[t * b + i] * extra[i];
    for (int k = 0; k < l; ++k) {
      const T *w = main + (2 * k) * 4 * b, *bias = main + (2 * k + 1) * 4 * b;
      T *hk = &h[k * b], *ck = &c[k * b];
      for (int i = 0; i < b; ++i) {
        T forget = sig(x[i] * w[i] + bias[i]);
        T ingate = sig(hk[i] * w[b + i] + bias[b + i]);
        T outgate = sig(x[i] * w[2 * b + i] + bias[2 * b + i]);
        T change = tanh(hk[i] * w[3 * b + i] + bias[3 * b + i]);
        ck[i] = ck[i] * forget + ingate * change;
        hk[i] = outgate * tanh(ck[i]);
      }
      for (int i = 0; i < b; ++i) x[i] = hk[i];
    }
    T se = 0.0;
    for (int i = 0; i < b; ++i) {
      y[i] = x[i] * extra[b + i] + extra[2 * b + i];
      se += exp(y[i]);
    }
    T lse = log(se + 2.0);
    for (int i = 0; i < b; ++i) total += in.seq[(t + 1) * b + i] * (y[i] - lse);
  }
  return -total / static_cast<double>((in.c - 1) * b);
}

}  // namespace rml::adbench
