// SARIF paths (cli/formats.h, docs/code-scanning.md): every artifact location is a URI that
// code scanning and other SARIF viewers resolve, relative to %SRCROOT% (the working directory)
// for files under it, a file:/// URI otherwise, and none at all for Python's pseudo-files.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/formats.h"

namespace qlint::cli {
namespace {

using json = nlohmann::json;

struct PathCase {
  const char* path;
  const char* cwd;
  std::optional<json> expected;  // nullopt: a pseudo-file, no artifact location
};

json relative(const char* uri) { return {{"uri", uri}, {"uriBaseId", "%SRCROOT%"}}; }
json absolute(const char* uri) { return {{"uri", uri}}; }

const PathCase kPathCases[] = {
    // Relative to the working directory: a relative reference under %SRCROOT%.
    {"examples/seed/s1_eq_one.py", "/work/main", relative("examples/seed/s1_eq_one.py")},
    {"./examples/./seed//s1_eq_one.py", "/work/main", relative("examples/seed/s1_eq_one.py")},
    {"examples/rules/../seed/s1_eq_one.py", "/work/main", relative("examples/seed/s1_eq_one.py")},
    {"/work/main/examples/seed/s1_eq_one.py", "/work/main", relative("examples/seed/s1_eq_one.py")},
    {"/work/main/examples/seed/s1_eq_one.py", "/work/main/", relative("examples/seed/s1_eq_one.py")},
    {"/work/main/build/tests/models/state_dict.pt", "/work/main", relative("build/tests/models/state_dict.pt")},
    {"~user/model.py", "/work/main", relative("~user/model.py")},  // `~` is unreserved
    {"/x.py", "/", relative("x.py")},
    // Absolute POSIX paths outside the working directory: file URIs.
    {"/usr/lib/python3/dist-packages/model.py", "/work/main",
     absolute("file:///usr/lib/python3/dist-packages/model.py")},
    {"/work/mainline/model.py", "/work/main", absolute("file:///work/mainline/model.py")},  // not under /work/main
    {"/work/main", "/work/main", absolute("file:///work/main")},                            // the directory itself
    {"//tmp/model.py", "/work/main", absolute("file:///tmp/model.py")},  // POSIX: `//` is `/`, not UNC
    {"/tmp/./a/../model.py", "/work/main", absolute("file:///tmp/model.py")},
    // `..` leaving the working directory: resolved against it, a file URI.
    {"../other/model.py", "/work/main", absolute("file:///work/other/model.py")},
    {"examples/../../model.py", "/work/main", absolute("file:///work/model.py")},
    {"../../../../model.py", "/work/main", absolute("file:///model.py")},
    {"/work/main/../other/model.py", "/work/main", absolute("file:///work/other/model.py")},
    {"/work/main/examples/../../main/x.py", "/work/main", relative("x.py")},
    // Windows paths recorded by a model exported on Windows: file URIs with the drive's colon.
    {"C:\\work\\model.py", "/work/main", absolute("file:///C:/work/model.py")},
    {"C:/work/model.py", "/work/main", absolute("file:///C:/work/model.py")},
    {"c:\\Users\\me\\My Models\\model.py", "/work/main", absolute("file:///c:/Users/me/My%20Models/model.py")},
    {"D:\\work/mixed\\model.py", "/work/main", absolute("file:///D:/work/mixed/model.py")},
    {"C:\\work\\sub\\..\\.\\model.py", "/work/main", absolute("file:///C:/work/model.py")},
    {"C:\\", "/work/main", absolute("file:///C:/")},
    {"\\\\?\\C:\\work\\model.py", "/work/main", absolute("file:///C:/work/model.py")},
    // UNC paths: the server is the URI's host.
    {"\\\\server\\share\\x.py", "/work/main", absolute("file://server/share/x.py")},
    {"\\\\server\\share\\dir with space\\x.py", "/work/main", absolute("file://server/share/dir%20with%20space/x.py")},
    {"\\\\?\\UNC\\server\\share\\x.py", "/work/main", absolute("file://server/share/x.py")},
    // Percent-escaping in UTF-8, relative and absolute alike.
    {"my models/s1 eq one.py", "/work/main", relative("my%20models/s1%20eq%20one.py")},
    {"/work/main/issue#11.py", "/work/main", relative("issue%2311.py")},
    {"/srv/100%/what?.py", "/work/main", absolute("file:///srv/100%25/what%3F.py")},
    {"模型/模型.py", "/work/main", relative("%E6%A8%A1%E5%9E%8B/%E6%A8%A1%E5%9E%8B.py")},
    {"/opt/données/modèle.py", "/work/main", absolute("file:///opt/donn%C3%A9es/mod%C3%A8le.py")},
    {"/opt/🙂.py", "/work/main", absolute("file:///opt/%F0%9F%99%82.py")},
    {"a:b.py", "/work/main", relative("a%3Ab.py")},             // not a URI scheme
    {"dir\\file.py", "/work/main", relative("dir%5Cfile.py")},  // relative: a POSIX name with a backslash
    {"a+b[1]@x,y;z=(1)&'!$*.py", "/work/main", relative("a%2Bb%5B1%5D%40x%2Cy%3Bz%3D%281%29%26%27%21%24%2A.py")},
    {"a<b>.py", "/work/main", relative("a%3Cb%3E.py")},  // `<` only inside a name: a file
    // A working directory with spaces and non-ASCII text compares unescaped.
    {"/home/me/my repo/模型.py", "/home/me/my repo", relative("%E6%A8%A1%E5%9E%8B.py")},
    // The working directory unknown: relative paths stay relative (even with `..`).
    {"examples/seed/s1_eq_one.py", "", relative("examples/seed/s1_eq_one.py")},
    {"../model.py", "", relative("../model.py")},
    {"/tmp/my model.py", "", absolute("file:///tmp/my%20model.py")},
    // Pseudo-files: no artifact.
    {"<eval_with_key>.7", "/work/main", std::nullopt},
    {"<string>", "/work/main", std::nullopt},
    {"<stdin>", "/work/main", std::nullopt},
    {"<frozen importlib._bootstrap>", "/work/main", std::nullopt},
    {"/work/main/<eval_with_key>.7", "/work/main", std::nullopt},  // os.path.abspath of one
    {"", "/work/main", std::nullopt},
};

TEST(SarifPaths, ArtifactLocations) {
  for (const auto& c : kPathCases) {
    SCOPED_TRACE(std::string("path \"") + c.path + "\", cwd \"" + c.cwd + "\"");
    auto location = sarif_artifact_location(c.path, c.cwd);
    if (!c.expected) {
      EXPECT_FALSE(location.has_value()) << location->dump();
      continue;
    }
    ASSERT_TRUE(location.has_value());
    EXPECT_EQ(*location, *c.expected);
  }
}

TEST(SarifPaths, PseudoFiles) {
  EXPECT_TRUE(is_pseudo_file("<eval_with_key>.7"));
  EXPECT_TRUE(is_pseudo_file("<string>"));
  EXPECT_TRUE(is_pseudo_file("C:\\work\\<eval_with_key>.0"));
  EXPECT_FALSE(is_pseudo_file("examples/seed/s1_eq_one.py"));
  EXPECT_FALSE(is_pseudo_file("a<b>.py"));
  EXPECT_FALSE(is_pseudo_file(""));
}

TEST(SarifPaths, DirectoryUrisEndInASlash) {
  EXPECT_EQ(sarif_directory_uri("/work/main"), "file:///work/main/");
  EXPECT_EQ(sarif_directory_uri("/work/main/"), "file:///work/main/");
  EXPECT_EQ(sarif_directory_uri("/home/me/my repo#2/模型"), "file:///home/me/my%20repo%232/%E6%A8%A1%E5%9E%8B/");
  EXPECT_EQ(sarif_directory_uri("/"), "file:///");
}

Diagnostic finding(const std::string& file, int line, int column) {
  Diagnostic d;
  d.rule = "eq-nonzero-const";
  d.message = "`==` compares a quantized tensor with 1";
  d.loc.file = file;
  d.loc.line = d.loc.end_line = line;
  d.loc.column = column;
  d.loc.end_column = column + 4;
  return d;
}

// The log as a whole: the base id, results located in a file, at a pseudo-file (the model file
// plus a logical location), without a location, and unreadable models.
TEST(SarifPaths, RenderedLogUsesTheBaseIdAndLeavesPseudoFilesOut) {
  ModelReport report;
  report.model_file = "/work/main/build/examples/fx/seed/s1 eq.fx.json";
  report.model = std::make_shared<ir::Model>();
  report.diagnostics.push_back(finding("/work/main/examples/seed/s1 eq.py", 16, 16));
  report.diagnostics.push_back(finding("<eval_with_key>.7", 5, 9));
  report.diagnostics.push_back(finding("", 0, 0));  // no debug info
  std::vector<InputError> errors = {{"/tmp/other models/state dict.pt", "a state_dict, not a model"},
                                    {"<stdin>", "not a model"}};
  json log = render_sarif({report}, errors, "/work/main");
  const json& run = log["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"], json::parse(R"({"%SRCROOT%": {"uri": "file:///work/main/"}})"));
  const json model_file = relative("build/examples/fx/seed/s1%20eq.fx.json");

  ASSERT_EQ(run["results"].size(), 3u);
  const json& in_file = run["results"][0]["locations"][0];
  EXPECT_EQ(in_file["physicalLocation"]["artifactLocation"], relative("examples/seed/s1%20eq.py"));
  EXPECT_EQ(in_file["physicalLocation"]["region"]["startLine"], 16);
  EXPECT_FALSE(in_file.contains("logicalLocations"));

  const json& generated = run["results"][1];
  EXPECT_EQ(generated["message"]["text"], "`==` compares a quantized tensor with 1");
  ASSERT_EQ(generated["locations"].size(), 1u);
  EXPECT_EQ(generated["locations"][0]["physicalLocation"], json({{"artifactLocation", model_file}}));
  EXPECT_EQ(generated["locations"][0]["logicalLocations"],
            json::parse(R"([{"name": "<eval_with_key>.7", "kind": "module"}])"));
  EXPECT_EQ(generated["locations"][0]["message"]["text"], "<eval_with_key>.7:5:9 (no source file)");

  const json& unknown = run["results"][2]["locations"][0];
  EXPECT_EQ(unknown, json({{"physicalLocation", {{"artifactLocation", model_file}}}}));

  const json& notifications = run["invocations"][0]["toolExecutionNotifications"];
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], false);
  ASSERT_EQ(notifications.size(), 2u);
  EXPECT_EQ(notifications[0]["locations"][0]["physicalLocation"]["artifactLocation"],
            absolute("file:///tmp/other%20models/state%20dict.pt"));
  EXPECT_FALSE(notifications[1].contains("locations"));
  EXPECT_EQ(notifications[1]["message"]["text"], "not a model");
}

TEST(SarifPaths, UnknownWorkingDirectoryGivesNoBaseUri) {
  json log = render_sarif({}, {}, "");
  EXPECT_FALSE(log["runs"][0].contains("originalUriBaseIds"));
}

}  // namespace
}  // namespace qlint::cli
