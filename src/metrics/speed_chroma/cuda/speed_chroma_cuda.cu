// speed_chroma on CUDA (shared/spec/speed.md; contract in shared/spec/README.md, VMAF row: every
// per-pixel and per-block term identical to the CPU; the f32 solver on the host from
// device-computed statistics).
//
// Per frame, for the four images (U ref, U dis, V ref, V dis), on the device:
//   1. decimate   - D = the antialias blur of the (prescaled) chroma plane at (16 i, 16 j), ow x oh
//   2. residual   - E = D - conv(D, mean taps), kept for the top-left tw x th (the result slot)
//   3. means      - the 25 offset means mu_q (f32 folds, 8.2)
//   4. covariance - K (25 x 25 f32) with the CPU's AVX2 lane grouping (8.3), into the result slot
// Every value is computed by one thread as the same sequential fold as the CPU (the arithmetic is
// in speed_chroma_kernels.h, shared with the host tests), so there is no floating-point reduction
// whose shape could depend on the grid. The slot (K and E of each image, 4 * (625 + tw th) f32)
// comes back with the engine's one readback; collect() then runs the CPU twin's own
// estimate_from_covariance (eigenvalues, Householder-QR solve, variances, entropies) and the plane
// and frame combination, so everything after K is literally the CPU's code.
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/cuda/cuda_check.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/speed_chroma/cuda/speed_chroma_cuda.h"
#include "metrics/speed_chroma/cuda/speed_chroma_kernels.h"
#include "metrics/speed_chroma/speed_chroma.h"
#include "metrics/speed_core/speed_pipeline.h"

namespace vqx {
namespace {

using speed::cuda_twin::KernelParams;
namespace twin = speed::cuda_twin;

constexpr unsigned kImages = 4;  // image i: plane 1 + i / 2, reference when i is even
constexpr int kThreads = 128;

// Image i reads plane index i / 2 (0 = U, 1 = V) of the reference (even i) or distorted picture.
struct FramePair {
  const uint8_t* ref;
  const uint8_t* dis;
};

__device__ __forceinline__ const uint8_t* image_frame(const FramePair& f, unsigned image) {
  return (image % 2 == 0) ? f.ref : f.dis;
}

// grid: (ceil(ow*oh / kThreads), 4 images). d: 4 images of ow x oh.
__global__ void __launch_bounds__(kThreads)
    decimate_kernel(KernelParams p, FramePair frames, float* __restrict__ d) {
  const unsigned image = blockIdx.y;
  const uint32_t count = p.ow * p.oh;
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const uint32_t i = s / p.ow, j = s % p.ow;
  d[size_t(image) * count + s] =
      twin::decimated_sample(p, image_frame(frames, image), image / 2, i, j);
}

// Per image in the result slot: K (625 f32) then E (tw x th f32).
__device__ __forceinline__ size_t image_stride(const KernelParams& p) {
  return twin::kMatrixEntries + size_t(p.tw) * p.th;
}

// grid: (ceil(tw*th / kThreads), 4).
__global__ void __launch_bounds__(kThreads)
    residual_kernel(KernelParams p, const float* __restrict__ d, float* __restrict__ slot) {
  const unsigned image = blockIdx.y;
  const uint32_t count = p.tw * p.th;
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const uint32_t i = s / p.tw, j = s % p.tw;
  float* e = slot + image * image_stride(p) + twin::kMatrixEntries;
  e[s] = twin::residual_sample(p, d + size_t(image) * p.ow * p.oh, i, j);
}

// grid: (1, 4), 32 threads: thread q < 25 folds mu_q.
__global__ void means_kernel(KernelParams p, const float* __restrict__ slot, float* __restrict__ mu) {
  const unsigned image = blockIdx.y;
  const uint32_t q = threadIdx.x;
  if (q >= 25) return;
  const float* e = slot + image * image_stride(p) + twin::kMatrixEntries;
  mu[image * 25 + q] = twin::offset_mean(p, e, q);
}

// grid: (ceil(325 / kThreads), 4): one thread per pair q >= q', writing K[q][q'] and K[q'][q].
__global__ void __launch_bounds__(kThreads)
    covariance_kernel(KernelParams p, const float* __restrict__ mu, float* __restrict__ slot) {
  const unsigned image = blockIdx.y;
  const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= twin::kPairs) return;
  uint32_t q, qp;
  twin::pair_of(index, q, qp);
  float* base = slot + image * image_stride(p);
  const float v = twin::covariance_entry(p, base + twin::kMatrixEntries, mu + image * 25, q, qp);
  base[q * 25 + qp] = v;
  base[qp * 25 + q] = v;
}

const char* kPlaneNames[] = {"U", "V"};

class SpeedChromaCuda final : public CudaMetric {
 public:
  explicit SpeedChromaCuda(const OptionValues& options)
      : params_(speed::resolve_params(options)), names_(speed::output_names(options)) {}

  std::vector<std::string> feature_names() const override { return names_; }
  std::vector<std::string> stage_names() const override {
    return {"decimate", "residual", "means", "covariance"};
  }

