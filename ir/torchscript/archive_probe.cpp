// Tells apart the files users mistake for TorchScript archives, so that each gets one clear
// line instead of a LibTorch exception: torch.save(model) pickles, state_dicts, tensors,
// legacy (pre-1.6) torch.save files, truncated archives and arbitrary bytes.
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "ir/archive_check.h"
#include "ir/input_file.h"
#include "ir/load_hooks.h"
#include "ir/torchscript/importer.h"

namespace qlint::torchscript {

namespace {

namespace fs = std::filesystem;

const char* const kExportHint = "export it with torch.jit.script(model).save(\"model.pt\")";

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
  try {
    ir::check_regular_file(path, UINT64_MAX, "");
  } catch (const ImportError& e) {
    if (std::string(e.what()) == "is a directory")
      throw ImportError("is a directory with no models (*.pt, *.pth, *.ptl, *.jit, *.torchscript, *.fx.json) in it");
    throw;
  }
  std::error_code ec;
  if (fs::file_size(path, ec) == 0) throw ImportError("is empty, not a TorchScript archive");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string record(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name) {
  auto [data, size] = reader.getRecord(name);
  return std::string(static_cast<const char*>(data.get()), size);
}

bool is_int(const c10::IValue& v) { return v.isInt(); }

constexpr int kMaxCodeNesting = 256;

// The objects of registered C++ classes (torch.classes: packed parameters, a custom operator
// library's classes) a pickle builds, from the classes it names: the unpickler runs each one's
// registered __setstate__, C++ code, on the state the archive gives it. The archive's own
// classes are vetted in their code records (ir/load_hooks.h).
std::vector<std::string> registered_class_hooks(const std::vector<std::string>& globals) {
  static const std::string kRegistered = "__torch__.torch.classes.";
  std::vector<std::string> out;
  for (const std::string& global : globals)
    if (global.rfind(kRegistered, 0) == 0)
      out.push_back("builds an object of " + ir::printable(global.substr(10), 120) +
                    ", a registered C++ class whose __setstate__ runs on the archive's data");
  return out;
}

// The deepest bracket nesting, or indentation in levels of one space, of serialized code.
int nesting_depth(const std::string& code) {
  int deepest = 0, depth = 0, indent = 0;
  bool line_start = true;
  for (char c : code) {
    if (line_start && c == ' ') {
      deepest = std::max(deepest, ++indent / 2);
      continue;
    }
    line_start = c == '\n';
    if (line_start) indent = 0;
    if (c == '(' || c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

// What a debug_pkl holds for LibTorch 1.13's SourceRangeDeserializer, which unpickles it lazily,
// when a location is first asked for, and trusts every number: ("FORMAT_WITH_STRING_TABLE",
// texts, entries) with entries (byte offset, ((text indices, file index, first line), start,
// end), tag), every index inside the text table and every range inside its text; or the older
// (byte offset, ((text, file, first line), start, end)) entries. `repaired` is set when the
// only fault is a range ending past its text, which PyTorch 1.13 writes itself: it measures a
// float literal with an exponent by its printed form (`-1e9` as `-1000000000.`), so the
// literal's range and every range around it end a few bytes late. The repair ends them at
// their text's end (their lines stay right; columns after such a literal run to the line's end).
struct DebugInfoCheck {
  bool valid = false;
  std::optional<std::string> repaired;
};

// The entry `e` with the range's end `end` (the old layout's too).
c10::IValue with_range_end(const std::vector<c10::IValue>& e, int64_t end) {
  const auto& range = e[1].toTupleRef().elements();
  std::vector<c10::IValue> fields = e;
  fields[1] = c10::ivalue::Tuple::create({range[0], range[1], c10::IValue(end)});
  return c10::ivalue::Tuple::create(std::move(fields));
}

DebugInfoCheck check_debug_info(const std::string& bytes) {
  if (!ir::pickle_problem(bytes).empty()) return {};
  c10::IValue root = torch::jit::unpickle(bytes.data(), bytes.size());
  if (!root.isTuple()) return {};
  const auto& top = root.toTupleRef().elements();
  std::vector<std::string> texts;
  const c10::IValue* entries = &root;
  bool table = top.size() == 3 && top[0].isString() && top[0].toStringRef() == "FORMAT_WITH_STRING_TABLE";
  if (table) {
    if (!top[1].isTuple() || !top[2].isTuple()) return {};
    for (const auto& t : top[1].toTupleRef().elements()) {
      if (!t.isString()) return {};
      texts.push_back(t.toStringRef());
    }
    entries = &top[2];
  }
  int64_t previous = 0;
  bool overrun = false;
  std::vector<c10::IValue> checked;
  const int64_t max_line = static_cast<int64_t>(std::min<uint64_t>(ir::limits().line, INT32_MAX));
  for (const auto& entry : entries->toTupleRef().elements()) {
    if (!entry.isTuple()) return {};
    const auto& e = entry.toTupleRef().elements();
    if (e.size() < 2 || e.size() > 3 || !is_int(e[0]) || !e[1].isTuple() || (e.size() == 3 && !is_int(e[2]))) return {};
    if (e[0].toInt() < previous) return {};  // looked up by binary search
    previous = e[0].toInt();
    const auto& range = e[1].toTupleRef().elements();
    if (range.size() != 3 || !range[0].isTuple() || !is_int(range[1]) || !is_int(range[2])) return {};
    const auto& source = range[0].toTupleRef().elements();
    if (source.size() != 3 || !is_int(source[2]) || source[2].toInt() < 0 || source[2].toInt() > max_line) return {};
    uint64_t length = 0;
    if (table) {
      if (!source[0].isIntList() || !is_int(source[1])) return {};
      for (int64_t index : source[0].toIntVector()) {
        if (index < 0 || static_cast<uint64_t>(index) >= texts.size()) return {};
        length += texts[static_cast<size_t>(index)].size();
      }
      if (source[1].toInt() < 0 || static_cast<uint64_t>(source[1].toInt()) >= texts.size()) return {};
    } else {
      if (!source[0].isString() || !(source[1].isString() || source[1].isNone())) return {};
      length = source[0].toStringRef().size();
    }
    int64_t start = range[1].toInt(), end = range[2].toInt();
    // PyTorch itself writes (0, 1) on an empty text: one past the end is its own.
    if (start < 0 || end < start || static_cast<uint64_t>(start) > length + 1) return {};
    const bool late = static_cast<uint64_t>(end) > length + 1;
    overrun = overrun || late;
    checked.push_back(late ? with_range_end(e, std::max<int64_t>(start, static_cast<int64_t>(length))) : entry);
  }
  DebugInfoCheck result{true, std::nullopt};
  if (overrun) {
    c10::IValue fixed = c10::ivalue::Tuple::create(std::move(checked));
    if (table) fixed = c10::ivalue::Tuple::create({top[0], top[1], fixed});
    std::vector<char> pickled = torch::jit::pickle(fixed);
    result.repaired = std::string(pickled.begin(), pickled.end());
  }
  return result;
}

}  // namespace

ArchiveFile open_archive(const std::string& path) {
  check_file(path);
  return ArchiveFile::open(path);
}

ProbeResult probe_archive(const ArchiveFile& archive) {
  std::string magic = archive.read_at(0, 4);
  if (magic.size() >= 2 && static_cast<unsigned char>(magic[0]) == 0x80)
    throw ImportError("is a legacy (pre-1.6) torch.save file, not a TorchScript archive; " + std::string(kExportHint));
  if (magic == std::string("PK\x05\x06", 4)) throw ImportError("is an empty zip archive, not a TorchScript archive");
  if (magic != std::string("PK\x03\x04", 4)) throw ImportError("is not a TorchScript archive (not a zip file)");
  ProbeResult result;
  // The directory first, against the limits: LibTorch allocates what it says.
  result.directory = ir::read_zip_directory_with(
      [&archive](uint64_t offset, uint64_t n) { return archive.read_at(offset, n); }, archive.size());
  std::string problem;
  try {
    caffe2::serialize::PyTorchStreamReader reader(archive.reader());
    if (!is_torchscript(reader)) {
      problem = describe_pickle(data_pickle(reader));
    } else {
      std::vector<std::string> class_hooks;
      for (const char* name : {"data.pkl", "constants.pkl"}) {
        if (!reader.hasRecord(name)) continue;
        std::vector<std::string> globals;
        std::string why = ir::pickle_problem(record(reader, name), &globals);
        if (!why.empty()) throw ImportError(std::string("is a corrupt TorchScript archive: ") + name + ": " + why);
        for (const std::string& hook : registered_class_hooks(globals))
          class_hooks.push_back(std::string(name) + " " + hook);
      }
      for (const auto& name : reader.getAllRecords()) {
        if (ends_with(name, ".debug_pkl")) {
          DebugInfoCheck check;
          try {
            check = check_debug_info(record(reader, name));
          } catch (const std::exception&) {  // c10::Error from the unpickler
          }
          if (!check.valid) result.debug_info_valid = false;
          if (check.repaired) result.repaired_debug_info[name] = std::move(*check.repaired);
        } else if (ir::is_code_record(name)) {
          std::string code = record(reader, name);
          // LibTorch compiles code/ with a recursive-descent parser: nesting past any real
          // model's would overflow its stack.
          if (nesting_depth(code) > kMaxCodeNesting)
            throw ImportError("its code (" + ir::printable(name, 120) + ") nests brackets or blocks deeper than " +
                              std::to_string(kMaxCodeNesting) +
                              " levels; refused, LibTorch could not compile it safely");
          for (const ir::LoadHook& hook : ir::load_hooks(code))
            result.load_hooks.push_back(ir::printable(name, 120) + " " + hook.describe());
        }
        if (name.rfind("extra/", 0) == 0) result.extra_files.push_back(name.substr(6));
      }
      // The format before 1.4 names its code records in model.json, under any name: qlint does
      // not vet it, so it counts as code that may run.
      if (reader.hasRecord("model.json"))
        result.load_hooks.push_back("model.json (the pre-1.4 format, whose code records qlint does not read)");
      result.load_hooks.insert(result.load_hooks.end(), class_hooks.begin(), class_hooks.end());
      return result;
    }
  } catch (const ImportError&) {
    throw;
  } catch (const std::exception&) {
    problem = "is a truncated or corrupt zip archive";
  }
  throw ImportError(problem);
}

}  // namespace qlint::torchscript
