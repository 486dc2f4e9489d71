// cambi on CUDA: the exact top-K sum of every scale's c-values (shared/spec/cambi.md 10.4).
//
// Three radix passes over the float bits (11 + 11 + 10 bits) find the k-th largest value T of a
// scale and the count G of values above it; pass 0 also sums everything, pass 2 the values above
// T's 22-bit prefix. The sum S = S_gt + (k - G) * T is exact: every c-value is 0 or in
// [0.5, 2^14), an integer number of 2^-24 units below 2^38, and the units add in 128-bit integers
// from 64-bit atomics, so no atomic order or grid shape can change it.
#include <algorithm>

#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx::cambi_cuda {
namespace {

using u128 = unsigned __int128;

constexpr int kPassThreads = 256;

// v * 2^24 as an integer for a c-value's bit pattern; false unless v is 0 or in [0.5, 2^14).
__device__ __forceinline__ bool units_of(uint32_t bits, u64& units) {
  if (bits == 0) {
    units = 0;
    return true;
  }
  const uint32_t e = bits >> 23;
  if (e < 126 || e > 140) {
    units = 0;
    return false;
  }
  units = u64((bits & 0x7FFFFFu) | 0x800000u) << (e - 126);
  return true;
}

// Exact 128-bit accumulation with two 64-bit integer atomics (carry propagated).
__device__ __forceinline__ void atomic_add_u128(u64* p, u128 v) {
  u64 lo = u64(v), hi = u64(v >> 64);
  if (lo) {
    u64 old = atomicAdd(p, lo);
    if (old + lo < old) ++hi;
  }
  if (hi) atomicAdd(p + 1, hi);
}

// Block-wide sum of one u128 per thread (blockDim.x a multiple of 32, at most 1024).
__device__ u128 block_sum_u128(u128 v) {
  __shared__ u64 part[2][32];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  u64 lo = u64(v), hi = u64(v >> 64);
  // Warp: add lo and hi separately, carries counted into hi.
  for (int s = 16; s > 0; s >>= 1) {
    u64 olo = __shfl_down_sync(0xffffffffu, lo, s), ohi = __shfl_down_sync(0xffffffffu, hi, s);
    u64 nlo = lo + olo;
    hi = hi + ohi + (nlo < lo ? 1u : 0u);
    lo = nlo;
  }
  __syncthreads();
  if (lane == 0) part[0][warp] = lo, part[1][warp] = hi;
  __syncthreads();
  u128 total = 0;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w)
      total += (u128(part[1][w]) << 64) + part[0][w];
  return total;  // valid in thread 0
}

// The radix scan, by a whole block: the bin b (searching from the top) that holds the value of
// rank `k` (1-based, counted from the largest) and how many values lie in bins above b. Returns
// false when the bins hold fewer than k values. Result valid in every thread. blockDim <= 256.
__device__ bool block_find_bin(const unsigned* bins, int nbins, u64 k, int& bin, u64& above) {
  __shared__ u64 totals[256];
  __shared__ int found_bin;
  __shared__ u64 found_above;
  const int per = (nbins + int(blockDim.x) - 1) / int(blockDim.x);
  const int first = int(threadIdx.x) * per;
  u64 mine = 0;
  for (int b = first; b < first + per && b < nbins; ++b) mine += __ldcg(bins + b);
  totals[threadIdx.x] = mine;
  if (threadIdx.x == 0) found_bin = -1, found_above = 0;
  __syncthreads();
  // Suffix sums over the threads (Hillis-Steele, log2(blockDim) steps).
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    u64 add = threadIdx.x + s < blockDim.x ? totals[threadIdx.x + s] : 0;
    __syncthreads();
    totals[threadIdx.x] += add;
    __syncthreads();
  }
  const u64 inclusive = totals[threadIdx.x];
  const u64 exclusive = inclusive - mine;  // values in the bins of higher threads
  if (exclusive < k && k <= inclusive) {
    u64 acc = exclusive;
    for (int b = min(first + per, nbins) - 1; b >= first; --b) {
      const u64 c = __ldcg(bins + b);
      if (acc + c >= k) {
        found_bin = b;
        found_above = acc;
        break;
      }
      acc += c;
    }
  }
  __syncthreads();
  bin = found_bin;
  above = found_above;
  __syncthreads();
  return bin >= 0;
}

// The last block of a pass to finish (after a fence) does the scan; this says whether it is.
__device__ bool last_block(unsigned* ticket, unsigned blocks) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == blocks - 1;
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// Pass 0: the top digit (bits 21..31) of every value, the exact sum of all values (units of
// 2^-24) and the validity check; the last block finds the digit of the k-th largest. When that is
// bin 0 (only exact zeros there) the top-K sum is the total.
__global__ void __launch_bounds__(kPassThreads) radix_pass0_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins0];
  const int s = blockIdx.y;
  const PassScale& sc = args.scale[s];
  ScaleState* st = sc.state;
  for (int b = threadIdx.x; b < kBins0; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  u64 units_sum = 0;  // per thread < 2^25 values * 2^38
  unsigned zeros = 0;
  bool bad = false;
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n;
       i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    u64 units;
    bad |= !units_of(bits, units);
    units_sum += units;
    if (bits == 0) {
      ++zeros;  // most values: counted in registers
    } else {
      // Banded content repeats values: lanes with the same bin add once (warp-aggregated).
      const unsigned active = __activemask(), bin = bits >> 21;
      const unsigned same = __match_any_sync(active, bin);
      if ((threadIdx.x & 31) == unsigned(__ffs(int(same)) - 1))
        atomicAdd(&bins[bin], unsigned(__popc(same)));
    }
  }
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0)
    atomicOr(args.status, kStatusBadValue);
  for (int sft = 16; sft > 0; sft >>= 1) zeros += __shfl_down_sync(0xffffffffu, zeros, sft);
  if ((threadIdx.x & 31) == 0 && zeros) atomicAdd(&bins[0], zeros);
  const u128 block_units = block_sum_u128(u128(units_sum));
  if (threadIdx.x == 0 && block_units) atomic_add_u128(st->total, block_units);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins0; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins0[b], bins[b]);
  if (!last_block(&st->ticket[0], gridDim.x)) return;
  int bin;
  u64 above;
  const bool found = block_find_bin(st->bins0, kBins0, sc.k, bin, above);
  if (threadIdx.x == 0) {
    if (!found) {
      atomicOr(args.status, kStatusSelection);
      st->done = 1;
    } else if (bin == 0) {
      args.sums[2 * s] = __ldcg(&st->total[0]);
      args.sums[2 * s + 1] = __ldcg(&st->total[1]);
      st->done = 1;
    } else {
      st->prefix = unsigned(bin);
      st->above = above;
    }
  }
}