  void init(const CudaMetricContext& context) override {
    const PictureFormat& f = context.format;
    geometry_ = speed::checked_geometry(f, params_);  // the CPU's checks and messages
    const speed::Geometry& g = geometry_;
    const speed::SpeedFilters filters = speed::make_filters(params_.kernel_scale);
    threshold_ = speed::entropy_threshold(params_.sigma_nn, params_.nn_floor);
    if (filters.antialias.size() > twin::kMaxAntialiasTaps ||
        filters.mean.size() > twin::kMaxMeanTaps)
      throw InputError("speed_chroma on CUDA: filter widths " +
                       std::to_string(filters.antialias.size()) + " / " +
                       std::to_string(filters.mean.size()) + " exceed the device limits " +
                       std::to_string(twin::kMaxAntialiasTaps) + " / " +
                       std::to_string(twin::kMaxMeanTaps));

    KernelParams& p = kp_;
    p = KernelParams{};
    p.w = g.w, p.h = g.h, p.sw = g.sw, p.sh = g.sh, p.ow = g.ow, p.oh = g.oh;
    p.tw = g.tw, p.th = g.th, p.mw = g.mw, p.mh = g.mh, p.n = g.n;
    p.bytes_per_sample = f.bytes_per_sample();
    p.bit_depth = f.bit_depth;
    p.divisor = float(1u << (f.bit_depth - 8));
    p.antialias_n = uint32_t(filters.antialias.size());
    p.mean_n = uint32_t(filters.mean.size());
    for (size_t k = 0; k < filters.antialias.size(); ++k) p.antialias[k] = filters.antialias[k];
    for (size_t k = 0; k < filters.mean.size(); ++k) p.mean[k] = filters.mean[k];
    for (unsigned c = 0; c < 2; ++c) {
      p.plane_offset[c] = f.plane_offset(1 + c);
      p.plane_stride[c] = f.plane_width(1 + c);
    }
    // The source read: as preprocess_plane(), identity when the resampler does not run or keeps
    // the size; otherwise the CPU's own axis tables, uploaded once.
    const bool identity = !g.prescale_active || (g.sw == g.w && g.sh == g.h);
    cuda::DeviceContext& device = *context.device;
    if (identity) {
      p.mode = twin::kIdentity;
    } else if (params_.method == speed::PrescaleMethod::kBilinear) {
      p.mode = twin::kBilinear;
      const speed::BilinearAxis bx = speed::make_bilinear_axis(g.w, g.sw);
      const speed::BilinearAxis by = speed::make_bilinear_axis(g.h, g.sh);
      const size_t words = 3 * size_t(g.sw) + 3 * size_t(g.sh);
      tables_ = cuda::DeviceBuffer(device, words * 4, "speed_chroma prescale tables");
      std::vector<uint32_t> host(words);
      uint32_t* at = host.data();
      auto put = [&](const void* src, size_t n) {
        std::memcpy(at, src, n * 4);
        at += n;
      };
      put(bx.i1.data(), g.sw), put(bx.i2.data(), g.sw), put(bx.frac.data(), g.sw);
      put(by.i1.data(), g.sh), put(by.i2.data(), g.sh), put(by.frac.data(), g.sh);
      cuda::copy_to_device_now(tables_.get(), host.data(), words * 4, "speed_chroma: table upload");
      const uint32_t* t = tables_.get<uint32_t>();
      p.bx_i1 = t, p.bx_i2 = t + g.sw, p.bx_frac = reinterpret_cast<const float*>(t + 2 * g.sw);
      t += 3 * size_t(g.sw);
      p.by_i1 = t, p.by_i2 = t + g.sh, p.by_frac = reinterpret_cast<const float*>(t + 2 * g.sh);
    } else if (params_.method == speed::PrescaleMethod::kNearest) {
      p.mode = twin::kNearest;
      const std::vector<uint32_t> nx = speed::make_nearest_axis(g.w, g.sw);
      const std::vector<uint32_t> ny = speed::make_nearest_axis(g.h, g.sh);
      const size_t words = size_t(g.sw) + g.sh;
      tables_ = cuda::DeviceBuffer(device, words * 4, "speed_chroma prescale tables");
      std::vector<uint32_t> host(nx);
      host.insert(host.end(), ny.begin(), ny.end());
      cuda::copy_to_device_now(tables_.get(), host.data(), words * 4, "speed_chroma: table upload");
      p.nx = tables_.get<uint32_t>();
      p.ny = p.nx + g.sw;
    } else {
      // resolve_params() refuses bicubic and lanczos4 whenever the resampler runs.
      throw InputError("speed_chroma on CUDA: prescale method not implemented");
    }
    decimated_ = cuda::DeviceBuffer(device, size_t(kImages) * g.ow * g.oh * sizeof(float),
                                    "speed_chroma decimated images");
    means_ = cuda::DeviceBuffer(device, size_t(kImages) * 25 * sizeof(float), "speed_chroma means");
    image_floats_ = twin::kMatrixEntries + size_t(g.tw) * g.th;
    pool_ = std::make_unique<ThreadPool>(kImages - 1);
  }

