#include "metrics/psnr_hvs/psnr_hvs_math.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"

namespace vqx::psnr_hvs {
namespace {

// Daala's inverse quantisation matrices at the point of transparency (upstream's csf_y,
// csf_cb420, csf_cr420): double literals rounded to f32, as upstream's float tables.
constexpr float kCsf[3][64] = {
    {1.6193873005,   2.2901594831,   2.08509755623,  1.48366094411,  1.00227514334,  0.678296995242,
     0.466224900598, 0.3265091542,   2.2901594831,   1.94321815382,  2.04793073064,  1.68731108984,
     1.2305666963,   0.868920337363, 0.61280991668,  0.436405793551, 2.08509755623,  2.04793073064,
     1.34329019223,  1.09205635862,  0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
     1.48366094411,  1.68731108984,  1.09205635862,  0.772819797575, 0.605636379554, 0.48309405692,
     0.380429446972, 0.295774038565, 1.00227514334,  1.2305666963,   0.875748795257, 0.605636379554,
     0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204, 0.678296995242, 0.868920337363,
     0.670882927016, 0.48309405692,  0.352889268808, 0.27032073436,  0.215017739696, 0.17408067321,
     0.466224900598, 0.61280991668,  0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696,
     0.168869545842, 0.136153931001, 0.3265091542,   0.436405793551, 0.372504254596, 0.295774038565,
     0.226951348204, 0.17408067321,  0.136153931001, 0.109083846276},
    {1.91113096927,  2.46074210438,  1.18284184739,  1.14982565193,  1.05017074788,  0.898018824055,
     0.74725392039,  0.615105596242, 2.46074210438,  1.58529308355,  1.21363250036,  1.38190029285,
     1.33100189972,  1.17428548929,  0.996404342439, 0.830890433625, 1.18284184739,  1.21363250036,
     0.978712413627, 1.02624506078,  1.03145147362,  0.960060382087, 0.849823426169, 0.731221236837,
     1.14982565193,  1.38190029285,  1.02624506078,  0.861317501629, 0.801821139099, 0.751437590932,
     0.685398513368, 0.608694761374, 1.05017074788,  1.33100189972,  1.03145147362,  0.801821139099,
     0.676555426187, 0.605503172737, 0.55002013668,  0.495804539034, 0.898018824055, 1.17428548929,
     0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
     0.74725392039,  0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668,  0.454353482512,
     0.389234902883, 0.342353999733, 0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374,
     0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237},
    {2.03871978502,  2.62502345193,  1.26180942886,  1.11019789803,  1.01397751469,  0.867069376285,
     0.721500455585, 0.593906509971, 2.62502345193,  1.69112867013,  1.17180569821,  1.3342742857,
     1.28513006198,  1.13381474809,  0.962064122248, 0.802254508198, 1.26180942886,  1.17180569821,
     0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
     1.11019789803,  1.3342742857,   0.990876405848, 0.831632933426, 0.77418706195,  0.725539939514,
     0.661776842059, 0.587716619023, 1.01397751469,  1.28513006198,  0.995903384143, 0.77418706195,
     0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273, 0.867069376285, 1.13381474809,
     0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
     0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826,
     0.375820256136, 0.330555063063, 0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023,
     0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658},
};

// The masking weights: (csf * 0.3885746225901003)^2 in f64, rounded to f32. Xiph's comment calls
// the constant empirical: it maps their CSF onto the PSNR-HVS-M masking table.
BlockWeights make_weights(const float csf[64]) {
  BlockWeights w{};
  for (int k = 0; k < 64; ++k) {
    w.csf[k] = csf[k];
    w.mask[k] =
        float((double(csf[k]) * 0.3885746225901003) * (double(csf[k]) * 0.3885746225901003));
  }
  return w;
}

template <typename Sample>
void fill_plane_terms(const Picture& ref, const Picture& dis, unsigned plane, const BlockGrid& grid,
                      float* terms, ThreadPool* pool) {
  const size_t stride = ref.format().plane_width(plane);
  const Sample* r = ref.plane<Sample>(plane);
  const Sample* d = dis.plane<Sample>(plane);
  const BlockWeights& w = plane_weights(plane);
  auto block_rows = [&](size_t begin, size_t end) {
    for (size_t by = begin; by < end; ++by)
      for (size_t bx = 0; bx < grid.columns; ++bx) {
        const size_t offset = by * kStep * stride + bx * kStep;
        block_terms(r + offset, d + offset, stride, w, terms + (by * grid.columns + bx) * 64);
      }
  };
  if (pool)
    pool->parallel_for(grid.rows, 4, block_rows);
  else
    block_rows(0, grid.rows);
}

}  // namespace

void require_supported(const PictureFormat& format) {
  if (format.subsampling == ChromaSubsampling::k400)
    throw InputError(fmt::format("psnr_hvs needs chroma planes, got {}", format.describe()));
  if (format.bit_depth > 12)
    throw InputError(fmt::format("psnr_hvs supports at most 12 bits per sample, got {}",
                                 unsigned(format.bit_depth)));
  for (unsigned p = 0; p < 3; ++p)
    if (format.plane_width(p) < kBlock || format.plane_height(p) < kBlock)
      throw InputError(
          fmt::format("psnr_hvs needs every plane to be at least 8x8, plane {} of {} is {}x{}", p,
                      format.describe(), format.plane_width(p), format.plane_height(p)));
}

const BlockWeights& plane_weights(unsigned plane) {
  static const BlockWeights weights[3] = {make_weights(kCsf[0]), make_weights(kCsf[1]),
                                          make_weights(kCsf[2])};
  return weights[plane];
}

BlockGrid block_grid(uint32_t width, uint32_t height) {
  auto starts = [](uint32_t size) { return size < kBlock ? 0u : (size - kBlock) / kStep + 1; };
  return {starts(width), starts(height)};
}

double plane_score(const float* terms, uint64_t blocks, unsigned bit_depth) {
  float sum = 0;
  for (uint64_t k = 0; k < blocks * 64; ++k) sum += terms[k];
  return finish_plane_sum(sum, blocks, bit_depth);
}

void outputs_from_scores(const double scores[3], double out[4]) {
  auto to_db = [](double score) { return 10 * (-1 * std::log10(1.0 * score)); };
  for (int p = 0; p < 3; ++p) out[p] = to_db(scores[p]);
  out[3] = to_db(scores[0] * .8 + .1 * (scores[1] + scores[2]));
}

std::vector<float> plane_terms(const Picture& ref, const Picture& dis, unsigned plane,
                               ThreadPool* pool) {
  const PictureFormat& f = ref.format();
  const BlockGrid grid = block_grid(f.plane_width(plane), f.plane_height(plane));
  std::vector<float> terms(grid.count() * 64);
  if (f.bytes_per_sample() == 1)
    fill_plane_terms<uint8_t>(ref, dis, plane, grid, terms.data(), pool);
  else
    fill_plane_terms<uint16_t>(ref, dis, plane, grid, terms.data(), pool);
  return terms;
}

double score_plane(const Picture& ref, const Picture& dis, unsigned plane, ThreadPool* pool) {
  const std::vector<float> terms = plane_terms(ref, dis, plane, pool);
  return plane_score(terms.data(), terms.size() / 64, ref.format().bit_depth);
}

}  // namespace vqx::psnr_hvs
