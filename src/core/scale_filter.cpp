#include "core/scale_filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>

#include "core/error.h"

// Sources: FFmpeg 5.1 libswscale/utils.c (initFilter, sws_init_single_context) and swscale.h. The
// steps below follow its order of operations exactly, in the same integer and double types,
// because each rounding and truncation shows in the weights.
namespace vqx {
namespace {

// Weights above this share of the total are kept when trimming near-zero taps off a filter
// (SWS_MAX_REDUCE_CUTOFF).
constexpr double kTrimCutoff = 0.002;

// libswscale gives up on one-step scaling at this many taps with SWS_ACCURATE_RND on x86-64
// (MAX_FILTER_SIZE * 16 / APCK_SIZE = 256 * 16 / 24, rounded down).
constexpr uint32_t kMaxTaps = 170;

// Half-width of each kernel in input samples at unit scale (libswscale's size factors).
int kernel_reach(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::kBicubic:
      return 4;
    case ScaleMode::kBilinear:
      return 2;
    case ScaleMode::kLanczos:
      return 6;
    case ScaleMode::kSpline:
      return 20;
    case ScaleMode::kNeighbor:
      return 1;
  }
  return 1;
}

// libswscale's "bicubic spline" piece by piece: past distance 1 the cubic is re-expanded around
// the next integer with the same recurrence, in double, in this order.
double spline_value(double a, double b, double c, double d, double x) {
  while (x > 1.0) {
    double next_b = b + 2.0 * c + 3.0 * d;
    double next_c = c + 3.0 * d;
    double next_d = -b - 3.0 * c - 6.0 * d;
    a = 0.0;
    b = next_b;
    c = next_c;
    d = next_d;
    x = x - 1.0;
  }
  return ((d * x + c) * x + b) * x + a;
}

// The kernel at distance `d` (in units of 2^-30 input samples, already stretched for reductions),
// scaled so that 1.0 is `unit`.
int64_t kernel_weight(ScaleMode mode, int64_t d, int64_t unit) {
  const double x = double(d) * (1.0 / (1 << 30));
  switch (mode) {
    case ScaleMode::kBicubic: {
      // Mitchell-Netravali with libswscale's defaults B = 0, C = 0.6, in 24-bit fixed point.
      constexpr int64_t kOne = int64_t{1} << 24;
      constexpr int64_t B = 0;
      const int64_t C = int64_t(0.6 * double(kOne));
      if (d >= int64_t{1} << 31) return 0;
      const int64_t dd = (d * d) >> 30;
      const int64_t ddd = (dd * d) >> 30;
      int64_t w;
      if (d < int64_t{1} << 30)
        w = (12 * kOne - 9 * B - 6 * C) * ddd + (-18 * kOne + 12 * B + 6 * C) * dd +
            (6 * kOne - 2 * B) * (int64_t{1} << 30);
      else
        w = (-B - 6 * C) * ddd + (6 * B + 30 * C) * dd + (-12 * B - 48 * C) * d +
            (8 * B + 24 * C) * (int64_t{1} << 30);
      return w / ((int64_t{1} << 54) / unit);
    }
    case ScaleMode::kBilinear:
      return std::max<int64_t>((int64_t{1} << 30) - d, 0) * (unit >> 30);
    case ScaleMode::kLanczos: {
      constexpr double kLobes = 3.0;
      constexpr double kPi = std::numbers::pi;
      if (x > kLobes) return 0;
      double w =
          d ? std::sin(x * kPi) * std::sin(x * kPi / kLobes) / (x * x * kPi * kPi / kLobes) : 1.0;
      return int64_t(w * double(unit));
    }
    case ScaleMode::kSpline: {
      constexpr double p = -2.196152422706632;
      return int64_t(spline_value(1.0, 0.0, p, -p - 1.0, x) * double(unit));
    }
    case ScaleMode::kNeighbor:
      break;
  }
  return 0;
}

// libswscale's ROUNDED_DIV: to nearest, halves away from zero.
int64_t rounded_div(int64_t a, int64_t b) { return (a >= 0 ? a + (b >> 1) : a - (b >> 1)) / b; }

int floor_log2(int64_t v) {
  int n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

// Unnormalised weights (in units of `unit`) before trimming: `taps` per output sample.
struct RawFilter {
  int taps = 0;
  std::vector<int32_t> first;
  std::vector<int64_t> weights;
};

// `step` is the input distance between outputs in 16.16 fixed point (libswscale's xInc).
RawFilter raw_filter(int in, int out, int64_t step, ScaleMode mode, int64_t unit) {
  RawFilter f;
  f.first.resize(out);
  if (std::llabs(step - 0x10000) < 10) {  // libswscale's "unscaled": a copy
    f.taps = 1;
    f.weights.assign(out, unit);
    for (int i = 0; i < out; ++i) f.first[i] = i;
    return f;
  }
  if (mode == ScaleMode::kNeighbor) {
    // Centre of output i in 16.16 input coordinates, rounded to the nearest input sample.
    f.taps = 1;
    f.weights.assign(out, unit);
    int64_t centre = (step >> 1) - 0x8000;
    for (int i = 0; i < out; ++i, centre += step) f.first[i] = int32_t((centre + (1 << 15)) >> 16);
    return f;
  }
  const bool reduce = step > (1 << 16);
  const int reach = kernel_reach(mode);
  f.taps = reduce ? 1 + (reach * in + out - 1) / out : 1 + reach;
  f.taps = std::max(std::min(f.taps, in - 2), 1);
  f.weights.resize(size_t(out) * f.taps);
  // Centre of output i in input coordinates with 17 fractional bits: (2i + 1) * step - 2^16.
  int64_t centre = step - 0x10000;
  for (int i = 0; i < out; ++i, centre += 2 * step) {
    // C division truncates toward zero, also for the negative centres near the left edge.
    int32_t x = int32_t((centre - (f.taps - 2) * (int64_t{1} << 16)) / (1 << 17));
    f.first[i] = x;
    for (int t = 0; t < f.taps; ++t, ++x) {
      int64_t d = std::llabs(int64_t{x} * (1 << 17) - centre) << 13;
      if (reduce) d = d * out / in;
      f.weights[size_t(i) * f.taps + t] = kernel_weight(mode, d, unit);
    }
  }
  return f;
}

// Drops near-zero leading taps (moving `first`) while the starts stay increasing, and returns the
// largest count of taps any output still needs once near-zero trailing taps are dropped too.
int trim(RawFilter& f, int64_t unit) {
  const double cutoff = kTrimCutoff * double(unit);
  const int n = int(f.first.size());
  int needed = 0;
  for (int i = n - 1; i >= 0; --i) {
    int64_t* w = f.weights.data() + size_t(i) * f.taps;
    int64_t dropped = 0;
    for (int t = 0; t < f.taps; ++t) {
      dropped += std::llabs(w[0]);
      if (double(dropped) > cutoff) break;
      if (i < n - 1 && f.first[i] >= f.first[i + 1]) break;
      std::copy(w + 1, w + f.taps, w);
      w[f.taps - 1] = 0;
      ++f.first[i];
    }
    int kept = f.taps;
    dropped = 0;
    for (int t = f.taps - 1; t > 0; --t) {
      dropped += std::llabs(w[t]);
      if (double(dropped) > cutoff) break;
      --kept;
    }
    needed = std::max(needed, kept);
  }
  return needed;
}

// Moves taps that fall outside [0, in) onto the edge samples.
void fold_edges(int64_t* w, int32_t& first, int taps, int in) {
  if (first < 0) {
    for (int t = 1; t < taps; ++t) {
      int onto = std::max(t + first, 0);
      w[onto] += w[t];
      w[t] = 0;
    }
    first = 0;
  }
  if (first + taps > in) {
    int shift = first + std::min(taps - in, 0);
    int64_t beyond = 0;
    for (int t = taps - 1; t >= 0; --t)
      if (first + t >= in) {
        beyond += w[t];
        w[t] = 0;
      }
    for (int t = taps - 1; t >= 0; --t) w[t] = t < shift ? 0 : w[t - shift];
    first -= shift;
    w[in - 1 - first] += beyond;
  }
}

}  // namespace

const char* to_string(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::kBicubic:
      return "bicubic";
    case ScaleMode::kBilinear:
      return "bilinear";
    case ScaleMode::kLanczos:
      return "lanczos";
    case ScaleMode::kSpline:
      return "spline";
    case ScaleMode::kNeighbor:
      return "neighbor";
  }
  return "?";
}

