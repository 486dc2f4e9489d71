#pragma once
// VQX_HOST_DEVICE marks inline functions whose one source is compiled for the CPU and, by nvcc,
// for the GPU: a CUDA twin that calls them performs the CPU path's operations in the CPU path's
// order (host code never contracts, device code is built with --fmad=false), so both give the
// same bits by construction.
#ifdef __CUDACC__
#define VQX_HOST_DEVICE __host__ __device__
#else
#define VQX_HOST_DEVICE
#endif
