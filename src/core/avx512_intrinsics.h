#pragma once
// <immintrin.h> for the AVX-512 kernel units. GCC 12 takes the _mm512_undefined_* placeholders
// inside its own intrinsics for uninitialised values (GCC bug 105593) and warns at the header's
// lines, so the warning is off for the header alone. Include it before VQX_BEGIN_TARGET_AVX512,
// so the inline functions it defines stay baseline code.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
