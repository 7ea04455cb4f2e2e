// Tells apart the files users mistake for TorchScript archives, so that each gets one clear
// line instead of a LibTorch exception: torch.save(model) pickles, state_dicts, tensors,
// legacy (pre-1.6) torch.save files, truncated archives and arbitrary bytes.
#include <caffe2/serialize/inline_container.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "ir/torchscript/importer.h"

namespace qlint::torchscript {

namespace {

namespace fs = std::filesystem;

const char* const kExportHint = "export it with torch.jit.script(model).save(\"model.pt\")";

std::string read_prefix(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

// The class a pickle builds first: "module.Name" for protocol 2 (GLOBAL) and protocol 4
// (STACK_GLOBAL of two short strings), or nullopt when it starts with a plain container.
std::optional<std::string> first_pickled_class(const std::string& pickle) {
  size_t pos = 0;
  if (pickle.size() >= 2 && static_cast<unsigned char>(pickle[0]) == 0x80) pos = 2;      // PROTO
  if (pos < pickle.size() && static_cast<unsigned char>(pickle[pos]) == 0x95) pos += 9;  // FRAME
  if (pos >= pickle.size()) return std::nullopt;
  if (pickle[pos] == 'c') {
    size_t module_end = pickle.find('\n', pos + 1);
    if (module_end == std::string::npos) return std::nullopt;
    size_t name_end = pickle.find('\n', module_end + 1);
    if (name_end == std::string::npos) return std::nullopt;
    return pickle.substr(pos + 1, module_end - pos - 1) + "." +
           pickle.substr(module_end + 1, name_end - module_end - 1);
  }
  std::vector<std::string> strings;
  while (strings.size() < 2 && pos + 1 < pickle.size() &&
         static_cast<unsigned char>(pickle[pos]) == 0x8c) {  // SHORT_BINUNICODE
    size_t len = static_cast<unsigned char>(pickle[pos + 1]);
    strings.push_back(pickle.substr(pos + 2, len));
    pos += 2 + len;
    if (pos < pickle.size() && static_cast<unsigned char>(pickle[pos]) == 0x94) ++pos;  // MEMOIZE
  }
  if (strings.size() == 2) return strings[0] + "." + strings[1];
  return std::nullopt;
}

std::string describe_pickle(const std::string& pickle) {
  auto cls = first_pickled_class(pickle);
  if (!cls) {
    if (pickle.find("_rebuild_tensor") != std::string::npos)
      return "holds tensors saved with torch.save (a state_dict or a container of tensors), "
             "not a TorchScript model; qlint needs the model's code: " +
             std::string(kExportHint);
    return "holds a Python object saved with torch.save, not a TorchScript model; " + std::string(kExportHint);
  }
  if (*cls == "collections.OrderedDict")
    return "holds a state_dict (weights only) saved with torch.save, not a TorchScript model; "
           "qlint needs the model's code: " +
           std::string(kExportHint);
  if (cls->rfind("torch._utils._rebuild", 0) == 0)
    return "holds a tensor saved with torch.save, not a TorchScript model";
  return "is a torch.save() pickle of the Python object " + *cls +
         ", not TorchScript; qlint cannot run Python code: " + std::string(kExportHint);
}

std::string data_pickle(caffe2::serialize::PyTorchStreamReader& reader) {
  if (!reader.hasRecord("data.pkl")) return "";
  auto [data, size] = reader.getRecord("data.pkl");
  return std::string(static_cast<const char*>(data.get()), size);
}

bool is_torchscript(caffe2::serialize::PyTorchStreamReader& reader) {
  if (reader.hasRecord("constants.pkl")) return true;
  for (const auto& name : reader.getAllRecords())
    if (name.rfind("code/", 0) == 0) return true;
  return false;
}

void check_file(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw ImportError("no such file");
  if (fs::is_directory(status))
    throw ImportError("is a directory with no models (*.pt, *.pth, *.ptl, *.jit, *.torchscript, *.fx.json) in it");
  if (!fs::is_regular_file(status)) throw ImportError("is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError("cannot be opened for reading");
  if (fs::file_size(path, ec) == 0) throw ImportError("is empty, not a TorchScript archive");
}

}  // namespace

void probe_archive(const std::string& path) {
  check_file(path);
  std::string magic = read_prefix(path, 4);
  if (magic.size() >= 2 && static_cast<unsigned char>(magic[0]) == 0x80)
    throw ImportError("is a legacy (pre-1.6) torch.save file, not a TorchScript archive; " + std::string(kExportHint));
  if (magic != std::string("PK\x03\x04", 4)) throw ImportError("is not a TorchScript archive (not a zip file)");
  std::string problem;
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (is_torchscript(reader)) return;
    problem = describe_pickle(data_pickle(reader));
  } catch (const std::exception&) {
    problem = "is a truncated or corrupt zip archive";
  }
  throw ImportError(problem);
}

}  // namespace qlint::torchscript
