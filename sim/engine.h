// The quantized engine: which library's kernels run a converted (int8) model's quantized::*
// ops, and so its figures. LibTorch re-packs a converted model's weights for the current engine
// when it loads the archive, so the engine is chosen once, before any model is loaded.
//
// The default is QNNPACK: on x86-64 its kernels are SSE2 with exact 32-bit accumulation, so
// the same archive and input give the same int8 results on every x86-64 CPU. oneDNN's (and
// FBGEMM's) kernels pick a code path by instruction set: without AVX-512 VNNI they accumulate
// through saturating 16-bit sums, so a model can simulate at 45.8 dB on one machine and 33.5 dB
// on another. docs/quantization-flows.md ("The quantized engine") says more.
//
// This header has no LibTorch dependency; the implementation is in engine.cpp.
#pragma once

#include <string>

namespace qlint::sim {

// Sets the quantized engine `requested` ("qnnpack", "onednn", "fbgemm", "x86"), or the default
// when it is empty, and returns its name. Throws SimError when this LibTorch lacks it.
std::string select_quantized_engine(const std::string& requested);

// The current engine's name, lower case as torch.backends.quantized.engine spells it.
std::string quantized_engine();

// The x86 instruction-set extensions that change which path oneDNN and FBGEMM take
// ("avx2 avx512f avx512vnni"), for the report: what a figure under another engine depends on.
std::string cpu_features();

}  // namespace qlint::sim
