// cxx [SECONDS]: spends SECONDS of CPU (default 0.5) in two instances of a
// class template in nested namespaces:
//   bench::detail::Accumulator<double>::run(int)
//   bench::detail::Accumulator<long>::run(int)
#include "workload.h"

namespace bench {
namespace detail {

template <typename T>
class Accumulator {
public:
  explicit Accumulator(T step) : step_(step), sink_(0) {}
  WL_HOT T run(int n);

private:
  T step_;
  volatile T sink_;
};

template <typename T>
T Accumulator<T>::run(int n)
{
  T acc = 0;
  for(int i = 0; i < n; i++)
    acc = acc * T(3) / T(4) + step_;
  sink_ = acc;
  return acc;
}

} // namespace detail
} // namespace bench

int main(int argc, char **argv)
{
  double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.5);
  bench::detail::Accumulator<double> d(1.5);
  bench::detail::Accumulator<long> l(7);
  do {
    d.run(WL_CHUNK / 4);
    l.run(WL_CHUNK / 4);
  } while(wl_thread_cpu() < end);
  return 0;
}
