#include "support/scale_model.h"

extern "C" {
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
}

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "io/readers.h"
#include "io/scale_rounding.h"
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

AVPixelFormat sws_format(const PictureFormat& f) {
  const unsigned d = f.bit_depth;
  auto pick = [d](AVPixelFormat p8, AVPixelFormat p9, AVPixelFormat p10, AVPixelFormat p12,
                  AVPixelFormat p14, AVPixelFormat p16) {
    switch (d) {
      case 8:
        return p8;
      case 9:
        return p9;
      case 10:
        return p10;
      case 12:
        return p12;
      case 14:
        return p14;
      case 16:
        return p16;
    }
    throw std::invalid_argument(fmt::format("no libswscale format of depth {}", d));
  };
  switch (f.subsampling) {
    case ChromaSubsampling::k420:
      return pick(AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P9LE, AV_PIX_FMT_YUV420P10LE,
                  AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_YUV420P14LE, AV_PIX_FMT_YUV420P16LE);
    case ChromaSubsampling::k422:
      return pick(AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV422P9LE, AV_PIX_FMT_YUV422P10LE,
                  AV_PIX_FMT_YUV422P12LE, AV_PIX_FMT_YUV422P14LE, AV_PIX_FMT_YUV422P16LE);
    case ChromaSubsampling::k444:
      return pick(AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P9LE, AV_PIX_FMT_YUV444P10LE,
                  AV_PIX_FMT_YUV444P12LE, AV_PIX_FMT_YUV444P14LE, AV_PIX_FMT_YUV444P16LE);
    case ChromaSubsampling::k400:
      return pick(AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY9LE, AV_PIX_FMT_GRAY10LE, AV_PIX_FMT_GRAY12LE,
                  AV_PIX_FMT_GRAY14LE, AV_PIX_FMT_GRAY16LE);
  }
  throw std::invalid_argument("unknown subsampling");
}

int sws_mode_flag(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::kBicubic:
      return SWS_BICUBIC;
    case ScaleMode::kBilinear:
      return SWS_BILINEAR;
    case ScaleMode::kLanczos:
      return SWS_LANCZOS;
    case ScaleMode::kSpline:
      return SWS_SPLINE;
    case ScaleMode::kNeighbor:
      return SWS_POINT;
  }
  return SWS_BICUBIC;
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
  const PictureFormat& fi = in.format();
  const PictureFormat& fo = out.format();
  const AVPixelFormat pix = sws_format(fi);
  std::unique_ptr<SwsContext, void (*)(SwsContext*)> ctx(
      sws_getContext(int(fi.width), int(fi.height), pix, int(fo.width), int(fo.height), pix,
                     sws_mode_flag(mode) | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr,
                     nullptr),
      sws_freeContext);
  if (!ctx) throw std::runtime_error("sws_getContext failed");
  // Planes with 64-byte aligned strides and spare rows, as in FFmpeg's frames: libswscale's SIMD
  // reads past the last sample of a row.
  struct Planes {
    std::vector<std::vector<uint8_t>> storage;
    uint8_t* data[4] = {};
    int stride[4] = {};
  };
  auto planes = [](const PictureFormat& f) {
    Planes out;
    for (unsigned p = 0; p < f.plane_count(); ++p) {
      out.stride[p] = int((f.plane_width(p) * f.bytes_per_sample() + 63) / 64 * 64);
      out.storage.emplace_back(size_t(out.stride[p]) * (f.plane_height(p) + 2) + 64);
      out.data[p] = out.storage.back().data();
    }
    return out;
  };
  Planes src = planes(fi), dst = planes(fo);
  for (unsigned p = 0; p < fi.plane_count(); ++p) {
    size_t row = size_t(fi.plane_width(p)) * fi.bytes_per_sample();
    for (uint32_t y = 0; y < fi.plane_height(p); ++y)
      std::memcpy(src.data[p] + size_t(y) * src.stride[p],
                  in.bytes() + fi.plane_offset(p) + y * row, row);
  }
  sws_scale(ctx.get(), src.data, src.stride, 0, int(fi.height), dst.data, dst.stride);
  for (unsigned p = 0; p < fo.plane_count(); ++p) {
    size_t row = size_t(fo.plane_width(p)) * fo.bytes_per_sample();
    for (uint32_t y = 0; y < fo.plane_height(p); ++y)
      std::memcpy(out.bytes() + fo.plane_offset(p) + y * row,
                  dst.data[p] + size_t(y) * dst.stride[p], row);
  }
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
