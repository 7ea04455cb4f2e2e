#include "cli/server/workspace.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "cli/model_files.h"
#include "ir/archive_check.h"

namespace qlint::server {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxOutput = 64 * 1024;

bool skipped_directory(const fs::path& dir) {
  const std::string name = dir.filename().string();
  return (name.size() > 1 && name[0] == '.') || name == "node_modules" || name == "__pycache__";
}

bool is_under(const std::string& file, const std::vector<std::string>& roots) {
  const std::string path = fs::path(file).lexically_normal().string();
  for (const auto& root : roots) {
    std::string prefix = fs::path(root).lexically_normal().string();
    if (path == prefix) return true;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

// torch.save writes a zip of `data.pkl`, the tensors' storages under `data/` and a few records
// of its own, and nothing else. Any other member (TorchScript's `code/`, spelt in any case, as
// LibTorch finds it; something hostile), or no zip at all (a corrupt archive), and the file is
// checked, so that what is wrong with it is shown.
static bool only_torch_save_records(const ir::ZipDirectory& zip) {
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string folder = lower(zip.folder) + "/";
  bool data = false;
  for (const auto& member : zip.members) {
    const std::string name = lower(member.name);
    if (name.rfind(folder, 0) != 0) return false;
    const std::string record = name.substr(folder.size());
    if (record == "data.pkl") {
      data = true;
    } else if (record != "version" && record != "byteorder" && record.rfind("data/", 0) != 0 &&
               record.rfind(".data/", 0) != 0) {
      return false;
    }
  }
  return data;
}

std::optional<FileStamp> FileStamp::of(const std::string& file) {
  std::error_code ec;
  FileStamp stamp{fs::last_write_time(file, ec), 0};
  if (!ec) stamp.size = fs::file_size(file, ec);
  if (ec) return std::nullopt;
  return stamp;
}

bool ModelWatcher::saved_with_torch_save(const std::string& file, const Stamp& stamp) const {
  std::lock_guard<std::mutex> lock(torch_save_mutex_);
  auto it = torch_save_files_.find(file);
  if (it != torch_save_files_.end() && it->second.first == stamp) return it->second.second;
  bool saved = false;
  try {
    saved = only_torch_save_records(ir::read_zip_directory_of(file));
  } catch (const std::exception&) {
    saved = false;
  }
  torch_save_files_[file] = {stamp, saved};
  return saved;
}

void ModelWatcher::set_roots(std::vector<std::string> roots) {
  std::lock_guard<std::mutex> lock(mutex_);
  roots_ = std::move(roots);
}

const DirectoryListings::Listing& DirectoryListings::listing(const std::string& directory) {
  std::error_code ec;
  const fs::file_time_type modified = fs::last_write_time(directory, ec);
  const fs::file_time_type now = fs::file_time_type::clock::now();
  auto it = listings_.find(directory);
  if (!ec && it != listings_.end() && it->second.modified == modified &&
      it->second.listed_at - it->second.modified >= std::chrono::seconds(2)) {
    it->second.visited = true;
    return it->second;
  }
  Listing fresh{modified, now, {}, {}, true};
  for (fs::directory_iterator entry(directory, fs::directory_options::skip_permission_denied, ec);
       !ec && entry != fs::directory_iterator(); entry.increment(ec)) {
    std::error_code status_ec;
    // Symbolic links to directories are not followed; to model files they are.
    if (entry->is_directory(status_ec) && !entry->is_symlink(status_ec)) {
      if (!skipped_directory(entry->path())) fresh.directories.push_back(entry->path().lexically_normal().string());
    } else if (entry->is_regular_file(status_ec) && cli::is_model_file(entry->path())) {
      fresh.models.push_back(entry->path().lexically_normal().string());
    }
  }
  return listings_[directory] = std::move(fresh);
}

void DirectoryListings::add_models_under(const std::string& root, std::vector<std::string>& out) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    if (fs::is_regular_file(root, ec)) out.push_back(fs::path(root).lexically_normal().string());
    return;
  }
  std::vector<std::string> pending = {fs::path(root).lexically_normal().string()};
  while (!pending.empty()) {
    const std::string directory = std::move(pending.back());
    pending.pop_back();
    const Listing& found = listing(directory);
    out.insert(out.end(), found.models.begin(), found.models.end());
    pending.insert(pending.end(), found.directories.begin(), found.directories.end());
  }
}

void DirectoryListings::forget_unvisited() {
  for (auto it = listings_.begin(); it != listings_.end();) {
    if (!it->second.visited) {
      it = listings_.erase(it);
    } else {
      it->second.visited = false;
      ++it;
    }
  }
}

std::map<std::string, ModelWatcher::Stamp> ModelWatcher::current_stamps() {
  std::vector<std::string> roots;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    roots = roots_;
  }
  std::vector<std::string> files;
  for (const auto& root : roots) listings_.add_models_under(root, files);
  listings_.forget_unvisited();
  std::map<std::string, Stamp> stamps;
  for (const auto& file : files) {
    auto stamp = FileStamp::of(file);
    if (stamp && !saved_with_torch_save(file, *stamp)) stamps[file] = *stamp;
  }
  return stamps;
}

