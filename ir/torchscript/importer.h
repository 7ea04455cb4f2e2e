// Reads a TorchScript archive with LibTorch and imports every method reachable from
// `forward` (submodule methods and free functions included) into qlint's IR.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/archive_check.h"
#include "ir/import_error.h"
#include "ir/ir.h"
#include "ir/torchscript/archive_file.h"

namespace qlint::torchscript {

using ImportError = ir::ImportError;

// Throws ImportError; never lets a LibTorch exception escape.
ir::Model import_torchscript(const std::string& path);

// Checks, before LibTorch sees the file, that it can be a TorchScript archive, and names what
// it is otherwise (missing, a directory, empty, not a zip, a torch.save pickle, a state_dict).
// Reads the zip directory and the pickles' headers first (ir/archive_check.h), against the
// limits. Throws ImportError.
struct ProbeResult {
  ir::ZipDirectory directory;
  bool debug_info_valid = true;  // false: load without it (locations unknown)
  // Debug info records whose ranges run past the end of their text, as PyTorch 1.13 itself
  // writes them after a float literal with an exponent (`-1e9`): the record's bytes with each
  // such end set to its text's end, which LibTorch then loads in its place.
  std::map<std::string, std::string> repaired_debug_info;
  // Where loading would run the archive's own code (ir/load_hooks.h): "code/__torch__.py line 9
  // defines __setstate__ (class M)"; empty when it runs none.
  std::vector<std::string> load_hooks;
  std::vector<std::string> extra_files;  // names under extra/ (torch.jit.save's _extra_files)
};
ProbeResult probe_archive(const ArchiveFile& archive);

// The archive opened (ArchiveFile), after checking that it is a file there is to read (not
// missing, a directory or empty: each said in one line). Throws ImportError.
ArchiveFile open_archive(const std::string& path);

}  // namespace qlint::torchscript
