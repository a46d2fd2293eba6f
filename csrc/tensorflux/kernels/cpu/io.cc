// CPU kernels for ReadFile and WriteFile.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "tensorflux/kernels/cpu/string_util.h"

namespace tx {
namespace cpu {
namespace {

// The status of a failed file operation on `path`, numbered as TensorFlow's (NotFound, ...).
Status FileError(const std::string& path, int err) {
  const std::string msg = path + "; " + std::strerror(err);
  switch (err) {
    case ENOENT: return NotFound(msg);
    case EACCES:
    case EPERM: return Status(Code::kPermissionDenied, msg);
    case EISDIR:
    case ENOTDIR: return FailedPrecondition(msg);
    default: return Status(Code::kUnknown, msg);
  }
}

// The path of scalar string input 0.
Status FileName(OpKernelContext* ctx, std::string* out) {
  std::string_view name;
  TX_RETURN_IF_ERROR(ScalarStringInput(ctx, 0, "Input filename should be a scalar but has shape ", &name));
  *out = std::string(name);
  return Status::OK();
}

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string path;
    TX_CTX_RETURN_IF_ERROR(ctx, FileName(ctx, &path));
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return ctx->SetStatus(FileError(path, errno));
    if (S_ISDIR(st.st_mode)) return ctx->SetStatus(FileError(path, EISDIR));
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return ctx->SetStatus(FileError(path, errno));
    std::string bytes;
    char buf[1 << 16];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed) return ctx->SetStatus(FileError(path, err));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    TX_CTX_RETURN_IF_ERROR(ctx, AssignString(bytes, out->data<TString>()));
  }
};

// Creates the directories leading to `path` (as TensorFlow's WriteFile does).
Status MakeParents(const std::string& path) {
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    const std::string dir = path.substr(0, at);
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) return FileError(dir, errno);
  }
  return Status::OK();
}

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string path;
    TX_CTX_RETURN_IF_ERROR(ctx, FileName(ctx, &path));
    std::string_view contents;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           ScalarStringInput(ctx, 1, "Contents tensor must be scalar, but had shape: ", &contents));
    TX_CTX_RETURN_IF_ERROR(ctx, MakeParents(path));
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return ctx->SetStatus(FileError(path, errno));
    const bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !ok) return ctx->SetStatus(FileError(path, ok ? errno : err));
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("ReadFile"), ReadFileOp);
TX_REGISTER_KERNEL(KernelDefBuilder("WriteFile"), WriteFileOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
