// Reads a TorchScript archive with LibTorch and imports every method reachable from
// `forward` (submodule methods and free functions included) into qlint's IR.
#pragma once

#include <string>

#include "ir/import_error.h"
#include "ir/ir.h"

namespace qlint::torchscript {

using ImportError = ir::ImportError;

// Throws ImportError; never lets a LibTorch exception escape.
ir::Model import_torchscript(const std::string& path);

// Checks, before LibTorch sees the file, that it can be a TorchScript archive, and names what
// it is otherwise (missing, a directory, empty, not a zip, a torch.save pickle, a state_dict).
// Throws ImportError.
void probe_archive(const std::string& path);

}  // namespace qlint::torchscript
