#include "cli/cxx_notes.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <string>

#include "ir/archive_flag.h"
#include "ir/display.h"
#include "ir/input_file.h"

namespace qlint::cli {

namespace {

// A model loaded from different archives (a loader's calls pass different paths, a field is set
// from two): which they are, that none is taken, and that an `--archive` for the loader's
// parameter is no way out, since it would give every object and call the same archive.
// `attr` is "SOURCES\nPARAMETER,PARAMETER".
std::string conflicting_archives(const std::string& attr) {
  const size_t cut = attr.find('\n');
  std::string note = "this model is loaded from different archives, " + ir::printable(attr.substr(0, cut), 600) +
                     "; qlint reads this code once for all of its objects and calls, so it cannot tell which one "
                     "runs here: it takes none of them and counts this model's outputs as unquantized";
  std::vector<std::string> flags;
  std::istringstream parameters(cut == std::string::npos ? "" : attr.substr(cut + 1));
  for (std::string p; std::getline(parameters, p, ',');)
    if (!p.empty()) flags.push_back(ir::archive_flag(ir::printable(p, 200)));
  if (flags.empty()) return note;
  std::string named = flags[0];
  for (size_t i = 1; i < flags.size(); ++i) named += (i + 1 == flags.size() ? " or " : ", ") + flags[i];
  return note + "; " + named + " is not applied here, as it would give all of them one archive";
}

// The first three lines of a note's attribute ("A\nB\nC"), missing ones empty.
std::array<std::string, 3> three_lines(const std::string& attr) {
  std::istringstream parts(attr);
  std::array<std::string, 3> lines;
  for (std::string& line : lines) std::getline(parts, line);
  return lines;
}

// An `--archive NAME=PATH` whose NAME fits several variables (`kModelPath` of two classes):
// which ones, and the qualified name of the one this model loads. `attr` is "NAME\nTHIS\nA, B".
std::string ambiguous_archive(const std::string& attr) {
  const auto [name, self, fits] = three_lines(attr);
  return ir::archive_flag(ir::printable(name, 200)) + " fits several variables (" + ir::printable(fits, 600) +
         "), so it is not applied to any of them; name the one this model loads as it is qualified, " +
         ir::archive_flag(ir::printable(self, 200)) + "; qlint counts this model's outputs as unquantized";
}

// A model another file runs or loads whose archive is not known there. `attr` is
// "NAME\nWHERE\nWHY": "`Scorer::score` returns the outputs of the TorchScript model it runs in
// runner.cc:7, and ...", "`Net::module_` is loaded in net.cpp:12, and ...".
std::string model_elsewhere(const std::string& attr, const char* done_there, const char* outputs) {
  const auto [name, where, why] = three_lines(attr);
  return "`" + ir::printable(name, 200) + "` " + done_there + " " + ir::printable(where, 200) + ", and " +
         ir::printable(why, 400) + "; qlint counts " + outputs + " as unquantized";
}

// The `--archive` that names the path variable of a load: its qualified name when the bare one
// names several functions' variables.
std::string archive_advice(const ir::Node& n, const std::string& variable, const SharedArchiveNames& shared) {
  const ir::Attr* qualified = n.attr("unnamed_archive_qualified");
  auto several = shared.find(variable);
  if (qualified == nullptr || several == shared.end())
    return "give its path with " + ir::archive_flag(ir::printable(variable, 200));
  std::string names;
  for (const std::string& name : several->second.functions) names += (names.empty() ? "" : ", ") + name;
  if (several->second.bare_applies)
    return "give its path with " + ir::archive_flag(ir::printable(variable, 200)) +
           ", which gives every model named so (" + ir::printable(names, 600) +
           ") that one archive; if they run different archives, name this one as it is qualified, " +
           ir::archive_flag(ir::printable(qualified->s, 200));
  return "`" + ir::printable(variable, 200) + "` alone would name variables of several functions (" +
         ir::printable(names, 600) + "), so name the one this model loads as it is qualified, " +
         ir::archive_flag(ir::printable(qualified->s, 200));
}

// A model run whose archive qlint could not read, or could not name: its outputs counted as
// unquantized.
void notes_of(const ir::Node& n, NotesFor reader, const SharedArchiveNames& shared, std::vector<ToolNote>& out) {
  auto add = [&](std::string message) { out.push_back({n.loc, std::move(message)}); };
  auto str = [&](const char* name) -> const ir::Attr* {
    const ir::Attr* a = n.attr(name);
    return a != nullptr && a->kind == ir::Attr::Kind::Str ? a : nullptr;
  };
  // The plugin takes no `--archive` that would help (public C++ round 23: it advised one).
  if (const ir::Attr* variable = str("unnamed_archive"); variable != nullptr && reader == NotesFor::QlintCxx)
    add("the TorchScript archive this model runs is named by `" + ir::printable(variable->s, 200) +
        "`: " + archive_advice(n, variable->s, shared) + "; qlint counts this model's outputs as unquantized");
  else if (variable != nullptr)
    add("the TorchScript archive this model runs is named by `" + ir::printable(variable->s, 200) +
        "`, and the compiler plugin reads no archive (it loads no LibTorch): `qlint cxx " +
        ir::archive_flag(ir::printable(variable->s, 200)).substr(1) +
        " checks this model's outputs; qlint counts them as unquantized here");
  if (const ir::Attr* conflict = str("archive_conflict")) add(conflicting_archives(conflict->s));
  if (const ir::Attr* misfit = str("archive_misfit"))
    add(ir::printable(misfit->s, 400) + ", so the run would fail with it: is it the archive this code loads?");
  if (const ir::Attr* kept = str("container_model"))
    add("this model is `" + ir::printable(kept->s, 200) +
        "`, an element of a container (a std::vector or std::map), which qlint does not follow to the archive it "
        "loads; qlint counts this model's outputs as unquantized");
  if (const ir::Attr* from = str("unfollowed_model"))
    add("this model is what `" + ir::printable(from->s, 200) +
        "` returns, which loads no one archive qlint can name (none, or one of several); qlint counts this "
        "model's outputs as unquantized");
  if (const ir::Attr* ambiguous = str("archive_ambiguous")) add(ambiguous_archive(ambiguous->s));
  if (const ir::Attr* object = str("unlinked_model"))
    add("qlint does not see which TorchScript archive `" + ir::printable(object->s, 200) +
        "` holds (it follows a `torch::jit::load` into a variable, a field or a smart pointer of this file, and "
        "the functions of the file that return one); qlint counts this model's outputs as unquantized");
  if (const ir::Attr* elsewhere = str("elsewhere_model"))
    add(model_elsewhere(elsewhere->s, "returns the outputs of the TorchScript model it runs in", "these outputs"));
  if (const ir::Attr* field = str("elsewhere_field"))
    add(model_elsewhere(field->s, "is loaded in", "this model's outputs"));
  if (const ir::Attr* field = str("unfollowed_field")) {
    const size_t cut = field->s.find('\n');
    add("`" + ir::printable(field->s.substr(0, cut), 200) +
        "` holds the outputs of a quantized TorchScript model set in " + ir::printable(field->s.substr(cut + 1), 300) +
        ", and qlint does not follow a field from one method into another; qlint counts it as unquantized here");
  }
  if (const ir::Attr* dict = str("unfollowed_dict"))
    add("this value of the model's output dict" +
        (dict->s.empty() ? std::string() : " `" + ir::printable(dict->s, 200) + "`") +
        " is not followed: the archive does not say what each key holds (its forward returns no dict with constant "
        "keys at the top), and a key's value may be exact (int64 class ids); qlint counts this value as unquantized");
  if (const ir::Attr* unread = str("unread_archive")) {
    const size_t cut = unread->s.find('\n');
    add("the TorchScript archive `" + ir::printable(unread->s.substr(0, cut), 200) + "` " +
        ir::printable(unread->s.substr(cut + 1), 400) + "; qlint counts this model's outputs as unquantized");
  }
}

}  // namespace

SharedArchiveNames shared_archive_names(const std::vector<const ir::Model*>& models) {
  std::map<std::string, std::map<std::string, std::set<size_t>>> used;  // NAME -> function's -> models
  for (size_t i = 0; i < models.size(); ++i)
    for (const auto& f : models[i]->functions)
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        const ir::Attr* variable = n.attr("unnamed_archive");
        const ir::Attr* qualified = n.attr("unnamed_archive_qualified");
        if (variable != nullptr && qualified != nullptr) used[variable->s][qualified->s].insert(i);
      });
  // As `--archive` decides (ir/cxx/importer.cpp, ambiguous_archive_names): functions that one
  // file holds all of take the bare name, as that file's reader sees them together.
  SharedArchiveNames shared;
  for (const auto& [name, functions] : used) {
    if (functions.size() < 2) continue;
    shared[name].bare_applies = ir::one_file_holds_all(functions);
    for (const auto& function : functions) shared[name].functions.insert(function.first);
  }
  return shared;
}

std::vector<ToolNote> model_notes(const ir::Model& model, NotesFor reader, const SharedArchiveNames& shared) {
  std::vector<ToolNote> out;
  for (const auto& f : model.functions)
    ir::for_each_node(f->body, [&](const ir::Node& n) { notes_of(n, reader, shared, out); });
  return out;
}

}  // namespace qlint::cli
