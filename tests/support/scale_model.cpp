#include "support/scale_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/scale_rounding.h"
#include "io/readers.h"
#include "io/scaler.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

template <typename Sample>
void scale_plane(const Sample* in, uint32_t in_w, uint32_t in_h, Sample* out, uint32_t out_w,
                 uint32_t out_h, const PlaneFilters& f, unsigned depth) {
  // Horizontal pass over every input row into 32-bit intermediates (libswscale keeps 15 bits in
  // int16_t or 19 bits in int32_t; the values are the same).
  std::vector<int32_t> rows(size_t(in_h) * out_w);
  const ScaleFilter& h = f.horizontal;
  for (uint32_t y = 0; y < in_h; ++y)
    for (uint32_t x = 0; x < out_w; ++x) {
      const Sample* s = in + size_t(y) * in_w + h.first[x];
      const int16_t* w = h.weights.data() + size_t(x) * h.taps;
      uint32_t sum = 0;
      for (uint32_t t = 0; t < h.taps; ++t) sum += uint32_t(s[t]) * uint32_t(int32_t(w[t]));
      int32_t v = scale::finish_horizontal(int32_t(sum), depth);
      // libswscale stores the 15-bit intermediate as int16_t.
      rows[size_t(y) * out_w + x] = scale::wide_intermediate(depth) ? v : int16_t(v);
    }
  const ScaleFilter& v = f.vertical;
  for (uint32_t y = 0; y < out_h; ++y) {
    const int32_t* r = rows.data() + size_t(v.first[y]) * out_w;
    const int16_t* w = v.weights.data() + size_t(y) * v.taps;
    for (uint32_t x = 0; x < out_w; ++x) {
      uint32_t value;
      if (v.taps == 1) {
        value = scale::vertical_single(r[x], depth);
      } else {
        uint32_t sum = scale::vertical_start(depth);
        for (uint32_t t = 0; t < v.taps; ++t)
          sum += uint32_t(r[size_t(t) * out_w + x]) * uint32_t(int32_t(w[t]));
        value = scale::vertical_finish(sum, depth);
      }
      out[size_t(y) * out_w + x] = Sample(value);
    }
  }
}

}  // namespace

void scale_with_model(const Picture& in, Picture& out, ScaleMode mode) {
  const PictureFormat& fi = in.format();
  const PictureFormat& fo = out.format();
  std::vector<PlaneFilters> filters = build_plane_filters(fi, fo, mode);
  for (unsigned p = 0; p < fi.plane_count(); ++p) {
    if (fi.bytes_per_sample() == 1)
      scale_plane(in.plane<uint8_t>(p), fi.plane_width(p), fi.plane_height(p),
                  out.plane<uint8_t>(p), fo.plane_width(p), fo.plane_height(p), filters[p],
                  fi.bit_depth);
    else
      scale_plane(in.plane<uint16_t>(p), fi.plane_width(p), fi.plane_height(p),
                  out.plane<uint16_t>(p), fo.plane_width(p), fo.plane_height(p), filters[p],
                  fi.bit_depth);
  }
}

void scale_with_libswscale(const Picture& in, Picture& out, ScaleMode mode) {
  PictureScaler(in.format(), out.format().width, out.format().height, mode).scale(in, out);
}

Picture scale_test_picture(const PictureFormat& f, uint32_t seed) {
  Picture p(f);
  std::mt19937 rng(seed);
  const uint32_t top = (1u << f.bit_depth) - 1;
  for (unsigned plane = 0; plane < f.plane_count(); ++plane) {
    const uint32_t w = f.plane_width(plane), h = f.plane_height(plane);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        uint32_t v;
        if (y < h / 3)
          v = rng() % (top + 1);
        else if (y < 2 * h / 3)
          v = ((x / (1 + plane)) + y) % 2 ? top : 0;
        else
          v = uint32_t(uint64_t(top) * (x + y) / (w + h));
        if (f.bytes_per_sample() == 1)
          p.plane<uint8_t>(plane)[size_t(y) * w + x] = uint8_t(v);
        else
          p.plane<uint16_t>(plane)[size_t(y) * w + x] = uint16_t(v);
      }
  }
  return p;
}