std::optional<ScaleMode> parse_scale_mode(std::string_view name) {
  for (ScaleMode m : {ScaleMode::kBicubic, ScaleMode::kBilinear, ScaleMode::kLanczos,
                      ScaleMode::kSpline, ScaleMode::kNeighbor})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

ScaleFilter build_scale_filter(uint32_t in_size, uint32_t out_size, ScaleMode mode,
                               ScaleAxis axis) {
  const int in = int(in_size), out = int(out_size);
  const bool horizontal = axis == ScaleAxis::kHorizontal;
  const int64_t one = horizontal ? 1 << 14 : 1 << 12;
  int align = horizontal ? 4 : 2;
  const int64_t step = ((int64_t{in} << 16) + (out >> 1)) / out;
  if (step > INT32_MAX)
    throw InputError(
        fmt::format("cannot scale {} samples to {}: the reduction is too large", in, out));
  // Raw weights use 54 fractional bits, fewer for large reductions so that sums cannot overflow.
  const int64_t unit = int64_t{1} << (54 - std::min(floor_log2(in / out), 8));

  RawFilter raw = raw_filter(in, out, step, mode, unit);
  const int needed = trim(raw, unit);
  if (needed == 1 && align == 2) align = 1;  // a one-tap vertical filter is not padded
  const int taps = (needed + align - 1) & ~(align - 1);
  if (uint32_t(taps) >= kMaxTaps)
    throw InputError(
        fmt::format("cannot scale {} samples to {} with {}: libswscale would scale in two steps",
                    in, out, to_string(mode)));

  ScaleFilter f;
  f.taps = uint32_t(taps);
  f.first = raw.first;
  f.weights.resize(size_t(out) * taps);
  std::vector<int64_t> w(taps);
  for (int i = 0; i < out; ++i) {
    // SWS_BITEXACT: taps past the largest needed count are zero for every output.
    for (int t = 0; t < taps; ++t)
      w[t] = t < raw.taps && t < needed ? raw.weights[size_t(i) * raw.taps + t] : 0;
    fold_edges(w.data(), f.first[i], taps, in);
    // Normalise to `one`, carrying each rounding error into the next tap.
    int64_t sum = 0;
    for (int64_t v : w) sum += v;
    sum = (sum + one / 2) / one;
    if (sum == 0) sum = 1;
    int64_t error = 0;
    for (int t = 0; t < taps; ++t) {
      int64_t v = w[t] + error;
      int64_t q = rounded_div(v, sum);
      f.weights[size_t(i) * taps + t] = int16_t(q);
      error = v - q * sum;
    }
  }
  return f;
}

std::vector<PlaneFilters> build_plane_filters(const PictureFormat& in, const PictureFormat& out,
                                              ScaleMode mode) {
  if (in.color != ColorModel::kYCbCr)
    throw InputError("--scale applies to Y'CbCr pictures, not RGB");
  if (in.subsampling != out.subsampling || in.bit_depth != out.bit_depth)
    throw InputError(fmt::format("cannot scale {} pictures to {}: the layouts differ",
                                 in.describe(), out.describe()));
  const unsigned d = in.bit_depth;
  if (d != 8 && d != 9 && d != 10 && d != 12 && d != 14 && d != 16)
    throw InputError(
        fmt::format("cannot scale {}-bit pictures (libswscale has 8, 9, 10, 12, 14 "
                    "and 16-bit planar Y'CbCr)",
                    d));
  std::vector<PlaneFilters> filters;
  for (unsigned p = 0; p < in.plane_count(); ++p) {
    if (p == 2) {  // Cr is sized and sited as Cb
      filters.push_back(filters[1]);
      continue;
    }
    filters.push_back(
        {build_scale_filter(in.plane_width(p), out.plane_width(p), mode, ScaleAxis::kHorizontal),
         build_scale_filter(in.plane_height(p), out.plane_height(p), mode, ScaleAxis::kVertical)});
  }
  return filters;
}

}  // namespace vqx
