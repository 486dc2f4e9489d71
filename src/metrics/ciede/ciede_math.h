#pragma once
// The per-pixel colour science of libvmaf's `ciede` (feature/ciede.c, a port of av-metrics'
// ciede2000): limited-range BT.709 Y'CbCr -> sRGB-like linear RGB -> XYZ (D65) -> CIELAB, and the
// CIEDE2000 colour difference with kL = 0.65, kC = 1, kH = 4.
//
// Every intermediate keeps upstream's C types: the L*a*b* components and most CIEDE2000 terms are
// f32, while the expressions that produce them run in f64 (C promotes the f32 operands of double
// constants and of the double libm functions). The libm calls are glibc's, as in the build the
// goldens come from, so each function here calls exactly the double or float routine that the C
// source calls, with the same argument (explicit double casts keep C++'s float overloads out).
#include <cstdint>
#include <vector>

#include "core/picture.h"

namespace vqx::ciede {

struct Lab {
  float l, a, b;
};

// One Y'CbCr sample triple of `bit_depth` bits (given as f32 values, as upstream reads them).
Lab yuv_to_lab(float y, float u, float v, unsigned bit_depth);

// CIEDE2000 difference of two colours, f32.
float ciede2000(const Lab& ref, const Lab& dis);

// Throws InputError unless the picture is Y'CbCr with chroma (upstream refuses 4:0:0).
void require_supported(const PictureFormat& format);

// Luma (x, y) reads chroma (x >> shift_x, y >> shift_y): nearest-neighbour repetition, as
// upstream for 4:2:0 and 4:4:4. For 4:2:2 upstream walks the chroma plane with its 4:2:0 rule
// and reads outside the rows it means to (libvmaf's scale_chroma_planes tests the vertical flag
// for the horizontal step and vice versa); vqx repeats each chroma sample horizontally instead.
struct ChromaShift {
  unsigned x, y;
};
ChromaShift chroma_shift(const PictureFormat& format);

// The CPU's dE00 of luma position `position` (raster order) of two frames in Picture layout:
// 0 for equal colours, as the metric's row loop.
float difference_at(const uint8_t* ref_frame, const uint8_t* dis_frame, const PictureFormat& format,
                    uint64_t position);

// powf(25, 7) as R_T evaluates it (the CUDA twin takes the same f32 value).
float powf_25_to_the_seventh();

// Upstream's f64 sum of the per-pixel f32 differences, in raster order.
double sequential_sum(const std::vector<float>& de00);

// 45 - 20 log10(mean dE00): the per-frame score from the f64 sum of the per-pixel f32 values.
double score_from_sum(double de00_sum, uint32_t width, uint32_t height);

}  // namespace vqx::ciede
