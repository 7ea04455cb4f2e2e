// "Ignore in this file" (cli/server/config_edits.h): the edits of a configuration's text that add
// a rule to its per-file-ignores, each expected text written out in full.
#include <gtest/gtest.h>

#include "cli/server/config_edits.h"

namespace qlint::server {
namespace {

const char* const kRule = "eq-nonzero-const";

std::optional<std::string> ignored(const std::string& text, const std::string& config = "/ws/.qlint.toml") {
  return with_file_ignored(text, config, "/ws/src/model.py", kRule);
}

TEST(IgnoreInFile, ANewTableInAFileWithoutOne) {
  EXPECT_EQ(ignored(""), "[per-file-ignores]\n\"src/model.py\" = [\"eq-nonzero-const\"]\n");
  EXPECT_EQ(ignored("bits = 16\n"), "bits = 16\n\n[per-file-ignores]\n\"src/model.py\" = [\"eq-nonzero-const\"]\n");
  EXPECT_EQ(ignored("bits = 16"), "bits = 16\n[per-file-ignores]\n\"src/model.py\" = [\"eq-nonzero-const\"]\n");
}

TEST(IgnoreInFile, AnEntryInTheTableThatIsThere) {
  EXPECT_EQ(
      ignored("[per-file-ignores]  # legacy\n\"old/*\" = [\"bool-arith\"]\n\n[severity]\nbool-arith = \"error\"\n"),
      "[per-file-ignores]  # legacy\n\"src/model.py\" = [\"eq-nonzero-const\"]\n\"old/*\" = [\"bool-arith\"]\n\n"
      "[severity]\nbool-arith = \"error\"\n");
}

TEST(IgnoreInFile, TheRuleAddedToTheFilesOneLineEntry) {
  EXPECT_EQ(ignored("[per-file-ignores]\n'src/model.py' = [\"bool-arith\"]  # why\n"),
            "[per-file-ignores]\n'src/model.py' = [\"bool-arith\", \"eq-nonzero-const\"]  # why\n");
  EXPECT_EQ(ignored("[per-file-ignores]\n\"src/model.py\" = []\n"),
            "[per-file-ignores]\n\"src/model.py\" = [\"eq-nonzero-const\"]\n");
}

TEST(IgnoreInFile, GlobCharactersInTheFileNameAreEscaped) {
  // fnmatch's escapes: the entry names this file, not `src/ab.py` too. In TOML, `\\` is one `\`.
  EXPECT_EQ(with_file_ignored("", "/ws/.qlint.toml", "/ws/src/a*[1].py", kRule),
            "[per-file-ignores]\n\"src/a\\\\*\\\\[1].py\" = [\"eq-nonzero-const\"]\n");
}

TEST(IgnoreInFile, PyprojectGetsItsToolTable) {
  EXPECT_EQ(ignored("[project]\nname = \"m\"\n\n[tool.qlint]\nbits = 8\n", "/ws/pyproject.toml"),
            "[project]\nname = \"m\"\n\n[tool.qlint]\nbits = 8\n\n[tool.qlint.per-file-ignores]\n"
            "\"src/model.py\" = [\"eq-nonzero-const\"]\n");
  EXPECT_EQ(ignored("[tool.qlint]\n[tool . qlint.per-file-ignores]\n", "/ws/pyproject.toml"),
            "[tool.qlint]\n[tool . qlint.per-file-ignores]\n\"src/model.py\" = [\"eq-nonzero-const\"]\n");
}

TEST(IgnoreInFile, NothingWhereAnEditWouldBeAGuess) {
  // Ignored already (by this entry, or a glob).
  EXPECT_EQ(ignored("[per-file-ignores]\n\"src/*.py\" = [\"eq-nonzero-const\"]\n"), std::nullopt);
  // A multi-line array, an inline table, dotted keys: written in a way qlint does not rewrite.
  EXPECT_EQ(ignored("[per-file-ignores]\n\"src/model.py\" = [\n  \"bool-arith\",\n]\n"), std::nullopt);
  EXPECT_EQ(ignored("per-file-ignores = { \"old/*\" = [\"bool-arith\"] }\n"), std::nullopt);
  EXPECT_EQ(ignored("per-file-ignores.\"old/*\" = [\"bool-arith\"]\n"), std::nullopt);
  // A file outside the configuration's directory (globs are relative to it).
  EXPECT_EQ(with_file_ignored("", "/ws/sub/.qlint.toml", "/ws/src/model.py", kRule), std::nullopt);
  // A line no hand-written configuration has (the edit matches lines with std::regex).
  EXPECT_EQ(ignored("bits = 16" + std::string(50000, ' ') + "\n"), std::nullopt);
  // A configuration qlint cannot read.
  EXPECT_EQ(ignored("bits = [\n"), std::nullopt);
  EXPECT_EQ(ignored("bits = 12\n"), std::nullopt);
}

}  // namespace
}  // namespace qlint::server
