#include "tensorflux/framework/safetensors.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <random>
#include <set>
#include <string_view>

#include "tensorflux/core/canonical_bool.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors I/O assumes a little-endian host (the format stores little-endian data)"
#endif

namespace tx {
namespace {

// An I/O error for `path`, with a code derived from errno as TensorFlow does.
Status IoError(int err, const std::string& what, const std::string& path) {
  std::string msg = StrCat(what, " '", path, "': ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR: return Status(Code::kNotFound, msg);
    case EACCES:
    case EPERM:
    case EROFS: return Status(Code::kPermissionDenied, msg);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM: return Status(Code::kResourceExhausted, msg);
    case EISDIR:
    case EEXIST: return Status(Code::kFailedPrecondition, msg);
    case EINVAL:
    case ENAMETOOLONG: return Status(Code::kInvalidArgument, msg);
    case EFBIG:
    case EOVERFLOW: return Status(Code::kOutOfRange, msg);
    default: return Status(Code::kUnknown, msg);
  }
}

// Closes `fd` at scope exit unless released.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

Status WriteAll(int fd, const void* data, size_t len, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::write(fd, p, std::min<size_t>(len, size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "cannot write", path);
    }
    p += n;
    len -= static_cast<size_t>(n);
  }
  return Status::OK();
}

// Reads exactly `len` bytes at `offset`; DataLoss when the file ends first.
Status ReadAt(int fd, void* data, size_t len, uint64_t offset, const std::string& path) {
  char* p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = ::pread(fd, p, std::min<size_t>(len, size_t{1} << 30), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "cannot read", path);
    }
    if (n == 0) return DataLoss("safetensors file '", path, "' ended early (was it truncated while being read?)");
    p += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

std::string RandomSuffix() {
  uint64_t bits;
  try {
    std::random_device rd;
    bits = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  } catch (...) { bits = 0; }
  static std::atomic<uint64_t> counter{0};
  bits ^= (static_cast<uint64_t>(::getpid()) << 20) ^ counter.fetch_add(1) ^ reinterpret_cast<uintptr_t>(&bits);
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

// Makes a rename inside the directory of `path` durable; best effort (some filesystems refuse).
void SyncParentDirectory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Validates the arguments of WriteSafetensors and lays the tensors out in file order.
Status PlanFile(const std::vector<std::pair<std::string, Tensor>>& tensors, std::vector<SafetensorsTensorInfo>* infos,
                std::vector<const Tensor*>* data) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, t] = tensors[i];
    if (name.empty()) return InvalidArgument("tensor #", i, " has an empty name");
    if (name == "__metadata__") return InvalidArgument("tensor name \"__metadata__\" is reserved by the format");
    if (!names.insert(name).second) return InvalidArgument("duplicate tensor name '", name, "'");
    if (!IsValidUtf8(name)) return InvalidArgument("tensor name #", i, " is not valid UTF-8");
    if (!t.initialized()) return InvalidArgument("tensor '", name, "' holds no value");
    if (SafetensorsDtypeName(t.dtype()) == nullptr) {
      return InvalidArgument("tensor '", name, "' has type ", DataTypeString(t.dtype()),
                             ", which the safetensors format cannot hold");
    }
    infos->push_back({name, t.dtype(), t.shape(), 0, 0});
  }
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return SafetensorsFileOrderLess((*infos)[a], (*infos)[b]); });
  std::vector<SafetensorsTensorInfo> sorted;
  sorted.reserve(order.size());
  uint64_t offset = 0;
  for (size_t i : order) {
    sorted.push_back(std::move((*infos)[i]));
    sorted.back().begin = offset;
    offset += tensors[i].second.byte_size();
    sorted.back().end = offset;
    data->push_back(&tensors[i].second);
  }
  *infos = std::move(sorted);
  return Status::OK();
}

// The prefix of the temporary files of `path`; a temporary is "<path>.tmp-<pid>-<random>@<host>".
std::string TempPrefix(const std::string& path) { return path + ".tmp-"; }

// This machine's name, which scopes the pids in temporary names (a shared directory may hold
// temporaries of live processes elsewhere).
std::string HostName() {
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) != 0) return "unknown";
  return host;
}

// Removes "<path>.tmp-<pid>-<random>@<host>" files of this host whose writer process no longer
// exists: a save that was killed (SIGKILL, power loss) never reaches its cleanup. Temporaries of
// live processes, including this one (another thread may be saving), of other hosts, and of other
// naming schemes are left alone. Best effort: errors are ignored.
void RemoveStaleTemporaries(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string prefix = TempPrefix(slash == std::string::npos ? path : path.substr(slash + 1));
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  const pid_t self = ::getpid();
  const std::string host = "@" + HostName();
  while (struct dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
    const std::string rest(name.substr(prefix.size()));
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end == rest.c_str() || *end != '-' || pid <= 0 || pid == self) continue;
    if (rest.size() < host.size() || rest.compare(rest.size() - host.size(), host.size(), host) != 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    ::unlink((dir + "/" + std::string(name)).c_str());
  }
  ::closedir(d);
}