ModelWatcher::Changes ModelWatcher::scan() {
  std::map<std::string, Stamp> stamps = current_stamps();
  std::lock_guard<std::mutex> lock(mutex_);
  Changes changes;
  for (auto it = seen_.begin(); it != seen_.end();) {
    if (stamps.count(it->first)) {
      ++it;
      continue;
    }
    // Gone, or no longer in the workspace (its folder was removed from it): its diagnostics go.
    std::error_code ec;
    if (it->second.reported && (!fs::exists(it->first, ec) || !is_under(it->first, roots_)))
      changes.removed.push_back(it->first);
    it = seen_.erase(it);
  }
  for (const auto& [file, stamp] : stamps) {
    auto [it, inserted] = seen_.try_emplace(file, Seen{stamp, false});
    Seen& seen = it->second;
    const bool settled = first_scan_ || settled_;
    if (!inserted && !(seen.stamp == stamp)) {
      seen = {stamp, false};
      if (!settled) continue;  // perhaps still being written: report it once it keeps its stamp
    }
    if (seen.reported || (inserted && !settled)) continue;
    seen.reported = true;
    changes.changed.push_back(file);
  }
  first_scan_ = settled_ = false;
  return changes;
}

bool ModelWatcher::watches(const std::string& file) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!is_under(file, roots_)) return false;
  }
  auto stamp = FileStamp::of(file);
  return !stamp || !saved_with_torch_save(file, *stamp);
}

void ModelWatcher::settle() {
  std::lock_guard<std::mutex> lock(mutex_);
  settled_ = true;
}

void ModelWatcher::mark_checked(const std::string& file) {
  auto stamp = FileStamp::of(file);
  if (!stamp) return;
  std::lock_guard<std::mutex> lock(mutex_);
  seen_[file] = Seen{*stamp, true};
}

std::vector<std::string> ModelWatcher::models() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& entry : seen_) out.push_back(entry.first);
  return out;
}

bool ConfigWatcher::changed(const std::vector<std::string>& files) {
  std::map<std::string, std::optional<FileStamp>> now;
  bool changed = false;
  for (const auto& file : files) {
    auto stamp = now[file] = FileStamp::of(file);
    auto before = seen_.find(file);
    if (before != seen_.end() && before->second != stamp) changed = true;
  }
  seen_ = std::move(now);
  return changed;
}

CommandResult CommandRunner::run(const std::string& command, const std::string& directory) {
  CommandResult result;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.output = "cannot create a pipe";
    return result;
  }
  pid_t pid = fork();
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    if (chdir(directory.c_str()) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    result.output = "cannot start /bin/sh";
    return result;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = pid;
  }
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    result.output.append(buffer, static_cast<size_t>(n));
    if (result.output.size() > kMaxOutput) result.output.erase(0, result.output.size() - kMaxOutput);
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = 0;
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void CommandRunner::kill_running() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_ > 0) kill(-running_, SIGTERM);
}

}  // namespace qlint::server