void expect_same_samples(const Picture& actual, const Picture& expected, const std::string& label) {
  const PictureFormat& f = actual.format();
  for (unsigned p = 0; p < f.plane_count(); ++p) {
    const uint32_t w = f.plane_width(p), h = f.plane_height(p);
    size_t mismatches = 0;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        size_t i = size_t(y) * w + x;
        uint32_t a =
            f.bytes_per_sample() == 1 ? actual.plane<uint8_t>(p)[i] : actual.plane<uint16_t>(p)[i];
        uint32_t b = f.bytes_per_sample() == 1 ? expected.plane<uint8_t>(p)[i]
                                               : expected.plane<uint16_t>(p)[i];
        if (a != b && ++mismatches <= 3)
          ADD_FAILURE() << fmt::format("{} plane {} ({}, {}): {} where libswscale has {}", label, p,
                                       x, y, a, b);
      }
    if (mismatches) FAIL() << label << " plane " << p << ": " << mismatches << " samples differ";
  }
}

const std::vector<ScaleCase>& scale_cases() {
  static const std::vector<ScaleCase> cases = {
      // Ladder rungs up to the reference, 8 and 10-bit.
      {make_format(1280, 720, ChromaSubsampling::k420, 8), 1920, 1080},
      {make_format(960, 540, ChromaSubsampling::k420, 10), 1920, 1080},
      {make_format(640, 360, ChromaSubsampling::k420, 8), 1920, 1080},
      {make_format(853, 481, ChromaSubsampling::k444, 8), 1280, 721},
      {make_format(33, 17, ChromaSubsampling::k420, 8), 101, 55},
      {make_format(3, 5, ChromaSubsampling::k420, 10), 7, 9},
      {make_format(1, 1, ChromaSubsampling::k444, 8), 4, 3},
      {make_format(9, 2, ChromaSubsampling::k420, 8), 2, 9},
      {make_format(641, 359, ChromaSubsampling::k420, 8), 641, 480},
      {make_format(640, 360, ChromaSubsampling::k422, 10), 1024, 360},
      {make_format(1920, 1080, ChromaSubsampling::k420, 8), 1280, 720},
      {make_format(1283, 723, ChromaSubsampling::k420, 10), 317, 179},
      {make_format(1003, 1001, ChromaSubsampling::k420, 8), 1004, 1002},
      {make_format(97, 61, ChromaSubsampling::k420, 9), 160, 90},
      {make_format(97, 61, ChromaSubsampling::k444, 12), 160, 90},
      {make_format(97, 61, ChromaSubsampling::k422, 14), 61, 97},
      {make_format(97, 61, ChromaSubsampling::k420, 16), 160, 90},
      {make_format(160, 90, ChromaSubsampling::k444, 16), 97, 61},
      {make_format(97, 61, ChromaSubsampling::k400, 8), 160, 90},
      {make_format(97, 61, ChromaSubsampling::k400, 16), 160, 90}};
  return cases;
}

std::string scale_case_name(const ScaleCase& c) {
  return fmt::format("w{}h{}s{}d{}to{}x{}", c.in.width, c.in.height, int(c.in.subsampling),
                     int(c.in.bit_depth), c.out_width, c.out_height);
}

PictureFormat resized(PictureFormat f, uint32_t w, uint32_t h) {
  f.width = w;
  f.height = h;
  return f;
}

Picture fixture_scale_input(const FixtureScaleCase& c, const std::string& dir) {
  auto source = open_y4m(dir + "/dis.y4m", "distorted");
  Picture frame(source->format());
  if (!source->read(frame)) throw std::runtime_error(dir + "/dis.y4m has no frame");
  if (c.rung_width == 0) return frame;
  Picture rung(resized(frame.format(), c.rung_width, c.rung_height));
  scale_with_libswscale(frame, rung, ScaleMode::kBicubic);
  return rung;
}

}  // namespace vqx::test