// Writes the whole file to a new temporary file, fsyncs it and renames it over `path`.
Status WriteAtomically(const std::string& path, const std::string& header, const std::vector<const Tensor*>& data) {
  RemoveStaleTemporaries(path);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = StrCat(TempPrefix(path), ::getpid(), "-", RandomSuffix(), "@", HostName());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return IoError(errno, "cannot create temporary file", tmp);
  }
  if (fd < 0) return IoError(EEXIST, "cannot create temporary file", tmp);
  auto fail = [&](Status s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  uint8_t len_bytes[8];
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<uint8_t>(n >> (8 * i));
  Status s = WriteAll(fd, len_bytes, 8, tmp);
  if (s.ok()) s = WriteAll(fd, header.data(), header.size(), tmp);
  for (size_t i = 0; s.ok() && i < data.size(); ++i) s = WriteAll(fd, data[i]->raw_data(), data[i]->byte_size(), tmp);
  if (!s.ok()) return fail(s);
  if (::fsync(fd) != 0) return fail(IoError(errno, "cannot fsync", tmp));
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail(IoError(errno, "cannot close", tmp));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(IoError(errno, "cannot rename the temporary file to", path));
  SyncParentDirectory(path);
  return Status::OK();
}

}  // namespace

Status WriteSafetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  const std::string where = StrCat("cannot save safetensors file '", path, "': ");
  if (path.empty()) return InvalidArgument("cannot save a safetensors file: the path is empty");
  std::vector<SafetensorsTensorInfo> infos;
  std::vector<const Tensor*> data;
  for (const auto& [key, value] : metadata) {
    if (!IsValidUtf8(key) || !IsValidUtf8(value))
      return InvalidArgument(where, "metadata keys and values must be valid UTF-8");
  }
  TX_RETURN_IF_ERROR(PlanFile(tensors, &infos, &data).WithPrefix(where));
  return WriteAtomically(path, SerializeSafetensorsHeader(infos, metadata), data);
}

SafetensorsReader::~SafetensorsReader() { ::close(fd_); }

Status SafetensorsReader::Open(const std::string& path, std::unique_ptr<SafetensorsReader>* out) {
  int fd;
  do {
    // O_NONBLOCK: opening a FIFO (or a device) must not block before the regular-file check below;
    // reads of a regular file ignore the flag.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IoError(errno, "cannot open safetensors file", path);
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError(errno, "cannot stat", path);
  if (!S_ISREG(st.st_mode)) return FailedPrecondition("safetensors file '", path, "' is not a regular file");
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  const std::string where = StrCat("safetensors file '", path, "': ");
  if (file_size < 8)
    return DataLoss(where, "the file holds ", file_size, " bytes, fewer than the 8-byte header length");
  uint8_t len_bytes[8];
  TX_RETURN_IF_ERROR(ReadAt(fd, len_bytes, 8, 0, path));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len_bytes[i];
  if (n > kMaxSafetensorsHeaderBytes)
    return DataLoss(where, "header length ", n, " exceeds the limit of ", kMaxSafetensorsHeaderBytes, " bytes");
  if (n > file_size - 8)
    return DataLoss(where, "header length ", n, " runs past the end of the ", file_size, "-byte file (truncated?)");
  std::string text(static_cast<size_t>(n), '\0');
  TX_RETURN_IF_ERROR(ReadAt(fd, text.data(), text.size(), 8, path));
  std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader(path, closer.release()));
  reader->data_start_ = 8 + n;
  TX_RETURN_IF_ERROR(ParseSafetensorsHeader(text, &reader->header_).WithPrefix(where));
  TX_RETURN_IF_ERROR(CheckSafetensorsLayout(reader->header_, file_size - reader->data_start_).WithPrefix(where));
  *out = std::move(reader);
  return Status::OK();
}

Status SafetensorsReader::ReadTensor(size_t i, Tensor* out) const {
  if (i >= header_.tensors.size())
    return OutOfRange("safetensors file '", path_, "' has ", header_.tensors.size(), " tensors; no tensor #", i);
  const SafetensorsTensorInfo& info = header_.tensors[i];
  Tensor t;
  TX_RETURN_IF_ERROR(Tensor::Allocate(info.dtype, info.shape, &t));
  TX_RETURN_IF_ERROR(ReadAt(fd_, t.raw_data(), t.byte_size(), data_start_ + info.begin, path_));
  CanonicalizeBoolInPlace(t);  // Note [Canonical bool]
  *out = std::move(t);
  return Status::OK();
}

Status ReadSafetensors(const std::string& path, std::vector<std::pair<std::string, Tensor>>* tensors,
                       std::map<std::string, std::string>* metadata) {
  std::unique_ptr<SafetensorsReader> reader;
  TX_RETURN_IF_ERROR(SafetensorsReader::Open(path, &reader));
  std::vector<std::pair<std::string, Tensor>> result;
  result.reserve(reader->tensors().size());
  for (size_t i = 0; i < reader->tensors().size(); ++i) {
    Tensor t;
    TX_RETURN_IF_ERROR(reader->ReadTensor(i, &t));
    result.emplace_back(reader->tensors()[i].name, std::move(t));
  }
  if (tensors != nullptr) *tensors = std::move(result);
  if (metadata != nullptr) *metadata = reader->metadata();
  return Status::OK();
}

}  // namespace tx