  size_t result_bytes() const override { return size_t(kImages) * image_floats_ * sizeof(float); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    const speed::Geometry& g = geometry_;
    float* slot = static_cast<float*>(result);
    const FramePair frames{frame.ref, frame.dis};
    marks.stage(stream, 0);
    dim3 grid_d((g.ow * g.oh + kThreads - 1) / kThreads, kImages);
    decimate_kernel<<<grid_d, kThreads, 0, stream>>>(kp_, frames, decimated_.get<float>());
    cuda::check_launch("speed_chroma: decimate_kernel");
    marks.stage(stream, 1);
    dim3 grid_e((g.tw * g.th + kThreads - 1) / kThreads, kImages);
    residual_kernel<<<grid_e, kThreads, 0, stream>>>(kp_, decimated_.get<float>(), slot);
    cuda::check_launch("speed_chroma: residual_kernel");
    marks.stage(stream, 2);
    means_kernel<<<dim3(1, kImages), 32, 0, stream>>>(kp_, slot, means_.get<float>());
    cuda::check_launch("speed_chroma: means_kernel");
    marks.stage(stream, 3);
    dim3 grid_k((twin::kPairs + kThreads - 1) / kThreads, kImages);
    covariance_kernel<<<grid_k, kThreads, 0, stream>>>(kp_, means_.get<float>(), slot);
    cuda::check_launch("speed_chroma: covariance_kernel");
  }

  // The CPU twin's code from K on: the four images are independent (no shared state), so running
  // them on the pool cannot change a bit.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const speed::Geometry& g = geometry_;
    const float* slot = static_cast<const float*>(result);
    std::array<speed::ImageEstimate, kImages> est;
    pool_->parallel_for(kImages, 1, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        const float* base = slot + i * image_floats_;
        speed::Matrix25 k;
        std::memcpy(k.data(), base, sizeof(float) * twin::kMatrixEntries);
        speed::Image& e = images_[i];
        e.w = g.tw;
        e.h = g.th;
        e.px.assign(base + twin::kMatrixEntries, base + image_floats_);
        est[i] = speed::estimate_from_covariance(k, e, g, params_.sigma_nn, scratch_[i]);
      }
    });
    for (size_t i = 0; i < kImages; ++i) report(est[i], frame, unsigned(i / 2), i % 2 == 0);
    const speed::PlaneResult u =
        speed::plane_result(est[0].stats, est[1].stats, threshold_, params_.weight_var_mode);
    const speed::PlaneResult v =
        speed::plane_result(est[2].stats, est[3].stats, threshold_, params_.weight_var_mode);
    const speed::ChromaScores scores = speed::combine_planes(u, v, params_.max_val);
    out.put(frame, 0, scores.u);
    out.put(frame, 1, scores.v);
    out.put(frame, 2, scores.uv);
  }

  void finish(const void*, FeatureWriter&) override {
    if (failures_ > 1)
      std::fprintf(stderr,
                   "warning: speed_chroma: %llu images failed in all (each gives a plane score of "
                   "0, as in libvmaf)\n",
                   static_cast<unsigned long long>(failures_));
  }

 private:
  // The CPU twin's warnings (one line for the first failed image, a total at the end).
  void report(const speed::ImageEstimate& e, uint64_t frame, unsigned plane, bool is_ref) {
    if (e.step_limit_hit && !step_warned_) {
      step_warned_ = true;
      std::fprintf(stderr,
                   "warning: speed_chroma: frame %llu plane %s (%s): eigenvalue QR stopped at its "
                   "500-step limit, as libvmaf does\n",
                   static_cast<unsigned long long>(frame), kPlaneNames[plane],
                   is_ref ? "reference" : "distorted");
    }
    if (e.failure == speed::Failure::kNone) return;
    if (failures_++ == 0)
      std::fprintf(stderr,
                   "warning: speed_chroma: frame %llu plane %s (%s): %s; the plane score is 0, as "
                   "in libvmaf\n",
                   static_cast<unsigned long long>(frame), kPlaneNames[plane],
                   is_ref ? "reference" : "distorted", speed::describe(e.failure));
  }

  speed::SpeedParams params_;
  std::vector<std::string> names_;
  speed::Geometry geometry_;
  float threshold_ = 0;
  KernelParams kp_{};
  cuda::DeviceBuffer tables_, decimated_, means_;
  size_t image_floats_ = 0;
  std::unique_ptr<ThreadPool> pool_;
  std::array<speed::Image, kImages> images_;
  std::array<speed::StatsScratch, kImages> scratch_;
  uint64_t failures_ = 0;
  bool step_warned_ = false;
};

}  // namespace

std::unique_ptr<CudaMetric> make_speed_chroma_cuda(const OptionValues& options) {
  return std::make_unique<SpeedChromaCuda>(options);
}

}  // namespace vqx
