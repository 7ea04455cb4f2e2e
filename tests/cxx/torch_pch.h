// The LibTorch headers every C++ fixture includes, precompiled once by the build
// (tests/CMakeLists.txt) and shared by all fixtures: parsing them costs seconds per file.
#pragma once
#include <torch/script.h>