// Pass 1: the second digit (bits 10..20) among the values whose top digit is the pass-0 bin.
__global__ void __launch_bounds__(kPassThreads) radix_pass1_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins1];
  const PassScale& sc = args.scale[blockIdx.y];
  ScaleState* st = sc.state;
  if (__ldcg(&st->done)) return;  // whole grid row alike: set by an earlier pass
  const unsigned prefix = __ldcg(&st->prefix);
  for (int b = threadIdx.x; b < kBins1; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n;
       i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    if ((bits >> 21) == prefix) atomicAdd(&bins[(bits >> 10) & 0x7FFu], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins1; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins1[b], bins[b]);
  if (!last_block(&st->ticket[1], gridDim.x)) return;
  int bin;
  u64 above;
  const u64 have = __ldcg(&st->above);
  const bool found = block_find_bin(st->bins1, kBins1, sc.k - have, bin, above);
  if (threadIdx.x == 0) {
    if (!found) {
      atomicOr(args.status, kStatusSelection);
      st->done = 1;
    } else {
      st->prefix = (prefix << 11) | unsigned(bin);
      st->above = have + above;
    }
  }
}

// Pass 2: the last digit (bits 0..9) among the values with the 22-bit prefix, and the exact sum of
// the values above that prefix; then T, G and S = S_gt + (k - G) * T (spec 10.4).
__global__ void __launch_bounds__(kPassThreads) radix_pass2_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins2];
  const int s = blockIdx.y;
  const PassScale& sc = args.scale[s];
  ScaleState* st = sc.state;
  if (__ldcg(&st->done)) return;
  const unsigned prefix = __ldcg(&st->prefix);
  for (int b = threadIdx.x; b < kBins2; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  u64 units_sum = 0;  // per thread < 2^25 values * 2^38
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n;
       i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    const uint32_t top = bits >> 10;
    if (top == prefix) {
      atomicAdd(&bins[bits & 0x3FFu], 1u);
    } else if (top > prefix) {
      u64 u;
      units_of(bits, u);  // validity was checked by pass 0
      units_sum += u;
    }
  }
  const u128 block_units = block_sum_u128(u128(units_sum));
  if (threadIdx.x == 0 && block_units) atomic_add_u128(st->greater, block_units);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins2; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins2[b], bins[b]);
  if (!last_block(&st->ticket[2], gridDim.x)) return;
  int bin;
  u64 above;
  const u64 have = __ldcg(&st->above);
  const bool found = block_find_bin(st->bins2, kBins2, sc.k - have, bin, above);
  if (!found) {
    if (threadIdx.x == 0) atomicOr(args.status, kStatusSelection), st->done = 1;
    return;
  }
  // Values in the bins above T's, inside the prefix: count * units each, exact.
  u128 part = 0;
  for (int b = bin + 1 + int(threadIdx.x); b < kBins2; b += kPassThreads) {
    const unsigned c = __ldcg(st->bins2 + b);
    if (c) {
      u64 u;
      units_of((prefix << 10) | unsigned(b), u);
      part += u128(c) * u;
    }
  }
  const u128 inside = block_sum_u128(part);
  if (threadIdx.x == 0) {
    const uint32_t t_bits = (prefix << 10) | unsigned(bin);
    u64 t_units;
    units_of(t_bits, t_units);
    const u64 greater_count = have + above;  // G
    const u128 sum = (u128(__ldcg(&st->greater[1])) << 64) + __ldcg(&st->greater[0]) + inside +
                     u128(sc.k - greater_count) * t_units;
    args.sums[2 * s] = u64(sum);
    args.sums[2 * s + 1] = u64(sum >> 64);
    st->done = 1;
  }
}

}  // namespace

unsigned top_k_blocks(u64 n) {
  return unsigned(
      std::max<u64>(1, std::min<u64>(1024, (n + 8 * kPassThreads - 1) / (8 * kPassThreads))));
}

void enqueue_top_k(const PassArgs& args, unsigned blocks, cudaStream_t stream) {
  const dim3 grid(blocks, kNumScales);
  radix_pass0_kernel<<<grid, kPassThreads, 0, stream>>>(args);
  cuda::check_launch("cambi: radix_pass0_kernel");
  radix_pass1_kernel<<<grid, kPassThreads, 0, stream>>>(args);
  cuda::check_launch("cambi: radix_pass1_kernel");
  radix_pass2_kernel<<<grid, kPassThreads, 0, stream>>>(args);
  cuda::check_launch("cambi: radix_pass2_kernel");
}

}  // namespace vqx::cambi_cuda
