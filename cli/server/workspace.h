// What `qlint server` watches and runs in the user's workspace: the model files (polled by
// modification time and size, so no inotify is needed) and the configured export command.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace qlint::server {

// A file's modification time and size: what tells the server it changed.
struct FileStamp {
  std::filesystem::file_time_type time;
  uintmax_t size = 0;
  bool operator==(const FileStamp& o) const { return time == o.time && size == o.size; }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
  // The file's time and size; nullopt when it cannot be read (or is not there).
  static std::optional<FileStamp> of(const std::string& file);
};

// Directory listings kept between scans, so that a scan lists only the directories whose
// entries changed: adding, removing or renaming an entry changes a directory's modification time.
// A listing taken less than two seconds after the directory last changed is not trusted (file
// systems stamp times coarsely: a change in the same tick would not show), as git does with its
// "racily clean" index entries.
class DirectoryListings {
 public:
  // The model files under `root` (a directory searched recursively, skipping hidden directories,
  // node_modules and __pycache__, not following symbolic links to directories; or a file).
  void add_models_under(const std::string& root, std::vector<std::string>& out);
  // Forgets the listings of directories no scan has visited since the last call.
  void forget_unvisited();

 private:
  struct Listing {
    std::filesystem::file_time_type modified, listed_at;
    std::vector<std::string> directories, models;
    bool visited = true;
  };
  const Listing& listing(const std::string& directory);

  std::map<std::string, Listing> listings_;
};

// The models under some roots (files or directories searched recursively, skipping hidden
// directories and node_modules), and what changed since the last scan.
class ModelWatcher {
 public:
  struct Changes {
    std::vector<std::string> changed;  // new, or written since the last scan and no longer being written
    std::vector<std::string> removed;
  };

  void set_roots(std::vector<std::string> roots);
  // A file written since the previous scan is reported once it has kept its time and size for
  // one scan: an exporter writing the archive in pieces is not caught half way.
  Changes scan();
  // Whatever writes the models has finished (the export command ended): the next scan reports
  // changed files at once.
  void settle();
  // Whether `file` is under one of the roots (or is one), and not a tensor file torch.save
  // wrote (model inputs beside the models are no models).
  bool watches(const std::string& file) const;
  // The client said `file` changed, and it is being checked: later scans report it only when
  // it changes again.
  void mark_checked(const std::string& file);
  // The models under the roots, as the last scan saw them.
  std::vector<std::string> models() const;

 private:
  using Stamp = FileStamp;
  struct Seen {
    Stamp stamp;
    bool reported = false;
  };
  std::map<std::string, Stamp> current_stamps();
  // Whether `file` is a tensor file torch.save wrote (an input beside the models, not a model),
  // read once per stamp.
  bool saved_with_torch_save(const std::string& file, const Stamp& stamp) const;

  mutable std::mutex mutex_;
  mutable std::mutex torch_save_mutex_;
  mutable std::map<std::string, std::pair<Stamp, bool>> torch_save_files_;
  std::vector<std::string> roots_;
  DirectoryListings listings_;  // scans only (one thread)
  std::map<std::string, Seen> seen_;
  bool first_scan_ = true;
  bool settled_ = false;
};

// The configuration files the models read (cli::config_candidates): whether one appeared,
// changed or went.
class ConfigWatcher {
 public:
  // Whether any of `files` that the previous call was also given differs from what that call
  // saw; a file new to the list is only looked at (a new model's configuration is read by its
  // own first check).
  bool changed(const std::vector<std::string>& files);

 private:
  std::map<std::string, std::optional<FileStamp>> seen_;
};

// The outcome of a shell command run for the user (the `export` key).
struct CommandResult {
  int exit_code = -1;  // -1: it could not be started or was killed
  std::string output;  // stdout and stderr, interleaved, at most the last 64 KiB
};

// Runs `/bin/sh -c command` in `directory`, with stdin from /dev/null (the server's stdin is the
// protocol), in a process group of its own so that `kill_running` stops whatever it started.
// Blocks until it ends.
class CommandRunner {
 public:
  CommandResult run(const std::string& command, const std::string& directory);
  void kill_running();

 private:
  std::mutex mutex_;
  pid_t running_ = 0;
};

}  // namespace qlint::server
