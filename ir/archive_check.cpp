#include "ir/archive_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "ir/import_error.h"
#include "ir/input_file.h"

namespace qlint::ir {

namespace {

uint64_t le(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

[[noreturn]] void corrupt(const std::string& why) {
  throw ImportError("is a truncated or corrupt zip archive (" + why + ")");
}

constexpr uint32_t kEnd = 0x06054b50, kEnd64 = 0x06064b50, kLocator64 = 0x07064b50, kCentral = 0x02014b50;
constexpr uint64_t kDirectoryMax = 256ull << 20;  // a central directory this large is no model's

struct End {
  uint64_t entries = 0, dir_size = 0, dir_offset = 0, position = 0;
};

End find_end(const ReadAt& read, uint64_t file_size) {
  if (file_size < 22) corrupt("too short for a zip directory");
  uint64_t tail_size = std::min<uint64_t>(file_size, 22 + 65535);
  std::string tail = read(file_size - tail_size, tail_size);
  if (tail.size() != tail_size) corrupt("cannot read its end");
  for (size_t i = tail.size() - 22 + 1; i-- > 0;) {
    if (le(tail, i, 4) != kEnd) continue;
    End e;
    e.position = file_size - tail_size + i;
    e.entries = le(tail, i + 10, 2);
    e.dir_size = le(tail, i + 12, 4);
    e.dir_offset = le(tail, i + 16, 4);
    bool zip64 = e.entries == 0xFFFF || e.dir_size == 0xFFFFFFFF || e.dir_offset == 0xFFFFFFFF;
    if (!zip64) return e;
    if (e.position < 20) corrupt("no zip64 locator");
    std::string locator = read(e.position - 20, 20);
    if (locator.size() != 20 || le(locator, 0, 4) != kLocator64) corrupt("no zip64 locator");
    uint64_t at = le(locator, 8, 8);
    if (at > e.position || e.position - at < 56) corrupt("zip64 end record out of place");
    std::string end64 = read(at, 56);
    if (end64.size() != 56 || le(end64, 0, 4) != kEnd64) corrupt("bad zip64 end record");
    e.entries = le(end64, 32, 8);
    e.dir_size = le(end64, 40, 8);
    e.dir_offset = le(end64, 48, 8);
    e.position = at;
    return e;
  }
  corrupt("no end of central directory record");
}

bool is_pickle(const std::string& name) {
  return name.size() >= 4 && (name.compare(name.size() - 4, 4, ".pkl") == 0 ||
                              (name.size() >= 9 && name.compare(name.size() - 9, 9, "debug_pkl") == 0));
}

void check_limits(const ZipMember& m, uint64_t& total) {
  const Limits& l = limits();
  const std::string name = printable(m.name, 80);
  if (m.size > l.archive_member_bytes)
    throw ImportError(limit_error("its member " + name + " inflates to " + std::to_string(m.size) + " bytes, which",
                                  "archive-member-bytes", 0));
  if (is_pickle(m.name) && m.size > l.pickle_bytes)
    throw ImportError(
        limit_error("its pickle " + name + " is " + std::to_string(m.size) + " bytes, which", "pickle-bytes", 0));
  if (m.method == 8 && m.size > (1u << 20) && m.size / std::max<uint64_t>(m.compressed, 1) > l.compression_ratio)
    throw ImportError(limit_error("its member " + name + " inflates " + std::to_string(m.compressed) + " bytes to " +
                                      std::to_string(m.size) + " (a zip bomb?); the ratio",
                                  "compression-ratio", 0));
  total += m.size;
  if (total > l.archive_bytes)
    throw ImportError(
        limit_error("its members inflate to more than " + std::to_string(total) + " bytes, which", "archive-bytes", 0));
}

ZipDirectory parse(const ReadAt& read, uint64_t file_size) {
  End end = find_end(read, file_size);
  if (end.entries == 0) throw ImportError("is an empty zip archive, not a TorchScript archive");
  if (end.entries > limits().archive_members)
    throw ImportError(limit_error("its member count", "archive-members", end.entries));
  if (end.dir_offset > end.position || end.dir_size > end.position - end.dir_offset)
    corrupt("central directory out of place");
  if (end.dir_size > kDirectoryMax) corrupt("central directory too large");
  std::string dir = read(end.dir_offset, end.dir_size);
  if (dir.size() != end.dir_size) corrupt("cannot read its central directory");
  ZipDirectory out;
  uint64_t total = 0;
  size_t at = 0;
  for (uint64_t k = 0; k < end.entries; ++k) {
    if (dir.size() - at < 46 || le(dir, at, 4) != kCentral) corrupt("bad central directory entry");
    ZipMember m;
    m.method = static_cast<uint16_t>(le(dir, at + 10, 2));
    m.compressed = le(dir, at + 20, 4);
    m.size = le(dir, at + 24, 4);
    size_t name_len = le(dir, at + 28, 2), extra_len = le(dir, at + 30, 2), comment_len = le(dir, at + 32, 2);
    m.local_offset = le(dir, at + 42, 4);
    if (dir.size() - at - 46 < name_len + extra_len + comment_len) corrupt("central directory entry cut off");
    m.name = dir.substr(at + 46, name_len);
    // Zip64 sizes and offset, in this order, for each field that is 0xFFFFFFFF.
    for (size_t e = at + 46 + name_len, stop = e + extra_len; stop - e >= 4;) {
      size_t id = le(dir, e, 2), len = le(dir, e + 2, 2);
      if (stop - e - 4 < len) corrupt("bad extra field");
      if (id == 1) {
        size_t f = e + 4, f_end = f + len;
        for (uint64_t* field : {&m.size, &m.compressed, &m.local_offset}) {
          if (*field != 0xFFFFFFFF) continue;
          if (f_end - f < 8) corrupt("bad zip64 field");
          *field = le(dir, f, 8);
          f += 8;
        }
      }
      e += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    if (m.name.empty() || m.name.find('\0') != std::string::npos) corrupt("a member without a valid name");
    if (m.method != 0 && m.method != 8)
      corrupt("member " + printable(m.name, 80) + " uses compression method " + std::to_string(m.method));
    if (m.method == 0 && m.size != m.compressed) corrupt("stored member " + printable(m.name, 80) + " with two sizes");
    if (m.local_offset > end.dir_offset || m.compressed > end.dir_offset - m.local_offset ||
        end.dir_offset - m.local_offset - m.compressed < 30 + name_len)
      corrupt("member " + printable(m.name, 80) + " lies outside the archive");
    check_limits(m, total);
    out.members.push_back(std::move(m));
  }
  const std::string& first = out.members.front().name;
  auto slash = first.find('/');
  if (slash == std::string::npos || slash == 0)
    throw ImportError("is a zip archive but not a TorchScript archive (no top-level folder)");
  out.folder = first.substr(0, slash);
  return out;
}

}  // namespace

ZipDirectory read_zip_directory(const std::string& bytes, uint64_t file_size) {
  // `bytes` is the file's tail: offset o of the file is bytes[o - (file_size - bytes.size())].
  if (bytes.size() > file_size) file_size = bytes.size();
  const uint64_t base = file_size - bytes.size();
  return parse(
      [&](uint64_t offset, uint64_t n) -> std::string {
        if (offset < base || offset - base >= bytes.size()) return "";
        return bytes.substr(static_cast<size_t>(offset - base), static_cast<size_t>(n));
      },
      file_size);
}

ZipDirectory read_zip_directory_with(const ReadAt& read, uint64_t file_size) { return parse(read, file_size); }

ZipDirectory read_zip_directory_of(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ImportError("cannot be opened for reading");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ImportError("is not a regular file; qlint reads only regular files");
  }
  auto read = [fd](uint64_t offset, uint64_t n) {
    std::string out(static_cast<size_t>(n), '\0');
    out.resize(pread_fully(fd, offset, out.data(), out.size()));
    return out;
  };
  try {
    ZipDirectory d = parse(read, static_cast<uint64_t>(st.st_size));
    ::close(fd);
    return d;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

namespace {

// What an opcode does to the unpickler's stack, for the ones that neither read an argument nor
// need special handling: how many items above the top mark it needs and how many it pushes
// after popping them.
struct StackEffect {
  int pops, pushes;
};

std::optional<StackEffect> simple_effect(unsigned char op) {
  switch (op) {
    case 'N':
    case 0x88:
    case 0x89:
    case '}':
    case ']':
    case ')':
    case 0x8f:
    case 0x97:
      return StackEffect{0, 1};
    case '0':
      return StackEffect{1, 0};
    case '2':
      return StackEffect{1, 2};
    case 'Q':
    case 0x85:
    case 0x98:
      return StackEffect{1, 1};
    case 'R':
    case 0x86:
    case 0x81:
    case 0x93:
      return StackEffect{2, 1};
    case 'a':
    case 'b':
      return StackEffect{2, 1};
    case 's':
      return StackEffect{3, 1};
    case 0x87:
    case 0x92:
      return StackEffect{3, 1};
    default:
      return std::nullopt;
  }
}

// The width of an opcode's fixed-size argument, or 0.
int fixed_argument(unsigned char op) {
  switch (op) {
    case 'K':
    case 0x82:
    case 0x80:
      return 1;
    case 'M':
    case 0x83:
      return 2;
    case 'J':
    case 0x84:
      return 4;
    case 'G':
      return 8;
    default:
      return 0;
  }
}

// The width of the length field before an opcode's counted bytes, or 0.
int length_field(unsigned char op) {
  switch (op) {
    case 'U':
    case 0x8c:
    case 'C':
    case 0x8a:
      return 1;
    case 'T':
    case 'X':
    case 'B':
    case 0x8b:
      return 4;
    case 0x8d:
    case 0x8e:
    case 0x96:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

std::string pickle_problem(const std::string& p, std::vector<std::string>* globals) {
  const size_t n = p.size();
  size_t i = 0;
  uint64_t opcodes = 0;
  // LibTorch's unpickler trusts the stack and the memo: TUPLE3 on two items or a BINGET of a
  // slot never written corrupts its heap. So the scan keeps the stack's depth, its marks and
  // the written memo slots, and refuses what would underflow or read an empty slot.
  uint64_t depth = 0;
  std::vector<uint64_t> marks;  // depth at each MARK
  std::set<uint64_t> memo;
  std::set<std::string> named;  // the globals already listed
  auto above_mark = [&] { return depth - (marks.empty() ? 0 : marks.back()); };
  auto need = [&](uint64_t k) { return k <= n - i; };
  auto until_newline = [&](int lines) {
    for (int l = 0; l < lines; ++l) {
      size_t nl = p.find('\n', i);
      if (nl == std::string::npos) return false;
      i = nl + 1;
    }
    return true;
  };
  auto read_index = [&](int bytes, uint64_t& out) {
    if (!need(static_cast<uint64_t>(bytes))) return false;
    out = le(p, i, bytes);
    i += static_cast<size_t>(bytes);
    return true;
  };
  const std::string cut = "the pickle is cut off", stack = "the pickle's stack is malformed";
  while (i < n) {
    unsigned char op = static_cast<unsigned char>(p[i++]);
    if (++opcodes > (1u << 26)) return "the pickle has too many opcodes";
    if (auto effect = simple_effect(op)) {
      if (above_mark() < static_cast<uint64_t>(effect->pops)) return stack;
      depth += static_cast<uint64_t>(effect->pushes) - static_cast<uint64_t>(effect->pops);
      continue;
    }
    uint64_t len = 0, index = 0;
    if (int width = fixed_argument(op)) {  // BININT1, BININT2, BININT, BINFLOAT, EXT*, PROTO
      if (!need(static_cast<uint64_t>(width))) return cut;
      i += static_cast<size_t>(width);
      if (op != 0x80) ++depth;
      continue;
    }
    if (int width = length_field(op)) {  // strings and bytes: a length, then that many bytes
      if (!read_index(width, len)) return cut;
      if (!need(len)) return "a pickle length field points past its end";
      i += len;
      ++depth;
      continue;
    }
    switch (op) {
      case '.':  // STOP
        return depth >= 1 ? "" : stack;
      case '(':
        marks.push_back(depth);
        break;
      case '1':  // POP_MARK
        if (marks.empty()) return stack;
        depth = marks.back();
        marks.pop_back();
        break;
      case 'd':
      case 'l':
      case 't':
      case 0x91:
      case 'o':
      case 'i':  // pop to mark, push one
        if (marks.empty()) return stack;
        if (op == 'o' && above_mark() < 1) return stack;
        if (op == 'i' && !until_newline(2)) return cut;
        depth = marks.back() + 1;
        marks.pop_back();
        break;
      case 'e':
      case 'u':
      case 0x90:  // pop to mark into the item below it
        if (marks.empty() || marks.back() < 1) return stack;
        if (op == 'u' && above_mark() % 2 != 0) return stack;
        depth = marks.back();
        marks.pop_back();
        if (!marks.empty() && depth - marks.back() < 1) return stack;
        break;
      case 'p':    // PUT with a decimal index
      case 'g': {  // GET
        size_t nl = p.find('\n', i);
        if (nl == std::string::npos) return cut;
        auto v = parse_int(p.substr(i, nl - i), 0, INT64_MAX);
        i = nl + 1;
        if (!v) return "a pickle memo index is malformed";
        if (op == 'p') {
          if (above_mark() < 1) return stack;
          memo.insert(static_cast<uint64_t>(*v));
        } else {
          if (!memo.count(static_cast<uint64_t>(*v))) return "the pickle reads a memo slot it never wrote";
          ++depth;
        }
        break;
      }
      case 'q':
      case 'r':  // BINPUT, LONG_BINPUT
        if (!read_index(op == 'q' ? 1 : 4, index)) return cut;
        if (index > opcodes) return "a pickle memo index is out of range";
        if (above_mark() < 1) return stack;
        memo.insert(index);
        break;
      case 0x94:  // MEMOIZE
        if (above_mark() < 1) return stack;
        memo.insert(memo.size());
        break;
      case 'h':
      case 'j':  // BINGET, LONG_BINGET
        if (!read_index(op == 'h' ? 1 : 4, index)) return cut;
        if (!memo.count(index)) return "the pickle reads a memo slot it never wrote";
        ++depth;
        break;
      case 0x95:  // FRAME: the next frame's length
        if (!read_index(8, len)) return cut;
        if (!need(len)) return "a pickle frame length points past its end";
        break;
      case 'I':
      case 'L':
      case 'S':
      case 'V':
      case 'F':
      case 'P':
        if (!until_newline(1)) return cut;
        if (op == 'P') break;  // PERSID pushes below
        ++depth;
        break;
      case 'c': {  // GLOBAL: "module\nname\n", a class or function the unpickler looks up
        const size_t start = i;
        if (!until_newline(2)) return cut;
        if (globals != nullptr && globals->size() < kMaxGlobals) {
          std::string reference = p.substr(start, i - 1 - start);
          reference[reference.find('\n')] = '.';
          if (named.insert(reference).second) globals->push_back(std::move(reference));
        }
        ++depth;
        break;
      }
      default:
        return "the pickle has an unknown opcode";
    }
    if (op == 'P') ++depth;
  }
  return "the pickle has no end (STOP)";
}

}  // namespace qlint::ir
