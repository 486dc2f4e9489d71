// open_png: PNGs written here with libpng (8/16-bit, grey, grey+alpha, RGB, RGBA, palette,
// interlaced) read back as R'G'B' planes; truncated, corrupt and non-PNG files are InputError.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/readers.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct Image {
  uint32_t w, h;
  int color_type;  // PNG_COLOR_TYPE_*
  int depth;       // 8 or 16
  std::vector<uint16_t> samples;  // w * h * channels, interleaved
  int interlace = PNG_INTERLACE_NONE;
};

int channels_of(int color_type) {
  switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    default: return 4;
  }
}

Image make_image(uint32_t w, uint32_t h, int color_type, int depth) {
  Image im{w, h, color_type, depth, {}};
  const int ch = channels_of(color_type);
  const uint32_t max = depth == 16 ? 65535 : 255;
  for (uint32_t i = 0; i < w * h * uint32_t(ch); ++i) im.samples.push_back(uint16_t((i * 2654435761u >> 7) % (max + 1)));
  return im;
}

void write_png(const std::string& path, const Image& im) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, f);
  png_set_IHDR(png, info, im.w, im.h, im.depth, im.color_type, im.interlace,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const int ch = channels_of(im.color_type);
  const size_t bytes = im.depth == 16 ? 2 : 1;
  std::vector<uint8_t> data(size_t{im.w} * im.h * ch * bytes);
  for (size_t i = 0; i < im.samples.size(); ++i) {
    if (bytes == 2) {
      data[2 * i] = uint8_t(im.samples[i] >> 8);  // PNG is big-endian
      data[2 * i + 1] = uint8_t(im.samples[i]);
    } else {
      data[i] = uint8_t(im.samples[i]);
    }
  }
  std::vector<png_bytep> rows(im.h);
  for (uint32_t y = 0; y < im.h; ++y) rows[y] = data.data() + size_t{y} * im.w * ch * bytes;
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
}

Picture read_one(const std::string& path) {
  auto reader = open_png(path, "reference");
  Picture p(reader->format());
  EXPECT_TRUE(reader->read(p));
  EXPECT_FALSE(reader->read(p));  // one image, one frame
  return p;
}

uint32_t sample(const Picture& p, unsigned plane, size_t i) {
  return p.format().bit_depth > 8 ? p.plane<uint16_t>(plane)[i] : p.plane<uint8_t>(plane)[i];
}

TEST(PngReader, OpaqueLayoutsReadExactly) {
  for (int depth : {8, 16})
    for (int color : {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_RGB}) {
      Image im = make_image(13, 7, color, depth);
      const std::string path = temp_path("png_reader_opaque.png");
      write_png(path, im);
      Picture p = read_one(path);
      const PictureFormat& f = p.format();
      EXPECT_EQ(f.width, 13u);
      EXPECT_EQ(f.height, 7u);
      EXPECT_EQ(f.color, ColorModel::kRGB);
      EXPECT_EQ(f.subsampling, ChromaSubsampling::k444);
      EXPECT_EQ(f.bit_depth, depth);
      const int ch = channels_of(color);
      for (size_t i = 0; i < 13 * 7; ++i)
        for (unsigned c = 0; c < 3; ++c)
          ASSERT_EQ(sample(p, c, i), im.samples[i * ch + (ch == 1 ? 0 : c)])
              << "depth " << depth << " colour " << color << " pixel " << i;
    }
}

TEST(PngReader, AlphaIsCompositedOverMidGrey) {
  for (int depth : {8, 16})
    for (int color : {PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB_ALPHA}) {
      Image im = make_image(9, 5, color, depth);
      const int ch = channels_of(color);
      const double max = depth == 16 ? 65535 : 255;
      im.samples[size_t(ch - 1)] = uint16_t(max);      // pixel 0 opaque
      im.samples[size_t(2 * ch - 1)] = 0;              // pixel 1 fully transparent
      const std::string path = temp_path("png_reader_alpha.png");
      write_png(path, im);
      Picture p = read_one(path);
      for (size_t i = 0; i < 9 * 5; ++i)
        for (unsigned c = 0; c < 3; ++c) {
          const double a = im.samples[i * ch + ch - 1] / max;
          const double v = im.samples[i * ch + (ch == 2 ? 0 : c)] / max;
          const uint32_t want = uint32_t((v * a + (1 - a) * 0.5) * max + 0.5);
          ASSERT_EQ(sample(p, c, i), want) << "depth " << depth << " pixel " << i;
        }
      EXPECT_EQ(sample(p, 0, 0), im.samples[0]);                 // opaque: unchanged
      EXPECT_EQ(sample(p, 0, 1), uint32_t(max * 0.5 + 0.5));     // transparent: the grey
    }
}

TEST(PngReader, InterlacedReadsLikeProgressive) {
  Image im = make_image(17, 11, PNG_COLOR_TYPE_RGB, 8);
  write_png(temp_path("png_reader_plain.png"), im);
  im.interlace = PNG_INTERLACE_ADAM7;
  write_png(temp_path("png_reader_adam7.png"), im);
  Picture a = read_one(temp_path("png_reader_plain.png"));
  Picture b = read_one(temp_path("png_reader_adam7.png"));
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(0, std::memcmp(a.bytes(), b.bytes(), a.size_bytes()));
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void put_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

TEST(PngReader, BadFilesAreInputErrors) {
  Image im = make_image(64, 64, PNG_COLOR_TYPE_RGB, 16);
  const std::string good = temp_path("png_reader_good.png");
  write_png(good, im);
  const std::vector<char> bytes = file_bytes(good);

  const std::string bad = temp_path("png_reader_bad.png");
  for (size_t keep : {size_t{0}, size_t{5}, size_t{8}, size_t{20}, size_t{40}, bytes.size() / 2,
                      bytes.size() - 13}) {
    put_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + long(keep)));
    EXPECT_THROW(open_png(bad, "distorted"), InputError) << "truncated to " << keep;
  }
  std::vector<char> corrupt = bytes;
  for (size_t i = 60; i < corrupt.size() - 20; i += 97) corrupt[i] = char(corrupt[i] ^ 0x5a);
  put_bytes(bad, corrupt);
  EXPECT_THROW(open_png(bad, "distorted"), InputError);
  put_bytes(bad, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
  EXPECT_THROW(open_png(bad, "distorted"), InputError);
  EXPECT_THROW(open_png(temp_path("png_reader_missing.png"), "distorted"), InputError);
  try {
    open_png(bad, "distorted");
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("distorted"), std::string::npos);
    EXPECT_EQ(message.find('\n'), std::string::npos);  // one line
  }
}

}  // namespace
}  // namespace vqx::test
